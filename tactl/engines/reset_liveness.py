"""``tactl check`` on a liveness property of an automaton with resets or decrements.

No engine decides such liveness for every parameter valuation in general: a reset can make a
guard false again, so an infinite run need not settle (``ir/eltl/cycles.py``). What is sound, and
what this module does, in this order:

1. **A violation at small sizes.** The explicit engine's fair-SCC search
   (``tactl/engines/explicit_ltl.py``), with the justice read per process as
   ``ir/eltl/justice.py`` states it for guards that a reset makes false again, looks for a lasso
   at every parameter valuation up to ``--bound`` that satisfies the resilience condition, first
   with a small budget (:data:`PROBE_STATES`). A lasso it finds is replayed by the simulator; it
   is a run of the parameterized system at those sizes, so the property is VIOLATED.
2. **A proof for all sizes** where the property is ``I && <>[](J) && … -> <>p``: the two
   questions of ``ir/eltl/reset_response.py`` about the automaton without its reset rules,
   answered by the parametric engines (``decide``). HOLDS only when both are proved; the reason
   says what each one proved.
3. **A proof for all sizes from which rules can fire for ever**, where the property is
   ``<>p``, ``[](a -> <>p)`` or ``[]<>p`` under justice: the safety questions of
   ``ir/eltl/reset_recurrence.py`` about the whole automaton, answered by the chc engine
   (``tactl/engines/reset_recurrence.py``).
4. **Otherwise** the rest of the search (``--max-states``), then UNKNOWN with the sizes searched
   and why no proof was found — never HOLDS from a bounded search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from tactl.engines import reset_recurrence
from tactl.engines.chc_fallback import bounded_search
from tactl.engines.parametric import verdict_scope
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, VIOLATED, PropertyResult
from tactl.ir.eltl.formula import TemporalQuery
from tactl.ir.eltl.reset_response import ResetSplit, reset_split
from tactl.ir.expr import to_text
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.util import deadline

ENGINE = "parametric"
# The product states the first search may explore (all parameter valuations together): enough
# for the small sizes where a round-based automaton's lasso lies, little next to a proof.
PROBE_STATES = 20_000
# The key of PropertyResult.details that says how the verdict was reached (rendered as a note).
RESETS = "resets"

Decide = Callable[[ThresholdAutomaton, TemporalQuery], PropertyResult]


def check(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None, bound: int,
          max_states: int, progress: Callable[[str], None] | None, decide: Decide) -> PropertyResult:
    """The verdict on the liveness ``query`` of ``ta`` (which has resets or decrements);
    ``decide(automaton, query)`` is the parametric engines' verdict on a monotone automaton."""
    started = time.perf_counter()
    probe = bounded_search(ta, query, parameters, bound, min(max_states, PROBE_STATES), progress)
    if probe.verdict == VIOLATED:
        return _violated(probe, bound, started)
    split = reset_split(ta, query)
    if isinstance(split, ResetSplit):
        if progress:
            progress(f"{query.property}: no lasso at small sizes; proving it from the automaton without "
                     "its reset rules")
        proof, why = _prove(ta, split, parameters, decide)
        if proof is not None:
            return replace(proof, time_s=time.perf_counter() - started)
    else:
        why = f"no proof for all sizes: {split}"
    if progress:
        progress(f"{query.property}: proving it from which rules can fire for ever, by safety questions about "
                 "the whole automaton")
    recurrence, why_not = reset_recurrence.prove(ta, query, parameters)
    if recurrence is not None:
        return replace(recurrence, time_s=time.perf_counter() - started, details={RESETS: recurrence.reason})
    why = _both(why, why_not)
    searched = probe
    if probe.verdict == UNKNOWN and max_states > PROBE_STATES and deadline.remaining() != 0:
        if progress:
            progress(f"{query.property}: searching for a lasso with every parameter <= {bound}")
        searched = bounded_search(ta, query, parameters, bound, max_states, progress)
        if searched.verdict == VIOLATED:
            return _violated(searched, bound, started)
    if searched.verdict == HOLDS:
        what = "no violation at " + (searched.scope or "").removeprefix("only ")
    else:
        what = searched.reason or "no verdict"
    note = f"{why}; bounded search for a lasso ({searched.details.get('states', 0)} states): {what}"
    return PropertyResult(query.property, query.kind, UNKNOWN, ENGINE, time_s=time.perf_counter() - started,
                          reason=note, details={RESETS: note, "states": searched.details.get("states", 0)})


def _both(first: str, second: str) -> str:
    """Why neither proof applies, each reason once."""
    second = second.removeprefix("no proof for all sizes: ")
    if first.removeprefix("no proof for all sizes: ") == second:
        return first
    return f"{first}; nor from which rules can fire for ever: {second}"


def _violated(found: PropertyResult, bound: int, started: float) -> PropertyResult:
    """The search's lasso, which the simulator replayed (else the search says UNKNOWN)."""
    assert found.counterexample is not None and found.counterexample.replayed
    sizes = ", ".join(f"{p}={v}" for p, v in found.counterexample.parameters.items())
    note = (f"a lasso found at {sizes} by the explicit search of every size up to {bound}; these "
            "sizes satisfy the resilience condition, so the property is violated")
    return replace(found, time_s=time.perf_counter() - started, reason=note, details={**found.details, RESETS: note})


def _prove(ta: ThresholdAutomaton, split: ResetSplit, parameters: dict[str, int] | None,
           decide: Decide) -> tuple[PropertyResult | None, str]:
    """HOLDS by the argument of ``ir/eltl/reset_response.py``, or (None, why not)."""
    rules = ", ".join(str(ta.rules[i].id) for i in split.resets)
    proved = (HOLDS, HOLDS_VACUOUSLY)
    safety = decide(split.monotone, split.safety)
    if safety.verdict not in proved:
        return None, (f"no proof for all sizes: without its reset rules ({rules}) the automaton "
                      f"{'reaches' if safety.verdict == VIOLATED else 'was not shown never to reach'} "
                      f"a configuration where one of them is enabled and the eventuality is still false"
                      + (f" ({safety.reason})" if safety.reason and safety.verdict != VIOLATED else ""))
    parts = [f"(B) without them, no run reaches a configuration where one is enabled while the "
             f"eventuality is false (`{to_text(split.bad)}` is unreachable; {safety.engine})"]
    queries, obligations = safety.queries, list(safety.obligations)
    if split.runs_forever:
        liveness = decide(split.monotone, split.liveness)
        if liveness.verdict not in proved:
            return None, (f"no proof for all sizes: the automaton without its reset rules ({rules}) was "
                          f"not shown to satisfy the property ({liveness.verdict}"
                          + (f": {liveness.reason}" if liveness.reason else "") + ")")
        parts.append(f"(A) without them the property holds ({liveness.engine})")
        queries += liveness.queries
        obligations += liveness.obligations
    else:
        parts.append("(A) without them the rule graph has no cycle, so no run is infinite")
    note = (f"every violating run would fire a reset rule ({rules}) or be a run without them: "
            + "; ".join(reversed(parts)))
    result = PropertyResult(split.liveness.property, split.liveness.kind, HOLDS, ENGINE, queries=queries,
                            scope=verdict_scope(ta, parameters), reason=note, details={RESETS: note},
                            obligations=obligations)
    return result, ""
