"""``tactl check`` without ``--engine``: a safety property the parametric engine cannot decide
(resets, decrements) goes to the chc engine (tactl/engines/check.py), and when Spacer gives no
answer a bounded search looks for a violation (tactl/engines/chc_fallback.py)."""

from __future__ import annotations

import pytest

from conftest import CORPUS, DATA, GUARD_S, check_results, taco_reset_benchmarks
from tactl.engines import chc, chc_fallback, explicit, parametric
from tactl.engines.result import ENGINE_CHOICE, HOLDS, UNKNOWN, VIOLATED, PropertyResult
from tactl.ir import read_ta
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.evaluate import holds
from tactl.ir.ta.reader import read_ta_file

RESETS = DATA / "chc"
EXPECTED = {"reset_safe.ta": ("never_d", HOLDS), "reset_counting.ta": ("bounded", HOLDS),
            "reset_violated.ta": ("never_e", VIOLATED)}


def _results(path, **options) -> dict[str, PropertyResult]:
    return check_results(read_ta_file(path).ta, str(path), timeout_s=GUARD_S, **options)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_default_engine_hands_reset_automata_to_chc(name):
    prop, verdict = EXPECTED[name]
    result = _results(RESETS / name)[prop]
    assert result.verdict == verdict
    assert "does not decide this automaton" in result.details[ENGINE_CHOICE]
    assert "x' == 0" in result.details[ENGINE_CHOICE]  # the parametric engine's reason
    if verdict == HOLDS:
        assert result.engine == chc.ENGINE
        assert "cvc5: initiation, consecution and safety unsat" in result.details["recheck"]
    else:  # a shallow violation: the search before Spacer finds it, and says so
        assert result.engine == explicit.ENGINE
        assert result.counterexample.replayed
        assert "before Spacer was asked" in result.reason


def test_liveness_of_a_reset_automaton_is_not_given_to_the_chc_engine():
    # tactl/engines/reset_liveness.py answers it: no lasso at small sizes and no proof, so unknown
    results = _results(DATA / "check" / "unsupported.ta")
    assert results["reset"].verdict == HOLDS and results["reset"].engine == chc.ENGINE
    assert results["live"].verdict == UNKNOWN and results["live"].engine == parametric.ENGINE
    assert "no proof for all sizes" in results["live"].reason
    assert ENGINE_CHOICE not in results["live"].details


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/*.ta")), ids=lambda p: p.name)
def test_automata_the_parametric_engine_decides_stay_with_it(path):
    for r in _results(path).values():
        assert r.engine == parametric.ENGINE and ENGINE_CHOICE not in r.details


def _spacer_gives_up(monkeypatch):
    """Spacer answers UNKNOWN at once, as when its share of the time runs out."""
    def unknown(ta, query, parameters=None, limit_s=None):
        return PropertyResult(query.property, query.kind, UNKNOWN, chc.ENGINE, queries=1,
                              reason="Spacer gave no answer (timeout after 0.0 s)")
    monkeypatch.setattr(chc, "check", unknown)


def test_forced_chc_falls_back_to_a_bounded_search_when_spacer_gives_no_answer(monkeypatch):
    _spacer_gives_up(monkeypatch)
    result = _results(RESETS / "reset_violated.ta", engine=chc.ENGINE)["never_e"]
    assert result.verdict == VIOLATED and result.engine == explicit.ENGINE
    cex = result.counterexample
    assert cex.replayed, cex.replay.message
    ta = read_ta_file(RESETS / "reset_violated.ta").ta
    assert all(holds(ta.expand(a), cex.parameters) for a in ta.assumptions)
    sizes = ", ".join(f"{p}={v}" for p, v in cex.parameters.items())
    assert f"found by the bounded search at {sizes}" in result.reason
    assert "after Spacer: Spacer gave no answer" in result.reason


def test_no_run_found_is_unknown_with_both_reasons(monkeypatch):
    _spacer_gives_up(monkeypatch)
    result = _results(RESETS / "reset_safe.ta", engine=chc.ENGINE)["never_d"]
    assert result.verdict == UNKNOWN
    assert "Spacer gave no answer" in result.reason
    assert "no violation at the" in result.reason and "not a proof for all n" in result.reason
    assert "bounded search" in result.details[chc_fallback.FALLBACK]


def test_a_tiny_spacer_budget_still_finds_the_violation():
    ta = read_ta_file(RESETS / "reset_violated.ta").ta
    query = temporal_query(ta, ta.properties[0])
    result = chc_fallback.check(ta, query, None, spacer_limit_s=0.001)
    assert result.verdict == VIOLATED and result.counterexample.replayed


def test_a_search_cut_short_is_unknown(monkeypatch):
    _spacer_gives_up(monkeypatch)
    result = _results(RESETS / "reset_safe.ta", engine=chc.ENGINE, max_states=3)["never_d"]
    assert result.verdict == UNKNOWN and "not explored completely" in result.reason


def test_a_decrement_goes_to_chc_too():
    result = check_results(RESETS / "decrement.eta", timeout_s=GUARD_S)["bounded"]
    assert result.verdict == HOLDS and result.engine == chc.ENGINE
    assert "x' == x - 1" in result.details[ENGINE_CHOICE]


_TACO = taco_reset_benchmarks()


@pytest.mark.skipif("phase-king.eta" not in _TACO, reason="no TACO checkout found (set TACTL_TACO)")
def test_taco_phase_king_is_violated_with_a_replayed_run():
    """TACO's table: unsafe. Spacer gives no answer in minutes; the search finds a run at 4 processes."""
    ta = read_ta(_TACO["phase-king.eta"], "phase-king.eta", extended=True).ta
    result = check_results(ta, "phase-king.eta", timeout_s=GUARD_S)["reachCons"]
    assert result.verdict == VIOLATED, result.reason
    assert result.counterexample.replayed
    assert all(holds(ta.expand(a), result.counterexample.parameters) for a in ta.assumptions)
    assert "found by the bounded search" in result.reason
