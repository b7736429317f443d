"""The SMV back end (``passes/emit/smv.py``) and the NuSMV engine (``tactl/engines/nusmv.py``).

* the emitted model: byte-for-byte reproducible, commented, sound bounded ranges (and a clear
  refusal where none is sound), parameters fixed / FROZENVAR up to a bound / unbounded;
* the cross-check: on small instances of every corpus automaton, the ISOLA'18 files and some
  mutants, NuSMV's verdict equals the explicit engine's for every property, and every NuSMV
  counterexample is replayed by tactl's simulator;
* honesty: deadlocks (a finite run refutes safety, never liveness), BMC never says "holds",
  a trace that does not replay is unknown, a crash or timeout is unknown, a missing NuSMV is a
  clean CheckerMissing.

Tests that run NuSMV skip, saying so loudly, when it is not installed (``make tools`` builds it).
"""

from __future__ import annotations

import itertools
import re
import stat
from functools import cache
from pathlib import Path

import pytest

from conftest import CORPUS, DATA, GUARD_S, isola18_files
from tactl.engines import checkers
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.checkers import CheckerMissing
from tactl.engines import nusmv
from tactl.engines.explicit import DEFAULT_BOUND
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, VIOLATED
from tactl.driver.inputs import load_automaton
from tactl.ir.eltl.formula import FormulaClass, TemporalQuery, temporal_query
from tactl.ir.evaluate import holds
from tactl.ir.expr import disj
from tactl.ir.ta.reader import read_ta
from tactl.passes.emit.smv import SmvError, build_smv, emit_smv, initial_exists

NUSMV_MISSING = (
    "NuSMV IS NOT INSTALLED: the NuSMV cross-checks did NOT run (build it with 'make tools', "
    "which runs tools/build_nusmv.sh into ~/.cache/tactl/nusmv, or set TACTL_NUSMV)")
needs_nusmv = pytest.mark.skipif(checkers.nusmv() is None, reason=NUSMV_MISSING)

STRB = CORPUS / "strb" / "strb.ta"
FRB = CORPUS / "frb" / "frb.ta"
STRB_PARAMS = {"n": 4, "t": 1, "f": 1}


@cache
def load(path: Path | str):
    return load_automaton(path).ta


@cache
def loaded(path: Path | str):
    return load_automaton(path)


def automaton(text: str):
    return read_ta(text, "test.ta").ta


def mutant(path: Path, old: str, new: str):
    text = path.read_text()
    assert old in text, old
    return automaton(text.replace(old, new))


def query(ta, name: str) -> TemporalQuery:
    q = temporal_query(ta, next(p for p in ta.properties if p.name == name))
    assert isinstance(q, TemporalQuery), q
    return q


# ------------------------------------------------------------------------- the emitted text


def test_emitted_text_is_reproducible_and_commented():
    ta = load(STRB)
    text = emit_smv(ta, parameters=STRB_PARAMS, source="corpus/strb/strb.ta")
    again = emit_smv(load_automaton(STRB).ta, parameters=dict(reversed(STRB_PARAMS.items())),
                     source="corpus/strb/strb.ta")
    assert text == again
    assert text.startswith("-- STRB: the counter system of a threshold automaton")
    assert not re.search(r"20\d\d-\d\d-\d\d|\d\d:\d\d:\d\d", text)  # no time stamps
    # a comment naming every rule and property it comes from
    assert "-- rule 0: V1 -> SE when (true) do { echo += 1 }" in text
    assert "-- rule 4: SE -> AC when (echo >= ACCEPT - f)" in text
    assert "-- property unforgeability (reachability): V1 == 0 -> [](AC == 0)" in text
    assert "-- property relay (liveness):" in text
    # the specifications, exactly as designed
    assert "INVARSPEC NAME unforgeability := init_unforgeability -> AC = 0;" in text
    assert "INIT init_unforgeability <-> (V1 = 0);" in text
    assert "LTLSPEC NAME relay := G (rule != stutter) -> (F (G (V1 = 0" in text
    # the model: fixed parameters, macros, one counter per location, sound ranges with reasons
    assert "  n := 4;" in text and "  RELAY := t + 1;  -- define RELAY == t + 1" in text
    assert "  V0 : 0..3;  -- location V0" in text
    assert ("  echo : 0..3;  -- shared variable echo: <= 0 initially + 3 processes x 1 (the most "
            "one process's path through the rule graph adds to echo)") in text
    assert "  rule : {none, stutter, r0, r1, r2, r3, r4, r5, r6, r7};" in text
    assert "TRANS next(rule) = r1 -> V0 >= 1 & echo >= RELAY - f;" in text
    assert "TRANS next(V0) = case" in text and "next(rule) in {r1, r2} : V0 - 1;" in text


def test_keywords_and_clashes_are_renamed_stably():
    ta = automaton("""
    skel K {
      shared G, rule;
      parameters T, F;
      assumptions (1) { T >= F; }
      locations (2) { A: [0]; r0: [1]; }
      inits (4) { A == T; r0 == 0; G == 0; rule == 0; }
      rules (2) {
        0: A -> r0 when (G >= F) do { G' == G + 1; unchanged(rule); };
        1: r0 -> r0 when (true) do { unchanged(G, rule); };
      }
      specifications (1) { safe: [](r0 <= T); }
    }""")
    text = emit_smv(ta, parameters={"T": 2, "F": 1})
    assert "renamed (SMV keywords or clashes): T is written T_; F is written F_; A is written A_; " \
           "G is written G_; rule is written rule_" in text
    assert "  T_ := 2;" in text and "  rule_ : 0..0;" in text and "  G_ : 0..2;" in text
    assert "  rule : {none, stutter, r0_, r1};" in text  # the location r0 keeps its name
    assert text == emit_smv(ta, parameters={"T": 2, "F": 1})


def test_frozen_parameters_with_the_resilience_condition_and_unbounded_models():
    ta = load(STRB)
    frozen = emit_smv(ta, bound=5)
    assert "FROZENVAR\n  n : 0..5;\n  t : 0..5;\n  f : 0..5;" in frozen
    assert "INVAR\n  n > 3 * t & t >= f & f >= 0;" in frozen
    assert "  V0 : 0..5;" in frozen  # up to 5 processes: n - f with n <= 5
    unbounded = emit_smv(ta, unbounded=True)
    assert "  n : integer;" in unbounded and "  V0 : integer;" in unbounded
    assert "n >= 0 & t >= 0 & f >= 0 & n > 3 * t & t >= f & f >= 0" in unbounded
    assert "INIT V0 >= 0 & V1 >= 0 & SE >= 0 & AC >= 0 & echo >= 0;" in unbounded
    # unbounded models need no finite ranges: an incrementing self-loop is fine there
    counter = read_ta((DATA / "check" / "self_loop_counter.ta").read_text(), "x.ta").ta
    assert "x : integer;" in emit_smv(counter, parameters={"n": 3}, unbounded=True)


def test_shared_bounds_follow_the_longest_path_of_increments():
    ta = automaton("""
    skel Chain {
      shared x, y;
      parameters n;
      assumptions (1) { n >= 1; }
      locations (4) { A: [0]; B: [1]; C: [2]; D: [3]; }
      inits (6) { A == n; B == 0; C == 0; D == 0; x == 0; y <= 2; }
      rules (4) {
        0: A -> B when (true) do { x' == x + 1; unchanged(y); };
        1: B -> C when (true) do { x' == x + 2; y' == y + 1; };
        2: A -> D when (true) do { y' == y + 3; unchanged(x); };
        3: D -> D when (true) do { unchanged(x, y); };
      }
      specifications (1) { s: [](x <= 3 * n); }
    }""")
    model = build_smv(ta, parameters={"n": 2})
    assert model.bounds.processes == 2
    assert model.bounds.growth == {"x": 3, "y": 3}   # A->B->C adds 3 to x; A->D adds 3 to y
    assert model.bounds.shared == {"x": 6, "y": 2 + 2 * 3}


@pytest.mark.parametrize("name, why", [("self_loop_counter.ta", "self-loop"),
                                       ("cycle.ta", "cycle of the rule graph")])
def test_incrementing_cycles_are_refused_in_bounded_models(name, why):
    ta = read_ta((DATA / "check" / name).read_text(), name).ta
    params = {p: 3 for p in ta.parameters}
    with pytest.raises(SmvError, match=why):
        emit_smv(ta, parameters=params)


def test_bad_parameters_are_clear_errors():
    ta = load(STRB)
    with pytest.raises(SmvError, match="violate the resilience condition .*n > 3 \\* t"):
        emit_smv(ta, parameters={"n": 3, "t": 1, "f": 1})
    with pytest.raises(SmvError, match="no value for parameter\\(s\\) f"):
        emit_smv(ta, parameters={"n": 4, "t": 1})
    with pytest.raises(SmvError, match="k is not a parameter"):
        emit_smv(ta, parameters={"n": 4, "t": 1, "f": 1, "k": 2})
    with pytest.raises(SmvError, match="either fixed parameter values, a bound"):
        emit_smv(ta)
    outside = emit_smv(ta, parameters={"n": 3, "t": 1, "f": 1}, allow_outside_rc=True)
    assert "OUTSIDE the resilience condition" in outside
    # the engine refuses them the same way
    with pytest.raises(SmvError, match="violate the resilience condition"):
        nusmv.check(ta, query(ta, "relay"), {"n": 3, "t": 1, "f": 1})


def test_unbounded_initial_values_are_refused_or_capped_with_a_comment():
    ta = automaton("""
    skel Free {
      shared x;
      parameters n;
      assumptions (1) { n >= 1; }
      locations (2) { A: [0]; B: [1]; }
      inits (2) { A == n; B == 0; }
      rules (1) { 0: A -> B when (x >= 1) do { x' == x + 1; }; }
      specifications (1) { s: [](B == 0); }
    }""")
    with pytest.raises(SmvError, match="the inits do not bound the initial value of x"):
        emit_smv(ta, parameters={"n": 2})
    text = emit_smv(ta, parameters={"n": 2}, initial_cap=7)
    assert "INIT x <= 7;  -- x: the inits let it start at any value; capped at 7" in text
    assert "  x : 0..9;" in text


def test_properties_outside_the_fragment_are_left_out_with_the_reason():
    ta = automaton("""
    skel L {
      local v;
      parameters n;
      assumptions (1) { n >= 1; }
      locations (1) { A: [0]; }
      inits (1) { A == n; }
      rules (1) { 0: A -> A when (true) do { }; }
      specifications (2) { ok: [](A == n); bad: [](v == 0); }
    }""")
    text = emit_smv(ta, parameters={"n": 1})
    assert "INVARSPEC NAME ok := A_ = n;" in text
    assert "-- property bad is not emitted: the formula mentions local variables (v)" in text


# --------------------------------------------------------------------------- cross-checks


def candidate_valuations(ta):
    """Valuations with every parameter in 0..7 satisfying the RC: most non-zero parameters
    first, then the smallest."""
    out = []
    for values in itertools.product(range(8), repeat=len(ta.parameters)):
        env = dict(zip(ta.parameters, values))
        if all(holds(ta.expand(a), env) for a in ta.assumptions):
            out.append(((sum(v == 0 for v in values), sum(values)), env))
    return [env for _, env in sorted(out, key=lambda x: x[0])]


def instances(ta, cap: int | None):
    """{valuation: [properties]}: each property at the first candidate valuation where some
    initial configuration satisfies its antecedent (so that neither engine is vacuous)."""
    candidates = candidate_valuations(ta)[:40]
    plan: dict[tuple, list[str]] = {}
    for p in ta.properties:
        q = temporal_query(ta, p)
        if not isinstance(q, TemporalQuery):
            continue
        initial = disj(*(b.initial for b in q.branches))
        chosen = next((env for env in candidates if initial_exists(ta, env, None, cap, (initial,))),
                      candidates[0])
        plan.setdefault(tuple(chosen.items()), []).append(p.name)
    return plan


def cross_check(ta, path: str, cap: int | None = None, fixed: dict[str, int] | None = None,
                expect: dict[str, str] | None = None) -> list[tuple]:
    """NuSMV against the explicit engine on every property; returns the table rows."""
    plan = {tuple(fixed.items()): [p.name for p in ta.properties]} if fixed else instances(ta, cap)
    rows = []
    for valuation, names in plan.items():
        params = dict(valuation)
        report = check_automaton(ta, path, CheckOptions(engine="explicit", parameters=params,
                                                        properties=tuple(names)))
        pairs = [(r, temporal_query(ta, next(p for p in ta.properties if p.name == r.name)))
                 for r in report.results]
        pairs = [(r, q) for r, q in pairs if isinstance(q, TemporalQuery)]
        # one NuSMV run for all of them (check_many); check() itself is what the other tests use
        answers = nusmv.check_many(ta, [q for _, q in pairs], params, initial_cap=cap, timeout_s=GUARD_S)
        for (explicit, q), ours in zip(pairs, answers):
            rows.append((path, params, explicit.name, explicit.verdict, ours.verdict, ours.time_s))
            # tactl check adds the vacuity question to a HOLDS; the engine alone says HOLDS
            seen = HOLDS if explicit.verdict == HOLDS_VACUOUSLY else explicit.verdict
            assert ours.verdict == seen, (path, params, explicit.name, explicit.reason, ours.reason)
            assert ours.engine == "nusmv" and ours.kind == q.kind
            assert ours.formula_class == q.formula_class.value
            if ours.verdict == HOLDS:
                assert "not a proof for all n" in ours.scope
            if ours.verdict == VIOLATED:
                cex = ours.counterexample
                assert cex is not None and cex.replayed, cex and cex.replay.message
                assert cex.parameters == params
                if q.infinite:
                    assert cex.cycle, "a liveness counterexample is a lasso"
            if expect and explicit.name in expect:
                assert ours.verdict == expect[explicit.name], (explicit.name, ours.reason)
    return rows


def _corpus_files():
    files = sorted(CORPUS.glob("*/*.rta")) + sorted(CORPUS.glob("*/*.ta"))
    return [pytest.param(f, id=f"{f.parent.name}/{f.name}") for f in files]


@needs_nusmv
@pytest.mark.parametrize("path", _corpus_files())
def test_nusmv_agrees_with_the_explicit_engine_on_the_corpus(path):
    result = loaded(path)
    if result.not_checkable:
        pytest.skip(f"not checkable by any engine: {result.not_checkable[:60]}")
    rows = cross_check(result.ta, str(path))
    assert rows


def _isola_files():
    files = isola18_files()
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason="shared ByMC benchmarks (ISOLA'18) not found: set TACTL_SHARED"))]
    return [pytest.param(f, id=f.name) for f in files]


@needs_nusmv
@pytest.mark.parametrize("path", _isola_files())
def test_nusmv_agrees_with_the_explicit_engine_on_isola18(path):
    # frb.ta leaves nfaulty's initial value free: both engines cap it at the explicit --bound
    rows = cross_check(load(path), str(path), cap=DEFAULT_BOUND)
    assert rows


@needs_nusmv
def test_mutant_strb_with_n_geq_3t_violates_relay_only():
    ta = mutant(STRB, "n > 3 * t;", "n >= 3 * t;")
    cross_check(ta, "strb_weak", fixed={"n": 3, "t": 1, "f": 1},
                expect={"unforgeability": HOLDS, "correctness": HOLDS, "relay": VIOLATED})


@needs_nusmv
def test_mutant_strb_rta_with_n_geq_3t_violates_relay():
    text = (CORPUS / "strb" / "strb.rta").read_text().replace("n > 3 * t;", "n >= 3 * t;")
    from tactl.ir.rta.reader import read_rta
    from tactl.passes.rta_to_ta.eliminate import translate

    ta = translate(read_rta(text, "strb_weak.rta").rta).ta
    cross_check(ta, "strb_weak.rta", fixed={"n": 3, "t": 1, "f": 1}, expect={"relay": VIOLATED})


@needs_nusmv
def test_mutant_frb_with_a_weak_relay_guard_violates_unforgeability():
    ta = mutant(FRB, "sent + sentf >= 1", "sent + sentf >= 0")
    cross_check(ta, "frb_weak", fixed={"n": 2, "t": 1, "f": 1}, expect={"unforgeability": VIOLATED})


@needs_nusmv
def test_mutant_isola_strb_without_its_rc_bug_fix():
    isola = [f for f in isola18_files() if f.name == "strb.ta"]
    if not isola:
        pytest.skip("shared ByMC benchmarks (ISOLA'18) not found: set TACTL_SHARED")
    ta = mutant(isola[0], "N > 3 * T", "N >= 3 * T")
    cross_check(ta, "isola strb_weak", fixed={"N": 3, "T": 1, "F": 1}, expect={"relay": VIOLATED})


@needs_nusmv
@pytest.mark.parametrize("alg, rule_id", [("aba", 1), ("cc", 4), ("c1cs", 1), ("nbacr", 3),
                                          ("nbacr", 5), ("bosco", 3)])
def test_guard_mutants_agree_and_their_counterexamples_replay(alg, rule_id):
    # A guard replaced by `true`: safety and liveness violations in bigger automata (reachability
    # runs and lassos), each replayed by the simulator inside cross_check.
    import dataclasses

    from tactl.ir.expr import BoolConst

    ta = loaded(CORPUS / alg / f"{alg}.rta").ta
    rules = tuple(dataclasses.replace(r, guard=BoolConst(True)) if r.id == rule_id else r
                  for r in ta.rules)
    rows = cross_check(dataclasses.replace(ta, rules=rules), f"{alg} r{rule_id} guard:=true")
    assert any(nusmv_verdict == VIOLATED for *_, nusmv_verdict, _ in rows)


DEADLOCK = """
skel Dead {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (3) { A: [0]; B: [1]; C: [2]; }
  inits (4) { A == n; B == 0; C == 0; x == 0; }
  rules (3) {
    0: A -> B when (true) do { x' == x + 1; };
    1: B -> C when (x >= n + 1) do { unchanged(x); };
    2: A -> A when (true) do { unchanged(x); };
  }
  specifications (5) {
    live: <>[](A == 0) -> <>(C != 0);
    nested: [](x >= 1 -> [](A != 0));
    boxes: [](A != 0) || [](B == 0);
    prop: A == 0;
    reach: A == n -> [](B < n);
  }
}
"""


@needs_nusmv
def test_deadlocks_end_finite_runs_that_refute_safety_but_never_liveness():
    # Everyone moves A -> B and is stuck there (B -> C never opens, B has no self-loop).
    # live: the only infinite runs loop in A (A != 0 forever), so the justice antecedent fails
    #   on them and the property holds; the finite run ending in B would refute it if it counted
    #   (it must not: a plain stuttering model would report it violated).
    # nested: x >= 1, then A == 0 at the deadlock: violated by a finite run (a model without
    #   stuttering, whose TRANS is not total, would miss it: NuSMV only sees infinite paths).
    ta = automaton(DEADLOCK)
    rows = cross_check(ta, "dead", fixed={"n": 2},
                       expect={"live": HOLDS, "nested": VIOLATED, "boxes": VIOLATED,
                               "prop": VIOLATED, "reach": VIOLATED})
    # ... vacuously: no just run exists at all (tactl check says so)
    assert {row[2]: row[3] for row in rows}["live"] == HOLDS_VACUOUSLY
    classes = {name: query(ta, name).formula_class for name in ("live", "nested", "boxes", "prop", "reach")}
    assert classes == {"live": FormulaClass.LIVENESS, "nested": FormulaClass.NESTED_SAFETY,
                       "boxes": FormulaClass.NESTED_SAFETY, "prop": FormulaClass.PROPOSITIONAL,
                       "reach": FormulaClass.REACHABILITY}
    assert len(rows) == 5


@needs_nusmv
def test_without_an_idle_self_loop_liveness_is_vacuous_not_holds():
    ta = automaton(DEADLOCK.replace("2: A -> A when (true) do { unchanged(x); };", "")
                   .replace("rules (3)", "rules (2)"))
    r = nusmv.check(ta, query(ta, "live"), {"n": 2})
    assert r.verdict == UNKNOWN and "no infinite run" in r.reason
    explicit = check_automaton(ta, "x", CheckOptions(engine="explicit", parameters={"n": 2},
                                                     properties=("live",))).results[0]
    assert explicit.verdict == UNKNOWN


@needs_nusmv
def test_one_run_covers_every_valuation_up_to_a_bound():
    weak = mutant(STRB, "n > 3 * t;", "n >= 3 * t;")
    for ta, expected in ((load(STRB), HOLDS), (weak, VIOLATED)):
        q = query(ta, "relay")
        ours = nusmv.check(ta, q, None, bound=4)
        explicit = check_automaton(ta, "x", CheckOptions(engine="explicit", bound=4,
                                                         properties=("relay",))).results[0]
        assert ours.verdict == explicit.verdict == expected
        if expected == HOLDS:
            assert "each parameter <= 4" in ours.scope
        else:  # the parameters come from NuSMV's trace (FROZENVARs)
            cex = ours.counterexample
            assert cex.replayed and cex.cycle
            assert cex.parameters["n"] >= 3 * cex.parameters["t"]


@needs_nusmv
def test_bmc_finds_violations_but_never_claims_holds():
    weak = mutant(STRB, "n > 3 * t;", "n >= 3 * t;")
    found = nusmv.check(weak, query(weak, "relay"), {"n": 3, "t": 1, "f": 1}, bmc=10)
    assert found.verdict == VIOLATED and found.counterexample.replayed
    assert found.details["method"] == "bmc"
    for name in ("unforgeability", "relay"):
        none = nusmv.check(load(STRB), query(load(STRB), name), STRB_PARAMS, bmc=6)
        assert none.verdict == UNKNOWN
        assert "no counterexample up to 6 steps" in none.reason


@needs_nusmv
def test_details_report_states_bdd_nodes_memory_and_time():
    ta = load(STRB)
    r = nusmv.check(ta, query(ta, "unforgeability"), STRB_PARAMS)
    assert r.verdict == HOLDS
    assert r.details["method"] == "bdd" and r.details["states"] == 72
    assert r.details["bdd_nodes"] > 0 and r.details["memory_kb"] > 0
    assert r.time_s > 0 and "n=4, t=1, f=1" in r.scope


@needs_nusmv
def test_one_run_for_many_properties_gives_what_one_run_each_gives(tmp_path):
    weak = mutant(STRB, "n > 3 * t;", "n >= 3 * t;")
    params = {"n": 3, "t": 1, "f": 1}
    queries = [query(weak, p.name) for p in weak.properties]
    many = nusmv.check_many(weak, queries, params, keep=tmp_path)
    single = [nusmv.check(weak, q, params) for q in queries]
    assert [r.verdict for r in many] == [r.verdict for r in single] == [HOLDS, HOLDS, VIOLATED]
    assert many[2].counterexample.schedule == single[2].counterexample.schedule
    assert many[0].details["properties_in_run"] == 3
    # the model, the command script and NuSMV's output are kept for the user
    assert {"model.smv", "check.cmd", "nusmv.out"} <= {p.name for p in tmp_path.iterdir()}
    assert "check_ltlspec -P relay" in (tmp_path / "check.cmd").read_text()


@needs_nusmv
def test_a_model_without_a_finite_range_is_unsupported_not_guessed():
    ta = read_ta((DATA / "check" / "self_loop_counter.ta").read_text(), "x.ta").ta
    r = nusmv.check(ta, query(ta, "never_done"), {"n": 3})
    assert r.verdict == UNSUPPORTED and "self-loop" in r.reason


# ------------------------------------------------------------------------------- honesty


def _fake_nusmv(tmp_path, monkeypatch, output: str, code: int = 0) -> None:
    script = tmp_path / "NuSMV"
    (tmp_path / "out.txt").write_text(output)
    script.write_text(f"#!/bin/sh\ncat '{tmp_path / 'out.txt'}'\nexit {code}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("TACTL_NUSMV", str(script))


FORGED = """\
@@tactl 0
-- invariant (init_unforgeability -> AC = 0)  is false
-- as demonstrated by the following execution sequence
Trace Description: AG alpha Counterexample
Trace Type: Counterexample
-> State: 1.1 <-
  V0 = 3
  V1 = 0
  SE = 0
  AC = 0
  echo = 0
  rule = none
  init_unforgeability = TRUE
-> State: 1.2 <-
  V0 = 2
  AC = 1
  echo = 1
  rule = r2
@@tactl end
"""


def test_a_trace_that_does_not_replay_is_unknown_never_violated(tmp_path, monkeypatch):
    # rule 2 (V0 -> AC) needs echo >= ACCEPT - f = 2: the forged step is not a run
    _fake_nusmv(tmp_path, monkeypatch, FORGED)
    ta = load(STRB)
    r = nusmv.check(ta, query(ta, "unforgeability"), STRB_PARAMS)
    assert r.verdict == UNKNOWN
    assert "does not replay" in r.reason and "guard of rule 2 is false" in r.reason
    assert r.counterexample is not None and not r.counterexample.replayed


def test_a_crash_of_nusmv_is_unknown(tmp_path, monkeypatch):
    _fake_nusmv(tmp_path, monkeypatch, "Segmentation fault\n", code=139)
    ta = load(STRB)
    r = nusmv.check(ta, query(ta, "relay"), STRB_PARAMS)
    assert r.verdict == UNKNOWN and "NuSMV gave no verdict" in r.reason


def test_a_timeout_of_nusmv_is_unknown(tmp_path, monkeypatch):
    script = tmp_path / "NuSMV"
    script.write_text("#!/bin/sh\nsleep 5\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("TACTL_NUSMV", str(script))
    ta = load(STRB)
    r = nusmv.check(ta, query(ta, "relay"), STRB_PARAMS, timeout_s=0.3)
    assert r.verdict == UNKNOWN and r.reason.startswith("timeout")


def test_a_missing_nusmv_is_a_clean_checker_missing(tmp_path, monkeypatch):
    ta = load(STRB)
    monkeypatch.setenv("TACTL_NUSMV", str(tmp_path / "no-such-NuSMV"))
    with pytest.raises(CheckerMissing) as e:
        nusmv.check(ta, query(ta, "relay"), STRB_PARAMS)
    assert "the model checker 'nusmv' is not installed" in e.value.render()
    monkeypatch.delenv("TACTL_NUSMV")
    monkeypatch.setattr(checkers, "nusmv", lambda: None)
    with pytest.raises(CheckerMissing):
        nusmv.check(ta, query(ta, "relay"), STRB_PARAMS)


def test_trace_parsing_keeps_full_valuations_and_loop_markers():
    out = nusmv.parse_output("""\
-- specification G (x)  is false
-- as demonstrated by the following execution sequence
Trace Description: LTL Counterexample
Trace Type: Counterexample
-> State: 1.1 <-
  a = 1
  b = 0
  rule = none
-> State: 1.2 <-
  a = 0
  rule = r0
-- Loop starts here
-> State: 1.3 <-
  rule = r5
-> State: 1.4 <-
######################################################################
reachable states: 39 (2^5.2854) out of 4860 (2^12.2467)
BDD nodes allocated: 7471
Maximum resident size            =  8116K
""")
    assert out.verdict is False
    assert out.states == [{"a": "1", "b": "0", "rule": "none"}, {"a": "0", "b": "0", "rule": "r0"},
                          {"a": "0", "b": "0", "rule": "r5"}, {"a": "0", "b": "0", "rule": "r5"}]
    assert out.loop_starts == [2]
    assert out.details == {"states": 39, "bdd_nodes": 7471, "memory_kb": 8116}

