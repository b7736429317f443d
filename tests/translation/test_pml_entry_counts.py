"""The counts a process can hold where it is, where a step receives at most one message of each
type (passes/rta_to_ta/entry_counts.py), and the file's justice tightened by them
(tactl/driver/tightened_reading.py).

The claim is checked against the file's instance (tactl/engines/file_fairness.py), which keeps
every process's counts: every local state ``(ℓ, c)`` reachable in it satisfies ``Reach_ℓ(c)``,
while ``Reach`` excludes states the instance's count bounds allow. tests/data/promela/init_branch.pml
is ours; with ``-D BRACHA`` its echo thresholds are Bracha's ``2 * nrcvde >= N + T + 1`` with
N >= 3T + 2 (as ByMC's spin13 ``asyn-byzagreement0.pml``), and ``agreement`` and ``noit`` hold
under the file's fairness only with the bounds; in the plain file ``agreement`` is violated by a
run of the file, bounds or not. ByMC's file is read from ``$TACTL_FTB`` and skipped when absent.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import report_properties, whole_file_justice
from tactl.bench.bymc_promela import ftb_root
from tactl.driver.file_reading import reading_of
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.file_fairness import unfold
from tactl.ir.evaluate import holds
from tactl.ir.rta.model import received
from tactl.passes.rta_to_ta.entry_counts import entry_bounds, held
from tactl.passes.rta_to_ta.static_steps import counted

DATA = Path(__file__).parent.parent / "data" / "promela"
INIT_BRANCH = DATA / "init_branch.pml"
SPIN13 = ftb_root() / "spin13" / "parameterized" / "asyn-byzagreement0.pml"
ENTRY = "a process that enters a location holds at most one message of each type more"


def _covered(path: Path, values: dict[str, int], defines: tuple[str, ...] = ()) -> tuple[int, int]:
    """(local states of the instance reachable from an initial one, combinations of counts up to
    N + F that Reach excludes); asserts that every reachable one satisfies Reach."""
    reading = reading_of(load_automaton(path, defines=defines))
    reach, pre = held(reading.rta, reading.fairness)
    assert reach and pre
    inst = unfold(reading.rta, reading.translation, reading.fairness, values)
    messages = counted(reading.rta, reading.fairness)
    start = {n for n, (loc, c) in inst.counts.items() if loc in reading.rta.initial and not any(c)}
    seen, todo = set(start), list(start)
    while todo:
        here = todo.pop()
        for r in inst.ta.rules:
            if r.source == here and r.target not in seen:
                seen.add(r.target)
                todo.append(r.target)
    for name in seen:
        loc, counts = inst.counts[name]
        assert holds(reach[loc], {**values, **{received(m).name: c for m, c in zip(messages, counts)}}), name
    top = values["N"] + values["F"]
    excluded = sum(1 for loc in reach for cs in itertools.product(range(top + 1), repeat=len(messages))
                   if not holds(reach[loc], {**values, **{received(m).name: c for m, c in zip(messages, cs)}}))
    return len(seen), excluded


@pytest.mark.parametrize("values, defines", [({"N": 4, "T": 1, "F": 1}, ()), ({"N": 4, "T": 1, "F": 0}, ()),
                                             ({"N": 5, "T": 1, "F": 1}, ("BRACHA",))])
def test_every_reachable_state_of_the_instance_is_within_the_bounds(values, defines):
    states, excluded = _covered(INIT_BRANCH, values, defines)
    assert states > 10 and excluded > 0


def test_no_bounds_where_a_step_receives_many():
    reading = reading_of(load_automaton(DATA / "two_phase.pml"))  # havoc: any number per step
    assert entry_bounds(reading.rta, reading.fairness) == {}


def test_bracha_variant_holds_only_with_the_bounds(cli):
    props = report_properties(json.loads(cli("check", INIT_BRANCH, "-D", "BRACHA", "--json").out))
    for name in ("agreement", "noit"):
        assert props[name]["verdict"] == "holds"
        assert ENTRY in props[name]["reason"]
        assert props[name]["reason"].startswith("under the file's fairness (line 79: ltl fairness")
    assert whole_file_justice(INIT_BRANCH, "agreement", ("BRACHA",)) == "violated"  # no proof without them


def test_a_violated_property_stays_violated(cli):
    agreement = report_properties(json.loads(cli("check", INIT_BRANCH, "--json").out))["agreement"]
    assert agreement["verdict"] == "violated" and agreement["details"]["file_run"]
    reading = reading_of(load_automaton(INIT_BRANCH))
    assert entry_bounds(reading.rta, reading.fairness)  # the bounds apply, and prove nothing here


@pytest.mark.slow
@pytest.mark.parametrize("name", ["agreement", "noit"])
def test_the_bracha_instance_agrees(name):
    values = {"N": 5, "T": 1, "F": 1}
    reading = reading_of(load_automaton(INIT_BRANCH, defines=("BRACHA",)))
    inst = unfold(reading.rta, reading.translation, reading.fairness, values)
    r = check_automaton(replace(inst.ta, assumptions=()), str(INIT_BRANCH),
                        CheckOptions(engine="explicit", properties=(name,), parameters=values)).results[0]
    assert r.verdict in ("holds", "holds vacuously")


@pytest.mark.skipif(not SPIN13.exists(), reason="konnov/fault-tolerant-benchmarks not extracted ($TACTL_FTB)")
def test_spin13_agreement(cli):
    assert _covered(SPIN13, {"N": 5, "T": 1, "F": 1})[1] > 0
    props = report_properties(json.loads(cli("check", SPIN13, "--json").out))
    assert {n: p["verdict"] for n, p in props.items()} == {"agreement": "holds", "corr": "holds", "unforg": "holds"}
    assert ENTRY in props["agreement"]["reason"]
