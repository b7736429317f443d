"""Canonical ``.rta`` text of a receive threshold automaton; it re-reads to an equal IR.

Sections come in a fixed order (parameters, assumptions, faults, timing, messages, locations,
initial, rules, specifications). Message types are printed in IR order, one statement per run of
types with the same kind (``messages A, B;`` or ``kind P: C, D;``), so that the order survives a
round trip. A guard ``true`` is left out, as is an empty ``send``. The output has no comments.
"""

from __future__ import annotations

from itertools import groupby

from .expr import BoolConst, to_text
from .rta import ReceiveRule, ReceiveTA

_INDENT = "  "


def print_rta(rta: ReceiveTA) -> str:
    out: list[str] = [f"rta {rta.name} {{"]
    if rta.parameters:
        out.append(f"{_INDENT}parameters {', '.join(rta.parameters)};")
    if rta.assumptions:
        out.extend(_block("assumptions", [to_text(e) + ";" for e in rta.assumptions]))
    out.append(f"{_INDENT}faults {rta.faults.model.value}({', '.join(rta.faults.parameters)});")
    out.append(f"{_INDENT}timing {rta.timing.value};")
    for kind, group in groupby(rta.messages, key=lambda m: m.kind):
        names = ", ".join(m.name for m in group)
        out.append(f"{_INDENT}messages {names};" if kind is None else f"{_INDENT}kind {kind}: {names};")
    if rta.locations:
        out.append(f"{_INDENT}locations {', '.join(loc.name for loc in rta.locations)};")
    if rta.initial:
        out.append(f"{_INDENT}initial {', '.join(rta.initial)};")
    out.append("")
    out.extend(_block("rules", [_rule(r) for r in rta.rules]))
    if rta.properties:
        out.append("")
        out.extend(_block("specifications",
                          [f"{p.name}: {to_text(p.formula)};" for p in rta.properties]))
    out.append("}")
    return "\n".join(out) + "\n"


def _block(keyword: str, lines: list[str]) -> list[str]:
    return [f"{_INDENT}{keyword} ({len(lines)}) {{", *(_INDENT * 2 + line for line in lines),
            f"{_INDENT}}}"]


def _rule(r: ReceiveRule) -> str:
    text = f"{r.id}: {r.source} -> {r.target}"
    if r.guard != BoolConst(True):
        text += f" when ({to_text(r.guard)})"
    if r.sends:
        text += f" send {', '.join(r.sends)}"
    return text + ";"
