"""The synthesis bench table (tactl/bench/synthesis.py, opodis17.py, synthesis_bymc.py): ByMC's synthesis
output parsed from small hand-written outputs (tests/data/bymc_synt/), the paper's data file covering
the 14 OPODIS'17 files, the candidate-space count, and the table built from small hand-made JSON."""

from __future__ import annotations

import json

import pytest

from conftest import DATA
from tactl.bench import opodis17, synthesis
from tactl.bench.synthesis import (TactlSynthesis, agreement, build_row, format_rows, parse_tactl, show_solutions,
                                   space_size, thresholds)
from tactl.bench.synthesis_bymc import COMPLETE, ERROR, NO_SOLUTION, STUCK, TIMEOUT, parse_synt, parse_vector
from tactl.ir import read_ta

OUTPUTS = DATA / "bymc_synt"

TINY = """
skel Tiny {
  local pc;
  shared x;
  parameters N, T, F;
  unknowns a, b, c, d;
  define TH == a * N + b * T + c;
  assumptions (0) {
    N > 3 * T; T >= F;
    0 <= a; a <= 1;
    -2 <= b; b <= 2;
    -3 < c; c <= 3;
    a == d; d <= 5;
  }
  locations (0) { A: [0]; B: [1]; }
  inits (0) { A == N - F; B == 0; x == 0; }
  rules (0) {
    0: A -> B when (x >= TH - F) do { x' == x + 1; };
  }
  specifications (0) { safe: [](B == 0); }
}
"""


@pytest.fixture
def tiny():
    return read_ta(TINY).ta


# ------------------------------------------------------------------------------------ ByMC's output

def test_a_finished_search_gives_its_solutions_with_negative_values():
    r = parse_synt((OUTPUTS / "complete.out").read_text())
    assert r.status == COMPLETE
    assert r.solutions == [{"a": 1, "c": -2}, {"a": 0, "c": -3}]
    assert (r.candidates, r.counterexamples, r.stuck_at) == (3, 1, None)


def test_a_stuck_loop_is_no_answer_and_names_the_vector():
    r = parse_synt((OUTPUTS / "stuck.out").read_text())
    assert (r.status, r.solutions, r.candidates) == (STUCK, [], 0)
    assert r.stuck_at == {"a": 0, "c": 0}


def test_no_solution_and_a_killed_run():
    assert parse_synt((OUTPUTS / "none.out").read_text()).status == NO_SOLUTION
    partial = parse_synt((OUTPUTS / "partial.out").read_text(), timed_out=True)
    assert (partial.status, partial.solutions, partial.candidates) == (TIMEOUT, [{"a": 1, "c": 4}], 2)


def test_an_output_without_an_end_is_an_error_with_the_exception():
    r = parse_synt((OUTPUTS / "partial.out").read_text(), "Fatal error: exception Failure(\"Mpi stub\")\n")
    assert r.status == ERROR and "Mpi stub" in r.note


def test_vector_forms_z3_prints():
    assert parse_vector("a1 = 0, b1 = -1, c1 = (- 4), d = (-2)") == {"a1": 0, "b1": -1, "c1": -4, "d": -2}


# ------------------------------------------------------------------------------------ the paper's data

def test_the_published_data_covers_the_14_files_and_cites_or_says_not_found():
    data = opodis17.published()
    assert set(data) == set(opodis17.FILES) and len(opodis17.FILES) == 14
    for entry in data.values():
        assert entry.row.startswith("Table ")
        for figure in (entry.solutions, entry.time):
            # a figure is either "not found" or comes with the place in the paper it was read from
            assert figure == opodis17.NOT_FOUND or "Table" in entry.source, entry
        assert entry.source
    about = json.loads(opodis17.PUBLISHED.read_text())["about"]
    assert "10.4230/LIPIcs.OPODIS.2017.32" in about["paper"] and about["searched"]


def test_without_the_files_the_table_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TACTL_OPODIS17", str(tmp_path))
    assert synthesis.synthesis_table(60) is True
    assert capsys.readouterr().out.strip().splitlines() == [
        f"synthesis table (OPODIS'17) skipped: no .ta files in {tmp_path} "
        "(make opodis17 fetches them, or set TACTL_OPODIS17)"]


# ------------------------------------------------------------------------------------ the space, the cells

def test_space_counts_bounds_strict_bounds_and_equal_unknowns(tiny):
    # a in 0..1 and d == a (d <= 5 adds nothing), b in -2..2, c in -2..3
    assert space_size(tiny) == (2 * 5 * 6, True)


def test_a_constraint_other_than_a_bound_makes_the_count_an_upper_bound():
    ta = read_ta(TINY.replace("a == d;", "a == d; a + b <= 1;")).ta
    size, exact = space_size(ta)
    assert (size, exact) == (60, False)


def test_an_unbounded_unknown_has_no_count():
    assert space_size(read_ta(TINY.replace("-3 < c; c <= 3;", "c <= 3;")).ta) == (None, True)


def test_a_solution_is_shown_as_its_thresholds(tiny):
    assert thresholds(tiny, {"a": 0, "b": 1, "c": -1, "d": 0}) == {"TH": "T - 1"}
    sols = [{"a": 1, "b": -1, "c": 0, "d": 1}, {"a": 0, "b": 1, "c": 1, "d": 0}]
    assert show_solutions(tiny, sols, shown=1) == "T+1; +1 more"
    assert show_solutions(tiny, []) == "none"


# ------------------------------------------------------------------------------------ the table

def _tactl_json(solutions: list[dict[str, int]], complete: bool = True) -> str:
    return json.dumps({"file": "tiny.ta", "unknowns": {}, "complete": complete, "candidates_tried": 7,
                       "time_s": 0.5, "solutions": [{"values": s, "thresholds": {}, "resilience": "",
                                                      "recheck": {}} for s in solutions],
                       "excluded": [{"property": "safe"}] * 4, "undecided": []})


SOL = {"a": 0, "b": 1, "c": 1, "d": 0}
OTHER = {"a": 0, "b": 2, "c": 1, "d": 0}


def _bymc(status: str, solutions: list[dict[str, int]]) -> dict:
    return {"status": status, "solutions": solutions, "candidates": 9, "cpu_s": 12.0}


def test_a_row_from_the_three_sources_agrees_on_equal_sets(tiny, tmp_path):
    tactl = parse_tactl(0, _tactl_json([SOL]))
    assert (tactl.status, tactl.regions, tactl.candidates) == ("complete", 4, 7)
    runs = {"as-built": {"files": {"tiny.ta": _bymc(STUCK, [])}},
            "synt-patch": {"files": {"tiny.ta": _bymc(COMPLETE, [SOL])}}}
    paper = {"tiny.ta": opodis17.Published("tiny.ta", "Table 9, row 9", "not found", "not found", "searched")}
    row = build_row(tmp_path / "tiny.ta", tiny, tactl, runs, paper)
    assert (row.agree, row.bymc_built, row.space) == ("yes", STUCK, "60")
    text = "\n".join(format_rows([row]))
    assert "T+1" in text and "as built: stuck" in text and "Table 9, row 9" in text
    assert "regions 4  candidates 7" in text


def test_a_difference_names_each_side_and_the_run_that_settles_it():
    tactl = parse_tactl(0, _tactl_json([SOL]))
    seen = []

    def explainer(candidate):
        seen.append(candidate)
        return "safe violated at N=4, T=1, F=1 (replayed)"

    text = agreement(tactl, _bymc(COMPLETE, [SOL, OTHER]), explainer)
    assert text.startswith("NO: ByMC only 1, e.g. (0,2,1,0): safe violated at N=4")
    assert seen == [OTHER]


def test_nothing_to_compare_when_either_search_did_not_finish():
    tactl = parse_tactl(0, _tactl_json([SOL]))
    assert agreement(tactl, _bymc(STUCK, []), None) == "- (ByMC stuck)"
    assert agreement(TactlSynthesis("not available"), _bymc(COMPLETE, [SOL])) == "-"
    assert agreement(parse_tactl(3, _tactl_json([SOL], complete=False)), _bymc(COMPLETE, [SOL])) == \
        "yes so far (tactl incomplete)"


def test_an_unreadable_tactl_report_is_an_error():
    assert parse_tactl(2, "Usage: tactl ...").status == "error"
    assert parse_tactl(-9, "", timed_out=True).status == "timeout"


def test_a_search_stopped_at_its_limit_is_compared_only_by_what_it_found():
    tactl = parse_tactl(0, _tactl_json([SOL]))
    assert agreement(tactl, _bymc(TIMEOUT, [SOL])) == \
        "- (ByMC stopped at its limit; its 1 solution(s) so far are among tactl's)"
    assert agreement(tactl, _bymc(TIMEOUT, [])).startswith("- (ByMC stopped at its limit; its 0")
    # a solution ByMC found that tactl's complete search excluded is a disagreement; tactl's extra one is not
    assert agreement(tactl, _bymc(TIMEOUT, [OTHER]), lambda c: "safe violated") == \
        "NO: ByMC only 1, e.g. (0,2,1,0): safe violated"
