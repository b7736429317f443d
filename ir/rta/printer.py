"""Canonical ``.rta`` text of a receive threshold automaton; it re-reads to an equal IR.

Sections come in a fixed order (parameters, unknowns, assumptions, faults, timing, messages, locations,
initial, rules, crash locations and crash rules, specifications). Message types are printed in IR order, one statement per run of
types with the same kind (``messages A, B;`` or ``kind P: C, D;``), so that the order survives a
round trip. A guard ``true`` is left out, as is an empty ``send``. The output has no comments, except the source map
of a generated automaton when asked for.
"""

from __future__ import annotations

from itertools import groupby

from tactl.ir.expr import BoolConst, to_text
from tactl.ir.rta.model import BOUND_TERMS, Faults, ReceiveRule, ReceiveTA

_INDENT = "  "


def _comment(text: str) -> str:
    return "/* " + text.replace("*/", "* /") + " */"


def print_rta(rta: ReceiveTA, source_map: bool = False) -> str:
    """The canonical text; with ``source_map``, each generated location and rule is preceded by
    a comment saying where in the pseudocode it comes from (``ir.ta.Origin``)."""
    out: list[str] = [f"rta {rta.name} {{"]
    if rta.parameters:
        out.append(f"{_INDENT}parameters {', '.join(rta.parameters)};")
    if rta.unknowns:
        out.append(f"{_INDENT}{unknowns_text(rta)};")
    if rta.assumptions:
        out.extend(_block("assumptions", [to_text(e) + ";" for e in rta.assumptions]))
    out.append(f"{_INDENT}faults {faults_text(rta.faults)};")
    out.append(f"{_INDENT}timing {rta.timing.value};")
    for kind, group in groupby(rta.messages, key=lambda m: m.kind):
        names = ", ".join(m.name for m in group)
        out.append(f"{_INDENT}messages {names};" if kind is None else f"{_INDENT}kind {kind}: {names};")
    if rta.coordinator:
        out.append(f"{_INDENT}coordinator {', '.join(rta.coordinator)};")
    if rta.locations:
        out.extend(_locations("locations", rta.locations, source_map))
    if rta.initial:
        out.append(f"{_INDENT}initial {', '.join(rta.initial)};")
    out.append("")
    out.extend(_rules("rules", rta.rules, source_map))
    if rta.crash_locations:
        out.append("")
        out.extend(_locations("crash locations", rta.crash_locations, source_map))
        out.extend(_rules("crash rules", rta.crash_rules, source_map))
    if rta.properties:
        out.append("")
        specs: list[str] = []
        for p in rta.properties:
            if source_map and p.origin:
                specs.append(_comment(p.origin.describe()))
            assuming = f" assuming {p.hypothesis.text()}" if p.hypothesis else ""
            specs.append(f"{p.name}{assuming}: {to_text(p.formula)};")
        out.append(f"{_INDENT}specifications ({len(rta.properties)}) {{")
        out.extend(_INDENT * 2 + line for line in specs)
        out.append(f"{_INDENT}}}")
    out.append("}")
    return "\n".join(out) + "\n"


def _locations(keyword: str, locations, source_map: bool) -> list[str]:
    """``locations A, B;`` (or ``crash locations …``), each origin in a comment before it."""
    out = []
    if source_map and any(loc.origin for loc in locations):
        width = max(len(loc.name) for loc in locations)
        out += [f"{_INDENT}{_comment(f'{loc.name:<{width}}  {loc.origin.describe()}')}"
                for loc in locations if loc.origin]
    return [*out, f"{_INDENT}{keyword} {', '.join(loc.name for loc in locations)};"]


def _rules(keyword: str, rules, source_map: bool) -> list[str]:
    """``rules (k) { … }`` (or ``crash rules``), each origin in a comment before its rule."""
    lines: list[str] = []
    for r in rules:
        if source_map and r.origin:
            lines.append(_comment(r.origin.describe()))
        lines.append(_rule(r))
    return [f"{_INDENT}{keyword} ({len(rules)}) {{", *(_INDENT * 2 + line for line in lines),
            f"{_INDENT}}}"]


def _block(keyword: str, lines: list[str]) -> list[str]:
    return [f"{_INDENT}{keyword} ({len(lines)}) {{", *(_INDENT * 2 + line for line in lines),
            f"{_INDENT}}}"]


def _rule(r: ReceiveRule) -> str:
    text = f"{r.id}: {r.source} -> {r.target}"
    if r.guard != BoolConst(True):
        text += f" when ({to_text(r.guard)})"
    if r.sends:
        text += f" send {', '.join(r.sends)}"
    if r.choice:
        text += f" {r.choice}"
    return text + ";"


def unknowns_text(rta: ReceiveTA) -> str:
    """``unknowns ?a in 0..1, ?b in -2..2 where ?a + ?b >= 0``."""
    text = "unknowns " + ", ".join(u.text() for u in rta.unknowns)
    if rta.unknown_constraints:
        text += " where " + ", ".join(to_text(e) for e in rta.unknown_constraints)
    return text


def faults_text(faults: Faults) -> str:
    """``byzantine(f)``, or ``bound(processes: ...; receive: ...; deliver: ...)`` (BOUND_TERMS)."""
    if faults.terms:
        inner = "; ".join(f"{label}: {to_text(e)}" for label, e in zip(BOUND_TERMS, faults.terms))
    else:
        inner = ", ".join(faults.parameters)
    return f"{faults.model.value}({inner})"
