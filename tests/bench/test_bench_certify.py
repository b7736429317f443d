"""The certify table's reading of two check reports (tactl/bench/certify.py): what counts as
certified, as a disagreement of cvc5, as a HOLDS no query backs, and as another change."""

from __future__ import annotations

from pathlib import Path

from tactl.bench import certify

PLAIN = {"properties": [{"name": n, "verdict": "holds"} for n in ("a", "b", "c", "d")]
         + [{"name": "e", "verdict": "violated"}]}
CERTIFIED = {"properties": [
    {"name": "a", "verdict": "holds", "certificate": {"queries": 2, "confirmed": 2, "time_s": 0.5}},
    {"name": "b", "verdict": "unknown", "certificate": {"queries": 1, "confirmed": 0, "time_s": 0.1,
                                                        "failure": "cvc5 answered sat on b (query 1 of 1, unsat for z3)"}},
    {"name": "c", "verdict": "unknown", "certificate": {"queries": 0, "confirmed": 0, "time_s": 0.0,
                                                        "failure": "the lockstep engine recorded no SMT query"}},
    {"name": "d", "verdict": "unknown", "reason": "timeout: the --timeout of 1 s passed"},
    {"name": "e", "verdict": "violated"}]}


def test_row_classifies_each_holds(monkeypatch):
    answers = iter([(PLAIN, 1.0, 0.8), (CERTIFIED, 3.0, 2.5)])
    monkeypatch.setattr(certify, "_check", lambda path, timeout_s, *extra: next(answers))
    row = certify.certify_row("x", Path("x.ta"), 10)
    assert (row.properties, row.holds, row.certified, row.queries) == (5, 4, 1, 2)
    assert row.disagreements == ["b"] and row.unrecorded == 1
    assert row.other == ["d: holds -> unknown (timeout: the --timeout of 1 s passed)"]
    assert row.cvc5_s == 0.6 and row.certify_s - row.plain_s == 2.0
    assert (row.plain_cpu, row.certify_cpu) == (0.8, 2.5)


def test_slow_file_is_skipped(monkeypatch):
    monkeypatch.setattr(certify, "_check", lambda path, timeout_s, *extra: (PLAIN, certify.QUICK_S + 1, 1.0))
    row = certify.certify_row("x", Path("x.ta"), 10)
    assert row.failure.startswith("skipped") and row.certified == 0
