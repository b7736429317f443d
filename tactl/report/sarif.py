"""Verdicts as SARIF 2.1.0 (``--sarif`` of ``tactl check`` and ``tactl verify``), the format code
scanning services read to annotate a source line.

Every property that is not simply HOLDS is a *result*: VIOLATED (level ``error``), UNKNOWN
(``warning``), UNSUPPORTED and HOLDS VACUOUSLY (``note``), each under a rule of its own, so a CI
can filter by kind. A result is located where the user wrote the property: the ``.alg`` property
line or the ``.pml`` ``ltl`` line (the source map the front ends keep on each property,
``ir.ta.model.Origin``), the ``.ta``/``.rta`` specification (the reader's span). A violation's run
is a ``codeFlows`` thread flow: the initial configuration at the property, then each step at the
source lines of the rule that fired (the lines of the pseudocode or Promela it executes, from the
same source maps ``tactl check`` prints as "in the pseudocode"; the rule's line in a ``.ta`` or
``.rta``; the property's file alone when the automaton's rule has no line), with the configuration after the
step as the location's ``state`` — the rows of check's counterexample table. A lasso ends with
the loop. One SARIF run holds every algorithm of a ``verify`` (code scanning takes one run per
tool and upload).

Nothing here writes files; the CLI does, atomically (tactl/util/fsutil.py).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any, Sequence
from urllib.parse import quote

from tactl.engines.result import HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, PropertyResult
from tactl.ir.errors import InputError, Span
from tactl.ir.ta.model import Rule, ThresholdAutomaton
from tactl.report.property_json import rule_name, violating_step
from tactl.util.version import __version__

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"

# verdict -> (rule id, level, short description, help)
RULES: dict[str, tuple[str, str, str, str]] = {
    VIOLATED: ("property-violated", "error", "A property of the algorithm is violated",
               "tactl found parameter values and a run of the algorithm that violates the "
               "property, and its simulator replayed the run. The code flow is that run, step "
               "by step over the source lines each step executes."),
    UNKNOWN: ("property-unknown", "warning", "A property could not be decided",
              "The engine neither proved the property nor found a replayed violation (a timeout, "
              "an inconclusive check, a bounded search); the message says why."),
    UNSUPPORTED: ("property-unsupported", "note", "A property lies outside what the engine decides",
                  "The property's formula or the automaton is outside the fragment the engine "
                  "decides; nothing was concluded. The message gives the reason."),
    HOLDS_VACUOUSLY: ("property-holds-vacuously", "note", "A property holds only vacuously",
                      "The property holds because no run meets its antecedents (initially ..., "
                      "the p of [](p -> <>q), the justice): usually a specification mistake."),
}


@dataclass(frozen=True)
class Checked:
    """One input and what was decided on it: the automaton checked (None when none was built),
    the results, the file as the user named it and its text (for columns)."""

    path: str
    ta: ThresholdAutomaton | None
    results: Sequence[PropertyResult]
    text: str = ""
    algorithm: str = ""


def checked_run(a: Any) -> Checked:
    """What a ``tactl verify`` run decided on one algorithm (``tactl.driver.verify.AlgorithmRun``):
    the checked automaton's text, or the program's when the interpreter ran it."""
    text = getattr(a.loaded, "source", "") or getattr(a.program, "text", "") or ""
    return Checked(a.path, getattr(a.loaded, "ta", None), [v.result for v, _ in a.verdicts], text, a.name)


@dataclass
class Place:
    """A place in a source file: path and an optional 1-based region."""

    path: str
    line: int | None = None
    col: int | None = None
    end_line: int | None = None
    end_col: int | None = None
    extra: list[tuple[int, int]] = field(default_factory=list)  # further (first, last) line blocks


def sarif_document(inputs: Sequence[Checked], exit_code: int | None = None) -> dict[str, Any]:
    """The SARIF log of ``inputs`` (one run, the results of every input in order)."""
    results = []
    for checked in inputs:
        for r in checked.results:
            if r.verdict in RULES:
                results.append(_result(checked, r))
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "tactl", "version": __version__,
                            "rules": [_rule(v) for v in RULES]}},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if exit_code is not None:
        run["invocations"] = [{"executionSuccessful": True, "exitCode": exit_code}]
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _rule(verdict: str) -> dict[str, Any]:
    rule_id, level, short, help_text = RULES[verdict]
    return {"id": rule_id, "name": "".join(w.capitalize() for w in rule_id.split("-")),
            "shortDescription": {"text": short}, "fullDescription": {"text": help_text},
            "help": {"text": help_text}, "defaultConfiguration": {"level": level},
            "properties": {"verdict": verdict}}


def _result(checked: Checked, r: PropertyResult) -> dict[str, Any]:
    rule_id, level, _, _ = RULES[r.verdict]
    where = property_location(checked, r.name)
    out: dict[str, Any] = {
        "ruleId": rule_id, "ruleIndex": list(RULES).index(r.verdict), "level": level,
        "message": {"text": result_message(checked, r)},
        "locations": [_location(where, logical=r.name)],
        "partialFingerprints": {"tactlProperty/v1": f"{checked.algorithm or checked.path}:{r.name}:{r.verdict}"},
        "properties": {"property": r.name, "verdict": r.verdict, "kind": r.kind, "engine": r.engine,
                       **({"class": r.formula_class} if r.formula_class else {}),
                       **({"algorithm": checked.algorithm} if checked.algorithm else {})},
    }
    if r.verdict == VIOLATED and r.counterexample is not None and checked.ta is not None:
        out["codeFlows"] = [code_flow(checked, r, where)]
        out["properties"]["parameters"] = dict(r.counterexample.parameters)
    elif r.verdict == VIOLATED and isinstance(r.details.get("run"), dict):
        out["codeFlows"] = [_lockstep_flow(r, where)]
        out["properties"]["parameters"] = dict(r.details["run"]["parameters"])
    elif r.verdict == VIOLATED and r.details.get("source_run"):
        out["codeFlows"] = [_program_flow(r, where)]
        out["properties"]["parameters"] = dict(r.details.get("valuation") or {})
    return out


def result_message(checked: Checked, r: PropertyResult) -> str:
    """One sentence for the annotation: the verdict, for a violation its parameters and the
    shape of the run, else the reason."""
    who = f"{checked.algorithm}: " if checked.algorithm else ""
    if r.verdict == VIOLATED:
        cex = r.counterexample
        if cex is not None:
            params = ", ".join(f"{k}={v}" for k, v in cex.parameters.items()) or "no parameters"
            return f"{who}{r.name} is VIOLATED with {params}: {run_summary(checked.ta, cex)}"
        run = r.details.get("run")
        if isinstance(run, dict):
            params = ", ".join(f"{k}={v}" for k, v in run["parameters"].items())
            rounds = len(run["rounds"]) - 1  # the last entry is where the run ends
            return (f"{who}{r.name} is VIOLATED with {params}: a lock-step run of {rounds} "
                    f"round{'' if rounds == 1 else 's'} (replayed by the lock-step simulator)")
        if r.details.get("source_run"):  # the reference interpreter's run of the program
            params = ", ".join(f"{k}={v}" for k, v in (r.details.get("valuation") or {}).items())
            return f"{who}{r.name} is VIOLATED with {params}: a run of the program (replayed by the interpreter)"
        return f"{who}{r.name} is VIOLATED" + (f": {r.reason}" if r.reason else "")
    reason = f": {r.reason}" if r.reason else ""
    return f"{who}{r.name} is {r.verdict.upper()}{reason}"


def run_summary(ta: ThresholdAutomaton | None, cex: Counterexample) -> str:
    """``a run of 2 steps (replayed by the simulator)``, or the lasso's prefix and loop."""
    replayed = "replayed by the simulator" if cex.replayed else f"NOT replayed: {cex.replay.message}"
    n = len(cex.schedule)
    prefix = f"{n} step{'' if n == 1 else 's'}"
    if cex.cycle:
        return f"a lasso: {prefix}, then a cycle of {len(cex.cycle)} repeated forever ({replayed})"
    if cex.loop is not None and ta is not None:
        return f"a lasso: {prefix}, then {rule_name(ta, cex.loop)} at {ta.rules[cex.loop].source} forever ({replayed})"
    return f"a run of {prefix} ({replayed})"


# ---------------------------------------------------------------------------- locations


def property_location(checked: Checked, name: str) -> Place:
    """Where the property ``name`` is written: its source-map line (``.alg``, ``.pml``), its
    span (``.ta``, ``.rta``), else the input file as a whole."""
    prop = next((p for p in checked.ta.properties if p.name == name), None) if checked.ta else None
    if prop is not None and prop.origin is not None and prop.origin.lines:
        line = prop.origin.lines[0]
        col, end = _column(checked, prop.origin.file, line, name)
        return Place(prop.origin.file, line, col, line, end)
    if prop is not None and prop.span is not None:
        return _span_where(checked.path, prop.span)
    if checked.ta is None and checked.path.endswith(".alg") and checked.text:  # --engine source
        span = _alg_property_span(checked, name)
        if span is not None:
            return _span_where(checked.path, span)
    return Place(checked.path)


def _alg_property_span(checked: Checked, name: str) -> Span | None:
    """The span of property ``name`` in the pseudocode the reference interpreter ran (no
    automaton carries it then)."""
    from tactl.ir.alg.reader import parse_alg  # lazy: only for the interpreter's results

    try:
        alg = parse_alg(checked.text, checked.path)
    except InputError:
        return None
    return next((p.span for p in alg.properties if p.name == name), None)


def _column(checked: Checked, path: str, line: int, name: str) -> tuple[int | None, int | None]:
    """The columns of ``name`` on ``line`` of the checked text (None when the line is in
    another file or does not show the name)."""
    if path != checked.path or not checked.text:
        return None, None
    lines = checked.text.splitlines()
    if not 0 < line <= len(lines):
        return None, None
    m = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", lines[line - 1])
    return (m.start() + 1, m.end() + 1) if m else (None, None)


def _span_where(path: str, span: Span) -> Place:
    return Place(path, span.line, span.col, span.end_line, span.end_col)


def rule_location(checked: Checked, rule: Rule, fallback: Place) -> Place:
    """The source lines of an automaton rule: its source map (the pseudocode or Promela lines
    it executes, as contiguous blocks), its span in a ``.ta``, else the file of ``fallback``."""
    if rule.origin is not None and rule.origin.lines:
        blocks = _blocks(rule.origin.lines)
        first, last = blocks[0]
        return Place(rule.origin.file, first, None, last, None, blocks[1:])
    if rule.span is not None:
        return _span_where(checked.path, rule.span)
    if checked.path.endswith(".rta") and checked.text:
        span = _rta_rule_spans(checked.path, checked.text).get((rule.source, rule.target))
        if span is not None:
            return _span_where(checked.path, span)
    return Place(fallback.path)


@lru_cache(maxsize=8)
def _rta_rule_spans(path: str, text: str) -> dict[tuple[str, str], Span]:
    """The line of each rule of a receive automaton the user wrote, by (source, target) where
    only one rule has them: the translation (passes/rta_to_ta/eliminate.py) keeps each rule's
    source and target, so such a rule of the threshold automaton comes from that one (the
    rules it adds, to the crash location or stutter loops, match none or are ambiguous)."""
    from tactl.ir.rta.reader import parse_rta  # lazy: only for a .rta input's code flows

    try:
        rta = parse_rta(text, path)
    except InputError:
        return {}
    count: dict[tuple[str, str], int] = {}
    for r in rta.rules:
        count[(r.source, r.target)] = count.get((r.source, r.target), 0) + 1
    return {(r.source, r.target): r.span for r in rta.rules
            if r.span is not None and count[(r.source, r.target)] == 1 and r.source != r.target}


def _blocks(lines: Sequence[int]) -> list[tuple[int, int]]:
    """``(15, 16, 17, 19)`` as ``[(15, 17), (19, 19)]``: runs of consecutive lines."""
    out: list[tuple[int, int]] = []
    for n in sorted(set(lines)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def artifact_uri(path: str) -> str:
    """A path as the URI code scanning resolves against the checkout: relative to the working
    directory when it lies under it, POSIX separators; other absolute paths as ``file://``."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path(os.getcwd()))
        except ValueError:
            return p.as_uri()
    return quote(str(PurePosixPath(*p.parts)), safe="/")


def _location(where: Place, message: str | None = None, logical: str | None = None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(where.path)}}
    if where.line is not None:
        region: dict[str, Any] = {"startLine": where.line}
        if where.col is not None:
            region["startColumn"] = where.col
        if where.end_line is not None and where.end_line != where.line:
            region["endLine"] = where.end_line
        if where.end_col is not None:
            region["endColumn"] = where.end_col
        physical["region"] = region
    out: dict[str, Any] = {"physicalLocation": physical}
    if message:
        out["message"] = {"text": message}
    if logical:
        out["logicalLocations"] = [{"name": logical, "kind": "member"}]
    return out


# ---------------------------------------------------------------------------- code flows


def _state(config_values: dict[str, int], names: Sequence[str]) -> dict[str, Any]:
    return {x: {"text": str(config_values[x])} for x in names}


def code_flow(checked: Checked, r: PropertyResult, at_property: Place) -> dict[str, Any]:
    """The counterexample of ``r`` as one thread flow over the source lines of its steps."""
    ta = checked.ta
    assert ta is not None and r.counterexample is not None
    cex = r.counterexample
    names = [*(loc.name for loc in ta.locations), *ta.shared]
    configs = cex.replay.configurations
    steps = cex.schedule + (cex.cycle or [])
    bad = violating_step(cex)
    params = ", ".join(f"{k}={v}" for k, v in cex.parameters.items()) or "no parameters"
    flow: list[dict[str, Any]] = []

    def add(where: Place, message: str, values: dict[str, int] | None) -> None:
        loc: dict[str, Any] = {"location": _location(where, message), "executionOrder": len(flow) + 1}
        if values is not None:
            loc["state"] = _state(values, names)
        flow.append(loc)
        for first, last in where.extra:  # the step's further lines, in order
            more = Place(where.path, first, None, last, None)
            flow.append({"location": _location(more, f"{message} (continued)"),
                         "executionOrder": len(flow) + 1, "nestingLevel": 1})

    initial = dict(configs[0].counters) | dict(configs[0].shared) if configs else None
    nonzero = ", ".join(f"{k}={v}" for k, v in (initial or {}).items() if v) or "every counter 0"
    add(at_property, f"initial configuration with {params}: {nonzero}", initial)
    for n, step in enumerate(steps, 1):
        rule = ta.rules[step.rule]
        who = f"{step.factor} process{'' if step.factor == 1 else 'es'}"
        what = rule.origin.describe() if rule.origin else f"rule {rule_name(ta, step.rule)}"
        in_cycle = " (in the loop)" if cex.cycle and n > len(cex.schedule) else ""
        mark = "; the property is violated here" if bad == n else ""
        values = dict(configs[n].counters) | dict(configs[n].shared) if n < len(configs) else None
        add(rule_location(checked, rule, at_property),
            f"step {n}{in_cycle}: {who} {rule.source} -> {rule.target} by {rule_name(ta, step.rule)}: {what}{mark}",
            values)
    if cex.loop is not None:
        rule = ta.rules[cex.loop]
        what = rule.origin.describe() if rule.origin else "a self-loop that changes nothing"
        add(rule_location(checked, rule, at_property),
            f"then forever: the processes at {rule.source} take {rule_name(ta, cex.loop)} ({what}); "
            f"configuration {len(configs) - 1} repeats", None)
    elif cex.cycle:
        add(at_property, f"the steps in the loop repeat forever: configuration {len(cex.schedule)} comes back",
            None)
    return {"message": {"text": f"a run violating {r.name} with {params}: {run_summary(ta, cex)}"},
            "threadFlows": [{"locations": flow}]}


def _lockstep_flow(r: PropertyResult, at_property: Place) -> dict[str, Any]:
    """A lock-step counterexample: one location per round start, at the property (the rounds'
    rules are labels of the synchronous automaton, not source lines)."""
    run = r.details["run"]
    flow = []
    for i, round_ in enumerate(run["rounds"]):
        start = ", ".join(f"{k}={v}" for k, v in round_["start"].items()) or "no process"
        rules = "; ".join(f"{n} x {label}" for label, n in round_["rules"].items())
        text = f"round {i + 1} starts: {start}" + (f"; then {rules}" if rules else "; the property is violated")
        flow.append({"location": _location(at_property, text), "executionOrder": i + 1,
                     "state": {k: {"text": str(v)} for k, v in round_["start"].items()}})
    params = ", ".join(f"{k}={v}" for k, v in run["parameters"].items())
    return {"message": {"text": f"a lock-step run violating {r.name} with {params}"},
            "threadFlows": [{"locations": flow}]}


def _program_flow(r: PropertyResult, at_property: Place) -> dict[str, Any]:
    """A run of the reference interpreter (``details.source_run``, its lines as ``tactl check
    --engine source`` prints them): each step at the pseudocode lines it names, the initial
    states at the property; steps after "loop" repeat forever."""
    flow: list[dict[str, Any]] = []
    looping = False
    for text in r.details["source_run"]:
        text = str(text).strip()
        if text.startswith("loop"):
            looping = True
            continue
        if not (text.startswith("initially") or text.startswith("step ")):
            continue  # the final states and the replay note: in the message of the result
        executed = text.split(" and stops at ")[0]  # not the line where the process waits next
        lines = [int(n) for n in re.findall(r"\bline (\d+)\b", executed)]
        where = at_property
        if lines:  # the lines the step executes, from the first to the end of its block
            first, last = _blocks(lines)[0]
            where = Place(at_property.path, first, None, last)
        flow.append({"location": _location(where, f"{text} (in the loop)" if looping else text),
                     "executionOrder": len(flow) + 1})
    params = ", ".join(f"{k}={v}" for k, v in (r.details.get("valuation") or {}).items())
    return {"message": {"text": f"a run of the program violating {r.name} with {params}"},
            "threadFlows": [{"locations": flow}]}
