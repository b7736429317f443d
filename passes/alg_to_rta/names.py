"""Location names and their meaning.

**Names** are made from what the location keeps: ``v1``, ``accept``, ``D0`` (decided 0),
``sentECHO``, and the stop point (``waitR``, ``loop``, ``done``) when several exist — leaving
out the fragments that fragments in the name imply in every location (``accept`` for STRB's
"v = 1, sent ECHO, accept"), so a name never hides a fact it does not imply (``docs/alg.md``).
Each location carries an :class:`ir.ta.Origin`: the pseudocode line of its stop point.
"""

from __future__ import annotations

from dataclasses import replace

from tactl.ir.alg import syntax as A
from tactl.ir.ta.model import Origin

from tactl.passes.alg_to_rta.context import Context
from tactl.passes.alg_to_rta.explore import Explorer
from tactl.passes.alg_to_rta.instructions import SENT, StopPoint
from tactl.passes.alg_to_rta.results import LocationInfo


def component_text(c: str, value: str) -> str | None:
    """The name fragment of one kept state component, or None when it adds nothing."""
    if c.startswith(SENT):
        return f"sent{c[len(SENT):]}" if value == A.TRUE else None
    if c == A.DECIDED:
        return None if value == A.BOTTOM else "D" + _ident(value)
    if A.decode_set(value) is not None:  # a set: W01 for {0, 1}; the empty set is "not set"
        return (c + "".join(_ident(x) for x in A.decode_set(value))) if value != "{}" else None
    if c == A.COORDINATOR:
        return "coord" if value == A.TRUE else None
    if value == A.TRUE:
        return c
    if value in (A.FALSE, A.BOTTOM):  # "not set": a name mentions what is set
        return None
    return c + _ident(value)


def _ident(value: str) -> str:
    return {A.BOTTOM: "bot", "?": "Q"}.get(value, value).replace("-", "m")


def location_names(ctx: Context, ex: Explorer, points: dict[int, StopPoint], keys: list[tuple],
                   alg: A.Algorithm) -> tuple[dict[tuple, str], dict[tuple, LocationInfo]]:
    """Readable, unique location names: for each location the shortest set of its name fragments
    (in a fixed order) that no other location has as a subset of its own; else all of them."""
    used_points = {k[0] for k in keys}
    main = 0 if 0 in used_points else min(used_points)
    frags: dict[tuple, list[str]] = {}
    infos: dict[tuple, LocationInfo] = {}
    for k in keys:
        pc, values = k
        state = dict(zip(ex.components, values))
        parts = []
        if len(used_points) > 1 and pc != main:
            parts.append(points[pc].label)
        for c in ex.components:
            v = state.get(c)
            if v is not None:
                text = component_text(c, v)
                if text:
                    parts.append(text)
        frags[k] = parts
        kept = tuple((c, v) for c, v in zip(ex.components, values)
                     if v is not None and not c.startswith(SENT))
        sent = tuple(c[len(SENT):] for c, v in zip(ex.components, values)
                     if c.startswith(SENT) and v == A.TRUE)
        infos[k] = LocationInfo("", _point_text(points[pc], alg), kept, sent,
                                points[pc].span.line if points[pc].span else None)
    # A fragment g implies f when every location with g also has f (accept ⇒ sentECHO in
    # STRB, D0 ⇒ done in Ben-Or). A name leaves out exactly the fragments implied by fragments
    # it keeps, so it never omits a fact it does not imply: "accept", "D0", but the binary-value
    # broadcast's "v0_bin0_bin1_sentBVAL0_sentBVAL1" in full.
    holders: dict[str, set] = {}
    for k, parts in frags.items():
        for f in parts:
            holders.setdefault(f, set()).add(k)
    reserved = set(ctx.parameters) | {t.name for t in ctx.types} | set(ctx.kinds) | {
        "CR", "fair", "ncrashed"}
    names: dict[tuple, str] = {}
    for k, parts in frags.items():
        kept = list(parts)
        for f in reversed(parts):
            if any(g != f and holders[g] <= holders[f] for g in kept):
                kept.remove(f)
        name = "_".join(kept) or points[k[0]].label
        if name in reserved or not name.isidentifier():
            name = "L_" + name
        names[k] = name
    # Distinct locations have distinct fragment sets, and a kept set determines its location's
    # (its closure under implication); keep a fallback all the same.
    if len(set(names.values())) != len(names):
        names = {k: "_".join(p) or points[k[0]].label for k, p in frags.items()}
    infos = {k: replace(i, name=names[k]) for k, i in infos.items()}
    return names, infos


def _point_text(p: StopPoint, alg: A.Algorithm) -> str:
    if p.kind == "end":
        return "finished (end of round)" if any(isinstance(s, A.Round) for s in alg.program) \
            else "finished"
    line = alg.line(p.span.line) if p.span else ""
    if p.kind == "start" and isinstance(alg.program[0], A.Round) and alg.program[0].number:
        return f"at the start of '{line}' (the phase's start)"
    if p.kind == "start":
        return "before the first step"
    if p.kind == "round":
        return f"at the start of '{line}'"
    if p.kind == "loop":
        return "in the event loop"
    return f"waiting at '{line}'"


def location_origin(alg: A.Algorithm, info: LocationInfo) -> Origin:
    values = ", ".join(f"{c} = {v}" for c, v in info.values)
    sent = ("sent " + ", ".join(info.sent)) if info.sent else ""
    meaning = "; ".join(x for x in (info.point, values, sent) if x)
    return Origin(alg.path, (info.line,) if info.line else (), meaning)
