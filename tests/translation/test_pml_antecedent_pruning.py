"""The file's fairness re-checked on the automaton a property's antecedent allows
(passes/rta_to_ta/antecedent_pruning.py, tactl/driver/tightened_reading.py).

tests/data/promela/init_branch.pml is ours: a two-phase agreement whose processes start at IT or
RI, receiving at most one message of each type per step. ``corr`` starts every process at RI;
the file's justice on the whole automaton lets a process be frozen at EC "as having come from IT
with every echo", and proves nothing; without IT's rules it proves corr. ``noit`` asks the same
from any point where IT is empty: processes may have left IT before that point, nothing is
pruned, and the file has a run (replayed) that violates it. Dropping IT's rules there anyway
would prove it: the reachability condition of the pruning is what keeps it sound.

ByMC's spin13 ``asyn-byzagreement0.pml`` is read from ``$TACTL_FTB`` and its test skips when it
is absent.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import report_properties, whole_file_justice
from tactl.bench.bymc_promela import ftb_root
from tactl.driver.file_reading import reading_of
from tactl.passes.rta_to_ta.file_justice_of import justice_of
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.file_fairness import unfold
from tactl.ir.expr import Always, BoolConst, Compare, Eventually, Implies, IntConst, Name, conj
from tactl.ir.ta.model import Location, Rule, ThresholdAutomaton
from tactl.passes.rta_to_ta.antecedent_pruning import Pruning, empty_sources, kept_empty, pruning

INIT_BRANCH = Path(__file__).parent.parent / "data" / "promela" / "init_branch.pml"
SPIN13 = ftb_root() / "spin13" / "parameterized" / "asyn-byzagreement0.pml"


def _empty(loc: str) -> Compare:
    return Compare("==", Name(loc), IntConst(0))


def _chain(*moves: tuple[str, str]) -> ThresholdAutomaton:
    names = sorted({x for m in moves for x in m})
    return ThresholdAutomaton("t", locations=tuple(Location(n) for n in names),
                              rules=tuple(Rule(i, s, t, BoolConst(True)) for i, (s, t) in enumerate(moves)))


def test_a_location_entered_from_outside_is_not_pruned():
    # IT -> EC <- RI, EC -> AC: the antecedent empties IT, EC, AC; EC is entered from RI
    ta = _chain(("IT", "EC"), ("RI", "EC"), ("EC", "AC"))
    assert empty_sources(ta, {"IT", "EC", "AC"}) == {"IT"}
    # IT empty but EC (where IT leads) allowed: processes may have left IT before
    assert empty_sources(ta, {"IT", "AC"}) == set()
    spec = Always(Implies(conj(_empty("IT"), _empty("EC"), _empty("AC")), Eventually(Compare("!=", Name("AC"),
                                                                                              IntConst(0)))))
    cut = pruning(ta, spec)
    assert cut is not None and cut.locations == ("IT",) and cut.rules == (0,)
    assert [(r.source, r.target) for r in cut.apply(ta).rules] == [("RI", "EC"), ("EC", "AC")]


def test_only_conjuncts_that_empty_a_location_count():
    a = conj(_empty("IT"), Compare("!=", Name("AC"), IntConst(0)), _empty("N"))
    assert kept_empty(a, {"IT", "AC"}) == {"IT"}
    # no antecedent, or a temporal one: nothing to prune
    ta = _chain(("IT", "EC"))
    assert pruning(ta, Eventually(_empty("IT"))) is None
    assert pruning(ta, Always(Implies(Eventually(_empty("IT")), _empty("EC")))) is None


def test_corr_is_proved_only_without_its_rules(cli):
    corr = report_properties(json.loads(cli("check", INIT_BRANCH, "--json").out))["corr"]
    assert corr["verdict"] == "holds"
    assert "proved when the rules out of IT are left out (0: IT -> EC, 1: IT -> EC, 6: IT -> IT)" in corr["reason"]
    assert corr["reason"].startswith("under the file's fairness (line 79: ltl fairness")
    assert whole_file_justice(INIT_BRANCH, "corr") == "violated"  # on the whole automaton: no proof


def test_noit_is_not_pruned_and_is_violated_by_a_run_of_the_file(cli):
    noit = report_properties(json.loads(cli("check", INIT_BRANCH, "--json").out))["noit"]
    assert noit["verdict"] == "violated"
    assert noit["details"]["file_run"][0].startswith("initially: 1 at IT")
    loaded = load_automaton(INIT_BRANCH)
    reading = reading_of(loaded)
    prop = next(p for p in reading.justice.properties if p.name == "noit")
    assert pruning(loaded.ta, prop.formula.right) is None
    # pruned anyway (IT is empty where the antecedent holds and no rule enters it), it would be "proved"
    cut = Pruning(prop.formula.right, ("IT",), ())
    translation = replace(reading.translation, ta=cut.apply(reading.translation.ta))
    justice = justice_of(cut.apply_receive(reading.rta), translation, reading.fairness)
    wrong = next(p for p in justice.properties if p.name == "noit")
    assert check_automaton(replace(cut.apply(loaded.ta), properties=(wrong,)), str(INIT_BRANCH),
                           CheckOptions()).results[0].verdict in ("holds", "holds vacuously")


@pytest.mark.parametrize("values", [{"N": 4, "T": 1, "F": 0}, {"N": 4, "T": 1, "F": 1}])
def test_the_files_instance_agrees_on_corr(values):
    reading = reading_of(load_automaton(INIT_BRANCH))
    inst = unfold(reading.rta, reading.translation, reading.fairness, values)
    r = check_automaton(replace(inst.ta, assumptions=()), str(INIT_BRANCH),
                        CheckOptions(engine="explicit", properties=("corr",), parameters=values)).results[0]
    assert r.verdict in ("holds", "holds vacuously")


@pytest.mark.skipif(not SPIN13.exists(), reason="konnov/fault-tolerant-benchmarks not extracted ($TACTL_FTB)")
def test_spin13_corr_holds_under_the_files_fairness(cli):
    r = cli("check", SPIN13, "--json", "--property", "corr")
    corr = report_properties(json.loads(r.out))["corr"]
    assert corr["verdict"] == "holds"
    assert "proved when the rules out of IT are left out (0: IT -> EC, 1: IT -> EC, 6: IT -> IT)" in corr["reason"]
