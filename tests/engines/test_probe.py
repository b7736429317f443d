"""The explicit search at the least valuation, asked before a bounded branch's queries.

``tactl/engines/probe.py``: a branch with two or more re-enterable sets has no exact query, so
the parametric engine first searches the least valuation the resilience condition allows
explicitly (capped at ``PROBE_STATES`` states); a replayed run there refutes the property. These
tests check that the probe never changes a verdict (the same automata with and without it, and
against the explicit engine), that its runs replay on the simulator and are shortest for their
parameters (the probe is the explicit engine's breadth-first search, so that is by
construction), that the cap and ``--param`` are honoured, and that on random19 it answers the
violations without a query while the branches that hold still get their over-approximation.
"""

from __future__ import annotations

import random

import pytest

from tactl.engines import explicit, parametric, probe
from tactl.engines.result import HOLDS, VIOLATED
from tactl.engines.simulate import replay_run
from test_reentry_bounds import BYMC, TWO, automaton, bounded_sets, query, random19_decide_or_flip, random_multi_set_ta


def no_probe(monkeypatch) -> None:
    monkeypatch.setattr(parametric, "probe", lambda *args, **kwargs: None)


def replays(ta, q, cex) -> bool:
    return replay_run(ta, q.negation, q.infinite, cex.parameters, cex.initial, cex.schedule, cex.loop).ok


def test_least_valuation_is_the_first_explicit_instance_and_keeps_fixed_parameters():
    ta = automaton(TWO)
    assert probe.least_valuation(ta, {}, 7) == explicit.parameter_instances(ta, {}, 7)[0]
    fixed = probe.least_valuation(ta, {"n": 6}, 7)
    assert fixed is not None and fixed["n"] == 6
    assert probe.least_valuation(ta, {"n": 0, "t": 5}, 7) is None  # outside the RC: nothing to search


def test_the_iterator_lists_the_same_instances_as_the_list():
    ta = automaton(TWO)
    for bound in (0, 3, 7):
        assert list(explicit.iter_parameter_instances(ta, {}, bound)) == explicit.parameter_instances(ta, {}, bound)


def test_a_probe_violation_replays_and_its_parameters_are_those_searched():
    ta = automaton(TWO)
    q = query(ta, "both")
    cex = probe.probe(ta, q, {"n": 2})
    assert cex is not None and replays(ta, q, cex) and cex.parameters == {"n": 2}
    assert cex.schedule_shortest and cex.violating_step == len(cex.schedule)
    assert cex.minimality.startswith("not shown minimal") and not cex.parameters_minimal


def test_no_violation_at_the_least_valuation_leaves_the_branch_to_the_queries():
    """TWO's "both" holds at n = 1 (the least valuation) and is violated from n = 2: the probe
    finds nothing, and the queries find the violation."""
    ta = automaton(TWO)
    q = query(ta, "both")
    assert probe.probe(ta, q, None) is None
    said: list[str] = []
    result = parametric.check_temporal(ta, q, said.append)
    assert result.verdict == VIOLATED and result.queries >= 1 and replays(ta, q, result.counterexample)
    assert said[0].startswith("both: explicit search at n=1 ") and "over-approximation" in said[1], said


def test_the_state_cap_leaves_the_branch_to_the_queries(monkeypatch):
    ta = automaton(TWO)
    q = query(ta, "both")
    assert probe.probe(ta, q, {"n": 3}) is not None
    monkeypatch.setattr(probe, "PROBE_STATES", 1)
    assert probe.probe(ta, q, {"n": 3}) is None
    result = parametric.check_temporal(ta, q, parameters={"n": 3})
    assert result.verdict == VIOLATED and result.queries >= 1 and replays(ta, q, result.counterexample)
    assert result.counterexample.parameters == {"n": 3}


@pytest.mark.parametrize("sets", [2, 3])
def test_random_automata_get_the_same_verdict_with_and_without_the_probe(monkeypatch, sets):
    """Seeded random automata whose branches need bounds: the verdict with the probe is the one
    the queries alone give, and every violation replays; at least one violation comes from the
    probe and at least one verdict holds (so both ways are exercised)."""
    rng = random.Random(350 + sets)
    cases = []
    while len(cases) < 30:
        ta = automaton(random_multi_set_ta(rng, sets))
        q = query(ta)
        if bounded_sets(ta, q) >= 2:
            cases.append((ta, q))
    with_probe = [parametric.check_temporal(ta, q) for ta, q in cases]
    no_probe(monkeypatch)
    without = [parametric.check_temporal(ta, q) for ta, q in cases]
    for (ta, q), a, b in zip(cases, with_probe, without):
        if a.verdict in (HOLDS, VIOLATED) and b.verdict in (HOLDS, VIOLATED):
            assert a.verdict == b.verdict, (q.property, a.verdict, b.verdict, a.reason, b.reason)
        if a.verdict == VIOLATED:
            assert replays(ta, q, a.counterexample)
    assert any(r.verdict == VIOLATED and r.queries == 0 for r in with_probe)
    assert any(r.verdict == HOLDS for r in with_probe)


@pytest.mark.parametrize("name", sorted(BYMC))
def test_random19_violations_need_no_query_and_holding_branches_keep_theirs(name):
    ta, q = random19_decide_or_flip(name)
    said: list[str] = []
    result = parametric.check_temporal(ta, q, said.append)
    assert result.verdict == BYMC[name], result.reason
    assert said[0].startswith("decide_or_flip: explicit search at "), said
    if result.verdict == VIOLATED:
        cex = result.counterexample
        assert result.queries == 0 and replays(ta, q, cex) and cex.schedule_shortest
        assert cex.parameters == probe.least_valuation(ta, {}, explicit.DEFAULT_BOUND)
    else:  # the over-approximation's unsat is the proof
        assert result.queries >= 1 and any("over-approximation" in line for line in said), said


# ------------------------------------------------- shortening a run: smaller valuations first

def test_shortening_tries_smaller_valuations_first_and_keeps_fixed_ones():
    """``tactl.engines.shortest``: a counterexample whose parameters are not shown minimal is
    searched again at the least valuations below its own, smallest first; TWO's "both" is
    violated from n = 2, so a run at n = 5 becomes one at n = 2, replayed and shortest there.
    With n fixed (``--param n=5``), or parameters already shown minimal, its own are kept."""
    from dataclasses import replace

    from tactl.engines.shortest import shortest, smaller_valuations

    ta = automaton(TWO)
    q = query(ta, "both")
    found = probe.probe(ta, q, {"n": 5})
    assert found is not None
    engine_run = replace(found, schedule_shortest=False, minimality="not shown minimal: (test)")
    assert smaller_valuations(ta, {"n": 5}, {}) == [{"n": 1}, {"n": 2}, {"n": 3}]
    smaller = shortest(ta, q, engine_run)
    assert smaller.parameters == {"n": 2} and smaller.schedule_shortest and replays(ta, q, smaller)
    kept = shortest(ta, q, engine_run, fixed={"n": 5})
    assert kept.parameters == {"n": 5} and kept.schedule_shortest and replays(ta, q, kept)
    proved = shortest(ta, q, replace(engine_run, parameters_minimal=True))
    assert proved.parameters == {"n": 5}
