"""Two or more re-enterable "occupied" sets: the over- and under-approximating queries.

``passes.encode_lasso`` has no exact single query when a branch of a negated specification keeps
two or more location sets occupied while rules move processes into them (random19's
``decide_or_flip``). The engine asks the over-approximation (sets checked at segment ends: unsat
proves that no run exists) and then the under-approximations (sorted passes: every model is a
real run, replayed). These tests check both directions against the explicit engine, which shares
nothing with either query, on seeded random automata with two and three such sets, on hand-made
ones, and the random19 verdicts against ByMC's. The engine's explicit search at the least
valuation, asked before these queries (``tactl/engines/probe.py``, tested in test_probe.py), is
turned off here: it would answer most violations before either query is asked.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from pathlib import Path

import pytest

from tactl.engines import explicit_ltl, parametric
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED
from tactl.engines.simulate import replay_run
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.ta.reader import read_ta, read_ta_file
from tactl.passes.ta_to_smt.lasso import NeedsBounds, encode_branch, under_passes

BOUND = 3
MAX_STATES = 100_000


@pytest.fixture(autouse=True)
def queries_only(monkeypatch):
    """The one-sided queries decide every branch here, not the explicit probe before them."""
    monkeypatch.setattr(parametric, "probe", lambda *args, **kwargs: None)


def automaton(text: str):
    return read_ta(text, "test.ta").ta


def query(ta, name: str = "p") -> TemporalQuery:
    q = temporal_query(ta, next(p for p in ta.properties if p.name == name))
    assert isinstance(q, TemporalQuery), q
    return q


def bounded_sets(ta, q: TemporalQuery) -> int:
    """How many re-enterable sets the first branch that needs bounds has (0: every branch exact)."""
    for branch in q.branches:
        if branch.is_reachability and not q.infinite:
            continue
        try:
            encode_branch(ta, replace(q, branches=(branch,)), branch)
        except NeedsBounds as e:
            return e.sets
    return 0


# Two chains as in test_eltl.py's REENTER toy, doubled: {A0, A2, C1} and {C0, C2, A1} must each
# stay occupied while everyone moves to the ends (A2, C2). Both sets are re-entered (A1 -> A2 and
# C1 -> C2 enter the first, C0 -> C1 ... the second).
TWO = """
skel Two {
  parameters n;
  assumptions (1) { n >= 1; }
  locations (6) { A0: [0]; A1: [1]; A2: [2]; C0: [3]; C1: [4]; C2: [5]; }
  inits (6) { A0 == n; C0 == n; A1 == 0; A2 == 0; C1 == 0; C2 == 0; }
  rules (6) {
    0: A0 -> A1 when (true) do { };
    1: A1 -> A2 when (true) do { };
    2: C0 -> C1 when (true) do { };
    3: C1 -> C2 when (true) do { };
    4: A2 -> A2 when (true) do { };
    5: C2 -> C2 when (true) do { };
  }
  specifications (3) {
    /* violated: C0 -> C1 (C1 covers the first set), A0 -> A1 (A1 covers the second), A1 -> A2,
       C1 -> C2: every configuration has someone in each set */
    both: <>[](A0 == 0 && A1 == 0 && C0 == 0 && C1 == 0)
          -> <>(A0 == 0 && A2 == 0 && C1 == 0 || C0 == 0 && C2 == 0 && A1 == 0);
    /* holds: {A0} and {C0} can only be left, and everyone leaves (a monotone pair, exact) */
    monotone: <>[](A0 == 0 && C0 == 0) -> <>(A0 == 0 || C0 == 0);
    /* {A0, C2} and {C0, A2}: violated for n >= 2 (one C goes to C2 and one A to A2 first);
       with n = 1 the first move empties one of them */
    crossed: <>[](A0 == 0 && A1 == 0 && C0 == 0 && C1 == 0)
          -> <>(A0 == 0 && C2 == 0 || C0 == 0 && A2 == 0);
  }
}
"""


# As "crossed", but the C processes may move only after every A process has reached A2 (x counts
# them): the last process to leave A0 does so while C2 is still empty. Holds for every n; the
# over-approximation sees it at the end of the first steady segment.
GUARDED = TWO.replace("skel Two", "skel Guarded").replace(
    "parameters n;", "shared x; parameters n;").replace(
    "inits (6) { A0 == n;", "inits (7) { x == 0; A0 == n;").replace(
    "1: A1 -> A2 when (true) do { };", "1: A1 -> A2 when (true) do { x' == x + 1; };").replace(
    "2: C0 -> C1 when (true) do { };", "2: C0 -> C1 when (x >= n) do { unchanged(x); };")


def test_two_sets_need_bounds_and_both_queries_are_built():
    ta = automaton(TWO)
    q = query(ta, "both")
    (branch,) = q.branches
    with pytest.raises(NeedsBounds) as caught:
        encode_branch(ta, q, branch)
    assert caught.value.sets == 2
    over = encode_branch(ta, q, branch, bound="over")
    assert over.layout.bound == "over" and over.layout.passes == 0
    for passes in under_passes(2):
        under = encode_branch(ta, q, branch, bound="under", passes=passes)
        assert under.layout.bound == "under" and under.layout.passes == passes
    assert under_passes(2)[-1] == 5


def test_one_set_stays_exact():
    # test_eltl.py's REENTER toy has one re-enterable set: no bounds, the proved three passes.
    from test_eltl import REENTER

    ta = automaton(REENTER)
    q = query(ta, "leave")
    (branch,) = q.branches
    assert encode_branch(ta, q, branch).layout.bound is None
    assert bounded_sets(ta, q) == 0


@pytest.mark.parametrize("text, name, sets, expected", [
    (TWO, "both", 2, VIOLATED), (TWO, "monotone", 0, HOLDS), (TWO, "crossed", 2, VIOLATED),
    (GUARDED, "crossed", 2, HOLDS)])
def test_hand_made_two_set_verdicts_agree_with_explicit(text, name, sets, expected):
    ta = automaton(text)
    q = query(ta, name)
    assert bounded_sets(ta, q) == sets
    assert compare(ta, q) == expected
    if expected == VIOLATED:
        assert explicit_ltl.check_temporal(ta, q, {}, bound=BOUND, max_states=MAX_STATES).verdict == VIOLATED


def compare(ta, q: TemporalQuery) -> str:
    """The parametric verdict, after checking it against the explicit engine up to ``BOUND``:
    holds -> no explicit violation; violated -> replayed, and explicit agrees at its parameters;
    unknown -> only for a bounded branch, and saying so."""
    par = parametric.check_temporal(ta, q)
    exp = explicit_ltl.check_temporal(ta, q, {}, bound=BOUND, max_states=MAX_STATES)
    context = (q.property, par.verdict, par.reason, exp.verdict, exp.reason)
    if par.verdict == HOLDS:
        assert exp.verdict != VIOLATED, context
    elif par.verdict == VIOLATED:
        cex = par.counterexample
        assert cex.replayed, cex.replay.message
        again = replay_run(ta, q.negation, q.infinite, cex.parameters, cex.initial, cex.schedule, cex.loop)
        assert again.ok, again.message
        values = [*cex.parameters.values(), *dict(cex.initial.shared).values(),
                  *dict(cex.initial.counters).values()]
        if max(values, default=0) <= BOUND:
            confirm = explicit_ltl.check_temporal(ta, q, dict(cex.parameters), bound=BOUND,
                                                  max_states=MAX_STATES)
            assert confirm.verdict == VIOLATED, context + (cex.parameters, confirm.reason)
    else:
        assert par.verdict == UNKNOWN and "approximation" in par.reason, context
    return par.verdict


def random_multi_set_ta(rng: random.Random, sets: int) -> str:
    """A small forward (DAG) automaton with self-loops everywhere and a liveness or nested
    specification whose negation keeps ``sets`` random location sets occupied."""
    n_locs = rng.randint(4, 6)
    locs = [f"L{i}" for i in range(n_locs)]
    rules = []
    for _ in range(rng.randint(3, 7)):
        i = rng.randint(0, n_locs - 2)
        j = rng.randint(i + 1, n_locs - 1)
        guard = rng.choice(["true", "true", f"x >= {rng.choice(['1', 't', 't + 1', 'n - t'])}",
                            f"x < {rng.choice(['1', 't + 1', 'n - t'])}"])
        rules.append((locs[i], locs[j], guard, f"x' == x + {rng.randint(0, 1)}"))
    rules += [(loc, loc, "true", "x' == x") for loc in locs]
    starts = rng.sample(locs[:-1], rng.randint(1, 2))
    inits = [f"{' + '.join(starts)} == n - {rng.choice(['0', 't'])};"]
    inits += [f"{loc} == 0;" for loc in locs if loc not in starts] + ["x == 0;"]

    def empty() -> str:
        return " && ".join(f"{c} == 0" for c in rng.sample(locs, rng.randint(1, 3)))

    justice = " && ".join(f"{c} == 0" for c in rng.sample(locs[:-1], rng.randint(0, 2))) or "true"
    goal = " || ".join(f"({empty()})" for _ in range(sets))
    spec = rng.choice([
        f"<>[]({justice}) -> <>({goal})",
        f"<>[]({justice}) -> [](L0 == 0 || <>({goal}))",
        f"<>({goal})",
        f"<>[]({justice}) -> <>(x >= t + 1 && ({empty()}) || {goal})",
    ])
    return "\n".join([
        "skel Random {", "  shared x;", "  parameters n, t;",
        "  assumptions (2) { n > 2 * t; t >= 0; }",
        "  locations (%d) { %s }" % (n_locs, " ".join(f"{loc}: [{i}];" for i, loc in enumerate(locs))),
        "  inits { " + " ".join(inits) + " }",
        "  rules {", *(f"    {k}: {s} -> {d} when ({g}) do {{ {u}; }};" for k, (s, d, g, u) in enumerate(rules)),
        "  }", f"  specifications (1) {{ p: {spec}; }}", "}"])


@pytest.mark.parametrize("sets", [2, 3])
def test_random_automata_with_several_re_enterable_sets_agree_with_explicit(sets):
    """Seeded, so the figures are stable: with 2 sets, 60 automata that need bounds; with 3, 40.
    Every verdict is checked against the explicit engine; almost all must be decided."""
    rng = random.Random(21 + sets)
    wanted = 60 if sets == 2 else 40
    verdicts: list[str] = []
    tried = 0
    while len(verdicts) < wanted:
        tried += 1
        assert tried < 40 * wanted, "the generator rarely makes automata that need bounds"
        ta = automaton(random_multi_set_ta(rng, sets))
        q = query(ta)
        if bounded_sets(ta, q) < 2:
            continue
        verdicts.append(compare(ta, q))
    decided = sum(v in (HOLDS, VIOLATED) for v in verdicts)
    assert VIOLATED in verdicts and HOLDS in verdicts, verdicts
    assert decided >= 0.9 * len(verdicts), (decided, len(verdicts))


# ------------------------------------------------------------------------------------ random19

RANDOM19 = Path(os.environ.get("TACTL_RANDOM19", Path.home() / ".cache/tactl/benchmarks/random19"))
BYMC = {  # decide_or_flip as ByMC 2.4.4 reports it (ByMC built by tools/build_bymc.sh, measured here)
    "n-ben-or": VIOLATED, "n-ben-or-byz": VIOLATED, "n-ben-or-nonclean": VIOLATED,
    "n-rabc-cr": VIOLATED, "n-kset": HOLDS, "p-kset": HOLDS,
}


def random19_decide_or_flip(name: str):
    """The random19 automaton ``name`` and its ``decide_or_flip`` query; skipped when absent."""
    path = RANDOM19 / f"{name}.ta"
    if not path.exists():
        pytest.skip(f"{path} absent (make random19 fetches the random19 automata)")
    ta = read_ta_file(path).ta
    return ta, query(ta, "decide_or_flip")


@pytest.mark.parametrize("name", sorted(BYMC))
def test_random19_decide_or_flip_matches_bymc(name):
    ta, q = random19_decide_or_flip(name)
    assert bounded_sets(ta, q) >= 2
    result = parametric.check_temporal(ta, q)
    assert result.verdict == BYMC[name], result.reason
    if result.verdict == VIOLATED:
        cex = result.counterexample
        again = replay_run(ta, q.negation, q.infinite, cex.parameters, cex.initial, cex.schedule, cex.loop)
        assert again.ok, again.message
        # The explicit engine finds a violation at the counterexample's parameters on its own.
        confirm = explicit_ltl.check_temporal(ta, q, dict(cex.parameters), bound=5, max_states=200_000)
        assert confirm.verdict == VIOLATED, (cex.parameters, confirm.reason)
    else:  # and finds none for the smallest sizes (N = 4, T = 1)
        assert explicit_ltl.check_temporal(ta, q, {}, bound=4, max_states=200_000).verdict == HOLDS


# ------------------------------------------------------------------------ emitted SMT-LIB files

@pytest.mark.parametrize("text, name, over, under", [
    (TWO, "both", None, "sat"), (GUARDED, "crossed", "unsat", "unsat")])
def test_emit_writes_both_one_sided_queries_and_the_solvers_agree(tmp_path, text, name, over, under):
    """``tactl emit --to smtlib`` writes NAME.over.smt2 and NAME.under.smt2 for a bounded
    property; z3 and cvc5, as processes of their own, give the same answer on each, and it is
    the one the engine's reasoning needs (over unsat = holds; under sat = violated)."""
    from tactl.engines import solvers
    from tactl.driver.emitters import smtlib_files

    emitted = smtlib_files(read_ta(text, "test.ta"), [name], {})
    assert sorted(emitted["files"]) == sorted(f"{automaton(text).name}.{name}.{b}.smt2" for b in ("over", "under"))
    missing = [s for s in solvers.SOLVERS if solvers.available(s) is None]
    for file_name, body in emitted["files"].items():
        bound = file_name.split(".")[-2]
        assert ("OVER-approximation" if bound == "over" else "UNDER-approximation") in body
        if missing:
            continue
        path = tmp_path / file_name
        path.write_text(body)
        answers = {s: solvers.run(s, path, 60.0).answer for s in solvers.SOLVERS}
        assert len(set(answers.values())) == 1, answers
        expected = over if bound == "over" else under
        if expected:
            assert answers["z3"] == expected, (file_name, answers)
    if missing:
        pytest.skip(f"{' and '.join(missing)} not available: files checked, solvers not run")
