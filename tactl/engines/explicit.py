"""The explicit-state oracle: breadth-first search of the counter system for fixed parameters.

Not a proof for all n — a bounded sanity check and the independent reference the parameterized
engine is tested against. For every parameter valuation within the bound that satisfies the
resilience condition it enumerates all initial configurations (z3 lists the solutions of the
``inits`` constraints) and explores every configuration reachable by single-process steps. Guards
and updates are compiled to Python closures over the state tuple, a code path shared with neither
the SMT encoding nor the simulator; a violation found here is still replayed by the simulator.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tactl.engines.result import (EXPLICIT_DEFAULT_BOUND, EXPLICIT_DEFAULT_MAX_STATES, EXPLICIT_ENGINE, HOLDS,
                                  UNKNOWN, VIOLATED, Counterexample, PropertyResult)
from tactl.engines.simulate import Configuration, Step, replay
from tactl.ir.evaluate import holds
from tactl.ir.expr import (
    And,
    BoolConst,
    Compare,
    Div,
    Expr,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    Or,
    Sum,
    names,
)
from tactl.ir.linear import to_z3
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.ta.model import ThresholdAutomaton

ENGINE = EXPLICIT_ENGINE
DEFAULT_BOUND = EXPLICIT_DEFAULT_BOUND
DEFAULT_MAX_STATES = EXPLICIT_DEFAULT_MAX_STATES
# z3 lists initial configurations one model at a time, each query with one more blocking clause:
# quadratic, so the list is kept short; beyond it the instance is unknown.
MAX_INITIAL = 1_000
UNBOUNDED = 10**6  # an initial value above this counts as unbounded

State = tuple[int, ...]


def parameter_instances(ta: ThresholdAutomaton, fixed: dict[str, int], bound: int) -> list[dict[str, int]]:
    """Every valuation with each free parameter in ``0..bound`` that satisfies the RC, in the
    lexicographic order of the declared parameters (``fixed`` names parameters of ``ta``;
    ``tactl.engines.check.validate_selection`` tells the user otherwise)."""
    return list(iter_parameter_instances(ta, fixed, bound))


def iter_parameter_instances(ta: ThresholdAutomaton, fixed: dict[str, int], bound: int) -> Iterator[dict[str, int]]:
    """:func:`parameter_instances` one at a time, for a caller that wants only the first few
    (``tactl.engines.shortest``). Each conjunct of the RC is evaluated as soon as the parameters
    it names have values, so that a prefix violating it is not extended: phase king's 7
    parameters at bound 7 are 2 million valuations, of which 45 satisfy its RC."""
    params = list(ta.parameters)
    position = {p: i for i, p in enumerate(params)}
    checks: list[list[Expr]] = [[] for _ in params] or [[]]
    for a in (ta.expand(a) for a in ta.assumptions):
        checks[max((position[n.name] for n in names(a) if n.name in position), default=len(checks) - 1)].append(a)
    if not params:
        if all(holds(a, {}) for a in checks[0]):
            yield {}
        return
    values: dict[str, int] = {}

    def extend(i: int) -> Iterator[dict[str, int]]:
        if i == len(params):
            yield dict(values)
            return
        p = params[i]
        for v in ([fixed[p]] if p in fixed else range(bound + 1)):
            values[p] = v
            if all(holds(a, values) for a in checks[i]):
                yield from extend(i + 1)
        del values[p]

    yield from extend(0)


@dataclass
class _Outcome:
    verdict: str
    states: int
    initials: int = 0
    path: list[int] | None = None
    initial: State | None = None
    reason: str | None = None
    limited: tuple[str, ...] = ()


def check(ta: ThresholdAutomaton, question: ReachQuery, fixed: dict[str, int], bound: int = DEFAULT_BOUND,
          max_states: int = DEFAULT_MAX_STATES,
          progress: Callable[[str], None] | None = None) -> PropertyResult:
    """Explore every instance; the command's deadline (``tactl.util.deadline``) interrupts the search.

    "holds" needs at least one initial configuration explored: a run that covered none (every
    initial configuration excluded by the cap of unbounded initial values at ``bound``, say) is
    unknown, as is any instance whose exploration was cut short."""
    start = time.perf_counter()

    def result(verdict: str, **kw: object) -> PropertyResult:
        return PropertyResult(question.property, "safety", verdict, ENGINE,
                              time.perf_counter() - start, 0, **kw)  # type: ignore[arg-type]

    def confirm(params: dict[str, int], init: Configuration, schedule: list[Step], outcome) -> Counterexample:
        return Counterexample(params, init, schedule, replay(ta, question, params, init, schedule))

    return explore_instances(
        ta, question.property, fixed, bound, max_states, progress, result,
        lambda params, budget: search_one_valuation(ta, question, params, bound, budget), confirm)


def explore_instances(ta: ThresholdAutomaton, name: str, fixed: dict[str, int], bound: int,
                      max_states: int, progress: Callable[[str], None] | None,
                      result: Callable[..., PropertyResult],
                      search: Callable[[dict[str, int], int], _Outcome],
                      confirm: Callable[..., Counterexample]) -> PropertyResult:
    """Run ``search(params, state_budget)`` on every parameter instance up to ``bound`` and turn
    the outcomes into one verdict with its honest scope (shared by every explicit engine):
    a violation only once ``confirm`` (the simulator) has replayed it; "holds" only when every
    instance was explored completely and at least one initial configuration was."""
    instances = parameter_instances(ta, fixed, bound)
    total_states = 0
    if not instances:
        return result(UNKNOWN, reason=f"no parameter values up to {bound} satisfy the resilience "
                      "condition (and --param); nothing was checked",
                      details={"states": 0, "instances": 0})
    incomplete: list[str] = []
    limited_vars: set[str] = set()
    initial_total = 0
    for n, params in enumerate(instances, 1):
        if total_states >= max_states:
            incomplete.append(f"{len(instances) - n + 1} more parameter valuation(s) not explored: "
                              f"the state limit {max_states} (--max-states) was reached")
            break
        label = ", ".join(f"{p}={v}" for p, v in params.items())
        if progress and len(instances) > 1:
            progress(f"{name}: instance {n}/{len(instances)} ({label})")
        outcome = search(params, max_states - total_states)
        limited_vars.update(outcome.limited)
        total_states += outcome.states
        initial_total += outcome.initials
        if outcome.verdict == VIOLATED:
            assert outcome.path is not None and outcome.initial is not None
            init = initial_of(ta, outcome.initial)
            cex = confirm(params, init, batches(ta, outcome.path), outcome)
            details = {"states": total_states, "instances": n}
            if not cex.replayed:
                return result(UNKNOWN, counterexample=cex, details=details,
                              reason="the explicit search found a violation the simulator could "
                              f"not replay ({cex.replay.message}); this is a tactl bug, please "
                              "report it")
            return result(VIOLATED, counterexample=cex, details=details)
        if outcome.verdict == UNKNOWN:
            incomplete.append(f"{label}: {outcome.reason}")
    checked = len(instances) - len(incomplete)
    if initial_total == 0 and not incomplete:
        capped = (f"; the initial values of {', '.join(sorted(limited_vars))}, which the inits leave "
                  f"unbounded, were capped at --bound {bound}") if limited_vars else ""
        return result(UNKNOWN, reason="nothing was checked: no initial configuration was explored "
                      f"in any of the {len(instances)} parameter valuation(s){capped}",
                      details={"states": 0, "instances": len(instances)})
    if incomplete:
        return result(UNKNOWN, reason="not explored completely: " + "; ".join(incomplete[:3])
                      + ("…" if len(incomplete) > 3 else ""),
                      details={"states": total_states, "instances": checked})
    fixed_text = ", ".join(f"{p}={v}" for p, v in fixed.items())
    scope = (f"only the {checked} parameter valuation(s) with " + (fixed_text + " and " if fixed_text else "")
             + f"every parameter <= {bound} satisfying the resilience condition"
             + (f", initial values of {', '.join(sorted(limited_vars))} (unbounded by the inits) <= {bound}"
                if limited_vars else "") + " (not a proof for all n)")
    return result(HOLDS, scope=scope, details={"states": total_states, "instances": checked})


def batches(ta: ThresholdAutomaton, path: list[int]) -> list[Step]:
    """Repeated firings of a rule become one accelerated step, except for rules whose updates
    are not increments (the simulator replays those one firing at a time)."""
    schedule: list[Step] = []
    for rule in path:
        if schedule and schedule[-1].rule == rule and ta.increments(ta.rules[rule]) is not None:
            schedule[-1] = Step(rule, schedule[-1].factor + 1)
        else:
            schedule.append(Step(rule, 1))
    return schedule


def initial_of(ta: ThresholdAutomaton, state: State) -> Configuration:
    """The configuration a state tuple stands for."""
    names = [loc.name for loc in ta.locations]
    return Configuration.of(dict(zip(names, state[:len(names)])), dict(zip(ta.shared, state[len(names):])))


def search_one_valuation(ta: ThresholdAutomaton, question: ReachQuery, params: dict[str, int],
                         bound: int, max_states: int, stop: Callable[[], str | None] | None = None) -> _Outcome:
    """Breadth-first search for a bad configuration at one parameter valuation: the run it
    finds has the fewest single-process steps, which is why ``tactl.engines.shortest`` uses it
    to shorten a counterexample (``stop()``, asked at every state: why to give up, else None)."""
    index = state_index(ta)
    bad = compile_expression(question.bad, index, params)
    moves = compile_moves(ta, index, params)
    interrupt = Interrupt(stop)
    initials, complete, limited = initial_states(ta, question, params, index, bound, max_states, interrupt)
    if not complete:
        return _Outcome(UNKNOWN, len(initials), reason=interrupt.why or f"more than "
                        f"{min(MAX_INITIAL, max_states)} initial configurations")
    if not initials and limited:  # the cap at --bound, not the inits, may have emptied the set
        return _Outcome(UNKNOWN, 0, reason=f"no initial configuration with {', '.join(limited)} "
                        f"capped at --bound {bound} (the inits allow larger values)",
                        limited=tuple(limited))
    parent: dict[State, tuple[State, int] | None] = {}
    queue: deque[State] = deque()
    for s in initials:
        if s not in parent:
            parent[s] = None
            queue.append(s)
    found: State | None = next((s for s in parent if bad(s)), None)
    while queue and found is None:
        if len(parent) > max_states:
            return _Outcome(UNKNOWN, len(parent), reason="the state limit (--max-states) was reached")
        if interrupt():
            return _Outcome(UNKNOWN, len(parent), reason=interrupt.why or "")
        s = queue.popleft()
        for i, t in successors(s, moves):
            if t in parent:
                continue
            parent[t] = (s, i)
            if bad(t):
                found = t
                break
            queue.append(t)
    if found is None:
        return _Outcome(HOLDS, len(parent), len(initials), limited=tuple(limited))
    path: list[int] = []
    node = found
    while parent[node] is not None:
        node, rule = parent[node]  # type: ignore[misc]
        path.append(rule)
    return _Outcome(VIOLATED, len(parent), len(initials), list(reversed(path)), node, limited=tuple(limited))


@dataclass
class Interrupt:
    """A search's budget (``tactl.engines.budget``): ``ask()`` says why to give up, else None;
    the first reason is kept (``why``) for the outcome."""

    ask: Callable[[], str | None] | None
    why: str | None = None

    def __call__(self) -> bool:
        if self.why is None and self.ask is not None:
            self.why = self.ask()
        return self.why is not None


def state_index(ta: ThresholdAutomaton) -> dict[str, int]:
    """Slot of every location counter and shared variable in a state tuple."""
    index = {loc.name: i for i, loc in enumerate(ta.locations)}
    index.update({v: len(ta.locations) + i for i, v in enumerate(ta.shared)})
    return index


def compile_moves(ta: ThresholdAutomaton, index: dict[str, int], params: dict[str, int]) -> list:
    """Per rule: (index, source slot, target slot, compiled guard, compiled updates)."""
    moves = []
    for i, rule in enumerate(ta.rules):
        guard = compile_expression(ta.expand(rule.guard), index, params)
        updates = [(index[u.var], compile_expression(ta.expand(u.expr), index, params))
                   for u in rule.updates if not u.is_identity]
        moves.append((i, index[rule.source], index[rule.target], guard, updates))
    return moves


def successors(s: State, moves) -> Iterator[tuple[int, State]]:
    """(rule index, next state) for every single-process step enabled in ``s``; ``moves`` are
    (index, source slot, target slot, compiled guard, compiled updates) per rule."""
    for i, src, dst, guard, updates in moves:
        if s[src] < 1 or not guard(s):
            continue
        nxt = list(s)
        for var, expr in updates:
            nxt[var] = expr(s)
        nxt[src] -= 1
        nxt[dst] += 1
        yield i, tuple(nxt)


def initial_states(ta: ThresholdAutomaton, question: ReachQuery, params: dict[str, int],
                   index: dict[str, int], bound: int, max_states: int = DEFAULT_MAX_STATES,
                   stopped: Callable[[], bool] | None = None) -> tuple[list[State], bool, list[str]]:
    """All initial configurations for ``params`` (z3 enumerates the solutions), whether the list
    is complete (not when ``stopped()`` says to stop first), and the variables whose initial value the
    constraints leave unbounded — those are limited to ``0..bound`` (and the verdict's scope says
    so)."""
    import z3  # lazy: importing z3 slows every start; loaded when a solver question is asked

    table = {name: z3.Int(name) for name in index}
    table.update({p: z3.IntVal(v) for p, v in params.items()})
    solver = z3.Solver()
    for e in (*ta.inits, question.initial):
        solver.add(to_z3(ta.expand(e), table.__getitem__))
    ordered = sorted(index, key=index.__getitem__)
    variables = [table[name] for name in ordered]
    for v in variables:
        solver.add(v >= 0)
    limited = [name for name, v in zip(ordered, variables)
               if solver.check(v > UNBOUNDED) == z3.sat]
    for name in limited:
        solver.add(table[name] <= bound)
    states: list[State] = []
    while solver.check() == z3.sat:
        if len(states) >= min(MAX_INITIAL, max_states) or (stopped is not None and stopped()):
            return states, False, limited
        m = solver.model()
        values = tuple(m.eval(v, model_completion=True).as_long() for v in variables)
        states.append(values)
        solver.add(z3.Or([v != val for v, val in zip(variables, values)]))
    return states, True, limited


def compile_expression(e: Expr, index: dict[str, int],
                       params: dict[str, int]) -> Callable[[State], int | bool]:
    """A closure evaluating ``e`` on a state tuple (parameters are constants)."""
    source = _py(e, index, params)
    return eval(f"lambda s: {source}", {})  # noqa: S307 - built from our own tree, names are indices


def _py(e: Expr, index: dict[str, int], params: dict[str, int]) -> str:
    if isinstance(e, IntConst):
        return str(e.value)
    if isinstance(e, Name):
        if e.name in index:
            return f"s[{index[e.name]}]"
        if e.name in params:
            return str(params[e.name])
        raise ValueError(f"no value for '{e.name}'")
    if isinstance(e, Neg):
        return f"(-{_py(e.arg, index, params)})"
    if isinstance(e, Sum):
        return "(" + " ".join(("+" if s > 0 else "-") + " " + _py(a, index, params)
                              for s, a in e.signed()) + ")"
    if isinstance(e, Mul):
        return f"({_py(e.left, index, params)} * {_py(e.right, index, params)})"
    if isinstance(e, BoolConst):
        return str(e.value)
    if isinstance(e, Compare):
        return f"({_py(e.left, index, params)} {e.op} {_py(e.right, index, params)})"
    if isinstance(e, Not):
        return f"(not {_py(e.arg, index, params)})"
    if isinstance(e, (And, Or)):
        op = " and " if isinstance(e, And) else " or "
        return "(" + op.join(_py(a, index, params) for a in e.args) + ")"
    if isinstance(e, Implies):
        return f"((not {_py(e.left, index, params)}) or {_py(e.right, index, params)})"
    if isinstance(e, Div):  # floor division by a positive constant (ir.expr.Div), as Python's //
        return f"({_py(e.left, index, params)} // {_py(e.right, index, params)})"
    raise ValueError(f"not a state formula: {e!r}")
