"""The report of ``tactl check FILE.pml --engine source`` (tactl/engines/spin_source.py): SPIN's
verdicts on the file itself at one valuation, in the shape of check's other reports (one line
per property, the reason or the end of SPIN's trail under it), as text or JSON."""

from __future__ import annotations

import re

from tactl.util.version import __version__
from tactl.engines.result import HOLDS, VIOLATED
from tactl.engines.spin_source import SourceReport
from tactl.report.counts import counts_line

TRAIL_SHOWN = 12  # lines of SPIN's replay in the text report (the JSON has more)
_STEP = re.compile(r"\s*\d+:\s+proc\s+\d")  # "  13:  proc  3 (Proc:1) file.pml:87 (state 16) [...]"


def source_text(report: SourceReport) -> str:
    values = ", ".join(f"{k}={v}" for k, v in report.parameters.items())
    copies = ", ".join(f"{n} × {p}" for p, n in report.copies.items())
    lines = [f"{report.path}: SPIN on the file itself at {values or 'no parameters'}"
             + (f" ({copies})" if copies else "")]
    if report.error:
        lines.append(f"  nothing checked: {report.error}")
    width = max((len(r.name) for r in report.results), default=8)
    for r in report.results:
        head = f"  {r.name:<{width}}  {r.kind:<9}  {r.verdict.upper():<11}  {r.time_s:6.2f} s"
        if "states" in r.details:
            head += f"  {r.details['states']} states"
        lines.append(head)
        if r.verdict == HOLDS:
            lines.append(f"  {'':<{width}}  for this valuation only (pan's exhaustive search; not a proof for all n)")
        if r.reason:
            lines.append(f"  {'':<{width}}  {r.reason}")
        if r.verdict == VIOLATED:
            lines.append(f"  {'':<{width}}  SPIN's replay of pan's trail (spin -t), its end:")
            steps = [t.strip() for t in r.trail if _STEP.match(t) and "valid end state" not in t
                     or "CYCLE" in t or "Error" in t]
            lines += [f"  {'':<{width}}    {t}" for t in steps[-TRAIL_SHOWN:]]
    lines += [f"  note: {n}" for n in report.notes]
    lines.append(counts_line(r.verdict for r in report.results))
    return "\n".join(lines)


def source_json(report: SourceReport) -> dict[str, object]:
    return {
        "file": report.path, "tactl_version": __version__, "engine": "source",
        "parameters": dict(report.parameters), "processes": dict(report.copies),
        "properties": [{"name": r.name, "kind": r.kind, "verdict": r.verdict, "time_s": round(r.time_s, 4),
                        "formula": r.formula, "line": r.line,
                        **({"reason": r.reason} if r.reason else {}),
                        **({"trail": r.trail} if r.trail else {}), **r.details}
                       for r in report.results],
        **({"error": report.error} if report.error else {}),
        "notes": list(report.notes), "exit_code": report.exit_code,
    }
