"""The file's own fairness for crash models and for steps that receive nothing
(passes/rta_to_ta/crash_fairness.py, passes/pml_to_rta/kept_counts.py).

tests/data/promela/crash/stop.pml is ours, in the style of the Fisman-Kupferman-Lustig broadcast
(a process dies by a step that counts its broadcast in nsntF; tactl's crash(F)): under the file's
fairness a V0 process that has every message may keep stepping in place, so `settle` is violated
there and holds under the derived justice. With -D STUTTER a dead process keeps taking a step that
changes nothing, so a run may go on with only dead processes stepping: `corr` is violated under the
file's fairness by a crash, and holds under the derived justice.

tests/data/promela/crash/no_receive.pml is ours, in the style of NBAC: a process at NO may give up
into GONE by a step that receives nothing, and has no step there. The derived justice's lasso (the
others wait at SEND for the missing vote) is no fair run of the file: the process at GONE never
receives the votes sent, and ByMC's ``in_transit`` ranges over it too.

tests/data/promela/crash/counted.pml is ours, in the style of cond-consensus2: the file counts its
crashes itself (`nfaulty < F`), at any location, and a dead process keeps taking the `else` step.
One process dies and the others are never scheduled: nothing is sent, the run is fair, and
`termination` is violated under the file's fairness (ByMC's run of cond-consensus2's `termination`).

ByMC's files are read from ``$TACTL_FTB`` (tactl/bench/bymc_promela.py); those tests skip when absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import present_or_skip, report_properties
from tactl.bench.bymc_promela import ftb_root
from tactl.driver.file_reading import reading_of
from tactl.driver.inputs import load_automaton
from tactl.engines.file_fairness import unfold
from tactl.ir.expr import to_text
from tactl.passes.rta_to_ta.own_fairness import FileFairness
from tactl.passes.rta_to_ta.zero_counts import surely_zero

DATA = Path(__file__).parent.parent / "data" / "promela" / "crash"
STOP = DATA / "stop.pml"
NO_RECEIVE = DATA / "no_receive.pml"
COUNTED = DATA / "counted.pml"
FTB = ftb_root()


def _check_json(cli, path: Path, *args: str) -> dict:
    r = cli("check", path, "--json", *args)
    assert r.code in (0, 1, 3), r.err
    return report_properties(json.loads(r.out))


def _ftb(name: str) -> Path:
    return present_or_skip(FTB / name, f"{name} not found under {FTB} (set TACTL_FTB)")


def test_a_process_stepping_in_place_is_the_files_run(cli):
    props = _check_json(cli, STOP)
    settle = props["settle"]
    assert settle["verdict"] == "violated"
    assert settle["details"]["assumption"] == "the file's fairness"
    assert settle["details"]["other_reading"]["verdict"] == "holds"
    assert settle["details"]["instance"] == {"N": 2, "F": 0}
    assert "forever after: 1 at AC (nsnt: 1 received), 1 at V0 (nsnt: 1 received)" in settle["details"]["file_run"]
    # a crashed process has no step here, so a run cannot go on with the V1 processes never moving
    assert props["corr"]["verdict"] == "holds" and "other_reading" not in (props["corr"].get("details") or {})


def test_a_crashed_process_that_stutters_keeps_the_run_going(cli):
    corr = _check_json(cli, STOP, "-D", "STUTTER", "-p", "corr")["corr"]
    assert corr["verdict"] == "violated"
    assert corr["details"]["other_reading"]["verdict"] == "holds"
    run = corr["details"]["file_run"]
    assert any("-> CR" in line and "ncrashed 1" in line for line in run), run
    assert run[-2].startswith("forever after:") and "at CR" in run[-2]


def test_the_crash_location_moves_only_where_the_file_lets_it():
    still = reading_of(load_automaton(STOP))
    moving = reading_of(load_automaton(STOP, defines=("STUTTER",)))
    assert still is not None and moving is not None
    assert not still.fairness.crashed_stutter and moving.fairness.crashed_stutter
    assert "CR != 0" not in to_text(still.justice.formula)
    assert "CR != 0" in to_text(moving.justice.formula)


def test_a_step_that_receives_nothing_keeps_the_count():
    reading = reading_of(load_automaton(NO_RECEIVE))
    gone = [r.id for r in reading.rta.rules if r.source == "NO" and r.target == "GONE"]
    assert [reading.fairness.kept_by(k) for k in gone] == [("nsntYes", "nsntNo")]
    inst = unfold(reading.rta, reading.translation, reading.fairness, {"N": 3})
    at_gone = [counts for loc, counts in inst.counts.values() if loc == "GONE"]
    assert at_gone == [(0, 0)]


def test_the_derived_lasso_is_no_run_of_the_file(cli):
    decide = _check_json(cli, NO_RECEIVE)["decide"]
    assert decide["verdict"] == "holds"
    assert decide["details"]["other_reading"]["verdict"] == "violated"
    assert decide["details"]["assumption"] == "the file's fairness"


def test_what_the_front_end_keeps_survives_the_cache():
    fairness = reading_of(load_automaton(STOP, defines=("STUTTER",))).fairness
    doc = json.loads(json.dumps(fairness.to_json()))
    assert FileFairness.from_json(doc) == fairness
    del doc["kept"], doc["crashed_stutter"], doc["crashed_kept"]  # a cache written before them
    assert FileFairness.from_json(doc).kept == ()


@pytest.mark.parametrize("name", ["isola18/promela/frb.pml", "popl17-fmsd17/promela/bcast-folklore-crash.pml"])
def test_fisman_kupferman_lustig_is_bymcs_verdict(cli, name):
    result = _check_json(cli, _ftb(name), "-p", "fisman_kupferman_lustig")["fisman_kupferman_lustig"]
    assert result["verdict"] == "violated"
    assert result["details"]["other_reading"]["verdict"] == "holds"


def test_concur14_folklore_crash_corr_stays_violated(cli):
    result = _check_json(cli, _ftb("concur14/bcast-folklore-crash.pml"), "-p", "corr")["corr"]
    assert result["verdict"] == "violated"


def test_nbac_clean_termination1_is_not_violated_under_the_file(cli):
    """The derived lasso has a process at CRASH_NO, which the file gives no step, with no Yes vote
    received: the file's fairness never holds on it (ByMC: termination1 holds)."""
    result = _check_json(cli, _ftb("popl17-fmsd17/promela/asyn-ray97-nbac-clean.pml"), "-p", "termination1")
    result = result["termination1"]
    assert result["verdict"] != "violated", result
    assert result["details"]["other_reading"]["verdict"] == "violated"


def test_a_file_counting_its_crashes_is_violated_by_one_crash(cli):
    termination = _check_json(cli, COUNTED)["termination"]
    assert termination["verdict"] == "violated"
    assert termination["details"]["other_reading"]["verdict"] == "holds"
    assert termination["details"]["instance"] == {"N": 3, "T": 1, "F": 1}
    assert termination["details"]["file_run"][1].startswith("step 1: 1 process V0 (nsnt: 0 received) -> CR")


def test_counts_that_are_zero_for_good():
    """GONE is entered from NO by a step that receives nothing; YES and NO never receive."""
    reading = reading_of(load_automaton(NO_RECEIVE))
    zero = surely_zero(reading.rta, reading.fairness)
    assert zero["GONE"] == ("nsntYes", "nsntNo") and zero["NO"] == ("nsntYes", "nsntNo")
    assert zero["SEND"] == () and zero["COMMIT"] == ()
    assert "(GONE == 0 || (ns_nsntYes <= 0 && ns_nsntNo <= 0 && " in to_text(reading.justice.formula)


def test_concur14_cond_consensus_termination_is_bymcs_run(cli):
    result = _check_json(cli, _ftb("concur14/cond-consensus2.pml"), "-p", "termination")["termination"]
    assert result["verdict"] == "violated"
    assert result["details"]["other_reading"]["verdict"] == "holds"
    assert "-> CR" in result["details"]["file_run"][1]


def test_popl17_cond_consensus_termination_has_no_fair_run(cli):
    """Its default branch (MAJ < N - T, F == 0): DMZ discards the phase-0 messages, so a process
    past it never holds them again and the file's fairness fails on every run that gets there."""
    result = _check_json(cli, _ftb("popl17-fmsd17/promela/cond-consensus2.pml"), "-p", "termination")
    result = result["termination"]
    assert result["verdict"] == "holds vacuously"
    assert result["details"]["other_reading"]["verdict"] == "violated"
