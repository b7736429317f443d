"""The facts the CHC engine adds to its counter system (tactl/engines/chc_facts.py): each one
inductive, found where the automaton says so and dropped where it does not, and needed by the
certificates they make possible (ISOLA'18 bosco and cc, random19 rs-bosco when present)."""

from __future__ import annotations

import pytest
import z3

from conftest import CORPUS, DATA, GUARD_S, ISOLA18, check_results
from tactl.bench.random19 import random19_dir
from tactl.engines import chc, parametric
from tactl.engines.chc_certificate import recheck
from tactl.engines.chc_facts import counted_runs, proved, with_facts
from tactl.engines.chc_invariant import facts_text
from tactl.engines.chc_system import counter_system
from tactl.engines.result import HOLDS
from tactl.ir.eltl.formula import reach_question, temporal_query
from tactl.ir.ta.reader import read_ta_file

COUNTING = DATA / "chc" / "counting.ta"
SMALL = [COUNTING, CORPUS / "strb" / "strb.ta", CORPUS / "frb" / "frb.ta", DATA / "dialects" / "random_style.ta"]
RESETS = [DATA / "chc" / "reset_safe.ta", DATA / "chc" / "reset_counting.ta"]


def _system(path, prop: str | None = None):
    ta = read_ta_file(path).ta
    chosen = next(p for p in ta.properties if prop is None or p.name == prop)
    question = reach_question(temporal_query(ta, chosen))
    return ta, with_facts(ta, counter_system(ta, question, None))


def _valid(formula: z3.BoolRef) -> bool:
    solver = z3.Solver()
    solver.add(z3.Not(formula))
    return solver.check() == z3.unsat


@pytest.mark.parametrize("path", [p for p in SMALL if p.exists()], ids=lambda p: p.name)
def test_every_kept_fact_is_inductive(path):
    """Asked afresh, not through the fixpoint that kept them: every initial state satisfies each
    fact, and every rule, from a state with all of them, keeps each one."""
    ta, facts = _system(path)
    system = facts.system
    assert facts.proved, "no fact kept"
    together = z3.And(system.known, *facts.proved)
    for fact in facts.proved:
        assert _valid(z3.Implies(system.initial, fact)), fact
        for t in system.transitions:
            assert _valid(z3.Implies(z3.And(together, t.enabled), system.rename(fact, t.after))), (fact, t.rule)


def test_accounting_and_guard_facts_of_a_counting_automaton():
    _, facts = _system(COUNTING)
    text = facts_text(facts.system)
    # each location counter and each shared variable from the rule firings
    for fact in ("D0 == fired#2", "D1 == fired#3", "CR == fired#4", "fired#0 == x0", "fired#1 == x1",
                 "fired#4 == nfaulty", "f + initial#A0 + initial#A1 == n"):
        assert fact in text, fact
    # guards that stay true once true
    assert "fired#2 == 0 || 2 * f + 2 * x0 >= n + 3 * t + 1" in text
    # `nfaulty < f` is false again after its own rule fires f times: not a fact
    assert "nfaulty <" not in text and "fired#4 == 0 ||" not in text


@pytest.mark.parametrize("path", RESETS, ids=lambda p: p.name)
def test_an_automaton_with_resets_is_given_to_spacer_as_it_is(path):
    """A reset leaves a variable without accounting and its guards need not stay true: no
    ghosts, no facts (chc_facts.counted_runs), the clauses as before."""
    ta = read_ta_file(path).ta
    assert not counted_runs(ta)
    plain = counter_system(ta, reach_question(temporal_query(ta, ta.properties[0])), None)
    facts = with_facts(ta, plain)
    assert facts.system is plain and facts.system.facts is None and not facts.proved


def test_the_fixpoint_drops_a_candidate_that_is_not_inductive():
    ta, facts = _system(COUNTING)
    system = facts.system
    fired4 = z3.Int("fired#4")
    wrong = z3.Implies(fired4 >= 1, z3.Int("nfaulty") < z3.Int("f"))  # false once nfaulty == f
    assert proved(system, [wrong, *facts.proved]) == list(facts.proved)


def test_a_certificate_that_needs_the_facts():
    """Spacer's own part of the invariant on counting.ta is `true`: the counting argument is all
    in the facts. Without them the same invariant fails the re-check; with them it passes."""
    ta, facts = _system(COUNTING, "agreement")
    result = chc.check(ta, temporal_query(ta, ta.properties[0]))
    assert result.verdict == HOLDS, result.reason
    assert "cvc5: initiation, consecution and safety unsat" in result.details["recheck"]
    system = facts.system
    assert not recheck(system, system.known).ok  # no facts: not a certificate
    assert recheck(system, system.assumed).ok    # the facts alone are one


# The properties the CHC engine left UNKNOWN without the facts (no answer from Spacer in 90 s).
HARD = [(ISOLA18 / "bosco.ta", "lemma3_1"), (ISOLA18 / "bosco.ta", "lemma4_0"), (ISOLA18 / "bosco.ta", "lemma4_1"),
        (ISOLA18 / "cc.ta", "agreement"), (random19_dir() / "n-rs-bosco.ta", "sim_agreement"),
        (random19_dir() / "p-rs-bosco.ta", "sim_agreement")]


@pytest.mark.parametrize("path,prop", HARD, ids=lambda x: getattr(x, "name", x))
def test_the_formerly_unknown_properties_are_decided_as_the_parametric_engine_decides(path, prop):
    if not path.exists():
        pytest.skip(f"{path} not fetched (make isola18 / make random19)")
    ours = check_results(path, engine=chc.ENGINE, properties=(prop,), timeout_s=GUARD_S)[prop]
    theirs = check_results(path, engine=parametric.ENGINE, properties=(prop,))[prop]
    assert ours.verdict == theirs.verdict == HOLDS, ours.reason
    assert "z3: initiation, consecution and safety unsat" in ours.details["recheck"]
