"""Encoding pass: (monotone TA, one branch of an ELTL-FT negation) → one SMT query.

The steady-segment query of ``encode_steady`` (read its docstring first) extended to cut points,
invariants and a loop configuration (``eltl.md`` §2–3; the semantics are in ``ir.eltl``):

* **Segments.** ``S = m + c + 1`` where ``m`` counts the rise atoms of the guards *and* of the
  invariants (so every invariant's threshold part is constant within a segment) and ``c`` the
  cut points: a run's context switches at most ``m`` times and each witness of a cut splits a
  steady stretch once more (the boundary step of a split is empty).
* **Cut points.** An integer ``pos{j}`` in ``0..S`` per cut: ``pos = t < S`` puts the witness
  at configuration ``2t`` (a segment start), ``pos = S`` at the last configuration σ_L;
  ``pos_parent <= pos_j``. The solver chooses the order of unordered cuts (``[]p || []q``), so
  no linear extension is enumerated as in ByMC's schemas.
* **Invariants** from cut ``j`` hold in every segment ``t >= pos_j`` and at σ_L. In conjunctive
  normal form over segment-constant literals (context atoms, parameter comparisons) and
  location-counter literals, a clause is ``C`` (constant: its context value), ``C || X empty``
  (exact: ``X`` empty at the segment start and no fired rule enters ``X``) or ``C || X occupied``
  (exact when no rule enters ``X`` from outside — the occupancy of ``X`` can then only fall, so
  its value at the segment end decides; otherwise the query is refused, see
  ``non_monotone``).
* **Loop** (liveness): σ_L satisfies the loop formulas (``<>[]J`` puts ``J`` there) and enables a
  self-loop rule that updates nothing: ``⋁_s κ_L[src s] >= 1 && guard_s(σ_L)``. Nested safety
  (finite prefixes) has no loop constraint.

Size: ``O(S·(|L| + |Γ| + |R|))`` constants as for reachability, plus ``c`` positions.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.eltl import ROOT, Branch, TemporalQuery
from tactl.ir.expr import (
    And,
    BoolConst,
    Compare,
    Expr,
    Implies,
    IntConst,
    Name,
    Not,
    Or,
    conj,
    disj,
    substitute,
    summation,
)
from tactl.ir.linear import EQ, GE, NE, LinearAtom
from tactl.ir.safety import ReachQuery
from tactl.ir.smt import Block, Declaration, SmtQuery
from tactl.ir.ta import ThresholdAutomaton
from tactl.passes.encode_steady import (
    SteadyEncoding,
    SteadyLayout,
    UnsupportedAutomaton,
    _Encoder,
    abstract_guards,
    encode,
    placeholder,
    unsupported_reason,
    usable_rules,
)


@dataclass(frozen=True)
class Clause:
    """``constant || counters``: ``constant`` over placeholders; ``counters`` is None (no counter
    literal), ("empty", X) or ("occupied", X)."""

    constant: Expr
    counters: tuple[str, frozenset[str]] | None


def position(j: int) -> str:
    return f"pos{j}"


def encode_branch(ta: ThresholdAutomaton, query: TemporalQuery, branch: Branch, *,
                  parameters: dict[str, int] | None = None) -> SteadyEncoding:
    """The query that is satisfiable iff a run satisfies ``branch`` (see the module doc)."""
    reason = unsupported_reason(ta)
    if reason:
        raise UnsupportedAutomaton(reason)
    initial = ReachQuery(query.property, branch.initial, BoolConst(True))
    invariants = tuple(ta.expand(i.formula) for i in branch.invariants)
    abstraction = abstract_guards(ta, usable_rules(ta, initial, parameters or {}), invariants)
    clauses = tuple(_clauses(e, abstraction.counter_atoms) for e in abstraction.extra)
    layout = SteadyLayout(ta, abstraction, len(abstraction.atoms) + len(branch.cuts) + 1)
    encoder = _LassoEncoder(layout, initial, parameters or {}, query=query, branch=branch,
                            clauses=clauses)
    return SteadyEncoding(layout, encoder.query())


def encode_query(ta: ThresholdAutomaton, query: TemporalQuery, *,
                 parameters: dict[str, int] | None = None) -> list[SteadyEncoding]:
    """One encoding per branch of the negation; reachability-shaped branches of finite-prefix
    classes get the plain reachability query (``init && <>bad``)."""
    out = []
    for branch in query.branches:
        if branch.is_reachability and not query.infinite:
            bad = branch.cuts[0].formula if branch.cuts else BoolConst(True)
            out.append(encode(ta, ReachQuery(query.property, branch.initial, bad), parameters=parameters))
        else:
            out.append(encode_branch(ta, query, branch, parameters=parameters))
    return out


def _clauses(e: Expr, counter_atoms: tuple[LinearAtom, ...]) -> tuple[Clause, ...]:
    out = []
    for literals in _cnf(e):
        constant: list[Expr] = []
        empty: list[frozenset[str]] = []
        occupied: set[str] = set()
        satisfied = False
        for lit in literals:
            if isinstance(lit, Name) and lit.name.startswith("@c"):
                kind, where = _counter_literal(counter_atoms[int(lit.name[2:])])
                if kind == "true":
                    satisfied = True
                elif kind == "empty":
                    empty.append(where)
                elif kind == "occupied":
                    occupied |= where
            elif lit == BoolConst(True):
                satisfied = True
            elif lit != BoolConst(False):
                constant.append(lit)
        if satisfied:
            continue
        if empty and (occupied or len(empty) > 1):
            raise UnsupportedAutomaton(
                "an invariant has a clause with two location-counter conditions of which one says "
                "'empty' (like [](a == 0 || b == 0)): outside the ELTL-FT fragment")
        counters = ("empty", empty[0]) if empty else ("occupied", frozenset(occupied)) if occupied else None
        out.append(Clause(disj(*constant) if constant else BoolConst(False), counters))
    return tuple(out)


def _counter_literal(atom: LinearAtom) -> tuple[str, frozenset[str]]:
    """``Σ a·κ op b`` as "X empty", "X occupied", "true" or "false" (all coefficients one sign)."""
    signs = {a > 0 for _, a in atom.coeffs}
    where = frozenset(x for x, _ in atom.coeffs)
    if len(signs) == 1:
        positive = signs == {True}
        if atom.op == GE:  # Σ a·κ >= b  (or -Σ a·κ >= b)
            if positive:
                return ("true", where) if atom.bound <= 0 else ("occupied", where) if atom.bound == 1 else _bad(atom)
            return ("empty", where) if atom.bound == 0 else ("false", where) if atom.bound > 0 else _bad(atom)
        if atom.bound == 0:  # normalize made the first coefficient positive
            return ("empty", where) if atom.op == EQ else ("occupied", where)
    return _bad(atom)


def _bad(atom: LinearAtom):
    raise UnsupportedAutomaton(
        f"the invariant compares location counters as '{atom}': under [] tactl decides only "
        "whether a set of locations is empty (the ELTL-FT fragment)")


def _cnf(e: Expr) -> list[list[Expr]]:
    if isinstance(e, And):
        return [c for a in e.args for c in _cnf(a)]
    if isinstance(e, Or):
        out: list[list[Expr]] = [[]]
        for a in e.args:
            out = [left + right for left in out for right in _cnf(a)]
            if len(out) > 4096:
                raise UnsupportedAutomaton("an invariant whose conjunctive normal form is too large")
        return out
    return [[e]]


class _LassoEncoder(_Encoder):
    def __init__(self, layout: SteadyLayout, question: ReachQuery, fixed: dict[str, int], *,
                 query: TemporalQuery, branch: Branch, clauses: tuple[tuple[Clause, ...], ...]) -> None:
        super().__init__(layout, question, fixed)
        self.temporal = query
        self.branch = branch
        self.clauses = clauses

    def query(self) -> SmtQuery:
        ta, lay, ab = self.ta, self.layout, self.layout.abstraction
        self.parameter_block()
        self.initial_block()
        for j in range(lay.segments):
            self.steady_block(j)
            if j + 1 < lay.segments:
                self.boundary_block(j)
        self.cut_block()
        for k, clauses in enumerate(self.clauses):
            self.invariant_block(k, clauses)
        self.loop_block()
        prop = self.temporal.property
        notes = (
            f"automaton {ta.name}: {len(ta.locations)} locations, {len(ta.rules)} rules "
            f"({len(ab.active)} that can change a configuration)",
            f"property {prop} ({self.temporal.formula_class.value}): sat = a run satisfies this "
            "branch of the negated specification, unsat = it has no such run for any parameters "
            "satisfying the resilience condition",
            f"{len(self.branch.cuts)} cut point(s), {len(self.branch.invariants)} invariant(s), "
            f"{len(ab.atoms)} rise atoms -> {lay.segments} steady segments:",
            *(f"  a{i}: {a}" for i, a in enumerate(ab.atoms)),
        )
        return SmtQuery(f"tactl cut-point query for {ta.name}:{prop}", notes, tuple(self.blocks))

    def config_at(self, t: int) -> int:
        """The configuration a position denotes: segment start ``2t``, or σ_L for ``t = S``."""
        return 2 * t if t < self.layout.segments else self.layout.final_config

    def cut_block(self) -> None:
        S = self.layout.segments
        decls, assertions = [], []
        for j, cut in enumerate(self.branch.cuts):
            pos = Name(position(j))
            decls.append(Declaration(pos.name))
            parent = IntConst(0) if cut.parent == ROOT else Name(position(cut.parent))
            assertions.append(Compare(">=", pos, parent))
            assertions.append(Compare("<=", pos, IntConst(S)))
            if cut.formula != BoolConst(True):
                for t in range(S + 1):
                    assertions.append(Implies(Compare("==", pos, IntConst(t)),
                                              self.at(self.config_at(t), cut.formula)))
        if decls:
            self.blocks.append(Block("cut points: where each <> of the negation is witnessed "
                                     f"(position t = configuration 2t; {S} = the last one)",
                                     tuple(decls), tuple(assertions)))

    def invariant_block(self, k: int, clauses: tuple[Clause, ...]) -> None:
        invariant = self.branch.invariants[k]
        lay, ab = self.layout, self.layout.abstraction
        assertions: list[Expr] = [self.at(lay.final_config, self.ta.expand(invariant.formula))]
        empty = self.forced_empty(invariant.anchor)
        for t in range(lay.segments):
            held = conj(*(self.clause_in(t, c, empty) for c in clauses)) if clauses else BoolConst(True)
            if invariant.anchor == ROOT:
                assertions.append(held)
            else:
                assertions.append(Implies(Compare("<=", Name(position(invariant.anchor)), IntConst(t)), held))
        self.blocks.append(Block(f"invariant {k} from {'the start' if invariant.anchor == ROOT else 'cut ' + str(invariant.anchor)}"
                                 " on, in every segment it covers and at the last configuration",
                                 (), tuple(assertions)))
        del ab

    def forced_empty(self, anchor: int) -> frozenset[str]:
        """Locations that invariants active whenever one anchored at ``anchor`` is active (anchored
        at the start or at the same cut) keep empty unconditionally: rules into or out of them
        cannot fire then, so they cannot break the monotone case (eltl.md §2 (c))."""
        out: set[str] = set()
        for inv, clauses in zip(self.branch.invariants, self.clauses):
            if inv.anchor in (ROOT, anchor):
                for c in clauses:
                    if c.constant == BoolConst(False) and c.counters and c.counters[0] == "empty":
                        out |= c.counters[1]
        return frozenset(out)

    def clause_in(self, t: int, clause: Clause, empty: frozenset[str] = frozenset()) -> Expr:
        lay, ab = self.layout, self.layout.abstraction
        constant = substitute(clause.constant, {placeholder(i): Name(lay.context(t, i))
                                                for i in range(len(ab.atoms))})
        if clause.counters is None:
            return constant
        kind, where = clause.counters
        entering = [i for i in ab.active if self.ta.rules[i].target in where
                    and self.ta.rules[i].source not in where]
        if kind == "empty":
            start = [Compare("==", Name(lay.counter(2 * t, loc)), IntConst(0)) for loc in sorted(where)]
            frozen = [Compare("==", Name(lay.fired(t, i)), IntConst(0)) for i in entering]
            return disj(constant, conj(*start, *frozen))
        entering = [i for i in entering
                    if self.ta.rules[i].source not in empty and self.ta.rules[i].target not in empty]
        if entering:
            rule = self.ta.rules[entering[0]]
            raise UnsupportedAutomaton(
                f"an invariant requires one of {', '.join(sorted(where))} to stay occupied while "
                f"rule {rule.id} ({rule.source} -> {rule.target}) can move processes into them: "
                "this non-monotone case of ELTL-FT needs the multi-pass encoding, which tactl "
                "does not have yet")
        end = summation(*_split([Name(lay.counter(2 * t + 1, loc)) for loc in sorted(where)]))
        return disj(constant, Compare(">=", end, IntConst(1)))

    def loop_block(self) -> None:
        lay, ta = self.layout, self.ta
        final = lay.final_config
        assertions: list[Expr] = []
        if self.branch.at_loop != BoolConst(True):
            assertions.append(self.at(final, self.branch.at_loop))
        if self.temporal.infinite:
            options = [conj(Compare(">=", Name(lay.counter(final, rule.source)), IntConst(1)),
                            self.at(final, ta.expand(rule.guard)))
                       for rule in ta.rules if rule.is_self_loop and ta.increments(rule) == {}]
            assertions.append(disj(*options) if options else BoolConst(False))
        if assertions:
            self.blocks.append(Block(f"the loop: configuration {final} satisfies the loop formulas"
                                     + (" and enables a self-loop that updates nothing (the run "
                                        "stays there forever)" if self.temporal.infinite else ""),
                                     (), tuple(assertions)))


def _split(items: list[Expr]) -> tuple[Expr, list[tuple[str, Expr]]]:
    return items[0], [("+", x) for x in items[1:]]


