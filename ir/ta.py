"""The threshold automaton IR (what a ByMC ``.ta`` file describes).

A ``ThresholdAutomaton`` is a plain, frozen value: equal automata compare equal whatever their
source positions, and every field is in the order the canonical printer writes it, so that
``parse(print(ta)) == ta``. Semantics the file leaves implicit (which locations are initial, whether
every update is a non-negative increment) are computed here, once, for every pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from .errors import Span
from .expr import Compare, Expr, IntConst, Name, conj, substitute, to_text, walk
from .linear import NonLinearError, int_symbols, linearize, to_z3


class SymbolKind(Enum):
    LOCAL = "local"
    SHARED = "shared"
    PARAMETER = "parameter"
    UNKNOWN = "unknown"  # coefficients to be synthesised (ByMC's OPODIS'17 files)
    MACRO = "define"
    LOCATION = "location"


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


@dataclass(frozen=True)
class Define:
    """``define NAME == expr;`` — a macro expanded wherever ``NAME`` is used."""

    name: str
    expr: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class Location:
    """A control location; ``values`` are the local variables' values there (``loc: [0; 2];``)."""

    name: str
    values: tuple[int, ...] = ()
    span: Span | None = _span()


@dataclass(frozen=True)
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
        try:
            term = linearize(self.expr)
        except (NonLinearError, TypeError):
            return None
        return term.const if term.coeff_map == {self.var: 1} else None


@dataclass(frozen=True)
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

    def __post_init__(self) -> None:
        changes = tuple(u for u in self.updates if not u.is_identity)
        same = tuple(u for u in self.updates if u.is_identity)
        object.__setattr__(self, "updates", changes + same)

    @property
    def is_self_loop(self) -> bool:
        return self.source == self.target


@dataclass(frozen=True)
class Property:
    """A named specification: an LTL formula over location counters, shared variables, parameters."""

    name: str
    formula: Expr
    span: Span | None = _span()


@dataclass(frozen=True)
class ThresholdAutomaton:
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
        return next((loc for loc in self.locations if loc.name == name), None)

    # ------------------------------------------------------------------------------- macros

    @cached_property
    def macro_bodies(self) -> dict[str, Expr]:
        """Each macro with the macros in its body expanded (cycles are left unexpanded)."""
        raw = {d.name: d.expr for d in self.defines}
        done: dict[str, Expr] = {}

        def expand_one(name: str, active: frozenset[str]) -> Expr:
            if name in done:
                return done[name]
            inner = {m: expand_one(m, active | {name}) for m in _macro_refs(raw[name], raw)
                     if m not in active and m != name}
            done[name] = substitute(raw[name], inner)
            return done[name]

        for d in self.defines:
            expand_one(d.name, frozenset())
        return done

    def expand(self, e: Expr) -> Expr:
        """``e`` with every ``define`` macro replaced by its body."""
        return substitute(e, self.macro_bodies) if self.defines else e

    # ----------------------------------------------------------------------------- semantics

    @property
    def resilience_condition(self) -> Expr:
        return conj(*self.assumptions)

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
        solver; the others are asked of z3 (with all counters and parameters non-negative).
        """
        forced_zero = {
            init.left.name for init in self.inits
            if isinstance(init, Compare) and init.op == "==" and isinstance(init.left, Name)
            and init.right == IntConst(0)
        }
        candidates = [loc.name for loc in self.locations if loc.name not in forced_zero]
        if not candidates:
            return ()
        import z3  # only here: reading and printing need no solver

        try:
            solver = z3.Solver()
            sym = int_symbols()
            for e in (*self.assumptions, *self.inits):
                solver.add(to_z3(self.expand(e), sym))
            for n in (*self.parameters, *self.shared, *(loc.name for loc in self.locations)):
                solver.add(sym(n) >= 0)
        except (NonLinearError, TypeError, ValueError):
            return tuple(candidates)  # not decidable here: every unconstrained location may start
        return tuple(n for n in candidates if solver.check(sym(n) > 0) != z3.unsat)


def _macro_refs(e: Expr, macros: dict[str, Expr]) -> list[str]:
    return [n.name for n in walk(e) if isinstance(n, Name) and n.name in macros]

