"""The explicit engine on liveness of automata with resets: the fair-SCC search at fixed sizes,
the justice of a process that never leaves read as the formula states it (ir/eltl/justice.py),
and every lasso replayed by the simulator through its resets."""

from __future__ import annotations

import pytest

from conftest import DATA, taco_reset_benchmarks
from tactl.engines.explicit_ltl import check_temporal
from tactl.engines.result import HOLDS, VIOLATED
from tactl.engines.simulate import Configuration, Step, replay_query
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.ta.reader import read_ta

RESETS = DATA / "resets"


def automaton(name: str):
    path = RESETS / name
    return read_ta(path.read_text(encoding="utf-8"), str(path), extended=True).ta


def query(ta, prop: str) -> TemporalQuery:
    q = temporal_query(ta, next(p for p in ta.properties if p.name == prop))
    assert isinstance(q, TemporalQuery), q
    return q


def decide(ta, prop: str, bound: int = 4, **kw):
    q = query(ta, prop)
    return q, check_temporal(ta, q, {}, bound=bound, **kw)


def assert_replayed_through_a_reset(ta, q, result) -> None:
    assert result.verdict == VIOLATED, (result.verdict, result.reason)
    cex = result.counterexample
    assert cex.replayed and cex.cycle, cex.replay.message
    assert any(ta.increments(ta.rules[s.rule]) is None for s in cex.cycle), "the loop resets nothing"
    again = replay_query(ta, q, cex.parameters, cex.initial, cex.schedule, None, cex.cycle)
    assert again.ok, again.message


def test_a_round_with_resets_where_the_liveness_holds():
    ta = automaton("phases.eta")
    _, result = decide(ta, "all_counted")
    assert result.verdict == HOLDS, result.reason
    assert "not a proof for all n" in result.scope and result.details["states"] > 0


def test_a_lasso_through_a_reset_is_found_and_replayed():
    ta = automaton("phases.eta")
    q, result = decide(ta, "two_sent")
    assert_replayed_through_a_reset(ta, q, result)
    assert result.counterexample.parameters == {"n": 1}  # at n >= 2 every run ends


def test_a_just_lasso_through_a_reset_with_a_waiting_process_that_left():
    ta = automaton("toggle.eta")
    q, result = decide(ta, "grows")
    assert_replayed_through_a_reset(ta, q, result)
    loop = result.counterexample.replay.configurations[len(result.counterexample.schedule):]
    assert all(dict(c.counters)["W"] == 0 for c in loop)  # justice made W's process leave first


def test_a_guard_that_a_reset_makes_false_again_still_owes_the_waiting_process_its_step():
    ta = automaton("toggle.eta")
    q, result = decide(ta, "moves")
    assert result.verdict == HOLDS, result.reason
    # The run weak fairness would accept: W's process waits while the others go round and x is
    # 1, 0, 1, 0, ... It violates the formula's own clause `x < 1 || W == 0` for that process.
    initial = Configuration.of({"A": 1, "B": 0, "W": 1, "C": 0}, {"x": 0})
    replay = replay_query(ta, q, {"n": 2}, initial, [], None, [Step(0, 1), Step(1, 1)])
    assert not replay.ok and "not just" in replay.message and "W" in replay.message


def test_the_search_agrees_with_the_literal_reading_of_a_stuck_process_at_every_size():
    """Whatever n, the only loops that keep W occupied go round A -> B -> A, on which x >= 1
    somewhere: no size gives a violation of `moves`."""
    ta = automaton("toggle.eta")
    for n in (2, 3, 4, 5):
        q = query(ta, "moves")
        result = check_temporal(ta, q, {"n": n}, bound=n)
        assert result.verdict == HOLDS, (n, result.reason)


def test_a_search_that_cannot_finish_says_so():
    ta = automaton("phases.eta")
    _, result = decide(ta, "all_counted", bound=6, max_states=20)
    assert result.verdict == "unknown" and "--max-states" in result.reason


_TACO = taco_reset_benchmarks()


@pytest.mark.skipif("rb-2x_reset.eta" not in _TACO, reason="no TACO checkout found (set TACTL_TACO)")
def test_taco_bvterm_is_decided_at_small_sizes():
    ta = read_ta(_TACO["rb-2x_reset.eta"], "rb-2x_reset.eta", extended=True).ta
    q = query(ta, "BVTerm")
    result = check_temporal(ta, q, {}, bound=4)
    assert result.verdict == HOLDS, result.reason
    assert result.details["instances"] == 6


def test_a_waiting_process_whose_exit_is_disabled_all_along_a_quiet_loop_is_not_owed_a_step():
    """The component of the state graph mixes configurations where W's exit is enabled (after
    A -> B) with the quiet loop A -> Q -> A, where x stays 0: the search must keep the quiet loop
    (W occupied, its pair waived there) rather than cut every configuration where W is occupied."""
    ta = automaton("quiet.eta")
    q, result = decide(ta, "moves", bound=3)
    assert result.verdict == VIOLATED, result.reason
    cex = result.counterexample
    assert cex.replayed, cex.replay.message
    loop = cex.replay.configurations[len(cex.schedule):]
    assert all(dict(c.counters)["W"] == 1 and dict(c.shared)["x"] == 0 for c in loop)
