"""The threshold automaton IR (what a ByMC ``.ta`` file describes).

A ``ThresholdAutomaton`` is a plain, frozen value: equal automata compare equal whatever their
source positions, and every field is in the order the canonical printer writes it, so that
``parse(print(ta)) == ta``. Semantics the file leaves implicit (which locations are initial, whether
every update is a non-negative increment) are computed here, once, for every pass.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from typing import TYPE_CHECKING

from tactl.ir.errors import Span
from tactl.ir.expr import And, Compare, Expr, IntConst, Name, Or, Sum, conj, substitute, to_text, walk
from tactl.ir.linear import NonLinearError, int_symbols, linearize, to_z3

# Hypothesis lives in ir/alg/hypothesis.py so that the pseudocode IR can use it without the TA IR;
# here it is only an annotation, and a plain .ta automaton never loads it
if TYPE_CHECKING:
    from tactl.ir.alg.hypothesis import Hypothesis


# A macro whose expansion has more nodes than this is refused (every pass walks expanded trees).
MAX_MACRO_NODES = 100_000
# … and so are macros whose expansions add up to more than this (the expanded DAG holds copies of
# the flattened sums, e.g. `define D1 == D0 + 1; define D2 == D1 + 1; …` has D_k with k + 1 terms).
MAX_MACRO_NODES_TOTAL = 10_000_000
# Sizes are counted up to this (a chain of doublings would otherwise need huge integers).
SIZE_CAP = 10**18


class SymbolKind(Enum):
    LOCAL = "local"
    SHARED = "shared"
    PARAMETER = "parameter"
    UNKNOWN = "unknown"  # coefficients to be synthesised (ByMC's OPODIS'17 files)
    MACRO = "define"
    LOCATION = "location"


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Define:
    """``define NAME == expr;`` — a macro expanded wherever ``NAME`` is used."""

    name: str
    expr: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a generated location, rule or property came from: a source map entry.

    ``lines`` are 1-based lines of ``file`` (the pseudocode, for ``tactl parse`` output); ``text``
    says what happens there (a rule: the lines executed, with their text; a location: its
    meaning in program variables). Origins take no part in equality: the same automaton
    generated from a file with different comments is the same automaton.
    """

    file: str
    lines: tuple[int, ...]
    text: str

    def describe(self) -> str:
        return self.text or ", ".join(f"line {n}" for n in self.lines)


def _origin() -> "Origin | None":
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Location:
    """A control location; ``values`` are the local variables' values there (``loc: [0; 2];``)."""

    name: str
    values: tuple[int, ...] = ()
    span: Span | None = _span()
    origin: Origin | None = _origin()


@dataclass(frozen=True, slots=True)
class Update:
    """``var' == expr`` in a rule's ``do { … }`` block (``unchanged(var)`` is ``var' == var``)."""

    var: str
    expr: Expr
    span: Span | None = _span()

    @property
    def is_identity(self) -> bool:
        return self.expr == Name(self.var)

    def increment(self) -> int | None:
        """``c`` if the update is ``var' == var + c`` for a constant ``c`` (any sign), else None.

        Macros in ``expr`` must be expanded by the caller when they matter (see
        :meth:`ThresholdAutomaton.increments`).
        """
        e = self.expr
        # The forms nearly every update has (`x' == x + 1`, `unchanged(x)`), without linearizing.
        if isinstance(e, Name):
            return 0 if e.name == self.var else None
        if (isinstance(e, Sum) and len(e.args) == 2 and isinstance(e.args[0], Name)
                and e.args[0].name == self.var and isinstance(e.args[1], IntConst)):
            return e.args[1].value if e.ops[0] == "+" else -e.args[1].value
        try:
            term = linearize(self.expr)
        except (NonLinearError, TypeError):
            return None
        return term.const if term.coeff_map == {self.var: 1} else None


@dataclass(frozen=True, slots=True)
class Rule:
    """``id: source -> target when (guard) do { updates };``.

    ``updates`` are kept in a canonical order — real changes in the order written, then the
    identities (printed as one ``unchanged(…)``) in the order written — so that printing and
    re-reading a rule gives an equal rule.
    """

    id: int
    source: str
    target: str
    guard: Expr
    updates: tuple[Update, ...] = ()
    span: Span | None = _span()
    source_span: Span | None = _span()
    target_span: Span | None = _span()
    origin: Origin | None = _origin()

    def __post_init__(self) -> None:
        changes = tuple(u for u in self.updates if not u.is_identity)
        same = tuple(u for u in self.updates if u.is_identity)
        object.__setattr__(self, "updates", changes + same)

    @property
    def is_self_loop(self) -> bool:
        return self.source == self.target




@dataclass(frozen=True, slots=True)
class Property:
    """A named specification: an LTL formula over location counters, shared variables, parameters;
    a synchronous one may carry the :class:`Hypothesis` it is checked under."""

    name: str
    formula: Expr
    hypothesis: Hypothesis | None = None
    span: Span | None = _span()
    origin: Origin | None = _origin()


@dataclass(frozen=True)
class ThresholdAutomaton:
    """An automaton as a .ta file declares it (ByMC's format): variables, parameters, macros,
    resilience condition, locations, initial constraints, rules and specifications."""
    name: str
    locals: tuple[str, ...] = ()
    shared: tuple[str, ...] = ()
    parameters: tuple[str, ...] = ()
    unknowns: tuple[str, ...] = ()
    defines: tuple[Define, ...] = ()
    assumptions: tuple[Expr, ...] = ()  # the resilience condition, as a conjunction
    locations: tuple[Location, ...] = ()
    inits: tuple[Expr, ...] = ()
    rules: tuple[Rule, ...] = ()
    properties: tuple[Property, ...] = ()
    # "sync": translated from a synchronous receive automaton, meant for lock-step rounds (the
    # interleaving engines refuse it); "async" otherwise.
    timing: str = "async"
    # Every (name, span) of the local/shared/parameters/unknowns declarations, in file order, so
    # that diagnostics can point at a duplicate declaration; no part of equality.
    declared_at: tuple[tuple[str, Span | None], ...] = field(default=(), compare=False, repr=False)

    # ------------------------------------------------------------------------------ symbols

    @cached_property
    def symbols(self) -> dict[str, SymbolKind]:
        """Kind of every declared name (the first declaration wins; duplicates are diagnosed)."""
        table: dict[str, SymbolKind] = {}
        groups = ((self.locals, SymbolKind.LOCAL), (self.shared, SymbolKind.SHARED),
                  (self.parameters, SymbolKind.PARAMETER), (self.unknowns, SymbolKind.UNKNOWN),
                  ((d.name for d in self.defines), SymbolKind.MACRO),
                  ((loc.name for loc in self.locations), SymbolKind.LOCATION))
        for names_, kind in groups:
            for n in names_:
                table.setdefault(n, kind)
        return table

    def location(self, name: str) -> Location | None:
        return self._location_index.get(name)

    @cached_property
    def _location_index(self) -> dict[str, Location]:
        index: dict[str, Location] = {}
        for loc in self.locations:
            index.setdefault(loc.name, loc)  # the first of duplicates, as a linear search finds
        return index

    # ------------------------------------------------------------------------------- macros
    #
    # A macro's expansion is built once, as a DAG: the body of a macro used twice is shared, not
    # copied. Its size as a *tree* (what every recursive pass walks) can still be exponential in
    # the number of defines (`D1 == D0 + D0; D2 == D1 + D1; …`), so :attr:`macro_shapes` computes
    # each expanded tree's size and height from the macro graph, without building or walking
    # it, and the validator refuses a macro beyond :data:`MAX_MACRO_NODES` or ``MAX_NESTING``.

    @cached_property
    def macro_refs(self) -> dict[str, tuple[str, ...]]:
        """The macros each macro's body names, each once, in the order of their first use."""
        raw = self._raw_macros
        return {name: tuple(dict.fromkeys(_macro_refs(body, raw))) for name, body in raw.items()}

    @cached_property
    def _raw_macros(self) -> dict[str, Expr]:
        return {d.name: d.expr for d in self.defines}

    @cached_property
    def macro_order(self) -> tuple[str, ...]:
        """Every macro after the macros its body uses (depth-first from the defines in file order).

        A reference to a macro that comes later in this order closes a cycle; expansion leaves it
        unexpanded (the validator reports the cycle).
        """
        refs = self.macro_refs
        state: dict[str, bool] = {}  # False while on the depth-first path, True once placed
        order: list[str] = []
        for root in refs:
            if root in state:
                continue
            state[root] = False
            stack = [(root, iter(refs[root]))]
            while stack:
                name, pending = stack[-1]
                for m in pending:
                    if m not in state:
                        state[m] = False
                        stack.append((m, iter(refs[m])))
                        break
                else:
                    stack.pop()
                    state[name] = True
                    order.append(name)
        return tuple(order)

    @cached_property
    def macro_bodies(self) -> dict[str, Expr]:
        """Each macro with the macros in its body expanded (cycles are left unexpanded).

        Built in :attr:`macro_order`, each body from the already expanded bodies it uses: a DAG
        whose size is that of the defines (plus the arguments that ``Sum`` flattening copies).
        """
        raw, done = self._raw_macros, {}
        for name in self.macro_order:
            done[name] = substitute(raw[name], done)  # a name not yet in `done` closes a cycle
        return done

    @cached_property
    def macro_shapes(self) -> dict[str, Shape]:
        """Size and height of every macro's expanded tree (dynamic programming over the macros)."""
        raw, shapes = self._raw_macros, {}
        for name in self.macro_order:
            shapes[name] = expanded_shape(raw[name], shapes)
        return shapes

    @cached_property
    def macro_names(self) -> dict[str, dict[SymbolKind, str]]:
        """For each macro, the kinds of the declared names in its expansion (macros excepted),
        each with the first name of that kind in the expanded tree, in order of first occurrence."""
        raw, found = self._raw_macros, {}
        for name in self.macro_order:
            kinds: dict[SymbolKind, str] = {}
            for n in walk(raw[name]):
                if not isinstance(n, Name):
                    continue
                inner = found.get(n.name)
                if inner is not None:  # an expanded macro: its names, in their order
                    for kind, first in inner.items():
                        kinds.setdefault(kind, first)
                    continue
                kind = self.symbols.get(n.name)
                if kind is not None and kind is not SymbolKind.MACRO:
                    kinds.setdefault(kind, n.name)
            found[name] = kinds
        return found

    def expand(self, e: Expr) -> Expr:
        """``e`` with every ``define`` macro replaced by its body. Each expression is expanded
        once: a check expands the same guards, resilience condition and inits for every property
        and every side question (hundreds of times for a small automaton)."""
        if not self.defines:
            return e
        done = self._expanded.get(id(e))
        if done is None or done[0] is not e:
            done = self._expanded[id(e)] = (e, substitute(e, self.macro_bodies))
        return done[1]

    @cached_property
    def _expanded(self) -> dict[int, tuple[Expr, Expr]]:
        """id of an expression -> (the expression, kept so that its id is not reused; its expansion)."""
        return {}

    # ----------------------------------------------------------------------------- semantics

    @property
    def resilience_condition(self) -> Expr:
        return conj(*self.assumptions)

    def expressions(self) -> Iterator[Expr]:
        """Every expression the automaton holds as written: defines, assumptions, inits, guards,
        update right-hand sides and specifications (for passes that look at all of them)."""
        yield from (d.expr for d in self.defines)
        yield from self.assumptions
        yield from self.inits
        for r in self.rules:
            yield r.guard
            yield from (u.expr for u in r.updates)
        yield from (p.formula for p in self.properties)

    def increments(self, rule: Rule) -> dict[str, int] | None:
        """Shared-variable increments of ``rule``, or None if some update is not ``x' == x + c``."""
        result: dict[str, int] = {}
        for u in rule.updates:
            c = Update(u.var, self.expand(u.expr)).increment()
            if c is None:
                return None
            if c:
                result[u.var] = c
        return result

    def update_text(self, u: Update) -> str:
        """``x += c`` for an increment by a constant (after macro expansion), else ``x' == expr``."""
        c = Update(u.var, self.expand(u.expr)).increment()
        return f"{u.var} += {c}" if c is not None and c >= 0 else f"{u.var}' == {to_text(u.expr)}"

    def non_monotone_updates(self) -> list[tuple[Rule, Update]]:
        """Updates that are not ``x' == x + c`` with a constant ``c >= 0``.

        Such automata are outside the class of monotone TAs (shared variables only grow) for
        which parameterized reachability is decidable; the checkers refuse them.
        """
        bad = []
        for r in self.rules:
            for u in r.updates:
                c = Update(u.var, self.expand(u.expr)).increment()
                if c is None or c < 0:
                    bad.append((r, u))
        return bad

    @property
    def is_monotone(self) -> bool:
        return not self.non_monotone_updates()

    def initial_locations(self) -> tuple[str, ...]:
        """Locations that may hold processes initially: those the ``inits`` and RC allow ``> 0``.

        A location constrained ``loc == 0`` at the top level of ``inits`` is answered without a
        solver; the others are asked of z3 (with all counters and parameters non-negative), one
        question per class of interchangeable locations (see :func:`_symmetry_classes`): a
        location the constraints do not mention, or one of many that appear alike in one long
        sum, is answered with the others, so the number of solver calls does not grow with the
        number of locations.
        """
        forced_zero = {
            init.left.name for init in self.inits
            if isinstance(init, Compare) and init.op == "==" and isinstance(init.left, Name)
            and init.right == IntConst(0)
        }
        candidates = [loc.name for loc in self.locations if loc.name not in forced_zero]
        if not candidates:
            return ()
        import z3  # lazy: importing z3 slows every start; reading and printing need no solver

        try:
            formulas = [self.expand(e) for e in (*self.assumptions, *self.inits)]
            classes = _symmetry_classes(formulas, candidates)
            # The SMT core without the preprocessing tactics that a plain z3.Solver() runs on a
            # check() without assumptions: on a sum of thousands of counters they dominate the
            # time and memory of the whole question.
            solver = z3.SimpleSolver()
            sym = int_symbols()
            for e in formulas:
                solver.add(to_z3(e, sym))
        except (NonLinearError, TypeError, ValueError):
            return tuple(candidates)  # not decidable here: every unconstrained location may start
        # Non-negativity of what the constraints mention and of the locations asked about; a
        # variable that occurs nowhere else changes no answer.
        needed = {n.name for e in formulas for n in walk(e) if isinstance(n, Name)}
        needed.update(members[0] for members in classes)
        for n in (*self.parameters, *self.shared, *(loc.name for loc in self.locations)):
            if n in needed:
                solver.add(sym(n) >= 0)
                needed.discard(n)  # once, even if a name is declared twice
        possible: set[str] = set()
        answer = solver.check()
        if answer == z3.unsat:
            return ()
        if answer == z3.sat:  # every location positive in one model may start positive
            model = solver.model()
            possible.update(m[0] for m in classes
                            if model.eval(sym(m[0]), model_completion=True).as_long() > 0)
        initial: set[str] = set()
        for members in classes:
            if members[0] in possible or solver.check(sym(members[0]) > 0) != z3.unsat:
                initial.update(members)
        return tuple(n for n in candidates if n in initial)


def topological_rank(ta: ThresholdAutomaton) -> dict[str, int]:
    """Position of each location in a topological order of the rule graph (cycles: file order)."""
    succ: dict[str, list[str]] = defaultdict(list)
    indegree = {loc.name: 0 for loc in ta.locations}
    for r in ta.rules:
        if not r.is_self_loop:
            succ[r.source].append(r.target)
            indegree[r.target] += 1
    order: dict[str, int] = {}
    ready = [loc.name for loc in ta.locations if indegree[loc.name] == 0]
    while ready:
        loc = ready.pop(0)
        order[loc] = len(order)
        for nxt in succ[loc]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                ready.append(nxt)
    for loc in ta.locations:  # on a cycle: after everything acyclic, in file order
        order.setdefault(loc.name, len(order))
    return order


def _symmetry_classes(formulas: list[Expr], candidates: list[str]) -> list[list[str]]:
    """``candidates`` grouped so that any two in a group are interchangeable in ``formulas``.

    Two locations with the same coefficient in every comparison (linear atom) of the formulas
    — in particular two that occur in none — can be swapped without changing any atom, so one
    can start positive if and only if the other can. Raises :class:`NonLinearError` or
    ``TypeError`` for what is not linear arithmetic.
    """
    signature: dict[str, list[tuple[int, int]]] = {n: [] for n in candidates}
    atom = 0
    for f in formulas:
        for node in walk(f):
            if isinstance(node, Compare):
                for x, a in (linearize(node.left) - linearize(node.right)).coeffs:
                    sig = signature.get(x)
                    if sig is not None:
                        sig.append((atom, a))
                atom += 1
    groups: dict[tuple[tuple[int, int], ...], list[str]] = {}
    for n in candidates:
        groups.setdefault(tuple(signature[n]), []).append(n)
    return list(groups.values())


def _macro_refs(e: Expr, macros: dict[str, Expr]) -> list[str]:
    return [n.name for n in walk(e) if isinstance(n, Name) and n.name in macros]




@dataclass(frozen=True, slots=True)
class Shape:
    """What an expression's tree is once its macros are expanded, known without building it."""

    size: int  # nodes
    height: int  # edges on the longest path from the root down (a name or a number: 0)
    root: type  # the type of the root node (a Sum, And or Or is flattened into its parent)


def expanded_shape(e: Expr, macros: Mapping[str, Shape]) -> Shape:
    """The :class:`Shape` of ``e`` after substituting macros whose shapes are in ``macros``.

    Exact for :func:`ir.expr.substitute`, including its flattening of a ``Sum`` whose first
    argument becomes a ``Sum`` and of ``And``/``Or`` arguments of the same kind. No recursion:
    the cost is the size of ``e`` as written.
    """
    shapes: list[Shape] = []
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        node, children_done = stack.pop()
        if not children_done:
            if isinstance(node, Name):
                shapes.append(macros.get(node.name) or Shape(1, 0, Name))
                continue
            kids = node.children()
            if not kids:
                shapes.append(Shape(1, 0, type(node)))
                continue
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(kids))
            continue
        k = len(node.children())
        kids_shapes = shapes[-k:]
        del shapes[-k:]
        kind = type(node)
        size, height = 1, 0
        for i, child in enumerate(kids_shapes):
            merged = (child.root is kind and ((kind is Sum and i == 0) or kind in (And, Or)))
            if merged:  # its arguments become this node's: one node less, one level less
                size += child.size - 1
                height = max(height, child.height)
            else:
                size += child.size
                height = max(height, child.height + 1)
        shapes.append(Shape(min(size, SIZE_CAP), height, kind))
    return shapes[0]
