"""The taco-resets and chc-cross-check bench tables (tactl/bench/resets.py): skipped with one line
without their files, TACO's published figures read from peer_timings.json, and rows that compare
verdicts (tactl's with TACO's, the parametric engine's with the chc engine's)."""

from __future__ import annotations

import shutil

from conftest import CORPUS, DATA
from tactl.bench.resets import cross_check_table, taco_published, taco_table


def test_without_the_files_the_taco_table_is_one_line(tmp_path, capsys):
    assert taco_table(60, directory=tmp_path) is True
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"TACO reset benchmarks table skipped: no .eta files in {tmp_path} (make "
                   "taco-resets fetches them, or set TACTL_TACO to a TACO checkout)"]


def test_taco_published_figures_are_theirs():
    rows, machine = taco_published()
    assert len(rows) == 12 and "SRB.eta" not in rows  # the ETA rows of TACO's table2.ods
    assert rows["phase-king.eta"]["verdict"] == "unsafe" and rows["rb-reset_V1.eta"]["best_s"] == 145.23
    assert "their machine" in machine


def test_a_file_outside_taco_table_is_checked_without_a_comparison(tmp_path, capsys):
    shutil.copy(DATA / "chc" / "reset_violated.ta", tmp_path / "mine.eta")
    assert taco_table(60, directory=tmp_path) is True
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("mine.eta"))
    assert "never_e" in row and "violated" in row and row.rstrip().endswith("-")
    assert "0 of 0 safety properties" in out


def test_cross_check_rows_agree(tmp_path, capsys, monkeypatch):
    shared = tmp_path / "shared"
    (shared / "benchmarks" / "bymc-isola18").mkdir(parents=True)
    shutil.copy(CORPUS / "strb" / "strb.ta", shared / "benchmarks" / "bymc-isola18" / "strb.ta")
    monkeypatch.setenv("TACTL_RANDOM19", str(tmp_path / "none"))
    assert cross_check_table(shared, 60) is True
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("isola18/strb.ta")]
    assert rows and all(line.rstrip().endswith("yes") for line in rows)
    assert f"{len(rows)} of {len(rows)} properties decided by both engines agree" in out
