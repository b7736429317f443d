"""``tactl verify`` shows what went wrong under its table: each violated property with its
parameter values, a short run and where the whole run is written (tactl/report/verify_runs.py);
``-q`` one line per violation, ``-v`` every step; a run where everything holds adds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, WIDE_CHAIN as N, wide_ta


@pytest.fixture
def weak(tmp_path) -> Path:
    """STRB whose accept threshold is too low: relay is violated by a lasso at n=4, t=1, f=1."""
    path = tmp_path / "weak.alg"
    path.write_text((CORPUS / "strb" / "strb.alg").read_text(encoding="utf-8")
                    .replace("from n - t distinct", "from t + 1 distinct"), encoding="utf-8")
    return path


def _below_table(out: str) -> list[str]:
    lines = out.splitlines()
    counts = next(i for i, line in enumerate(lines) if " violated, " in line and "algorithm" in line)
    return [line for line in lines[counts + 1:] if not line.startswith("reports: ")]


def test_a_violation_is_shown_with_its_parameters_run_and_report(cli, weak, tmp_path):
    report = tmp_path / "report"
    r = cli("verify", weak, "--no-cache", "--no-progress", "--report-dir", report)
    assert r.code == 1
    below = _below_table(r.out)
    assert below[0] == "weak: relay VIOLATED with n=4, t=1, f=1: a lasso of 2 steps:"
    assert below[1].split() == ["0", "initial", "v0=2,", "v1=1"]
    assert below[2].split() == ["1", "r3", "x1", "v1", "1→0", "->", "sentECHO", "0→1", "|", "ns_ECHO", "0→1"]
    assert below[3].endswith("accept 0→1  <- violation: repeats forever")
    assert below[4].strip().startswith("loop: then r1: v0 → v0 forever")
    assert below[5].strip() == f"whole run: {report / 'report.html'}, {report / 'report.json'}"
    assert (report / "report.html").is_file()


def test_quiet_keeps_one_line_per_violation(cli, weak, tmp_path):
    report = tmp_path / "report"
    r = cli("verify", weak, "--no-cache", "-q", "--report-dir", report)
    assert r.code == 1
    assert _below_table(r.out) == [f"weak: relay VIOLATED with n=4, t=1, f=1: a lasso of 2 steps "
                                   f"(whole run: {report / 'report.html'}, {report / 'report.json'})"]


def test_a_long_run_is_cut_short_and_verbose_shows_it_whole(cli, tmp_path):
    wide = wide_ta(tmp_path)
    report = tmp_path / "report"
    r = cli("verify", wide, "--no-cache", "--no-progress", "--report-dir", report)
    below = _below_table(r.out)
    assert below[0] == f"wide: never_last VIOLATED with n=1: a run of {N - 1} steps:"
    assert any("steps left out" in line for line in below)
    assert below[-2].endswith("<- violation") and len(below) < N
    r = cli("verify", wide, "--no-cache", "-v", "--no-progress", "--report-dir", report)
    below = _below_table(r.out)
    assert not any("steps left out" in line for line in below) and len(below) == N + 2


def test_nothing_is_added_when_everything_holds(cli, tmp_path):
    r = cli("verify", CORPUS / "strb" / "strb.ta", "--no-cache", "--no-progress", "--report-dir", tmp_path / "r")
    assert r.code == 0
    assert _below_table(r.out) == []
