"""Synchronous automata in lock-step rounds: the diameter, bounded checking up to it, the
clean-round hypothesis, counterexamples replayed by the lock-step simulator, and the explicit
enumeration of rounds as the oracle (verdicts at small n, t, f; the longest shortest path never
exceeds the computed diameter)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conftest import CORPUS
from tactl.engines import lockstep, lockstep_diameter
from tactl.ir.rta.reader import read_rta
from tactl.engines.lockstep_sim import eccentricity, explicit_verdict, replay
from tactl.passes.rta_to_sync.sync_ta import build

FLOODMIN = (CORPUS / "floodmin" / "floodmin.rta").read_text()
FLOODSET = (CORPUS / "floodset" / "floodset.rta").read_text()
RB = (CORPUS / "rb_sync" / "rb_sync.rta").read_text()
QUEEN = (CORPUS / "phase_queen" / "phase_queen.rta").read_text()
QUEEN_N3T = QUEEN.replace("n > 4 * t;", "n > 3 * t;")  # the queen's threshold needs n > 4t
FLOODMIN_K2 = (CORPUS / "floodmin" / "floodmin_k2.rta").read_text()
# 2-set agreement's property under the 3-set hypothesis (two crashes in the "clean" round)
FLOODMIN_K2_WEAK = FLOODMIN_K2.replace("k2_agreement assuming round with at most 1 crash",
                                       "k3_agreement assuming round with at most 2 crashes")

# mutants: each must turn a holding property into a replayed violation
FLOODMIN_TWO_ZEROS = FLOODMIN.replace("received(M0) >= 1", "received(M0) >= 2").replace(
    "received(M0) < 1", "received(M0) < 2")  # adopts 0 only from two senders: no agreement
RB_TOO_MANY_FAULTS = RB.replace("t >= f;", "t + 1 >= f;")  # f = t + 1 forged ECHOs relay
SMALL = [{"n": 3, "t": 1, "f": 1}, {"n": 4, "t": 2, "f": 2}, {"n": 4, "t": 1, "f": 1}]
SMALL_BYZ = [{"n": 4, "t": 1, "f": 1}, {"n": 5, "t": 1, "f": 1}, {"n": 7, "t": 2, "f": 2}]
SMALL_BYZ_WEAK = [{"n": 4, "t": 1, "f": 2}, {"n": 5, "t": 1, "f": 2}]


def rta(text):
    return read_rta(text).rta


def verdicts(text):
    results, info = lockstep.check_rta(rta(text))
    for r in results:
        if r.verdict == "violated":
            assert r.details["run"], r.name
    return {r.name: r.verdict for r in results}, info


CASES = [
    ("floodmin", FLOODMIN, SMALL, {"validity0": "holds", "validity1": "holds", "agreement": "holds"}, 2),
    ("floodset", FLOODSET, SMALL, {"validity0": "holds", "validity1": "holds", "agreement": "holds"}, 2),
    ("rb_sync", RB, SMALL_BYZ, {"unforgeability": "holds", "no_spontaneous_echo": "holds"}, 2),
    ("phase queen", QUEEN, [{"n": 5, "t": 1, "f": 1}, {"n": 5, "t": 1, "f": 0}],
     {"validity0": "holds", "validity1": "holds", "agreement": "holds"}, 2),
    ("phase queen, n > 3t", QUEEN_N3T, [{"n": 4, "t": 1, "f": 1}],
     {"validity0": "violated", "validity1": "violated", "agreement": "violated"}, None),
    ("floodmin k=2", FLOODMIN_K2, SMALL[:2], {"validity0": "holds", "validity1": "holds",
                                              "validity2": "holds", "k2_agreement": "holds"}, 2),
    ("floodmin k=2, two crashes", FLOODMIN_K2_WEAK, [{"n": 5, "t": 2, "f": 2}],
     {"validity0": "holds", "validity1": "holds", "validity2": "holds", "k3_agreement": "violated"},
     None),
    ("floodmin, two zeros", FLOODMIN_TWO_ZEROS, SMALL, {"validity0": "holds", "validity1": "holds",
                                                        "agreement": "violated"}, None),
    ("rb_sync, f = t + 1", RB_TOO_MANY_FAULTS, SMALL_BYZ_WEAK,
     {"unforgeability": "violated", "no_spontaneous_echo": "violated"}, None),
]


@pytest.mark.parametrize("name, text, instances, expected, diameter", CASES, ids=[c[0] for c in CASES])
def test_parametric_verdicts_agree_with_explicit_rounds(name, text, instances, expected, diameter):
    got, info = verdicts(text)
    assert got == expected
    if diameter is not None:
        assert info["diameter"] == diameter  # as the TACAS'19 synchronous-TA artifact (syncTA) finds: FloodMin, FloodSet, rb: 2
    sta = build(rta(text))
    for params in instances:
        for prop in rta(text).properties:
            spec = lockstep.read_property(sta, prop)
            verdict, run = explicit_verdict(sta, spec, params)
            if expected[prop.name] == "holds":  # holds for all parameters: for each instance too
                assert verdict == "holds", (name, prop.name, params)
            if run is not None:
                assert replay(sta, spec, run).ok
        # the diameter bounds every shortest path from an initial configuration to a phase
        # start; configurations inside a phase take at most phase - 1 rounds more
        assert eccentricity(sta, params, phase_starts_only=True) <= info["diameter"], (name, params)
        assert eccentricity(sta, params) <= info["diameter"] + info["phase"] - 1, (name, params)


def test_a_violation_found_by_enumeration_exists_for_some_instance():
    """The mutants are violated at small instances too (the oracle is not vacuous)."""
    for text, instances, prop in ((FLOODMIN_TWO_ZEROS, SMALL, "agreement"),
                                  (QUEEN_N3T, [{"n": 4, "t": 1, "f": 1}], "agreement"),
                                  (FLOODMIN_K2_WEAK, [{"n": 5, "t": 2, "f": 2}], "k3_agreement"),
                                  (RB_TOO_MANY_FAULTS, SMALL_BYZ_WEAK, "unforgeability")):
        sta = build(rta(text))
        p = next(p for p in rta(text).properties if p.name == prop)
        spec = lockstep.read_property(sta, p)
        found = [explicit_verdict(sta, spec, params)[0] for params in instances]
        assert "violated" in found, (prop, found)


def test_floodmin_agreement_needs_the_clean_round():
    """Without the hypothesis (checked one or more rounds after *any* round) a process crashing
    while it sends 0 splits the others: violated, in lock-step rounds that replay."""
    automaton = rta(FLOODMIN)
    sta = build(automaton)
    spec = lockstep.read_property(sta, automaton.properties[2])
    assert spec.clean_round and spec.min_rounds == 1
    weak = replace(spec, clean_round=False)
    outcome, run, _, _ = lockstep.bmc(sta, weak, 2)
    assert outcome == "violated"
    assert replay(sta, weak, run).ok
    crashing = sum(run.configurations[0][l] for l in sta.crashing)
    assert crashing >= 1  # the split comes from a crash
    assert explicit_verdict(sta, weak, {"n": 3, "t": 1, "f": 1})[0] == "violated"
    assert explicit_verdict(sta, spec, {"n": 3, "t": 1, "f": 1})[0] == "holds"


def test_the_simulator_rejects_a_tampered_run():
    automaton = rta(RB_TOO_MANY_FAULTS)
    sta = build(automaton)
    spec = lockstep.read_property(sta, automaton.properties[0])
    outcome, run, _, _ = lockstep.bmc(sta, spec, 2)
    assert outcome == "violated" and replay(sta, spec, run).ok
    worse = replace(run, parameters={**run.parameters, "f": run.parameters["t"]})  # no longer f > t
    assert not replay(sta, spec, worse).ok


def test_cli_check_selects_lockstep_by_timing_and_prints_rounds(cli, tmp_path):
    r = cli("check", CORPUS / "floodmin" / "floodmin.alg")
    assert r.code == 0, r.err
    assert "diameter 2" in r.out and "assuming clean round" in r.out
    bad = tmp_path / "rb.rta"
    bad.write_text(RB_TOO_MANY_FAULTS)
    r = cli("check", bad, "--json")
    assert r.code == 1
    import json

    doc = json.loads(r.out)
    [unforg] = [p for p in doc["properties"] if p["name"] == "unforgeability"]
    assert unforg["engine"] == "lockstep" and unforg["details"]["run"]["rounds"]
    r = cli("check", bad)
    assert "counterexample in lock-step rounds" in r.out and "replayed by the lock-step simulator" in r.out
    r = cli("check", bad, "--engine", "explicit", "--param", "n=4", "--param", "t=1", "--param", "f=2",
            "--allow-outside-rc")
    assert "VIOLATED" in r.out


def test_a_translated_sync_ta_is_marked_and_refused_by_the_interleaving_engines(cli, tmp_path):
    out = tmp_path / "floodmin.ta"
    assert cli("translate", CORPUS / "floodmin" / "floodmin.rta", "-o", out).code == 0
    assert "timing sync;" in out.read_text()
    r = cli("check", out)
    assert r.code == 3 and "UNSUPPORTED" in r.out and "check the .rta or .alg" in r.out
    js = tmp_path / "floodmin.json"
    assert cli("translate", CORPUS / "floodmin" / "floodmin.rta", "-o", js).code == 0
    assert '"timing": "sync"' in js.read_text()
    assert cli("check", js).code == 3
    again = tmp_path / "again.ta"
    assert cli("fmt", out, "-o", again).code == 0 and "timing sync;" in again.read_text()


def test_incomplete_guards_are_an_input_error(cli, tmp_path):
    path = tmp_path / "gap.rta"
    path.write_text(FLOODMIN.replace("    2: V1 -> V1 when (received(M0) < 1) send M1;\n", "").replace(
        "rules (3)", "rules (2)"))
    r = cli("check", path)
    assert r.code == 2
    assert "synchronous location V1: no rule is enabled when" in r.err and "received(M0)=0" in r.err
    assert "Traceback" not in r.err


def test_sends_that_depend_on_the_rule_are_an_input_error(cli, tmp_path):
    path = tmp_path / "sends.rta"
    path.write_text(FLOODMIN.replace("2: V1 -> V1 when (received(M0) < 1) send M1;",
                                     "2: V1 -> V1 when (received(M0) < 1);"))
    r = cli("check", path)
    assert r.code == 2 and "sends according to its location" in r.err


def test_unsupported_fault_models_and_formulas_say_so(cli, tmp_path):
    path = tmp_path / "omission.rta"
    path.write_text(FLOODMIN.replace("faults crash(f);", "faults omission(f);").replace(" assuming clean round", ""))
    r = cli("check", path)
    assert r.code == 2 and "synchronous send omission" in r.err and ":23:10:" in r.err
    path = tmp_path / "eventually.rta"
    path.write_text(FLOODMIN.replace("agreement assuming clean round: [](V0 == 0 || V1 == 0);",
                                     "agreement assuming clean round: <>(V0 == 0);"))
    r = cli("check", path)
    assert r.code == 3 and "UNSUPPORTED" in r.out


def test_a_k_set_hypothesis_needs_a_crash_model(cli, tmp_path):
    path = tmp_path / "byz.rta"
    path.write_text(RB.replace("no_spontaneous_echo:", "k2_agreement assuming round with at most 1 crash:"))
    r = cli("check", path)
    assert r.code == 2 and "needs crash faults" in r.err and "Traceback" not in r.err


def _chain(length: int, prop: str) -> str:
    """Every process moves one location per round along a chain: the diameter is ``length``."""
    rules = "\n".join(f"    {i}: A{i} -> A{i + 1} send M;" for i in range(length))
    return f"""rta Chain {{
  parameters n, t, f;
  assumptions (3) {{ n > t; t >= f; f >= 0; }}
  faults crash(f);
  timing sync;
  messages M;
  locations {", ".join(f"A{i}" for i in range(length + 1))};
  initial A0;
  rules ({length + 1}) {{
{rules}
    {length}: A{length} -> A{length} send M;
  }}
  specifications (1) {{ {prop} }}
}}
"""


def test_without_a_diameter_the_verdict_is_unknown_and_the_bound_is_stated():
    results, info = lockstep.check_rta(rta(_chain(8, "never_done: [](A8 == 0);")))
    assert info["diameter"] is None
    [r] = results
    assert r.verdict == "unknown"
    assert "no violation within 6 rounds (a bounded result, not a proof)" in r.reason
    assert "no diameter up to 6 rounds" in r.reason
    # a violation within the bound is still found, and replayed
    results, _ = lockstep.check_rta(rta(_chain(8, "early: [](A3 == 0);")))
    assert results[0].verdict == "violated" and len(results[0].details["run"]["rounds"]) == 4
    # with the chain short enough, the diameter is its length and the verdict a proof
    results, info = lockstep.check_rta(rta(_chain(4, "never: [](A0 + A1 + A2 + A3 + A4 >= 0);")))
    assert info["diameter"] == 4 and results[0].verdict == "holds"


def test_phase_queen_agreement_needs_a_correct_queen():
    """Without the hypothesis, a faulty queen sends Q0 to some and Q1 to others: processes with
    a weak majority adopt different values (violated, replayed); with it, agreement holds."""
    automaton = rta(QUEEN)
    sta = build(automaton)
    p = next(p for p in automaton.properties if p.name == "agreement")
    spec = lockstep.read_property(sta, p)
    assert spec.clean_round and spec.coordinator
    assert "coordinator (king or queen) is correct" in lockstep.hypothesis(spec)
    weak = replace(spec, clean_round=False)
    outcome, run, _, _ = lockstep.bmc(sta, weak, 3)
    assert outcome == "violated" and replay(sta, weak, run).ok
    assert explicit_verdict(sta, weak, {"n": 5, "t": 1, "f": 1})[0] == "violated"
    assert lockstep_diameter.phase_length(sta) == 2 and lockstep_diameter.phase_length(build(rta(FLOODMIN))) == 1


def test_the_coordinator_declaration_round_trips_and_is_checked(cli, tmp_path):
    path = CORPUS / "phase_queen" / "phase_queen.rta"
    r = cli("fmt", path)
    assert r.code == 0 and "  coordinator Q0, Q1;" in r.out
    js = tmp_path / "queen.json"
    assert cli("fmt", path, "-o", js).code == 0 and '"coordinator"' in js.read_text()
    assert read_rta(r.out).rta.coordinator == ("Q0", "Q1")
    assert cli("check", js).code == 0
    bad = tmp_path / "bad.rta"
    bad.write_text(QUEEN.replace("coordinator Q0, Q1;", "coordinator Q0, Q9;"))
    r = cli("check", bad)
    assert r.code == 2 and "coordinator message 'Q9' is not declared" in r.err
    bad.write_text(QUEEN.replace("timing sync;", "timing async;"))
    r = cli("check", bad)
    # asynchronous coordinators are one round's (docs/alg.md, "Coordinator messages in
    # asynchronous rounds"): a queen's locations, entered every phase, are refused with the reason
    assert r.code == 2 and "in an asynchronous automaton the coordinator starts there" in r.err
    assert "needs lock-step rounds ('timing sync;')" in r.err


KING = (CORPUS / "phase_king" / "phase_king.rta").read_text()


@pytest.mark.slow
def test_phase_king_holds_and_needs_a_correct_king():
    """About a minute: the diameter query of 16 locations and 78 rules takes 25 s."""
    got, info = verdicts(KING)
    assert got == {"validity0": "holds", "validity1": "holds", "agreement": "holds"}
    assert info["phase"] == 3 and info["diameter"] == 3
    automaton = rta(KING)
    sta = build(automaton)
    p = next(p for p in automaton.properties if p.name == "agreement")
    weak = replace(lockstep.read_property(sta, p), clean_round=False)
    outcome, run, _, _ = lockstep.bmc(sta, weak, 5)
    assert outcome == "violated" and replay(sta, weak, run).ok
    params = {"n": 4, "t": 1, "f": 1}  # the explicit rounds agree, within the diameter
    for prop in automaton.properties:
        spec = lockstep.read_property(sta, prop)
        assert explicit_verdict(sta, spec, params)[0] == "holds", prop.name
    assert eccentricity(sta, params, phase_starts_only=True) <= info["diameter"]
    assert eccentricity(sta, params) <= info["diameter"] + info["phase"] - 1


def test_the_diameter_is_searched_once_per_automaton_whatever_the_time_left():
    """verify checks each property separately, each with the time its --timeout leaves: the
    diameter must not be searched again for every property (phase king: 25 s each)."""
    automaton = rta(FLOODSET)
    first = lockstep_diameter.diameter_of(automaton, {})
    assert lockstep_diameter.diameter_of(rta(FLOODSET), {}) is first
    assert lockstep_diameter.diameter_of(rta(FLOODSET), {"n": 3}) is not first  # --param: its own


def test_no_initial_configuration_holds_only_vacuously(cli, tmp_path):
    """An unsatisfiable resilience condition would make every bounded query UNSAT: vacuous."""
    path = tmp_path / "vacuous.rta"
    path.write_text(FLOODMIN.replace("n > t; t >= f;", "n > t; t > n;"))
    r = cli("check", path)
    verdicts = [line.split()[3:5] for line in r.out.splitlines() if "lock-step safety" in line]
    assert r.code == 3 and verdicts == [["HOLDS", "VACUOUSLY"]] * 3
    assert r.out.count("the resilience condition is unsatisfiable, so the property holds vacuously") == 3


def test_explicit_rounds_need_every_parameter_inside_the_resilience_condition(cli):
    floodmin = CORPUS / "floodmin" / "floodmin.rta"
    r = cli("check", floodmin, "--engine", "explicit", "--param", "n=1", "--param", "t=2", "--param", "f=0")
    assert r.code == 2 and "violate the resilience condition (n > t)" in r.err
    r = cli("check", floodmin, "--engine", "explicit", "--param", "n=3")
    assert r.code == 2 and "missing: t, f" in r.err
