"""The file's own fairness for the crash models of passes/pml_to_rta/crash_readings.py: crash-send
counters together with the file's own crash counter (c1cs, cf1s), crash locations that keep state
(nbacr), and steps that change nothing but reset a receive count
(passes/rta_to_ta/crash_copies_fairness.py).

tests/data/promela/crash/both_counters.pml is ours, in the style of c1cs.pml: at most F processes
die (`nfaulty < F`), a death at V0 counts its broadcast in nsntF, and a decided process keeps
stepping with `next_nrcvd = 0`. Under the file's fairness no run goes on for ever once a message
was sent (the decided process holds none of them), so `decide` holds vacuously there and is
violated under the derived justice. With -D KEEP the count is kept and a crash violates `decide`
in both readings; the file's run has the file's own crash step, replayed.

tests/data/promela/crash/kept_state.pml is ours, in the style of nbacr.pml: a crashed process
keeps its failure-detector bit (two crash locations) and has no step; with -D STEP it keeps
stepping. ByMC's files are read from ``$TACTL_FTB``; those tests skip when absent.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import present_or_skip, report_properties
from tactl.bench.bymc_promela import ftb_root
from tactl.driver.file_reading import decide, reading_of
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.file_fairness import unfold
from tactl.ir.expr import to_text
from tactl.passes.rta_to_ta.own_fairness import FileFairness

DATA = Path(__file__).parent.parent / "data" / "promela" / "crash"
BOTH = DATA / "both_counters.pml"
KEPT = DATA / "kept_state.pml"
FTB = ftb_root()


def _ftb(name: str) -> Path:
    return present_or_skip(FTB / name, f"{name} not found under {FTB} (set TACTL_FTB)")


def _file_verdict(path: Path, name: str, defines: tuple[str, ...] = ()):
    loaded = load_automaton(path, defines=defines)
    reading = reading_of(loaded)
    assert reading is not None
    derived = check_automaton(loaded.ta, str(path), CheckOptions(properties=(name,))).results[0]
    return derived, decide(reading, loaded.ta, str(path), name, derived)


def test_both_counters_are_read_and_the_decided_stay_resets():
    reading = reading_of(load_automaton(BOTH))
    assert reading is not None
    assert dict(reading.fairness.stay_zeroed) == {"D": ("nsnt",)}  # CR has no step here
    # a process that keeps stepping at D holds no message: it is fair only if nothing was sent
    assert "(D != 0 && ns_nsnt + nsf_nsnt >= N - T && ns_nsnt <= 0)" in to_text(reading.justice.formula)


def test_a_reset_makes_the_files_fair_runs_stop(cli):
    r = cli("check", BOTH, "--json", "-p", "decide")
    assert r.code in (0, 3), r.err  # 3: a vacuous verdict
    decide_ = report_properties(json.loads(r.out))["decide"]
    assert decide_["verdict"] == "holds vacuously"
    assert decide_["details"]["assumption"] == "the file's fairness"
    assert decide_["details"]["other_reading"]["verdict"] == "violated"


def test_the_reset_is_in_the_files_instance():
    reading = reading_of(load_automaton(BOTH))
    inst = unfold(reading.rta, reading.translation, reading.fairness, {"N": 3, "T": 1, "F": 1})
    at_d = {inst.counts[r.target] for r in inst.ta.rules if inst.counts[r.source][0] == "D"}
    assert at_d == {("D", (0,)), ("CR", (0,))}  # every step at D leaves the count at 0, a crash too
    r = check_automaton(replace(inst.ta, assumptions=()), str(BOTH),
                        CheckOptions(engine="explicit", properties=("decide",),
                                     parameters={"N": 3, "T": 1, "F": 1})).results[0]
    assert r.verdict == "holds vacuously"


def test_the_instance_crashes_as_the_file_does():
    """From every live location, to CR, counting the crash; the one at V0 cuts its broadcast
    short (nsntF), the one at D forgets the count as D's step does."""
    reading = reading_of(load_automaton(BOTH))
    assert reading.fairness.crash_paths == (("V0", ("nsnt",), (), ()), ("S", (), (), ()), ("D", (), (), ("nsnt",)))
    inst = unfold(reading.rta, reading.translation, reading.fairness, {"N": 3, "T": 1, "F": 1})
    crashes = {(inst.counts[r.source][0], tuple(u.var for u in r.updates)) for r in inst.ta.rules
               if inst.counts[r.target][0] == "CR"}
    assert crashes == {("V0", ("ncrashed", "nsf_nsnt")), ("S", ("ncrashed",)), ("D", ("ncrashed",))}


def test_a_crash_violates_decide_when_the_count_is_kept():
    derived, ours = _file_verdict(BOTH, "decide", ("KEEP",))
    assert derived.verdict == "violated" and ours.verdict == "violated"
    assert any("-> CR" in line for line in ours.details["file_run"]), ours.details["file_run"]


def test_crash_locations_that_keep_state_get_the_files_reading():
    reading = reading_of(load_automaton(KEPT))
    assert reading is not None
    assert {loc.name for loc in reading.rta.crash_locations} == {"CR_flag0", "CR_flag1"}
    assert not reading.fairness.crashed_stutter
    assert "CR_flag" not in to_text(reading.justice.formula)
    derived, ours = _file_verdict(KEPT, "termination")
    assert derived.verdict == ours.verdict == "holds"


def test_a_crashed_process_that_steps_keeps_the_run_going():
    reading = reading_of(load_automaton(KEPT, defines=("STEP",)))
    assert reading.fairness.crashed_stutter
    text = to_text(reading.justice.formula)
    assert "CR_flag0 != 0" in text and "CR_flag1 != 0" in text


def test_no_instance_of_a_file_with_crash_locations_that_keep_state():
    """Its file verdict is a proof or UNKNOWN, never a VIOLATED without a run (module docstring
    of passes/rta_to_ta/crash_copies_fairness.py)."""
    reading = reading_of(load_automaton(KEPT))
    assert unfold(reading.rta, reading.translation, reading.fairness, {"N": 2, "F": 1}) is None


def test_the_resets_survive_the_cache():
    fairness = reading_of(load_automaton(BOTH)).fairness
    doc = json.loads(json.dumps(fairness.to_json()))
    assert FileFairness.from_json(doc) == fairness
    del doc["stay_zeroed"]  # a cache written before them
    assert FileFairness.from_json(doc).stay_zeroed == ()


@pytest.mark.parametrize("name", ["isola18/promela/c1cs.pml", "popl17-fmsd17/promela/c1cs.pml",
                                  "isola18/promela/cf1s.pml", "popl17-fmsd17/promela/consensus-folklore-onestep.pml"])
def test_bymcs_one_step_consensus_has_no_fair_run_under_its_fairness(name):
    """F == 0 (the files' default case): every decided process that steps forgets its votes, so
    the file's fairness fails on every infinite run; ByMC: cf1s fast0/fast1 hold."""
    path = _ftb(name)
    derived, ours = _file_verdict(path, "fast0")
    assert derived.verdict == "holds" and ours.verdict == "holds vacuously"


def test_cav15_c1cs_fast0_is_violated_in_both_readings():
    """A V0 process may keep stepping in place below N - T votes (ByMC: violated)."""
    derived, ours = _file_verdict(_ftb("cav15/promela/c1cs.pml"), "fast0")
    assert derived.verdict == ours.verdict == "violated"


@pytest.mark.parametrize("name", ["termination1", "termination2", "nontriv"])
def test_nbacr_holds_under_the_files_fairness(name):
    derived, ours = _file_verdict(_ftb("isola18/promela/nbacr.pml"), name)
    assert derived.verdict == ours.verdict == "holds"
