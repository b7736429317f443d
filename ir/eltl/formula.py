"""ELTL-FT specifications as cut-point questions: classification and the semantics, in one place.

tactl decides ByMC's specification fragment (docs/check.md): the specification is
negated and put into negation normal form (NNF, ``ir/boolean.py``); the negation ``ψ`` is built from
state formulas, ``&&``, ``||``, ``<>`` and ``[]``. A violation is a run on which ``ψ`` holds.

**Semantic decisions** (each pinned by a test in ``tests/engines/test_eltl.py``):

1. *Runs.* A configuration evolves by single-process steps of the counter system. An infinite run
   of a threshold automaton whose only cycles are self-loops and whose self-loops update nothing
   is a finite path ``π`` to a configuration ``σ_L`` followed by ``σ_L`` forever, kept going by a
   non-updating self-loop rule *enabled* at ``σ_L`` (source occupied, guard true): ``π·σ_L^ω``.
   As in ByMC, there is no implicit stuttering: a configuration where no such self-loop is
   enabled (a deadlock, e.g. everyone in a location without a self-loop) ends no infinite run,
   so it is never a liveness counterexample. With cycles through several locations a run is a
   lasso ``π·λ^ω`` whose loop ``λ`` may pass through several configurations
   (``ir/eltl/cycles.py`` says when that is decided, and why).
2. *Liveness under justice* (``ψ`` contains ``[]``): ``ψ`` is evaluated on the lasso
   ``π·σ_L^ω`` with ordinary LTL semantics. Justice is only what the formula says (``<>[](J)``
   holds iff ``J`` holds at ``σ_L``); tactl adds no implicit fairness. On a loop through several
   configurations a justice antecedent is read per process (``ir/eltl/justice.py``).
3. *Reachability and nested safety* (``ψ`` has no ``[]``): a violation is a finite run prefix on
   which ``ψ`` holds (every ``<>`` witnessed inside the prefix). The prefix need not be
   extendable to an infinite run: a bad state reached before a deadlock is still reached.
4. *Propositional* (no temporal operator): ``ψ`` is evaluated in the initial configuration.
5. ``[]p || []q`` negates to ``<>!p && <>!q``: two cut points, unordered; a temporal ``||`` in
   ``ψ`` splits it into branches (``ψ`` holds iff one branch does), each decided on its own.
6. Parameters, shared variables and counters are natural numbers; a shared variable without an
   initial constraint starts at any value ``>= 0`` (ByMC's unsigned variables).

**Cut-point form.** On ``π·σ_L^ω`` every ``<>χ`` not under a ``[]`` is witnessed at a *cut
point*: a configuration at or after its parent's; a ``[]χ`` anchored at a cut makes χ's state
formulas an *invariant* from that cut to ``σ_L``; anything under ``[]`` of the form ``<>χ``, and
``<>χ`` whose state formulas are all under ``[]``, is evaluated at ``σ_L`` alone (the loop is one
configuration). On a loop through several configurations the same parts are kept apart: what
holds at every loop configuration (``Branch.loop_always``) and what holds at some, one formula
per ``<>`` (``Branch.loop_witnesses``). :func:`temporal_query` computes this form; the engines
decide it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from tactl.ir.expr import Always, And, BoolConst, Eventually, Expr, Or, conj, disj, is_temporal, names, walk
from tactl.ir.boolean import nnf
from tactl.ir.eltl.justice import justice_antecedents
from tactl.ir.eltl.ltl import PropertyKind, classify
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.ta.model import Property, SymbolKind, ThresholdAutomaton

ROOT = -1   # the position of the initial configuration
LOOP = -2   # the position of the loop configuration σ_L (of every one, on a longer loop)
# Positions below LOOP: the loop configuration where a ``<>`` evaluated on the loop is witnessed
# (``Branch.new_witness``); on a loop of one configuration, σ_L itself.


class FormulaClass(Enum):
    PROPOSITIONAL = "propositional"
    REACHABILITY = "reachability"
    NESTED_SAFETY = "nested safety"
    LIVENESS = "liveness"


@dataclass(frozen=True)
class Cut:
    """A ``<>`` witness: a configuration at or after cut ``parent`` (``ROOT``: the initial
    configuration) where ``formula`` holds."""

    parent: int
    formula: Expr


@dataclass(frozen=True)
class Invariant:
    """``formula`` holds in every configuration from cut ``anchor`` (or ``ROOT``) to ``σ_L``."""

    anchor: int
    formula: Expr


@dataclass(frozen=True)
class Branch:
    """One disjunct of the negated specification, in cut-point form."""

    initial: Expr = BoolConst(True)
    cuts: tuple[Cut, ...] = ()
    invariants: tuple[Invariant, ...] = ()
    at_loop: Expr = BoolConst(True)
    # ``at_loop`` split for a loop through several configurations (``ir/eltl/cycles.py``): what
    # holds at every loop configuration (under a ``[]``), and what holds at some loop
    # configuration, one formula per ``<>`` (``at_loop`` is their conjunction).
    loop_always: Expr = BoolConst(True)
    loop_witnesses: tuple[Expr, ...] = ()

    @property
    def is_reachability(self) -> bool:
        """``init && <>bad``: answered by the reachability encoding."""
        return (len(self.cuts) <= 1 and not self.invariants and self.at_loop == BoolConst(True)
                and all(c.parent == ROOT for c in self.cuts))

    def add(self, position: int, formula: Expr) -> Branch:
        if position == ROOT:
            return replace(self, initial=conj(self.initial, formula) if self.initial != BoolConst(True) else formula)
        if position <= LOOP:
            loop = replace(self, at_loop=_and(self.at_loop, formula))
            if position == LOOP:
                return replace(loop, loop_always=_and(self.loop_always, formula))
            k = LOOP - 1 - position
            witnesses = list(self.loop_witnesses)
            witnesses[k] = _and(witnesses[k], formula)
            return replace(loop, loop_witnesses=tuple(witnesses))
        cuts = list(self.cuts)
        old = cuts[position].formula
        cuts[position] = Cut(cuts[position].parent, formula if old == BoolConst(True) else conj(old, formula))
        return replace(self, cuts=tuple(cuts))

    def new_cut(self, parent: int) -> tuple[Branch, int]:
        return replace(self, cuts=(*self.cuts, Cut(parent, BoolConst(True)))), len(self.cuts)

    def new_witness(self) -> tuple[Branch, int]:
        """A configuration of the loop where a ``<>`` is witnessed (its position: below ``LOOP``)."""
        return (replace(self, loop_witnesses=(*self.loop_witnesses, BoolConst(True))),
                LOOP - 1 - len(self.loop_witnesses))

    def invariant(self, anchor: int, formula: Expr) -> Branch:
        return replace(self, invariants=(*self.invariants, Invariant(anchor, formula)))


def _and(old: Expr, formula: Expr) -> Expr:
    return conj(old, formula) if old != BoolConst(True) else formula


@dataclass(frozen=True)
class TemporalQuery:
    """What a violation of ``property`` is: a run satisfying ``negation`` (macro-expanded, NNF).

    ``infinite``: the run must be an infinite lasso (liveness); otherwise a finite prefix suffices.
    """

    property: str
    formula_class: FormulaClass
    negation: Expr
    branches: tuple[Branch, ...]
    # the J of each justice antecedent <>[](J) (ir/eltl/justice.py reads it per process)
    justice: tuple[Expr, ...] = ()

    @property
    def infinite(self) -> bool:
        return self.formula_class is FormulaClass.LIVENESS

    @property
    def kind(self) -> str:
        """The property's type as users know it: "safety" or "liveness"."""
        return "liveness" if self.infinite else "safety"

    @property
    def cut_points(self) -> int:
        return max((len(b.cuts) for b in self.branches), default=0)


@dataclass(frozen=True)
class Unsupported:
    """Why a property is outside the fragment tactl decides."""
    property: str
    kind: PropertyKind
    reason: str


class OutsideFragment(ValueError):
    """The formula is outside ELTL-FT as tactl decides it (the message says why)."""


def temporal_query(ta: ThresholdAutomaton, prop: Property) -> TemporalQuery | Unsupported:
    """The cut-point form of ``prop``'s negation, or why there is none."""
    formula = ta.expand(prop.formula)
    kind = classify(formula)
    locals_used = sorted({n.name for n in names(formula) if ta.symbols.get(n.name) is SymbolKind.LOCAL})
    if locals_used:
        return Unsupported(prop.name, kind, "the formula mentions local variables ("
                           + ", ".join(locals_used) + "); the counter system has only location "
                           "counters, shared variables and parameters")
    negation = nnf(formula, negate=True)
    try:
        branches = tuple(_expand(negation, ROOT, Branch()))
    except OutsideFragment as e:
        return Unsupported(prop.name, kind, f"outside the ELTL-FT fragment tactl decides: {e}")
    nodes = list(walk(negation))
    if not any(isinstance(n, (Always, Eventually)) for n in nodes):
        cls = FormulaClass.PROPOSITIONAL
    elif any(isinstance(n, Always) for n in nodes):
        cls = FormulaClass.LIVENESS
    elif all(b.is_reachability for b in branches):
        cls = FormulaClass.REACHABILITY
    else:
        cls = FormulaClass.NESTED_SAFETY
    return TemporalQuery(prop.name, cls, negation, branches, justice_antecedents(formula))


def branches_of(negation: Expr) -> tuple[Branch, ...]:
    """The cut-point form of a negation (``temporal_query``'s branches; ``negation`` in NNF)."""
    return tuple(_expand(negation, ROOT, Branch()))


# ------------------------------------------------------------------------------- construction


def _dnf(e: Expr) -> list[list[Expr]]:
    """Disjunctive normal form at the temporal level: literals are maximal state formulas,
    ``<>χ`` and ``[]χ`` (whose operands are left alone)."""
    if not is_temporal(e):
        return [[e]]
    if isinstance(e, And):
        out: list[list[Expr]] = [[]]
        for arg in e.args:
            out = [left + right for left in out for right in _dnf(arg)]
        return out
    if isinstance(e, Or):
        state = [a for a in e.args if not is_temporal(a)]
        out = [[disj(*state)]] if state else []
        for arg in e.args:
            if is_temporal(arg):
                out.extend(_dnf(arg))
        return out
    return [[e]]


def _expand(e: Expr, position: int, branch: Branch) -> list[Branch]:
    out: list[Branch] = []
    for alternative in _dnf(e):
        partial = [branch]
        for literal in alternative:
            partial = [b for p in partial for b in _place(literal, position, p)]
        out.extend(partial)
    return out


def _place(literal: Expr, position: int, branch: Branch) -> list[Branch]:
    if not is_temporal(literal):
        return [branch.add(position, literal)] if literal != BoolConst(True) else [branch]
    if isinstance(literal, Eventually):
        if position <= LOOP or _suffix_closed(literal.arg):
            branch, witness = branch.new_witness()
            return _expand(literal.arg, witness, branch)
        branch, cut = branch.new_cut(position)
        return _expand(literal.arg, cut, branch)
    if isinstance(literal, Always):
        if position <= LOOP:
            return _expand(literal.arg, LOOP, branch)
        return _invariant(literal.arg, position, branch)
    raise OutsideFragment(f"unexpected temporal node {type(literal).__name__}")


def _invariant(e: Expr, anchor: int, branch: Branch) -> list[Branch]:
    """``[]e`` from ``anchor`` on: state formulas become invariants, ``<>χ`` under ``[]`` is
    evaluated at the loop, ``[][]χ`` is ``[]χ``."""
    if not is_temporal(e):
        return [branch.invariant(anchor, e)]
    alternatives = _dnf(e)
    if len(alternatives) > 1:
        raise OutsideFragment("a disjunction with a temporal operand under [] (as in "
                              "[](p || <>q)); ByMC rejects it too")
    partial = [branch]
    for literal in alternatives[0]:
        if not is_temporal(literal):
            partial = [p.invariant(anchor, literal) for p in partial]
        elif isinstance(literal, Eventually):
            partial = [b for p in partial for b in _expand(literal.arg, *_witness(p))]
        else:
            assert isinstance(literal, Always)
            partial = [b for p in partial for b in _invariant(literal.arg, anchor, p)]
    return partial


def _witness(branch: Branch) -> tuple[int, Branch]:
    branch, position = branch.new_witness()
    return position, branch


def _suffix_closed(e: Expr) -> bool:
    """Every state formula of ``e`` sits under a ``[]``: then ``<>e`` holds on ``π·σ_L^ω`` iff
    ``e`` holds on ``σ_L^ω`` (take the loop itself as the witness; conversely ``[]`` reaches it)."""
    if isinstance(e, Always):
        return True
    if isinstance(e, (And, Or)):
        return all(_suffix_closed(a) for a in e.args)
    if isinstance(e, Eventually):
        return _suffix_closed(e.arg)
    return False


def lasso_reason(ta: ThresholdAutomaton) -> str | None:
    """Why infinite runs of ``ta`` are not all of the form ``π·σ_L^ω`` (decision 1), or None.

    Needs: every cycle of the rule graph is a self-loop, and no self-loop updates a shared variable
    (else a run can visit infinitely many configurations). True of every public benchmark automaton
    (docs/check.md, "Semantics", item 6); liveness of other automata is reported unsupported.
    """
    for rule in ta.rules:
        if rule.is_self_loop and ta.increments(rule) != {}:
            return (f"self-loop rule {rule.id} updates shared variables, so an infinite run need "
                    "not end in one configuration; tactl decides liveness only for automata whose "
                    "self-loops update nothing")
    succ: dict[str, set[str]] = {loc.name: set() for loc in ta.locations}
    for rule in ta.rules:
        if not rule.is_self_loop:
            succ[rule.source].add(rule.target)
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def cyclic(start: str) -> bool:
        stack = [(start, iter(sorted(succ[start])))]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(sorted(succ[nxt]))))
        return False

    for loc in ta.locations:
        if loc.name not in state and cyclic(loc.name):
            return ("the rule graph has a cycle through several locations (" + loc.name + " is on "
                    "or reaches one), so an infinite run need not end in one configuration; tactl "
                    "decides liveness only for automata whose cycles are self-loops")
    return None


def reach_question(query: TemporalQuery):
    """The plain reachability question of a one-branch finite-prefix query (``init && <>bad``,
    or a propositional one: ``init`` alone), which the reachability engines answer; else None."""
    if query.infinite or len(query.branches) != 1 or not query.branches[0].is_reachability:
        return None
    branch = query.branches[0]
    return ReachQuery(query.property, branch.initial,
                      branch.cuts[0].formula if branch.cuts else BoolConst(True))


def cut_points_only(query: TemporalQuery) -> bool:
    """Whether a finite-prefix query's every branch is cut points alone (nested safety: no
    ``[]`` left in the negation), the form the CHC engine's monitor reads
    (tactl/engines/chc_monitor.py)."""
    return not query.infinite and all(not b.invariants and not b.loop_witnesses and b.at_loop == BoolConst(True)
                                      for b in query.branches)
