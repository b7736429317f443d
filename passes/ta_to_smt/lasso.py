"""Encoding pass: (monotone TA, one branch of an ELTL-FT negation) → one SMT query.

The steady-segment query of ``passes/ta_to_smt/steady.py`` (read its docstring first) extended
to cut points, invariants and a loop configuration (docs/check.md; the semantics
are in ``ir/eltl/formula.py``):

* **Segments.** ``S = m + c + 1`` where ``m`` counts the rise atoms of the guards *and* of the
  invariants (the invariants' atoms are sensitive, ``guard_abstraction.sensitive_atoms``: constant
  within a steady part, so every invariant's threshold part is) and ``c`` the
  cut points: a run's context switches at most ``m`` times and each witness of a cut splits a
  steady stretch once more (the boundary step of a split is empty). Without sensitive atoms and
  re-enterable sets ``(c + 1)·R`` segments suffice too, ``R`` from ``guard_abstraction.rounds_bound``.
* **Cut points.** An integer ``pos{j}`` in ``0..S`` per cut: ``pos = t < S`` puts the witness
  at configuration ``2t`` (a segment start), ``pos = S`` at the last configuration σ_L;
  ``pos_parent <= pos_j``. The solver chooses the order of unordered cuts (``[]p || []q``), so
  no linear extension is enumerated as in ByMC's schemas.
* **Invariants** from cut ``j`` hold in every segment ``t >= pos_j`` and at σ_L. In conjunctive
  normal form over segment-constant literals (context atoms, parameter comparisons) and
  location-counter literals, a clause is ``C`` (constant: its context value), ``C || X empty``
  (exact: ``X`` empty at the segment start and no fired rule enters ``X``) or ``C || X occupied``
  (when no rule enters ``X`` from outside — or only from or into locations other invariants keep
  empty — the occupancy of ``X`` can only fall, so its value at the segment end decides; when
  processes can re-enter ``X``, every segment's firings are split into ``PASSES`` sorted passes
  of one batch per rule and the occupancy is checked after every batch that leaves ``X``, which
  is exact for one such ``X``).
* **Two or more re-enterable sets**: no exact query is known (``NeedsBounds``). ``bound="over"``
  checks each such set at segment starts and ends only — every real run is occupied there, so
  unsat proves that no run exists; ``bound="under"`` uses ``passes`` sorted passes with the
  check after every batch — every model is a real run. The engine asks both (docs/check.md); what neither decides is unknown.
* **Loop** (liveness): σ_L satisfies the loop formulas (``<>[]J`` puts ``J`` there) and enables a
  self-loop rule that updates nothing: ``⋁_s κ_L[src s] >= 1 && guard_s(σ_L)``. Nested safety
  (finite prefixes) has no loop constraint.

Size: ``O(S·(|L| + |Γ| + |R|))`` constants as for reachability, plus ``c`` positions.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.eltl.formula import ROOT, Branch, TemporalQuery
from tactl.ir.expr import (
    And,
    BoolConst,
    Compare,
    Expr,
    Implies,
    IntConst,
    Name,
    Or,
    conj,
    disj,
    substitute,
    summation,
)
from tactl.ir.linear import EQ, GE, LinearAtom
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.smt import Block, Declaration, SmtQuery
from tactl.ir.ta.model import ThresholdAutomaton, topological_rank
from tactl.passes.ta_to_smt.guard_abstraction import (
    UnsupportedAutomaton,
    abstract_guards,
    budget_atoms,
    placeholder,
    rounds_bound,
    sensitive_atoms,
    unsupported_reason,
)
from tactl.passes.ta_to_smt.steady import SteadyEncoder, SteadyEncoding, SteadyLayout, encode, usable_rules


@dataclass(frozen=True)
class Clause:
    """``constant || counters``: ``constant`` over placeholders; ``counters`` is None (no counter
    literal), ("empty", X) or ("occupied", X)."""

    constant: Expr
    counters: tuple[str, frozenset[str]] | None


def position(j: int) -> str:
    return f"pos{j}"


class NeedsBounds(UnsupportedAutomaton):
    """The branch keeps ``sets`` (two or more) re-enterable sets occupied: no exact single query
    is known (``encode_branch`` with ``bound="over"`` / ``"under"`` gives the two one-sided ones)."""

    def __init__(self, message: str, sets: int) -> None:
        super().__init__(message)
        self.sets = sets


def encode_branch(ta: ThresholdAutomaton, query: TemporalQuery, branch: Branch, *,
                  parameters: dict[str, int] | None = None, bound: str | None = None,
                  passes: int | None = None, segments: int | None = None,
                  loop: type[LassoEncoder] | None = None) -> SteadyEncoding:
    """The query that is satisfiable iff a run satisfies ``branch`` (see the module doc).

    With two or more re-enterable "occupied" sets (``NeedsBounds`` otherwise) ``bound`` picks a
    one-sided query (the module doc's "Two or more re-enterable sets"): ``"over"`` is unsat only
    if no run exists, ``"under"`` (with ``passes`` sorted passes per segment, default the last of
    ``under_passes``) is sat only with a real run. ``segments`` caps the under-approximation's
    steady segments (``under_segments``): a run with fewer context switches is still a run, so
    the capped query stays sat only with a real one, and is much smaller.

    ``loop``: an encoder for a loop through several configurations
    (``passes/ta_to_smt/cycle_loop.py``); sorted passes assume that processes move along an
    acyclic rule graph, so re-enterable sets are then checked as in ``"over"``."""
    reason = unsupported_reason(ta)
    if reason:
        raise UnsupportedAutomaton(reason)
    initial = ReachQuery(query.property, branch.initial, BoolConst(True))
    invariants = tuple(ta.expand(i.formula) for i in branch.invariants)
    abstraction = abstract_guards(ta, usable_rules(ta, initial, parameters or {}), invariants)
    clauses = tuple(invariant_clauses(e, abstraction.counter_atoms) for e in abstraction.extra)
    reentered = {c.counters[1] for inv, cs in zip(branch.invariants, clauses) for c in cs
                 if _entering(ta, abstraction, c, _forced_empty(branch, clauses, inv.anchor))}
    if loop is not None:
        bound = "over" if reentered else None
    elif len(reentered) > 1 and bound is None:
        raise NeedsBounds(
            "the specification has invariants requiring each of the location sets "
            + " and ".join("{" + ", ".join(sorted(x)) + "}" for x in sorted(reentered, key=sorted))
            + " to stay occupied while processes can move into them: no exact single query is "
            "known for two or more such sets (tactl asks an over- and an under-approximation)",
            len(reentered))
    if len(reentered) <= 1 and loop is None:
        bound = None
    if bound == "under":
        passes = passes or under_passes(len(reentered))[-1]
    else:
        passes = PASSES if reentered and bound is None else 0
    order = _rule_order(ta, abstraction) if passes else ()
    constants = tuple(c.constant for cs in clauses for c in cs)
    sensitive = sensitive_atoms(abstraction, *constants)
    count = len(abstraction.atoms) + len(branch.cuts) + 1
    rounds = rounds_bound(ta, abstraction) if not sensitive and not reentered else None
    if rounds:
        # Cut the run at its cut points' witnesses and reorder each piece into the greedy rounds
        # of rounds_bound: the pieces keep their end configurations (the witnesses, and σ_L with
        # its justice and self-loop) and every process's path, so an "empty" invariant still
        # holds (no path enters its set) and so does a monotone "occupied" one (it holds at the
        # end, and the occupancy only falls). Re-enterable sets depend on the order: not there.
        count = min(count, (len(branch.cuts) + 1) * rounds)
    if segments is not None and bound == "under":
        count = min(count, segments)
    layout = SteadyLayout(ta, abstraction, count, passes, order, sensitive,
                          tuple(budget_atoms(abstraction, *constants).items()), bound)
    encoder = (loop or LassoEncoder)(layout, initial, parameters or {}, query=query, branch=branch,
                                     clauses=clauses)
    return SteadyEncoding(layout, encoder.query())


def encode_query(ta: ThresholdAutomaton, query: TemporalQuery, *,
                 parameters: dict[str, int] | None = None, bound: str | None = None,
                 passes: int | None = None, segments: int | None = None) -> list[SteadyEncoding]:
    """One encoding per branch of the negation; reachability-shaped branches of finite-prefix
    classes get the plain reachability query (``init && <>bad``). ``bound``, ``segments``: see
    ``encode_branch`` (exact branches stay exact)."""
    out = []
    for branch in query.branches:
        if branch.is_reachability and not query.infinite:
            bad = branch.cuts[0].formula if branch.cuts else BoolConst(True)
            out.append(encode(ta, ReachQuery(query.property, branch.initial, bad), parameters=parameters))
        else:
            out.append(encode_branch(ta, query, branch, parameters=parameters, bound=bound, passes=passes,
                                     segments=segments))
    return out


def under_passes(sets: int) -> tuple[int, ...]:
    """Sorted passes per segment of the under-approximation for ``sets`` re-enterable sets, in
    the order they are tried: any number gives only real runs, and one pass is the cheapest
    query by far; then ``2·sets + 1``, the conjectured bound (3 for one set, where it is proved:
    ``PASSES``), so that a violation is found whenever
    that conjecture holds. What neither finds and the over-approximation allows is unknown."""
    return (1, 2 * sets + 1)


def under_segments(total: int) -> tuple[int, ...]:
    """Segment caps of the short under-approximations, tried in turn before the full one of
    ``total`` segments: 4, 8, 16, ... up to half of ``total``. A violation rarely needs every
    context switch the completeness bound allows, and the query's cost grows much faster than
    its segment count (random19's ``decide_or_flip`` runs need 4 to 8 of 13 to 19), so the
    first short query that has a model usually costs a fraction of the full one. Up to half:
    the caps then add up to fewer segments than ``total``, so that when none has a model (a
    violation that needs more context switches) they cost less than the full query that
    follows."""
    caps = []
    k = SHORT_SEGMENTS
    while 2 * k <= total:
        caps.append(k)
        k *= 2
    return tuple(caps)


SHORT_SEGMENTS = 4  # the first cap: fewer than four segments rarely hold a lasso that violates

# Passes per segment when an "occupied" invariant can be re-entered: a run that
# keeps X occupied throughout a steady stretch can be reordered into at most three sorted passes,
# each with a process of X paused (one occupying X at the start, one at the end, and a visitor
# that covers while the first moves), so three passes lose no run.
PASSES = 3


def _forced_empty(branch: Branch, clauses: tuple[tuple[Clause, ...], ...], anchor: int) -> frozenset[str]:
    """Locations that invariants active whenever one anchored at ``anchor`` is active (anchored
    at the start or at the same cut) keep empty unconditionally: rules into or out of them
    cannot fire then, so they cannot break the monotone case."""
    out: set[str] = set()
    for inv, cs in zip(branch.invariants, clauses):
        if inv.anchor in (ROOT, anchor):
            for c in cs:
                if c.constant == BoolConst(False) and c.counters and c.counters[0] == "empty":
                    out |= c.counters[1]
    return frozenset(out)


def _entering(ta: ThresholdAutomaton, abstraction, clause: Clause, empty: frozenset[str]) -> list[int]:
    """Rules that can move processes into the set an "occupied" clause keeps occupied."""
    if clause.counters is None or clause.counters[0] != "occupied":
        return []
    where = clause.counters[1]
    return [i for i in abstraction.active
            if ta.rules[i].target in where and ta.rules[i].source not in where
            and ta.rules[i].source not in empty and ta.rules[i].target not in empty]


def _rule_order(ta: ThresholdAutomaton, abstraction) -> tuple[int, ...]:
    """Active rules sorted by the topological rank of their source (liveness automata are
    acyclic apart from self-loops, so a pass in this order can move a process all the way)."""
    rank = topological_rank(ta)
    return tuple(sorted(abstraction.active, key=lambda i: (rank[ta.rules[i].source], i)))


def invariant_clauses(e: Expr, counter_atoms: tuple[LinearAtom, ...]) -> tuple[Clause, ...]:
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


class LassoEncoder(SteadyEncoder):
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
            if lay.passes:
                self.pass_block(j)
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
            f"property {prop} ({self.temporal.formula_class.value}): " + {
                None: "sat = a run satisfies this branch of the negated specification, unsat = it "
                      "has no such run for any parameters satisfying the resilience condition",
                "over": "OVER-approximation (re-enterable occupied sets checked at segment ends "
                        "only): unsat = no run satisfies this branch of the negated specification "
                        "for any parameters; sat proves nothing",
                "under": f"UNDER-approximation ({lay.passes} sorted passes per segment): sat = a "
                         "run satisfies this branch of the negated specification; unsat proves "
                         "nothing"}[lay.bound],
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
        return _forced_empty(self.branch, self.clauses, anchor)

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
        if _entering(self.ta, ab, clause, empty) and lay.bound == "over":
            # Over-approximation: occupied at the steady part's start and end only; every real
            # run is occupied there, so unsat proves that none exists.
            return disj(constant, conj(Compare(">=", self.sum_over(2 * t, where), IntConst(1)),
                                       Compare(">=", self.sum_over(2 * t + 1, where), IntConst(1))))
        if _entering(self.ta, ab, clause, empty):
            # Re-enterable: occupied at the segment start and after every batch that moves
            # processes out of the set (a batch moves the occupancy monotonically).
            assert lay.passes, "encode_branch sets up passes for a re-enterable invariant"
            occupancy = self.sum_over(2 * t, where)
            checks = [Compare(">=", occupancy, IntConst(1))]
            for p in range(lay.passes):
                for i in lay.pass_order:
                    rule = self.ta.rules[i]
                    delta = (rule.target in where) - (rule.source in where)
                    if delta:
                        occupancy = summation(occupancy, [("+" if delta > 0 else "-", Name(lay.batch(t, p, i)))])
                    if delta < 0:
                        checks.append(Compare(">=", occupancy, IntConst(1)))
            return disj(constant, conj(*checks))
        end = self.sum_over(2 * t + 1, where)
        return disj(constant, Compare(">=", end, IntConst(1)))

    def sum_over(self, c: int, where: frozenset[str]) -> Expr:
        return summation(*_split([Name(self.layout.counter(c, loc)) for loc in sorted(where)]))

    def pass_block(self, t: int) -> None:
        """The firings of segment ``t`` as ``passes`` rounds of one batch per rule in rule order,
        each batch taking processes its source holds at that point."""
        lay, ta = self.layout, self.ta
        decls, assertions = [], []
        moved: dict[str, list[tuple[str, Expr]]] = {loc.name: [] for loc in ta.locations}
        for p in range(lay.passes):
            for i in lay.pass_order:
                y = Name(lay.batch(t, p, i))
                rule = ta.rules[i]
                decls.append(Declaration(y.name))
                assertions.append(Compare(">=", y, IntConst(0)))
                held = summation(Name(lay.counter(2 * t, rule.source)), moved[rule.source]) \
                    if moved[rule.source] else Name(lay.counter(2 * t, rule.source))
                assertions.append(Compare(">=", held, y))
                moved[rule.source].append(("-", y))
                moved[rule.target].append(("+", y))
        for i in lay.pass_order:
            total = summation(*_split([Name(lay.batch(t, p, i)) for p in range(lay.passes)]))
            assertions.append(Compare("==", Name(lay.fired(t, i)), total))
        self.blocks.append(Block(f"segment {t}: its firings in {lay.passes} sorted passes (for an "
                                 "invariant that keeps re-enterable locations occupied)",
                                 tuple(decls), tuple(assertions)))

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


