"""The reports of a ``tactl verify`` run: the terminal table, the ``--explain`` lines, the JSON
document (each property's result in the shape ``tactl check --json`` prints,
tactl/report/property_json.py, with its cache outcome and what was checked; per-pass timings), and
the files written beside each other in the report directory (JSON and HTML)."""

from __future__ import annotations

import shutil
import signal
import subprocess
from typing import Any

from tactl.driver.verify import FAILED, INTERRUPTED, AlgorithmRun, Run
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY
from tactl.ir.expr import to_text
from tactl.passes.emit.dot import emit_dot
from tactl.report.check_json import automaton_json
from tactl.report.counts import counts_line
from tactl.report.property_json import property_json
from tactl.report.rounds import conclusion_json, round_structure, summary_lines
from tactl.report.spacetime import counterexample_diagram, diagram_svg, fault_parameters
from tactl.report.statement import statement
from tactl.util.version import __version__


def automaton_svg(run: AlgorithmRun, highlight: frozenset[int] = frozenset()) -> tuple[str | None, str | None]:
    """The automaton drawn by Graphviz as SVG text (``highlight``: rule indices drawn thick and
    red, a counterexample's path), or None and why not."""
    exe = shutil.which("dot")
    if exe is None:
        return None, "no picture: Graphviz's 'dot' is not installed (make tools installs it)"
    text = emit_dot(run.loaded.ta, hide_self_loops=True, highlight=highlight)
    try:
        done = subprocess.run([exe, "-Tsvg"], input=text.encode(), capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "no picture: Graphviz took longer than 120 s"
    if done.returncode != 0:
        return None, "no picture: Graphviz failed: " + done.stderr.decode(errors="replace").strip()
    return done.stdout.decode("utf-8", errors="replace"), None


def algorithm_json(run: AlgorithmRun, with_svg: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"name": run.name, "file": run.path, "kind": run.kind}
    warnings = list(run.warnings)
    if run.error or run.interrupted:
        out.update({"error": run.error, "properties": [], "passes": [r.json() for r in run.records],
                    "warnings": warnings, "exit_code": run.exit_code} if run.error else
                   {"interrupted": True, "properties": [], "passes": [], "warnings": warnings,
                    "exit_code": None})
        return out
    if run.program is not None:  # --engine source: the program itself, no automaton
        return _program_json(run, out, warnings)
    ta = run.loaded.ta
    out["automaton"] = {**automaton_json(ta),
                        "resilience": " && ".join(to_text(a) for a in ta.assumptions) or "true"}
    out["passes"] = [r.json() for r in run.records]
    out["certificates"] = run.loaded.certificates
    if run.kind in ("alg", "rta", "pml") and run.loaded.source:
        out["source"] = run.loaded.source  # the report shows the input the lines refer to
    if with_svg:
        svg, why = automaton_svg(run)
        out["svg"] = svg
        if why:
            warnings.append(why)
    out["properties"] = [{**property_json(ta, v.result), "cache": cache,
                          **_what_was_checked(run, v.result, with_svg)} for v, cache in run.verdicts]
    for v, _ in run.verdicts:
        warnings.extend(v.warnings)
    rounds = _rounds(run)
    if rounds is not None:
        out["multi_round"] = conclusion_json(rounds, [v.result for v, _ in run.verdicts])
    out["outputs"] = dict(run.outputs)
    out["warnings"] = list(dict.fromkeys(warnings))
    out["exit_code"] = run.exit_code
    return out


def _program_json(run: AlgorithmRun, out: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """An ``.alg`` run by the reference interpreter: its valuation, its text, each verdict (a
    violation's run as pseudocode lines in ``details.source_run``); no automaton was built."""
    out["engine"] = "source"
    out["parameters"] = dict(run.program_parameters)
    out["passes"] = [r.json() for r in run.records]
    out["source"] = run.program.text
    out["properties"] = [{**property_json(None, v.result), "cache": cache} for v, cache in run.verdicts]
    for v, _ in run.verdicts:
        warnings.extend(v.warnings)
    rounds = _rounds(run)
    if rounds is not None:
        out["multi_round"] = conclusion_json(rounds, [v.result for v, _ in run.verdicts])
    out["warnings"] = list(dict.fromkeys(warnings))
    out["exit_code"] = run.exit_code
    return out


def _rounds(run: AlgorithmRun):
    """The ``rounds carrying`` structure of an ``.alg`` run (tactl/report/rounds.py), or None."""
    text = run.program.text if run.program is not None else run.loaded.source if run.loaded else ""
    if run.kind != "alg" or run.error or run.interrupted or not text:
        return None
    return round_structure(text, run.path)


def _what_was_checked(run: AlgorithmRun, result, with_svg: bool) -> dict[str, Any]:
    """The property's statement (formula as written, justice, hypothesis, resilience condition:
    tactl/report/statement.py) and, for a counterexample, the pictures the HTML report shows:
    the automaton with the counterexample's rules highlighted and its space–time diagram."""
    ta = run.loaded.ta
    prop = next((p for p in ta.properties if p.name == result.name), None)
    out: dict[str, Any] = {}
    if prop is not None:
        out["statement"] = statement(ta, prop, run.loaded.source or "", run.kind)
    cex = result.counterexample
    if with_svg and cex is not None:
        rules = frozenset(s.rule for s in list(cex.schedule) + list(cex.cycle or [])) | (
            frozenset() if cex.loop is None else frozenset({cex.loop}))
        out["path_svg"], _ = automaton_svg(run, rules)
        faulty = fault_parameters(ta, run.loaded.receive, run.kind)
        diagram = counterexample_diagram(ta, cex, result.name, faulty,
                                         prop.formula if prop is not None else None)
        out["spacetime_svg"] = diagram_svg(diagram)
        if diagram.violation is not None:  # the configuration the table marks
            out["violating_configuration"] = diagram.violation
    return out


def run_json(run: Run, with_svg: bool = False) -> dict[str, Any]:
    records = [r for a in run.algorithms for r in a.records]
    return {
        "tactl_version": __version__,
        "command": run.command,
        "started": run.started,
        "wall_s": round(run.wall_s, 3),
        "cache": {"dir": run.cache_dir, "enabled": run.cache_dir is not None,
                  "hits": sum(r.cache == "hit" for r in records),
                  "misses": sum(r.cache == "miss" for r in records)},
        "algorithms": [algorithm_json(a, with_svg) for a in run.algorithms],
        "warnings": list(run.warnings),
        **({"interrupted": signal.Signals(run.interrupted).name} if run.interrupted else {}),
        "exit_code": run.exit_code,
    }


def run_table(run: Run) -> str:
    """Algorithm, property, class, verdict, vacuity, engine, time, cache: one line per property
    (vacuity: what a HOLDS says about its antecedents, ``ir/eltl/vacuity.py``)."""
    rows = [("algorithm", "property", "class", "verdict", "vacuity", "engine", "time", "cache")]
    for a in run.algorithms:
        if a.error or a.interrupted:
            rows.append((a.name, "-", "-", "BAD INPUT" if a.error else "INTERRUPTED", "-", "-", "-", "-"))
            continue
        for v, cache in a.verdicts:
            r = v.result
            assuming = f" assuming {r.details['hypothesis']}" if r.details.get("hypothesis") else ""
            undecided = cache in (INTERRUPTED, FAILED)
            shown = cache.upper() if undecided else r.verdict.upper() + assuming  # never a verdict
            rows.append((a.name, r.name, r.formula_class or r.kind, shown,
                         "-" if undecided else vacuity_cell(r), r.engine,
                         "-" if undecided else f"{r.time_s:.2f} s", cache))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    outcomes = [cache if cache in (INTERRUPTED, FAILED) else v.result.verdict
                for a in run.algorithms for v, cache in a.verdicts]
    summary = counts_line(outcomes)  # counted as 'check' counts them
    if run.interrupted:
        summary += (f", {outcomes.count(INTERRUPTED)} interrupted "
                    f"({signal.Signals(run.interrupted).name}: the run stopped)")
    if FAILED in outcomes:
        summary += f", {outcomes.count(FAILED)} not decided (internal error)"
    bad = sum(1 for a in run.algorithms if a.error)
    lines.append(f"{summary}{f', {bad} with bad input' if bad else ''} "
                 f"({len(run.algorithms)} algorithm{'s' if len(run.algorithms) != 1 else ''}, "
                 f"{run.wall_s:.2f} s)")
    lines.extend(source_run_lines(run))
    for a in run.algorithms:
        rounds = _rounds(a)
        if rounds is not None:
            lines.extend(summary_lines(a.name, rounds, [v.result for v, _ in a.verdicts]))
    return "\n".join(lines)


def source_run_lines(run: Run) -> list[str]:
    """Under the table, each violation the reference interpreter found (``--engine source``),
    with its run in pseudocode lines, as ``check --engine source`` prints it."""
    lines: list[str] = []
    for a in run.algorithms:
        for v, cache in a.verdicts:
            r = v.result
            if r.verdict != "violated" or not r.details.get("source_run"):
                continue
            values = ", ".join(f"{k}={x}" for k, x in (r.details.get("valuation") or {}).items())
            lines.append(f"{a.name}: {r.name} VIOLATED at {values}, by this run of the program:")
            lines.extend("    " + str(x) for x in r.details["source_run"])
    return lines


def vacuity_cell(r) -> str:
    """``vacuous`` for a vacuous pass, else what a HOLDS says about its antecedents; ``-`` for
    the other verdicts."""
    if r.verdict == HOLDS_VACUOUSLY:
        return "vacuous"
    return (r.vacuity or "not asked") if r.verdict == HOLDS else "-"


def explain_lines(run: Run) -> list[str]:
    """``--explain``: per algorithm, each pass with its cache outcome and why."""
    lines = [f"cache: {run.cache_dir or 'off'}"]
    for a in run.algorithms:
        lines.append(f"{a.name} ({a.path}):")
        for r in a.records:
            about = f" [{r.subject}]" if r.subject else ""
            lines.append(f"  {r.name} v{r.version}{about}: {r.cache.upper()} in {r.time_s:.3f} s — {r.why}")
    return lines
