"""``verify`` and ``check`` with the minimisation budget (tactl/engines/budget.py): the note of a
counterexample not shown minimal reaches the table, report.json and report.html; ``--minimize``
is part of the check's cache key, so a budgeted (possibly not minimal) cached counterexample
never answers it. The budget is set to 0 (spent at the verdict), never to a wall-clock bound."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS, report_properties
from tactl.driver.verify import VerifyOptions, verify
from tactl.engines import budget

STRB = (CORPUS / "strb" / "strb.ta").read_text()
# relay threshold t + 1 lowered to t: unforgeability violated, smallest valuation n=1, t=0, f=0
RELAY_T = STRB.replace("define RELAY == t + 1;", "define RELAY == t;")
NOTE = "not shown minimal: the minimisation budget was spent"


@pytest.fixture
def no_budget(monkeypatch):
    monkeypatch.setattr(budget, "FLOOR_S", 0.0)
    monkeypatch.setattr(budget, "FACTOR", 0.0)


@pytest.fixture
def mutant(tmp_path):
    path = tmp_path / "relay_t.ta"
    path.write_text(RELAY_T)
    return path


def _check(run):
    [a] = run.algorithms
    [(verdict, cache)] = [(v, c) for v, c in a.verdicts if v.result.name == "unforgeability"]
    [record] = [r for r in a.records if r.name == "check" and r.subject == "unforgeability"]
    assert record.cache == cache
    return verdict.result, cache


def test_minimize_is_never_served_a_budgeted_cached_counterexample(no_budget, tmp_path, mutant):
    def run(**kw):
        return _check(verify([mutant], VerifyOptions(("unforgeability",), cache_dir=tmp_path / "cache",
                                                     report_dir=tmp_path / "report", **kw)))

    budgeted, cache = run()
    assert cache == "miss" and NOTE in budgeted.counterexample.minimality
    again, cache = run()
    assert cache == "hit" and again.counterexample.minimality == budgeted.counterexample.minimality
    full, cache = run(minimize=True)
    assert cache == "miss", "a --minimize run must not read the budgeted entry"
    assert full.counterexample.parameters_minimal and full.counterexample.schedule_shortest
    assert full.counterexample.parameters == {"n": 1, "t": 0, "f": 0}
    cached_full, cache = run(minimize=True)
    assert cache == "hit" and cached_full.counterexample.parameters_minimal


def test_the_note_is_in_report_json_and_html(no_budget, cli, tmp_path, mutant):
    report = tmp_path / "report"
    r = cli("verify", mutant, "--no-cache", "--report-dir", report, "-p", "unforgeability")
    assert r.code == 1, r.err
    doc = json.loads((report / "report.json").read_text())
    [prop] = [p for a in doc["algorithms"] for p in a["properties"] if p["name"] == "unforgeability"]
    minimal = prop["counterexample"]["minimal"]
    assert minimal["parameters"] is False and minimal["note"].startswith(NOTE)
    assert "--minimize for the full search" in (report / "report.html").read_text()


def test_check_text_json_and_minimize(no_budget, cli, mutant):
    text = cli("check", mutant, "-p", "unforgeability")
    assert text.code == 1 and NOTE in text.out and "--minimize for the full search" in text.out
    doc = cli("check", mutant, "-p", "unforgeability", "--json")
    [prop] = report_properties(json.loads(doc.out)).values()
    assert prop["counterexample"]["minimal"]["note"].startswith(NOTE)
    full = cli("check", mutant, "-p", "unforgeability", "--minimize", "--json")
    [prop] = report_properties(json.loads(full.out)).values()
    assert prop["counterexample"]["parameters"] == {"n": 1, "t": 0, "f": 0}
    assert prop["counterexample"]["minimal"]["parameters"] is True
    assert "not shown" not in prop["counterexample"]["minimal"]["note"]


def test_verify_minimize_from_the_command_line(no_budget, cli, tmp_path, mutant):
    report = tmp_path / "report"
    r = cli("verify", mutant, "--minimize", "--no-cache", "--report-dir", report, "-p", "unforgeability")
    assert r.code == 1, r.err
    doc = json.loads((report / "report.json").read_text())
    [prop] = [p for a in doc["algorithms"] for p in a["properties"] if p["name"] == "unforgeability"]
    assert prop["counterexample"]["parameters"] == {"n": 1, "t": 0, "f": 0}
    assert prop["counterexample"]["minimal"] == {**prop["counterexample"]["minimal"], "parameters": True,
                                                 "schedule": True}
