"""Steady segments that let atoms rise inside them (the random19 queries).

A steady part must keep constant only the *sensitive* atoms (``guard_abstraction.sensitive_atoms``):
those a fall guard of a firable rule negates, and those of a specification's invariants; the
others may rise inside it, and only rules that can raise a sensitive atom get boundary steps.
A *budget* atom (``guard_abstraction.budget_atoms``: ``nc < f`` guarding the crash rules that do
``nc' == nc + 1``) may rise at a steady part's last budget step. Without sensitive atoms the
segments are as many as the greedy rounds of ``guard_abstraction.rounds_bound`` (a round per phase
of the algorithm) where one per atom was the bound. Each case below is decided by
the parametric engine and by the explicit one (which shares nothing with the encoding) on every
small instance, and against the plain encoding (every atom constant in a steady part, a boundary
step for every rule that can change the context); the cases that need an atom to be sensitive,
or a budget's end condition, are shown to go wrong without it — so the tests would catch a
sensitivity set that is too small.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings

from conftest import CORPUS, isola18_params
from tactl.engines import parametric
from tactl.engines.result import HOLDS, VIOLATED
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.expr import BoolConst
from tactl.ir.eltl.safety import ReachQuery, reach_query
from tactl.ir.ta.reader import read_ta, read_ta_file
from tactl.passes.ta_to_smt import lasso as encode_lasso, steady as encode_steady
from tactl.passes.ta_to_smt.guard_abstraction import abstract_guards, budget_atoms, rounds_bound, sensitive_atoms
from tactl.passes.ta_to_smt.steady import encode
from test_differential import agree as agree_reach
from test_eltl import agree as agree_eltl
from test_eltl import parametric_verdict, query, random_eltl_ta

# At most f processes crash: the crash rule's guard nc < f is a fall guard, so nc >= f must stay
# constant inside a steady part (else one segment could crash every process). The other guards
# only rise: x >= n - f and y >= 1 may switch inside a steady part.
CRASH = """
skel Crash {
  shared nc, x, y;
  parameters n, f;
  assumptions (2) { n > f; f >= 0; }
  locations (5) { A: [0]; B: [1]; C: [2]; D: [3]; CR: [4]; }
  inits (8) { A == n; B == 0; C == 0; D == 0; CR == 0; nc == 0; x == 0; y == 0; }
  rules (9) {
    0: A -> CR when (nc < f) do { nc' == nc + 1; unchanged(x, y); };
    1: A -> B when (true) do { x' == x + 1; unchanged(nc, y); };
    2: B -> C when (x >= n - f) do { y' == y + 1; unchanged(nc, x); };
    3: C -> D when (y >= 1) do { unchanged(nc, x, y); };
    4: A -> A when (true) do { unchanged(nc, x, y); };
    5: B -> B when (true) do { unchanged(nc, x, y); };
    6: C -> C when (true) do { unchanged(nc, x, y); };
    7: D -> D when (true) do { unchanged(nc, x, y); };
    8: CR -> CR when (true) do { unchanged(nc, x, y); };
  }
  specifications (6) {
    budget: [](CR <= f);
    no_d: [](D == 0);
    nobody_crashes: f == 0 -> [](CR == 0);
    progress: <>[](A == 0 && (x < n - f || B == 0) && (y < 1 || C == 0)) -> <>(D != 0);
    all_in_d: <>[](A == 0 && (x < n - f || B == 0) && (y < 1 || C == 0)) -> <>(A == 0 && B == 0 && C == 0 && CR == 0);
    d_after_c: []((C != 0) -> [](CR == 0));
  }
}
"""

# The same, but the crash from B costs two: the rules that negate nc >= f raise nc by different
# amounts, so the atom is no budget (its rise must be a boundary step).
UNEVEN = CRASH.replace("rules (9) {", "rules (10) {").replace(
    "    8: CR -> CR", "    9: B -> CR when (nc < f) do { nc' == nc + 2; unchanged(x, y); };\n    8: CR -> CR")

# x == 1 as a guard is "x >= 1 and not x >= 2": the second atom is negated, hence sensitive.
EXACT = """
skel Exact {
  shared x;
  parameters n;
  assumptions (1) { n >= 2; }
  locations (3) { A: [0]; B: [1]; W: [2]; }
  inits (4) { A == n; B == 0; W == 0; x == 0; }
  rules (5) {
    0: A -> B when (true) do { x' == x + 1; };
    1: B -> W when (x == 1) do { unchanged(x); };
    2: A -> A when (true) do { unchanged(x); };
    3: B -> B when (true) do { unchanged(x); };
    4: W -> W when (true) do { unchanged(x); };
  }
  specifications (2) {
    one_winner: [](W <= 1);
    someone_wins: <>[](A == 0) -> <>(W != 0);
  }
}
"""

# An invariant with an atom: the negation of `late` says [](x >= 1 || B == 0). The step A -> B
# makes x >= 1 rise and enters B at once, which is fine at every configuration; an encoding that
# let x >= 1 rise inside a steady part would check "B empty, nothing enters B" for the whole
# segment that starts with x == 0 and lose the run.
INVARIANT = """
skel Invariant {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (2) { A: [0]; B: [1]; }
  inits (3) { A == n; B == 0; x == 0; }
  rules (3) {
    0: A -> B when (true) do { x' == x + 1; };
    1: A -> A when (true) do { unchanged(x); };
    2: B -> B when (true) do { unchanged(x); };
  }
  specifications (2) {
    late: <>[](A == 0) -> <>(x < 1 && B != 0);
    early: <>[](A == 0) -> <>(x >= 1 && B != 0);
  }
}
"""


# Three phases: everyone sends x, then (x >= n) y, then (y >= n) reaches D; crashes spend a
# budget. Rounds: A -> B in round 0, B -> C in round 1, C -> D in round 2: three segments, where
# one per atom would be four.
PHASES = """
skel Phases {
  shared x, y, nc;
  parameters n, f;
  assumptions (2) { n > f; f >= 0; }
  locations (5) { A: [0]; B: [1]; C: [2]; D: [3]; CR: [4]; }
  inits (8) { A == n; B == 0; C == 0; D == 0; CR == 0; x == 0; y == 0; nc == 0; }
  rules (9) {
    0: A -> B when (true) do { x' == x + 1; unchanged(y, nc); };
    1: B -> C when (x >= n - f) do { y' == y + 1; unchanged(x, nc); };
    2: C -> D when (y >= n - f) do { unchanged(x, y, nc); };
    3: B -> CR when (nc < f) do { nc' == nc + 1; unchanged(x, y); };
    4: A -> A when (true) do { unchanged(x, y, nc); };
    5: B -> B when (true) do { unchanged(x, y, nc); };
    6: C -> C when (true) do { unchanged(x, y, nc); };
    7: D -> D when (true) do { unchanged(x, y, nc); };
    8: CR -> CR when (true) do { unchanged(x, y, nc); };
  }
  specifications (4) {
    reach_d: [](D == 0);
    no_crash_no_d: (f == 0) -> [](D == 0);
    live: <>[](A == 0 && (x < n - f || B == 0) && (y < n - f || C == 0)) -> <>(D != 0);
    all_d: <>[](A == 0 && (x < n - f || B == 0) && (y < n - f || C == 0)) -> <>(A == 0 && B == 0 && C == 0 && CR == 0);
  }
}
"""

# B -> C needs x >= 1 and increments x itself: a dependency cycle, so rounds_bound gives no bound.
SELF_ENABLING = """
skel Chain {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (3) { A: [0]; B: [1]; C: [2]; }
  inits (4) { A == n; B == 0; C == 0; x == 0; }
  rules (3) {
    0: A -> B when (true) do { x' == x + 1; };
    1: B -> C when (x >= 1) do { x' == x + 1; };
    2: C -> C when (true) do { unchanged(x); };
  }
  specifications (1) { c: [](C == 0); }
}
"""


# Two phases of four or five atoms (m = 9, R = 3): a query with two cut points needs 3·3 = 9
# segments where one per atom and cut needed 12.
WIDE = """
skel Wide {
  shared x, y;
  parameters n, f;
  assumptions (2) { n > 3 * f; f >= 0; }
  locations (4) { A: [0]; B: [1]; C: [2]; D: [3]; }
  inits (6) { A == n; B == 0; C == 0; D == 0; x == 0; y == 0; }
  rules (12) {
    0: A -> B when (true) do { x' == x + 1; unchanged(y); };
    1: B -> C when (x >= n - f) do { y' == y + 1; unchanged(x); };
    2: B -> C when (x >= f + 1) do { y' == y + 1; unchanged(x); };
    3: B -> C when (2 * x >= n + 1) do { y' == y + 1; unchanged(x); };
    4: B -> C when (x >= 2 * f + 1) do { unchanged(x, y); };
    5: C -> D when (y >= n - f) do { unchanged(x, y); };
    6: C -> D when (y >= f + 1 && x >= n) do { unchanged(x, y); };
    7: C -> D when (2 * y >= n + 1) do { unchanged(x, y); };
    8: C -> D when (y >= 2 * f + 1) do { unchanged(x, y); };
    9: B -> B when (true) do { unchanged(x, y); };
    10: C -> C when (true) do { unchanged(x, y); };
    11: D -> D when (true) do { unchanged(x, y); };
  }
  specifications (4) {
    c_then_no_d: [](C != 0 -> [](D == 0));
    b_then_no_c: [](B != 0 -> [](C == 0 && D == 0));
    d_then_no_b: [](D != 0 -> [](B == 0));
    live: <>[](A == 0 && (x < f + 1 || B == 0) && (y < f + 1 || C == 0)) -> <>(A == 0 && B == 0);
  }
}
"""


def automaton(text: str):
    return read_ta(text, "test.ta").ta


def atoms_text(ta, which) -> set[str]:
    ab = abstract_guards(ta)
    return {str(ab.atoms[i]) for i in which}


def test_only_negated_atoms_of_guards_are_sensitive_and_a_crash_budget_is_a_budget():
    ta = automaton(CRASH)
    ab = abstract_guards(ta)
    assert len(ab.atoms) == 3
    assert sensitive_atoms(ab) == frozenset()
    assert atoms_text(ta, budget_atoms(ab)) == {"-f + nc >= 0"} and set(budget_atoms(ab).values()) == {1}
    ta = automaton(UNEVEN)
    ab = abstract_guards(ta)
    assert atoms_text(ta, sensitive_atoms(ab)) == {"-f + nc >= 0"} and budget_atoms(ab) == {}
    ta = automaton(EXACT)
    ab = abstract_guards(ta)
    assert atoms_text(ta, sensitive_atoms(ab)) == {"x >= 2"} and budget_atoms(ab) == {}


def test_only_rules_that_raise_a_sensitive_atom_get_boundary_steps():
    ta = automaton(UNEVEN)
    question = reach_query(ta, next(p for p in ta.properties if p.name == "budget"))
    layout = encode(ta, question).layout
    assert [ta.rules[i].id for i in layout.boundary_rules] == [0, 9]
    ta = automaton(CRASH)  # a budget needs none
    question = reach_query(ta, next(p for p in ta.properties if p.name == "budget"))
    assert encode(ta, question).layout.boundary_rules == ()
    # no fall guard, no invariant: no boundary step at all
    ta = automaton(INVARIANT)
    assert encode(ta, ReachQuery("p", BoolConst(True), BoolConst(True))).layout.boundary_rules == ()


def test_invariant_atoms_are_sensitive():
    ta = automaton(INVARIANT)
    (enc,) = encode_lasso.encode_query(ta, query(ta, "late"))
    assert enc.layout.sensitive == frozenset({0})
    assert [ta.rules[i].id for i in enc.layout.boundary_rules] == [0]


@pytest.mark.parametrize("text", [CRASH, UNEVEN], ids=["budget", "uneven"])
@pytest.mark.parametrize("prop, verdict", [("budget", HOLDS), ("no_d", VIOLATED),
                                           ("nobody_crashes", HOLDS)])
def test_crash_budget_reachability(text, prop, verdict):
    ta = automaton(text)
    question = reach_query(ta, next(p for p in ta.properties if p.name == prop))
    assert parametric.check(ta, question).verdict == verdict


@pytest.mark.parametrize("text", [CRASH, UNEVEN], ids=["budget", "uneven"])
@pytest.mark.parametrize("prop, verdict", [("progress", HOLDS), ("all_in_d", VIOLATED),
                                           ("d_after_c", VIOLATED)])
def test_crash_budget_temporal(text, prop, verdict):
    assert parametric_verdict(automaton(text), prop).verdict == verdict


@pytest.mark.parametrize("text, prop, verdict", [(EXACT, "one_winner", HOLDS),
                                                 (EXACT, "someone_wins", VIOLATED),
                                                 (INVARIANT, "late", VIOLATED),
                                                 (INVARIANT, "early", HOLDS)])
def test_known_answers(text, prop, verdict):
    ta = automaton(text)
    q = query(ta, prop)
    if q.formula_class.value == "reachability" and not q.infinite:
        result = parametric.check(ta, reach_query(ta, next(p for p in ta.properties if p.name == prop)))
    else:
        result = parametric_verdict(ta, prop)
    assert result.verdict == verdict


HAND_MADE = [CRASH, UNEVEN, EXACT, INVARIANT, PHASES, SELF_ENABLING, WIDE]
HAND_MADE_IDS = ["crash", "uneven", "exact", "invariant", "phases", "self-enabling", "wide"]


@pytest.mark.parametrize("text", HAND_MADE, ids=HAND_MADE_IDS)
def test_engines_agree(text):
    ta = automaton(text)
    assert agree_eltl(ta, bound=4) == len(ta.properties)  # every property, by its class
    assert agree_reach(ta, bound=4) >= 1 or text in (INVARIANT, WIDE)  # the reachability-shaped ones again


def test_the_cases_catch_a_sensitivity_set_that_is_too_small(monkeypatch):
    """Without the sensitive atoms (every atom free to rise inside a steady part), the crash
    budget is "violated" by a run the simulator cannot replay, and the invariant's violation is
    lost: the tests above would fail."""
    monkeypatch.setattr(encode_steady, "sensitive_atoms", lambda *a: frozenset())
    monkeypatch.setattr(encode_lasso, "sensitive_atoms", lambda *a: frozenset())
    monkeypatch.setattr(encode_steady, "budget_atoms", lambda *a: {})
    monkeypatch.setattr(encode_lasso, "budget_atoms", lambda *a: {})
    for text in (CRASH, UNEVEN):
        ta = automaton(text)
        question = reach_query(ta, next(p for p in ta.properties if p.name == "budget"))
        assert parametric.check(ta, question).verdict != HOLDS
    ta = automaton(EXACT)
    question = reach_query(ta, next(p for p in ta.properties if p.name == "one_winner"))
    assert parametric.check(ta, question).verdict != HOLDS
    ta = automaton(INVARIANT)
    assert parametric.check_temporal(ta, query(ta, "late")).verdict == HOLDS  # wrong


def test_the_cases_catch_a_budget_without_its_end_condition(monkeypatch):
    """A budget whose end condition is void (δ huge) lets one steady part crash every process."""
    monkeypatch.setattr(encode_steady, "budget_atoms", lambda ab, *a: {i: 10**6 for i in budget(ab)})
    ta = automaton(CRASH)
    question = reach_query(ta, next(p for p in ta.properties if p.name == "budget"))
    assert parametric.check(ta, question).verdict != HOLDS


budget = encode_steady.budget_atoms


@contextmanager
def plain_encoding():
    """The encoding before steady segments let atoms rise: every atom constant in a steady
    part, no budgets, one segment per atom."""
    every = lambda ab, *a: frozenset(range(len(ab.atoms)))  # noqa: E731
    with mock.patch.object(encode_steady, "sensitive_atoms", every), \
            mock.patch.object(encode_lasso, "sensitive_atoms", every), \
            mock.patch.object(encode_steady, "budget_atoms", lambda *a: {}), \
            mock.patch.object(encode_lasso, "budget_atoms", lambda *a: {}), \
            mock.patch.object(encode_steady, "rounds_bound", lambda *a: None), \
            mock.patch.object(encode_lasso, "rounds_bound", lambda *a: None):
        yield


def same_verdicts(ta) -> int:
    """The parametric verdict of every property with the plain encoding and with this one;
    returns how many were decided."""
    decided = 0
    for prop in ta.properties:
        q = temporal_query(ta, prop)
        if not isinstance(q, TemporalQuery):
            continue
        with plain_encoding():
            plain = parametric.check_temporal(ta, q)
        ours = parametric.check_temporal(ta, q)
        assert ours.verdict == plain.verdict, (prop.name, ours.verdict, ours.reason, plain.verdict)
        decided += ours.verdict in (HOLDS, VIOLATED)
    return decided


def test_cut_points_multiply_the_rounds():
    ta = automaton(WIDE)
    ab = abstract_guards(ta)
    assert len(ab.atoms) == 9 and rounds_bound(ta, ab) == 3
    (enc,) = encode_lasso.encode_query(ta, query(ta, "c_then_no_d"))
    assert enc.layout.segments == 9
    (enc,) = encode_lasso.encode_query(ta, query(ta, "live"))
    assert enc.layout.segments == 3


@pytest.mark.parametrize("prop, verdict", [("c_then_no_d", VIOLATED), ("b_then_no_c", VIOLATED),
                                           ("d_then_no_b", VIOLATED), ("live", HOLDS)])
def test_wide_known_answers(prop, verdict):
    assert parametric_verdict(automaton(WIDE), prop).verdict == verdict


def test_rounds_bound_counts_the_phases():
    ta = automaton(PHASES)
    ab = abstract_guards(ta)
    assert len(ab.atoms) == 3 and rounds_bound(ta, ab) == 3
    question = reach_query(ta, next(p for p in ta.properties if p.name == "reach_d"))
    assert encode(ta, question).layout.segments == 3
    ta = automaton(SELF_ENABLING)
    assert rounds_bound(ta, abstract_guards(ta)) is None
    question = reach_query(ta, ta.properties[0])
    assert encode(ta, question).layout.segments == 2  # one per atom, + 1
    ta = automaton(UNEVEN)  # a sensitive atom: one segment per atom
    question = reach_query(ta, next(p for p in ta.properties if p.name == "budget"))
    assert encode(ta, question).layout.segments == len(abstract_guards(ta).atoms) + 1


@pytest.mark.parametrize("prop, verdict", [("reach_d", VIOLATED), ("no_crash_no_d", VIOLATED),
                                           ("live", HOLDS), ("all_d", VIOLATED)])
def test_phases_known_answers(prop, verdict):
    assert parametric_verdict(automaton(PHASES), prop).verdict == verdict


def test_one_round_too_few_misses_the_violation(monkeypatch):
    """The bound is tight on PHASES: with two segments D is out of reach."""
    monkeypatch.setattr(encode_steady, "rounds_bound", lambda *a: 2)
    ta = automaton(PHASES)
    question = reach_query(ta, next(p for p in ta.properties if p.name == "reach_d"))
    assert parametric.check(ta, question).verdict == HOLDS  # wrong, as it must be


@pytest.mark.parametrize("text", HAND_MADE, ids=HAND_MADE_IDS)
def test_the_plain_encoding_agrees_on_the_cases(text):
    assert same_verdicts(automaton(text)) == len(automaton(text).properties)


@pytest.mark.parametrize("path", isola18_params())
def test_the_plain_encoding_agrees_on_isola18(path):
    assert same_verdicts(read_ta_file(path).ta) >= 1


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.ta")), ids=lambda p: p.parent.name)
def test_the_plain_encoding_agrees_on_the_corpus(path):
    assert same_verdicts(read_ta_file(path).ta) >= 1


# ------------------------------------------------------------------------ random automata


@given(random_eltl_ta(rising=True))
@settings(max_examples=int(os.environ.get("TACTL_RANDOM_EXAMPLES", 150)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_random_automata_with_rising_guards(text):
    """Guards that only rise (atoms switch inside steady parts), crash-style fall guards, and
    invariants over atoms (tests/engines/test_eltl.py's generator with ``rising``)."""
    ta = automaton(text)
    assert agree_reach(ta, bound=3) in (0, 1)
    assert agree_eltl(ta, bound=3) in (0, 1)
    same_verdicts(ta)


DISJUNCTIVE_BUDGET = """skel Random {
  shared x, y;
  parameters n, t;
  assumptions (2) { n > 2 * t; t >= 0; }
  locations (2) { L0: [0]; L1: [1]; }
  inits { L0 == n - 0; L1 == 0; x == 0; y == 0; }
  rules {
    0: L0 -> L0 when (x < 1 || x <= 1) do { x' == x + 1; y' == y + 1; };
  }
  specifications (1) { p: [](x + y < n + 2); }
}"""


def test_a_fall_atom_in_a_disjunct_is_no_budget():
    # found by test_differential's random automata: `x < 1 || x <= 1` fires while x <= 1, so x
    # reaches 2; taking `x >= 1` and `x >= 2` for crash-style budgets (each may rise only at a
    # steady part's last step) allowed one firing and gave a wrong HOLDS
    from tactl.engines import explicit, parametric
    from tactl.ir.ta.reader import read_ta
    from tactl.ir.eltl.safety import reach_query
    from tactl.passes.ta_to_smt.guard_abstraction import abstract_guards, budget_atoms

    ta = read_ta(DISJUNCTIVE_BUDGET, "budget.ta").ta
    assert budget_atoms(abstract_guards(ta)) == {}
    question = reach_query(ta, ta.properties[0])
    assert explicit.check(ta, question, {}, bound=4).verdict == "violated"
    result = parametric.check(ta, question)
    assert result.verdict == "violated" and result.counterexample is not None
