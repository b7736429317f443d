"""A counterexample of a wide automaton is read step by step: ``check`` prints each step's move and
the counters it changed (old→new) instead of a column per counter, ``-v`` the full table; the HTML
page shows the changes with the full table folded (tactl/report/run_steps.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CORPUS, WIDE_CHAIN, report_properties, wide_ta
from tactl.report.run_steps import WIDE, change_lines, ending, run_changes

N = WIDE_CHAIN
LOCS = [f"waiting_for_message_{i}" for i in range(N)]


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> Path:
    return wide_ta(tmp_path_factory.mktemp("wide"))


def test_check_prints_each_steps_changes_not_a_column_per_counter(cli, wide):
    r = cli("check", wide, "-q")
    assert r.code == 1
    lines = r.out.splitlines()
    steps = [line for line in lines if line.split()[0].isdigit() and line.split()[1][:1] in "ri"]
    assert len(steps) == N and max(len(line) for line in steps) <= WIDE
    assert "30 locations, 1 shared variable: each step with the counters it changed" in r.out
    assert any(line.split() == ["0", "initial", "waiting_for_message_0=1"] for line in lines)
    first = next(line for line in lines if line.strip().startswith("1 "))
    assert first.split() == ["1", "r0", "x1", "waiting_for_message_0", "1→0", "->", "waiting_for_message_1",
                             "0→1", "|", "x", "0→1"]
    last = next(line for line in lines if line.strip().startswith("29 "))
    assert last.endswith("waiting_for_message_29 0→1  <- violation")


def test_verbose_check_keeps_the_table_of_every_counter(cli, wide):
    r = cli("check", wide, "-v", "--no-progress")
    assert r.code == 1
    header = next(line for line in r.out.splitlines() if line.strip().startswith("step  rule"))
    assert all(name in header for name in LOCS) and len(header) > WIDE
    assert "each step with the counters it changed" not in r.out


def test_a_narrow_automaton_keeps_its_table(cli, tmp_path):
    weak = tmp_path / "weak.alg"
    weak.write_text((CORPUS / "strb" / "strb.alg").read_text(encoding="utf-8")
                    .replace("from n - t distinct", "from t + 1 distinct"), encoding="utf-8")
    r = cli("check", weak, "-q", "-p", "relay")
    assert r.code == 1
    assert "step  rule                  factor  v0  v1  accept  sentECHO  |  ns_ECHO" in r.out
    assert "each step with the counters it changed" not in r.out


LASSO = {  # the JSON form of a lasso (tactl/report/property_json.py), as small as it gets
    "parameters": {"n": 2},
    "schedule": [{"rule": "r0", "from": "A", "to": "B", "factor": 2}],
    "cycle": {"steps": [{"rule": "r1", "from": "B", "to": "C", "factor": 1},
                        {"rule": "r2", "from": "C", "to": "B", "factor": 1}]},
    "configurations": [{"locations": {"A": 2, "B": 0, "C": 0}, "shared": {"x": 0}},
                       {"locations": {"A": 0, "B": 2, "C": 0}, "shared": {"x": 2}},
                       {"locations": {"A": 0, "B": 1, "C": 1}, "shared": {"x": 2}},
                       {"locations": {"A": 0, "B": 2, "C": 0}, "shared": {"x": 2}}],
    "loop": None, "violating_step": 1,
}


def test_changes_of_a_lasso_mark_its_cycle_and_violation():
    steps = run_changes(LASSO)
    assert [s.label for s in steps] == ["0", "1", "2*", "3*"]
    assert [s.changes for s in steps] == ["A=2", "A 2→0 -> B 0→2 | x 0→2", "B 2→1 -> C 0→1",
                                          "C 1→0 -> B 1→2"]
    assert [s.violation for s in steps] == [False, True, False, False]
    assert ending(LASSO).startswith("loop: steps marked * repeat forever (configuration 1 comes back")


def test_a_long_run_keeps_its_first_and_last_steps():
    long = {**LASSO, "cycle": None, "schedule": [LASSO["schedule"][0]] * 3,
            "configurations": [LASSO["configurations"][0]] * 4, "violating_step": 3}
    lines = change_lines(long, keep=2)
    assert lines[0].startswith("0") and lines[1] == "... 2 steps left out ..."
    assert lines[2].startswith("3") and lines[2].endswith("<- violation")


def test_the_html_page_shows_the_changes_and_folds_the_full_table(cli, wide, tmp_path):
    out = tmp_path / "report"
    r = cli("verify", wide, "--no-cache", "--no-progress", "--report-dir", out)
    assert r.code == 1
    page = (out / "report.html").read_text(encoding="utf-8")
    assert '<table class="changes">' in page
    assert "waiting_for_message_0 2→0 -&gt; waiting_for_message_1 0→2" in page or \
           "waiting_for_message_0 1→0 -&gt; waiting_for_message_1 0→1" in page
    folded = page[page.index('<details class="every-counter">'):]
    assert '<table class="configurations">' in folded.split("</details>")[0]
    [prop] = report_properties(json.loads((out / "report.json").read_text(encoding="utf-8"))["algorithms"][0]).values()
    assert prop["verdict"] == "violated" and len(prop["counterexample"]["configurations"]) == N


def test_a_narrow_html_counterexample_has_no_folded_table(cli, tmp_path):
    weak = tmp_path / "weak.alg"
    weak.write_text((CORPUS / "strb" / "strb.alg").read_text(encoding="utf-8")
                    .replace("from n - t distinct", "from t + 1 distinct"), encoding="utf-8")
    out = tmp_path / "report"
    assert cli("verify", weak, "--no-cache", "--no-progress", "--report-dir", out, "-p", "relay").code == 1
    page = (out / "report.html").read_text(encoding="utf-8")
    assert '<table class="configurations">' in page and "every-counter" not in page
