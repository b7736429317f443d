"""The short under-approximations of a branch with two or more re-enterable sets.

After the over-approximation has a model, the engine asks the one-pass under-approximation capped
at 4, 8, ... segments (``under_segments``) before anything else (``tactl/engines/parametric.py``,
``_bounded``). These tests check the caps, that a cap only ever shortens an under-approximation,
that a capped query having a model implies the full one has one (so the verdict cannot change),
and that the engine takes the short way on the random19 automata where it pays. The explicit
search at the least valuation that the engine asks first (``tactl/engines/probe.py``) is turned
off here, since it finds those violations before any query.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tactl.engines import parametric
from tactl.engines.result import VIOLATED
from tactl.engines.simulate import replay_run
from tactl.passes.ta_to_smt.lasso import NeedsBounds, encode_branch, encode_query, under_segments
from test_reentry_bounds import TWO, automaton, query, random19_decide_or_flip, random_multi_set_ta
from test_reentry_bounds import queries_only  # noqa: F401 - an autouse fixture, used by being here


def test_caps_double_from_four_up_to_half_the_full_count():
    assert under_segments(7) == ()
    assert under_segments(8) == (4,)
    assert under_segments(15) == (4,)
    assert under_segments(16) == (4, 8)
    assert under_segments(19) == (4, 8)
    assert under_segments(40) == (4, 8, 16)
    for total in range(1, 100):  # together fewer segments than the full query
        assert sum(under_segments(total)) < max(total, 1)


def test_the_cap_shortens_the_under_approximation_only():
    ta = automaton(TWO)
    q = query(ta, "both")
    (branch,) = q.branches
    full = encode_branch(ta, q, branch, bound="under", passes=1)
    capped = encode_branch(ta, q, branch, bound="under", passes=1, segments=1)
    over = encode_branch(ta, q, branch, bound="over", segments=1)
    assert capped.layout.segments == min(1, full.layout.segments)
    assert over.layout.segments == encode_branch(ta, q, branch, bound="over").layout.segments
    with pytest.raises(NeedsBounds):  # no cap makes an exact query out of a bounded branch
        encode_branch(ta, q, branch, segments=1)


def bounded_branch(ta, q):
    """``q`` restricted to its first branch that needs bounds, or None."""
    for branch in q.branches:
        one = replace(q, branches=(branch,))
        try:
            encode_branch(ta, one, branch)
        except NeedsBounds:
            return one
        except Exception:  # noqa: BLE001 - an automaton outside the fragment: not this test's
            return None
    return None


def test_a_capped_query_with_a_model_means_the_full_one_has_one():
    """Seeded random automata with two re-enterable sets: every cap below the full segment count
    that has a model is matched by a model of the full under-approximation, and at least one
    cap below the full count does have one (the case the engine's short way is for)."""
    rng = random.Random(35)
    automata = short_sat = 0
    while automata < 25:
        ta = automaton(random_multi_set_ta(rng, 2))
        one = bounded_branch(ta, query(ta))
        if one is None:
            continue
        automata += 1
        full = encode_query(ta, one, bound="under", passes=1)[0]
        full_answer = parametric.solve(ta, full, "p", None, readable=False, exact=False).answer
        for cap in range(1, full.layout.segments):
            capped = encode_query(ta, one, bound="under", passes=1, segments=cap)[0]
            assert capped.layout.segments == cap
            if parametric.solve(ta, capped, "p", None, readable=False, exact=False).answer == "sat":
                assert full_answer == "sat", (cap, full.layout.segments)
                short_sat += 1
    assert short_sat > 0


@pytest.mark.parametrize("name", ["n-ben-or-nonclean", "n-rabc-cr"])
def test_random19_violations_come_from_a_short_under_approximation(name):
    ta, q = random19_decide_or_flip(name)
    said: list[str] = []
    result = parametric.check_temporal(ta, q, said.append)
    assert result.verdict == VIOLATED, result.reason
    cex = result.counterexample
    assert replay_run(ta, q.negation, q.infinite, cex.parameters, cex.initial, cex.schedule, cex.loop).ok
    short = [line for line in said if "segments)" in line]
    assert short and not any(line.endswith("per segment)") for line in said), said
    assert cex.minimality.startswith("not shown minimal")  # an under-approximation proves nothing smaller
