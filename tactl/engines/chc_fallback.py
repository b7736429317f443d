"""Safety by Horn clauses, with a bounded search for a violation when Spacer gives no answer.

The CHC engine (tactl/engines/chc.py) decides safety of any automaton, but Spacer may run out
of time without an answer, most often on a violation whose run is long: it refutes candidate
invariants one counterexample-to-induction at a time. Here Spacer gets a share of the time
(:data:`SPACER_SHARE` of what the command's ``--timeout`` leaves, or :data:`SPACER_DEFAULT_S`
without one); when it gives no answer, the rest goes to a search for a violation at small
parameter values. When ``tactl check`` chose the CHC engine itself (the parametric engine does
not decide the automaton), a short search (:data:`PROBE_STATES` configurations) comes before
Spacer too: a shallow violation costs it well under a second, and Spacer the whole of its share
before the search after it would run (phase king: no answer from Spacer in 225 s, a run from
the search in one). ``--engine chc`` asks Spacer first, since it is the cross-check of the
Horn clauses.

That search is the explicit engine (tactl/engines/explicit.py) with the ``--bound`` and
``--max-states`` of the command: every parameter valuation up to the bound that satisfies the
resilience condition, every initial configuration, breadth first. A symbolic unrolling of the
counter system (one SMT query per depth) was the alternative; it was not taken because

* a violation of a round-based automaton with resets lies at small sizes but many steps (phase
  king's: 4 processes, tens of single-process steps through two phases), which an unrolling
  reaches only at that depth, with every parameter left free in every query, while the
  explicit search at those sizes explores a few hundred configurations;
* the explicit engine shares no code with the Horn clauses, so a run it finds is an
  independent witness, and it is replayed by the simulator (tactl/engines/simulate.py) like
  every other violation.

A run at concrete parameters that satisfy the resilience condition, from an initial
configuration the ``inits`` allow, is a run of the parameterized system: the property is
violated for all parameters, and VIOLATED says at which sizes the run was found. No run found
is never HOLDS: the verdict stays UNKNOWN with Spacer's reason and what the search covered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tactl.engines import chc, explicit, explicit_ltl
from tactl.engines.result import UNKNOWN, VIOLATED, PropertyResult
from tactl.ir.eltl.formula import TemporalQuery, reach_question
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.util import deadline

# Spacer's share of the time the command has left; the rest is the bounded search's.
SPACER_SHARE = 0.75
# Spacer's time without a --timeout: enough for every reset benchmark it decides, and a
# command without a deadline still ends (a diverging Spacer would not).
SPACER_DEFAULT_S = 120.0
# The configurations the search before Spacer may explore (all parameter valuations together).
PROBE_STATES = 20_000
# The key of PropertyResult.details that says what the bounded search did (rendered by the reports).
FALLBACK = "fallback"


def check(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None,
          bound: int = explicit.DEFAULT_BOUND, max_states: int = explicit.DEFAULT_MAX_STATES,
          progress: Callable[[str], None] | None = None, probe: bool = False,
          spacer_limit_s: float | None = None) -> PropertyResult:
    """The CHC engine's verdict on ``query``; when it is UNKNOWN, a violation searched for at the
    parameter valuations up to ``bound`` (with ``probe``, a short search first as well).
    ``spacer_limit_s`` overrides Spacer's share of the time."""
    searched = None
    if probe and not query.infinite:
        searched = bounded_search(ta, query, parameters, bound, min(max_states, PROBE_STATES), progress)
        if searched.verdict == VIOLATED:
            return _combined(None, searched, bound)
    left = deadline.remaining()
    limit = spacer_limit_s if spacer_limit_s is not None else \
        SPACER_DEFAULT_S if left is None else left * SPACER_SHARE
    spacer = chc.check(ta, query, parameters, limit_s=limit)
    if spacer.verdict != UNKNOWN or query.infinite or deadline.remaining() == 0:
        return replace(spacer, time_s=spacer.time_s + (searched.time_s if searched else 0.0))
    if searched is None or (searched.verdict == UNKNOWN and max_states > PROBE_STATES):
        if progress:
            progress(f"{query.property}: Spacer gave no answer; searching for a violation with every "
                     f"parameter <= {bound}")
        searched = bounded_search(ta, query, parameters, bound, max_states, progress)
    return _combined(spacer, searched, bound)


def bounded_search(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None,
            bound: int, max_states: int, progress: Callable[[str], None] | None) -> PropertyResult:
    """The explicit engine's verdict on ``query`` at every size up to ``bound`` (a reachability
    question by tactl/engines/explicit.py, any other by the temporal search of
    tactl/engines/explicit_ltl.py, as the liveness of reset automata in reset_liveness.py); the
    deadline makes it UNKNOWN."""
    question = reach_question(query)
    try:
        with deadline.interruptible():
            if question is None:
                return explicit_ltl.check_temporal(ta, query, parameters or {}, bound, max_states, progress)
            return explicit.check(ta, question, parameters or {}, bound, max_states, progress)
    except deadline.DeadlineExceeded:
        return PropertyResult(query.property, query.kind, UNKNOWN, explicit.ENGINE,
                              reason=deadline.timeout_reason())


def _combined(spacer: PropertyResult | None, found: PropertyResult, bound: int) -> PropertyResult:
    """One verdict from Spacer's UNKNOWN (None: Spacer was not asked) and the search's result."""
    time_s = (spacer.time_s if spacer else 0.0) + found.time_s
    states = found.details.get("states")
    searched = f"every parameter <= {bound}" + (f", {states} configurations" if states is not None else "")
    if found.verdict == VIOLATED and found.counterexample is not None and found.counterexample.replayed:
        sizes = ", ".join(f"{p}={v}" for p, v in found.counterexample.parameters.items())
        note = (f"found by the bounded search at {sizes} (these satisfy the resilience condition, so "
                f"the parametric property is violated; searched {searched}) "
                + (f"after Spacer: {spacer.reason}" if spacer else "before Spacer was asked"))
        return replace(found, time_s=time_s, queries=spacer.queries if spacer else 0, reason=note,
                       details={**found.details, FALLBACK: note})
    if found.verdict == VIOLATED or found.verdict == UNKNOWN:
        what = found.reason or "no verdict"
    else:  # every instance explored without a violation: says nothing about larger ones
        what = "no violation at " + (found.scope or searched).removeprefix("only ")
    note = f"bounded search ({searched}): {what}"
    assert spacer is not None, "only a violation is reported without Spacer's answer"
    return replace(spacer, time_s=time_s, reason=f"{spacer.reason}; {note}",
                   details={**spacer.details, FALLBACK: note})
