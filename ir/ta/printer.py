"""Canonical ByMC ``.ta`` text of a threshold automaton.

The output is accepted by ByMC's own parser (``skel`` header, counted blocks, ``x' == x + 1`` and
``unchanged(…)`` updates) and re-reads to an equal IR. Its only comments are source maps: a
location or rule generated from pseudocode (``tactl parse``) is preceded by a comment saying which
pseudocode lines it comes from (``ir.ta.Origin``, which takes no part in equality).
"""

from __future__ import annotations

from tactl.ir.expr import to_text
from tactl.ir.ta.model import Rule, ThresholdAutomaton

_INDENT = "  "


def print_ta(ta: ThresholdAutomaton) -> str:
    out: list[str] = [f"skel {ta.name} {{"]
    decls = [("local", ta.locals), ("shared", ta.shared), ("parameters", ta.parameters),
             ("unknowns", ta.unknowns)]
    for keyword, names in decls:
        if names:
            out.append(f"{_INDENT}{keyword} {', '.join(names)};")
    if ta.timing == "sync":
        out.append(f"{_INDENT}timing sync;  /* tactl: lock-step rounds; check the .rta or .alg */")
    if ta.defines:
        out.append("")
        out.extend(f"{_INDENT}define {d.name} == {to_text(d.expr)};" for d in ta.defines)
    out.append("")
    out.extend(_block("assumptions", [to_text(e) + ";" for e in ta.assumptions]))
    out.append("")
    out.extend(_block("locations", [
        line for loc in ta.locations for line in (
            *([_comment(loc.origin.describe())] if loc.origin else []),
            f"{loc.name}: [{'; '.join(str(v) for v in loc.values)}];")],
        count=len(ta.locations)))
    out.append("")
    out.extend(_block("inits", [to_text(e) + ";" for e in ta.inits]))
    out.append("")
    out.extend(_block("rules", [line for r in ta.rules for line in _rule(r)],
                      count=len(ta.rules)))
    out.append("")
    out.extend(_block("specifications", [f"{p.name}: {to_text(p.formula)};" for p in ta.properties]))
    out.append("}")
    return "\n".join(out) + "\n"


def _comment(text: str) -> str:
    return "/* " + text.replace("*/", "* /") + " */"


def _block(keyword: str, lines: list[str], count: int | None = None) -> list[str]:
    n = len(lines) if count is None else count
    return [f"{_INDENT}{keyword} ({n}) {{", *(_INDENT * 2 + line for line in lines), f"{_INDENT}}}"]


def _rule(r: Rule) -> list[str]:
    changes = [f"{u.var}' == {to_text(u.expr)};" for u in r.updates if not u.is_identity]
    same = [u.var for u in r.updates if u.is_identity]
    if same:
        changes.append(f"unchanged({', '.join(same)});")
    actions = " ".join(changes)
    lead = [_comment(r.origin.describe())] if r.origin else []
    return [*lead, f"{r.id}: {r.source} -> {r.target}",
            f"{_INDENT * 2}when ({to_text(r.guard)})",
            f"{_INDENT * 2}do {{ {actions} }};" if actions else f"{_INDENT * 2}do {{ }};"]
