"""Liveness of a Parametric Promela file under the file's own ``ltl fairness`` (the default verdict,
tactl/driver/file_reading.py) and under tactl's derived justice, shown beside it when they differ.

tests/data/promela/two_phase.pml is ours: a cut-down Bracha agreement where, under the file's
fairness, a process that received every message in the step that took it to EC may stop there for
good, and the others wait at RD for one ready message too few (ByMC's counterexample to ``corr``
of asyn-byzagreement0.pml, at the smallest size). With ``-D NOFAULTS`` (F == 0) no process can
have its own echo before sending it, and both readings hold.

ByMC's files are read from ``$TACTL_FTB`` (an extraction of konnov/fault-tolerant-benchmarks, as
tactl/bench/bymc_promela.py reads it) and the tests that need them skip when they are absent; the
one test that runs ByMC skips without it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import SHARED_BENCHMARKS, report_properties
from tactl.bench.bymc_promela import ftb_root
from tactl.bench.peers import bymc_binary, run_bymc
from tactl.driver.file_reading import reading_of, valuations
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.file_fairness import unfold
from tactl.ir.expr import Always, Eventually, Implies, to_text

TWO_PHASE = Path(__file__).parent.parent / "data" / "promela" / "two_phase.pml"
FTB = ftb_root()
THREE = [("cav15/promela/aba-asyn-byzagreement0.pml", "corr"), ("concur14/asyn-byzagreement0.pml", "corr")]


def _untimed(text: str) -> str:
    return re.sub(r"\d+\.\d+ s", "T s", text)


def _check_json(cli, path: Path, *args: str) -> dict:
    r = cli("check", path, "--json", *args)
    assert r.code in (0, 1, 3), r.err
    return report_properties(json.loads(r.out))


def test_readings_differ_the_files_is_the_verdict(cli):
    corr = _check_json(cli, TWO_PHASE)["corr"]
    assert corr["verdict"] == "violated"
    details = corr["details"]
    assert details["assumption"] == "the file's fairness"
    assert details["other_reading"] == {"assumption": "derived justice", "verdict": "holds", "reason": None}
    assert details["instance"] == {"N": 4, "T": 1, "F": 1}
    # the run: one process stopped at EC with every message, two wait at RD with 2 < 2T + 1 readies
    assert details["file_run"][-2] == ("forever after: 1 at EC (nsnte: 3, nsntr: 2 received), "
                                       "2 at RD (nsnte: 3, nsntr: 2 received)")
    assert "under the file's fairness (line 61: ltl fairness" in corr["reason"]
    assert corr["reason"].endswith("under tactl's derived justice (a process whose rule stays enabled takes it): HOLDS")


def test_text_report_names_both_assumptions(cli):
    r = cli("check", TWO_PHASE)
    assert r.code == 1
    assert "corr  liveness       VIOLATED" in r.out
    assert "under the file's fairness" in r.out and "under tactl's derived justice" in r.out
    assert "forever after: 1 at EC" in r.out
    assert "liveness is checked under the file's formula" in r.err  # the fairness note says so


def test_readings_agree_output_is_the_derived_ones(cli, monkeypatch):
    both = cli("check", TWO_PHASE, "-D", "NOFAULTS")
    assert both.code == 0 and "HOLDS" in both.out and "file's fairness" not in both.out
    # byte for byte what the derived justice alone reports
    import tactl.driver.file_reading as fr

    monkeypatch.setattr(fr, "second_reading", lambda *a, **k: None)
    derived = cli("check", TWO_PHASE, "-D", "NOFAULTS")
    assert _untimed(derived.out) == _untimed(both.out)


def test_the_run_is_replayed_under_the_file_fairness():
    loaded = load_automaton(TWO_PHASE)
    reading = reading_of(loaded)
    assert reading is not None
    assert to_text(reading.stays["EC"]) == "!(received(nsnte) >= 2 * T + 1 || received(nsntr) >= T + 1)"
    assert "V1" not in reading.stays  # every step at V1 moves: no process waits there by stepping
    instance = unfold(reading.rta, reading.translation, reading.fairness, {"N": 4, "T": 1, "F": 1})
    corr = next(p for p in instance.ta.properties if p.name == "corr")
    assert isinstance(corr.formula, Implies) and isinstance(corr.formula.left, Eventually) \
        and isinstance(corr.formula.left.arg, Always)  # the file's fairness is in the formula replayed
    [r] = check_automaton(instance.ta, "two_phase", CheckOptions(engine="explicit", properties=("corr",),
                                                                 parameters={"N": 4, "T": 1, "F": 1})).results
    assert r.verdict == "violated" and r.counterexample.replayed


def test_no_run_without_faults_and_the_proof_is_parametric():
    """F == 0: the file's reading holds for every parameter (the over-approximation is proved)."""
    reading = reading_of(load_automaton(TWO_PHASE, defines=("NOFAULTS",)))
    instance = unfold(reading.rta, reading.translation, reading.fairness, {"N": 4, "T": 1, "F": 0})
    [r] = check_automaton(instance.ta, "two_phase", CheckOptions(engine="explicit", properties=("corr",),
                                                                 parameters={"N": 4, "T": 1, "F": 0})).results
    assert r.verdict == "holds"


def test_valuations_fewest_processes_first():
    loaded = load_automaton(TWO_PHASE)
    reading = reading_of(loaded)
    env = reading.translation.environment
    first = valuations(tuple(reading.translation.ta.parameters), reading.translation.ta.assumptions, env.processes)
    assert first[:2] == [{"N": 4, "T": 1, "F": 1}, {"N": 4, "T": 1, "F": 0}]


def test_verify_gives_the_same_reading_from_its_cache(cli, tmp_path):
    shutil.copy(TWO_PHASE, tmp_path / "two_phase.pml")
    runs = []
    for _ in range(2):
        r = cli("verify", tmp_path / "two_phase.pml", "--report-dir", tmp_path / "rep",
                "--cache-dir", tmp_path / "cache")
        assert r.code == 1, r.err
        doc = json.loads((tmp_path / "rep" / "report.json").read_text())
        runs.append(json.dumps(doc, sort_keys=True))
        assert "under the file&#39;s fairness" in (tmp_path / "rep" / "report.html").read_text()
    assert "the file's fairness" in runs[0] and "derived justice" in runs[0]
    assert "forever after: 1 at EC" in runs[1]


@pytest.mark.parametrize("name,prop", THREE)
def test_bymc_counterexamples_are_the_files_reading(cli, name, prop):
    path = FTB / name
    if not path.is_file():
        pytest.skip(f"{name} not found under {FTB} (set TACTL_FTB)")
    result = _check_json(cli, path, "-p", prop)[prop]
    assert result["verdict"] == "violated"
    assert result["details"]["other_reading"]["verdict"] == "holds"
    assert any(line.startswith("forever after: 1 at EC") for line in result["details"]["file_run"])


def test_cond_consensus_termination_is_vacuous_under_the_files_fairness(cli):
    """cbc: a crash model with both crash counters (passes/pml_to_rta/crash_readings.py). Under the
    file's fairness no fair run starts where the antecedent does (as for the CONCUR'14 and POPL'17
    versions: DMZ discards the phase-0 messages), which is the default verdict; the derived justice's
    HOLDS is shown beside it, as a vacuous pass differs from a proof (ByMC's counterexample there is
    its interval abstraction's: docs/promela.md)."""
    path = FTB / "cav15/promela/cbc-cond-consensus2.pml"
    if not path.is_file():
        pytest.skip(f"{path.name} not found under {FTB} (set TACTL_FTB)")
    result = _check_json(cli, path, "-p", "termination")["termination"]
    assert result["verdict"] == "holds vacuously"
    assert result["details"]["other_reading"]["verdict"] == "holds"


def test_bymc_agrees_on_our_file(tmp_path):
    binary = bymc_binary()
    if binary is None or shutil.which("z3") is None:
        pytest.skip("ByMC is not built (tools/build_bymc.sh)")
    run = run_bymc(binary, TWO_PHASE, "corr", 300)
    assert run.verdict == "violated"


FMCAD13 = SHARED_BENCHMARKS / "bymc-promela" / "fmcad13"


@pytest.mark.skipif(not FMCAD13.is_dir(), reason=f"ByMC's fmcad13 files not found at {FMCAD13}")
def test_fairness_beyond_delivery_is_assumed_too(cli):
    """bcast-clean's fairness also says ``[](some_ri -> <>no_ri)``: RI, which no rule enters, empties
    (J_file's RI == 0); its steps receive one message at a time (no havoc)."""
    reading = reading_of(load_automaton(FMCAD13 / "bcast-clean.pml"))
    assert to_text(reading.fairness.extra) == "[](RI != 0 -> <>(RI == 0))"
    assert reading.fairness.one_per_step == ("nsnt",)
    assert to_text(reading.justice.formula).endswith("&& RI == 0")
    props = _check_json(cli, FMCAD13 / "bcast-clean.pml")
    assert {p: r["verdict"] for p, r in props.items()} == {"relay": "holds", "corr": "holds", "unforg": "holds"}
    assert all("other_reading" not in (r.get("details") or {}) for r in props.values())


@pytest.mark.skipif(not FMCAD13.is_dir(), reason=f"ByMC's fmcad13 files not found at {FMCAD13}")
def test_a_derived_lasso_is_made_a_run_of_the_file():
    """bcast-byz-Nge3T relay: the derived justice's lasso, one process at a time with receive counts,
    replayed with the file's fairness; so the readings agree and the report is the derived one."""
    from tactl.driver.file_reading import _realized

    loaded = load_automaton(FMCAD13 / "bcast-byz-Nge3T.pml")
    [derived] = check_automaton(loaded.ta, "nge3t", CheckOptions(properties=("relay",))).results
    assert derived.verdict == "violated"
    reading = reading_of(loaded)
    ours = _realized(reading, loaded.ta, derived, tuple(m.name for m in reading.rta.messages), derived)
    assert ours is not None and ours.verdict == "violated"
    assert ours.details["instance"] == {p: derived.counterexample.parameters[p] for p in ("N", "T", "F")}
    assert ours.details["file_run"][-1].startswith("  (processes at ")
