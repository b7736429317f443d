"""JSON form of the receive TA IR (``"format": "tactl.rta"``), with the conventions of ``ir.ta_json``.

Expressions are encoded exactly as in ``tactl.ta`` documents (a receive variable is the name
``{"name": "received(ECHO)"}``); a reader refuses any other format or a newer version. Locations
are listed by name; a message is ``{"name": "P0D", "kind": "P"}`` (``"kind": null`` for none).
Source positions are not part of the form. A specification may name the derived justice as a
condition, ``{"op": "[]", "args": [{"name": "fair"}]}``, as the text form may (``ir/rta/model.py``).
"""

from __future__ import annotations

from typing import Any

from tactl.ir.rta.model import CHOICE_MARKS, JUSTICE_SPELLING, FaultModel, Faults, Message, ReceiveRule, ReceiveTA, Timing
from tactl.ir.alg.hypothesis import Hypothesis
from tactl.ir.unknowns import Unknown
from tactl.ir.ta.model import Location, Property
from tactl.ir import json_shape as js
from tactl.ir.ta.json_form import (ORIGIN, expect_int, expect_str, expr_from_json, expr_to_json, origin_from_json,
                                   origin_to_json, read_document, with_origin)

FORMAT = "tactl.rta"
VERSION = 1

Json = dict[str, Any]


def rta_to_json(rta: ReceiveTA) -> Json:
    doc = _rta_to_json(rta)
    origins = {loc.name: origin_to_json(loc.origin)
               for loc in (*rta.locations, *rta.crash_locations) if loc.origin}
    if origins:
        doc["location_origins"] = origins
    return doc


def _rta_to_json(rta: ReceiveTA) -> Json:
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": rta.name,
        "parameters": list(rta.parameters),
        "assumptions": [expr_to_json(e) for e in rta.assumptions],
        **({"unknowns": [{"name": u.name, "low": u.low, "high": u.high} for u in rta.unknowns]}
           if rta.unknowns else {}),
        **({"unknown_constraints": [expr_to_json(e) for e in rta.unknown_constraints]}
           if rta.unknown_constraints else {}),
        "faults": {"model": rta.faults.model.value, "parameters": list(rta.faults.parameters),
                   **({"terms": [expr_to_json(e) for e in rta.faults.terms]} if rta.faults.terms else {})},
        "timing": rta.timing.value,
        "messages": [{"name": m.name, "kind": m.kind} for m in rta.messages],
        **({"coordinator": list(rta.coordinator)} if rta.coordinator else {}),
        "locations": [loc.name for loc in rta.locations],
        "initial": list(rta.initial),
        "rules": [_rule_to_json(r) for r in rta.rules],
        **({"crash_locations": [loc.name for loc in rta.crash_locations],
            "crash_rules": [_rule_to_json(r) for r in rta.crash_rules]} if rta.crash_locations else {}),
        "properties": [with_origin({"name": p.name, "formula": expr_to_json(p.formula),
                                     **({"hypothesis": p.hypothesis.text()} if p.hypothesis else {})},
                                    p.origin)
                       for p in rta.properties],
    }


def _rule_to_json(r: ReceiveRule) -> Json:
    return with_origin({"id": r.id, "from": r.source, "to": r.target,
                         "guard": expr_to_json(r.guard), "sends": list(r.sends),
                         **({"choice": r.choice} if r.choice else {})}, r.origin)


def _rule_from_json(r: Json) -> ReceiveRule:
    return ReceiveRule(expect_int(r["id"]), expect_str(r["from"]), expect_str(r["to"]), expr_from_json(r["guard"]),
                       tuple(map(expect_str, r["sends"])), r.get("choice"),
                       origin=origin_from_json(r.get("origin")))


_NAMES = js.list_of(js.name)
_FORMULA = js.expression(js.FORMULA, unknowns=True)
_CONNECTIVES = ("!", "[]", "<>", "&&", "||", "->")


def _justice_masked(value: Any) -> Any:
    """``value`` with each justice name that stands as a condition replaced by ``true`` (a copy
    of the connective nodes above it only), so that the shape check sees a well-sorted formula;
    which spelling names the justice is checked by ``ir/rta/validate.py``."""
    holder = [value]
    stack: list[tuple[list, int]] = [(holder, 0)]
    while stack:
        parent, key = stack.pop()
        node = parent[key]
        if not isinstance(node, dict):
            continue
        name = node.get("name")
        if len(node) == 1 and isinstance(name, str) and JUSTICE_SPELLING.fullmatch(name):
            parent[key] = True
        elif node.get("op") in _CONNECTIVES and isinstance(node.get("args"), list):
            copy = {**node, "args": list(node["args"])}
            parent[key] = copy
            stack.extend((copy["args"], i) for i in range(len(copy["args"])))
    return holder[0]


def _specification(value: Any, path: str) -> None:
    _FORMULA(_justice_masked(value), path)


_RULES = js.list_of(js.Obj({"id": js.natural, "from": js.name, "to": js.name,
                            "guard": js.expression(js.FORMULA, receive=True, unknowns=True), "sends": _NAMES},
                           {"origin": ORIGIN, "choice": js.one_of(*CHOICE_MARKS)}))

SHAPE = js.Obj(
    required={
        "format": js.string, "version": js.integer, "name": js.name, "parameters": _NAMES,
        "assumptions": js.list_of(_FORMULA),
        "faults": js.Obj({"model": js.one_of(*(m.value for m in FaultModel)), "parameters": _NAMES},
                         {"terms": js.list_of(js.expression(js.TERM))}),
        "timing": js.one_of(*(t.value for t in Timing)),
        "messages": js.list_of(js.Obj({"name": js.name}, {"kind": js.optional(js.name)})),
        "locations": _NAMES, "initial": _NAMES,
        "rules": _RULES,
    },
    optional={"crash_locations": _NAMES, "crash_rules": _RULES,"properties": js.list_of(js.Obj({"name": js.name, "formula": _specification},
                                              {"origin": ORIGIN, "hypothesis": js.string})),
              "location_origins": js.values_of(ORIGIN), "coordinator": js.list_of(js.name),
              "unknowns": js.list_of(js.Obj({"name": js.string, "low": js.integer, "high": js.integer})),
              "unknown_constraints": js.list_of(_FORMULA)})


def rta_from_json(doc: Any, path: str = "<json>") -> ReceiveTA:
    """Inverse of :func:`rta_to_json`; malformed documents raise :class:`InputError`."""
    return read_document(doc, path, FORMAT, VERSION, SHAPE, _rta_from_json)


def _rta_from_json(doc: Json) -> ReceiveTA:
    faults = doc["faults"]
    return ReceiveTA(
        coordinator=tuple(expect_str(m) for m in doc.get("coordinator", [])),
        declared_at=(*(("parameters", n, None) for n in doc["parameters"]),
                     *(("initial", n, None) for n in doc["initial"])),
        name=expect_str(doc["name"]),
        parameters=tuple(map(expect_str, doc["parameters"])),
        assumptions=tuple(map(expr_from_json, doc["assumptions"])),
        faults=Faults(FaultModel(expect_str(faults["model"])), tuple(map(expect_str, faults["parameters"])),
                      terms=tuple(map(expr_from_json, faults.get("terms", [])))),
        timing=Timing(expect_str(doc["timing"])),
        messages=tuple(Message(expect_str(m["name"]), None if m.get("kind") is None else expect_str(m["kind"]))
                       for m in doc["messages"]),
        locations=tuple(Location(expect_str(name), origin=origin_from_json(
            doc.get("location_origins", {}).get(name))) for name in doc["locations"]),
        initial=tuple(map(expect_str, doc["initial"])),
        rules=tuple(map(_rule_from_json, doc["rules"])),
        crash_locations=tuple(Location(expect_str(name), origin=origin_from_json(
            doc.get("location_origins", {}).get(name))) for name in doc.get("crash_locations", [])),
        crash_rules=tuple(map(_rule_from_json, doc.get("crash_rules", []))),
        unknowns=tuple(Unknown(expect_str(u["name"]), expect_int(u["low"]), expect_int(u["high"])) for u in doc.get("unknowns", [])),
        unknown_constraints=tuple(map(expr_from_json, doc.get("unknown_constraints", []))),
        properties=tuple(Property(expect_str(p["name"]), expr_from_json(p["formula"]),
                                  None if p.get("hypothesis") is None else
                                  Hypothesis.read(expect_str(p["hypothesis"])),
                                  origin=origin_from_json(p.get("origin")))
                         for p in doc.get("properties", [])),
    )
