"""``tactl synthesize``'s text and JSON: the unknowns and their ranges, each solution as its
instantiated thresholds and resilience condition with the re-check's verdicts, each excluded
region with the property, its constraints and the short run that kills it, and the summary line.
The run is printed as ``verify`` prints one (tactl/report/run_steps.py), from the JSON form every
report shares (tactl/report/property_json.py)."""

from __future__ import annotations

from typing import Any

from tactl.ir.expr import to_text
from tactl.report.property_json import counterexample_json
from tactl.report.run_steps import change_lines, ending
from tactl.report.tightness_text import tightness_lines, weakest_lines
from tactl.synth.result import EMPTY_RC, ExcludedRegion, SynthesisResult

SHORT_STEPS = 6  # steps of a region's run shown by default (the first ones and the last ones)
REGIONS_SHOWN = 12  # regions listed by default; --verbose lists every one


def synthesis_json(result: SynthesisResult) -> dict[str, Any]:
    """The JSON of docs/synthesize.md, counterexamples in ``check --json``'s shape."""
    return result.json(counterexample_json)


def _values(values: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "no parameters"


def synthesis_text(result: SynthesisResult, full: bool = False) -> str:
    space = result.space
    lines = [f"{result.path}: unknowns {space.describe()} ({space.size():,} points in the box)"]
    if result.solutions and result.weakest is not None:
        lines.extend(weakest_lines(result))
    elif result.solutions:
        lines.append(f"{len(result.solutions)} solution{'s' if len(result.solutions) != 1 else ''}:")
    for index in result.reported():
        s = result.solutions[index]
        thresholds = ", ".join(f"{k} = {v}" for k, v in s.thresholds.items())
        lines.append(f"  {_values(s.values)}" + (f": {thresholds}" if thresholds else ""))
        lines.append(f"      resilience condition: {s.resilience}")
        checked = ", ".join(f"{k} {v}" for k, v in (s.recheck or s.verdicts).items())
        lines.append(f"      {'re-checked on the printed automaton' if s.recheck else 'checked'}: {checked}")
        lines.extend(tightness_lines(result.tightness.get(index, ())))
    if result.excluded:
        lines.append(f"{len(result.excluded)} region{'s' if len(result.excluded) != 1 else ''} excluded:")
        shown = result.excluded if full else result.excluded[:REGIONS_SHOWN]
        for e in shown:
            lines.extend(_region_lines(e, full))
        if len(shown) < len(result.excluded):
            lines.append(f"  ... {len(result.excluded) - len(shown)} more (--verbose lists every region)")
    if result.undecided:
        lines.append(f"{len(result.undecided)} candidate{'s' if len(result.undecided) != 1 else ''} undecided "
                     "(never reported as solutions):")
        lines.extend(f"  {_values(c)}: {why}" for c, why in result.undecided)
    for problem in result.problems:
        lines.append(f"BUG: {problem}")
    if result.unsupported:
        lines.append(f"nothing was searched: {result.unsupported}")
    elif not result.complete:
        lines.append(f"the search stopped after {result.candidates_tried} candidates ({result.stopped}): "
                     "the solution set may be incomplete")
    elif result.undecided:
        lines.append("the undecided candidates may be solutions too: the solution set may be incomplete")
    elif not result.solutions:
        lines.append("no candidate of the space makes every property hold")
    lines.append(f"{len(result.solutions)} solution{'s' if len(result.solutions) != 1 else ''}, "
                 f"{len(result.excluded)} region{'s' if len(result.excluded) != 1 else ''} excluded, "
                 f"{result.candidates_tried} candidate{'s' if result.candidates_tried != 1 else ''} "
                 f"checked in {result.time_s:.1f} s")
    return "\n".join(lines)


def _region_lines(e: ExcludedRegion, full: bool) -> list[str]:
    if e.kind == EMPTY_RC:
        return [f"  {_values(e.candidate)}: no initial configuration"
                + (f" ({e.note})" if e.note else "") + ": every property would hold vacuously"]
    size = "" if e.size is None else f" ({e.size} candidate{'s' if e.size != 1 else ''})"
    out = [f"  {e.property} violated from {_values(e.candidate)}: excludes {to_text(e.region)}{size}"]
    if e.note:
        out.append(f"      ({e.note})")
    cex = e.counterexample
    if cex is None or e.automaton is None:
        return out
    doc = counterexample_json(e.automaton, cex)
    shape = "a lasso" if doc.get("loop") is not None or doc.get("cycle") else "a run"
    out.append(f"      {shape} with {_values(cex.parameters)}:")
    marker = "<- violation" if shape == "a run" else "<- violation: repeats forever"
    out.extend("        " + line for line in change_lines(doc, marker=marker, keep=None if full else SHORT_STEPS))
    last = ending(doc)
    if last:
        out.append("        " + last)
    return out
