"""The justice ``<>[](J)`` read per process on a loop through several configurations.

The translation states justice as ``J = ⋀ (¬g ∨ κ[ℓ] == 0)`` (``passes/rta_to_ta/fairness.py``):
"a process whose exit from ``ℓ`` (guard ``g``) stays enabled eventually takes it". On a lasso
whose loop is one configuration (every cycle a self-loop) that is exactly ``J`` at that
configuration: a process that never moves stays in ``ℓ``. On a loop ``λ`` through several
configurations the literal ``<>[](J)`` asks more: ``ℓ`` empty at *every* loop configuration,
which excludes the runs where processes keep going round (``AC -> SE -> AC``) — the runs the
justice is meant to allow.

**The per-process reading.** Along ``λ`` the shared variables, so the guards, are constant
(``ir/eltl/cycles.py`` (b)), and processes in one location are interchangeable: let the process
that has been in ``ℓ`` longest be the one that leaves whenever ``λ`` fires a rule out of ``ℓ``
(FIFO). Repeating ``λ`` then moves every process that sits in ``ℓ`` out of it after finitely
many rounds. So a pair ``(ℓ, g)`` of ``J`` is met on ``π·λ^ω`` by some assignment of processes
to the counter moves iff

    ``g`` is false on the loop, or ``ℓ`` is empty at every loop configuration, or ``λ`` fires a
    rule out of ``ℓ`` (a rule with source ``ℓ`` that is not a self-loop).

Conversely a run whose loop fires no rule out of ``ℓ`` while ``ℓ`` is occupied somewhere keeps
those processes in ``ℓ`` for ever (nothing leaves), so the reading is exact. On a one-configuration
loop the third case cannot happen (the loop fires self-loops only) and the reading is the
literal one; the engines use this module on automata with cycles through several locations only.

**When a guard can become false again** (a reset or a decrement, outside ``ir/eltl/cycles.py``'s
scope; only the explicit engine searches such loops, ``tactl/engines/explicit_ltl.py``): along
``λ`` the guard ``g`` may be true at some loop configurations and false at others, and the two
usual readings of "a process whose exit stays enabled eventually takes it" part: weak fairness
(only a process enabled at *every* configuration from some point on is owed a step) and strong
fairness (a process enabled again and again is). tactl keeps the formula's own clause per
process, ``<>[](¬g ∨ p ∉ ℓ)``, for a process ``p`` that never leaves ``ℓ`` — that is, such a
process needs ``g`` false at *every* loop configuration, which is strong fairness for it — and
the FIFO reading above for processes that keep leaving. So the pair is met iff ``λ`` fires a
rule out of ``ℓ``, or at every loop configuration ``ℓ`` is empty or ``¬g`` holds (without a
rule out of ``ℓ`` the loop cannot change ``κ[ℓ]`` at all: it returns to where it began). Why not
weak fairness: it would accept a loop on which the formula's own ``<>[](¬g ∨ ℓ == 0)`` is false
even for the one process that never moves, so a violation reported under it would rest on a
run the specification's assumption excludes; and with resets the guard falls back each time a
new round starts, so weak fairness would let a slow process sleep through every round. With
constant guards (every automaton of ``ir/eltl/cycles.py``'s scope) the two readings coincide.

**Which formulas are justice.** An antecedent ``<>[](J)`` of the property's chain of implications
(``ir/eltl/vacuity.py``; a conjunct of such an antecedent counts too): in the negation it is a
top-level conjunct. A clause of ``J`` not of the shape ``C ∨ ℓ == 0`` with ``C`` free of counters
keeps the literal reading (``<>[]`` of those clauses stays in the negation), as does any
``<>[]`` the specification itself states.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.boolean import nnf
from tactl.ir.eltl.cycles import cycle_structure, has_several_location_cycles
from tactl.ir.eltl.vacuity import vacuity_question
from tactl.ir.expr import Always, And, BoolConst, Compare, Eventually, Expr, IntConst, Name, Or, conj, disj, is_temporal, names
from tactl.ir.ta.model import SymbolKind, ThresholdAutomaton


@dataclass(frozen=True)
class JusticePair:
    """``waived || location == 0`` of a justice, read per process: ``waived`` (``¬g``, no
    counters) holds on the loop, or ``location`` is empty all along it, or the loop leaves it."""

    waived: Expr
    location: str


@dataclass(frozen=True)
class FairReading:
    """A negated specification split for a loop through several configurations: ``negation``
    (the literal part, evaluated by LTL semantics) and the justice ``pairs`` read per process."""

    negation: Expr
    pairs: tuple[JusticePair, ...] = ()


def justice_antecedents(formula: Expr) -> tuple[Expr, ...]:
    """The ``J`` of each ``<>[](J)`` antecedent of ``formula`` (macro-expanded), in NNF."""
    question = vacuity_question(formula)
    if question is None:
        return ()
    out: list[Expr] = []
    for a in question.antecedents:
        if a.where != "run":
            continue
        for part in _conjuncts(nnf(a.formula)):
            if isinstance(part, Eventually) and isinstance(part.arg, Always) and not is_temporal(part.arg.arg):
                out.append(part.arg.arg)
    return tuple(out)


def loop_reading(ta: ThresholdAutomaton, query) -> FairReading:
    """How a lasso of ``ta`` must satisfy ``query`` (a ``TemporalQuery``): justice per process
    when ``ta`` has cycles through several locations, else the negation as it is."""
    if not has_several_location_cycles(ta):
        return FairReading(query.negation)
    return fair_reading(ta, query.negation, query.justice)


def fair_reading(ta: ThresholdAutomaton, negation: Expr, justice: tuple[Expr, ...]) -> FairReading:
    """``negation`` with each top-level ``<>[](J)`` for ``J`` in ``justice`` taken apart into
    pairs (module docstring); clauses of another shape stay in the literal part."""
    if not justice:
        return FairReading(negation)
    kept: list[Expr] = []
    pairs: list[JusticePair] = []
    for part in _conjuncts(negation):
        if isinstance(part, Eventually) and isinstance(part.arg, Always) and part.arg.arg in justice:
            literal: list[Expr] = []
            for clause in _conjuncts(part.arg.arg):
                found = _pairs(ta, clause)
                if found is None:
                    literal.append(clause)
                else:
                    pairs.extend(found)
            if literal:
                kept.append(Eventually(Always(conj(*literal))))
        else:
            kept.append(part)
    return FairReading(conj(*kept), tuple(dict.fromkeys(pairs)))


def _conjuncts(e: Expr) -> list[Expr]:
    return [x for a in e.args for x in _conjuncts(a)] if isinstance(e, And) else [e]


def _pairs(ta: ThresholdAutomaton, clause: Expr) -> list[JusticePair] | None:
    """``C || (ℓ1 == 0 && …)`` as one pair per ``ℓi``, or None for another shape."""
    parts = clause.args if isinstance(clause, Or) else (clause,)
    waived = [p for p in parts if not _mentions_counters(ta, p)]
    emptied = [p for p in parts if _mentions_counters(ta, p)]
    if len(emptied) != 1:
        return None
    locations = [_empty_location(ta, c) for c in _conjuncts(emptied[0])]
    if any(loc is None for loc in locations):
        return None
    return [JusticePair(disj(*waived) if waived else BoolConst(False), loc) for loc in locations]  # type: ignore[misc]


def _mentions_counters(ta: ThresholdAutomaton, e: Expr) -> bool:
    return any(ta.symbols.get(n.name) is SymbolKind.LOCATION for n in names(e))


def _empty_location(ta: ThresholdAutomaton, e: Expr) -> str | None:
    if not isinstance(e, Compare) or e.op != "==":
        return None
    for a, b in ((e.left, e.right), (e.right, e.left)):
        if isinstance(a, Name) and ta.symbols.get(a.name) is SymbolKind.LOCATION and b == IntConst(0):
            return a.name
    return None


def exits(ta: ThresholdAutomaton, location: str) -> tuple[int, ...]:
    """The rules out of ``location`` (source ``location``, not a self-loop)."""
    return tuple(i for i, r in enumerate(ta.rules) if r.source == location and not r.is_self_loop)


def readings_differ(ta: ThresholdAutomaton, query) -> bool:
    """Whether the per-process reading of ``query``'s justice can accept a loop the literal one
    rejects: some pair's location can be left by a rule a loop may fire
    (``CycleStructure.loop_rules``); otherwise no loop leaves it and both readings coincide."""
    loop_rules = set(cycle_structure(ta).loop_rules(ta))
    return any(loop_rules.intersection(exits(ta, p.location)) for p in loop_reading(ta, query).pairs)
