"""The justice read per process on loops through several configurations (ir/eltl/justice.py): how
it is taken apart, how the simulator judges a loop by it, and that the engines agree on it."""

from __future__ import annotations

from conftest import DATA, REPO, check_results
from tactl.engines.result import HOLDS, VIOLATED
from tactl.engines.simulate import Configuration, Step, replay_query
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.eltl.justice import JusticePair, loop_reading, readings_differ
from tactl.ir.expr import Always, BoolConst, Eventually, to_text, walk
from tactl.ir.ta.reader import read_ta

# One process may wait in D for D -> E; the others go round B -> C -> B for ever.
WAIT = """skel Wait {
  shared x;
  parameters n;
  assumptions (1) { n >= 2; }
  locations (5) { A: [0]; B: [1]; C: [2]; D: [3]; E: [4]; }
  inits (6) { A == n; B == 0; C == 0; D == 0; E == 0; x == 0; }
  rules (6) {
    0: A -> B when (true) do { x' == x + 1; };
    1: B -> C when (true) do { unchanged(x); };
    2: C -> B when (true) do { unchanged(x); };
    3: A -> D when (true) do { unchanged(x); };
    4: D -> E when (x >= 1) do { unchanged(x); };
    5: E -> E when (true) do { unchanged(x); };
  }
  specifications (2) {
    reach_e: <>[](A == 0 && (x < 1 || D == 0)) -> <>(E != 0);
    often: <>[](A == 0 && (x < 1 || D == 0)) -> []<>(B == 0);
  }
}
"""


def query_of(text: str, name: str, index: int = 0):
    ta = read_ta(text, name).ta
    query = temporal_query(ta, ta.properties[index])
    assert isinstance(query, TemporalQuery)
    return ta, query


def test_the_justice_is_taken_apart_into_pairs_and_the_rest_stays_literal():
    ta, query = query_of(WAIT, "wait.ta", 1)
    reading = loop_reading(ta, query)
    assert reading.pairs == (JusticePair(BoolConst(False), "A"), JusticePair(reading.pairs[1].waived, "D"))
    assert to_text(reading.pairs[1].waived) == "x < 1"
    # the consequent's own <>[] (the negation of []<>(B == 0)) is not a justice: it stays
    rest = [to_text(n.arg.arg) for n in walk(reading.negation)
            if isinstance(n, Eventually) and isinstance(n.arg, Always)]
    assert rest == ["B != 0"]


def test_an_automaton_whose_cycles_are_self_loops_keeps_the_literal_reading():
    ta = read_ta((REPO / "corpus" / "strb" / "strb.ta").read_text(), "strb.ta").ta
    for prop in ta.properties:
        query = temporal_query(ta, prop)
        if isinstance(query, TemporalQuery) and query.infinite:
            reading = loop_reading(ta, query)
            assert reading.pairs == () and reading.negation == query.negation


def test_the_simulator_rejects_a_loop_that_leaves_an_enabled_waiting_process_behind():
    ta, query = query_of(WAIT, "wait.ta")
    initial = Configuration.of({"A": 3, "B": 0, "C": 0, "D": 0, "E": 0}, {"x": 0})
    prefix = [Step(3, 1), Step(0, 2)]  # one process waits in D, two send and enter B
    going_round = [Step(1, 1), Step(2, 1)]
    bad = replay_query(ta, query, {"n": 3}, initial, prefix, cycle=going_round)
    assert not bad.ok and "not just" in bad.message and "D is occupied" in bad.message
    # nobody waits in D: the same loop is just (it leaves B and C in turn), E is never reached
    initial = Configuration.of({"A": 2, "B": 0, "C": 0, "D": 0, "E": 0}, {"x": 0})
    good = replay_query(ta, query, {"n": 2}, initial, [Step(0, 2)], cycle=going_round)
    assert good.ok, good.message


def test_engines_agree_on_the_per_process_reading():
    for engine, options in (("parametric", {}), ("explicit", {"bound": 4})):
        results = check_results(read_ta(WAIT, "wait.ta").ta, "wait.ta", engine=engine, **options)
        assert results["reach_e"].verdict == VIOLATED, (engine, results["reach_e"].reason)
        cex = results["reach_e"].counterexample
        assert cex.replayed and cex.cycle
        # the lasso goes round B -> C with D empty: a process waiting there would be owed D -> E
        assert dict(cex.replay.configurations[len(cex.schedule)].counters)["D"] == 0
        assert results["often"].verdict == VIOLATED


def test_a_loop_that_must_take_the_exit_it_is_owed_still_holds():
    """round.ta: everyone goes round B -> C -> B, so C is visited on every just loop."""
    for engine, options in (("parametric", {}), ("explicit", {"bound": 4})):
        results = check_results(DATA / "cycles" / "round.ta", engine=engine, **options)
        assert results["live"].verdict == HOLDS, (engine, results["live"].reason)


def test_the_readings_differ_only_where_a_loop_can_leave_a_justice_location():
    """SPIN's and NuSMV's 'holds' is withheld exactly there (tactl/engines/check.py)."""
    leave = read_ta((DATA / "cycles" / "leave.ta").read_text(), "leave.ta").ta
    assert all(readings_differ(leave, temporal_query(leave, p)) for p in leave.properties)
    occupied = read_ta((DATA / "cycles" / "occupied.ta").read_text(), "occupied.ta").ta
    assert not readings_differ(occupied, temporal_query(occupied, occupied.properties[0]))
    ta, query = query_of(WAIT, "wait.ta")  # A and D are left only by rules no loop fires
    assert not readings_differ(ta, query)
