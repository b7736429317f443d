"""Under ``tactl verify``'s table, what went wrong: each violated property with its parameter
values, a short run (the steps and the counters they changed, tactl/report/run_steps.py; or the
first lines of a lock-step run or of a run of the Promela file) and where the whole run is written
(the report folder's report.html and report.json). A table row alone says only VIOLATED; this is
what a reader needs to believe it and to go on from there.

``-q`` keeps one line per violation (the parameters and the report); ``-v`` shows every step.
The reference interpreter's runs are printed whole by tactl/report/verify.py (``source_run_lines``).
"""

from __future__ import annotations

from pathlib import Path

from tactl.driver.verify import FAILED, INTERRUPTED, AlgorithmRun, Run
from tactl.engines.result import VIOLATED, PropertyResult
from tactl.report.lockstep_text import run_lines
from tactl.report.property_json import counterexample_json
from tactl.report.run_steps import change_lines, ending

SHORT = 8  # steps shown by default: the first ones and the last ones, where the violation is


def violation_lines(run: Run, report_dir: Path | None, quiet: bool = False, every_step: bool = False) -> list[str]:
    """The lines printed under the table for every violated property of ``run``."""
    lines: list[str] = []
    for a in run.algorithms:
        for v, cache in a.verdicts:
            r = v.result
            if r.verdict != VIOLATED or cache in (INTERRUPTED, FAILED) or r.details.get("source_run"):
                continue
            head, body = _violation(a, r, None if every_step else SHORT)
            files = "" if report_dir is None else f"{report_dir / 'report.html'}, {report_dir / 'report.json'}"
            if quiet or not body:
                lines.append(f"{a.name}: {r.name} VIOLATED{head}" + (f" (whole run: {files})" if files else ""))
                continue
            lines.append(f"{a.name}: {r.name} VIOLATED{head}:")
            lines.extend("    " + line for line in body)
            if files:
                lines.append(f"    whole run: {files}")
    return lines


def _violation(a: AlgorithmRun, r: PropertyResult, keep: int | None) -> tuple[str, list[str]]:
    """What follows ``VIOLATED`` on the head line (the parameters, the run's shape) and the short
    run below it."""
    cex = r.counterexample
    if cex is not None and a.loaded is not None:
        doc = counterexample_json(a.loaded.ta, cex)
        steps = len(doc["schedule"]) + len((doc.get("cycle") or {}).get("steps") or [])
        shape = "a lasso" if doc.get("loop") is not None or doc.get("cycle") else "a run"
        marker = "<- violation" if shape == "a run" else "<- violation: repeats forever"
        body = change_lines(doc, marker=marker, keep=keep)
        last = ending(doc)
        return (f" with {_values(cex.parameters)}: {shape} of {steps} step{'s' if steps != 1 else ''}",
                body + ([last] if last else []))
    details = r.details
    if details.get("file_run"):  # a run of the Promela file itself (tactl/driver/file_reading.py)
        return (f" at {_values(details.get('instance') or {})}: a run of the file under its fairness",
                _short([str(x) for x in details["file_run"]], keep))
    if details.get("run"):  # a lock-step run of a synchronous automaton
        return ": a lock-step run", _short(run_lines(details["run"]), keep)
    return "", []


def _short(lines: list[str], keep: int | None) -> list[str]:
    if keep is None or len(lines) <= keep:
        return lines
    return [*lines[:keep], f"... {len(lines) - keep} more line{'s' if len(lines) - keep != 1 else ''} in the report"]


def _values(values) -> str:
    return ", ".join(f"{k}={v}" for k, v in dict(values).items()) or "no parameters"
