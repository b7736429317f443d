"""An independent simulator of the counter system, used to confirm every counterexample.

It knows nothing of the SMT encoding or the explicit search: it takes parameter values, an
initial configuration and a schedule of (rule, factor) steps and executes the schedule one
process at a time, evaluating the automaton's own guard and update expressions (``ir.evaluate``)
in every intermediate configuration. An accelerated step of factor δ is δ single steps, each of
which must be enabled — the strictest reading, so a replayed schedule is a real run under any of
the usual semantics. A counterexample is reported ``violated`` only if its replay succeeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.evaluate import EvaluationError, evaluate, holds
from tactl.ir.safety import ReachQuery
from tactl.ir.ta import ThresholdAutomaton


@dataclass(frozen=True)
class Configuration:
    """Location counters and shared-variable values (parameters are fixed for a whole run)."""

    counters: tuple[tuple[str, int], ...]
    shared: tuple[tuple[str, int], ...]

    @staticmethod
    def of(counters: dict[str, int], shared: dict[str, int]) -> Configuration:
        return Configuration(tuple(counters.items()), tuple(shared.items()))

    def env(self, parameters: dict[str, int]) -> dict[str, int]:
        return {**parameters, **dict(self.shared), **dict(self.counters)}


@dataclass(frozen=True)
class Step:
    """Move ``factor`` processes along rule ``rule`` (an index into ``ta.rules``)."""

    rule: int
    factor: int


@dataclass
class Replay:
    ok: bool
    message: str
    configurations: list[Configuration] = field(default_factory=list)  # initial, then after each step


class ReplayFailure(Exception):
    pass


def replay(ta: ThresholdAutomaton, question: ReachQuery, parameters: dict[str, int],
           initial: Configuration, schedule: list[Step]) -> Replay:
    """Execute ``schedule`` and check it ends in a configuration violating the property."""
    configs = [initial]
    try:
        _check_start(ta, question, parameters, initial)
        current = initial
        for n, step in enumerate(schedule, 1):
            if not 0 <= step.rule < len(ta.rules) or step.factor < 1:
                raise ReplayFailure(f"step {n}: no rule #{step.rule} or factor {step.factor} < 1")
            for _ in range(step.factor):
                current = _fire(ta, parameters, current, step.rule, n)
            configs.append(current)
        if not holds(question.bad, current.env(parameters)):
            raise ReplayFailure("the last configuration does not violate the property")
    except ReplayFailure as e:
        return Replay(False, str(e), configs)
    except EvaluationError as e:
        return Replay(False, f"cannot evaluate: {e}", configs)
    return Replay(True, "the schedule reaches a configuration that violates the property", configs)


def _check_start(ta: ThresholdAutomaton, question: ReachQuery, parameters: dict[str, int],
                 initial: Configuration) -> None:
    missing = [p for p in ta.parameters if p not in parameters]
    if missing:
        raise ReplayFailure("no value for parameter(s) " + ", ".join(missing))
    negative = [k for k, v in (*parameters.items(), *initial.counters, *initial.shared) if v < 0]
    if negative:
        raise ReplayFailure("negative value for " + ", ".join(negative))
    if {k for k, _ in initial.counters} != {loc.name for loc in ta.locations} or \
            {k for k, _ in initial.shared} != set(ta.shared):
        raise ReplayFailure("the initial configuration does not list every location and shared variable")
    for a in ta.assumptions:
        if not holds(ta.expand(a), parameters):
            raise ReplayFailure("the parameters violate the resilience condition")
    env = initial.env(parameters)
    for e in ta.inits:
        if not holds(ta.expand(e), env):
            raise ReplayFailure("the initial configuration violates the initial constraints")
    if not holds(question.initial, env):
        raise ReplayFailure("the initial configuration violates the property's antecedent")


def _fire(ta: ThresholdAutomaton, parameters: dict[str, int], config: Configuration,
          index: int, n: int) -> Configuration:
    rule = ta.rules[index]
    counters, shared = dict(config.counters), dict(config.shared)
    if counters[rule.source] < 1:
        raise ReplayFailure(f"step {n}: rule {rule.id} needs a process in {rule.source}, which is empty")
    env = {**parameters, **shared}
    if not holds(ta.expand(rule.guard), env):
        raise ReplayFailure(f"step {n}: the guard of rule {rule.id} is false")
    updated = {u.var: evaluate(ta.expand(u.expr), env) for u in rule.updates}
    shared.update(updated)
    counters[rule.source] -= 1
    counters[rule.target] += 1
    return Configuration.of(counters, shared)
