"""The minimisation budget (tactl/engines/budget.py): by default, making a counterexample minimal
may take at most as long as the check took to reach its verdict; a budget of 0 keeps the first
replayed run, marked "not shown minimal" with the reason; ``minimize=True`` (``--minimize``)
searches in full. Budgets are set to 0 here (never a wall-clock bound): the mechanism, not its
timing, is what these tests pin."""

from __future__ import annotations

import pytest

from conftest import CORPUS, DATA, GUARD_S, check_results
from tactl.engines import budget, minimal_params
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import VIOLATED
from tactl.engines.result_json import result_from_json, result_to_json
from tactl.engines.simulate import replay, replay_run
from tactl.ir.eltl.formula import reach_question, temporal_query
from tactl.ir.ta.reader import read_ta
from tactl.report.property_json import counterexample_json
from tactl.util import deadline

STRB = (CORPUS / "strb" / "strb.ta").read_text()
# relay threshold t + 1 lowered to t: unforgeability is violated; its smallest valuation is known
# (tests/engines/test_cex_minimal.py confirms it with the explicit engine): n=1, t=0, f=0
RELAY_T = STRB.replace("define RELAY == t + 1;", "define RELAY == t;")
# ByMC's tutorial bug (n >= 3t): relay is violated with a lasso
RC = STRB.replace("n > 3 * t;", "n >= 3 * t;")


@pytest.fixture
def no_budget(monkeypatch):
    """A budget of 0: spent the moment the verdict is known."""
    monkeypatch.setattr(budget, "FLOOR_S", 0.0)
    monkeypatch.setattr(budget, "FACTOR", 0.0)


def _check(text: str, prop: str, **options):
    ta = read_ta(text, "mutant.ta").ta
    with deadline.clock(GUARD_S):
        [result] = check_automaton(ta, "mutant.ta", CheckOptions(properties=(prop,), **options)).results
    return ta, result


def _replays(ta, prop: str, cex) -> bool:
    """The simulator's own verdict on the reported run (not the engine's record of it)."""
    query = temporal_query(ta, next(p for p in ta.properties if p.name == prop))
    question = reach_question(query)
    if question is not None and cex.loop is None and cex.cycle is None:
        return replay(ta, question, cex.parameters, cex.initial, cex.schedule).ok
    return replay_run(ta, query.negation, query.infinite, cex.parameters, cex.initial, cex.schedule,
                      cex.loop).ok


@pytest.mark.parametrize("text, prop", [(RELAY_T, "unforgeability"), (RC, "relay")])
def test_a_spent_budget_keeps_a_replayed_run_marked_not_minimal(no_budget, text, prop):
    ta, result = _check(text, prop)
    assert result.verdict == VIOLATED, result.reason
    cex = result.counterexample
    assert cex.replayed and _replays(ta, prop, cex)
    assert not cex.parameters_minimal and not cex.schedule_shortest
    assert "not shown minimal: the minimisation budget was spent: stopped after" in cex.minimality
    assert "--minimize for the full search" in cex.minimality
    # the schedule's note says the same budget stopped it, once, without repeating the hint
    assert cex.minimality.count("--minimize") == 1
    assert "schedule not shown shortest: the minimisation budget was spent" in cex.minimality


def test_minimize_searches_in_full_whatever_the_budget(no_budget):
    ta, result = _check(RELAY_T, "unforgeability", minimize=True)
    assert result.verdict == VIOLATED
    cex = result.counterexample
    assert cex.parameters == {"n": 1, "t": 0, "f": 0}
    assert cex.parameters_minimal and cex.schedule_shortest and cex.minimality == ""
    assert _replays(ta, "unforgeability", cex)


def test_the_note_reaches_the_json_and_survives_the_cache_format(no_budget):
    ta, result = _check(RELAY_T, "unforgeability")
    note = counterexample_json(ta, result.counterexample)["minimal"]["note"]
    assert note.startswith("not shown minimal: the minimisation budget was spent")
    again = result_from_json(result_to_json(result))
    assert again.counterexample.minimality == result.counterexample.minimality
    assert not again.counterexample.parameters_minimal


def test_no_minimal_still_skips_the_minimisation(no_budget, monkeypatch):
    monkeypatch.setenv(minimal_params.OFF, "1")
    _, result = _check(RELAY_T, "unforgeability", minimize=True)
    assert result.verdict == VIOLATED
    assert f"not minimised ({minimal_params.OFF} is set)" in result.counterexample.minimality


def test_a_budget_opens_at_the_verdict_and_says_why_once():
    with budget.per_property(full=False) as b:
        assert b is not None and b.allowance_s is None
        b.factor, b.floor_s = 0.0, 0.0
        budget.verdict_known()
        assert b.allowance_s == 0.0 and b.exhausted()
        first, second = budget.stop(), budget.stop()
        assert first is not None and "--minimize" in first
        assert second == "the minimisation budget was spent"
    assert budget.current() is None and budget.stop() is None  # outside a check: the full search


def test_the_floor_keeps_a_quick_check_minimisable():
    b = budget.Budget(factor=1.0, floor_s=0.5)
    b.verdict_known()
    assert b.allowance_s is not None and b.allowance_s >= 0.5


def test_full_search_has_no_budget():
    with budget.per_property(full=True) as b:
        assert b is None and budget.stop() is None
        assert budget.wall_limit_s(20.0) == (20.0, False)


@pytest.mark.parametrize("file", ["circulate.ta", "leave.ta", "detour.ta", "occupied.ta"])
def test_a_spent_budget_changes_no_verdict(no_budget, file):
    """Liveness through several configurations: the loop query approximates, its small model is
    searched explicitly when it does not replay, so the small-parameter re-queries decide the
    verdict there and the budget leaves them alone."""
    budgeted = check_results(DATA / "cycles" / file, timeout_s=GUARD_S)
    full = check_results(DATA / "cycles" / file, timeout_s=GUARD_S, minimize=True)
    assert {p: r.verdict for p, r in budgeted.items()} == {p: r.verdict for p, r in full.items()}
    for r in budgeted.values():
        if r.verdict == VIOLATED:
            assert r.counterexample.replayed
