"""``tactl check`` on liveness of automata with resets (tactl/engines/reset_liveness.py): a lasso at
small sizes is VIOLATED, ``<>p`` is proved for all sizes by the argument of
ir/eltl/reset_response.py, anything else is UNKNOWN with the sizes searched — and every verdict
is cross-checked against the explicit engine at small sizes."""

from __future__ import annotations

import pytest

from conftest import DATA, taco_reset_benchmarks
from tactl.engines import solvers
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.explicit_ltl import check_temporal
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.eltl.reset_response import ResetSplit, reset_split
from tactl.ir.ta.reader import read_ta

RESETS = DATA / "resets"


def automaton(name: str):
    path = RESETS / name
    return read_ta(path.read_text(encoding="utf-8"), str(path), extended=True).ta


def verdicts(ta, **options) -> dict:
    report = check_automaton(ta, "test.eta", CheckOptions(**options))
    return {r.name: r for r in report.results}


def query(ta, prop: str) -> TemporalQuery:
    q = temporal_query(ta, next(p for p in ta.properties if p.name == prop))
    assert isinstance(q, TemporalQuery)
    return q


def test_eventually_p_is_proved_for_all_sizes_from_the_automaton_without_its_resets():
    result = verdicts(automaton("phases.eta"))["all_counted"]
    assert result.verdict == HOLDS and result.engine == "parametric", result.reason
    assert result.scope == "all parameter values satisfying the resilience condition"
    assert "no run is infinite" in result.reason and "is unreachable" in result.reason


def test_a_lasso_through_a_reset_is_a_parametric_violation():
    result = verdicts(automaton("phases.eta"))["two_sent"]
    assert result.verdict == VIOLATED, result.reason
    cex = result.counterexample
    assert cex.replayed and cex.cycle and cex.parameters == {"n": 1}
    assert "satisfy the resilience condition" in result.reason


def test_without_an_argument_the_answer_is_unknown_with_the_sizes_searched():
    # `both` holds at every size the explicit engine tries, but its negation is a disjunction of
    # two eventualities' negations: outside the class of either proof for all sizes.
    text = (RESETS / "toggle.eta").read_text().replace(
        "grows: <>[](A == 0 && (x < 1 || B == 0) && (x < 1 || W == 0)) -> <>(x >= 2);",
        "both: <>[](A == 0 && (x < 1 || B == 0) && (x < 1 || W == 0)) -> (<>(C == 1) && <>(A == 0 || B == 0));")
    result = verdicts(read_ta(text, "toggle.eta", extended=True).ta)["both"]
    assert result.verdict == UNKNOWN, result.reason
    assert "no proof for all sizes" in result.reason and "every parameter <= 7" in result.reason


def test_the_argument_covers_eventualities_only():
    ta = automaton("toggle.eta")
    split = reset_split(ta, query(ta, "moves"))
    assert isinstance(split, ResetSplit) and split.runs_forever
    # justice and a [] part of the negation other than [](!p): outside the argument's class
    text = (RESETS / "phases.eta").read_text().replace("two_sent: <>(x >= 2);", "two_sent: <>[](x >= 2);")
    other = read_ta(text, "phases.eta", extended=True).ta
    why = reset_split(other, query(other, "two_sent"))
    assert isinstance(why, str) and "<>p" in why
    assert verdicts(other)["two_sent"].verdict in (UNKNOWN, VIOLATED)


@pytest.mark.parametrize("name", ["phases.eta", "toggle.eta", "quiet.eta"])
def test_every_decided_verdict_agrees_with_the_explicit_engine_at_small_sizes(name):
    ta = automaton(name)
    for prop, result in verdicts(ta).items():
        small = check_temporal(ta, query(ta, prop), {}, bound=5)
        assert small.verdict in (HOLDS, VIOLATED), (prop, small.reason)
        if result.verdict == HOLDS:
            assert small.verdict == HOLDS, prop
        elif result.verdict == VIOLATED:
            assert small.verdict == VIOLATED, prop


def test_the_explicit_engine_is_still_asked_for_when_forced():
    result = verdicts(automaton("phases.eta"), engine="explicit", bound=3)["all_counted"]
    assert result.verdict == HOLDS and "not a proof for all n" in result.scope


_TACO = taco_reset_benchmarks()


@pytest.mark.skipif("rb-2x_reset.eta" not in _TACO, reason="no TACO checkout found (set TACTL_TACO)")
def test_taco_bvterm_holds_for_all_sizes_and_at_the_small_ones():
    ta = read_ta(_TACO["rb-2x_reset.eta"], "rb-2x_reset.eta", extended=True).ta
    result = check_automaton(ta, "rb-2x_reset.eta", CheckOptions(properties=("BVTerm",))).results[0]
    assert result.verdict == HOLDS and result.scope.startswith("all parameter values"), result.reason
    small = check_temporal(ta, query(ta, "BVTerm"), {}, bound=4)
    assert small.verdict == HOLDS, small.reason


@pytest.mark.skipif(solvers.available("cvc5") is None, reason="cvc5 is not installed")
def test_the_proof_for_all_sizes_is_certified_by_cvc5():
    result = verdicts(automaton("phases.eta"), certify=True)["all_counted"]
    assert result.verdict == HOLDS and result.certificate is not None and result.certificate.ok
    assert result.certificate.queries >= 1


def test_antecedents_initial_and_justice_are_kept_and_their_runs_found():
    text = (RESETS / "phases.eta").read_text().replace(
        "two_sent: <>(x >= 2);",
        "started: (V == n) -> <>(V == 0 && S == 0);\n"
        "    fair: <>[](V == 0 && (x < n || S == 0)) -> <>(D >= 1);")
    ta = read_ta(text, "phases.eta", extended=True).ta
    results = verdicts(ta)
    for name in ("started", "fair"):
        assert results[name].verdict == HOLDS, (name, results[name].reason)
        assert results[name].vacuity == "not vacuous", (name, results[name].vacuity_witness)
    # the just run that makes `fair` not vacuous is a lasso of the automaton with its reset (n = 1)
    assert "replayed" in results["fair"].vacuity_witness
