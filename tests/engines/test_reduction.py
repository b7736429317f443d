"""The reductions before encoding (passes/ta_to_ta/simplify_guards.py, passes/ta_to_ta/shortcuts.py,
tactl/engines/reduced.py): equivalent guards, shortcut rules only where the soundness conditions
allow them, and the same verdicts with and without the reduction — on known answers, the corpus,
the ISOLA'18 benchmarks, random automata with shortcuts, and against the explicit engine."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, SHARED_BENCHMARKS, check_ta_files, isola18_params, verdicts
from tactl.engines import reduced
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.expr import BoolConst
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.ta.reader import read_ta, read_ta_file
from tactl.passes.ta_to_ta.shortcuts import drop_shortcuts
from tactl.passes.ta_to_ta.simplify_guards import simplify_guards

# A chain A -> B -> C with a shortcut A -> C; self-loops everywhere so that lassos exist.
CHAIN = """skel Chain {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (3) { A: [0]; B: [1]; C: [2]; }
  inits (4) { A == n; B == 0; C == 0; x == 0; }
  rules {
    0: A -> B when (x >= 0 || x < 0) do { x' == x + 1; };
    1: B -> C when (true) do { unchanged(x); };
    2: A -> C when (x >= 0) do { x' == x + 1; };
    3: A -> A when (true) do { unchanged(x); };
    4: B -> B when (true) do { unchanged(x); };
    5: C -> C when (true) do { unchanged(x); };
  }
  specifications (3) {
    reach_c: [](C == 0);
    b_first: [](B == 0) -> [](C == 0);
    x_small: [](x <= n);
  }
}"""


def automaton(text: str):
    return read_ta(text, "t.ta").ta


def unreduced(ta, monkeypatch, **kw) -> dict[str, str]:
    with monkeypatch.context() as m:
        m.setenv(reduced.OFF, "1")
        return verdicts(ta, **kw)


def test_guards_are_simplified_to_equivalent_ones():
    ta = automaton(CHAIN)
    simpler = simplify_guards(ta)
    assert [r.guard for r in simpler.rules][:3] == [BoolConst(True)] * 3
    assert_equivalent_guards(ta, simpler)


def assert_equivalent_guards(ta, simpler) -> None:
    """Each new guard equals the old one under the RC with natural parameters and variables."""
    import z3

    sym = int_symbols()
    solver = z3.Solver()
    solver.add(*(to_z3(ta.expand(a), sym) for a in ta.assumptions))
    solver.add(*(sym(x) >= 0 for x in (*ta.parameters, *ta.shared)))
    for old, new in zip(ta.rules, simpler.rules):
        assert (old.id, old.source, old.target, old.updates) == (new.id, new.source, new.target, new.updates)
        assert solver.check(to_z3(ta.expand(old.guard), sym) != to_z3(new.guard, sym)) == z3.unsat, old.id


def test_a_shortcut_is_dropped_when_nothing_observes_the_intermediate_location():
    ta = simplify_guards(automaton(CHAIN))
    reach = drop_shortcuts(ta)
    assert reach.kept == (0, 1, 3, 4, 5) and reach.via == {2: (0, 1)}


def test_a_shortcut_stays_when_an_invariant_observes_the_intermediate_location():
    ta = simplify_guards(automaton(CHAIN))
    assert drop_shortcuts(ta, frozenset({"B"})).removed == 0
    # B -> C unobserved but the shortcut's source and target both are: the intermediate
    # configuration must agree with the one before or after the step
    assert drop_shortcuts(ta, frozenset({"A", "C"})).removed == 0
    assert drop_shortcuts(ta, frozenset({"C"})).removed == 1


def test_known_answers_with_and_without_the_reduction(monkeypatch):
    ta = automaton(CHAIN)
    # b_first: a process can reach C without ever visiting B only by the shortcut rule 2; the
    # invariant [](B == 0) observes B, so the shortcut must stay (dropping it would say holds)
    expected = {"reach_c": VIOLATED, "b_first": VIOLATED, "x_small": HOLDS}
    assert verdicts(ta) == expected
    assert unreduced(ta, monkeypatch) == expected


def test_a_violation_on_the_reduced_automaton_is_replayed_on_the_original():
    ta = automaton(CHAIN)
    report = check_automaton(ta, "t.ta", CheckOptions(properties=("reach_c",)))
    result = report.results[0]
    assert result.verdict == VIOLATED and result.details["reduced_rules"] == 5
    cex = result.counterexample
    assert cex.replayed and all(0 <= s.rule < len(ta.rules) for s in cex.schedule)
    assert ta.rules[cex.schedule[-1].rule].target == "C"


def small_files():
    files = [p for p in check_ta_files() if p.name != "unsupported.ta"] + sorted(CORPUS.rglob("*.ta"))
    return [pytest.param(p, id=p.name) for p in files]


@pytest.mark.parametrize("path", small_files())
def test_own_automata_same_verdicts(path, monkeypatch):
    ta = read_ta_file(path).ta
    assert_equivalent_guards(ta, simplify_guards(ta))
    assert verdicts(ta) == unreduced(ta, monkeypatch)


@pytest.mark.parametrize("path", isola18_params())
def test_isola18_same_verdicts(path, monkeypatch):
    ta = read_ta_file(path).ta
    assert_equivalent_guards(ta, simplify_guards(ta))
    assert verdicts(ta) == unreduced(ta, monkeypatch)


# ------------------------------------------------------------------ random automata with shortcuts


@st.composite
def layered_ta(draw) -> str:
    """A small monotone TA whose locations L0 < L1 < … have forward rules between any two, so
    that shortcuts are common; guards from a few threshold atoms (often conjunctions, so that
    one implies another), increments of x, y; self-loops on some locations; one property of a
    random ELTL shape (reachability, nested safety, liveness)."""
    n = draw(st.integers(3, 5))
    locs = [f"L{i}" for i in range(n)]
    atoms = ["x >= t + 1", "x >= n - t", "y >= 1", "x + y >= n - t", "y < t + 1", "x >= 0"]

    def guard() -> str:
        picked = draw(st.lists(st.sampled_from(atoms), min_size=0, max_size=2, unique=True))
        return " && ".join(picked) or "true"

    steps = [guard() for _ in range(n - 1)]  # the guard and increments of L(k) -> L(k+1)
    deltas = [(draw(st.integers(0, 1)), draw(st.integers(0, 1))) for _ in range(n - 1)]
    rules = []
    for i in range(n):
        for j in range(i + 1, n):
            if not (draw(st.booleans()) or j == i + 1):
                continue
            if draw(st.integers(0, 3)):  # mostly a shortcut-shaped rule: the steps' sums and guards
                g = " && ".join(sorted({a for k in range(i, j) for a in steps[k].split(" && ") if a != "true"}
                                       | ({draw(st.sampled_from(atoms))} if draw(st.booleans()) else set())))
                dx, dy = sum(d[0] for d in deltas[i:j]), sum(d[1] for d in deltas[i:j])
            else:
                g, dx, dy = guard(), draw(st.integers(0, 1)), draw(st.integers(0, 1))
            rules.append((locs[i], locs[j], g or "true", f"x' == x + {dx}; y' == y + {dy}"))
    for loc in locs:
        if draw(st.booleans()) or loc == locs[-1]:
            rules.append((loc, loc, guard() if draw(st.booleans()) else "true", "unchanged(x, y)"))
    a, b = draw(st.sampled_from(locs[1:])), draw(st.sampled_from(locs[1:]))
    prop = draw(st.sampled_from([
        f"[]({a} == 0)",
        f"[]({a} == 0) -> []({b} == 0)",
        f"[]({a} == 0) || []({b} == 0)",
        f"<>[]({locs[0]} == 0) -> <>({a} != 0)",
        f"[]({a} == 0) -> <>({b} != 0)",
        f"[](x < n - t) || []({a} == 0)",
    ]))
    body = "\n".join(f"    {k}: {s} -> {d} when ({g}) do {{ {u}; }};" for k, (s, d, g, u) in enumerate(rules))
    return "\n".join([
        "skel Layered {", "  shared x, y;", "  parameters n, t;",
        "  assumptions (2) { n > 2 * t; t >= 0; }",
        "  locations (%d) { %s }" % (n, " ".join(f"{loc}: [{i}];" for i, loc in enumerate(locs))),
        "  inits { " + f"{locs[0]} == n; " + " ".join(f"{loc} == 0;" for loc in locs[1:]) + " x == 0; y == 0; }",
        "  rules {", body, "  }",
        f"  specifications (1) {{ p: {prop}; }}", "}"])


@given(text=layered_ta())
@settings(max_examples=int(os.environ.get("TACTL_RANDOM_EXAMPLES", 60)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_random_layered_automata(text, monkeypatch):
    ta = automaton(text)
    with_reduction = verdicts(ta)
    assert with_reduction == unreduced(ta, monkeypatch), text
    # and against the explicit engine on small instances: a violation found there is found here
    explicit = verdicts(ta, engine="explicit", bound=4)
    for name, verdict in explicit.items():
        if verdict == VIOLATED:
            assert with_reduction[name] == VIOLATED, text
        if with_reduction[name] == HOLDS:
            assert verdict in (HOLDS, UNKNOWN) or verdict.startswith("holds"), text
    assert temporal_query(ta, ta.properties[0]) is not None


def test_the_large_bench_table_skips_cleanly_without_its_files(tmp_path, capsys, monkeypatch):
    from tactl.bench.large import large_table

    monkeypatch.setenv("TACTL_TACO", str(tmp_path))  # not the cache make taco-generated fills

    def never(args, env):
        raise AssertionError("no process should run without inputs")

    assert large_table(tmp_path, 10.0, never) is True
    assert "large table skipped" in capsys.readouterr().out


GENERATED = SHARED_BENCHMARKS / "bymc-isola18-generated" / "nbacr.ta"


@pytest.mark.slow
@pytest.mark.skipif(not GENERATED.is_file(), reason=f"{GENERATED} not found (set TACTL_SHARED)")
def test_nbacr_same_verdicts_with_and_without_the_reduction(monkeypatch):
    """The Promela-generated nbacr (1,031 rules, 853 of them shortcuts): every property, both ways
    (about a minute unreduced)."""
    ta = read_ta_file(GENERATED).ta
    with_reduction = verdicts(ta)
    assert set(with_reduction.values()) <= {HOLDS, VIOLATED}
    assert with_reduction == unreduced(ta, monkeypatch)
