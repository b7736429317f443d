"""The file's fairness on automata with cycles through several locations
(passes/rta_to_ta/file_cycles.py): the clause "some process keeps taking steps" admits processes
that go round, and the instance of the file (tactl/engines/file_fairness.py) reads the file's
delivery literally, so a process going round without receiving is not fair.

tests/data/promela/go_round.pml is ours: processes go round A -> B -> A, where no step changes
nothing. Plain, corr is violated by processes that go round with every message; with ``-D UNTIL``
a process with every message can only accept, so corr holds under the file's fairness.
ByMC's NBAC files are read from ``$TACTL_FTB`` and their tests skip when they are absent.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import report_properties
from tactl.bench.bymc_promela import ftb_root
from tactl.driver.file_reading import decide, reading_of
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.file_fairness import unfold
from tactl.ir.expr import BoolConst, Compare, IntConst, Name, disj
from tactl.passes.rta_to_ta import file_fairness

GO_ROUND = Path(__file__).parent.parent / "data" / "promela" / "go_round.pml"
FTB = ftb_root()
NBAC_CLEAN = [("concur14/asyn-ray97-nbac-clean.pml", "nontriv"),
              ("cav15/promela/nbacc-asyn-ray97-nbac-clean.pml", "nontriv"),
              ("popl17-fmsd17/promela/asyn-ray97-nbac-clean.pml", "termination1"),
              ("popl17-fmsd17/promela/asyn-ray97-nbac-clean.pml", "termination2"),
              ("popl17-fmsd17/promela/asyn-ray97-nbac-clean.pml", "nontriv")]


def _decide(path: Path, name: str, defines: tuple[str, ...] = ()):
    loaded = load_automaton(path, defines=defines)
    reading = reading_of(loaded)
    assert reading is not None
    derived = check_automaton(loaded.ta, str(path), CheckOptions(properties=(name,))).results[0]
    return reading, loaded, decide(reading, loaded.ta, str(path), name, derived)


def _explicit_on_instance(reading, path: Path, name: str, values: dict[str, int]):
    inst = unfold(reading.rta, reading.translation, reading.fairness, values)
    assert inst is not None
    return check_automaton(replace(inst.ta, assumptions=()), str(path),
                           CheckOptions(engine="explicit", properties=(name,), parameters=values)).results[0]


def test_going_round_counts_as_taking_steps():
    reading = reading_of(load_automaton(GO_ROUND))
    assert reading.justice.cyclic == frozenset({"A", "B"})
    clauses = reading.justice.formula.args
    assert any(Compare("!=", Name("A"), IntConst(0)) in getattr(c, "args", ()) for c in clauses)


def test_the_literal_clause_would_prove_a_violated_property(monkeypatch):
    """Built as for one-configuration loops ("a location with a stay is occupied"), the file's
    justice excludes the runs that go round, and the engine proves corr; the file has a run,
    replayed, that violates it. With the going-round disjuncts the proof is gone."""
    plain = reading_of(load_automaton(GO_ROUND))
    prop = plain.justice.properties[0]
    assert check_automaton(replace(plain.translation.ta, properties=(prop,)), str(GO_ROUND),
                           CheckOptions()).results[0].verdict == "violated"

    monkeypatch.setattr(file_fairness, "progress", lambda ta, moving: disj(*moving) if moving else BoolConst(False))
    loaded = load_automaton(GO_ROUND)
    naive = reading_of(loaded).justice.properties[0]
    assert check_automaton(replace(loaded.ta, properties=(naive,)), str(GO_ROUND),
                           CheckOptions()).results[0].verdict in ("holds", "holds vacuously")


def test_the_files_run_goes_round():
    reading, _, ours = _decide(GO_ROUND, "corr")
    assert ours.verdict == "violated"
    run = ours.details["file_run"]
    assert run[-1].startswith("steps marked * repeat for ever")
    looped = [line for line in run if line.startswith("step ") and "*" in line.split(":")[0]]
    assert looped and all(" A (" in line or " B (" in line for line in looped)
    # the instance's own verdict at that size: a fair run violates corr
    assert _explicit_on_instance(reading, GO_ROUND, "corr", ours.details["instance"]).verdict == "violated"


def test_going_round_without_receiving_is_not_fair():
    """With -D UNTIL a process goes round only while it lacks messages: the instance reads the
    delivery literally (a per-process reading would let it go round at a count below what was
    sent), so no run violates corr at small sizes, and the file's verdict is no VIOLATED."""
    reading, _, ours = _decide(GO_ROUND, "corr", ("UNTIL",))
    assert ours.verdict == "unknown"
    assert "found no run of the file" in ours.reason
    for values in ({"N": 4, "T": 1, "F": 1}, {"N": 4, "T": 1, "F": 0}, {"N": 5, "T": 1, "F": 1}):
        assert _explicit_on_instance(reading, GO_ROUND, "corr", values).verdict == "holds"


@pytest.mark.parametrize("name,prop", NBAC_CLEAN)
def test_nbac_clean_holds_under_the_files_fairness(cli, name, prop):
    """The properties that were unknown: a parametric proof under the file's justice with the
    going-round clause (termination1 also with the crash reading of passes/rta_to_ta/crash_fairness.py,
    whose crashed process never steps); ByMC says the popl17 ones hold. The explicit engine on the file's instance
    finds no violation at the smallest sizes."""
    path = FTB / name
    if not path.is_file():
        pytest.skip(f"{path.name} not found under {FTB} (set TACTL_FTB)")
    r = cli("check", path, "--json", "-p", prop)
    assert r.code in (0, 1), r.err
    result = report_properties(json.loads(r.out))[prop]
    assert result["verdict"] == "holds", result
    reading = reading_of(load_automaton(path))
    assert reading.justice.cyclic
    for values in ({"N": 2, "T": 0, "F": 0}, {"N": 3, "T": 1, "F": 1}):
        assert _explicit_on_instance(reading, path, prop, values).verdict == "holds"
