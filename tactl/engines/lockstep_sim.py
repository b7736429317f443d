"""An independent lock-step simulator and an explicit enumerator for synchronous automata at
fixed parameters. Neither uses z3: a rule is enabled if some receive values inside Env's box
make its guard true, found by enumeration and evaluated by ``ir.evaluate``. The simulator
replays the lock-step engine's counterexamples; the enumerator is the tests' oracle (verdicts,
and the longest shortest path, which must not exceed the computed diameter)."""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from typing import Iterator

from tactl.ir.evaluate import evaluate, holds
from tactl.ir.expr import Expr
from tactl.ir.rta.model import FaultModel, received
from tactl.passes.rta_to_sync.sync_ta import SyncRule, SyncTA, received_types

Config = tuple[tuple[str, int], ...]


@dataclass
class Run:
    """A lock-step counterexample: parameters, the configuration at each round start, and how
    many processes took each rule in each round (the lock-step engine finds them, :func:`replay`
    checks them)."""

    parameters: dict[str, int]
    configurations: list[dict[str, int]]
    rounds: list[dict[int, int]]
    clean_round: int | None  # the clean round the property's hypothesis uses, if any


@dataclass
class Replay:
    ok: bool
    message: str


def _sent(sta: SyncTA, conf: dict[str, int], message: str) -> tuple[int, int]:
    correct, crashing = sta.senders(message)
    return sum(conf[l] for l in correct), sum(conf[l] for l in crashing)


def enabled(sta: SyncTA, rule: SyncRule, conf: dict[str, int], params: dict[str, int]) -> bool:
    """Whether some receive values Env allows in a round starting in ``conf`` satisfy the guard."""
    msgs = received_types(sta, [rule.guard])
    ranges, lows = [], {}
    faulty_coordinator = 0 if sum(conf[l] for l in sta.coordinators) else min(1, params[sta.faults])
    for m in msgs:
        sent, crashing = _sent(sta, conf, m)
        extra = crashing if sta.model is FaultModel.CRASH else params[sta.faults]
        if m in sta.coordinator:
            extra = faulty_coordinator
        lows[m] = sent
        ranges.append(range(sent, sent + extra + 1))
    for values in itertools.product(*ranges):
        rcv = dict(zip(msgs, values))
        if sum(rcv[m] for m in sta.coordinator if m in rcv) > 1:
            continue  # one coordinator, one message of it per receiver
        if sta.model is FaultModel.BYZANTINE and any(
                sum(max(0, rcv[m] - lows[m]) for m in members if m in rcv) > params[sta.faults]
                for members in sta.kinds.values()):
            continue
        env = {**params, **{received(m).name: v for m, v in rcv.items()}}
        if holds(rule.guard, env):
            return True
    return False


def state_holds(sta: SyncTA, e: Expr, conf: dict[str, int], params: dict[str, int]) -> bool:
    env = dict(params)
    for name, counted in sta.counted.items():
        env[name] = sum(conf[x] for x in counted)
    return holds(e, env)


def invariant_problem(sta: SyncTA, conf: dict[str, int], params: dict[str, int]) -> str | None:
    if any(v < 0 for v in conf.values()):
        return "a negative counter"
    if sum(conf.values()) != evaluate(sta.processes, params):
        return f"{sum(conf.values())} processes, not {evaluate(sta.processes, params)}"
    if sta.crashing and sum(conf[l] for l in (*sta.crashing, *sta.crashed)) > params[sta.faults]:
        return f"more than {sta.faults} = {params[sta.faults]} crashing or crashed processes"
    if sta.coordinator and sum(conf[l] for l in sta.coordinators) > 1:
        return "more than one coordinator"
    return None


def is_clean(sta: SyncTA, prop, conf: dict[str, int]) -> bool:
    """The round starting in ``conf`` is clean for ``prop``'s hypothesis."""
    if prop.coordinator:
        return sum(conf[l] for l in sta.coordinators) == 1
    return sum(conf[l] for l in sta.crashing) <= prop.max_crashing


def replay(sta: SyncTA, prop, run) -> Replay:
    """Check a lock-step run (:class:`Run`) step by step."""
    params = run.parameters
    if not all(holds(a, params) for a in sta.assumptions):
        return Replay(False, "the parameters violate the resilience condition")
    confs = run.configurations
    first = confs[0]
    if any(first[l] for l in sta.locations if l not in sta.initial):
        return Replay(False, "the first configuration is not initial")
    if prop.init is not None and not state_holds(sta, prop.init, first, params):
        return Replay(False, "the first configuration does not satisfy the property's Init")
    for i, lam in enumerate(run.rounds):
        conf = confs[i]
        problem = invariant_problem(sta, conf, params)
        if problem:
            return Replay(False, f"round {i + 1} starts with {problem}")
        for l in sta.locations:
            if sum(n for r, n in lam.items() if sta.rules[r].source == l) != conf[l]:
                return Replay(False, f"round {i + 1}: the processes in {l} do not take one rule each")
        for r, n in lam.items():
            if n and not enabled(sta, sta.rules[r], conf, params):
                return Replay(False, f"round {i + 1}: {sta.rules[r].label} is not enabled")
        after = {l: sum(n for r, n in lam.items() if sta.rules[r].target == l) for l in sta.locations}
        if after != confs[i + 1]:
            return Replay(False, f"round {i + 1} does not end in the next configuration")
    if run.clean_round is not None and not is_clean(sta, prop, confs[run.clean_round]):
        return Replay(False, f"round {run.clean_round + 1} is not clean")
    if state_holds(sta, prop.safe, confs[-1], params):
        return Replay(False, "the last configuration satisfies the property")
    return Replay(True, "replayed: every round is a lock-step round and the last configuration "
                        "violates the property")


# --------------------------------------------------------------------------- enumeration


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 0:
        if total == 0:
            yield ()
        return
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def initial_configurations(sta: SyncTA, params: dict[str, int]) -> list[Config]:
    n = evaluate(sta.processes, params)
    out = []
    for split in _compositions(n, len(sta.initial)):
        conf = {l: 0 for l in sta.locations}
        conf.update(zip(sta.initial, split))
        if invariant_problem(sta, conf, params) is None:
            out.append(tuple(conf.items()))
    return out


def successors(sta: SyncTA, config: Config, params: dict[str, int]) -> dict[Config, dict[int, int]]:
    """Every configuration one lock-step round leads to, each with one way to get there (how
    many processes take each rule)."""
    conf = dict(config)
    choices = []
    for l in sta.locations:
        if conf[l] == 0:
            continue
        rules = [r for r in sta.rules if r.source == l and enabled(sta, r, conf, params)]
        if not rules:
            return {}  # an incomplete guard set: the engine refuses such automata
        choices.append([(rules, split) for split in _compositions(conf[l], len(rules))])
    out: dict[Config, dict[int, int]] = {}
    for combo in itertools.product(*choices):
        after = {l: 0 for l in sta.locations}
        lam: dict[int, int] = {}
        for rules, split in combo:
            for r, k in zip(rules, split):
                after[r.target] += k
                if k:
                    lam[r.index] = k
        if invariant_problem(sta, after, params) is None:
            out.setdefault(tuple(after.items()), lam)
    return out


def eccentricity(sta: SyncTA, params: dict[str, int], phase_starts_only: bool = False) -> int:
    """The most rounds any initial configuration needs to reach one of its reachable
    configurations (by shortest paths); with ``phase_starts_only``, only reachable
    configurations whose processes are all in initial locations (phase starts) count."""
    most = 0
    for start in initial_configurations(sta, params):
        depth = {start: 0}
        queue = deque([start])
        while queue:
            c = queue.popleft()
            for s in successors(sta, c, params):  # the configurations (keys)
                if s not in depth:
                    depth[s] = depth[c] + 1
                    at_start = all(l in sta.initial for l, k in s if k)
                    if at_start or not phase_starts_only:
                        most = max(most, depth[s])
                    queue.append(s)
    return most


def explicit_verdict(sta: SyncTA, prop, params: dict[str, int]):
    """``("holds", None)`` or ``("violated", run)`` at these parameters, by breadth-first search
    (clean-round properties: over (configuration, a clean round has passed)); the run is a
    :class:`Run` for :func:`replay`."""
    starts = [c for c in initial_configurations(sta, params)
              if prop.init is None or state_holds(sta, prop.init, dict(c), params)]
    # a state: (configuration, round of the first clean round or None, rounds so far capped)
    parent: dict = {}
    seen = {(c, None, 0) for c in starts}
    queue = deque(seen)
    while queue:
        state = queue.popleft()
        c, clean_at, rounds = state
        conf = dict(c)
        required = (clean_at is not None or not prop.clean_round) and rounds >= prop.min_rounds
        if required and not state_holds(sta, prop.safe, conf, params):
            confs, lams, cur = [conf], [], state
            while cur in parent:
                cur, lam = parent[cur]
                confs.append(dict(cur[0]))
                lams.append(lam)
            confs.reverse()
            lams.reverse()
            first_clean = None
            if prop.clean_round:
                first_clean = next(i for i, k in enumerate(confs[:-1]) if is_clean(sta, prop, k))
            return "violated", Run(dict(params), confs, lams, first_clean)
        clean_now = clean_at if clean_at is not None else (
            rounds if prop.clean_round and is_clean(sta, prop, conf) else None)
        for s, lam in successors(sta, c, params).items():
            nxt = (s, None if clean_now is None else 0, min(rounds + 1, prop.min_rounds))
            if nxt not in seen:
                seen.add(nxt)
                parent[nxt] = (state, lam)
                queue.append(nxt)
    return "holds", None
