"""The chc engine on the automaton without its shortcut rules (tactl/engines/reduced.py with
``smaller_only``, called from tactl/engines/check.py): the same verdicts as on the automaton as
written — on the known-answer chain, our small automata and random layered automata with
shortcuts — a violation mapped back to the original rules and replayed there, the invariant's
ghost rules named by their original index, and the automaton as written whenever the reduction
removes no rule."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from conftest import CORPUS, DATA, verdicts
from tactl.engines import reduced
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED
from tactl.ir.ta.reader import read_ta, read_ta_file
from test_reduction import CHAIN, layered_ta

# Spacer's time per property in these tests: enough for every automaton here, and an UNKNOWN
# (no answer in time) is never compared below.
LIMIT = dict(engine="chc", timeout_s=60)


def chc_verdicts(ta, monkeypatch, reduce: bool) -> dict[str, str]:
    with monkeypatch.context() as m:
        if reduce:
            m.delenv(reduced.OFF, raising=False)
        else:
            m.setenv(reduced.OFF, "1")
        return verdicts(ta, **LIMIT)


def agree(a: dict[str, str], b: dict[str, str]) -> bool:
    """Equal wherever both decided (UNKNOWN is Spacer out of time, not an answer)."""
    return all(a[p] == b[p] for p in a if UNKNOWN not in (a[p], b[p]))


def test_the_chain_has_the_same_safety_verdicts_with_and_without_its_shortcut(monkeypatch):
    ta = read_ta(CHAIN, "t.ta").ta
    with_reduction = chc_verdicts(ta, monkeypatch, reduce=True)
    assert with_reduction == chc_verdicts(ta, monkeypatch, reduce=False)
    assert (with_reduction["reach_c"], with_reduction["x_small"]) == (VIOLATED, HOLDS)


def test_a_violation_found_without_the_shortcut_is_replayed_on_the_original():
    ta = read_ta(CHAIN, "t.ta").ta
    result = check_automaton(ta, "t.ta", CheckOptions(properties=("reach_c",), engine="chc")).results[0]
    assert result.verdict == VIOLATED and result.details["reduced_rules"] == 5
    cex = result.counterexample
    assert cex.replayed and all(0 <= s.rule < len(ta.rules) for s in cex.schedule)


def test_the_invariant_names_the_original_index_of_each_kept_rule():
    ta = read_ta(CHAIN, "t.ta").ta
    result = check_automaton(ta, "t.ta", CheckOptions(properties=("x_small",), engine="chc")).results[0]
    assert result.verdict == HOLDS
    # rule 2 (A -> C) is the shortcut: the invariant's fired#2 is the third kept rule, rule 3
    assert result.details["kept_rules"] == [0, 1, 3, 4, 5]


def test_an_automaton_without_shortcuts_is_decided_as_written():
    # no rule of this automaton is a shortcut: Spacer sees its guards as written, nothing says "reduced"
    ta = read_ta_file(DATA / "check" / "cycle.ta").ta
    results = check_automaton(ta, "cycle.ta", CheckOptions(engine="chc", properties=("x_bounded",))).results
    assert results[0].verdict in (HOLDS, VIOLATED) and "reduced_rules" not in results[0].details


def test_strb_loses_its_two_shortcuts_and_keeps_its_verdict(monkeypatch):
    ta = read_ta_file(CORPUS / "strb" / "strb.ta").ta
    results = check_automaton(ta, "strb.ta", CheckOptions(engine="chc", properties=("unforgeability",))).results
    assert results[0].verdict == HOLDS and results[0].details["reduced_rules"] == 6
    assert chc_verdicts(ta, monkeypatch, reduce=False)["unforgeability"] == HOLDS


@pytest.mark.parametrize("path", [pytest.param(p, id=p.name) for p in sorted(CORPUS.rglob("*.ta"))])
def test_own_automata_same_chc_verdicts(path, monkeypatch):
    ta = read_ta_file(path).ta
    assert agree(chc_verdicts(ta, monkeypatch, reduce=True), chc_verdicts(ta, monkeypatch, reduce=False))


@given(text=layered_ta())
@settings(max_examples=int(os.environ.get("TACTL_RANDOM_EXAMPLES", 30)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_random_layered_automata_same_chc_verdicts(text, monkeypatch):
    ta = read_ta(text, "t.ta").ta
    with_reduction = chc_verdicts(ta, monkeypatch, reduce=True)
    assert agree(with_reduction, chc_verdicts(ta, monkeypatch, reduce=False)), text
    # and the parametric engine (which reduces too) where both decide a safety property
    parametric = verdicts(ta)
    for name, verdict in with_reduction.items():
        if verdict in (HOLDS, VIOLATED) and parametric[name] in (HOLDS, VIOLATED):
            assert parametric[name] == verdict, text


def test_certify_re_asks_the_reduction_behind_a_chc_holds():
    from tactl.engines import solvers

    if solvers.available("cvc5") is None:
        pytest.skip("cvc5 is not installed")
    ta = read_ta(CHAIN, "t.ta").ta
    options = CheckOptions(properties=("x_small",), engine="chc", certify=True)
    [result] = check_automaton(ta, "t.ta", options).results
    assert result.verdict == HOLDS and result.certificate.ok
    # the invariant's three questions and the reduction's
    assert [o.label for o in result.obligations][-1].startswith("the reduction")
    assert result.certificate.queries == 4
