"""tactl/synth/cegis.py against a brute-force oracle: every candidate of a small space checked
one by one with check's machinery must give exactly the solutions the loop finds (regions exclude
no solution), and the command's output, JSON and exit statuses."""

from __future__ import annotations

import itertools
import json

import pytest

from synth_files import DATA, opodis17_files
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY
from tactl.ir.evaluate import holds
from tactl.ir.ta.reader import read_ta_file
from tactl.passes.ta_to_ta.instantiate import instantiate
from tactl.passes.ta_to_ta.lower_division import lower_division
from tactl.synth.cegis import SynthesisOptions, space_points, synthesize
from tactl.synth.result import EMPTY_RC
from tactl.synth.space import candidate_space


def brute_force(ta) -> list[dict[str, int]]:
    """Every candidate of the space under which every property holds, checked one at a time."""
    space = candidate_space(ta)
    found = []
    boxes = [range(lo, hi + 1) for lo, hi in space.bounds.values()]
    for point in itertools.product(*boxes):
        values = dict(zip(space.unknowns, point))
        if not all(holds(c, values) for c in space.constraints):
            continue
        report = check_automaton(lower_division(instantiate(ta, values)), "x.ta", CheckOptions(minimize=False))
        verdicts = {r.verdict for r in report.results}
        assert verdicts <= {HOLDS, HOLDS_VACUOUSLY} or "violated" in verdicts, (values, verdicts)
        if verdicts <= {HOLDS, HOLDS_VACUOUSLY} and report.initial_configurations is not False:
            found.append(values)
    return found


def _key(values: dict[str, int]) -> tuple:
    return tuple(sorted(values.items()))


@pytest.mark.parametrize("name", ["strb_thresholds", "strb_resilience"])
def test_the_solutions_are_those_of_the_brute_force_oracle(name):
    ta = read_ta_file(DATA / f"{name}.ta").ta
    result = synthesize(ta, SynthesisOptions())
    assert result.complete and not result.undecided and not result.problems
    assert sorted(map(_key, (s.values for s in result.solutions))) == sorted(map(_key, brute_force(ta)))
    if name == "strb_thresholds":  # regions do the work: fewer candidates checked than the space has
        assert result.candidates_tried < result.space.size() / 2
    for s in result.solutions:
        assert set(s.recheck.values()) <= {HOLDS, HOLDS_VACUOUSLY}


def test_strb_gives_back_its_thresholds_and_n_gt_3t():
    thresholds = synthesize(read_ta_file(DATA / "strb_thresholds.ta").ta, SynthesisOptions())
    assert {"RELAY": "t + 1", "ACCEPT": "n - t"} in [s.thresholds for s in thresholds.solutions]
    resilience = synthesize(read_ta_file(DATA / "strb_resilience.ta").ta, SynthesisOptions())
    assert sorted(s.values["k"] for s in resilience.solutions) == [3, 4]
    assert "n > 3 * t && t >= f && f >= 0" in [s.resilience for s in resilience.solutions]
    # k = 2 is refuted by a run whose parameters satisfy n > 2t but not n > 3t
    refuted = [e for e in resilience.excluded if e.candidate == {"k": 2}]
    assert refuted and refuted[0].counterexample.parameters["n"] <= 3 * refuted[0].counterexample.parameters["t"]


def test_max_solutions_stops_early(cli):
    result = cli("synthesize", DATA / "strb_resilience.ta", "--max-solutions", "1", "--json")
    doc = json.loads(result.out)
    assert result.code == 3 and doc["complete"] is False and len(doc["solutions"]) == 1


def test_text_and_json(cli):
    text = cli("synthesize", DATA / "strb_resilience.ta")
    assert text.code == 0
    assert "\n  k=3\n" in text.out
    assert "resilience condition: n > 3 * t && t >= f && f >= 0" in text.out
    assert text.out.rstrip().splitlines()[-1].startswith("2 solutions, 2 regions excluded, 4 candidates checked in ")
    doc = json.loads(cli("synthesize", DATA / "strb_resilience.ta", "--json").out)
    assert doc["unknowns"] == {"k": [1, 4]} and doc["complete"] is True
    assert [s["values"] for s in doc["solutions"]] and all(
        set(s["recheck"].values()) == {"holds"} for s in doc["solutions"])
    for e in doc["excluded"]:
        assert {"property", "candidate", "region", "parameters", "counterexample"} <= set(e)
        assert e["counterexample"]["replayed"] is True  # check --json's shape


def test_no_solution_exits_1(cli, tmp_path):
    narrow = tmp_path / "narrow.ta"
    narrow.write_text((DATA / "strb_resilience.ta").read_text().replace("k <= 4;", "k <= 2;"))
    result = cli("synthesize", narrow)
    assert result.code == 1
    assert "no candidate of the space makes every property hold" in result.out


@pytest.mark.skipif(not opodis17_files(), reason="the OPODIS'17 files are not fetched (make opodis17)")
def test_opodis17_example():
    path = next(p for p in opodis17_files() if p.name == "table1-2bcast-byz-ta-synt.ta")
    result = synthesize(read_ta_file(path).ta, SynthesisOptions())
    assert result.complete and not result.problems
    assert sorted(tuple(s.thresholds.values()) for s in result.solutions) == sorted(
        [("T + 1", "N - T"), ("N - 2 * T", "N - T"), ("T + 1", "2 * T + 1")])


def test_timeout_stops_the_search_incomplete(cli):
    result = cli("synthesize", DATA / "strb_thresholds.ta", "--timeout", "0.01")
    assert result.code == 3
    assert "the solution set may be incomplete" in result.out or "timeout" in result.err


def test_region_sizes_are_counted_in_a_small_space():
    result = synthesize(read_ta_file(DATA / "strb_thresholds.ta").ta, SynthesisOptions(recheck=False))
    assert all(e.size is not None and e.size >= 1 for e in result.excluded)
    # the regions and the solutions cover the space
    points = space_points(result.space)
    covered = {_key(p) for p in points if any(holds(e.region, p) for e in result.excluded)}
    assert covered | {_key(s.values) for s in result.solutions} == {_key(p) for p in points}


def test_an_empty_resilience_condition_is_no_solution():
    result = synthesize(read_ta_file(DATA / "empty_rc.ta").ta, SynthesisOptions())
    assert sorted(s.values["k"] for s in result.solutions) == [0, 1]
    empty = sorted(e.candidate["k"] for e in result.excluded if e.kind == EMPTY_RC)
    assert empty == [2, 3]
