"""A propositional property (a state formula over parameters and the initial configuration) is
its own initial condition: when no initial configuration violates it, it HOLDS — it is not
"vacuous", which is what the check once said of every such property that held (an OPODIS'17
`sanity: 0 <= THRESH1 && THRESH1 <= N` was reported "holds vacuously: nothing was checked")."""

from __future__ import annotations

import pytest

from conftest import CORPUS
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, NO_ANTECEDENT, NOT_VACUOUS, VIOLATED
from tactl.ir.ta.reader import read_ta

STRB = CORPUS / "strb" / "strb.ta"
EXTRA = """
    bounds: 0 <= RELAY && ACCEPT <= n;
    bounded_if: n > 3 * t -> RELAY <= n;
    too_big: RELAY > ACCEPT - t;
    never: n < 0 -> t > n;
"""


def _strb_with(extra: str):
    text = STRB.read_text()
    head, sep, tail = text.partition("specifications (3) {")
    assert sep, "corpus/strb/strb.ta's specifications header changed"
    return read_ta(head + "specifications {" + extra + tail, "strb-extra.ta").ta


@pytest.mark.parametrize("engine", ["parametric", "explicit"])
def test_a_true_state_formula_holds_and_is_not_called_vacuous(engine):
    ta = _strb_with(EXTRA)
    names = ("bounds", "bounded_if", "too_big", "never")
    report = check_automaton(ta, "strb-extra.ta", CheckOptions(engine=engine, properties=names))
    got = {r.name: r for r in report.results}
    assert got["bounds"].verdict == HOLDS and got["bounds"].vacuity == NO_ANTECEDENT
    assert "all parameter values" in (got["bounds"].scope or "")
    assert got["bounded_if"].verdict == HOLDS and got["bounded_if"].vacuity == NOT_VACUOUS
    assert got["too_big"].verdict == VIOLATED and got["too_big"].counterexample.replayed
    # an antecedent no initial configuration meets is still vacuous
    assert got["never"].verdict == HOLDS_VACUOUSLY


def test_certify_still_asks_the_engine_so_that_the_holds_has_obligations():
    ta = _strb_with(EXTRA)
    report = check_automaton(ta, "strb-extra.ta", CheckOptions(properties=("bounds",), certify=True))
    (result,) = report.results
    assert result.verdict == HOLDS
