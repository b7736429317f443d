"""Counterexamples as ITF, the Informal Trace Format of Apalache and Quint (``--itf`` of ``tactl
check``, and one file per counterexample in ``tactl verify``'s report folder).

An ITF trace is a JSON object ``{"#meta", "params", "vars", "states", "loop"}``: ``params`` are
the names fixed for the whole trace (here n, t, f: their values are in every state, so that each
state reads on its own), ``vars`` the names every state sets (the location counters, then the
shared variables), ``states`` the configurations of the run the simulator replayed, in order, and
``loop`` — for a lasso only — the index of the state where the repeated part starts: the state
after the last one is ``states[loop]``. Integers are written ``{"#bigint": "…"}``, the form every
ITF reader accepts for any size (a run with n = 10⁹ has counters a JSON double cannot hold).

Each state's ``#meta`` says how it was reached (the rule, how many processes took it, the source
lines of the rule); the trace's ``#meta`` names the property, the parameters, the state where the
property is violated and, for a lasso, the loop. The states are the rows of the counterexample
table ``tactl check`` prints (tactl/report/check_text.py), except that a cycle's last row, which
repeats the row where the cycle starts, is the ``loop`` index instead of a state of its own.
A lock-step counterexample (a synchronous automaton) has one state per round start; a run of a
Promela file under its own fairness formula is a run of the file's instance with receive counts.

Several violated properties give several traces, one file each: :func:`trace_path` names them.
Nothing here writes files; the CLI does (atomically, tactl/util/fsutil.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from tactl.engines.result import VIOLATED, Counterexample, PropertyResult
from tactl.ir.ta.json_form import origin_to_json
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.report.property_json import rule_name, violating_step
from tactl.util.version import __version__

FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
SUFFIX = ".itf.json"


@dataclass(frozen=True)
class Trace:
    """The ITF document of one property's counterexample."""

    property: str
    document: dict[str, Any]

    @property
    def states(self) -> int:
        return len(self.document["states"])

    @property
    def lasso(self) -> bool:
        return "loop" in self.document


def bigint(value: int) -> dict[str, str]:
    return {"#bigint": str(value)}


def traces(ta: ThresholdAutomaton | None, results: Sequence[PropertyResult], source: str) -> list[Trace]:
    """The ITF trace of every violated property of ``results`` that has a run (``source``: the
    file the user checked, named in each trace's ``#meta``)."""
    out = []
    for r in results:
        if r.verdict != VIOLATED:
            continue
        if r.counterexample is not None and ta is not None:
            out.append(Trace(r.name, counterexample_itf(ta, r, source)))
        elif isinstance(r.details.get("run"), dict):  # a lock-step run (tactl/engines/lockstep.py)
            out.append(Trace(r.name, lockstep_itf(r, source)))
        elif isinstance(r.details.get("file_trace"), dict):  # a run of a Promela file's own fairness
            out.append(Trace(r.name, file_run_itf(r, source)))
    return out


def _meta(r: PropertyResult, source: str, parameters: dict[str, int]) -> dict[str, Any]:
    return {"format": "ITF", "format-description": FORMAT_DESCRIPTION, "source": source,
            "description": f"Created by tactl {__version__}: a run violating {r.name}",
            "property": r.name, "kind": r.kind, "verdict": r.verdict, "engine": r.engine,
            "parameters": dict(parameters)}


def counterexample_itf(ta: ThresholdAutomaton, r: PropertyResult, source: str) -> dict[str, Any]:
    """The ITF document of ``r``'s counterexample: a finite run, or a lasso with its loop."""
    cex: Counterexample = r.counterexample  # type: ignore[assignment]
    steps = cex.schedule + (cex.cycle or [])
    configs, loop = cex.states()
    meta = _meta(r, source, cex.parameters)
    meta["replayed"] = cex.replayed
    if loop is not None and cex.cycle:
        meta["loop"] = "the states from index loop on repeat forever (they lead back to states[loop])"
    elif loop is not None and cex.loop is not None:
        meta["loop"] = (f"the last state repeats forever by the self-loop {rule_name(ta, cex.loop)} "
                        f"at {ta.rules[cex.loop].source}")
        meta["loop_rule"] = rule_name(ta, cex.loop)
    bad = violating_step(cex)
    if bad is not None and bad < len(configs):
        meta["violation"] = bad
    if cex.explanation:
        meta["explanation"] = list(cex.explanation)
    names = [loc.name for loc in ta.locations]
    states = []
    for i, config in enumerate(configs):
        state_meta: dict[str, Any] = {"index": i}
        if i > 0:
            step = steps[i - 1]
            rule = ta.rules[step.rule]
            state_meta["step"] = {"rule": rule_name(ta, step.rule), "from": rule.source, "to": rule.target,
                                  "factor": step.factor, "in_loop": bool(cex.cycle) and i > len(cex.schedule),
                                  **({"source": origin_to_json(rule.origin)} if rule.origin else {})}
        values = dict(config.counters) | dict(config.shared)
        states.append({"#meta": state_meta, **{p: bigint(v) for p, v in cex.parameters.items()},
                       **{x: bigint(values[x]) for x in (*names, *ta.shared)}})
    doc: dict[str, Any] = {"#meta": meta, "params": list(cex.parameters), "vars": [*names, *ta.shared],
                           "states": states}
    if loop is not None:
        doc["loop"] = loop
    return doc


def lockstep_itf(r: PropertyResult, source: str) -> dict[str, Any]:
    """A lock-step counterexample: the configuration at the start of each round (location
    counters; a synchronous automaton has no shared variables), the rules taken in the round
    that led there in the state's ``#meta``."""
    run = r.details["run"]
    parameters = {k: int(v) for k, v in run["parameters"].items()}
    configs: list[dict[str, int]] = run["configurations"]
    names = list(dict.fromkeys(name for conf in configs for name in conf))
    meta = _meta(r, source, parameters)
    meta["semantics"] = "lock-step rounds: each state is the configuration at the start of a round"
    meta["violation"] = len(configs) - 1
    if run.get("clean_round") is not None:
        meta["clean_round"] = run["clean_round"]
    states = []
    for i, conf in enumerate(configs):
        state_meta: dict[str, Any] = {"index": i}
        if i > 0:
            state_meta["round"] = {"rules": run["rounds"][i - 1]["rules"]}
        states.append({"#meta": state_meta, **{p: bigint(v) for p, v in parameters.items()},
                       **{x: bigint(int(conf.get(x, 0))) for x in names}})
    return {"#meta": meta, "params": list(parameters), "vars": names, "states": states}


def file_run_itf(r: PropertyResult, source: str) -> dict[str, Any]:
    """A run of a Promela file under its own fairness formula (tactl/engines/file_fairness.py):
    a run of the file's instance at fixed parameters whose locations are a location and the
    receive counts of its processes; only the locations some process occupies are variables
    (the meaning of each is in the trace's ``#meta``)."""
    run = r.details["file_trace"]
    parameters = {k: int(v) for k, v in run["parameters"].items()}
    names = [*run["locations"], *run["shared"]]
    meta = _meta(r, source, parameters)
    meta["semantics"] = ("a run of the file's instance with receive counts, under the file's own "
                         "fairness formula; the other locations of the instance stay 0")
    meta["locations"] = dict(run["locations"])
    meta["shared"] = dict(run["shared"])
    states = []
    for i, conf in enumerate(run["configurations"]):
        state_meta: dict[str, Any] = {"index": i}
        if i > 0 and i - 1 < len(run["steps"]):
            state_meta["step"] = dict(run["steps"][i - 1])
        values = {**conf["locations"], **conf["shared"]}
        states.append({"#meta": state_meta, **{p: bigint(v) for p, v in parameters.items()},
                       **{x: bigint(int(values.get(x, 0))) for x in names}})
    doc: dict[str, Any] = {"#meta": meta, "params": list(parameters), "vars": names, "states": states}
    if run.get("loop") is not None:
        doc["loop"] = run["loop"]
    return doc


def itf_text(document: dict[str, Any]) -> str:
    """The document as JSON text with one line per state, so that a trace reads (and diffs) as
    the table ``tactl check`` prints: the trace's fields indented, each state on a line."""
    import json  # lazy: only when a trace is written

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    fields = []
    for key, value in document.items():
        if key == "states":
            states = ",\n".join(f"    {line(state)}" for state in value)
            fields.append(f'  "states": [\n{states}\n  ]' if value else '  "states": []')
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):  # params, vars
            fields.append(f"  {line(key)}: {line(value)}")
        else:
            fields.append(f"  {line(key)}: " + json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  "))
    return "{\n" + ",\n".join(fields) + "\n}\n"


def trace_path(out: Path, prop: str) -> Path:
    """Where ``--itf OUT`` writes the trace of property ``prop``: beside OUT, OUT's name without
    ``.itf.json`` (or ``.json``) then ``.PROPERTY.itf.json`` — ``--itf cex.itf.json`` writes
    ``cex.relay.itf.json``, ``cex.unforgeability.itf.json`` (verify's report folder:
    ``itf/ALGORITHM.PROPERTY.itf.json``)."""
    name = out.name
    for suffix in (SUFFIX, ".json"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[:-len(suffix)]
            break
    return out.with_name(f"{_safe(name)}.{_safe(prop)}{SUFFIX}")


def _safe(name: str) -> str:
    """A file-name-safe form of a property or algorithm name (they are identifiers already;
    anything else becomes ``_``)."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name) or "_"
