"""Lock-step round semantics: the engine for synchronous automata (``timing sync``), for all
parameter values at once.

A k-round path is a set of linear constraints over integers (tactl/engines/lockstep_encoding.py):
guards read what was sent *this round*, by the processes' locations at the round's start.

**Diameter** (tactl/engines/lockstep_diameter.py). D is a diameter if everything reachable in
D + 1 rounds from any configuration (satisfying the invariants) is reachable within D rounds.
Then a property checked on every path of at most D rounds holds on all paths (bounded model
checking up to D is complete, tactl/engines/lockstep_bmc.py), for every parameter valuation
(they are symbolic). Without a diameter (none up to the cap, or a solver timeout) the verdict is
``unknown``, with what the bounded check found, stated as bounded.

**Properties** (tactl/engines/lockstep_property.py) are ``Init -> [](Safe)`` or ``[](Safe)`` over
location counters and parameters, read at round starts, possibly under a written hypothesis
(``assuming clean round``): checked in every configuration reached one or more rounds after such
a round.

**Certificate.** A HOLDS keeps every ``unsat`` answer it rests on as an obligation
(tactl/engines/lockstep_certificate.py): guard completeness, the phases, the diameter, the
bounded checks; ``--certify`` has cvc5 answer them again.

**Limits.** ``--param`` restricts every query (diameter, bounded checks) to those values, and
the verdict's scope says so. Without ``--timeout`` no query has a wall-clock limit: each gets
z3's deterministic resource limit (``RLIMIT``), so a verdict does not depend on the machine's
load; with ``--timeout`` (``tactl.util.deadline``) every query gets the time left and the Python
work in between is interruptible, so the check stops by the deadline and what is undecided is
``unknown``. An undecided query is never a pass.
"""

from __future__ import annotations

import time
from typing import Any

from tactl.engines.lockstep_bmc import bmc, hypothesis_met, initial_configuration
from tactl.engines.lockstep_diameter import Diameter, after_coordinator, diameter_of
from tactl.engines.lockstep_guards import GuardsUndecided, IncompleteGuards, check_complete
from tactl.engines.lockstep_property import SyncProperty, hypothesis, read_property
from tactl.engines.lockstep_sim import Run, explicit_verdict, initial_configurations, replay, state_holds
from tactl.engines.result import (HOLDS, HOLDS_VACUOUSLY, NO_ANTECEDENT, NOT_VACUOUS, UNKNOWN, UNSUPPORTED,
                                  VACUITY_UNKNOWN, VIOLATED, Obligation, PropertyResult)
from tactl.ir.evaluate import holds
from tactl.ir.expr import to_text
from tactl.ir.source import source_language
from tactl.ir.rta.model import ReceiveTA
from tactl.passes.rta_to_sync.sync_ta import SyncInputError, SyncTA, build
from tactl.util import deadline
from tactl.util import progress as shown
from tactl.util.progress import Note

ENGINE = "lockstep"
# What other modules and the tests reach through this module (the engine's interface).
__all__ = ["ENGINE", "GuardsUndecided", "IncompleteGuards", "bmc", "check_complete", "check_explicit",
           "check_rta", "hypothesis", "read_property", "revalidated", "run_json", "run_from_json"]


# ---------------------------------------------------------------------------------- check


def check_rta(rta: ReceiveTA, properties: tuple[str, ...] = (), timeout_s: float | None = None,
              fixed: dict[str, int] | None = None,
              progress: Note | None = None) -> tuple[list[PropertyResult], dict[str, Any]]:
    """Every (selected) property of a synchronous receive automaton under lock-step semantics,
    for all parameter values satisfying the RC, or those with the ``--param`` values ``fixed``.
    ``timeout_s`` starts a deadline for this call unless the command already runs one. The
    second value describes the automaton and its diameter for reports, and whether any initial
    configuration exists (``initial_configurations``, ``vacuous``: why not)."""
    own_clock = timeout_s is not None and not deadline.active()
    if own_clock:
        deadline.start(timeout_s)
    try:
        return _check_rta(rta, properties, fixed or {}, progress)
    finally:
        if own_clock:
            deadline.cancel()


def _scope(fixed: dict[str, int], d: Diameter) -> str:
    if fixed:
        values = ", ".join(f"{k}={v}" for k, v in fixed.items())
        return (f"the parameter values with {values} (--param) satisfying the resilience condition "
                f"({d.describe()}, for these values)")
    return f"all parameter values satisfying the resilience condition ({d.describe()})"


def _check_rta(rta: ReceiveTA, properties: tuple[str, ...], fixed: dict[str, int],
               progress: Note | None = None) -> tuple[list[PropertyResult], dict[str, Any]]:
    sta = build(rta)
    selected = list(_selected(sta, rta, properties))
    info: dict[str, Any] = {"locations": len(sta.locations), "rules": len(sta.rules), "diameter": None,
                            "phase": 1, "diameter_s": 0.0, "diameter_queries": []}
    stop: str | None = None  # why no property can be decided
    complete: list[Obligation] = []  # the guard-completeness answers every HOLDS rests on
    try:
        with deadline.interruptible():
            exists, why = initial_configuration(sta, None, fixed)
            info.update(initial_configurations=exists, vacuous=why)
            complete = check_complete(sta)
    except deadline.DeadlineExceeded:
        stop = deadline.timeout_reason()
    except GuardsUndecided as e:
        stop = str(e)
    d = Diameter(None, 0.0, [], stop or "")
    if stop is None and info["initial_configurations"] is not False:  # else all hold vacuously
        d = diameter_of(rta, fixed, progress)
        info.update(diameter=d.value, phase=d.phase, diameter_s=round(d.seconds, 3),
                    diameter_queries=[list(q) for q in d.queries])
    results = []
    shown.phase(progress, len(selected))
    for prop, spec in selected:
        if isinstance(spec, str):
            results.append(PropertyResult(prop.name, "safety", UNSUPPORTED, ENGINE, reason=spec))
            continue
        details: dict[str, Any] = {"diameter": d.value, "bounded_depth": d.depth(),
                                   **({"hypothesis": spec.assuming} if spec.assuming else {})}
        result = PropertyResult(prop.name, "safety", UNKNOWN, ENGINE, details=details,
                                formula_class="lock-step safety")
        results.append(result)
        started = time.perf_counter()
        if stop is not None or deadline.remaining() == 0:
            result.reason = stop or (deadline.timeout_reason() + " before this property was checked")
            continue
        shown.started(progress, prop.name, f"checking {prop.name} (lock-step, {d.depth()} rounds)")
        try:
            with deadline.interruptible():
                _check_property(sta, spec, d, fixed, result, replay)
            if result.verdict == HOLDS:
                result.obligations[:0] = [*complete, *d.obligations]
            if result.verdict == VIOLATED and "run" in result.details:
                result.details["pseudocode"] = pseudocode_rounds(rta, sta, result.details["run"])
        except deadline.DeadlineExceeded:
            result.verdict, result.scope, result.reason = UNKNOWN, None, deadline.timeout_reason()
        result.time_s = time.perf_counter() - started
        shown.finished(progress, prop.name, result.verdict.upper())
    return results, info


def _check_property(sta: SyncTA, spec: SyncProperty, d: Diameter, fixed: dict[str, int],
                    result: PropertyResult, replay) -> None:
    """One property's verdict into ``result`` (UNKNOWN with a reason until decided)."""
    exists, why = initial_configuration(sta, spec.init, fixed)
    if exists is False:
        result.verdict = HOLDS_VACUOUSLY
        result.reason = f"{why}, so the property holds vacuously: nothing was checked"
        return
    if exists is None:
        result.reason = f"whether an initial configuration exists was not decided: {why}"
        return
    depth = d.depth()
    asked: list[Obligation] = []
    after = depth + (after_coordinator(sta) if spec.coordinator else 0)
    outcome, run, queries, why = bmc(sta, spec, depth, fixed, after=after, asked=asked)
    result.queries = queries
    if outcome == "violated":
        assert run is not None
        replayed = replay(sta, spec, run)
        if replayed.ok:
            result.verdict = VIOLATED
            result.details["run"] = run_json(sta, run)
            if why:
                result.details["minimality"] = why
            result.reason = hypothesis(spec) if spec.clean_round else None
        else:
            result.reason = f"a lock-step counterexample did not replay ({replayed.message}): a tactl bug"
        return
    if outcome == "unknown":
        result.reason = f"a bounded query was not decided: {why}"
        return
    if d.value is None:
        result.reason = (f"no violation within {depth} rounds (a bounded result, not a proof): "
                         f"{d.reason}")
        return
    if spec.clean_round:
        met, why = hypothesis_met(sta, spec, depth, fixed)
        result.queries += 1
        if met is None:
            result.reason = f"whether the hypothesis can be met was not decided: {why}"
            return
        if not met:
            result.verdict = HOLDS_VACUOUSLY
            result.reason = (f"the hypothesis 'assuming {spec.assuming}' is never met: no run has "
                             f"such a round within {depth} rounds ({d.describe()}), so the property "
                             "holds vacuously")
            return
    result.verdict = HOLDS
    result.obligations = asked
    result.scope = _scope(fixed, d) + (f"; {hypothesis(spec)}" if spec.clean_round else "")
    _mark_vacuity(spec, result, hypothesis_asked=True)


def _mark_vacuity(spec: SyncProperty, result: PropertyResult, hypothesis_asked: bool) -> None:
    """What a lock-step HOLDS says about its antecedents (ir/eltl/vacuity.py for the interleaving
    engines): the initial configuration satisfying Init was found before the bounded checks, and
    the hypothesis's round was found within the bound when ``hypothesis_asked``."""
    if spec.init is None and not spec.clean_round:
        result.vacuity = NO_ANTECEDENT
        return
    met = []
    if spec.init is not None:
        met.append("an initial configuration satisfies the antecedent")
    if spec.clean_round and not hypothesis_asked:
        result.vacuity = VACUITY_UNKNOWN
        result.vacuity_witness = ("whether a run meets the hypothesis 'assuming "
                                  f"{spec.assuming}' is asked by the parametric lock-step engine only")
        return
    if spec.clean_round:
        met.append(f"a run meets the hypothesis 'assuming {spec.assuming}'")
    result.vacuity, result.vacuity_witness = NOT_VACUOUS, " and ".join(met)


def _selected(sta: SyncTA, rta: ReceiveTA, properties: tuple[str, ...]):
    """(property, its lock-step reading or why it is unsupported) for the selected properties."""
    for prop in rta.properties:
        if not properties or prop.name in properties:
            yield prop, read_property(sta, prop)


def run_json(sta: SyncTA, run: Run) -> dict[str, Any]:
    """The run for people (``rounds``: non-zero counters and rule labels) and for the simulator
    (``steps``: rule indices; :func:`run_from_json`)."""
    return {"parameters": run.parameters,
            "rounds": [{"start": {l: c for l, c in conf.items() if c},
                        "rules": {sta.rules[r].label: n for r, n in lam.items() if n}}
                       for conf, lam in zip(run.configurations, run.rounds + [{}])],
            "configurations": run.configurations,
            "steps": [[[r, n] for r, n in lam.items() if n] for lam in run.rounds],
            **({"clean_round": run.clean_round} if run.clean_round is not None else {})}


def run_from_json(doc: dict[str, Any]) -> Run:
    return Run({k: int(v) for k, v in doc["parameters"].items()},
               [{l: int(c) for l, c in conf.items()} for conf in doc["configurations"]],
               [{int(r): int(n) for r, n in step} for step in doc["steps"]], doc.get("clean_round"))


def revalidated(rta: ReceiveTA, result: PropertyResult) -> str | None:
    """Why a stored lock-step violation must not be used (None: it replays on ``rta`` now)."""
    try:
        sta = build(rta)
        spec = read_property(sta, next(p for p in rta.properties if p.name == result.name))
        if isinstance(spec, str):
            return spec
        outcome = replay(sta, spec, run_from_json(result.details["run"]))
    except (StopIteration, KeyError, IndexError, ValueError, TypeError) as e:
        return f"a lock-step run that does not fit the automaton ({type(e).__name__})"
    return None if outcome.ok else f"a lock-step run that no longer replays ({outcome.message})"


def pseudocode_rounds(rta: ReceiveTA, sta: SyncTA, run: dict[str, Any]) -> list[str]:
    """The run's rounds in the words of the source (``.alg``/``.pml``): per round, per rule taken,
    the lines its processes executed (the receive automaton's source map); [] without one."""
    origins = {r.id: r.origin for r in rta.rules if r.origin}
    if not origins:
        return []
    where = next(iter(origins.values())).file
    out = [f"in the {source_language(where)} ({where}):"]
    for i, steps in enumerate(run["steps"], 1):
        for index, n in steps:
            rule = sta.rules[index]
            origin = origins.get(rule.receive_rule) if rule.receive_rule is not None else None
            who = f"{n} process{'' if n == 1 else 'es'} ({rule.label})"
            what = origin.describe() if origin else "(a step of the fault model)"
            out.append(f"round {i}: {who}: {what}")
    return out


def check_explicit(rta: ReceiveTA, properties: tuple[str, ...], params: dict[str, int]) -> list[PropertyResult]:
    """Lock-step rounds enumerated at fixed parameter values (a bounded sanity check, not a
    proof): the oracle the tests compare the parametric verdicts with."""
    sta = build(rta)
    try:
        check_complete(sta)
    except GuardsUndecided as e:
        return [PropertyResult(prop.name, "safety", UNKNOWN, "explicit", reason=str(e))
                for prop, _ in _selected(sta, rta, properties)]
    missing = [p for p in sta.parameters if p not in params]
    if missing:
        raise SyncInputError(f"the explicit engine needs every parameter fixed (--param); missing: "
                             f"{', '.join(missing)}")
    failed = [to_text(a) for a in sta.assumptions if not holds(a, params)]
    if failed:
        raise SyncInputError(f"the --param values violate the resilience condition ({'; '.join(failed)}); "
                             "--allow-outside-rc checks them anyway")
    out = []
    for prop, spec in _selected(sta, rta, properties):
        if isinstance(spec, str):
            out.append(PropertyResult(prop.name, "safety", UNSUPPORTED, "explicit", reason=spec))
            continue
        started = time.perf_counter()
        if not any(spec.init is None or state_holds(sta, spec.init, dict(c), params)
                   for c in initial_configurations(sta, params)):
            out.append(PropertyResult(prop.name, "safety", HOLDS_VACUOUSLY, "explicit",
                                      formula_class="lock-step safety",
                                      reason="these parameter values give no initial "
                                             "configuration (with the property's Init), so the "
                                             "property holds vacuously: nothing was checked"))
            continue
        verdict, run = explicit_verdict(sta, spec, params)
        result = PropertyResult(prop.name, "safety", verdict, "explicit",
                                time_s=time.perf_counter() - started,
                                scope=f"the instance {', '.join(f'{k}={v}' for k, v in params.items())} only",
                                reason=hypothesis(spec) if spec.clean_round else None,
                                formula_class="lock-step safety",
                                details={"hypothesis": spec.assuming} if spec.assuming else {})
        if verdict == HOLDS:
            _mark_vacuity(spec, result, hypothesis_asked=False)
        if run is not None:
            replayed = replay(sta, spec, run)
            if replayed.ok:
                result.details["run"] = run_json(sta, run)
            else:
                result.verdict = UNKNOWN
                result.reason = f"the enumerated run did not replay ({replayed.message}): a tactl bug"
        out.append(result)
    return out
