"""SPIN on the Promela *process model* of a receive automaton (``passes/emit/promela_process.py``).

The process model runs the receive automaton itself — per-process receive counters, no
quantifier elimination — so SPIN's verdict on it is an end-to-end check of the translation and
of the parametric checker at one parameter valuation. A SPIN counterexample is a run of
processes; tactl maps it back to the threshold automaton and replays it there with its own
simulator:

* the trail's ``INIT`` lines give the initial configuration (processes per location);
* every process step prints ``STEP process what`` while SPIN replays the trail: a receive (the
  environment; no TA step), staying (no rule enabled), a crash, or the id of the receive
  automaton's rule it took. A rule step becomes the TA rule with the same source, target and
  sends (for a crash: the crash rule, with the partial sends) whose *eliminated* guard holds in
  the TA configuration at that point — if none does, the translation would have lost a run, and
  the result is ``unknown`` with that reason, never ``holds``;
* an acceptance cycle (``<<<<<START OF CYCLE>>>>>``) becomes the lasso's loop: its TA steps are
  the ``cycle``; a cycle of receives and stays only is the TA's stutter self-loop.

A counterexample that does not replay on the TA gives ``unknown`` with the reason.

Every property gets its own model (its premise may restrict the initial locations; forced receive
steps where they are sound — the result's ``details["receive"]`` and scope say which), its own pan
built for its class (``tactl.engines.pan_profile``: ``-DSAFETY`` for safety) and its own time.
A violation on a forced model is a run of the lazy model too, and is replayed like any other.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from tactl.engines.checkers import require
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, PropertyResult
from tactl.engines.simulate import Configuration, Step, enabled_loops, replay, replay_run
from tactl.engines.spin import PanReport, parse_pan
from tactl.engines.spin_tools import WorkDirectory
from tactl.ir.eltl.formula import TemporalQuery, reach_question
from tactl.ir.evaluate import holds
from tactl.ir.rta.model import CRASH_LOCATION, ReceiveTA
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.engines.pan_profile import OPTIMIZE_FROM, PanProfile, run_pan
from tactl.passes.emit.promela_process import ProcessModelError, ltl_names, process_model, state
from tactl.passes.rta_to_ta.env import CRASHED, sent, sent_by_crashing

ENGINE = "spin"
MODEL = "process.pml"
DEFAULT_MAX_DEPTH = 1_000_000

_STEP = re.compile(r"STEP (\d+) (\S+)")
_INIT = re.compile(r"INIT (\d+) (\S+)")


def check(rta: ReceiveTA, ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int], *,
          partition: bool = False, max_depth: int = DEFAULT_MAX_DEPTH, timeout_s: float | None = None,
          work_dir: Path | None = None, receive: str = "auto") -> PropertyResult:
    """One property of ``rta`` (``ta`` is its translation) at fixed ``parameters``."""
    return check_properties(rta, ta, [query], parameters, partition=partition, max_depth=max_depth,
                            timeout_s=timeout_s, work_dir=work_dir, receive=receive)[0]


def check_properties(rta: ReceiveTA, ta: ThresholdAutomaton, queries: list[TemporalQuery],
                     parameters: dict[str, int], *, partition: bool = False,
                     max_depth: int = DEFAULT_MAX_DEPTH, timeout_s: float | None = None,
                     work_dir: Path | None = None, receive: str = "auto") -> list[PropertyResult]:
    """Each property on its own model (its premise may restrict the initial locations; forced
    receive steps where sound, see ``passes/emit/forced_receive.py``), ``spin -a``, pan compiled for
    its class (``tactl.engines.pan_profile``) and run; ``timeout_s`` is each property's own."""
    out: list[PropertyResult] = []
    with WorkDirectory(work_dir) as root:
        for k, query in enumerate(queries):
            where = root / f"p{k}"
            where.mkdir(parents=True, exist_ok=True)
            out.append(_one(rta, ta, query, parameters, where, partition=partition, receive=receive,
                            max_depth=max_depth, timeout_s=timeout_s))
    return out


def _one(rta: ReceiveTA, ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int],
         where: Path, *, partition: bool, receive: str, max_depth: int,
         timeout_s: float | None) -> PropertyResult:
    started = time.perf_counter()
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    try:
        text, mode = process_model(rta, parameters, (query.property,), partition=partition,
                                   receive=receive)
    except ProcessModelError as e:  # forced receive steps asked for where they are not sound
        return PropertyResult(query.property, query.kind, UNSUPPORTED, ENGINE,
                              time.perf_counter() - started, reason=str(e))
    (where / MODEL).write_text(text)
    processes = int(re.search(r"^#define PROCS (\d+)$", text, re.M).group(1))
    profile = PanProfile(liveness=query.infinite, optimize=processes >= OPTIMIZE_FROM)
    details: dict[str, object] = {"model": "process", "receive": mode, "search": profile.mode}

    def run(argv: list[str]) -> subprocess.CompletedProcess:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        return subprocess.run(argv, cwd=where, capture_output=True, text=True, timeout=left,
                              errors="replace")

    def result(verdict: str, **kw) -> PropertyResult:
        return PropertyResult(query.property, query.kind, verdict, ENGINE,
                              time.perf_counter() - started, details=details,
                              scope=f"only the parameter valuation {_params(parameters)} (SPIN on "
                                    f"the process model, {mode} receive steps; not a proof for all n)",
                              **kw)

    try:
        spin = str(require("spin"))
        generated = run([spin, "-a", MODEL])
        if generated.returncode != 0:
            return result(UNKNOWN, reason="spin -a failed: " + _tail(generated.stdout + generated.stderr))
        built = run([str(require("cc")), *profile.cc_flags(), "-o", "pan", "pan.c"])
        if built.returncode != 0:
            return result(UNKNOWN, reason="compiling pan failed: " + _tail(built.stderr))
        pan = run_pan(run, profile, "./pan", ltl_names(rta)[query.property], max_depth)
    except subprocess.TimeoutExpired:
        return result(UNKNOWN, reason=f"timeout: SPIN did not finish within {timeout_s:g} s")
    report = parse_pan(pan.stdout)
    details.update(_figures(report, pan))
    if report.errors is None:
        return result(UNKNOWN, reason="pan gave no verdict: " + _tail(pan.stdout + pan.stderr))
    if report.errors == 0:
        if report.incomplete:
            return result(UNKNOWN, reason="; ".join(report.incomplete))
        return result(HOLDS)
    try:
        trail = run([spin, "-t", MODEL])  # the trail names the claim pan checked
    except subprocess.TimeoutExpired:
        return result(UNKNOWN, reason="timeout while replaying SPIN's trail")
    cex, why = to_counterexample(rta, ta, query, parameters, trail.stdout)
    if cex is None or not cex.replayed:
        return result(UNKNOWN, reason="SPIN found a violation whose trail does not replay on the "
                                      "threshold automaton: " + (why or cex.replay.message))
    return result(VIOLATED, counterexample=cex)


def to_counterexample(rta: ReceiveTA, ta: ThresholdAutomaton, query: TemporalQuery,
                      parameters: dict[str, int], trail: str) -> tuple[Counterexample | None, str | None]:
    """The TA run of a process-model trail (see the module docstring), replayed; or why not."""
    location_of = {state(loc.name): loc.name for loc in rta.locations} | {"L_crashed": CRASH_LOCATION}
    where: dict[int, str] = {}
    for m in _INIT.finditer(trail):
        where[int(m.group(1))] = location_of.get(m.group(2), m.group(2))
    if not where:
        return None, "the trail has no initial configuration (no INIT lines)"
    counters = {loc.name: 0 for loc in ta.locations}
    for loc in where.values():
        counters[loc] += 1
    shared = {v: 0 for v in ta.shared}
    initial = Configuration.of(counters, shared)
    env = {**parameters, **counters, **shared}
    by_id = {r.id: r for r in rta.rules}
    schedule: list[Step] = []
    cycle_at: int | None = None
    for line in trail.splitlines():
        if "START OF CYCLE" in line:
            cycle_at = len(schedule)
            continue
        m = _STEP.search(line)
        if not m:
            continue
        proc, what = int(m.group(1)), m.group(2)
        if what in ("R", "S"):
            continue
        source = where[proc]
        if what == "X":
            target, sends, crash_sends = CRASH_LOCATION, (), ()
        elif what.startswith("C"):
            rule = by_id[int(what[1:])]
            target, sends, crash_sends = CRASH_LOCATION, (), rule.sends
        else:
            rule = by_id[int(what)]
            target, sends, crash_sends = rule.target, rule.sends, ()
        index = _ta_rule(ta, env, source, target, sends, crash_sends)
        if index is None:
            return None, (f"process {proc}'s step {source} -> {target} has no enabled rule in the "
                          f"threshold automaton at step {len(schedule) + 1}")
        _apply(ta, env, index)
        where[proc] = target
        schedule.append(Step(index, 1))
    if query.infinite:
        if cycle_at is None:
            return None, "SPIN's liveness trail has no cycle"
        prefix, cycle = schedule[:cycle_at], schedule[cycle_at:]
        negation = query.negation
        if cycle:
            rep = replay_run(ta, negation, True, parameters, initial, prefix, cycle=cycle)
            return Counterexample(parameters, initial, prefix, rep, cycle=cycle), None
        # receives and stays only: the TA's stutter self-loop at the last configuration
        last = Configuration.of({loc.name: env[loc.name] for loc in ta.locations},
                                {v: env[v] for v in ta.shared})
        loops = enabled_loops(ta, parameters, last)
        if not loops:
            return None, "the cycle takes no TA step and no stutter self-loop is enabled there"
        rep = replay_run(ta, negation, True, parameters, initial, prefix, loop=loops[0])
        return Counterexample(parameters, initial, prefix, rep, loop=loops[0]), None
    question = reach_question(query)
    if question is not None:
        rep = replay(ta, question, parameters, initial, schedule)
    else:
        rep = replay_run(ta, query.negation, False, parameters, initial, schedule)
    return Counterexample(parameters, initial, schedule, rep), None


def _ta_rule(ta: ThresholdAutomaton, env: dict[str, int], source: str, target: str,
             sends: tuple[str, ...], crash_sends: tuple[str, ...]) -> int | None:
    want = {sent(m): 1 for m in sends} | {sent_by_crashing(m): 1 for m in crash_sends}
    if target == CRASH_LOCATION and source != CRASH_LOCATION:
        want[CRASHED] = 1
    for i, r in enumerate(ta.rules):
        if r.source != source or r.target != target or (ta.increments(r) or {}) != want:
            continue
        if env[source] >= 1 and holds(ta.expand(r.guard), env):
            return i
    return None


def _apply(ta: ThresholdAutomaton, env: dict[str, int], index: int) -> None:
    r = ta.rules[index]
    env[r.source] -= 1
    env[r.target] += 1
    for v, d in (ta.increments(r) or {}).items():
        env[v] += d


def _figures(report: PanReport, pan: subprocess.CompletedProcess) -> dict[str, object]:
    return {"states": report.states_stored, "transitions": report.transitions,
            "memory_mb": report.memory_mb, "depth": report.depth, "pan_s": report.elapsed_s}


def _params(parameters: dict[str, int]) -> str:
    return ", ".join(f"{p}={v}" for p, v in parameters.items())


def _tail(text: str, lines: int = 6) -> str:
    """The last ``lines`` of a tool's output on one line, blank ones included: the reasons this
    engine has always given (``spin_tools.output_tail`` drops blank lines)."""
    return " | ".join(text.strip().splitlines()[-lines:])
