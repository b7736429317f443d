"""Minimal counterexamples, pinned on weakened corpus algorithms (mutants).

The parametric engine reports the lexicographically smallest parameter valuation (declared order)
with a violation and, for it, a shortest run that ends at the violating configuration. The
explicit engine, which enumerates valuations and searches breadth-first, confirms both: every
lexicographically smaller valuation holds, and at the reported one its shortest run has as many
single-process steps as the reported run.
"""

from __future__ import annotations

import itertools
import json

import pytest
import z3

from conftest import CORPUS, GUARD_S
from tactl.engines import explicit, explicit_ltl, lockstep
from tactl.engines.lockstep_sim import explicit_verdict
from tactl.engines.minimal_params import minimise_terms
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, VIOLATED
from tactl.engines.result_json import result_from_json, result_to_json
from tactl.engines.shortest import cut_at_violation
from tactl.engines.simulate import Configuration, Step, replay, replay_run
from tactl.ir.eltl.formula import reach_question, temporal_query
from tactl.ir.evaluate import holds
from tactl.ir.rta.reader import read_rta
from tactl.ir.ta.reader import read_ta
from tactl.passes.rta_to_sync.sync_ta import build
from tactl.report.check_text import report_text
from tactl.report.property_json import counterexample_json
from tactl.util import deadline

STRB = (CORPUS / "strb" / "strb.ta").read_text()
FRB = (CORPUS / "frb" / "frb.ta").read_text()

MUTANTS = {
    # relay threshold t + 1 lowered to t: a correct process relays on the faulty ECHOs alone
    "strb-relay-t": (STRB.replace("define RELAY == t + 1;", "define RELAY == t;"), "unforgeability"),
    # ByMC's tutorial bug: n >= 3t instead of n > 3t; relay fails with a lasso
    "strb-rc": (STRB.replace("n > 3 * t;", "n >= 3 * t;"), "relay"),
    # docs/counterexamples.md's frb_weak: the relay guard sent + sentf >= 1 lowered to >= 0
    "frb-guard": (FRB.replace("sent + sentf >= 1", "sent + sentf >= 0"), "unforgeability"),
    # accept threshold n - t lowered to t + 1 in STRB: relay with a smaller quorum
    "strb-accept": (STRB.replace("define ACCEPT == n - t;", "define ACCEPT == t + 1;"), "relay"),
}


def _mutant(name: str):
    text, prop = MUTANTS[name]
    ta = read_ta(text, f"{name}.ta").ta
    query = temporal_query(ta, next(p for p in ta.properties if p.name == prop))
    return ta, prop, query


def _explicit(ta, query, fixed: dict[str, int]):
    question = reach_question(query)
    if question is not None:
        return explicit.check(ta, question, fixed, bound=max(fixed.values(), default=0))
    return explicit_ltl.check_temporal(ta, query, fixed, bound=max(fixed.values(), default=0))


def _steps(cex) -> int:
    return sum(s.factor for s in cex.schedule)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_counterexample_is_minimal(name: str) -> None:
    ta, prop, query = _mutant(name)
    assert any(p.name == prop for p in ta.properties)
    with deadline.clock(GUARD_S):
        result = check_automaton(ta, f"{name}.ta", CheckOptions(properties=(prop,), minimize=True)).results[0]
    assert result.verdict == VIOLATED, (result.verdict, result.reason)
    cex = result.counterexample
    assert cex.replayed, cex.replay.message
    assert cex.parameters_minimal and cex.schedule_shortest, cex.minimality
    assert cex.violating_step == len(cex.schedule) == len(cex.replay.configurations) - 1

    # no lexicographically smaller valuation violates (the explicit engine, every initial configuration)
    found = tuple(cex.parameters[p] for p in ta.parameters)
    smaller = [v for v in explicit.parameter_instances(ta, {}, max(found))
               if tuple(v[p] for p in ta.parameters) < found]
    for valuation in smaller:
        other = _explicit(ta, query, valuation)
        assert other.verdict == HOLDS, (valuation, other.verdict, other.reason)

    # at the reported valuation, the explicit engine's shortest run is no shorter than ours
    reference = _explicit(ta, query, cex.parameters)
    assert reference.verdict == VIOLATED and reference.counterexample.parameters == cex.parameters
    assert _steps(reference.counterexample) == _steps(cex)

    # nothing after the violation: no earlier configuration of a finite run violates
    question = reach_question(query)
    if question is not None:
        for config in cex.replay.configurations[:-1]:
            assert not holds(question.bad, config.env(cex.parameters))
    else:
        assert cex.loop is not None
        shorter = replay_run(ta, query.negation, query.infinite, cex.parameters, cex.initial,
                             cex.schedule[:-1], cex.loop) if cex.schedule else None
        assert shorter is None or not shorter.ok or _steps(cex) == 0


def test_violating_step_in_every_output() -> None:
    ta, prop, query = _mutant("frb-guard")
    with deadline.clock(GUARD_S):
        report = check_automaton(ta, "frb_weak.ta", CheckOptions(properties=(prop,)))
    cex = report.results[0].counterexample
    text = report_text(report)
    marked = [line for line in text.splitlines() if line.endswith("<- violation")]
    assert len(marked) == 1 and marked[0].split()[0] == str(cex.violating_step)
    assert "minimal: smallest n, then t, then f with a violation" in text and "for these parameters" in text
    data = counterexample_json(ta, cex)
    assert data["violating_step"] == cex.violating_step
    assert data["minimal"] == {"parameters": True, "schedule": True, "note": data["minimal"]["note"]}
    # the cached form keeps it
    again = result_from_json(json.loads(json.dumps(result_to_json(report.results[0]))))
    assert again.counterexample.violating_step == cex.violating_step
    assert again.counterexample.parameters_minimal and again.counterexample.schedule_shortest


def test_cut_at_violation_splits_a_batch() -> None:
    """A run that goes on after the violation is cut at its first violating firing, inside a batch."""
    ta, _, query = _mutant("frb-guard")
    question = reach_question(query)
    params = {"n": 3, "t": 2, "f": 2}
    locs = {loc.name: 0 for loc in ta.locations}
    initial_counters = {**locs, "V0": 3}
    initial = Configuration.of(initial_counters, {v: 0 for v in ta.shared})
    long = [Step(1, 2), Step(2, 1)]
    assert replay(ta, question, params, initial, long[:1]).ok
    cut = cut_at_violation(ta, question, params, initial, long)
    assert cut == [Step(1, 1)]
    assert replay(ta, question, params, initial, cut).ok


# ------------------------------------------------------------------------- lock-step rounds

SYNC_MUTANTS = {
    # reliable broadcast with f = t + 1 forged ECHOs (tests/engines/test_lockstep.py)
    "rb-faults": ((CORPUS / "rb_sync" / "rb_sync.rta").read_text().replace("t >= f;", "t + 1 >= f;"),
                  "unforgeability"),
    # FloodMin adopting 0 only from two senders
    "floodmin-two-zeros": ((CORPUS / "floodmin" / "floodmin.rta").read_text().replace(
        "received(M0) >= 1", "received(M0) >= 2").replace("received(M0) < 1", "received(M0) < 2"),
        "agreement"),
}


@pytest.mark.parametrize("name", sorted(SYNC_MUTANTS))
def test_lockstep_counterexample_is_minimal(name: str) -> None:
    """Fewest rounds, then the lexicographically smallest parameters: the lock-step explicit
    enumeration (``lockstep_sim.explicit_verdict``, breadth-first) confirms both."""

    text, prop = SYNC_MUTANTS[name]
    automaton = read_rta(text).rta
    results, _ = lockstep.check_rta(automaton, (prop,))
    [result] = results
    assert result.verdict == VIOLATED, (result.verdict, result.reason)
    assert result.details["minimality"].startswith("fewest rounds, then the lexicographically smallest")
    run = result.details["run"]
    found = run["parameters"]
    rounds = len(run["steps"])
    sta = build(automaton)
    spec = lockstep.read_property(sta, next(p for p in automaton.properties if p.name == prop))
    order = list(found)
    rc = list(automaton.assumptions)
    assert rc
    bound = max(found.values())
    for values in itertools.product(range(bound + 1), repeat=len(order)):
        valuation = dict(zip(order, values))
        if values >= tuple(found[p] for p in order) or not all(holds(a, valuation) for a in rc):
            continue
        verdict, _ = explicit_verdict(sta, spec, valuation)
        assert verdict == "holds", valuation
    verdict, reference = explicit_verdict(sta, spec, found)
    assert verdict == "violated" and len(reference.rounds) == rounds


def test_an_undecided_query_is_never_claimed_minimal() -> None:
    """A minimisation query without an answer (a timeout) keeps the valuation in hand, unproved."""
    solver = z3.Solver()
    n = z3.Int("n")
    solver.add(n >= 3)
    assert solver.check(n == 9) == z3.sat
    model = solver.model()
    proved = minimise_terms(solver, solver.check, model, [("n", n)])
    assert proved.proved and proved.model.eval(n).as_long() == 3
    undecided = minimise_terms(solver, lambda *extra: z3.unknown, model, [("n", n)])
    assert not undecided.proved and "no answer on n <=" in undecided.why
    assert undecided.model.eval(n).as_long() == 9
