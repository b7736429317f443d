"""Seeded random automata with resets and response properties (`[](a -> <>p)`, `[]<>p`, with and
without a justice antecedent): the proof for all sizes of ir/eltl/reset_recurrence.py never
contradicts the explicit engine at small sizes, and a violation is the explicit engine's own
lasso. The automata are those of test_reset_liveness_random.py."""

from __future__ import annotations

import pytest

from test_reset_liveness_random import BOUND, STATES, automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.explicit_ltl import check_temporal
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.ta.reader import read_ta

SHAPES = ("[](a -> <>p)", "[]<>p")


def verdicts(seed: int, justice: bool, shape: str) -> tuple[object, object]:
    """``check``'s result and the explicit engine's at every size up to BOUND."""
    ta = read_ta(automaton(seed, justice, shape), f"random{seed}.eta", extended=True).ta
    result = check_automaton(ta, "r.eta", CheckOptions(bound=BOUND, max_states=STATES)).results[0]
    small = check_temporal(ta, temporal_query(ta, ta.properties[0]), {}, bound=BOUND, max_states=STATES)
    return result, small


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", range(6))
def test_the_proof_of_a_response_never_contradicts_the_explicit_engine(seed, shape):
    for justice in (False, True):
        result, small = verdicts(seed, justice, shape)
        assert result.verdict in ("holds", "holds vacuously", "violated", "unknown"), result.reason
        if result.verdict in ("holds", "holds vacuously"):
            assert small.verdict != "violated", (seed, justice, small.counterexample)
        if result.verdict == "violated":
            assert small.verdict == "violated" and result.counterexample.replayed
        if small.verdict == "violated":
            assert result.verdict == "violated", (seed, justice, result.reason)
