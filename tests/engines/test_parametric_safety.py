"""The safety checker: known verdicts, the ISOLA'18 benchmarks, mutants, and replay honesty."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import CORPUS, DATA, ISOLA18, check_results, check_ta_files, isola18_params
from tactl.engines import explicit, parametric
from tactl.engines.result import HOLDS, UNSUPPORTED, VIOLATED
from tactl.ir.eltl.safety import ReachQuery, reach_query
from tactl.ir.ta.reader import read_ta, read_ta_file
from tactl.engines.simulate import Configuration, Step, replay


def expected_verdicts(path: Path) -> dict[str, str]:
    match = re.search(r"expect:\s*(.*)", path.read_text())
    assert match, f"{path} has no 'expect:' line"
    return dict(item.strip().split("=") for item in match.group(1).split(","))


def verdicts(path: Path, engine: str = parametric.ENGINE, **kw) -> dict[str, object]:
    """The results on ``path`` read as a plain .ta (no division lowered), by property name."""
    return check_results(read_ta_file(path).ta, str(path), engine=engine, **kw)


@pytest.mark.parametrize("path", check_ta_files(), ids=lambda p: p.name)
def test_known_verdicts(path):
    results = verdicts(path)
    assert {name: r.verdict for name, r in results.items()} == expected_verdicts(path)
    for r in results.values():
        if r.verdict == VIOLATED:
            assert r.counterexample.replayed, r.counterexample.replay.message
        if r.verdict == UNSUPPORTED:
            assert r.reason


@pytest.mark.parametrize("path", isola18_params())
def test_isola18_every_property_holds(path):
    """ByMC: every ISOLA'18 specification holds — safety, nested safety and liveness alike."""
    results = verdicts(path)
    assert any(r.kind == "safety" for r in results.values()), "every ISOLA'18 file has a safety property"
    assert any(r.kind == "liveness" for r in results.values()), "and a liveness property"
    assert all(r.verdict == HOLDS for r in results.values()), \
        {r.name: (r.verdict, r.reason) for r in results.values()}
    for r in results.values():
        assert r.formula_class in ("reachability", "nested safety", "liveness"), r
        assert r.details["class"] == r.formula_class


def test_corpus_safety_holds():
    for path in sorted(CORPUS.rglob("*.ta")):
        results = verdicts(path)
        assert all(r.verdict == HOLDS for r in results.values() if r.kind == "safety"), path


# ----------------------------------------------------------------------------------- mutants

CORPUS_MUTANTS = [
    # (file, replace this, by this, property that must break)
    ("strb/strb.ta", "define RELAY == t + 1;", "define RELAY == t;", "unforgeability"),
    ("strb/strb.ta", "    t >= f;\n", "", "unforgeability"),             # missing RC conjunct
    ("strb/strb.ta", "    echo == 0;\n", "", "unforgeability"),          # wrong initial constraint
    ("strb/strb.ta", "AC == 0;", "AC <= 1;", "unforgeability"),         # AC may start non-empty
    ("frb/frb.ta", "when (sent + sentf >= 1)", "when (sent + sentf >= 0)", "unforgeability"),
]

ISOLA18_MUTANTS = [
    ("strb.ta", "THRESH1 == T + 1;", "THRESH1 == T;", "unforg"),
    ("strb.ta", "T >= F;", "T >= 0;", "unforg"),
    ("aba.ta", "THRESH2 == T + 1;", "THRESH2 == T;", "unforg"),
    ("bcrb.ta", "THRESH1 == Tb + 1;", "THRESH1 == Tb;", "unforg"),
    ("frb.ta", "locAC == 0;", "", "unforg"),
    ("nbacg.ta", "nsntYesCF >= N", "nsntYesCF >= N - 1", "agreement"),
]


def mutate(text: str, old: str, new: str) -> str:
    assert old in text, f"mutation site {old!r} not found"
    return text.replace(old, new, 1)


def assert_violation_confirmed(ta, prop: str) -> None:
    """Parametric: violated and replayed; explicit at the same parameters: violated too."""
    question = reach_query(ta, next(p for p in ta.properties if p.name == prop))
    assert isinstance(question, ReachQuery)
    result = parametric.check(ta, question)
    assert result.verdict == VIOLATED, result.reason
    cex = result.counterexample
    assert cex.replayed, cex.replay.message
    # Initial values the inits leave unbounded are bounded by --bound in the explicit engine.
    bound = max([0, *dict(cex.initial.shared).values(), *dict(cex.initial.counters).values()])
    again = explicit.check(ta, question, dict(cex.parameters), bound=bound)
    assert again.verdict == VIOLATED, (cex.parameters, again.reason)


@pytest.mark.parametrize("mutant", CORPUS_MUTANTS, ids=lambda m: f"{m[0]}:{m[1].strip()[:20]}")
def test_corpus_mutants_are_caught(mutant):
    file, old, new, prop = mutant
    original = read_ta_file(CORPUS / file).ta
    assert verdicts(CORPUS / file, properties=(prop,))[prop].verdict == HOLDS
    ta = read_ta(mutate((CORPUS / file).read_text(), old, new), "mutant.ta").ta
    assert ta != original
    assert_violation_confirmed(ta, prop)


@pytest.mark.parametrize("mutant", ISOLA18_MUTANTS, ids=lambda m: f"{m[0]}:{m[1][:20]}")
def test_isola18_mutants_are_caught(mutant):
    file, old, new, prop = mutant
    if not (ISOLA18 / file).exists():
        pytest.skip(f"shared ByMC benchmarks not found at {ISOLA18}")
    ta = read_ta(mutate((ISOLA18 / file).read_text(), old, new), "mutant.ta").ta
    assert_violation_confirmed(ta, prop)


# ------------------------------------------------------------------------------ replay honesty


def strb_question():
    ta = read_ta_file(CORPUS / "strb" / "strb.ta").ta
    question = reach_query(ta, ta.properties[0])
    return ta, question


def test_replay_rejects_a_disabled_guard():
    ta, question = strb_question()
    init = Configuration.of({"V0": 3, "V1": 0, "SE": 0, "AC": 0}, {"echo": 0})
    rule = next(i for i, r in enumerate(ta.rules) if r.source == "V0" and r.target == "AC")
    outcome = replay(ta, question, {"n": 4, "t": 1, "f": 1}, init, [Step(rule, 1)])
    assert not outcome.ok and "guard of rule" in outcome.message


def test_replay_rejects_parameters_outside_the_resilience_condition():
    ta, question = strb_question()
    init = Configuration.of({"V0": 3, "V1": 0, "SE": 0, "AC": 0}, {"echo": 0})
    outcome = replay(ta, question, {"n": 3, "t": 1, "f": 0}, init, [])
    assert not outcome.ok and "resilience" in outcome.message


def test_replay_rejects_a_run_that_does_not_violate():
    ta, question = strb_question()
    init = Configuration.of({"V0": 3, "V1": 0, "SE": 0, "AC": 0}, {"echo": 0})
    outcome = replay(ta, question, {"n": 4, "t": 1, "f": 1}, init, [])
    assert not outcome.ok and "does not violate" in outcome.message


def test_replay_checks_every_single_step_of_a_factor():
    path = DATA / "check" / "fall_guard.ta"
    ta = read_ta_file(path).ta
    question = reach_query(ta, ta.properties[0])  # [](B <= 1)
    init = Configuration.of({"A": 3, "B": 0}, {"x": 0})
    outcome = replay(ta, question, {"n": 3}, init, [Step(0, 2)])  # 2 processes through x < 1
    assert not outcome.ok and "step 1" in outcome.message
