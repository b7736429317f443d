"""Semantic checks of a threshold automaton, reported as positioned diagnostics.

Errors make the file meaningless (an unknown location, a product of two variables, an update of a
parameter); warnings leave it readable but flag what later passes must know: a rule id used twice
(both rules are kept) or an update that is not ``x' == x + c`` with ``c >= 0`` (the automaton is
then outside the monotone class of the parametric engine; check gives its safety properties to
the chc engine).

Where a name may appear is fixed by what each part means in the counter system: guards and
update right-hand sides read shared variables and parameters; the resilience condition reads
parameters; ``inits`` and specifications may also read location counters. ``unknowns`` (ByMC's
synthesis coefficients) may appear wherever parameters may, and a product with an unknown factor
(``a1 * N``) is accepted because it is linear once the unknowns are fixed.
"""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Hashable, TypeVar

from tactl.ir.errors import Diagnostic, DiagnosticSink, Span
from tactl.ir.expr import Always, Div, Eventually, Expr, Mul, Name, constant_value, to_text, walk
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.names import identifier_problem
from tactl.ir.ta.model import (
    MAX_MACRO_NODES,
    MAX_MACRO_NODES_TOTAL,
    SIZE_CAP,
    Rule,
    SymbolKind,
    ThresholdAutomaton,
    Update,
    expanded_shape,
)

Node = TypeVar("Node", bound=Hashable)

# Deeper expressions are refused (by the readers, and here once macros are expanded) before any
# recursive function sees them. Chains (`a + b + …`, `a && b && …`) are flat, so only genuine
# nesting counts; real files stay far below this.
MAX_NESTING = 200


def divisor_problem(e: Expr) -> str | None:
    """Why ``e`` cannot be the divisor of '/' (asked by the reader as it reads, and here of the
    JSON form and macro expansions), or None when it folds to a positive integer."""
    value = constant_value(e)
    if value is None:
        return (f"the divisor of '/' must be a positive integer constant, found '{to_text(e)}' "
                "(tactl divides only by constants, which keeps the arithmetic linear)")
    if value <= 0:
        what = "zero" if value == 0 else f"negative ({value})"
        return (f"division by {what}: the divisor of '/' must be a positive integer constant, "
                f"found '{to_text(e)}'")
    return None


K = SymbolKind
_KIND_NAMES = {K.LOCAL: "local variable", K.SHARED: "shared variable", K.PARAMETER: "parameter",
               K.UNKNOWN: "unknown", K.MACRO: "macro", K.LOCATION: "location"}

GUARD_KINDS = frozenset({K.SHARED, K.PARAMETER, K.UNKNOWN})
RC_KINDS = frozenset({K.PARAMETER, K.UNKNOWN})
INIT_KINDS = frozenset({K.LOCATION, K.SHARED, K.PARAMETER, K.UNKNOWN})
SPEC_KINDS = frozenset({K.LOCATION, K.SHARED, K.PARAMETER, K.UNKNOWN, K.LOCAL})
DEFINE_KINDS = frozenset({K.LOCATION, K.SHARED, K.PARAMETER, K.UNKNOWN, K.MACRO})

# Name comparisons "did you mean" may make in one validation (about half a second).
SUGGESTION_COMPARISONS = 200_000

_WHY = {
    "a rule guard": "guards read shared variables and parameters",
    "an update": "updates read shared variables and parameters",
    "the resilience condition": "the resilience condition constrains parameters only",
    "the initial constraints": "inits constrain location counters, shared variables and parameters",
    "a specification": "formulas read location counters, shared variables and parameters",
}


def validate(ta: ThresholdAutomaton, extended: bool = False) -> list[Diagnostic]:
    """The errors and warnings of ``ta``. ``extended``: it was read as an extended threshold
    automaton (``.eta``, TACO's format), whose updates are increments, decrements and resets by
    definition: those are then no warning, and any other update is an error (TACO has no
    meaning for it)."""
    sink = DiagnosticSink()
    _Checker(ta, sink, extended).run()
    return sink.items


class ExpressionChecks:
    """The walk both validators (.ta and .rta) make over an expression: every name is checked by
    ``name_ref`` against the kinds ``allowed`` in ``context``, temporal operators are refused
    outside specifications, and every product is checked for linearity by ``product``."""

    sink: DiagnosticSink

    def expression(self, e: Expr, allowed, context: str) -> None:
        for node in walk(e):
            if isinstance(node, Name):
                self.name_ref(node, allowed, context)  # type: ignore[attr-defined]
            elif isinstance(node, (Always, Eventually)) and context != "a specification":
                op = "[]" if isinstance(node, Always) else "<>"
                self.sink.error(f"temporal operator '{op}' is only allowed in specifications, "
                                f"not in {context}", node.span)
            elif isinstance(node, Mul):
                self.product(node)  # type: ignore[attr-defined]
            elif isinstance(node, Div):
                self.division(node)

    def division(self, node: Div) -> None:
        """A divisor must fold to a positive integer. The text reader refuses any other at its
        position already; this check is for trees built otherwise (the JSON form)."""
        problem = divisor_problem(node.right)
        if problem:
            self.sink.error(problem, node.right.span or node.span)


class _Checker(ExpressionChecks):
    def __init__(self, ta: ThresholdAutomaton, sink: DiagnosticSink, extended: bool = False) -> None:
        self.ta, self.sink, self.extended = ta, sink, extended
        self.refused: set[str] = set()  # macros too large to expand (reported at their define)
        self.uses_macro = False  # set by name_ref: the expression being checked uses a macro
        self._pools: dict[frozenset[SymbolKind], list[str]] = {}
        self._suggested: dict[tuple[str, frozenset[SymbolKind]], str] = {}
        self._comparisons_left = SUGGESTION_COMPARISONS

    def run(self) -> None:
        self.declarations()
        self.defines()
        for e in self.ta.assumptions:
            self.expression(e, RC_KINDS, "the resilience condition")
        self.locations()
        for e in self.ta.inits:
            self.expression(e, INIT_KINDS, "the initial constraints")
        self.rules()
        self.properties()

    # ---------------------------------------------------------------------------- declarations
    def declarations(self) -> None:
        seen: dict[str, tuple[str, Span | None]] = {}
        kinds = self.ta.symbols

        def claim(name: str, what: str, span: Span | None) -> None:
            problem = identifier_problem(name)  # the text grammar cannot say "too long"; JSON anything
            if problem:
                self.sink.error(problem, span)
            if name in seen:
                first_what, first_span = seen[name]
                at = f" at {first_span.line}:{first_span.col}" if first_span else ""
                self.sink.error(f"'{name}' is already declared as a {first_what}{at}", span)
            else:
                seen[name] = (what, span)

        declared = self.ta.declared_at or tuple(  # an automaton built in code has no positions
            (name, None) for group in (self.ta.locals, self.ta.shared, self.ta.parameters,
                                       self.ta.unknowns) for name in group)
        for name, span in declared:
            claim(name, _KIND_NAMES[kinds[name]], span)
        for d in self.ta.defines:
            claim(d.name, "macro", d.span)
        for loc in self.ta.locations:
            claim(loc.name, "location", loc.span)
        for p in self.ta.properties:
            problem = identifier_problem(p.name)
            if problem:
                self.sink.error(problem, p.span)
        if identifier_problem(self.ta.name):
            self.sink.error(f"automaton name: {identifier_problem(self.ta.name)}")

    def defines(self) -> None:
        self.macro_limits()  # first: the checks below expand only macros within the limits
        cycles = _macro_cycles(self.ta.macro_refs)
        for d in self.ta.defines:
            self.expression(d.expr, DEFINE_KINDS, "a macro")
            cycle = cycles.get(d.name)
            if cycle:
                self.sink.error("macro defined in terms of itself: " + " -> ".join(cycle), d.span)

    def macro_limits(self) -> None:
        """Refuse macros whose expansion is too large or too deep for the passes that walk it.

        Sizes come from :attr:`ThresholdAutomaton.macro_shapes` (no expanded tree is built).
        Only the first macro of a chain of too large ones is reported: every macro using it is
        at least as large, and is refused with it.
        """
        shapes, refs = self.ta.macro_shapes, self.ta.macro_refs
        where = {d.name: d.span for d in reversed(self.ta.defines)}  # the first define of a name
        over = {m for m, s in shapes.items() if s.size > MAX_MACRO_NODES or s.height > MAX_NESTING}
        position = {m: i for i, m in enumerate(self.ta.macro_order)}
        blamed: dict[str, set[str]] = {}  # over-limit macro -> the first over-limit macros it uses
        for m in self.ta.macro_order:
            if m in over:
                inner = [r for r in refs[m] if r in over and position[r] < position[m]]
                blamed[m] = set().union(*(blamed[r] for r in inner)) if inner else {m}
        for m in (m for m in blamed if blamed[m] == {m}):  # the first too large macros
            s = shapes[m]
            followers = [f for f, first in blamed.items() if m in first and f != m]
            if s.size > MAX_MACRO_NODES:
                what = (f"expands to {_count(s.size)} nodes (more than {MAX_MACRO_NODES:,}): a macro is "
                        "copied in full wherever it is used, so macros that use others several "
                        "times grow exponentially")
                worst = max(followers, key=lambda f: shapes[f].size, default=None)
                worst_of = f"{_count(shapes[worst].size)} nodes" if worst else ""
            else:
                what = (f"is nested {s.height} levels deep once expanded (more than {MAX_NESTING}), "
                        "too deep for the passes that walk expressions")
                worst = max(followers, key=lambda f: shapes[f].height, default=None)
                worst_of = f"{shapes[worst].height} levels" if worst else ""
            also = (f"; {len(followers)} more macro(s) that use it, up to '{worst}' ({worst_of}), "
                    "are refused with it") if worst else ""
            self.sink.error(f"macro '{m}' {what}{also}", where[m])
        total = 0
        for m in self.ta.macro_order:
            if m in over:
                continue
            total += shapes[m].size
            if total > MAX_MACRO_NODES_TOTAL:
                self.sink.error(f"the macros expand to more than {MAX_MACRO_NODES_TOTAL:,} nodes in "
                                f"total with '{m}' (each macro is expanded in full)", where[m])
                over = set(shapes)  # expand none of them
                break
        self.refused = over

    def expandable(self, e: Expr) -> bool:
        """False if ``e`` uses a macro refused by :meth:`macro_limits` (never expanded)."""
        return not self.refused or not any(isinstance(n, Name) and n.name in self.refused
                                           for n in walk(e))

    def expression(self, e: Expr, allowed, context: str) -> None:
        self.uses_macro = False
        super().expression(e, allowed, context)
        if self.uses_macro and allowed != DEFINE_KINDS and self.expandable(e):
            self.expanded_limits(e, context)

    def expanded_limits(self, e: Expr, context: str) -> None:
        """The nesting and size limits applied to ``e`` with its macros expanded."""
        shapes = self.ta.macro_shapes
        s = expanded_shape(e, shapes)
        # what the macros add (a long sum as written is no reason to refuse a file)
        added = s.size - expanded_shape(e, {}).size if s.size > MAX_MACRO_NODES else 0
        if s.height <= MAX_NESTING and added <= MAX_MACRO_NODES:
            return
        uses = [n for n in walk(e) if isinstance(n, Name) and n.name in shapes]
        if s.height > MAX_NESTING:
            use = max(uses, key=lambda n: shapes[n.name].height)
            what = (f"gives an expression nested {s.height} levels deep (more than {MAX_NESTING}); "
                    f"'{use.name}' alone is {shapes[use.name].height} levels deep")
        else:
            use = max(uses, key=lambda n: shapes[n.name].size)
            what = (f"adds {_count(added)} nodes (more than {MAX_MACRO_NODES:,}); '{use.name}' alone "
                    f"is {_count(shapes[use.name].size)} nodes")
        self.sink.error(f"expanding the macros in {context} {what}", use.span)

    # ------------------------------------------------------------------------------- locations
    def locations(self) -> None:
        n_locals = len(self.ta.locals)
        if not self.ta.locations:
            self.sink.warning("the automaton has no locations")
        for loc in self.ta.locations:
            if n_locals and len(loc.values) != n_locals:
                self.sink.warning(f"location '{loc.name}' lists {len(loc.values)} value(s) but "
                                  f"{n_locals} local variable(s) are declared", loc.span)

    # ----------------------------------------------------------------------------------- rules
    def rules(self) -> None:
        first_with_id: dict[int, Rule] = {}
        for index, r in enumerate(self.ta.rules, start=1):
            if r.id in first_with_id:
                first = first_with_id[r.id]
                line = f" (line {first.span.line})" if first.span else ""
                self.sink.warning(f"rule id {r.id} is used again{line}; both rules are kept and "
                                  f"this one is rule #{index} of the file", r.span)
            else:
                first_with_id[r.id] = r
            for loc_name, span in ((r.source, r.source_span), (r.target, r.target_span)):
                self.location_ref(loc_name, span)
            self.expression(r.guard, GUARD_KINDS, "a rule guard")
            self.updates(r)

    def location_ref(self, name: str, span: Span | None) -> None:
        kind = self.ta.symbols.get(name)
        if kind is K.LOCATION:
            return
        if kind is None:
            self.sink.error(f"unknown location '{name}'" + self.suggest(name, {K.LOCATION}), span)
        else:
            self.sink.error(f"'{name}' is a {_KIND_NAMES[kind]}, not a location", span)

    def updates(self, r: Rule) -> None:
        updated: set[str] = set()
        for u in r.updates:
            kind = self.ta.symbols.get(u.var)
            if kind is None:
                self.sink.error(f"unknown variable '{u.var}' in an update"
                                + self.suggest(u.var, {K.SHARED}), u.span)
            elif kind is not K.SHARED:
                self.sink.error(f"only shared variables can be updated; '{u.var}' is a "
                                f"{_KIND_NAMES[kind]}", u.span)
            if u.var in updated:
                self.sink.error(f"'{u.var}' is updated twice in rule {r.id}", u.span)
            updated.add(u.var)
            self.expression(u.expr, GUARD_KINDS, "an update")
            if kind is K.SHARED and self.extended:
                self.extended_update(u)
            elif kind is K.SHARED:
                self.monotone(u)

    def monotone(self, u: Update) -> None:
        if not self.expandable(u.expr):
            return
        try:
            c = Update(u.var, self.ta.expand(u.expr)).increment()
        except NonLinearError:  # reported by expression()
            return
        if c is None or c < 0:
            self.sink.warning(
                f"update {u.var}' == {to_text(u.expr)} is not of the form {u.var}' == {u.var} + c "
                "with a constant c >= 0: shared variables must only grow, so this automaton is "
                "outside the monotone class that the parametric engine decides (check gives its "
                "safety properties to the chc engine)", u.span)

    def extended_update(self, u: Update) -> None:
        """An update of an extended automaton: ``x' == x + c``, ``x' == x - c`` (``c`` a
        constant) or the reset ``x' == 0`` — the increments, decrements and resets of TACO's
        ``UpdateExpression`` (crates/taco-threshold-automaton in pleich/TACO)."""
        if not self.expandable(u.expr):
            return
        expanded = self.ta.expand(u.expr)
        try:
            c = Update(u.var, expanded).increment()
        except NonLinearError:  # reported by expression()
            return
        if c is None and constant_value(expanded) != 0:
            self.sink.error(
                f"update {u.var}' == {to_text(u.expr)} is not an increment ({u.var}' == {u.var} + c), "
                f"a decrement ({u.var}' == {u.var} - c) or a reset ({u.var}' == 0) with a constant c: "
                "an extended threshold automaton (.eta) has no other updates", u.span)

    # ------------------------------------------------------------------------------ properties
    def properties(self) -> None:
        seen: dict[str, Span | None] = {}
        for p in self.ta.properties:
            if p.name in seen:
                first = seen[p.name]
                at = f" at {first.line}:{first.col}" if first else ""
                self.sink.error(f"property '{p.name}' is already defined{at}", p.span)
            seen.setdefault(p.name, p.span)
            self.expression(p.formula, SPEC_KINDS, "a specification")

    # ----------------------------------------------------------------------------- expressions
    def name_ref(self, n: Name, allowed: frozenset[SymbolKind], context: str) -> None:
        kind = self.ta.symbols.get(n.name)
        if kind is None:
            self.sink.error(f"unknown name '{n.name}' in {context}" + self.suggest(n.name, allowed),
                            n.span)
        elif kind is K.MACRO:
            self.uses_macro = True
            if allowed == DEFINE_KINDS:
                return  # checked where the macro is used
            # the first name of a kind not allowed here, in the expanded body (computed per macro)
            for inner_kind, inner in self.ta.macro_names.get(n.name, {}).items():
                if inner_kind not in allowed:
                    self.sink.error(
                        f"macro '{n.name}' refers to the {_KIND_NAMES[inner_kind]} "
                        f"'{inner}', which cannot appear in {context} "
                        f"({_WHY.get(context, '')})", n.span)
                    return
        elif kind not in allowed:
            why = _WHY.get(context)
            self.sink.error(f"the {_KIND_NAMES[kind]} '{n.name}' cannot appear in {context}"
                            + (f" ({why})" if why else ""), n.span)

    def product(self, node: Mul) -> None:
        if not self.expandable(node):
            return
        try:
            left = _linear_or_none(self.ta.expand(node.left))
            right = _linear_or_none(self.ta.expand(node.right))
        except (NonLinearError, TypeError):
            return  # a nested product is reported on its own
        if left is not None and left.is_constant or right is not None and right.is_constant:
            return
        if left is None or right is None:  # a factor divides a non-constant term: no unknown
            self.sink.error(str(NonLinearError(node)), node.span)
            return
        unknowns = set(self.ta.unknowns)
        if set(left.variables()) <= unknowns or set(right.variables()) <= unknowns:
            return  # a synthesis coefficient times a term: linear once the unknowns are fixed
        self.sink.error(str(NonLinearError(node)), node.span)

    def suggest(self, name: str, kinds: Iterable[SymbolKind]) -> str:
        wanted = frozenset(kinds)
        key = (name, wanted)
        if key not in self._suggested:
            pool = self._pools.get(wanted)
            if pool is None:
                pool = [n for n, k in self.ta.symbols.items() if k in wanted or k is K.MACRO]
                self._pools[wanted] = pool
            # difflib compares the name with every candidate: a file with thousands of unknown
            # names and tens of thousands of locations would take minutes, so the comparisons
            # of one validation are bounded, and later errors go without a suggestion
            close = []
            if self._comparisons_left >= len(pool):
                self._comparisons_left -= len(pool)
                close = difflib.get_close_matches(name, pool, n=1)
            self._suggested[key] = f"; did you mean '{close[0]}'?" if close else ""
        return self._suggested[key]


def _linear_or_none(e: Expr):
    """The linear form of ``e``, or None for a division of a non-constant term (``N / 2``):
    not linear itself, but linear once lowered (a fresh parameter), so only a product with it is
    an error. Any other non-linearity raises :class:`NonLinearError` as :func:`linearize` does."""
    try:
        return linearize(e)
    except NonLinearError as err:
        if isinstance(err.expr, Div):
            return None
        raise


def _count(n: int) -> str:
    return f"{n:,}" if n < SIZE_CAP else f"more than {SIZE_CAP:,}"


def _macro_cycles(refs: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """For each macro on a cycle, the shortest chain m -> … -> m through macro bodies.

    The cycles lie within the strongly connected components of the macro graph (found once, in
    linear time); only the macros of a component with a cycle are searched, within it.
    """
    cycles: dict[str, list[str]] = {}
    for component in strongly_connected(refs):
        members = set(component)
        if len(component) > 1 or component[0] in refs[component[0]]:
            for m in component:
                cycles[m] = _shortest_cycle(m, refs, members)
    return cycles


def strongly_connected(refs: Mapping[Node, Sequence[Node]]) -> list[list[Node]]:
    """Strongly connected components of the graph ``refs`` (Tarjan's algorithm, no recursion;
    every node is a key). Also the rule graph's cycles (``ir/eltl/cycles.py``) and the explicit
    engine's fair lassos (``tactl/engines/explicit_ltl.py``)."""
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    on_path: set[Node] = set()
    path: list[Node] = []
    components: list[list[Node]] = []
    for root in refs:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        path.append(root)
        on_path.add(root)
        work = [(root, iter(refs[root]))]
        while work:
            v, pending = work[-1]
            for w in pending:
                if w not in index:
                    index[w] = low[w] = len(index)
                    path.append(w)
                    on_path.add(w)
                    work.append((w, iter(refs[w])))
                    break
                if w in on_path:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = path.pop()
                        on_path.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    components.append(component)
    return components


def _shortest_cycle(start: str, refs: dict[str, tuple[str, ...]], members: set[str]) -> list[str]:
    """Breadth-first from ``start`` within its component, references in the order written."""
    parent: dict[str, str] = {}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for w in refs[u]:
            if w == start:
                chain = [u]
                while chain[-1] != start:
                    chain.append(parent[chain[-1]])
                return chain[::-1] + [start]
            if w in members and w not in parent:
                parent[w] = u
                queue.append(w)
    raise AssertionError(f"{start} is on no cycle")  # pragma: no cover — callers pass a cycle
