"""``check --certify`` on the lock-step engine (tactl/engines/lockstep_certificate.py): a HOLDS
keeps every ``unsat`` answer it rests on — guard completeness, phases, the diameter, the bounded
checks — as SMT-LIB text, and cvc5 answers each again (tactl/engines/certify.py)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest
import z3

from conftest import CORPUS
from tactl.driver.inputs import read_automaton
from tactl.engines import certify, lockstep, solvers
from tactl.engines.lockstep_certificate import smtlib
from tactl.engines.lockstep_diameter import after_coordinator
from tactl.engines.result import HOLDS, UNKNOWN, Obligation, PropertyResult
from tactl.passes.rta_to_sync.sync_ta import build

FLOODMIN = CORPUS / "floodmin" / "floodmin.rta"
QUEEN = CORPUS / "phase_queen" / "phase_queen.rta"

needs_cvc5 = pytest.mark.skipif(solvers.available("cvc5") is None, reason="cvc5 is not installed")


def checked(path, *properties: str):
    automaton = read_automaton(path).rta
    results, info = lockstep.check_rta(automaton, properties)
    return {r.name: r for r in results}, build(automaton), info


def z3_answer(text: str) -> z3.CheckSatResult:
    s = z3.Solver()
    s.from_string(text)
    return s.check()


@needs_cvc5
def test_a_lockstep_holds_is_certified_with_every_question_it_rests_on():
    results, sta, info = checked(FLOODMIN)
    assert info["diameter"] == 2 and {r.verdict for r in results.values()} == {HOLDS}
    # one completeness question per correct location, the diameter, then the bounded checks:
    # paths of 0..2 rounds, or (with the clean-round hypothesis) 3 x 3 positions and lengths
    bounded = {"validity0": 3, "validity1": 3, "agreement": 9}
    for name, r in results.items():
        certified = certify.certify(r)
        assert certified.verdict == HOLDS, certified.reason
        k = len(sta.correct) + 1 + bounded[name]
        assert certified.certificate.queries == certified.certificate.confirmed == k
    labels = [o.label for o in results["agreement"].obligations]
    assert labels[:len(sta.correct) + 1] == [*(f"guard completeness of {l}" for l in sta.correct),
                                             "diameter 2 rounds"]


def test_every_recorded_question_is_unsat_for_z3_read_back_from_its_text():
    results, _, _ = checked(FLOODMIN, "agreement")
    texts = [o.text() for o in results["agreement"].obligations]
    assert all(t.startswith("; ") and "(check-sat)" in t for t in texts)
    assert [z3_answer(t) for t in texts] == [z3.unsat] * len(texts)


@needs_cvc5
def test_an_altered_question_that_cvc5_answers_sat_makes_the_verdict_unknown():
    results, _, _ = checked(FLOODMIN, "validity0")
    r = results["validity0"]
    last = r.obligations[-1]
    text = last.text()
    # drop the last assertion, the negated property: the path alone exists
    altered = text[:text.rindex("(assert")] + text[text.rindex("(check-sat)"):]
    assert z3_answer(altered) == z3.sat
    r.obligations[-1] = Obligation(last.label, altered)
    result = certify.certify(dataclasses.replace(r))
    assert result.verdict == UNKNOWN
    assert result.reason.startswith(f"not certified: cvc5 answered sat on {last.label}")
    assert result.certificate.confirmed == len(r.obligations) - 1


def test_phases_are_a_question_too():
    results, sta, info = checked(QUEEN, "validity0")
    assert info["phase"] == 2
    labels = [o.label for o in results["validity0"].obligations]
    assert "phases of 2 rounds" in labels
    phases = results["validity0"].obligations[labels.index("phases of 2 rounds")]
    assert z3_answer(phases.text()) == z3.unsat
    # the queen's round is a phase's last: the checks after it need no extra round
    assert after_coordinator(sta) == 0


def test_z3s_short_applications_are_written_as_every_solver_reads_them():
    x = z3.Int("x")
    s = z3.Solver()
    s.add(z3.And(), z3.Sum([x]) > 0, z3.Or(), z3.ForAll([x], z3.And(z3.Sum([x]) >= x)))
    assert " and)" in s.to_smt2() and "(+ x)" in s.to_smt2()  # what other solvers refuse
    text = smtlib(s, "a test")
    assert " and)" not in text and "(+ x)" not in text and "false" in text
    assert z3_answer(text) == z3.unsat


def test_a_coordinator_before_a_phase_ends_needs_the_rounds_to_the_next_phase_start():
    """The diameter speaks of paths from phase starts: after a coordinator's round that ends in
    the middle of a phase, the bounded checks cover the rounds to the next phase start too."""
    rule = SimpleNamespace
    sta = SimpleNamespace(crashing=(), initial=("A",), locations=("A", "B", "C"),
                          rules=[rule(source="A", target="B"), rule(source="B", target="C"),
                                 rule(source="C", target="A")], coordinators=("A",))
    assert after_coordinator(sta) == 2
    assert after_coordinator(SimpleNamespace(**{**vars(sta), "coordinators": ("C",)})) == 0


def test_the_checks_after_the_hypothesis_reach_as_far_as_asked():
    automaton = read_automaton(FLOODMIN).rta
    sta = build(automaton)
    spec = lockstep.read_property(sta, next(p for p in automaton.properties if p.name == "agreement"))
    asked: list[Obligation] = []
    outcome, _, queries, _ = lockstep.bmc(sta, spec, 2, after=3, asked=asked)
    assert outcome == "none" and queries == len(asked) == 3 * 4


def test_a_question_several_holds_share_is_asked_once_per_check(monkeypatch):
    calls = []

    def slow(solver, path, timeout_s=solvers.DEFAULT_TIMEOUT_S):
        calls.append(timeout_s)
        return solvers.SolverRun(solver, solvers.TIMEOUT, timeout_s, "test", "no answer")

    monkeypatch.setattr(certify.solvers, "run", slow)
    shared = Obligation("diameter 2 rounds", "(check-sat)")
    results = [certify.certify(r, answered) for answered in ({},)
               for r in (PropertyResult(name, "safety", HOLDS, lockstep.ENGINE, obligations=[shared])
                         for name in ("a", "b"))]
    assert len(calls) == 1 and calls == [certify.LIMIT_S]
    assert [r.verdict for r in results] == [UNKNOWN, UNKNOWN]
    assert all("cvc5 answered timeout on diameter 2 rounds" in r.reason for r in results)
