"""Liveness of automata with cycles through several locations, for every parameter valuation.

Why it is decidable and what the query asks: ``ir/eltl/cycles.py`` (the argument (a)–(c)) and
``passes/ta_to_smt/cycle_loop.py`` (the query). One query per branch of the negation:

* **unsat** for every branch: no lasso violates the property — HOLDS for all parameters;
* **sat**: the model's prefix and loop are built into a lasso (``schedule_of`` for the prefix,
  ``order_steady`` for each piece of the loop) and replayed by the simulator; a lasso that
  replays is VIOLATED. The query over-approximates (occupied sets are checked at some loop
  configurations only), so a model may have no lasso: then the explicit fair-lasso search
  (``tactl/engines/explicit_ltl.py``) runs at the model's parameters and a few neighbours, and
  a lasso it finds, replayed, is VIOLATED. Otherwise the verdict is UNKNOWN with the reason —
  never HOLDS.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from itertools import product

from tactl.engines import explicit, explicit_ltl
from tactl.engines.parametric import (branch_obligations, query_size, schedule_of, solve, temporal_result,
                                     verdict_scope)
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, Obligation, PropertyResult
from tactl.engines.schedule import order_steady
from tactl.engines.simulate import Step, replay_query
from tactl.ir.eltl.cycles import cycle_reason, cycle_structure
from tactl.ir.eltl.formula import TemporalQuery
from tactl.ir.evaluate import holds
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.emit.smtlib import smt_name
from tactl.passes.ta_to_smt.cycle_loop import cyclic_branches, encode_cyclic, loop_fired, witness_config, witness_fired, witness_rest, witnesses
from tactl.passes.ta_to_smt.guard_abstraction import UnsupportedAutomaton
from tactl.passes.ta_to_smt.steady import SteadyEncoding

# The explicit search after a model that does not replay: parameter valuations tried (the
# model's first, then its neighbours) and product states per valuation. It only ever turns an
# UNKNOWN into a replayed VIOLATED, so a small budget costs no soundness.
CONCRETE_VALUATIONS = 9
CONCRETE_STATES = 200_000


def check_temporal(ta: ThresholdAutomaton, query: TemporalQuery,
                   progress: Callable[[str], None] | None = None,
                   parameters: dict[str, int] | None = None, *, readable: bool = True) -> PropertyResult:
    """The verdict on a liveness property of ``ta`` (module docstring)."""
    start = time.perf_counter()
    queries = 0
    sizes: list[dict[str, object]] = []
    obligations: list[Obligation] = []  # the unsat loop query of every branch (what --certify re-asks)

    def result(verdict: str, **kw: object) -> PropertyResult:
        return temporal_result(query, verdict, time.perf_counter() - start, queries, sizes,
                               extra={"loop": "several configurations"}, **kw)

    why = cycle_reason(ta)
    if why:
        return result(UNSUPPORTED, reason=why)
    branches = cyclic_branches(ta, query)
    for number, branch in enumerate(branches, 1):
        if progress and len(branches) > 1:
            progress(f"{query.property}: branch {number}/{len(branches)} of the negation")
        one = replace(query, branches=(branch,))
        try:
            encoding = encode_cyclic(ta, one, branch, parameters=parameters)
        except UnsupportedAutomaton as e:
            return result(UNSUPPORTED, reason=str(e))
        sizes.append(query_size(encoding))
        solved = solve(ta, encoding, query.property, progress, readable, exact=False)
        queries += solved.queries
        if solved.answer == "unsat":
            obligations += branch_obligations(ta, query, branch, f"branch {number}, loop query", solved, parameters)
            continue
        if solved.answer != "sat":
            return result(UNKNOWN, reason=solved.why)
        found = lasso_of(encoding, one, solved.model)
        if found is not None and found.replayed:
            found.minimality = solved.not_minimal
            return result(VIOLATED, counterexample=found)
        model_params = found.parameters if found is not None else _parameters(ta, solved.model)
        if progress:
            progress(f"{query.property}: the loop query's model did not replay; searching lassos "
                     "explicitly at its parameters")
        concrete, tried = concretise(ta, one, model_params, parameters or {})
        if concrete is not None:
            concrete.minimality = "not shown minimal: found by the explicit search at the model's parameters"
            return result(VIOLATED, counterexample=concrete)
        why_not = found.replay.message if found is not None else "no executable order of its firings"
        return result(UNKNOWN, reason=(
            "the loop query (an over-approximation: occupied locations checked at some loop "
            f"configurations only) has a model at {_text(model_params)} whose run does not replay "
            f"({why_not}), and the explicit search found no violating lasso at {tried}; "
            "undecided"))
    return result(HOLDS, scope=verdict_scope(ta, parameters), obligations=obligations)


def _parameters(ta: ThresholdAutomaton, model) -> dict[str, int]:
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    return {p: model.eval(z3.Int(smt_name(p)), model_completion=True).as_long() for p in ta.parameters}


def _text(params: dict[str, int]) -> str:
    return ", ".join(f"{p}={v}" for p, v in params.items())


def lasso_of(encoding: SteadyEncoding, query: TemporalQuery, model) -> Counterexample | None:
    """The lasso a model of the loop query describes (``c1 →y_k→ w_k → c1`` for each witness, or
    ``c1 →z→ c1``), replayed; None when some piece has no executable order."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    layout = encoding.layout
    ta = layout.ta
    run = schedule_of(layout, model)
    if run is None:
        return None
    params, initial, schedule = run

    def value(name: str) -> int:
        return model.eval(z3.Int(smt_name(name)), model_completion=True).as_long()

    final = layout.final_config
    rules = cycle_structure(ta).loop_rules(ta)
    z = {i: value(loop_fired(i)) for i in rules}

    def counters(c: int) -> dict[str, int]:
        return {loc.name: value(layout.counter(c, loc.name)) for loc in ta.locations}

    branch = query.branches[0]
    pieces = []
    for k in witnesses(branch):
        pieces.append((counters(final), {i: value(witness_fired(k, i)) for i in rules}))
        pieces.append((counters(witness_config(final, k)), {i: value(witness_rest(k, i)) for i in rules}))
    if not pieces:
        pieces.append((counters(final), z))
    cycle: list[Step] = []
    for kappa, counts in pieces:
        moves = {i: c for i, c in counts.items() if c > 0 and not ta.rules[i].is_self_loop}
        steps = order_steady(ta, kappa, moves)
        if steps is None:
            return None
        cycle.extend(steps)
    loop = None
    if not cycle:
        loop = next((i for i, c in z.items() if c > 0), None)
    outcome = replay_query(ta, query, params, initial, schedule, loop, cycle or None)
    return Counterexample(params, initial, schedule, outcome, loop=loop, cycle=cycle or None)


def concretise(ta: ThresholdAutomaton, query: TemporalQuery, params: dict[str, int],
               fixed: dict[str, int]) -> tuple[Counterexample | None, str]:
    """A replayed violating lasso found by the explicit search at ``params`` or a neighbour
    (each parameter one more or one less, ``fixed`` kept, the resilience condition holding),
    and the valuations tried, in words."""
    tried: list[str] = []
    for values in _neighbours(ta, params, fixed):
        bound = max([explicit.DEFAULT_BOUND, *values.values()])
        outcome = explicit_ltl.search_one_valuation(ta, query, values, bound, CONCRETE_STATES)
        tried.append(_text(values) + ("" if outcome.verdict != UNKNOWN else f" ({outcome.reason})"))
        if outcome.verdict == VIOLATED and outcome.path is not None and outcome.initial is not None:
            init = explicit.initial_of(ta, outcome.initial)
            found = explicit_ltl.counterexample(ta, query, values, init, explicit.batches(ta, outcome.path),
                                                outcome)
            if found.replayed:
                return found, "; ".join(tried)
    return None, "; ".join(tried) if tried else "no parameter valuation (none near the model's satisfies the resilience condition)"


def _neighbours(ta: ThresholdAutomaton, params: dict[str, int], fixed: dict[str, int]) -> list[dict[str, int]]:
    names = list(ta.parameters)
    out: list[dict[str, int]] = []
    steps = (0, -1, 1) if len(names) <= 8 else (0,)  # 3^8 valuations to sort at most
    for deltas in sorted(product(steps, repeat=len(names)), key=lambda d: (sum(map(abs, d)), d)):
        values = {p: params[p] + d for p, d in zip(names, deltas)}
        if any(v < 0 for v in values.values()) or any(values[p] != v for p, v in fixed.items() if p in values):
            continue
        if not all(holds(ta.expand(a), values) for a in ta.assumptions):
            continue
        out.append(values)
        if len(out) == CONCRETE_VALUATIONS:
            break
    return out
