"""The human-readable summary that ``tactl show`` prints."""

from __future__ import annotations

from tactl.ir.expr import BoolConst, to_text
from tactl.ir.eltl.ltl import PropertyKind, classify
from tactl.ir.ta.model import Rule, ThresholdAutomaton


def summarize(ta: ThresholdAutomaton, path: str) -> str:
    initial = set(ta.initial_locations())
    out: list[str] = [f"{path}: threshold automaton {ta.name}"]

    def field(label: str, values: list[str], one_per_line: bool = False) -> None:
        if not values:
            return
        lines = values if one_per_line else [", ".join(values)]
        out.append(f"  {label:<12} {lines[0]}")
        out.extend(f"  {'':<12} {v}" for v in lines[1:])

    field("parameters", list(ta.parameters) or ["(none)"])
    field("resilience", [to_text(e) for e in ta.assumptions] or ["true (no assumptions)"], one_per_line=True)
    field("shared", list(ta.shared) or ["(none)"])
    field("local", list(ta.locals))
    if ta.unknowns:
        field("unknowns", [", ".join(ta.unknowns) + "  (coefficients to synthesise)"])
    field("defines", [f"{d.name} == {to_text(d.expr)}" for d in ta.defines], one_per_line=True)

    out.append(f"  {'locations':<12} {len(ta.locations)} ({len(initial)} initial)")
    out.extend(_table([[f"    {loc.name}", "[" + "; ".join(map(str, loc.values)) + "]",
                        "initial" if loc.name in initial else ""] for loc in ta.locations]))
    field("inits", [to_text(e) for e in ta.inits], one_per_line=True)

    bad = ta.non_monotone_updates()
    monotone = "monotone" if not bad else f"NOT monotone ({len(bad)} update(s) do not only increment)"
    out.append(f"  {'rules':<12} {len(ta.rules)}, {monotone}")
    out.extend(_table([[f"    {r.id}", f"{r.source} -> {r.target}", _updates(ta, r), _guard(r)]
                       for r in ta.rules]))

    kinds = [classify(p.formula) for p in ta.properties]
    n_safety = kinds.count(PropertyKind.SAFETY)
    out.append(f"  {'properties':<12} {len(ta.properties)} ({n_safety} safety, "
               f"{len(kinds) - n_safety} liveness)")
    out.extend(_table([[f"    {p.name}", k.value, to_text(p.formula)]
                       for p, k in zip(ta.properties, kinds)]))
    return "\n".join(out) + "\n"


def _guard(r: Rule) -> str:
    return "always" if r.guard == BoolConst(True) else f"when {to_text(r.guard)}"


def _updates(ta: ThresholdAutomaton, r: Rule) -> str:
    return ", ".join(ta.update_text(u) for u in r.updates if not u.is_identity)


def _table(rows: list[list[str]]) -> list[str]:
    """Left-aligned columns; the last column is never padded."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([c.ljust(w) for c, w in zip(row, widths)] + [row[-1]]).rstrip() for row in rows]
