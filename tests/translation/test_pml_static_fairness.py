"""The file's own fairness for files whose initialisation sends a message (a *static* counter,
passes/rta_to_ta/static_steps.py): the file need not promise its delivery, so its instance keeps
each process's count of it, and a step that needs it is taken only by a process that has it.

tests/data/promela/init_echo.pml is ours (an initiator, then echoes); ByMC's spin13
bcast-byz-init.pml is read from ``$TACTL_FTB`` when present.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import report_properties
from tactl.bench.bymc_promela import ftb_root
from tactl.driver.file_reading import reading_of
from tactl.driver.inputs import load_automaton
from tactl.engines.file_fairness import unfold
from tactl.ir.expr import names

INIT_ECHO = Path(__file__).parent.parent / "data" / "promela" / "init_echo.pml"
BCAST_BYZ_INIT = ftb_root() / "spin13/parameterized/bcast-byz-init.pml"


def test_the_reading_is_built_with_the_static_count_eliminated_from_the_justice():
    reading = reading_of(load_automaton(INIT_ECHO))
    assert reading is not None
    assert reading.fairness.static.counters == (("nsnt_init", 1),)
    assert not any(n.name.startswith("received(") for n in names(reading.justice.formula))


def test_the_instance_keeps_the_static_count():
    reading = reading_of(load_automaton(INIT_ECHO))
    inst = unfold(reading.rta, reading.translation, reading.fairness, {"N": 4, "T": 1, "F": 1})
    moves = [r for r in inst.ta.rules if inst.counts[r.source][0] == "IT" and inst.counts[r.target][0] == "SE"]
    assert moves
    assert all(inst.counts[r.target][1][-1] == 1 for r in moves)  # only a process that has init echoes


def test_nobody_receiving_init_is_the_files_violation(cli):
    r = cli("check", INIT_ECHO, "--json")
    assert r.code == 1, r.err
    corr = report_properties(json.loads(r.out))["corr"]
    assert corr["verdict"] == "violated"
    assert corr["details"]["other_reading"]["verdict"] == "holds"
    assert corr["details"]["file_run"][0] == "initially: 3 at IT (nsnt_echo: 0, nsnt_init: 0 received)"


def test_bcast_byz_init_corr_is_violated_under_the_files_fairness(cli):
    if not BCAST_BYZ_INIT.is_file():
        pytest.skip(f"{BCAST_BYZ_INIT.name} not found (set TACTL_FTB)")
    r = cli("check", BCAST_BYZ_INIT, "--json")
    assert r.code == 1, r.err
    results = report_properties(json.loads(r.out))
    assert results["corr"]["verdict"] == "violated"
    assert results["corr"]["details"]["other_reading"]["verdict"] == "holds"
    assert results["relay"]["verdict"] == "violated"
