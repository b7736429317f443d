"""The parameterized engine: one steady-segment SMT query per safety property, answered by z3.

``unsat`` means the property holds for every parameter valuation satisfying the resilience
condition. ``sat`` gives a model; the engine first asks for one with small parameters (easier to
read, and within reach of the explicit oracle), turns its firing counts into a schedule and
replays it with ``tactl.simulate``. Only a replayed counterexample makes the verdict
``violated``; a timeout, a solver ``unknown`` or a failed replay makes it ``unknown``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tactl import deadline
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED, Counterexample, PropertyResult
from tactl.ir.safety import ReachQuery
from tactl.ir.ta import ThresholdAutomaton
from tactl.passes.emit_smtlib import emit_smtlib, smt_name
from tactl.passes.encode_steady import SteadyLayout, encode
from tactl.schedule import order_steady
from tactl.simulate import Configuration, Step, replay

ENGINE = "parametric"
SMALL_PARAMETER_SUMS = (8, 24)  # tried in turn after a first sat answer
# Eliminating the flow equations' definitions before search roughly halves z3's time on the
# larger ISOLA'18 automata compared with z3's default solver (c1cs: 0.67 -> 0.37 s per property;
# measured in the issue-3 note); the answers are identical on every benchmark and test automaton.
PIPELINE = ("simplify", "propagate-values", "solve-eqs", "smt")


def check(ta: ThresholdAutomaton, question: ReachQuery,
          progress: Callable[[str], None] | None = None,
          parameters: dict[str, int] | None = None) -> PropertyResult:
    """The verdict on ``question``; solver calls get the time left before the command's
    deadline (``tactl.deadline``), which also interrupts the Python parts of the work."""
    import z3

    start = time.perf_counter()
    encoding = encode(ta, question, parameters=parameters)
    text = emit_smtlib(encoding.query)
    solver = z3.Then(*PIPELINE).solver()
    solver.from_string(text)
    queries = 0

    def ask(*extra: z3.BoolRef) -> z3.CheckSatResult:
        nonlocal queries
        queries += 1
        timeout_ms = deadline.solver_timeout_ms()
        if timeout_ms is not None:
            solver.set("timeout", timeout_ms)
        return solver.check(*extra)

    def result(verdict: str, **kw: object) -> PropertyResult:
        return PropertyResult(question.property, "safety", verdict, ENGINE,
                              time.perf_counter() - start, queries, **kw)  # type: ignore[arg-type]

    answer = ask()
    if answer == z3.unsat:
        return result(HOLDS, scope=_scope(ta, parameters), details=_size(encoding))
    if answer != z3.sat:
        why = solver.reason_unknown()
        return result(UNKNOWN, reason=f"z3 gave no answer ({why})" if why else "z3 gave no answer")
    model = solver.model()
    small = [*ta.parameters, *(encoding.layout.shared(0, v) for v in ta.shared)]
    if small:  # small parameters and initial shared values: readable, and in the oracle's reach
        total = z3.Sum([z3.Int(smt_name(p)) for p in small])
        for bound in SMALL_PARAMETER_SUMS:
            if progress:
                progress(f"{question.property}: violated; looking for small parameters (sum <= {bound})")
            if ask(total <= bound) == z3.sat:
                model = solver.model()
                break
    counterexample = _counterexample(encoding.layout, question, model)
    if counterexample is None or not counterexample.replayed:
        why = counterexample.replay.message if counterexample else "no executable order of the firings"
        return result(UNKNOWN, reason="the solver reported a violation that the simulator could not "
                      f"replay ({why}); this is a tactl bug, please report it",
                      counterexample=counterexample)
    return result(VIOLATED, counterexample=counterexample, details=_size(encoding))


def _scope(ta: ThresholdAutomaton, parameters: dict[str, int] | None) -> str:
    if parameters:
        fixed = ", ".join(f"{p}={v}" for p, v in parameters.items())
        return f"all parameter values with {fixed} satisfying the resilience condition"
    return "all parameter values satisfying the resilience condition"


def _size(encoding) -> dict[str, object]:
    constants, assertions = encoding.query.size()
    return {"segments": encoding.layout.segments, "smt_constants": constants,
            "smt_assertions": assertions}


def _counterexample(layout: SteadyLayout, question: ReachQuery, model) -> Counterexample | None:
    import z3

    ta = layout.ta

    def value(name: str) -> int:
        return model.eval(z3.Int(smt_name(name)), model_completion=True).as_long()

    params = {p: value(p) for p in ta.parameters}
    counters = {loc.name: value(layout.counter(0, loc.name)) for loc in ta.locations}
    shared = {v: value(layout.shared(0, v)) for v in ta.shared}
    initial = Configuration.of(counters, shared)
    schedule: list[Step] = []
    kappa = dict(counters)
    for j in range(layout.segments):
        counts = {i: value(layout.fired(j, i)) for i in layout.abstraction.active}
        steps = order_steady(ta, kappa, counts)
        if steps is None:
            return None
        for s in steps:
            rule = ta.rules[s.rule]
            kappa[rule.source] -= s.factor
            kappa[rule.target] += s.factor
        schedule.extend(steps)
        if j + 1 < layout.segments:
            for i in layout.abstraction.active:
                if value(layout.boundary(j, i)) == 1:
                    rule = ta.rules[i]
                    kappa[rule.source] -= 1
                    kappa[rule.target] += 1
                    schedule.append(Step(i, 1))
    schedule = _merge(schedule)
    return Counterexample(params, initial, schedule, replay(ta, question, params, initial, schedule))


def _merge(schedule: list[Step]) -> list[Step]:
    merged: list[Step] = []
    for s in schedule:
        if merged and merged[-1].rule == s.rule:
            merged[-1] = Step(s.rule, merged[-1].factor + s.factor)
        else:
            merged.append(s)
    return merged
