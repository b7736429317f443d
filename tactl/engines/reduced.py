"""The parametric and chc engines on a reduced automaton, with their counterexamples replayed on the original.

``passes.shortcuts`` drops the rules whose every step two other rules can take in turn (the
module doc there gives the conditions and the soundness argument). The engine decides the
reduced automaton; a HOLDS carries over by that argument (and carries, for ``--certify``, the
question whose ``unsat`` is every z3 answer the reduction rests on:
``passes/ta_to_ta/reduction_question.py``), and a VIOLATED only after its run —
the same steps, with the rule indices mapped back — has been replayed by the independent
simulator on the *original* automaton (a run of the reduced automaton is a run of the original
one, so this never fails unless tactl has a bug; then the verdict is UNKNOWN, saying so).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace

from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED, Counterexample, Obligation, PropertyResult
from tactl.engines.simulate import Step, replay, replay_query
from tactl.ir.eltl.cycles import has_several_location_cycles
from tactl.ir.eltl.formula import TemporalQuery, reach_question
from tactl.ir.expr import BoolConst, names
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.ta_to_ta.reduction_question import reduction_question
from tactl.passes.ta_to_ta.shortcuts import Reduction, drop_shortcuts, identity
from tactl.passes.ta_to_ta.simplify_guards import simplify_guards

# TACTL_NO_REDUCTION=1 decides the original automaton (the bench's "before" column, and a way
# out should a reduction ever be suspected).
OFF = "TACTL_NO_REDUCTION"


def observed(ta: ThresholdAutomaton, query: TemporalQuery) -> frozenset[str] | None:
    """Names the property's invariants read (they are evaluated at every configuration), or None
    when the negation has no invariant in any branch. On a loop through several configurations
    (``ir/eltl/cycles.py``) the loop's ``[]`` part, the justice among it, is evaluated at every
    loop configuration too, the intermediate one of a replaced shortcut included."""
    formulas = [inv.formula for b in query.branches for inv in b.invariants]
    if query.infinite and has_several_location_cycles(ta):
        formulas += [b.loop_always for b in query.branches if b.loop_always != BoolConst(True)]
    if not formulas:
        return None
    return frozenset(n.name for f in formulas for n in names(ta.expand(f)))


def reduce_for(ta: ThresholdAutomaton, query: TemporalQuery,
               parameters: dict[str, int] | None) -> Reduction:
    if os.environ.get(OFF):
        return identity(ta)
    fixed = tuple(sorted((parameters or {}).items()))
    key = (id(ta), observed(ta, query), fixed)
    if key not in _MEMO or _MEMO[key][0] is not ta:
        if (id(ta), fixed) not in _SIMPLER or _SIMPLER[id(ta), fixed][0] is not ta:
            _SIMPLER[id(ta), fixed] = (ta, simplify_guards(ta, parameters))
        reduction = drop_shortcuts(_SIMPLER[id(ta), fixed][1], key[1], parameters)
        _MEMO[key] = (ta, replace(reduction, original=ta))
    return _MEMO[key][1]


# One reduction per (automaton, observed names, --param values) in a process: the properties of
# one automaton (and their vacuity questions) share it. The automaton is kept with its entry, so
# that its id cannot be reused while the entry lives.
_MEMO: dict[tuple, tuple[ThresholdAutomaton, Reduction]] = {}
_SIMPLER: dict[tuple, tuple[ThresholdAutomaton, ThresholdAutomaton]] = {}  # guards simplified, per --param


def check(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None,
          decide: Callable[[ThresholdAutomaton], PropertyResult], smaller_only: bool = False) -> PropertyResult:
    """``decide`` (an engine) on the reduced automaton; the result's counterexample mapped back to
    ``ta``'s rules and replayed on ``ta``. ``details`` say what was removed. ``smaller_only``:
    decide ``ta`` itself unless the reduction removed a rule (the chc engine: on an automaton
    that loses no rule, its invariant stays one of the automaton as written)."""
    started = time.perf_counter()
    reduction = reduce_for(ta, query, parameters)
    reduce_s = time.perf_counter() - started
    if smaller_only and not reduction.removed:
        return decide(ta)
    result = decide(reduction.ta)
    result.time_s += reduce_s
    if reduction.ta is ta:
        return result
    result.details["reduced_rules"] = len(reduction.kept)
    result.details["reduction_s"] = round(reduce_s, 4)
    if result.verdict == HOLDS:
        # the HOLDS rests on the reduction's z3 answers too: one more question for --certify
        result.obligations.append(Obligation(
            "the reduction (simplified guards, shortcut rules)",
            build=lambda: reduction_question(ta, reduction.ta, reduction.kept, reduction.via, parameters)))
    if result.details.get("invariant"):
        # the chc invariant's ghost fired#i counts the i-th rule of the automaton it was proved
        # of, the reduced one: the original index of each, for a reader of the invariant
        result.details["kept_rules"] = list(reduction.kept)
    if result.counterexample is None:
        return result
    cex = _mapped(reduction, result.counterexample)
    outcome = _replay(ta, query, cex)
    result.counterexample = replace(cex, replay=outcome)
    if result.verdict == VIOLATED and not outcome.ok:
        result.verdict = UNKNOWN
        result.reason = (f"the run found on the automaton without its shortcut rules did not replay "
                         f"on the original automaton ({outcome.message}); this is a tactl bug, "
                         "please report it")
    return result


def _mapped(reduction: Reduction, cex: Counterexample) -> Counterexample:
    def back(steps: list[Step] | None) -> list[Step] | None:
        return None if steps is None else [Step(reduction.original_rule(s.rule), s.factor) for s in steps]

    loop = None if cex.loop is None else reduction.original_rule(cex.loop)
    return replace(cex, schedule=back(cex.schedule) or [], loop=loop, cycle=back(cex.cycle))


def _replay(ta: ThresholdAutomaton, query: TemporalQuery, cex: Counterexample):
    question = reach_question(query)
    if question is not None:
        return replay(ta, question, cex.parameters, cex.initial, cex.schedule)
    return replay_query(ta, query, cex.parameters, cex.initial, cex.schedule, cex.loop, cex.cycle)
