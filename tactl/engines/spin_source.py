"""The source engine for Parametric Promela: SPIN on the file itself, at one valuation.

tactl's own engines check the threshold automaton tactl *translated* the file into, so a
mistake in reading the file (a macro, a type width, a statement) is shared by all of
them. This engine reads the file the way SPIN does instead: the preprocessor SPIN runs
(``gcc -std=gnu99 -E -x c``, SPIN 6's CPP) with every parameter fixed by ``-DN=4`` and the
user's ``-D`` names, the smallest rewrite of ByMC's extensions (``passes/pml_to_spin/rewrite.py``),
then ``spin -a``, a C compiler and ``pan``. Per ``ltl`` property (except ``fairness``, the
assumption):

* safety (no ``<>``): ``pan -a`` on the formula as written;
* liveness: ``pan -a -f`` (SPIN's weak fairness: a process that stays enabled moves) on
  ``(fairness) -> (formula)``.

A ``VIOLATED`` needs pan's error *and* SPIN's replay of its trail (``spin -t``: the interpreter,
not the compiled verifier) reaching the claim's violation or its accepting cycle; else the
verdict is ``unknown`` with the reason. A search pan did not complete is ``unknown``. What the
rewrite cannot express is ``unsupported`` with its reason and line.

:func:`cpp_tokens` also gives the preprocessor's tokens of any file, which the tests compare with
tactl's own macro expansion (``ir/promela/cpp.py``).
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tactl.engines.checkers import require
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED
from tactl.engines.spin import FIRST_DEPTH, parse_pan
from tactl.engines.spin_tools import WorkDirectory, output_tail, time_left
from tactl.passes.pml_to_spin.rewrite import RewriteError, SpinModel, spin_model

ENGINE = "source"
MODEL = "model.pml"
CPP = ("-std=gnu99", "-E", "-x", "c")  # SPIN 6's preprocessor command, after the compiler's name
MAX_DEPTH = 1_000_000
HASH_BITS = 20
TRAIL_LINES = 60  # the replay kept in a result (the end: where the property fails)


@dataclass
class SourceResult:
    name: str
    verdict: str
    kind: str                      # "safety" | "liveness"
    time_s: float = 0.0
    reason: str | None = None
    formula: str = ""              # what SPIN checked
    line: int | None = None        # the ltl block's line in the file
    trail: list[str] = field(default_factory=list)  # SPIN's replay of pan's trail (violated)
    details: dict[str, object] = field(default_factory=dict)


@dataclass
class SourceReport:
    path: str
    parameters: dict[str, int]
    results: list[SourceResult]
    copies: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    error: str | None = None       # why nothing was checked (then every result is unsupported)
    bad_input: bool = False        # the error is the file's (not a model, cpp fails): exit 2

    @property
    def exit_code(self) -> int:
        verdicts = {r.verdict for r in self.results}
        if VIOLATED in verdicts:
            return 1
        if not self.results or verdicts - {HOLDS}:
            return 3
        return 0


class ValuationError(ValueError):
    """The parameters given do not fix the file (a parameter missing, or one the file lacks)."""


def parameters_of(text: str) -> list[str]:
    """The ``symbolic`` parameters a file declares, in order."""
    names: list[str] = []
    for m in re.finditer(r"^[ \t]*symbolic\s+\w+\s+([^;]*);", text, re.MULTILINE):
        names += [n.strip() for n in m.group(1).split(",") if n.strip()]
    return names


def cpp_command(path: str, defines: dict[str, str | None]) -> list[str]:
    flags = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in defines.items()]
    return [str(require("cc")), *CPP, *flags, path]


def preprocess(path: str, defines: dict[str, str | None], timeout: float | None = None) -> str:
    """What SPIN's preprocessor makes of the file (line markers kept); raises ValueError with
    cpp's message when it fails."""
    proc = subprocess.run(cpp_command(path, defines), capture_output=True, text=True,
                          timeout=timeout, errors="replace")
    if proc.returncode != 0:
        raise ValueError(output_tail(proc.stderr))
    return proc.stdout


_C_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_]\w*|[0-9]\w*|->|\+\+|--|&&|\|\||==|!=|<=|>=|<<|>>|::|\S')


def c_tokens(text: str) -> list[str]:
    """``text``'s tokens, comments and cpp's line markers left out (for comparing expansions)."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.DOTALL)
    text = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
    return _C_TOKEN.findall(text)


def cpp_tokens(path: str, defines: tuple[str, ...] = ()) -> list[str]:
    """The tokens SPIN's preprocessor leaves of the file (with ``-D`` ``defines``)."""
    return c_tokens(preprocess(path, {d: None for d in defines}))


def check_source(path: str, text: str, parameters: dict[str, int], *, defines: tuple[str, ...] = (),
                 properties: tuple[str, ...] = (), timeout_s: float | None = None,
                 work_dir: Path | None = None) -> SourceReport:
    """SPIN's verdicts on the file at ``parameters`` (every ``symbolic`` parameter given)."""
    declared = parameters_of(text)
    missing = [p for p in declared if p not in parameters]
    unknown = [p for p in parameters if p not in declared]
    if missing or unknown:
        raise ValuationError(
            (f"--engine source runs SPIN at one valuation: give every parameter with --param "
             f"(missing: {', '.join(missing)})" if missing else "")
            + ("; " if missing and unknown else "")
            + (f"the file declares no parameter {', '.join(unknown)} (it has {', '.join(declared) or 'none'})"
               if unknown else ""))
    require("spin")
    require("cc")
    report = SourceReport(path, dict(parameters), [])
    values: dict[str, str | None] = {d: None for d in defines}
    values.update({k: str(v) for k, v in parameters.items()})
    try:
        pre = preprocess(path, values, time_left(timeout_s))
        model = spin_model(pre, path)
    except RewriteError as e:
        report.error = (f"{path}:{e.line}: " if e.line else "") + e.message
        report.bad_input = e.bad_input
        return report
    except ValueError as e:
        report.error = f"the preprocessor (SPIN's cpp) failed: {e}"
        report.bad_input = True
        return report
    report.copies = dict(model.copies)
    report.notes = [f"{n} processes of {p} (SPIN pids in declaration order)" for p, n in model.copies.items()]
    if model.fairness is not None:
        report.notes.append(f"liveness checked under the file's fairness: {model.fairness}, and "
                            "SPIN's weak fairness (pan -f)")
    chosen = [p for p in model.properties if not properties or p.name in properties]
    with WorkDirectory(work_dir) as where:
        (where / MODEL).write_text(model.text)
        problem = _build(where, timeout_s)
        for prop in chosen:
            if problem:
                report.results.append(SourceResult(prop.name, UNSUPPORTED, _kind(prop), reason=problem,
                                                   formula=prop.formula, line=prop.line))
                continue
            report.results.append(_check(where, model, prop, timeout_s))
    return report


def _kind(prop) -> str:
    return "liveness" if prop.liveness else "safety"


def _run(argv: list[str], where: Path, timeout: float | None) -> subprocess.CompletedProcess:
    limit = time_left(timeout)
    if limit is not None and limit <= 0:
        raise subprocess.TimeoutExpired(argv, 0)
    return subprocess.run(argv, cwd=where, capture_output=True, text=True, timeout=limit, errors="replace")


def _build(where: Path, timeout: float | None) -> str | None:
    """``spin -a`` and the compilation of pan; why they failed, or None."""
    try:
        proc = _run([str(require("spin")), "-a", MODEL], where, timeout)
        if proc.returncode != 0 or not (where / "pan.c").exists() or "Error" in proc.stdout:
            return "SPIN does not read the rewritten file: " + output_tail(proc.stdout + proc.stderr)
        proc = _run([str(require("cc")), "-O0", "-w", "-DVECTORSZ=4096", "-o", "pan", "pan.c"], where, timeout)
        if proc.returncode != 0:
            return "compiling pan failed: " + output_tail(proc.stdout + proc.stderr)
    except subprocess.TimeoutExpired:
        return "timeout while SPIN generated or compiled the verifier"
    return None


def _check(where: Path, model: SpinModel, prop, timeout: float | None) -> SourceResult:
    started = time.perf_counter()
    result = SourceResult(prop.name, UNKNOWN, _kind(prop), formula=prop.formula, line=prop.line)
    trail = where / f"{MODEL}.trail"
    depth = FIRST_DEPTH
    try:
        while True:
            trail.unlink(missing_ok=True)
            argv = ["./pan", "-a", *(["-f"] if prop.liveness else []), "-N", prop.name,
                    f"-m{depth}", f"-w{HASH_BITS}", "-n"]
            proc = _run(argv, where, timeout)
            if "max search depth too small" not in proc.stdout or depth >= MAX_DEPTH:
                break
            depth = min(depth * 10, MAX_DEPTH)
    except subprocess.TimeoutExpired:
        result.reason = "timeout: SPIN did not finish"
        result.time_s = time.perf_counter() - started
        return result
    pan = parse_pan(proc.stdout)
    result.details = {k: v for k, v in (("states", pan.states_stored), ("transitions", pan.transitions),
                                        ("depth", pan.depth), ("max_depth", depth),
                                        ("search", " ".join(argv[1:-3]))) if v is not None}
    if pan.errors is None:
        result.reason = f"pan gave no verdict: {output_tail(proc.stdout + proc.stderr)}"
    elif pan.errors == 0:
        if pan.incomplete:
            result.reason = "the search is not exhaustive: " + "; ".join(pan.incomplete)
        else:
            result.verdict = HOLDS
    elif not trail.exists():
        result.reason = f"pan reports {pan.error_kind or 'an error'} but wrote no trail"
    else:
        result.verdict, result.reason, result.trail = _replay(where, prop, timeout)
    result.time_s = time.perf_counter() - started
    return result


def _replay(where: Path, prop, timeout: float | None) -> tuple[str, str | None, list[str]]:
    """SPIN's own replay of pan's trail: VIOLATED when it reaches the claim's violation (safety)
    or its accepting cycle (liveness), else UNKNOWN with what it printed."""
    try:
        out = _run([str(require("spin")), "-t", "-p", "-g", "-l", MODEL], where, timeout)
    except subprocess.TimeoutExpired:
        return UNKNOWN, "timeout while SPIN replayed the trail", []
    text = out.stdout + out.stderr
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("ltl ")]
    confirmed = "START OF CYCLE" in text if prop.liveness else \
        re.search(r"_spin_nvr\.tmp:\d+, Error: assertion violated", text) is not None
    if not confirmed and not prop.liveness and "START OF CYCLE" in text:
        confirmed = True  # a safety claim SPIN translated with an accepting cycle
    if not confirmed:
        return UNKNOWN, ("pan reports a violation, but SPIN's replay of its trail does not reach "
                         "the claim's " + ("accepting cycle" if prop.liveness else "violation")
                         + ": " + output_tail(text, 3)), lines[-TRAIL_LINES:]
    return VIOLATED, None, lines[-TRAIL_LINES:]
