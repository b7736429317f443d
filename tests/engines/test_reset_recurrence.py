"""The proof for all sizes of a liveness property of an automaton with resets from which rules can
fire for ever (ir/eltl/reset_recurrence.py, tactl/engines/reset_recurrence.py): response shapes
through resets, and `<>p` where a reset is enabled while p is false but the justice owes the
waiting process its step."""

from __future__ import annotations

import pytest

from conftest import DATA
from tactl.engines import reset_recurrence, solvers
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.explicit_ltl import check_temporal
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.eltl.reset_recurrence import (RecurrenceShape, after_rule, cycle_left, idle_rules, moving_rules,
                                            recurrence_shape, waiting_regions)
from tactl.ir.expr import to_text
from tactl.ir.ta.reader import read_ta

RESETS = DATA / "resets"


def automaton(name: str, text: str | None = None):
    path = RESETS / name
    return read_ta(text or path.read_text(encoding="utf-8"), str(path), extended=True).ta


def query(ta, prop: str) -> TemporalQuery:
    q = temporal_query(ta, next(p for p in ta.properties if p.name == prop))
    assert isinstance(q, TemporalQuery)
    return q


def verdicts(ta, **options) -> dict:
    return {r.name: r for r in check_automaton(ta, "test.eta", CheckOptions(**options)).results}


def with_property(name: str, old: str, new: str):
    text = (RESETS / name).read_text(encoding="utf-8")
    assert old in text
    return automaton(name, text.replace(old, new))


def test_a_response_that_holds_through_a_reset_is_proved_for_all_sizes():
    result = verdicts(automaton("relay.eta"))["served"]
    assert result.verdict == HOLDS and result.engine == "chc", result.reason
    assert result.scope == "all parameter values satisfying the resilience condition"
    assert "from a position where `R >= 1` holds on" in result.reason
    assert "(E2) wherever rule 1 (R->I) is enabled while p is false, a process in W is owed its step" in result.reason
    assert result.vacuity == "not vacuous"


def test_a_response_violated_through_a_reset_is_a_replayed_lasso():
    result = verdicts(automaton("relay.eta"))["again"]
    assert result.verdict == VIOLATED, result.reason
    cex = result.counterexample
    assert cex.replayed and cex.cycle and cex.parameters == {"n": 2}
    # the loop passes through the reset R -> I (rule 1)
    assert any(step.rule == 1 for step in cex.cycle), cex.cycle


def test_the_waiting_process_owed_its_step_is_enough_where_the_proof_without_resets_fails():
    result = verdicts(automaton("toggle.eta"))["moves"]
    assert result.verdict == HOLDS, result.reason
    assert "(S) no run stays for ever" in result.reason and "rule 1 (B->A)" in result.reason


def test_infinitely_often_is_proved_too():
    ta = with_property("relay.eta", "-> [](R >= 1 -> <>(x >= 2));", "-> []<>(D >= 1);")
    result = verdicts(ta)["again"]
    assert result.verdict == HOLDS and "from any position on" in result.reason, result.reason


def test_without_the_justice_the_response_is_violated_and_not_proved():
    ta = with_property("relay.eta", "served: <>[](I == 0 && (x < 1 || R == 0) && (x < 1 || W == 0) && D == 0) -> ",
                       "served: ")
    proof, why = reset_recurrence.prove(ta, query(ta, "served"), None)
    assert proof is None and "(the property has no justice)" in why
    assert verdicts(ta)["served"].verdict == VIOLATED


def test_the_shapes_of_the_class():
    ta = automaton("relay.eta")
    served = recurrence_shape(ta, query(ta, "served"))
    assert isinstance(served, RecurrenceShape) and to_text(served.anchor) == "R >= 1"
    assert to_text(served.q) == "D < 1" and {p.location for p in served.pairs} == {"I", "R", "W", "D"}
    toggle = automaton("toggle.eta")
    moves = recurrence_shape(toggle, query(toggle, "moves"))
    assert isinstance(moves, RecurrenceShape) and moves.anchor is None
    both = with_property("relay.eta", "-> [](R >= 1 -> <>(x >= 2));", "-> (<>(x >= 2) && <>(D >= 1));")
    why = recurrence_shape(both, query(both, "again"))
    assert isinstance(why, str) and "[](a -> <>p)" in why


def test_rules_on_cycles_and_what_a_rule_leaves_behind():
    toggle = automaton("toggle.eta")
    assert idle_rules(toggle) == (3,) and moving_rules(toggle) == (0, 1)
    # without B -> A the round A -> B is no cycle any more
    assert cycle_left(toggle, (0, 1)) == (0, 1) and cycle_left(toggle, (0,)) == ()
    # B -> A: one process less in B, one more in A, x reset
    assert to_text(after_rule(toggle, 1, toggle.properties[1].formula.right.arg)) == "0 >= 2"
    assert to_text(after_rule(toggle, 2, toggle.properties[0].formula.right.arg)) == "C + 1 == 1"


@pytest.mark.parametrize("name, prop", [("relay.eta", "served"), ("toggle.eta", "moves"), ("relay.eta", "again"),
                                        ("chain.eta", "moves")])
def test_every_verdict_agrees_with_the_explicit_engine_at_small_sizes(name, prop):
    ta = automaton(name)
    result = verdicts(ta)[prop]
    small = check_temporal(ta, query(ta, prop), {}, bound=5)
    assert small.verdict == result.verdict, (small.reason, result.reason)


def test_a_process_owed_two_steps_in_a_row_is_a_waiting_region():
    ta = automaton("chain.eta")
    result = verdicts(ta)["moves"]
    assert result.verdict == HOLDS, result.reason
    assert "a process in {W, C} is owed its step" in result.reason
    assert waiting_regions(ta, recurrence_shape(ta, query(ta, "moves"))) == [("A",), ("B",), ("W",), ("C",), ("W", "C")]


def test_a_cycle_no_question_excludes_leaves_the_property_unknown():
    # the server's step is owed only while x >= 2, which no rule on the clients' round implies
    # (and which one client alone never makes true: check finds the lasso)
    text = (RESETS / "relay.eta").read_text(encoding="utf-8").replace("(x < 1 || W == 0)", "(x < 2 || W == 0)")
    ta = automaton("relay.eta", text.replace("2: W -> D\n        when (x >= 1)", "2: W -> D\n        when (x >= 2)"))
    proof, why = reset_recurrence.prove(ta, query(ta, "served"), None)
    assert proof is None and "rules 0, 1 can fire for ever after a position where `R >= 1` holds" in why, why


@pytest.mark.skipif(solvers.available("cvc5") is None, reason="cvc5 is not installed")
def test_the_proof_is_certified_by_cvc5():
    result = verdicts(automaton("relay.eta"), certify=True, properties=("served",))["served"]
    assert result.verdict == HOLDS and result.certificate is not None and result.certificate.ok, result.reason
    assert result.certificate.queries == len(result.obligations) >= 3
