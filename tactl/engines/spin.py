"""The SPIN engine: the Promela counter model (``passes/emit/promela.py``) checked by SPIN's
``pan`` at fixed parameters.

Not a proof for all n — like the explicit engine, a bounded check at the given parameter values,
and an independent witness: the model, SPIN's LTL-to-Büchi translation and pan's search share
nothing with tactl's own engines. Per property:

* ``spin -a model.pml`` (one model holds an ``ltl`` block per property; ``pan -N name`` picks one),
  then ``pan`` compiled for the property's class:

  - safety (propositional, reachability, nested safety: the negation has no ``[]``):
    ``-DSAFETY``, SPIN's default stutter extension (a deadlocked configuration is still seen by
    the claim), plain search;
  - liveness: ``-DNOSTUTTER`` and ``./pan -a`` (acceptance cycles): without the stutter
    extension a deadlock ends no infinite run, which is tactl's semantics (``ir/eltl/formula.py``,
    decision 1); no weak fairness, since justice is in the formula.

* pan's report is parsed: ``errors: N``, states stored and matched, transitions, memory, depth,
  time. A search that did not complete (depth limit, memory limit, timeout) is ``unknown``.
* An error comes with a trail: ``spin -t -p -g`` prints it; the rules fired are read from the
  ``rule = i`` statement that ends each rule's atomic step, the initial configuration from the
  globals printed once the init step has set ``initialized``, and the loop of an acceptance cycle
  from ``<<<<<START OF CYCLE>>>>>``. The counterexample (factor-1 steps, plus ``cycle`` for a
  lasso) is replayed by ``tactl.engines.simulate``; a trail that does not replay is ``unknown`` with the
  reason — never ``violated``.

:func:`check` answers one property; :func:`check_properties` answers several with one model and
at most two compilations of pan (one per search mode), which is what the tests and benchmarks use.
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tactl.engines.checkers import require
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, PropertyResult
from tactl.engines.simulate import Configuration, Replay, Step, replay, replay_run
from tactl.engines.spin_tools import WorkDirectory, output_tail, time_left
from tactl.ir.eltl.cycles import cycle_reason
from tactl.ir.eltl.formula import TemporalQuery, lasso_reason, reach_question
from tactl.ir.evaluate import EvaluationError, holds
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.emit.promela import (
    DEFAULT_INITIAL_BOUND,
    CounterModel,
    NoInitialConfiguration,
    OutsideCounterModel,
    PromelaError,
    check_parameters,
    counter_model,
)

ENGINE = "spin"
DEFAULT_MAX_DEPTH = 1_000_000
# pan -w: 2^18 hash slots (2 MB) to start with; pan doubles the table as the states grow
# (AUTO_RESIZE, on by default). Allocating a large table up front costs more than small models need.
DEFAULT_HASH_BITS = 18
# pan -m: the DFS stack is allocated up front (about 56 bytes a level: 53 MB for a million), so
# the search starts with this depth and is repeated ten times deeper while pan reports "max
# search depth too small", up to max_depth.
FIRST_DEPTH = 10_000
MODEL = "model.pml"
# pan.c compiles several times faster at -O0 than at -O2; -O2 pays only for large state spaces
# (``optimize=True``).
CC_FLAGS = ("-w",)

__all__ = ["ENGINE", "check", "check_properties", "SpinRun", "parse_pan", "parse_trail", "TrailError",
           "PromelaError", "OutsideCounterModel"]


class TrailError(ValueError):
    """SPIN's trail output could not be read as a run of the counter model."""


# ------------------------------------------------------------------------------ public API


def check(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int], *,
          max_depth: int = DEFAULT_MAX_DEPTH, memory_mb: int | None = None,
          timeout_s: float | None = None, work_dir: Path | None = None,
          initial_bound: int = DEFAULT_INITIAL_BOUND, optimize: bool = False) -> PropertyResult:
    """SPIN's verdict on ``query`` at ``parameters`` (every parameter fixed; the values must
    satisfy the resilience condition, else :class:`PromelaError`). ``memory_mb`` limits pan's
    memory (``-DMEMLIM``), ``max_depth`` its search depth (``-m``), ``timeout_s`` the whole run
    (spin, cc, pan, trail); ``work_dir`` keeps the model, pan and the trail there (else a
    temporary directory, removed afterwards); ``optimize`` compiles pan with ``-O2`` (worth its
    extra second and a half for large state spaces). Raises :class:`tactl.engines.checkers.CheckerMissing` when
    spin or a C compiler is not installed."""
    return check_properties(ta, [query], parameters, max_depth=max_depth, memory_mb=memory_mb,
                            timeout_s=timeout_s, work_dir=work_dir, initial_bound=initial_bound,
                            optimize=optimize)[0]


def check_properties(ta: ThresholdAutomaton, queries: list[TemporalQuery], parameters: dict[str, int], *,
                     max_depth: int = DEFAULT_MAX_DEPTH, memory_mb: int | None = None,
                     timeout_s: float | None = None, work_dir: Path | None = None,
                     initial_bound: int = DEFAULT_INITIAL_BOUND,
                     optimize: bool = False) -> list[PropertyResult]:
    """:func:`check` for several properties of one automaton: one model, one ``spin -a``, at most
    two compilations of pan; ``timeout_s`` applies to each property's search."""
    require("spin")
    require("cc")
    params = check_parameters(ta, parameters, hint=" (the SPIN engine checks valuations inside "
                              "it; 'tactl emit --to promela --allow-outside-rc' writes the model "
                              "for others)")
    with WorkDirectory(work_dir) as where:
        started = time.perf_counter()
        try:
            run = SpinRun(ta, params, [q for q in queries], where, max_depth=max_depth,
                          memory_mb=memory_mb, initial_bound=initial_bound, optimize=optimize)
        except OutsideCounterModel as e:
            return [PropertyResult(q.property, q.kind, UNSUPPORTED, ENGINE, time.perf_counter() - started,
                                   reason=f"no Promela counter model: {e.message}",
                                   formula_class=q.formula_class.value) for q in queries]
        except NoInitialConfiguration as e:
            return [PropertyResult(q.property, q.kind, UNKNOWN, ENGINE, time.perf_counter() - started,
                                   reason=f"vacuous: {e.message}, so the property holds vacuously: "
                                   "nothing was checked", formula_class=q.formula_class.value)
                    for q in queries]
        try:
            run.prepare(["liveness" if q.infinite else "safety" for q in queries], timeout_s)
        except subprocess.TimeoutExpired:
            pass  # each property then reports its own timeout
        setup = time.perf_counter() - started
        results = [run.check(q, timeout_s) for q in queries]
        for r in results:  # emitting, spin -a and compiling are shared by the properties
            r.details["setup_time_s"] = round(setup, 4)
        if len(results) == 1:
            results[0].time_s += setup
        return results


# ------------------------------------------------------------------------------ the runner


@dataclass
class PanReport:
    """What pan printed, parsed."""

    errors: int | None = None
    error_kind: str | None = None          # e.g. "assertion violated", "acceptance cycle"
    states_stored: int | None = None
    states_matched: int | None = None
    transitions: int | None = None
    depth: int | None = None
    memory_mb: float | None = None
    elapsed_s: float | None = None
    incomplete: list[str] = field(default_factory=list)   # why the search is not exhaustive
    trail_written: bool = False


_RE = {
    "errors": re.compile(r"State-vector \d+ byte, depth reached (\d+), errors: (\d+)"),
    "stored": re.compile(r"^\s*(\d+(?:\.\d+)?(?:e\+\d+)?) states, stored", re.M),
    "matched": re.compile(r"^\s*(\d+(?:\.\d+)?(?:e\+\d+)?) states, matched", re.M),
    "transitions": re.compile(r"^\s*(\d+(?:\.\d+)?(?:e\+\d+)?) transitions", re.M),
    "memory": re.compile(r"^\s*([\d.]+)\s+total actual memory usage", re.M),
    "elapsed": re.compile(r"pan: elapsed time ([\d.e+-]+) seconds"),
    "stack": re.compile(r"^\s*([\d.]+)\s+memory used for DFS stack", re.M),
    "hash": re.compile(r"^\s*([\d.]+)\s+memory used for hash table", re.M),
    "error": re.compile(r"^pan:\d+: (.+?)(?: \(at depth \d+\))?$", re.M),
}


def parse_pan(output: str) -> PanReport:
    """pan's standard output, parsed (fields it did not print stay None)."""
    r = PanReport()
    m = _RE["errors"].search(output)
    if m:
        r.depth, r.errors = int(m.group(1)), int(m.group(2))
    for key, attr in (("stored", "states_stored"), ("matched", "states_matched"),
                      ("transitions", "transitions")):
        m = _RE[key].search(output)
        if m:
            setattr(r, attr, int(float(m.group(1))))
    m = _RE["memory"].search(output)
    if m:
        r.memory_mb = float(m.group(1))
    m = _RE["elapsed"].search(output)
    if m:
        r.elapsed_s = float(m.group(1))
    m = _RE["error"].search(output)
    if m:
        kind = m.group(1).strip()
        # "assertion violated  !( !((x!=2)))": the claim's own text adds nothing for a reader
        r.error_kind = "assertion violated (never claim)" if kind.startswith("assertion violated") else kind
    r.trail_written = "wrote " in output and ".trail" in output
    if "max search depth too small" in output:
        r.incomplete.append("the search depth limit was reached (-m, max_depth)")
    if "out of memory" in output or "reached -DMEMLIM bound" in output:
        parts = []
        for key, what in (("hash", "its hash table"), ("stack", "its DFS stack (max_depth)")):
            m = _RE[key].search(output)
            if m:
                parts.append(f"{what} {float(m.group(1)):g} MB")
        r.incomplete.append("pan ran out of memory (memory_mb, -DMEMLIM)"
                            + (": " + ", ".join(parts) + " before any state" if parts and not r.states_stored
                               else ""))
    if "Search not completed" in output and not r.errors and not r.incomplete:
        r.incomplete.append("pan reports: search not completed")
    return r


class SpinRun:
    """One counter model in one directory: ``spin -a`` once, pan compiled per search mode on
    first use, then one pan run per property."""

    def __init__(self, ta: ThresholdAutomaton, parameters: dict[str, int], queries: list[TemporalQuery],
                 where: Path, *, max_depth: int = DEFAULT_MAX_DEPTH, memory_mb: int | None = None,
                 initial_bound: int = DEFAULT_INITIAL_BOUND, optimize: bool = False) -> None:
        self.ta, self.parameters, self.where = ta, parameters, where
        self.optimize = optimize
        self.hash_bits = DEFAULT_HASH_BITS
        if memory_mb is not None:  # the hash table (8 bytes a slot) gets at most a quarter
            self.hash_bits = max(10, min(DEFAULT_HASH_BITS, (memory_mb * 2**20 // 32).bit_length() - 1))
        self.max_depth, self.memory_mb = max_depth, memory_mb
        self.queries = {q.property: q for q in queries}
        started = time.perf_counter()
        self.model: CounterModel = counter_model(ta, [q.property for q in queries], parameters,
                                                 initial_bound=initial_bound)
        (where / MODEL).write_text(self.model.text)
        self.emit_s = time.perf_counter() - started
        self._generated: bool | str = False  # True once spin -a succeeded, else its error
        self._built: dict[str, Path | str] = {}   # mode -> pan executable, or why it failed
        self.spin_s = 0.0
        self.compile_s: dict[str, float] = {}

    # -- steps

    def _run(self, argv: list[str], timeout: float | None) -> subprocess.CompletedProcess:
        limit = time_left(timeout)
        if limit is not None and limit <= 0:
            raise subprocess.TimeoutExpired(argv, 0)
        return subprocess.run(argv, cwd=self.where, capture_output=True, text=True, timeout=limit,
                              errors="replace")

    def _generate(self, timeout: float | None) -> str | None:
        if self._generated is True:
            return None
        if isinstance(self._generated, str):
            return self._generated
        started = time.perf_counter()
        proc = self._run([str(require("spin")), "-a", MODEL], timeout)
        self.spin_s = time.perf_counter() - started
        if proc.returncode != 0 or not (self.where / "pan.c").exists():
            self._generated = "spin -a failed: " + output_tail(proc.stdout + proc.stderr)
            return self._generated
        self._generated = True
        return None

    def prepare(self, modes: list[str], timeout: float | None = None) -> None:
        """Compile pan for each of ``modes`` ("safety", "liveness") not built yet, the
        compilations in parallel (each takes about half a second)."""
        todo = [m for m in dict.fromkeys(modes) if m not in self._built]
        if not todo:
            return
        problem = self._generate(timeout)
        if problem:
            self._built.update({m: problem for m in todo})
            return
        vector = max(1024, 8 * (len(self.model.variables) + 16))
        level = "-O2" if self.optimize else "-O0"
        running: dict[str, tuple[subprocess.Popen, float]] = {}
        try:
            for mode in todo:
                flags = ["-DSAFETY"] if mode == "safety" else ["-DNOSTUTTER"]
                flags.append(f"-DVECTORSZ={vector}")
                if self.memory_mb is not None:
                    flags.append(f"-DMEMLIM={int(self.memory_mb)}")
                argv = [str(require("cc")), level, *CC_FLAGS, *flags, "-o", f"pan_{mode}", "pan.c"]
                running[mode] = (subprocess.Popen(argv, cwd=self.where, stdout=subprocess.PIPE,
                                                  stderr=subprocess.STDOUT, text=True, errors="replace"),
                                 time.perf_counter())
            for mode, (proc, started) in running.items():
                out, _ = proc.communicate(timeout=time_left(timeout))
                self.compile_s[mode] = time.perf_counter() - started
                exe = self.where / f"pan_{mode}"
                self._built[mode] = exe if proc.returncode == 0 and exe.exists() else \
                    "compiling pan failed: " + output_tail(out or "")
        finally:
            for proc, _ in running.values():
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()

    def _pan(self, mode: str, timeout: float | None) -> Path | str:
        """The pan executable for ``mode`` ("safety" or "liveness"), or why there is none."""
        self.prepare([mode], timeout)
        return self._built[mode]

    # -- one property

    def check(self, query: TemporalQuery, timeout_s: float | None = None) -> PropertyResult:
        started = time.perf_counter()
        clock_end = None if timeout_s is None else started + timeout_s

        def left() -> float | None:
            return None if clock_end is None else clock_end - time.perf_counter()

        def result(verdict: str, **kw: object) -> PropertyResult:
            return PropertyResult(query.property, query.kind, verdict, ENGINE,  # type: ignore[arg-type]
                                  time.perf_counter() - started, 0,
                                  formula_class=query.formula_class.value, **kw)

        if query.infinite:
            why = lasso_reason(self.ta) and cycle_reason(self.ta)
            if why is not None:
                return result(UNSUPPORTED, reason=why)
        ltl = self.model.ltl_name(query.property)
        if ltl is None:
            why = next((w for n, w in self.model.skipped if n == query.property), "not in the model")
            return result(UNSUPPORTED, reason=f"no ltl block for {query.property}: {why}")
        mode = "liveness" if query.infinite else "safety"
        details: dict[str, object] = {
            "parameters": dict(self.parameters), "model": "counter", "ltl": ltl,
            "search": ("acceptance cycles (pan -a, -DNOSTUTTER)" if query.infinite
                       else "safety (-DSAFETY, stutter extension)"),
            "processes": self.model.processes,
        }
        if self.model.capped:
            details["capped_initial_values"] = dict(self.model.capped)
        try:
            exe = self._pan(mode, left())
            if isinstance(exe, str):
                return result(UNKNOWN, reason=exe, details=details)
            trail = self.where / f"{MODEL}.trail"
            depth = min(FIRST_DEPTH, self.max_depth)
            pan_wall = 0.0
            while True:
                trail.unlink(missing_ok=True)
                argv = [f"./{exe.name}", "-N", ltl, f"-m{depth}", f"-w{self.hash_bits}", "-n"]
                if query.infinite:
                    argv.insert(1, "-a")
                pan_started = time.perf_counter()
                proc = self._run(argv, left())
                pan_wall += time.perf_counter() - pan_started
                if "max search depth too small" not in proc.stdout or depth >= self.max_depth:
                    break
                depth = min(depth * 10, self.max_depth)
            details["max_depth"] = depth
        except subprocess.TimeoutExpired:
            return result(UNKNOWN, reason=f"timeout: SPIN did not finish within {timeout_s:g} s",
                          details=details)
        report = parse_pan(proc.stdout)
        details.update(_figures(report, pan_wall, self))
        if report.errors is None:
            return result(UNKNOWN, reason="pan gave no verdict (exit status "
                          f"{proc.returncode}): {output_tail(proc.stdout + proc.stderr)}", details=details)
        if report.errors == 0:
            if report.incomplete:
                return result(UNKNOWN, reason="the search is not exhaustive: " + "; ".join(report.incomplete),
                              details=details)
            return result(HOLDS, scope=self._scope(), details=details)
        details["error"] = report.error_kind
        if not trail.exists():
            return result(UNKNOWN, reason=f"pan reports {report.error_kind or 'an error'} but wrote no "
                          "trail", details=details)
        try:
            out = self._run([str(require("spin")), "-t", "-p", "-g", MODEL], left())
        except subprocess.TimeoutExpired:
            return result(UNKNOWN, reason=f"timeout while SPIN printed the trail ({timeout_s:g} s)",
                          details=details)
        try:
            parsed = parse_trail(out.stdout, self.model)
        except TrailError as e:
            return result(UNKNOWN, reason=f"SPIN reports a violation ({report.error_kind}) whose trail "
                          f"could not be read: {e}", details=details)
        cex = self._counterexample(query, parsed)
        details["trail_steps"] = len(parsed.steps) + len(parsed.cycle or [])
        if not cex.replayed:
            return result(UNKNOWN, counterexample=cex, details=details,
                          reason="SPIN reports a violation whose trail does not replay on the "
                          f"counter system ({cex.replay.message}); no verdict")
        return result(VIOLATED, counterexample=cex, details=details)

    def _scope(self) -> str:
        values = ", ".join(f"{p}={v}" for p, v in self.parameters.items())
        capped = ""
        if self.model.capped:
            capped = (", initial values of " + ", ".join(sorted(self.model.capped))
                      + " (unbounded by the inits) <= " + str(max(self.model.capped.values())))
        return (f"only the parameter valuation {values or '(none)'}{capped} "
                "(SPIN on the counter model; not a proof for all n)")

    def _counterexample(self, query: TemporalQuery, parsed: "Trail") -> Counterexample:
        ta, params = self.ta, self.parameters
        init = parsed.initial
        schedule = [Step(i, 1) for i in parsed.steps]
        cycle = [Step(i, 1) for i in parsed.cycle] if parsed.cycle is not None else None
        if query.infinite:
            if not cycle:
                return Counterexample(params, init, schedule,
                                      Replay(False, "the trail has no cycle: SPIN's claim accepted a "
                                             "finite prefix, but a liveness violation is an "
                                             "infinite run and this prefix may end in a deadlock",
                                             [init]),
                                      cycle=cycle)
            check = replay_run(ta, query.negation, True, params, init, schedule, cycle=cycle)
            return Counterexample(params, init, schedule, check, cycle=cycle)
        question = reach_question(query)
        if question is None:
            check = replay_run(ta, query.negation, False, params, init, schedule)
            return Counterexample(params, init, schedule, check)
        check = replay(ta, question, params, init, schedule)
        if len(check.configurations) == len(schedule) + 1:
            # The claim may have noticed the bad configuration some steps after it was reached
            # (its automaton is non-deterministic: for a propositional property it may confirm
            # the initial configuration later). Cut the schedule at the first bad configuration:
            # the shortest prefix of SPIN's run that violates the property.
            for k, config in enumerate(check.configurations[:-1]):
                try:
                    bad = holds(question.bad, config.env(params))
                except EvaluationError:
                    break
                if bad:
                    shorter = replay(ta, question, params, init, schedule[:k])
                    if shorter.ok or not check.ok:
                        schedule, check = schedule[:k], shorter
                    break
        return Counterexample(params, init, schedule, check)


def _figures(report: PanReport, wall: float, run: SpinRun) -> dict[str, object]:
    out: dict[str, object] = {
        "states": report.states_stored, "states_matched": report.states_matched,
        "transitions": report.transitions, "depth": report.depth, "memory_mb": report.memory_mb,
        # pan's own clock is sometimes not started (it printed 1.72e+07 s once): the wall time
        "pan_time_s": round(wall, 4),
        "spin_time_s": round(run.spin_s, 4),
        "compile_time_s": round(sum(run.compile_s.values()), 4),
    }
    return {k: v for k, v in out.items() if v is not None}


# ------------------------------------------------------------------------------ trails


@dataclass
class Trail:
    initial: Configuration
    steps: list[int]              # rule indices, in order (the prefix of a lasso)
    cycle: list[int] | None       # the loop of an acceptance cycle, or None


_STATEMENT = re.compile(r"^\s*\d+:\s+proc\s+\d+\s")
_RULE = re.compile(r"\[rule = (-?\d+)\]")
_INITIALIZED = re.compile(r"\[initialized = (1|true)\]")
_GLOBAL = re.compile(r"^\t\t([A-Za-z_][A-Za-z0-9_]*) = (-?\d+)\s*$")
_CYCLE = "<<<<<START OF CYCLE>>>>>"


def parse_trail(output: str, model: CounterModel) -> Trail:
    """The run in ``spin -t -p -g`` output: the initial configuration (the globals once the init
    step has set ``initialized``; ``-g`` prints a global when it changes, and every global starts
    at 0), the rules fired (the ``rule = i`` that ends each rule's atomic step) and the start of
    the loop of an acceptance cycle."""
    values: dict[str, int] = {}
    initial: dict[str, int] | None = None
    seen_init = False
    in_block = False
    steps: list[int] = []
    cycle_at: int | None = None
    for line in output.splitlines():
        if line.startswith("#processes"):
            break  # the final state dump
        if _CYCLE in line:
            if not seen_init:
                raise TrailError("the cycle starts before the initial configuration is chosen")
            if in_block:
                raise TrailError("the cycle starts inside a rule's atomic step")
            cycle_at = len(steps)
            continue
        g = _GLOBAL.match(line)
        if g:
            values[g.group(1)] = int(g.group(2))
            continue
        if not _STATEMENT.match(line):
            continue
        if not seen_init:
            if _INITIALIZED.search(line):
                seen_init = True
            continue
        if initial is None:
            initial = dict(values)  # every global the init step printed came before this line
        r = _RULE.search(line)
        if r:
            k = int(r.group(1))
            if not 0 <= k < model.rule_count:
                raise TrailError(f"rule index {k} out of range")
            steps.append(k)
            in_block = False
        else:
            in_block = True
    if not seen_init:
        raise TrailError("the trail never completes the init step (no 'initialized = 1')")
    if in_block:
        raise TrailError("the trail ends inside a rule's atomic step")
    if initial is None:
        initial = dict(values)
    by_name = model.ta_names
    counters = {v.source: initial.get(v.name, 0) for v in model.variables if v.kind == "location"}
    shared = {v.source: initial.get(v.name, 0) for v in model.variables if v.kind == "shared"}
    unknown = sorted(set(initial) - set(by_name) - {"initialized", "rule"})
    if unknown:
        raise TrailError("unexpected globals in the trail: " + ", ".join(unknown))
    config = Configuration.of(counters, shared)
    if cycle_at is None:
        return Trail(config, steps, None)
    return Trail(config, steps[:cycle_at], steps[cycle_at:])

