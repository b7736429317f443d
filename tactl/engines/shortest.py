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

from collections.abc import Callable
from dataclasses import replace

from tactl.engines import explicit, explicit_ltl
from tactl.engines.result import VIOLATED, Counterexample
from tactl.engines.simulate import (Comparisons, Configuration, Step, fire_many, replay, replay_query,
                                    samples_inside_batch)
from tactl.ir.eltl.formula import TemporalQuery, reach_question
from tactl.ir.evaluate import holds
from tactl.ir.expr import Compare, walk
from tactl.ir.ta.model import ThresholdAutomaton

# States the breadth-first search may visit, so that shortening a counterexample never costs more
# than finding it; beyond, the engine's own run is kept ("not shown shortest").
MAX_STATES = 100_000


def shortest(ta: ThresholdAutomaton, query: TemporalQuery, cex: Counterexample,
             max_states: int = MAX_STATES, stop: Callable[[], str | None] | None = None) -> Counterexample:
    """``cex`` with a shortest schedule for its parameters, and its violating step set;
    ``stop()``, asked before and during the search, says why to give up (the property's
    minimisation budget, ``tactl.engines.budget``), else None."""
    params = cex.parameters
    start = [*dict(cex.initial.counters).values(), *dict(cex.initial.shared).values()]
    bound = max([explicit.DEFAULT_BOUND, *start])  # caps unbounded initial values only
    question = reach_question(query)
    finite = question is not None and cex.loop is None and cex.cycle is None
    stopped: list[str] = []  # why the budget stopped the search, if it did

    def budget() -> str | None:
        why = stop() if stop is not None else None
        stopped.extend([why] if why else [])
        return why

    outcome = None
    if not budget():
        outcome = (explicit.search_one_valuation(ta, question, params, bound, max_states, budget) if finite
                   else explicit_ltl.search_one_valuation(ta, query, params, bound, max_states, budget))
    if outcome is not None and outcome.verdict == VIOLATED and outcome.path is not None \
            and outcome.initial is not None:
        loop = getattr(outcome, "loop", None)  # explicit_ltl's outcomes carry the lasso's loop
        cycle = getattr(outcome, "cycle", None)  # or, on a cycle through several locations, its steps
        initial = explicit.initial_of(ta, outcome.initial)
        schedule = explicit.batches(ta, outcome.path)
        if finite:
            again = replay(ta, question, params, initial, schedule)
        else:
            again = replay_query(ta, query, params, initial, schedule, loop,
                                 explicit.batches(ta, cycle) if cycle else None)
        if again.ok:
            return replace(cex, initial=initial, schedule=schedule, replay=again, loop=loop,
                           cycle=explicit.batches(ta, cycle) if cycle else None,
                           schedule_shortest=True, violating_step=len(schedule))
    if stopped:
        note = f"schedule not shown shortest: {stopped[0]}"
    else:
        why = (outcome.reason if outcome is not None else None) or \
            "the breadth-first search found no run the simulator replays"
        note = f"schedule not shown shortest ({why})"
    minimality = "; ".join(x for x in (cex.minimality, note) if x)
    if finite:
        cut = cut_at_violation(ta, question, params, cex.initial, cex.schedule)
        again = replay(ta, question, params, cex.initial, cut)
        if again.ok:
            return replace(cex, schedule=cut, replay=again, minimality=minimality,
                           violating_step=len(cut))
    return replace(cex, minimality=minimality, violating_step=len(cex.schedule))


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
