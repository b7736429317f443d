"""The initial-configuration questions of one automaton share a solver holding its start
(non-negative variables, RC, --param, inits; tactl/engines/check.py): each property's own initial
condition is pushed and popped, and an answer other than "satisfiable" is asked again of a fresh
solver, whose layer-by-layer search says why, as before."""

from __future__ import annotations

import pytest

from conftest import CORPUS
from tactl.engines import check
from tactl.ir.expr import Compare, IntConst, Name
from tactl.ir.ta.reader import read_ta_file


@pytest.fixture
def strb(monkeypatch):
    monkeypatch.setattr(check, "_INITIAL_ANSWERS", {})
    monkeypatch.setattr(check, "_START_SOLVERS", {})
    return read_ta_file(CORPUS / "strb" / "strb.ta").ta


def _at_least(name: str, value: int) -> Compare:
    return Compare(">=", Name(name), IntConst(value))


def test_the_properties_questions_share_one_start_solver(strb):
    for extra in ((), (_at_least("V0", 1),), (_at_least("V1", 1),)):
        assert check.initial_configuration_exists(strb, None, extra) == (True, "")
    assert len(check._START_SOLVERS) == 1
    assert check.initial_configuration_exists(strb, {"n": 4, "t": 1, "f": 1}, ()) == (True, "")
    assert len(check._START_SOLVERS) == 2  # other fixed parameters: another start


def test_an_empty_set_is_explained_and_the_start_solver_stays_usable(strb):
    answer = check.initial_configuration_exists(strb, None, (_at_least("SE", 1),))
    assert answer == (False, check._NO_INITIAL_ANTECEDENT)
    assert check.initial_configuration_exists(strb, None, (_at_least("V1", 2),)) == (True, "")
    no_param = check.initial_configuration_exists(strb, {"n": 3, "t": 1, "f": 1}, ())
    assert no_param == (False, "no parameter values given by --param satisfy the resilience condition")


@pytest.mark.parametrize("extra", [(), ("V0", 1), ("SE", 1), ("AC", 1), ("echo", 1), ("V1", 5)])
def test_shared_and_fresh_solvers_give_the_same_answer(strb, extra):
    extra = (_at_least(*extra),) if extra else ()
    shared = check._initial_configuration_exists(strb, None, extra, ("strb",))
    assert shared == check._initial_configuration_exists(strb, None, extra)
