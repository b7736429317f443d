"""``tactl verify``: the whole chain for one or more algorithms, with the pass cache, a process
pool (or a Dask cluster) for the independent property checks, and three reports (terminal
table, JSON, self-contained HTML).

The chain itself is not written here: every algorithm goes through ``tactl.driver.pipeline`` up to a
checkable threshold automaton, then one check pass per property, then the emitters asked for.
Cache lookups and writes happen in this process; only the misses travel to the executor, as
serialised IR, and come back as serialised verdicts.
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from tactl.driver.cache import Cache, CacheUnavailable, default_directory
from tactl.driver.executors import TaskFailed, executor_for
from tactl.driver.inputs import UnknownInput, resolve_inputs
from tactl.driver.pipeline import (CHECK_DEFAULTS, KINDS, PASSES, SOURCE_ENGINE, SOURCE_MAX_STATES, PassRecord, Runner, Source,
                                   Verdict, read_source)
from tactl.engines.result import (HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, VACUITY_UNKNOWN, VIOLATED,
                                  PropertyResult)
from tactl.engines.result_json import revalidated
from tactl.ir.eltl.ltl import classify
from tactl.ir.errors import InputError
from tactl.util import deadline
from tactl.util import progress as shown
from tactl.util.suggest import did_you_mean
from tactl.util.fsutil import make_directory, write_output

EMIT_TARGETS = {"promela": ("emit-promela", ".pml"), "nuxmv": ("emit-nuxmv", ".smv"),
                "smtlib": ("emit-smtlib", ".smtlib")}


SMV_BOUND = 7  # --emit nuxmv without --param: parameters range over 0..7 (as the explicit engine's)


SOURCE_PASS = "check-source"

INTERRUPTED = "interrupted"  # the cache status of a check that an interrupt left undecided
FAILED = "internal error"  # the cache status of a check whose worker raised or died (exit 4)


class VerifyError(ValueError):
    """A usage problem (unknown algorithm, bad option): exit 2 with this message."""


# -------------------------------------------------------------------------- what to verify


def resolve(arguments: list[str], corpus: Path | None = None) -> list[Path]:
    """Files to verify from ``strb`` (a corpus name), ``corpus`` (all of it), a directory, or a
    file: the driver's one resolution of inputs (tactl/driver/inputs.py)."""
    try:
        return resolve_inputs(arguments, corpus)
    except UnknownInput as e:
        raise VerifyError(str(e)) from None


# ------------------------------------------------------------------------------- options


@dataclass
class VerifyOptions:
    properties: tuple[str, ...] = ()
    engine: str = "parametric"
    parameters: dict[str, int] = field(default_factory=dict)
    emit: tuple[str, ...] = ()
    timeout_s: float | None = None
    jobs: int = 1
    executor: str | None = None  # None: local; dask://HOST:PORT
    cache_dir: Path | None = None
    use_cache: bool = True
    report_dir: Path = Path("tactl-report")
    defines: tuple[str, ...] = ()  # a Promela file's -D names (other inputs ignore them)
    certify: bool = False  # every query behind a HOLDS re-asked of cvc5 (tactl/engines/certify.py)
    # counterexamples minimised in full (tactl/engines/budget.py); part of the check's cache key,
    # so a budgeted, possibly non-minimal cached counterexample never answers --minimize
    minimize: bool = False


# ------------------------------------------------------------------------------- results


@dataclass
class AlgorithmRun:
    name: str
    path: str
    kind: str
    loaded: Any = None  # the checkable ReadResult
    program: Any = None  # --engine source: the pseudocode the interpreter runs (a pipeline Source)
    program_properties: list[Any] = field(default_factory=list)  # its SourceProperty list
    program_parameters: dict[str, int] = field(default_factory=dict)  # the valuation it runs at
    verdicts: list[tuple[Verdict, str]] = field(default_factory=list)  # (verdict, cache status)
    records: list[PassRecord] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None  # bad input: the rendered diagnostic
    unwritten: list[InputError] = field(default_factory=list)  # --emit outputs that could not be written
    interrupted: bool = False  # not reached: the run was interrupted before

    @property
    def exit_code(self) -> int:
        if any(cache == FAILED for _, cache in self.verdicts):
            return 4  # a check did not run to its end: what the others say is not the answer
        if self.error:
            return 2
        verdicts = {v.result.verdict for v, _ in self.verdicts}
        unsure = any(v.result.vacuity == VACUITY_UNKNOWN for v, _ in self.verdicts)  # a holds not known to say anything
        return 1 if VIOLATED in verdicts else 3 if verdicts & {UNKNOWN, UNSUPPORTED, HOLDS_VACUOUSLY} or unsure else 0


@dataclass
class Run:
    algorithms: list[AlgorithmRun]
    started: str
    wall_s: float
    cache_dir: str | None
    warnings: list[str]
    command: str
    interrupted: int | None = None  # the signal (SIGINT, SIGTERM) that stopped the run

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return 128 + self.interrupted  # 130 (SIGINT) or 143 (SIGTERM), as shells report them
        codes = [a.exit_code for a in self.algorithms]
        for code in (4, 2, 1, 3):
            if code in codes:
                return code
        return 0


# ------------------------------------------------------------------------------ the work


def check_task(payload: dict[str, Any]) -> str:
    """One property check, anywhere: a serialised checkable automaton in, a serialised verdict
    out (the unit the process pool and the Dask executor run)."""
    if "program" in payload:  # --engine source: the program's text, run by the interpreter
        value = Source(payload["path"], payload["program"])
        return KINDS["verdict"].dump(_pass(SOURCE_PASS).run(value, payload["options"]))
    check = _pass("check")
    before = SimpleNamespace(path=payload["path"], source="", warnings=[])
    loaded = KINDS["checkable-ta"].load(payload["automaton"], before)
    return KINDS["verdict"].dump(check.run(loaded, payload["options"]))


def _checks(run: "AlgorithmRun", options: VerifyOptions):
    """Each property check of ``run`` to look up or send to a worker: (pass, its input, the
    property, its options, what travels to the worker, what validates a cache hit)."""
    if run.program is not None:  # --engine source on pseudocode: the interpreter, no automaton
        for prop in run.program_properties:
            if not options.properties or prop.name in options.properties:
                yield (_pass(SOURCE_PASS), run.program, prop, _source_options(options, prop.name),
                       {"program": run.program.text}, None)
        return
    if options.engine == SOURCE_ENGINE:  # an automaton: nothing to interpret (_prepare said so)
        return
    automaton = KINDS["checkable-ta"].dump(run.loaded)  # what travels to a worker, once
    for prop in run.loaded.ta.properties:
        if not options.properties or prop.name in options.properties:
            yield (_pass("check"), run.loaded, prop, _check_options(options, prop.name),
                   {"automaton": automaton}, lambda v, loaded=run.loaded: _stale(loaded, v))


def _pass(name: str):
    return next(p for p in PASSES if p.name == name)


def verify(files: list[Path], options: VerifyOptions, progress: Callable[[str], None] | None = None,
           argv: str = "tactl verify") -> Run:
    started_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    started = time.perf_counter()
    warnings: list[str] = []
    cache = None
    cache_reason = "no cache (--no-cache)"
    if options.use_cache:
        try:
            cache = Cache.open(options.cache_dir or default_directory())
        except CacheUnavailable as e:
            warnings.append(str(e))
            cache_reason = str(e)
    runs: list[AlgorithmRun] = []
    pending: list[tuple[AlgorithmRun, int, Any, Runner]] = []
    tasks: list[dict[str, Any]] = []
    hits: list[tuple[AlgorithmRun, int]] = []
    interrupted = None
    try:
        shown.phase(progress, len(files))
        for path in files:
            run, runner = _prepare(path, options, cache, cache_reason, progress)
            runs.append(run)
            if run.error:
                continue
            for step, value, prop, opts, payload, validate in _checks(run, options):
                found = runner.lookup(step, value, opts, prop.name, validate=validate)
                slot = len(run.verdicts)
                run.verdicts.append((found.value, "hit") if found.hit else (None, found.cache))  # type: ignore[arg-type]
                if found.hit:
                    hits.append((run, slot))  # said once the checks are counted
                else:
                    pending.append((run, slot, found, runner))
                    tasks.append({**payload, "path": run.path, "options": opts, "property": prop})
        shown.phase(progress, sum(len(run.verdicts) for run in runs))
        for run, slot in hits:
            _say(progress, run.name, run.verdicts[slot][0], "hit")
        if tasks:
            with executor_for(options.executor, options.jobs) as executor:
                def begin(index: int) -> None:
                    shown.started(progress, _item(pending[index][0].name, tasks[index]["property"].name), "")

                for index, text, seconds in executor.run(check_task, [_sent(t) for t in tasks], begin):
                    run, slot, found, runner = pending[index]
                    if isinstance(text, TaskFailed):  # nothing cached: the check never ended
                        run.verdicts[slot] = (_undecided(run, tasks[index], f"internal error: {text.reason}"),
                                              FAILED)  # the run exits 4 (AlgorithmRun.exit_code)
                        _say(progress, run.name, run.verdicts[slot][0], FAILED)
                        continue
                    verdict = KINDS["verdict"].load(text, None)
                    runner.finish(found, verdict, seconds)  # the cache entry is whole (or absent)
                    run.verdicts[slot] = (verdict, found.cache)
                    _say(progress, run.name, verdict, found.cache)
    except (KeyboardInterrupt, Exception) as error:  # SIGINT or SIGTERM: report what was decided
        if deadline.interruption(error) is None:
            raise
        interrupted = deadline.stopped_by() or signal.SIGINT
        _mark_interrupted(runs, files, pending, tasks, signal.Signals(interrupted).name)
    if cache is not None:
        warnings.extend(cache.warnings)
    return Run(runs, started_at, time.perf_counter() - started,
               str(cache.root) if cache is not None else None, warnings, argv, interrupted)


def unknown_properties(result: Run, properties: tuple[str, ...]) -> str | None:
    """Why the selected ``properties`` are wrong when no verified algorithm has some of them
    (a usage error, not a silent empty run), or None."""
    if not properties:
        return None
    known = {p.name for a in result.algorithms if a.loaded is not None for p in a.loaded.ta.properties}
    missing = [p for p in properties if p not in known]
    if not missing or not any(a.loaded is not None for a in result.algorithms):
        return None
    return (f"no verified algorithm has the property {', '.join(repr(m) for m in missing)}; known: "
            f"{', '.join(sorted(known)) or '(none)'}"
            + (did_you_mean(missing[0], known) if len(missing) == 1 else ""))


def _sent(task: dict[str, Any]) -> dict[str, Any]:
    """What travels to a worker (the property object stays here)."""
    return {k: v for k, v in task.items() if k != "property"}


def _mark_interrupted(runs: list[AlgorithmRun], files: list[Path], pending, tasks, name: str) -> None:
    """After an interrupt: every check not decided is shown as interrupted (an unknown, with the
    reason, never a holds); algorithms not reached are listed as interrupted."""
    reason = f"interrupted ({name}) before it was decided"
    for (run, slot, _, _), task in zip(pending, tasks):
        if run.verdicts[slot][0] is None:
            run.verdicts[slot] = (_undecided(run, task, reason), INTERRUPTED)
    for run in runs:  # properties never looked up (the interrupt came while preparing them)
        run.verdicts = [v for v in run.verdicts if v[0] is not None]
    reached = {run.path for run in runs}
    for path in files:
        if str(path) not in reached:
            runs.append(AlgorithmRun(path.stem, str(path), path.suffix.lstrip("."), interrupted=True,
                                     warnings=[f"interrupted ({name}) before this algorithm was read: "
                                               "nothing was checked"]))


def _undecided(run: AlgorithmRun, task: dict[str, Any], reason: str) -> Verdict:
    """The verdict shown for a check that was not decided (an interrupt, or its worker raised
    or died): unknown, with the reason, never a holds."""
    prop = task["property"]
    kind = prop.kind if run.loaded is None else classify(run.loaded.ta.expand(prop.formula)).value
    return Verdict(PropertyResult(prop.name, kind, UNKNOWN, task["options"]["engine"], reason=reason))


def _source_options(options: VerifyOptions, prop: str) -> dict[str, Any]:
    return {"property": prop, "parameters": dict(options.parameters), "max_states": SOURCE_MAX_STATES,
            "timeout": options.timeout_s}


def _check_options(options: VerifyOptions, prop: str) -> dict[str, Any]:
    return {**CHECK_DEFAULTS, "property": prop, "engine": options.engine,
            "parameters": dict(options.parameters), "timeout": options.timeout_s,
            **({"certify": True} if options.certify else {}), **({"minimize": True} if options.minimize else {})}


def _stale(loaded, verdict: Verdict) -> str | None:
    """Why a cached verdict must not be shown: a violation must replay on the automaton now."""
    if verdict.result.details.get("run") is not None and loaded.receive is not None:
        # lazy: the lock-step engine (z3 at its top), for a lock-step run only
        from tactl.engines import lockstep

        return lockstep.revalidated(loaded.receive, verdict.result)
    return revalidated(loaded.ta, verdict.result)


def _item(algorithm: str, prop: str) -> str:
    return f"{algorithm}: {prop}"


def _say(progress, name: str, verdict: Verdict, cache: str) -> None:
    r = verdict.result
    shown.finished(progress, _item(name, r.name), r.verdict.upper(), f"cache {cache}",
                   f"{name}: {r.name} {r.verdict.upper()} ({r.time_s:.2f} s, cache {cache})")


def _prepare(path: Path, options: VerifyOptions, cache: Cache | None, cache_reason: str,
             progress) -> tuple[AlgorithmRun, Runner]:
    """Read and translate one algorithm up to its checkable automaton, and run its emitters."""
    runner = Runner(cache, cache_reason=cache_reason, origin=str(path.resolve()))
    run = AlgorithmRun(path.stem, str(path), path.suffix.lstrip("."))
    run.records = runner.records
    shown.started(progress, run.name, "", "reading")
    try:
        source, kind = read_source(str(path))
        if options.engine == SOURCE_ENGINE and kind == "alg-text":  # the interpreter reads the text
            # lazy: the interpreter loads only for --engine source
            from tactl.driver.source_check import source_properties

            run.program, run.program_parameters = source, dict(options.parameters)
            run.program_properties = source_properties(source.text, source.path, options.parameters)
            shown.finished(progress, run.name, "program ready", fallback=f"{run.name}: program ready")
            return run, runner
        run.loaded = runner.chain(source, kind, "checkable-ta", {"defines": options.defines})
        if options.engine == SOURCE_ENGINE:
            _nothing_to_interpret(run, options)
        run.warnings.extend(d.render(run.loaded.path, run.loaded.source) for d in run.loaded.warnings)
        ready = (f"{run.loaded.ta.name} ready ({len(run.loaded.ta.locations)} locations, "
                 f"{len(run.loaded.ta.rules)} rules)")
        shown.finished(progress, run.name, ready, fallback=f"{run.name}: {ready}")
        _emit(run, runner, options)
    except InputError as e:
        run.error = str(e)
        shown.finished(progress, run.name, "bad input")
    return run, runner


def _nothing_to_interpret(run: AlgorithmRun, options: VerifyOptions) -> None:
    """--engine source on an automaton (.rta, .ta), or on Promela (SPIN's reading is not a verify
    pass yet): every property unsupported, with the reason, never a holds."""
    from tactl.driver.source_check import no_source  # lazy: only for --engine source

    for prop in run.loaded.ta.properties:
        if not options.properties or prop.name in options.properties:
            kind = classify(run.loaded.ta.expand(prop.formula)).value
            run.verdicts.append((Verdict(no_source(prop.name, kind, run.kind)), "not cached"))


def _emit(run: AlgorithmRun, runner: Runner, options: VerifyOptions) -> None:
    for target in options.emit:
        name, suffix = EMIT_TARGETS[target]
        opts: dict[str, Any] = {"properties": list(options.properties), "parameters": dict(options.parameters)}
        if target == "promela" and not opts["parameters"]:
            opts["parameters"] = smallest_instance(run.loaded.ta)
            run.warnings.append(f"promela: no --param given; emitted at the smallest parameter values "
                                f"satisfying the resilience condition: {_valuation(opts['parameters'])}")
        if target == "nuxmv" and not opts["parameters"]:
            opts["smv_bound"] = SMV_BOUND
            run.warnings.append(f"nuxmv: no --param given; every parameter is a FROZENVAR over "
                                f"0..{SMV_BOUND} constrained by the resilience condition")
        try:
            text = runner.run(_pass(name), run.loaded, opts, subject=target)
        except (ValueError, TypeError) as e:
            run.warnings.append(f"{target}: not emitted: {e}")
            continue
        out = options.report_dir / f"{run.name}{suffix}"
        try:  # a report directory that cannot be written is reported after the verdicts
            make_directory(options.report_dir)
            if target == "smtlib":
                make_directory(out)
                for file_name, body in text["files"].items():
                    write_output(out / file_name, body)
            else:
                write_output(out, text)
        except InputError as e:
            run.unwritten.append(e)
            continue
        if target == "smtlib":
            run.warnings.extend(f"smtlib: skipped {line}" for line in text["skipped"])
        run.outputs[target] = str(out)


def _valuation(values: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def smallest_instance(ta) -> dict[str, int]:
    """The parameter valuation satisfying the RC with the fewest zeros, then the smallest sum."""
    # lazy: the explicit engine, only to emit Promela without --param
    from tactl.engines.explicit import parameter_instances

    instances = parameter_instances(ta, {}, 7)
    if not instances:
        raise ValueError("no parameter valuation up to 7 satisfies the resilience condition; give --param")
    return min(instances, key=lambda p: (sum(v == 0 for v in p.values()), sum(p.values()), tuple(p.values())))
