"""The CHC engine (tactl/engines/chc.py): automata with resets, certificates, replayed runs, and
agreement with the steady-schema engine on monotone automata and with the explicit engine at
small sizes."""

from __future__ import annotations

import pytest

from conftest import CORPUS, DATA, GUARD_S, check_results, check_ta_files
from tactl.engines import chc, explicit, parametric
from tactl.engines.chc_certificate import questions, recheck
from tactl.engines.chc_system import counter_system
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED
from tactl.ir.eltl.formula import reach_question, temporal_query
from tactl.ir.ta.reader import read_ta_file

RESETS = DATA / "chc"
EXPECTED = {"reset_safe.ta": {"never_d": HOLDS}, "reset_counting.ta": {"bounded": HOLDS},
            "reset_violated.ta": {"never_e": VIOLATED}}


def verdicts(path, engine: str, **kw) -> dict:
    return check_results(read_ta_file(path).ta, str(path), engine=engine, **kw)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_reset_automata(name):
    results = verdicts(RESETS / name, chc.ENGINE, timeout_s=GUARD_S)
    assert {p: r.verdict for p, r in results.items()} == EXPECTED[name]
    for r in results.values():
        if r.verdict == HOLDS:
            assert r.details["invariant"]
            assert "z3: initiation, consecution and safety unsat" in r.details["recheck"]
            assert "cvc5: initiation, consecution and safety unsat" in r.details["recheck"]
        else:
            assert r.counterexample.replayed, r.counterexample.replay.message


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("n,f", [(3, 1), (4, 1), (5, 2)])
def test_reset_automata_agree_with_explicit(name, n, f):
    fixed = {"n": n, "f": f}
    ours = verdicts(RESETS / name, chc.ENGINE, parameters=fixed, timeout_s=GUARD_S)
    theirs = verdicts(RESETS / name, explicit.ENGINE, parameters=fixed)
    assert {p: r.verdict for p, r in ours.items()} == {p: r.verdict for p, r in theirs.items()}


def _monotone_files():
    return sorted(CORPUS.glob("*/*.ta")) + check_ta_files()


@pytest.mark.parametrize("path", _monotone_files(), ids=lambda p: p.name)
def test_monotone_safety_agrees_with_parametric(path):
    """On automata the steady-schema engine decides, every safety verdict it gives is the CHC
    engine's too (a CHC UNKNOWN would be a weakness, never a disagreement: none is expected here)."""
    ours = verdicts(path, chc.ENGINE, timeout_s=GUARD_S)
    theirs = verdicts(path, parametric.ENGINE)
    compared = 0
    for name, r in theirs.items():
        if r.kind != "safety" or r.verdict not in (HOLDS, VIOLATED):
            continue
        if ours[name].verdict == UNSUPPORTED:  # nested safety: the CHC engine asks reachability only
            continue
        assert ours[name].verdict == r.verdict, (name, ours[name].reason)
        compared += 1
    for r in ours.values():
        assert r.verdict != VIOLATED or r.counterexample.replayed
    if path.is_relative_to(CORPUS):  # the corpus models have reachability properties to compare
        assert compared


def test_liveness_is_unsupported_with_a_reason():
    results = verdicts(CORPUS / "strb" / "strb.ta", chc.ENGINE, timeout_s=GUARD_S)
    live = [r for r in results.values() if r.kind == "liveness"]
    assert live and all(r.verdict == UNSUPPORTED and "reachability" in r.reason for r in live)


def test_a_wrong_invariant_fails_the_recheck():
    import z3

    ta = read_ta_file(RESETS / "reset_safe.ta").ta
    question = reach_question(temporal_query(ta, ta.properties[0]))
    system = counter_system(ta, question, None)
    not_inductive = z3.Int("D") == 0  # true initially and safe, but not preserved by the rules
    assert set(questions(system, not_inductive)) == {"initiation", "consecution", "safety"}
    certificate = recheck(system, not_inductive)
    assert not certificate.ok
    assert certificate.answers["z3"]["consecution"] == "sat"
    assert certificate.answers["z3"]["initiation"] == "unsat"


def test_timeout_is_unknown():
    results = verdicts(RESETS / "reset_safe.ta", chc.ENGINE, timeout_s=0.001)
    assert {r.verdict for r in results.values()} == {UNKNOWN}
