"""``tactl verify --junit``: the verdicts as JUnit XML, the test report every CI shows.

One ``<testsuite>`` per algorithm (its name, its file), one ``<testcase>`` per property
(``classname`` the algorithm, ``name`` the property, ``time`` the check's seconds, ``file`` and
``line`` where the property is written, as the SARIF results locate it: tactl/report/sarif.py).
A test case's outcome follows the exit status the verdict gives (tactl/driver/verify.py):

* HOLDS (exit 0): passed; what it covers is its ``<system-out>``.
* VIOLATED (exit 1): ``<failure type="violated">``, the parameters and the shape of the run in
  the message, the run itself (check's counterexample table) as the text.
* UNKNOWN, UNSUPPORTED, HOLDS VACUOUSLY, a HOLDS whose vacuity is unknown (exit 3), and a check
  that failed or was interrupted: ``<error type="…">`` with the reason. Not ``<skipped>``: CI
  dashboards count a skipped test as green, and these verdicts make ``tactl verify`` exit
  non-zero — nothing was shown to hold.

An algorithm that could not be read is a suite with one errored test case, ``(input)``, whose
text is the diagnostic (``file:line:col: message``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from tactl.driver.verify import AlgorithmRun, Run
from tactl.engines.result import HOLDS, VACUITY_UNKNOWN, VIOLATED, PropertyResult
from tactl.report.check_text import counterexample_table
from tactl.report.lockstep_text import run_lines
from tactl.report.sarif import Checked, checked_run, property_location, result_message


def junit_xml(run: Run) -> str:
    """The JUnit XML document of a verify run."""
    root = ET.Element("testsuites", name="tactl verify")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    wall = 0.0
    for a in run.algorithms:
        suite = _suite(a, run.started)
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
        wall += float(suite.get("time", "0"))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{wall:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(a: AlgorithmRun, started: str) -> ET.Element:
    suite = ET.Element("testsuite", name=a.name, timestamp=started, file=a.path)
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="file", value=a.path)
    ET.SubElement(props, "property", name="kind", value=a.kind)
    ta = getattr(a.loaded, "ta", None)
    if ta is not None:
        ET.SubElement(props, "property", name="automaton", value=ta.name)
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    time = 0.0
    if a.error or a.interrupted:
        case = ET.SubElement(suite, "testcase", name="(input)", classname=a.name, time="0", file=a.path)
        problem = ET.SubElement(case, "error", type="bad-input" if a.error else "interrupted",
                                message=(a.error or "").splitlines()[0] if a.error
                                else "the run was interrupted before this algorithm")
        problem.text = a.error or ""
        counts["tests"], counts["errors"] = 1, 1
    checked = checked_run(a)
    for v, cache in a.verdicts:
        r: PropertyResult = v.result
        counts["tests"] += 1
        time += r.time_s
        where = property_location(checked, r.name)
        case = ET.SubElement(suite, "testcase", name=r.name, classname=a.name, time=f"{r.time_s:.3f}",
                             file=where.path, **({"line": str(where.line)} if where.line else {}))
        outcome = _outcome(r)
        message = result_message(Checked(a.path, ta, ()), r)
        if outcome == "failure":
            counts["failures"] += 1
            failure = ET.SubElement(case, "failure", type="violated", message=message)
            failure.text = "\n".join(_run_text(ta, r))
        elif outcome == "error":
            counts["errors"] += 1
            kind = "holds-vacuity-unknown" if r.verdict == HOLDS else r.verdict.replace(" ", "-")
            ET.SubElement(case, "error", type=kind, message=message if r.verdict != HOLDS
                          else f"{r.name} HOLDS, but whether any run meets its antecedents is unknown")
        out = ET.SubElement(case, "system-out")
        out.text = _summary(r, cache)
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", f"{time:.3f}")
    return suite


def _outcome(r: PropertyResult) -> str:
    """``pass``, ``failure`` or ``error``, as the verdict's exit status (the module docstring)."""
    if r.verdict == VIOLATED:
        return "failure"
    if r.verdict == HOLDS and r.vacuity != VACUITY_UNKNOWN:
        return "pass"
    return "error"


def _run_text(ta: Any, r: PropertyResult) -> list[str]:
    if r.counterexample is not None and ta is not None:
        return counterexample_table(ta, r.counterexample)
    if isinstance(r.details.get("run"), dict):
        return run_lines(r.details["run"])
    return list(r.details.get("source_run") or []) or [r.reason or ""]


def _summary(r: PropertyResult, cache: str) -> str:
    parts = [f"{r.name}: {r.verdict.upper()} ({r.kind}, engine {r.engine}, {r.time_s:.2f} s, {cache})"]
    if r.scope:
        parts.append(f"for {r.scope}")
    if r.vacuity:
        parts.append(r.vacuity)
    if r.reason:
        parts.append(r.reason)
    return "\n".join(parts)
