"""JSON form of the TA IR, for tools that would rather not parse ``.ta`` text.

The document carries ``"format": "tactl.ta"`` and a ``"version"``; a reader refuses any other
format or a newer version instead of guessing. Expressions are nested objects: a number is a JSON
integer, ``true``/``false`` are JSON Booleans, a name is ``{"name": "x"}``, and every other node is
``{"op": "<op>", "args": [...]}`` with the operator spelled as in ``.ta`` text (``"neg"`` for unary
minus, ``"/"`` for floor division by a positive constant), except sums: ``{"op": "sum", "args": [a, b, c], "signs": ["+", "-"]}`` is ``a + b - c``. Source positions are not part of the form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import json

from tactl.ir import json_shape
from tactl.ir.errors import Diagnostic, InputError, Severity
from tactl.ir.json_shape import Shape
from tactl.ir.expr import (
    Always,
    And,
    BoolConst,
    Compare,
    Div,
    Eventually,
    Expr,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    Or,
    Sum,
    conj,
    const,
    disj,
)
from tactl.ir.ta.model import Define, Location, Origin, Property, Rule, ThresholdAutomaton, Update

FORMAT = "tactl.ta"
VERSION = 1

Json = dict[str, Any]
T = TypeVar("T")


def origin_to_json(origin: Origin) -> Json:
    """A source-map entry (``ir.ta.Origin``): pseudocode file, lines, and what happens there."""
    return {"file": origin.file, "lines": list(origin.lines), "text": origin.text}


def origin_from_json(doc: Json | None) -> Origin | None:
    if doc is None:
        return None
    return Origin(expect_str(doc["file"]), tuple(expect_int(n) for n in doc["lines"]), expect_str(doc["text"]))


ORIGIN = json_shape.Obj({"file": json_shape.string, "lines": json_shape.list_of(json_shape.natural),
                         "text": json_shape.string})


def with_origin(obj: Json, origin: Origin | None) -> Json:
    """``obj`` with its source position, when it has one (the .rta form writes them alike)."""
    if origin is not None:
        obj["origin"] = origin_to_json(origin)
    return obj


def ta_to_json(ta: ThresholdAutomaton) -> Json:
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": ta.name,
        "locals": list(ta.locals),
        "shared": list(ta.shared),
        "parameters": list(ta.parameters),
        "unknowns": list(ta.unknowns),
        "defines": [{"name": d.name, "expr": expr_to_json(d.expr)} for d in ta.defines],
        "assumptions": [expr_to_json(e) for e in ta.assumptions],
        "locations": [with_origin({"name": loc.name, "values": list(loc.values)}, loc.origin)
                      for loc in ta.locations],
        "inits": [expr_to_json(e) for e in ta.inits],
        "rules": [with_origin({
            "id": r.id, "from": r.source, "to": r.target, "guard": expr_to_json(r.guard),
            "updates": [{"var": u.var, "expr": expr_to_json(u.expr)} for u in r.updates],
        }, r.origin) for r in ta.rules],
        "properties": [with_origin({"name": p.name, "formula": expr_to_json(p.formula)}, p.origin)
                       for p in ta.properties],
        **({"timing": ta.timing} if ta.timing != "async" else {}),
    }


def read_document(doc: Any, path: str, fmt: str, version: int, shape: Shape,
                  build: Callable[[Json], T]) -> T:
    """Check the ``format``/``version`` header of a JSON document, then its whole ``shape``
    (``ir.json_shape``), and only then build its IR with ``build``; every problem becomes an
    :class:`InputError` with the JSON path of the offending value."""
    def refuse(message: str) -> InputError:
        return InputError(Diagnostic(Severity.ERROR, message), path)

    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise refuse(f"not a {fmt} document (missing \"format\": \"{fmt}\")")
    found = doc.get("version")
    if isinstance(found, bool) or not isinstance(found, int) or not 1 <= found <= version:
        raise refuse(f"{fmt} version {json.dumps(found)[:40]} is not supported by this tactl "
                     f"(it reads versions 1 to {version})")
    try:
        json_shape.check(doc, shape)
    except json_shape.ShapeError as e:
        raise refuse(f"malformed {fmt} JSON at {e}" if e.path else f"malformed {fmt} JSON: {e}") from None
    try:
        return build(doc)
    except (TypeError, ValueError, KeyError) as e:  # the shape check should have caught it
        raise refuse(f"malformed {fmt} JSON: {e}") from None


_TERM = json_shape.expression(json_shape.TERM, division=True)
_FORMULA = json_shape.expression(json_shape.FORMULA, division=True)
_names = json_shape.list_of(json_shape.name)
SHAPE = json_shape.Obj(
    required={
        "format": json_shape.string, "version": json_shape.integer, "name": json_shape.name,
        "locals": _names, "shared": _names, "parameters": _names,
        "defines": json_shape.list_of(json_shape.Obj({"name": json_shape.name, "expr": _TERM})),
        "assumptions": json_shape.list_of(_FORMULA),
        "locations": json_shape.list_of(json_shape.Obj(
            {"name": json_shape.name, "values": json_shape.list_of(json_shape.integer)},
            {"origin": ORIGIN})),
        "inits": json_shape.list_of(_FORMULA),
        "rules": json_shape.list_of(json_shape.Obj({
            "id": json_shape.natural, "from": json_shape.name, "to": json_shape.name,
            "guard": _FORMULA,
            "updates": json_shape.list_of(json_shape.Obj({"var": json_shape.name, "expr": _TERM}))},
            {"origin": ORIGIN})),
        "properties": json_shape.list_of(json_shape.Obj({"name": json_shape.name, "formula": _FORMULA},
                                                        {"origin": ORIGIN})),
    },
    optional={"unknowns": _names, "timing": json_shape.string})


def ta_from_json(doc: Any, path: str = "<json>") -> ThresholdAutomaton:
    """Inverse of :func:`ta_to_json`; malformed documents raise :class:`InputError`."""
    return read_document(doc, path, FORMAT, VERSION, SHAPE, _ta_from_json)


def _ta_from_json(doc: Json) -> ThresholdAutomaton:
    declared = [(n, None) for key in ("locals", "shared", "parameters", "unknowns")
                for n in doc.get(key, [])]
    return ThresholdAutomaton(
        declared_at=tuple(declared),
        name=expect_str(doc["name"]),
        locals=tuple(map(expect_str, doc["locals"])),
        shared=tuple(map(expect_str, doc["shared"])),
        parameters=tuple(map(expect_str, doc["parameters"])),
        unknowns=tuple(map(expect_str, doc.get("unknowns", []))),
        defines=tuple(Define(expect_str(d["name"]), expr_from_json(d["expr"])) for d in doc["defines"]),
        assumptions=tuple(map(expr_from_json, doc["assumptions"])),
        locations=tuple(Location(expect_str(loc["name"]), tuple(expect_int(v) for v in loc["values"]),
                                 origin=origin_from_json(loc.get("origin")))
                        for loc in doc["locations"]),
        inits=tuple(map(expr_from_json, doc["inits"])),
        rules=tuple(Rule(expect_int(r["id"]), expect_str(r["from"]), expect_str(r["to"]), expr_from_json(r["guard"]),
                         tuple(Update(expect_str(u["var"]), expr_from_json(u["expr"])) for u in r["updates"]),
                         origin=origin_from_json(r.get("origin")))
                    for r in doc["rules"]),
        properties=tuple(Property(expect_str(p["name"]), expr_from_json(p["formula"]),
                                  origin=origin_from_json(p.get("origin")))
                         for p in doc["properties"]),
        timing="sync" if doc.get("timing") == "sync" else "async",
    )


_UNARY_OPS = {Neg: "neg", Not: "!", Always: "[]", Eventually: "<>"}
_UNARY_NODES = {op: node for node, op in _UNARY_OPS.items()}


def expr_to_json(e: Expr) -> Any:
    if isinstance(e, BoolConst):
        return e.value
    if isinstance(e, IntConst):
        return e.value
    if isinstance(e, Name):
        return {"name": e.name}
    if isinstance(e, tuple(_UNARY_OPS)):
        return {"op": _UNARY_OPS[type(e)], "args": [expr_to_json(e.arg)]}
    if isinstance(e, Sum):
        return {"op": "sum", "args": [expr_to_json(a) for a in e.args], "signs": list(e.ops)}
    if isinstance(e, (Mul, Div)):
        return {"op": "*" if isinstance(e, Mul) else "/", "args": [expr_to_json(e.left), expr_to_json(e.right)]}
    if isinstance(e, Compare):
        return {"op": e.op, "args": [expr_to_json(e.left), expr_to_json(e.right)]}
    if isinstance(e, Implies):
        return {"op": "->", "args": [expr_to_json(e.left), expr_to_json(e.right)]}
    if isinstance(e, (And, Or)):
        return {"op": "&&" if isinstance(e, And) else "||", "args": [expr_to_json(a) for a in e.args]}
    raise TypeError(f"not an expression node: {e!r}")


def expr_from_json(j: Any) -> Expr:
    if isinstance(j, bool):  # before int: bool is an int subclass
        return BoolConst(j)
    if isinstance(j, int):
        return const(j)  # a hand-written -1 is read as the parser reads "-1"
    if not isinstance(j, dict):
        raise ValueError(f"not an expression: {j!r}")
    if "name" in j:
        return Name(expect_str(j["name"]))
    op, args = j["op"], [expr_from_json(a) for a in j["args"]]
    if op in _UNARY_NODES:
        (arg,) = args
        return _UNARY_NODES[op](arg)
    if op == "sum":
        return Sum(tuple(args), tuple(expect_str(sign) for sign in j["signs"]))
    if op in ("*", "/"):
        left, right = args
        return Mul(left, right) if op == "*" else Div(left, right)  # divisors: ir.validate
    if op in ("<", "<=", "==", "!=", ">=", ">"):
        left, right = args
        return Compare(op, left, right)
    if op == "->":
        left, right = args
        return Implies(left, right)
    if op in ("&&", "||"):
        return (conj if op == "&&" else disj)(*args)
    raise ValueError(f"unknown operator {op!r}")


def expect_str(v: Any) -> str:
    """``v``, which the shape check has already found a string (a second guard for the types)."""
    if not isinstance(v, str):
        raise TypeError(f"expected a string, found {v!r}")
    return v


def expect_int(v: Any) -> int:
    """``v``, which the shape check has already found an integer (not a Boolean)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"expected an integer, found {v!r}")
    return v
