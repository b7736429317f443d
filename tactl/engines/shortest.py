"""A shortest schedule for a counterexample's parameters, ending where the property is violated.

The parametric engine's schedule comes from firing counts of steady segments: a valid run, but
often longer than needed and continuing after the violating configuration. For its (small)
parameter valuation the explicit engines' breadth-first searches (``tactl.engines.explicit`` for
reachability, ``tactl.engines.explicit_ltl``'s product with formula progression otherwise) find
a run with the fewest single-process steps from any initial configuration — for a lasso, the
shortest prefix — and stop at the first violating configuration. That run, replayed by the
simulator, replaces the engine's. When the search exceeds its state budget, or the property's
minimisation budget (``tactl.engines.budget``) is spent, the engine's own run is kept, cut at its
first violating configuration (safety), and said not shown shortest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from tactl.engines import explicit, explicit_ltl
from tactl.engines.result import VIOLATED, Counterexample
from tactl.engines.simulate import (Comparisons, Configuration, Step, fire_many, replay, replay_query,
                                    samples_inside_batch)
from tactl.ir.eltl.formula import TemporalQuery, reach_question
from tactl.ir.evaluate import EvaluationError, holds
from tactl.ir.expr import Compare, walk
from tactl.ir.ta.model import ThresholdAutomaton

# States the breadth-first search may visit, so that shortening a counterexample never costs more
# than finding it; beyond, the engine's own run is kept ("not shown shortest").
MAX_STATES = 100_000


def shortest(ta: ThresholdAutomaton, query: TemporalQuery, cex: Counterexample,
             max_states: int = MAX_STATES, stop: Callable[[], str | None] | None = None,
             fixed: dict[str, int] | None = None) -> Counterexample:
    """``cex`` with a shortest schedule for its parameters, and its violating step set;
    ``stop()``, asked before and during the search, says why to give up (the property's
    minimisation budget, ``tactl.engines.budget``), else None.

    When ``cex``'s parameters are not shown minimal, the first few valuations below them (in the
    declared parameters' lexicographic order, with the ``fixed`` ones kept) are searched first:
    a violation there is a smaller run, shortest for its parameters, and the search costs a
    fraction of the one at ``cex``'s (random19's n-rabc-cr ``decide_or_flip``: 0.05 s at N=4
    against more than 0.4 s at the engine's N=7)."""
    if cex.schedule_shortest:  # the engine's run came from this breadth-first search already
        return cex
    start = [*dict(cex.initial.counters).values(), *dict(cex.initial.shared).values()]
    bound = max([explicit.DEFAULT_BOUND, *start])  # caps unbounded initial values only
    question = reach_question(query)
    finite = question is not None and cex.loop is None and cex.cycle is None
    stopped: list[str] = []  # why the budget stopped the search, if it did

    def budget() -> str | None:
        why = stop() if stop is not None else None
        stopped.extend([why] if why else [])
        return why

    smaller = [] if cex.parameters_minimal else smaller_valuations(ta, cex.parameters, fixed or {})
    outcome = None
    for params in [*smaller, cex.parameters]:
        if budget():
            break
        found, outcome = search_at(ta, query, question if finite else None, params, bound, max_states, budget)
        if found is not None:
            return replace(found, minimality=cex.minimality, parameters_minimal=cex.parameters_minimal,
                           explanation=cex.explanation)
    if stopped:
        note = f"schedule not shown shortest: {stopped[0]}"
    else:
        why = (outcome.reason if outcome is not None else None) or \
            "the breadth-first search found no run the simulator replays"
        note = f"schedule not shown shortest ({why})"
    minimality = "; ".join(x for x in (cex.minimality, note) if x)
    if finite:
        cut = cut_at_violation(ta, question, cex.parameters, cex.initial, cex.schedule)
        again = replay(ta, question, cex.parameters, cex.initial, cut)
        if again.ok:
            return replace(cex, schedule=cut, replay=again, minimality=minimality,
                           violating_step=len(cut))
    return replace(cex, minimality=minimality, violating_step=len(cex.schedule))


# How many valuations below the counterexample's are searched before its own: the smallest ones
# the resilience condition allows, where a violation usually already shows (a fault or a process
# more than the least rarely matters) and the state space is smallest.
SMALLER_TRIED = 3


def smaller_valuations(ta: ThresholdAutomaton, params: dict[str, int], fixed: dict[str, int]) -> list[dict[str, int]]:
    """Up to :data:`SMALLER_TRIED` valuations that satisfy the resilience condition, keep the
    ``fixed`` parameters, and are lexicographically smaller than ``params`` (declared order),
    smallest first."""
    order = list(ta.parameters)
    given = tuple(params[p] for p in order)
    out: list[dict[str, int]] = []
    for valuation in valuations(ta, fixed, max(given, default=0)):
        if tuple(valuation[p] for p in order) >= given or len(out) == SMALLER_TRIED:
            break
        out.append(valuation)
    return out


def valuations(ta: ThresholdAutomaton, fixed: dict[str, int], bound: int) -> Iterator[dict[str, int]]:
    """The explicit engine's parameter valuations up to ``bound``, smallest first
    (``explicit.iter_parameter_instances``); none where the resilience condition names more than
    the parameters (a synthesis sketch's holes)."""
    try:
        yield from explicit.iter_parameter_instances(ta, fixed, bound)
    except EvaluationError:
        return


def search_at(ta: ThresholdAutomaton, query: TemporalQuery, question, params: dict[str, int], bound: int,
              max_states: int, stop: Callable[[], str | None] | None = None) -> tuple[Counterexample | None, object]:
    """The explicit engine's breadth-first search at ``params`` — for ``question``'s bad
    configuration (a finite run) or, with ``question`` None, for a lasso violating ``query`` —
    and the violation it finds as a counterexample the simulator has replayed (shortest for
    ``params``, its violating step marked), else None; with the search's outcome either way."""
    finite = question is not None
    outcome = (explicit.search_one_valuation(ta, question, params, bound, max_states, stop) if finite
               else explicit_ltl.search_one_valuation(ta, query, params, bound, max_states, stop))
    if outcome.verdict != VIOLATED or outcome.path is None or outcome.initial is None:
        return None, outcome
    loop = getattr(outcome, "loop", None)  # explicit_ltl's outcomes carry the lasso's loop
    cycle = getattr(outcome, "cycle", None)  # or, on a cycle through several locations, its steps
    cycle_steps = explicit.batches(ta, cycle) if cycle else None
    initial = explicit.initial_of(ta, outcome.initial)
    schedule = explicit.batches(ta, outcome.path)
    again = (replay(ta, question, params, initial, schedule) if finite
             else replay_query(ta, query, params, initial, schedule, loop, cycle_steps))
    if not again.ok:
        return None, outcome
    return Counterexample(dict(params), initial, schedule, again, loop=loop, cycle=cycle_steps,
                          schedule_shortest=True, violating_step=len(schedule)), outcome


def cut_at_violation(ta: ThresholdAutomaton, question, params: dict[str, int],
                     initial: Configuration, schedule: list[Step]) -> list[Step]:
    """``schedule`` up to its first configuration that violates ``question``; a batch is cut at
    its first firing that reaches one (checked where a comparison of the bad condition may change
    along the batch, ``simulate.samples_inside_batch``). Unchanged when no earlier configuration
    violates."""
    comparisons = Comparisons.of(n for n in walk(question.bad) if isinstance(n, Compare))

    def bad(c: Configuration) -> bool:
        return holds(question.bad, c.env(params))

    current = initial
    out: list[Step] = []
    if bad(current):
        return out
    for number, step in enumerate(schedule, 1):
        rule = ta.rules[step.rule]
        if not rule.is_self_loop:
            before = dict(current.counters)[rule.source]
            for inside in samples_inside_batch(ta, params, current, step.rule, step.factor, comparisons):
                if bad(inside):
                    return [*out, Step(step.rule, before - dict(inside.counters)[rule.source])]
        current = fire_many(ta, params, current, step.rule, step.factor, number)
        out.append(step)
        if bad(current):
            return out
    return out
