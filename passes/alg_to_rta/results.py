"""What the extraction returns: the receive automaton and, per location, its meaning in program
terms — and the table ``tactl parse`` prints from them.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.rta.model import ReceiveTA


@dataclass(frozen=True)
class LocationInfo:
    """What ``tactl parse`` prints about a location: its meaning in program terms."""

    name: str
    point: str
    values: tuple[tuple[str, str], ...]  # (variable, value) kept at this location
    sent: tuple[str, ...]
    line: int | None


@dataclass(frozen=True)
class ParseResult:
    rta: ReceiveTA
    locations: tuple[LocationInfo, ...]


def location_table(result: ParseResult) -> str:
    """The table ``tactl parse`` prints: each location's meaning, then each rule's source lines."""
    rta = result.rta
    initial = set(rta.initial)
    rows = [("location", "meaning", "line")]
    for info in result.locations:
        values = ", ".join(f"{c} = {v}" for c, v in info.values)
        sent = ("sent " + ", ".join(info.sent)) if info.sent else ""
        meaning = "; ".join(x for x in (info.point, values, sent) if x)
        mark = " (initial)" if info.name in initial else ""
        rows.append((info.name + mark, meaning, str(info.line or "")))
    width = [max(len(r[i]) for r in rows) for i in range(2)]
    out = [f"{a:<{width[0]}}  {b:<{width[1]}}  {c}".rstrip() for a, b, c in rows]
    out.insert(1, "-" * len(out[0]))
    out.append("")
    out.append("rule  step                         pseudocode executed")
    for r in rta.rules:
        step = f"{r.source} -> {r.target}" + (f" send {', '.join(r.sends)}" if r.sends else "")
        out.append(f"{r.id:<4}  {step:<28} {r.origin.describe() if r.origin else ''}")
    return "\n".join(out)
