"""The JSON forms the pipeline stores in the cache and keys it by (``tactl/driver/pipeline.py``,
its IR kinds): diagnostics, canonical text, an IR without its source map, and a receive
automaton's JSON form and validation.

The receive automaton's model, JSON form and validator, and the threshold automaton's JSON form,
are imported on the first call: a ``.ta`` check (no cache, no receive automaton, no JSON input)
never needs them, and they cost it a few milliseconds.
"""

from __future__ import annotations

from typing import Any

from tactl.ir.errors import Diagnostic, Severity, Span


def diagnostics_json(items: list[Diagnostic]) -> list[dict[str, Any]]:
    return [{"severity": d.severity.value, "message": d.message,
             "span": None if d.span is None else [d.span.line, d.span.col, d.span.end_line, d.span.end_col]}
            for d in items]


def diagnostics_from(doc: list[dict[str, Any]]) -> list[Diagnostic]:
    return [Diagnostic(Severity(d["severity"]), d["message"], None if d["span"] is None else Span(*d["span"]))
            for d in doc]


def canonical(doc: Any) -> str:
    import json  # lazy: only the cache's keys

    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def without_source_map(doc: Any) -> Any:
    """A JSON IR without what only locates it in a file (origins): its semantics."""
    if isinstance(doc, dict):
        return {k: without_source_map(v) for k, v in doc.items()
                if k not in ("origin", "location_origins")}
    if isinstance(doc, list):
        return [without_source_map(v) for v in doc]
    return doc


def rta_to_json(rta) -> dict[str, Any]:
    from tactl.ir.rta.json_form import rta_to_json as to_json  # lazy: see the module docstring

    return to_json(rta)


def rta_from_json(doc: Any, path: str = "<json>"):
    from tactl.ir.rta.json_form import rta_from_json as from_json  # lazy: see the module docstring

    return from_json(doc, path)


def validate_rta(rta) -> list[Diagnostic]:
    from tactl.ir.rta.validate import validate_rta as validate  # lazy: see the module docstring

    return validate(rta)


def ta_to_json(ta) -> dict[str, Any]:
    from tactl.ir.ta.json_form import ta_to_json as to_json  # lazy: see the module docstring

    return to_json(ta)


def ta_from_json(doc: Any, path: str = "<json>"):
    from tactl.ir.ta.json_form import ta_from_json as from_json  # lazy: see the module docstring

    return from_json(doc, path)
