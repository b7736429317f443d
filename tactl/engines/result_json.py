"""A property's result as JSON that reads back into the same :class:`PropertyResult`: the form
the driver's cache stores.

Unlike the reports' JSON of a result (``tactl.report.property_json.property_json``, written for
people and other tools, with rule names and pseudocode lines), this form names rules by their
index and carries no source map, so it depends only on the automaton's semantics: a comment edit
upstream does not change it. Reading it back re-runs the simulator on the *current* automaton
(:func:`revalidated`), so a cached violation is never shown unless it still replays.
"""

from __future__ import annotations

from typing import Any

from tactl.engines.result import VIOLATED, Certification, Counterexample, PropertyResult
from tactl.engines.simulate import Configuration, Replay, Step, replay, replay_query
from tactl.ir.eltl.formula import TemporalQuery, reach_question, temporal_query
from tactl.ir.ta.model import ThresholdAutomaton

FORMAT = "tactl.result"
VERSION = 3  # 2: vacuity; 3: minimality, the violating step, the explanation


def _config(c: Configuration) -> dict[str, Any]:
    return {"locations": [list(p) for p in c.counters], "shared": [list(p) for p in c.shared]}


def _config_from(doc: dict[str, Any]) -> Configuration:
    return Configuration(tuple((str(k), int(v)) for k, v in doc["locations"]),
                         tuple((str(k), int(v)) for k, v in doc["shared"]))


def _steps(steps: list[Step] | None) -> list[list[int]] | None:
    return None if steps is None else [[s.rule, s.factor] for s in steps]


def _steps_from(doc: list[list[int]] | None) -> list[Step] | None:
    return None if doc is None else [Step(int(r), int(f)) for r, f in doc]


def result_to_json(r: PropertyResult) -> dict[str, Any]:
    cex = r.counterexample
    return {
        "format": FORMAT, "version": VERSION,
        "name": r.name, "kind": r.kind, "verdict": r.verdict, "engine": r.engine,
        "time_s": r.time_s, "queries": r.queries, "reason": r.reason, "scope": r.scope,
        "details": r.details, "class": r.formula_class,
        "vacuity": r.vacuity, "vacuity_witness": r.vacuity_witness,
        **({"certificate": r.certificate.json()} if r.certificate is not None else {}),
        "counterexample": None if cex is None else {
            "parameters": cex.parameters, "initial": _config(cex.initial),
            "schedule": _steps(cex.schedule), "loop": cex.loop, "cycle": _steps(cex.cycle),
            "replay": {"ok": cex.replay.ok, "message": cex.replay.message,
                       "configurations": [_config(c) for c in cex.replay.configurations]},
            "parameters_minimal": cex.parameters_minimal, "schedule_shortest": cex.schedule_shortest,
            "minimality": cex.minimality, "violating_step": cex.violating_step,
            "explanation": cex.explanation,
        },
    }


def result_from_json(doc: dict[str, Any]) -> PropertyResult:
    if doc.get("format") != FORMAT or doc.get("version") != VERSION:
        raise ValueError("not a tactl.result document of this version")
    cex = None
    if doc["counterexample"] is not None:
        c = doc["counterexample"]
        replay = c["replay"]
        cex = Counterexample({str(k): int(v) for k, v in c["parameters"].items()},
                             _config_from(c["initial"]), _steps_from(c["schedule"]) or [],
                             Replay(bool(replay["ok"]), str(replay["message"]),
                                    [_config_from(x) for x in replay["configurations"]]),
                             loop=c["loop"], cycle=_steps_from(c["cycle"]),
                             parameters_minimal=bool(c["parameters_minimal"]),
                             schedule_shortest=bool(c["schedule_shortest"]),
                             minimality=str(c["minimality"]), violating_step=c["violating_step"],
                             explanation=[str(x) for x in c["explanation"]])
    return PropertyResult(doc["name"], doc["kind"], doc["verdict"], doc["engine"],
                          time_s=float(doc["time_s"]), queries=int(doc["queries"]),
                          reason=doc["reason"], scope=doc["scope"], counterexample=cex,
                          details=dict(doc["details"] or {}), formula_class=doc["class"],
                          vacuity=doc["vacuity"], vacuity_witness=doc["vacuity_witness"],
                          certificate=_certification(doc.get("certificate")))


def _certification(doc: dict[str, Any] | None) -> Certification | None:
    """A ``--certify`` outcome read back (None: the check did not certify)."""
    if doc is None:
        return None
    return Certification(str(doc["solver"]), int(doc["queries"]), int(doc["confirmed"]),
                         float(doc.get("time_s", 0.0)), str(doc.get("failure", "")), str(doc.get("trusted", "")))


def revalidated(ta: ThresholdAutomaton, r: PropertyResult) -> str | None:
    """Why a stored result must not be used on ``ta`` (None: it may). A violation must come with a
    counterexample that tactl's simulator replays on ``ta`` now, as when it was found."""
    if r.verdict != VIOLATED:
        return None
    cex = r.counterexample
    if cex is None:
        return "a violation without a counterexample"
    prop = next((p for p in ta.properties if p.name == r.name), None)
    if prop is None:
        return f"about a property '{r.name}' the automaton does not have"
    query = temporal_query(ta, prop)
    if not isinstance(query, TemporalQuery):
        return "about a property the checkers do not support"
    question = reach_question(query)
    try:
        if question is not None and cex.loop is None and cex.cycle is None:
            again = replay(ta, question, cex.parameters, cex.initial, cex.schedule)
        else:
            again = replay_query(ta, query, cex.parameters, cex.initial, cex.schedule, cex.loop, cex.cycle)
    except (KeyError, IndexError, ValueError) as e:
        return f"a counterexample that does not fit the automaton ({e})"
    if not again.ok:
        return f"a counterexample that no longer replays ({again.message})"
    return None
