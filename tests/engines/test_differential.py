"""Differential testing: the parameterized engine against explicit enumeration of small instances.

For every safety property of every test automaton (ours, the corpus, mutants, the ISOLA'18
benchmarks when present): a violation the explicit oracle finds for some small parameters must be
found by the parameterized engine; a parameterized counterexample with small parameters must be
found explicitly at those parameters; and "holds for all n" must agree with every small instance.
"""

from __future__ import annotations

import os

import pytest

from conftest import CORPUS, check_ta_files, isola18_params, reach_questions
from tactl.engines import explicit, parametric
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.ir.ta.reader import read_ta, read_ta_file
from tactl.passes.ta_to_smt.guard_abstraction import unsupported_reason
from test_parametric_safety import CORPUS_MUTANTS, ISOLA18_MUTANTS, mutate

BOUND = 5
MAX_STATES = 50_000


def agree(ta: ThresholdAutomaton, bound: int = BOUND) -> int:
    """Compare the engines on every safety property; returns how many were compared."""
    assert unsupported_reason(ta) is None
    compared = 0
    for prop, question in reach_questions(ta):
        par = parametric.check(ta, question)
        exp = explicit.check(ta, question, {}, bound=bound, max_states=MAX_STATES)
        context = (prop.name, par.verdict, exp.verdict, exp.reason)
        assert par.verdict in (HOLDS, VIOLATED), context
        if exp.verdict == VIOLATED:
            assert par.verdict == VIOLATED, context
            assert exp.counterexample.replayed
        if par.verdict == HOLDS:
            # Infinite counter systems (a cycle that keeps incrementing) can exhaust the budget;
            # small parameters may admit no initial configuration (then nothing is compared).
            assert exp.verdict == HOLDS or (exp.verdict == UNKNOWN and (
                "state limit" in exp.reason or "nothing was checked" in exp.reason)), context
            if exp.verdict == UNKNOWN and "nothing was checked" in exp.reason:
                continue
        if par.verdict == VIOLATED:
            cex = par.counterexample
            assert cex.replayed
            values = [*cex.parameters.values(), *dict(cex.initial.shared).values(),
                      *dict(cex.initial.counters).values()]
            if max(values, default=0) <= bound:
                again = explicit.check(ta, question, dict(cex.parameters), bound=bound,
                                       max_states=MAX_STATES)
                assert again.verdict == VIOLATED, context + (cex.parameters,)
        compared += 1
    return compared


@pytest.mark.parametrize("path", [p for p in check_ta_files() if p.name != "unsupported.ta"],
                         ids=lambda p: p.name)
def test_own_automata(path):
    assert agree(read_ta_file(path).ta) >= 1


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.ta")), ids=lambda p: p.parent.name)
def test_corpus(path):
    assert agree(read_ta_file(path).ta) >= 1


@pytest.mark.parametrize("mutant", CORPUS_MUTANTS, ids=lambda m: f"{m[0]}:{m[1].strip()[:20]}")
def test_corpus_mutants(mutant):
    file, old, new, _ = mutant
    assert agree(read_ta(mutate((CORPUS / file).read_text(), old, new), "mutant.ta").ta) >= 1


@pytest.mark.parametrize("path", isola18_params())
def test_isola18(path):
    assert agree(read_ta_file(path).ta, bound=4) >= 1


@pytest.mark.parametrize("mutant", ISOLA18_MUTANTS, ids=lambda m: f"{m[0]}:{m[1][:20]}")
def test_isola18_mutants(mutant):
    from conftest import ISOLA18

    file, old, new, _ = mutant
    if not (ISOLA18 / file).exists():
        pytest.skip(f"shared ByMC benchmarks not found at {ISOLA18}")
    assert agree(read_ta(mutate((ISOLA18 / file).read_text(), old, new), "mutant.ta").ta, bound=4) >= 1


# ------------------------------------------------------------------------- random automata

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def random_ta(draw) -> str:
    """A small monotone TA in .ta text: rise and fall guards over two shared variables, cycles
    and self-loops allowed, parameters n and t with n > 2t."""
    n_locs = draw(st.integers(2, 5))
    locs = [f"L{i}" for i in range(n_locs)]
    shared = ["x", "y"]

    def threshold() -> str:
        a, b, c = draw(st.integers(0, 1)), draw(st.integers(-1, 1)), draw(st.integers(-1, 2))
        return f"{a} * n + {b} * t + {c}"

    def atom() -> str:
        var = draw(st.sampled_from(["x", "y", "x + y", "2 * x"]))
        op = draw(st.sampled_from([">=", "<", ">", "<="]))
        return f"{var} {op} {threshold()}"

    rules = []
    for i in range(draw(st.integers(1, 7))):
        src, dst = draw(st.sampled_from(locs)), draw(st.sampled_from(locs))
        kind = draw(st.integers(0, 3))
        guard = "true" if kind == 0 else atom() if kind < 3 else \
            f"{atom()} {draw(st.sampled_from(['&&', '||']))} {atom()}"
        inc = [f"{v}' == {v} + {draw(st.integers(0, 2))}" for v in shared]
        rules.append(f"    {i}: {src} -> {dst} when ({guard}) do {{ {'; '.join(inc)}; }};")
    starts = draw(st.lists(st.sampled_from(locs), min_size=1, max_size=2, unique=True))
    inits = [f"{' + '.join(starts)} == n - {draw(st.sampled_from(['0', 't']))};"]
    inits += [f"{loc} == 0;" for loc in locs if loc not in starts] + ["x == 0;", "y == 0;"]
    bad = draw(st.sampled_from(locs))
    prop = draw(st.sampled_from([f"[]({bad} == 0)", f"[]({bad} <= 1)", "[](x + y < n + 2)",
                                 f"{starts[0]} == 0 -> []({bad} == 0)"]))
    return "\n".join([
        "skel Random {", "  shared x, y;", "  parameters n, t;",
        "  assumptions (2) { n > 2 * t; t >= 0; }",
        "  locations (%d) { %s }" % (n_locs, " ".join(f"{loc}: [{i}];" for i, loc in enumerate(locs))),
        "  inits { " + " ".join(inits) + " }",
        "  rules {", *rules, "  }",
        f"  specifications (1) {{ p: {prop}; }}", "}"])


@given(random_ta())
@settings(max_examples=int(os.environ.get("TACTL_RANDOM_EXAMPLES", 150)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_automata(text):
    # 0 only when no initial configuration exists up to the bound (agree() checks the reason)
    assert agree(read_ta(text, "random.ta").ta, bound=4) in (0, 1)
