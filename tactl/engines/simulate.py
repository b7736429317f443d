"""An independent simulator of the counter system, used to confirm every counterexample.

It knows nothing of the SMT encoding or the explicit search: it takes parameter values, an
initial configuration and a schedule of (rule, factor) steps and executes the schedule one
process at a time, evaluating the automaton's own guard and update expressions (``ir.evaluate``)
in every intermediate configuration. An accelerated step of factor δ is δ single steps, each of
which must be enabled — the strictest reading, so a replayed schedule is a real run under any of
the usual semantics. A counterexample is reported ``violated`` only if its replay succeeds.

δ single steps are checked without taking them one by one (a counterexample with n = 10⁹ has
steps of factor 10⁹): when a rule only adds constants to shared variables, every comparison
``l ⋈ r`` of its (linear) guard is, after k of the δ steps, ``v(k) = v(0) + k·d`` — monotone in
k, so its truth changes at most around the root of ``v``. The guard is then constant between
consecutive change points of its comparisons, and evaluating it at step 0 and just after every
change point checks all δ steps exactly. Other rules are fired one step at a time.
"""

from __future__ import annotations

import heapq
from collections import ChainMap, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from tactl.ir.evaluate import EvaluationError, evaluate, holds
from tactl.ir.expr import Always, And, BoolConst, Compare, Eventually, Not, Or, is_temporal, names, to_text, walk
from tactl.ir.eltl.justice import FairReading, JusticePair, loop_reading
from tactl.ir.eltl.safety import ReachQuery
from tactl.engines.recorded_run import RecordedRun
from tactl.ir.ta.model import ThresholdAutomaton


@dataclass(frozen=True)
class Configuration:
    """Location counters and shared-variable values (parameters are fixed for a whole run).

    A configuration of a replayed run is *recorded* (:meth:`recorded`): a position of a
    :class:`~tactl.engines.recorded_run.RecordedRun`, whose ``counters`` and ``shared`` are built
    when first read — most never are, and a long run then costs what its steps changed, not its
    length times the automaton's size. It is equal to, hashes and prints as the ordinary one."""

    counters: tuple[tuple[str, int], ...]
    shared: tuple[tuple[str, int], ...]

    @staticmethod
    def of(counters: dict[str, int], shared: dict[str, int]) -> Configuration:
        return Configuration(tuple(counters.items()), tuple(shared.items()))

    @staticmethod
    def recorded(run: RecordedRun, position: int) -> Configuration:
        """The configuration at ``position`` of ``run``."""
        config = object.__new__(Configuration)
        object.__setattr__(config, "_recorded", (run, position))
        return config

    def __getattr__(self, name: str):
        # reached only while a recorded configuration's fields are not built yet (a field that
        # is set is found before this is asked)
        recorded = self.__dict__.get("_recorded")
        if recorded is None or name not in ("counters", "shared"):
            raise AttributeError(name)
        counters, shared = recorded[0].full(recorded[1])
        object.__setattr__(self, "counters", counters)
        object.__setattr__(self, "shared", shared)
        return counters if name == "counters" else shared

    def env(self, parameters: dict[str, int]) -> dict[str, int]:
        return {**parameters, **dict(self.shared), **dict(self.counters)}

    def values(self, parameters: Mapping[str, int]) -> Mapping[str, int]:
        """What :meth:`env` holds, without building it for a recorded configuration."""
        recorded = self.__dict__.get("_recorded")
        return recorded[0].view(recorded[1], parameters) if recorded else self.env(dict(parameters))

    def value(self, name: str) -> int:
        """The counter of location ``name``, or the value of shared variable ``name``."""
        recorded = self.__dict__.get("_recorded")
        if recorded:
            return recorded[0].value(name, recorded[1])
        return {**dict(self.shared), **dict(self.counters)}[name]


@dataclass(frozen=True)
class Step:
    """Move ``factor`` processes along rule ``rule`` (an index into ``ta.rules``)."""

    rule: int
    factor: int


@dataclass
class Replay:
    """Whether a run replays on the automaton as written, why not, and the configurations it passes."""
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
        run = RecordedRun(dict(initial.counters), dict(initial.shared))
        for n, step in enumerate(schedule, 1):
            if not 0 <= step.rule < len(ta.rules) or step.factor < 1:
                raise ReplayFailure(f"step {n}: no rule #{step.rule} or factor {step.factor} < 1")
            run.append(_batch(ta, parameters, run.now, run.shared_names, step.rule, step.factor, n))
            configs.append(Configuration.recorded(run, len(run) - 1))
        if not holds(question.bad, run.view(len(run) - 1, parameters)):
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
    return _updated(config, _fire_one(ta, parameters, _now(config), tuple(dict(config.shared)), index, n))


def fire_many(ta: ThresholdAutomaton, parameters: dict[str, int], config: Configuration,
              index: int, factor: int, n: int) -> Configuration:
    """``factor`` single steps of rule ``index``, each of which must be enabled."""
    return _updated(config, _batch(ta, parameters, _now(config), tuple(dict(config.shared)), index, factor, n))


def _now(config: Configuration) -> dict[str, int]:
    return {**dict(config.shared), **dict(config.counters)}


def _updated(config: Configuration, values: Mapping[str, int]) -> Configuration:
    """``config`` with the counters and shared variables of ``values`` set to theirs."""
    counters, shared = dict(config.counters), dict(config.shared)
    for name, v in values.items():
        if name in counters:
            counters[name] = v
        else:
            shared[name] = v
    return Configuration.of(counters, shared)


def _moved(rule, now: Mapping[str, int], factor: int) -> dict[str, int]:
    """The counters of ``rule``'s source and target after ``factor`` processes took it."""
    out = {rule.source: now[rule.source] - factor}
    out[rule.target] = out.get(rule.target, now[rule.target]) + factor
    return out


def _fire_one(ta: ThresholdAutomaton, parameters: dict[str, int], now: Mapping[str, int],
              shared: tuple[str, ...], index: int, n: int) -> dict[str, int]:
    """The values one firing of rule ``index`` changes from ``now`` (counters and the
    ``shared`` variables, one namespace)."""
    rule = ta.rules[index]
    if now[rule.source] < 1:
        raise ReplayFailure(f"step {n}: rule {rule.id} needs a process in {rule.source}, which is empty")
    env = {**parameters, **{v: now[v] for v in shared}}
    if not holds(ta.expand(rule.guard), env):
        raise ReplayFailure(f"step {n}: the guard of rule {rule.id} is false")
    updated = {u.var: evaluate(ta.expand(u.expr), env) for u in rule.updates}
    return {**updated, **_moved(rule, now, 1)}


def _batch(ta: ThresholdAutomaton, parameters: dict[str, int], now: Mapping[str, int],
           shared: tuple[str, ...], index: int, factor: int, n: int) -> dict[str, int]:
    """The values that ``factor`` single steps of rule ``index``, each of which must be enabled,
    change from ``now``."""
    rule = ta.rules[index]
    increments = ta.increments(rule)
    if increments is None or factor <= 2:
        changes: dict[str, int] = {}
        current = ChainMap(changes, now)
        for _ in range(factor):
            changes.update(_fire_one(ta, parameters, current, shared, index, n))
        return changes
    needed = 1 if rule.is_self_loop else factor
    if now[rule.source] < needed:
        raise ReplayFailure(f"step {n}: rule {rule.id} x{factor} needs {needed} process(es) in "
                            f"{rule.source}, which holds {now[rule.source]}")
    guard = ta.expand(rule.guard)
    values = {v: now[v] for v in shared}

    def env_after(k: int) -> dict[str, int]:
        return {**parameters, **{v: x + k * increments.get(v, 0) for v, x in values.items()}}

    for k in sorted(_change_points(guard, env_after, factor)):
        if not holds(guard, env_after(k)):
            raise ReplayFailure(f"step {n}: the guard of rule {rule.id} is false for its "
                                f"{k + 1}-th firing")
    after = env_after(factor)
    return {**{v: after[v] for v in shared}, **_moved(rule, now, factor)}


def _change_points(guard, env_after, factor: int) -> set[int]:
    """Steps k in ``0..factor-1`` at which to evaluate ``guard`` so that every maximal run of
    steps where all its comparisons keep their truth values contains one (see the docstring)."""
    points = {0}
    first, second = env_after(0), env_after(1)
    for node in walk(guard):
        if not isinstance(node, Compare):
            continue
        v0 = evaluate(node.left, first) - evaluate(node.right, first)
        d = evaluate(node.left, second) - evaluate(node.right, second) - v0
        if d == 0:
            continue
        root = (-v0) // d  # floor of the real root of v0 + k·d
        for c in range(root - 1, root + 2):  # truth may change between c and c + 1
            for k in (c, c + 1):
                if 0 <= k < factor:
                    points.add(k)
    return points


# ------------------------------------------------------------------------------ temporal replay


def replay_run(ta: ThresholdAutomaton, negation, infinite: bool, parameters: dict[str, int],
               initial: Configuration, schedule: list[Step], loop: int | None = None,
               cycle: list[Step] | None = None, justice: tuple[JusticePair, ...] = ()) -> Replay:
    """Execute ``schedule`` and check that the run violates the specification whose negation (in
    negation normal form, macro-expanded) is ``negation`` — by plain LTL semantics, knowing
    nothing of cut points or segments (semantics in ``tactl.ir.eltl.formula``):

    * ``infinite`` (liveness): ``loop`` must be a self-loop rule that updates nothing and is
      enabled in the last configuration σ_L; the run is the lasso ``π·σ_L^ω`` and ``negation``
      must hold on it;
    * ``infinite`` with a ``cycle`` instead (the lassos of SPIN and NuSMV): the steps of
      ``cycle``, executed from σ_L, must lead back to σ_L; the run is ``π·(cycle)^ω``;
    * otherwise the run is the finite prefix itself and every ``<>`` must be witnessed in it.

    ``justice`` (with a ``cycle``): pairs of a justice taken out of ``negation`` and read per
    process on the loop (``ir/eltl/justice.py``): each is waived at every loop configuration (a
    reset may make it false at some), or its location is empty at every one, or a step of
    ``cycle`` leaves it.

    Accelerated steps are sampled exactly: between consecutive change points of the formula's
    comparisons (which move linearly along a batch) nothing the formula can see changes, and
    LTL without next-time cannot tell repeated equal observations apart.
    """
    configs = [initial]
    state_parts = _comparisons(negation)
    try:
        _check_start(ta, ReachQuery("", BoolConst(True), BoolConst(True)), parameters, initial)
        # the trace: the configurations, and between them the samples inside batches
        trace = RecordedRun(dict(initial.counters), dict(initial.shared))

        def advance(steps, first: int) -> None:
            """Fire ``steps`` (numbered from ``first``), recording configurations and samples."""
            for n, step in enumerate(steps, first):
                if not 0 <= step.rule < len(ta.rules) or step.factor < 1:
                    raise ReplayFailure(f"step {n}: no rule #{step.rule} or factor {step.factor} < 1")
                inside = _samples(ta, parameters, trace.now, trace.shared_names, step.rule, step.factor,
                                  state_parts)
                end = _batch(ta, parameters, trace.now, trace.shared_names, step.rule, step.factor, n)
                for values in (*inside, end):  # each relative to the configuration before the batch
                    trace.append(values)
                configs.append(Configuration.recorded(trace, len(trace) - 1))

        advance(schedule, 1)
        size = len(trace)
        loop_start = None
        if infinite and cycle:
            loop_start = len(trace) - 1
            advance(cycle, len(schedule) + 1)
            if trace.changed_between(loop_start, len(trace) - 1):
                raise ReplayFailure("the loop does not return to the configuration where it began")
            size = len(trace) - 1  # the loop's end is its start
            _check_justice(ta, parameters, configs[len(schedule):], cycle, justice)
        elif infinite:
            if loop is None:
                raise ReplayFailure("a liveness counterexample needs a loop: no self-loop rule given")
            _check_loop(ta, parameters, configs[-1], loop)
        envs = [trace.view(i, parameters) for i in range(size)]
        if not lasso_holds(negation, envs, infinite, loop_start, trace.changes(size)):
            raise ReplayFailure("the negated specification does not hold on this "
                                + ("lasso" if infinite else "run"))
    except ReplayFailure as e:
        return Replay(False, str(e), configs)
    except EvaluationError as e:
        return Replay(False, f"cannot evaluate: {e}", configs)
    what = ("the lasso (schedule, then its loop forever) satisfies the negated specification"
            if infinite else "the run satisfies the negated specification")
    return Replay(True, what, configs)


def replay_query(ta: ThresholdAutomaton, query, parameters: dict[str, int], initial: Configuration,
                 schedule: list[Step], loop: int | None = None, cycle: list[Step] | None = None) -> Replay:
    """``replay_run`` for a violation of ``query`` (a ``TemporalQuery``): a loop through several
    configurations is judged with the justice read per process (``ir/eltl/justice.py``)."""
    reading = loop_reading(ta, query) if cycle else FairReading(query.negation)
    return replay_run(ta, reading.negation, query.infinite, parameters, initial, schedule, loop, cycle,
                      reading.pairs)


def _check_justice(ta: ThresholdAutomaton, parameters: dict[str, int], loop: list[Configuration],
                   cycle: list[Step], justice: tuple[JusticePair, ...]) -> None:
    """Each pair of ``justice`` met per process on the loop ``loop`` (its configurations)."""
    left = {ta.rules[s.rule].source for s in cycle if not ta.rules[s.rule].is_self_loop}
    for pair in justice:
        if pair.location in left or all(c.value(pair.location) == 0 for c in loop):
            continue
        if all(holds(pair.waived, c.values(parameters)) for c in loop):
            continue
        raise ReplayFailure(f"the loop is not just: {pair.location} is occupied on it, no step "
                            f"leaves it, and {to_text(pair.waived)} is false there")


def _check_loop(ta: ThresholdAutomaton, parameters: dict[str, int], config: Configuration, loop: int) -> None:
    if not 0 <= loop < len(ta.rules):
        raise ReplayFailure(f"loop: no rule #{loop}")
    rule = ta.rules[loop]
    if not rule.is_self_loop or ta.increments(rule) != {}:
        raise ReplayFailure(f"loop: rule {rule.id} is not a self-loop that updates nothing")
    if config.value(rule.source) < 1:
        raise ReplayFailure(f"loop: rule {rule.id} needs a process in {rule.source}, which is empty")
    if not holds(ta.expand(rule.guard), config.values(parameters)):
        raise ReplayFailure(f"loop: the guard of rule {rule.id} is false in the last configuration")


def enabled_loops(ta: ThresholdAutomaton, parameters: dict[str, int], config: Configuration) -> list[int]:
    """Self-loop rules that update nothing and are enabled in ``config``: what keeps a run going."""
    out = []
    for i in range(len(ta.rules)):
        try:
            _check_loop(ta, parameters, config, i)
        except ReplayFailure:
            continue
        out.append(i)
    return out


@dataclass(frozen=True)
class Comparisons:
    """The comparisons of a formula, indexed by the names they read. Along a batch of one rule only
    the comparisons that read its source, its target or a variable it changes can move, so a
    batch looks at those alone: a long justice formula (one comparison per location) then costs
    each step a few comparisons rather than all of them."""

    all: tuple[Compare, ...]
    by_name: dict[str, tuple[int, ...]]

    @staticmethod
    def of(items) -> Comparisons:
        found = tuple(items)
        index: dict[str, list[int]] = defaultdict(list)
        for i, node in enumerate(found):
            for name in {n.name for n in names(node)}:
                index[name].append(i)
        return Comparisons(found, {k: tuple(v) for k, v in index.items()})

    def touching(self, changed) -> list[Compare]:
        hit = sorted({i for name in changed for i in self.by_name.get(name, ())})
        return [self.all[i] for i in hit]


def _comparisons(formula) -> Comparisons:
    return Comparisons.of(n for n in walk(formula) if isinstance(n, Compare))


def samples_inside_batch(ta: ThresholdAutomaton, parameters: dict[str, int], config: Configuration,
                         index: int, factor: int, comparisons) -> list[Configuration]:
    """Configurations strictly inside the batch of ``factor`` firings of rule ``index`` at which
    some comparison may change its truth value (the batch's end is added by the caller). Along a
    batch of increments every linear term moves linearly in the number of firings; other rules
    are sampled at every firing. ``comparisons``: a :class:`Comparisons` or a list of them."""
    return [_updated(config, values) for values in
            _samples(ta, parameters, _now(config), tuple(dict(config.shared)), index, factor, comparisons)]


def _samples(ta: ThresholdAutomaton, parameters: dict[str, int], now: Mapping[str, int],
             shared: tuple[str, ...], index: int, factor: int, comparisons) -> list[dict[str, int]]:
    """:func:`samples_inside_batch` from the values ``now``: per sample, the values it changes."""
    if not isinstance(comparisons, Comparisons):
        comparisons = Comparisons.of(comparisons)
    if factor <= 1 or not comparisons.all:
        return []
    rule = ta.rules[index]
    increments = ta.increments(rule)
    if increments is None:  # not linear along the batch: every intermediate configuration
        out, changes = [], {}
        current = ChainMap(changes, now)
        for _ in range(factor - 1):
            changes.update(_fire_one(ta, parameters, current, shared, index, 0))
            out.append(dict(changes))
        return out

    def changed(k: int) -> dict[str, int]:
        return {**{v: now[v] + k * increments.get(v, 0) for v in shared}, **_moved(rule, now, k)}

    def after(k: int) -> Mapping[str, int]:
        return ChainMap(changed(k), now, parameters)

    points: set[int] = set()
    first, second = after(0), after(1)
    moved = {rule.source, rule.target, *(v for v, d in increments.items() if d)}
    for node in comparisons.touching(moved):  # the others have the same value all along (d = 0)
        v0 = evaluate(node.left, first) - evaluate(node.right, first)
        d = evaluate(node.left, second) - evaluate(node.right, second) - v0
        if d == 0:
            continue
        root = (-v0) // d
        points.update(k for k in range(root - 1, root + 3) if 0 < k < factor)
    return [changed(k) for k in sorted(points)]


def lasso_holds(formula, envs: list[dict[str, int]], infinite: bool,
                loop_start: int | None = None, changes: dict[str, list[int]] | None = None) -> bool:
    """Whether ``formula`` (NNF: state formulas, ``&&``, ``||``, ``<>``, ``[]``) holds at position 0
    of ``envs``, read as the lasso ``envs[:-1]·envs[-1]^ω`` when ``infinite`` and as a finite
    sequence otherwise (``<>``: some position up to the end; ``[]``: every position up to the end).
    On a lasso whose loop is the last position alone, both readings of ``<>`` and ``[]`` from
    position i range over positions i..end, so one evaluation serves both; ``infinite`` is kept
    in the signature because the reading would differ for a longer loop.

    ``loop_start`` (with ``infinite``) reads ``envs`` as the lasso ``envs[:ℓ]·envs[ℓ:]^ω`` with a
    loop of several positions — what SPIN and NuSMV report: from position i the run reaches
    positions i..end, and from a position inside the loop every position of the loop.

    ``changes`` (name → the ascending positions where its value differs from the position
    before, :func:`_changes_among`) spares comparing whole environments when the caller knows
    which names each step can move."""
    size = len(envs)
    if not size:
        return False
    # a finite reading, and a lasso whose loop is the last position, range over i..end alike
    start = loop_start if infinite and loop_start is not None else size - 1
    return _lasso_with_loop(formula, envs, start, changes)


def _change_positions(envs: list[dict[str, int]]) -> dict[str, list[int]]:
    """For each name, the positions ``i >= 1`` where its value differs from position ``i - 1``."""
    at: dict[str, list[int]] = defaultdict(list)
    for i in range(1, len(envs)):
        for name, _ in envs[i].items() - envs[i - 1].items():
            at[name].append(i)
    return at


def _changes_among(envs: list[dict[str, int]], moved: list[set[str]]) -> dict[str, list[int]]:
    """:func:`_change_positions` when only the names in ``moved[i]`` can differ between positions
    ``i - 1`` and ``i`` (a step's source, target and updated variables): a few comparisons per
    position instead of the whole environment."""
    at: dict[str, list[int]] = defaultdict(list)
    for i in range(1, len(envs)):
        before, now = envs[i - 1], envs[i]
        for name in sorted(moved[i]):
            if now[name] != before[name]:
                at[name].append(i)
    return at


def _runs(e, envs: list[dict[str, int]], changes: dict[str, list[int]]) -> list[tuple[int, bool]]:
    """The truth of the state formula ``e`` along ``envs`` as runs ``(first position, value)``,
    ascending, each value different from the one before. A subformula other than ``&&``, ``||``
    and ``!`` is evaluated at position 0 and where a name it reads changes, nowhere else (its value
    cannot differ where none did); ``&&`` and ``||`` follow how many of their parts are decisive.
    So a formula with one comparison per location costs a run of n steps about n evaluations,
    not n times the formula's size."""
    if isinstance(e, Not):
        return [(i, not v) for i, v in _runs(e.arg, envs, changes)]
    if isinstance(e, (And, Or)) and e.args:
        decisive = isinstance(e, Or)   # one true part makes || true, one false part makes && false
        parts = [_runs(a, envs, changes) for a in e.args]
        current = [r[0][1] for r in parts]
        count = sum(1 for v in current if v == decisive)
        value = decisive if count else not decisive
        out = [(0, value)]
        events = heapq.merge(*([(i, j, v) for i, v in r[1:]] for j, r in enumerate(parts)))
        pending = next(events, None)
        while pending is not None:
            position = pending[0]
            while pending is not None and pending[0] == position:
                _, j, v = pending
                count += (v == decisive) - (current[j] == decisive)
                current[j] = v
                pending = next(events, None)
            now = decisive if count else not decisive
            if now != value:
                value = now
                out.append((position, value))
        return out
    read = {n.name for n in names(e)}
    positions = sorted({i for name in read for i in changes.get(name, ())})
    value = holds(e, envs[0])
    out = [(0, value)]
    for i in positions:
        now = holds(e, envs[i])
        if now != value:
            value = now
            out.append((i, value))
    return out


def _dense(runs: list[tuple[int, bool]], size: int) -> list[bool]:
    out: list[bool] = []
    for (first, value), end in zip(runs, [i for i, _ in runs[1:]] + [size]):
        out.extend([value] * (end - first))
    return out


def _lasso_with_loop(formula, envs: list[dict[str, int]], start: int,
                     changes: dict[str, list[int]] | None = None) -> bool:
    size = len(envs)
    if changes is None:
        changes = _change_positions(envs)

    def values(e) -> list[bool]:
        if not is_temporal(e):
            return _dense(_runs(e, envs, changes), size)
        if isinstance(e, And):
            parts = [values(a) for a in e.args]
            return [all(p[i] for p in parts) for i in range(size)]
        if isinstance(e, Or):
            parts = [values(a) for a in e.args]
            return [any(p[i] for p in parts) for i in range(size)]
        if isinstance(e, (Eventually, Always)):
            inner = values(e.arg)
            combine = all if isinstance(e, Always) else any
            in_loop = combine(inner[start:])  # every loop position is reached again and again
            out = [in_loop] * size
            acc = in_loop
            for i in range(start - 1, -1, -1):
                acc = (acc and inner[i]) if isinstance(e, Always) else (acc or inner[i])
                out[i] = acc
            return out
        raise EvaluationError(f"not in negation normal form: {type(e).__name__}")

    return values(formula)[0]
