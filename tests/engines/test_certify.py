"""``check --certify`` (tactl/engines/certify.py): every query behind a HOLDS answered again by
cvc5; the chc engine's invariant in tactl's syntax (tactl/engines/chc_invariant.py); its three
checks as the SMT-LIB files ``emit --to smtlib --invariant`` writes."""

from __future__ import annotations

import pytest
import z3

from conftest import CORPUS, DATA, GUARD_S, check_results
from tactl.driver.emitters import invariant_files
from tactl.driver.inputs import load_automaton
from tactl.engines import certify, chc, solvers
from tactl.engines.chc_certificate import QUESTIONS
from tactl.engines.chc_invariant import readable
from tactl.engines.chc_facts import with_facts
from tactl.engines.chc_system import counter_system
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED, Obligation, PropertyResult
from tactl.ir.eltl.formula import reach_question, temporal_query
from tactl.ir.linear import to_z3
from tactl.ir.ta.reader import read_ta_file

STRB = CORPUS / "strb" / "strb.ta"
RESET_SAFE = DATA / "chc" / "reset_safe.ta"

needs_cvc5 = pytest.mark.skipif(solvers.available("cvc5") is None, reason="cvc5 is not installed")


@needs_cvc5
def test_parametric_holds_certified_by_cvc5():
    results = check_results(STRB, certify=True)
    assert {r.verdict for r in results.values()} == {HOLDS}
    for r in results.values():  # one query per branch, and the rules it leaves out if any
        assert r.certificate is not None and r.certificate.ok, r.certificate
        assert r.certificate.solver == "cvc5"
        assert r.certificate.queries == r.certificate.confirmed == sum(bool(o.text()) for o in r.obligations) >= 1
    # unforgeability assumes V1 == 0 initially: the rules leaving V1 are left out of its query,
    # on z3's word that no initial configuration occupies V1; cvc5 is asked that too, and the
    # reduction's question (STRB's two shortcuts go: passes/ta_to_ta/reduction_question.py)
    assert results["unforgeability"].certificate.queries == 3


def test_the_premise_of_left_out_rules_is_an_unsat_question():
    [r] = check_results(STRB, properties=("unforgeability",)).values()
    # (the last but one: the reduction's question comes after the engine's own)
    premise = r.obligations[-2].text()
    # V1 is empty at the start; V0 -> SE waits for echo >= t + 1 - f, and echo stays 0 while only
    # V0's self-loop can fire, so SE and AC are never entered either
    assert premise.startswith("; an initial configuration occupying AC, SE, V1; or the guard of rule 1 "
                              "true with echo at the initial values;")
    solver = z3.Solver()
    solver.from_string(premise)
    assert solver.check() == z3.unsat


@needs_cvc5
def test_chc_holds_certified_by_its_three_questions():
    [r] = check_results(RESET_SAFE, engine=chc.ENGINE, certify=True).values()
    assert r.verdict == HOLDS
    assert [o.label for o in r.obligations] == list(QUESTIONS)
    assert r.certificate.ok and r.certificate.queries == 3


def test_without_certify_there_is_no_certificate():
    for r in check_results(STRB).values():
        assert r.verdict == HOLDS and r.certificate is None
        assert r.obligations  # recorded, never shown


@needs_cvc5
def test_a_disagreeing_cvc5_makes_the_holds_unknown(monkeypatch):
    def tampered(solver, path, timeout_s=solvers.DEFAULT_TIMEOUT_S):
        return solvers.SolverRun(solver, solvers.SAT, 0.0, "tampered")

    monkeypatch.setattr(certify.solvers, "run", tampered)
    results = check_results(STRB, properties=("unforgeability",), certify=True)
    r = results["unforgeability"]
    assert r.verdict == UNKNOWN
    assert r.reason.startswith("not certified: cvc5 answered sat on unforgeability")
    assert r.certificate.confirmed == 0 and not r.certificate.ok


def test_an_answer_the_engine_already_had_is_used():
    """The chc engine's in-process cvc5 answers count; a non-unsat one refuses the HOLDS."""
    good = Obligation("initiation", "(check-sat)", (("z3", "unsat"), ("cvc5", "unsat")))
    bad = Obligation("consecution", "(check-sat)", (("z3", "unsat"), ("cvc5", "unknown")))
    r = certify.certify(PropertyResult("p", "safety", HOLDS, "chc", obligations=[good, bad]))
    assert r.verdict == UNKNOWN and r.certificate.confirmed == 1 and r.certificate.queries == 2
    assert "cvc5 answered unknown on consecution (query 2 of 2" in r.reason


def test_a_holds_without_recorded_queries_is_not_certified():
    r = certify.certify(PropertyResult("p", "safety", HOLDS, "parametric"))
    assert r.verdict == UNKNOWN and "recorded no SMT query" in r.reason


def test_other_verdicts_are_left_alone():
    r = certify.certify(PropertyResult("p", "safety", VIOLATED, "parametric"))
    assert r.verdict == VIOLATED and r.certificate is None


@pytest.mark.parametrize("path", [STRB, RESET_SAFE, DATA / "chc" / "reset_counting.ta"])
def test_readable_invariant_is_the_invariant(path):
    """Under the facts every state has, the printed invariant with the printed proved facts
    (tactl/engines/chc_facts.py) and the certified one are the same set of states (z3 proves the
    equivalence), and the number of processes is written as the counters' sum."""
    ta = read_ta_file(path).ta
    for prop in ta.properties:
        query = temporal_query(ta, prop)
        question = reach_question(query)
        if question is None:
            continue
        r = chc.check(ta, query)
        assert r.verdict == HOLDS
        system = with_facts(ta, counter_system(ta, question, None)).system
        assert "processes#" not in r.details["invariant"] + r.details.get("facts", "")
        certified = _certified_invariant(system, r)
        facts = z3.BoolVal(True) if system.facts is None else system.facts
        shown = z3.And(to_z3(readable(system, certified), lambda n: z3.Int(n)),
                       to_z3(readable(system, facts, keep_facts=True), lambda n: z3.Int(n)))
        solver = z3.Solver()
        solver.add(system.known, z3.Not(shown == certified))
        assert solver.check() == z3.unsat


def _certified_invariant(system, r) -> z3.BoolRef:
    """The invariant as the chc engine certified it, read back from its SMT-LIB form."""
    decls = {n: z3.Int(n) for n in system.names}
    return z3.parse_smt2_string(f"(assert {r.details['invariant_smtlib']})", decls=decls)[0]


@needs_cvc5
@pytest.mark.parametrize("path", [STRB, RESET_SAFE])
def test_emitted_invariant_checks_are_unsat_for_z3_and_cvc5(path, tmp_path):
    loaded = load_automaton(path)
    emitted = invariant_files(loaded, (), {})
    assert emitted["files"], emitted["skipped"]
    for name, text in emitted["files"].items():
        assert name.split(".")[-2] in QUESTIONS
        file = tmp_path / name
        file.write_text(text)
        for solver in ("z3", "cvc5"):
            run = solvers.run(solver, file, timeout_s=GUARD_S)
            assert run.answer == solvers.UNSAT, (solver, name, run.message)
