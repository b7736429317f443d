"""What a verdict is a verdict *about*: each property's formula as its author wrote it, the
justice a liveness verdict depends on, the hypothesis and the resilience condition — the part of
``tactl verify``'s report that says what was proved (or refuted), not just that something was.

A liveness specification of the checkable automaton reads ``<>[](J) -> φ``: ``J`` is the justice
(written in a ``.ta``, derived from the fault model for an ``.alg``/``.rta``), so a HOLDS covers
only the runs where ``J`` eventually always holds, and this module lists ``J``'s conjuncts. The
formula "as written" comes from the source: the ``.alg`` line (pseudocode form; the source map's
``origin``, else the ``properties`` section's line of that name), or the text of a ``.ta``/
``.rta`` specification from its name to its ``;``. Pure: the loaded automaton and its source in,
a JSON-ready dict out.
"""

from __future__ import annotations

import re
from typing import Any

from tactl.ir.expr import Always, And, Eventually, Expr, Implies, to_text
from tactl.ir.ta.model import Property, ThresholdAutomaton


def justice_of(formula: Expr) -> Expr | None:
    """``J`` of ``<>[](J) -> φ``, else None."""
    if isinstance(formula, Implies) and isinstance(formula.left, Eventually) \
            and isinstance(formula.left.arg, Always):
        return formula.left.arg.arg
    return None


def written(prop: Property, source: str, kind: str) -> tuple[str, int | None]:
    """The property as its file says it, and its line (None when only the formula is known)."""
    if prop.origin is not None and prop.origin.text:
        return prop.origin.text, (prop.origin.lines[0] if prop.origin.lines else None)
    lines = source.splitlines() if source else []
    if kind == "alg" and lines:
        start = next((i for i, line in enumerate(lines) if line.strip() == "properties"), None)
        if start is not None:
            pattern = re.compile(rf"^\s*{re.escape(prop.name)}\s*:")
            for i in range(start + 1, len(lines)):
                if pattern.match(lines[i]):
                    return lines[i].split("#", 1)[0].strip(), i + 1
    if prop.span is not None and 0 < prop.span.line <= len(lines):
        text = "\n".join(lines[prop.span.line - 1:])[prop.span.col - 1:]
        end = text.find(";")
        if 0 < end < 2000:
            return " ".join(text[:end].split()), prop.span.line
    return f"{prop.name}: {to_text(prop.formula)}", None


def statement(ta: ThresholdAutomaton, prop: Property, source: str, kind: str) -> dict[str, Any]:
    """The JSON of what the property says: ``written``, ``line``, ``checked`` (the formula over
    the automaton, as the engines read it), ``justice`` (its conjuncts, [] if none),
    ``justice_origin``, ``hypothesis``, ``resilience``."""
    text, line = written(prop, source, kind)
    justice = justice_of(prop.formula)
    conjuncts = [] if justice is None else [
        to_text(c) for c in (justice.args if isinstance(justice, And) else (justice,))]
    origin = ""
    if justice is not None:
        origin = ("derived from the fault model by the translation (every correct process keeps "
                  "taking steps; every message a correct process sent is eventually received)"
                  if kind in ("alg", "rta", "pml") else "written in the specification")
    return {
        "written": text,
        "line": line,
        "checked": to_text(prop.formula),
        "justice": conjuncts,
        "justice_origin": origin,
        "hypothesis": prop.hypothesis.text() if prop.hypothesis is not None else "",
        "resilience": " && ".join(to_text(a) for a in ta.assumptions) or "true",
    }
