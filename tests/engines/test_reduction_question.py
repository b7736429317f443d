"""The reduction's z3 answers as one SMT-LIB question (passes/ta_to_ta/reduction_question.py):
``unsat`` for every reduction the passes compute (the chain, STRB, random layered automata),
``sat`` for a reduction that claims too much, and ``--certify`` re-asking it of cvc5 behind a
HOLDS of the reduced automaton."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
import z3
from hypothesis import HealthCheck, given, settings

from conftest import CORPUS
from tactl.engines import reduced, solvers
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.expr import BoolConst
from tactl.ir.ta.reader import read_ta, read_ta_file
from tactl.passes.ta_to_ta.reduction_question import reduction_question
from test_reduction import CHAIN, layered_ta


def z3_answer(text: str) -> z3.CheckSatResult:
    solver = z3.Solver()
    solver.from_string(text)
    return solver.check()


def question_of(ta, prop_index: int = 0) -> str:
    r = reduced.reduce_for(ta, temporal_query(ta, ta.properties[prop_index]), None)
    return reduction_question(ta, r.ta, r.kept, r.via)


def test_the_chains_reduction_is_unsat():
    ta = read_ta(CHAIN, "t.ta").ta
    text = question_of(ta)  # reach_c: the shortcut A -> C goes, guards become true
    assert text.startswith("; the reduction of Chain") and z3_answer(text) == z3.unsat


def test_a_reduction_that_claims_too_much_is_sat():
    ta = read_ta(CHAIN, "t.ta").ta
    r = reduced.reduce_for(ta, temporal_query(ta, ta.properties[0]), None)
    # B -> C needs x >= n + 5: A -> C's guard x >= 0 no longer implies it after A -> B
    harder = read_ta(CHAIN.replace("1: B -> C when (true)", "1: B -> C when (x >= n + 5)"), "t.ta").ta
    dropped = replace(harder, rules=tuple(harder.rules[i] for i in r.kept))
    assert z3_answer(reduction_question(harder, dropped, r.kept, r.via)) == z3.sat
    assert z3_answer(reduction_question(ta, replace(ta, rules=tuple(ta.rules[i] for i in r.kept)),
                                        r.kept, r.via)) == z3.unsat
    # a guard simplified to one that is not equal: x >= 0 || x < 0 is not x >= 1
    other = read_ta(CHAIN.replace("(x >= 0 || x < 0)", "(x >= 1)"), "t.ta").ta.rules[0].guard
    bad = replace(r.ta, rules=(replace(r.ta.rules[0], guard=other), *r.ta.rules[1:]))
    assert z3_answer(reduction_question(ta, bad, r.kept, r.via)) == z3.sat
    # a removed rule whose guard is not false, without a pair: its guard is satisfiable
    assert z3_answer(reduction_question(ta, r.ta, r.kept, {})) == z3.sat


def test_nothing_to_ask_without_a_change():
    ta = read_ta(CHAIN, "t.ta").ta
    assert reduction_question(ta, ta, tuple(range(len(ta.rules))), {}) == ""


def test_strb_unforgeability_is_certified_with_its_reduction():
    if solvers.available("cvc5") is None:
        pytest.skip("cvc5 is not installed")
    ta = read_ta_file(CORPUS / "strb" / "strb.ta").ta
    result = check_automaton(ta, "strb.ta", CheckOptions(properties=("unforgeability",), certify=True)).results[0]
    assert result.verdict == HOLDS and result.certificate.ok
    assert any(o.label.startswith("the reduction") for o in result.obligations)
    assert result.details["reduced_rules"] < len(ta.rules)


@given(text=layered_ta())
@settings(max_examples=int(os.environ.get("TACTL_RANDOM_EXAMPLES", 40)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_every_computed_reduction_of_a_random_automaton_is_unsat(text):
    ta = read_ta(text, "t.ta").ta
    question = question_of(ta)
    assert question == "" or z3_answer(question) == z3.unsat, text
    r = reduced.reduce_for(ta, temporal_query(ta, ta.properties[0]), None)
    assert all(rule.guard != BoolConst(False) for rule in r.ta.rules)
