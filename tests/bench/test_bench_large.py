"""The large table (tactl/bench/large.py): TACO's copies of ByMC's generated cc cases read from
where ``make taco-generated`` puts them (or ``$TACTL_TACO``), absent ones listed, and the chc
cross-check of a HOLDS in its own column, a contradiction failing the table. The processes are
stood in for by a function that answers like ``tactl check --json``."""

from __future__ import annotations

import json
import resource
from pathlib import Path

from tactl.bench.large import TACO_GENERATED, large_inputs, large_table

# A two-location stand-in for a large file: "safe" holds, "reach" is violated.
SMALL = ("skel Proc { shared x; parameters n; assumptions (1) { n >= 1; } "
         "locations (2) { A: [0]; B: [1]; } inits (3) { A == n; B == 0; x == 0; } "
         "rules (2) { 0: A -> B when (true) do { x' == x + 1; }; 1: B -> B when (true) do { unchanged(x); }; } "
         "specifications (2) { safe: [](x <= n); reach: [](B == 0); } }\n")


def taco_checkout(root: Path, names: tuple[str, ...]) -> Path:
    folder = root / "benchmarks" / "ByMC" / "isola18" / "promela"
    folder.mkdir(parents=True)
    for name in names:
        (folder / name).write_text(SMALL)
    return folder


def test_the_taco_cases_are_read_from_tactl_taco_and_absent_ones_listed(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTL_TACO", str(tmp_path))
    folder = taco_checkout(tmp_path, ("cc_case3.ta",))
    files, absent = large_inputs(tmp_path / "no-shared")
    assert folder / "cc_case3.ta" in files
    assert any("cc_case4.ta (absent)" in line for line in absent)
    assert len([f for f in files if f.name in TACO_GENERATED]) == 1


def answering(verdicts: dict[tuple[str, str], str], asked: list[list[str]]):
    """A stand-in for the bench's process runner: ``tactl check FILE -p P [--engine E] --json``
    answers ``verdicts[(P, E)]`` (E is "" without --engine)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)

    def timed(args: list[str], env: dict) -> tuple[int, str, float, object]:
        asked.append(args)
        prop = args[args.index("-p") + 1]
        engine = args[args.index("--engine") + 1] if "--engine" in args else ""
        doc = {"properties": [{"name": prop, "verdict": verdicts[(prop, engine)]}]}
        return 0, json.dumps(doc), 0.1, usage

    return timed


def test_a_holds_is_cross_checked_by_chc_and_a_violation_is_not(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TACTL_TACO", str(tmp_path))
    monkeypatch.setenv("TACTL_BENCH_LARGE_BEFORE", "0")
    taco_checkout(tmp_path, ("cc_case3.ta",))
    asked: list[list[str]] = []
    timed = answering({("safe", ""): "holds", ("safe", "chc"): "holds", ("reach", ""): "violated"}, asked)
    assert large_table(tmp_path / "no-shared", 10.0, timed) is True
    engines = [(a[a.index("-p") + 1], "--engine" in a) for a in asked]
    assert engines == [("safe", False), ("safe", True), ("reach", False)]
    out = capsys.readouterr().out
    assert "chc holds too on 1 of 1 HOLDS" in out


def test_a_chc_verdict_that_contradicts_fails_the_table(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TACTL_TACO", str(tmp_path))
    monkeypatch.setenv("TACTL_BENCH_LARGE_BEFORE", "0")
    taco_checkout(tmp_path, ("cc_case3.ta",))
    timed = answering({("safe", ""): "holds", ("safe", "chc"): "violated", ("reach", ""): "violated"}, [])
    assert large_table(tmp_path / "no-shared", 10.0, timed) is False
    assert "A VERDICT CHANGED" in capsys.readouterr().out


def test_tactl_bench_large_chc_0_leaves_the_cross_check_out(tmp_path, monkeypatch):
    monkeypatch.setenv("TACTL_TACO", str(tmp_path))
    monkeypatch.setenv("TACTL_BENCH_LARGE_BEFORE", "0")
    monkeypatch.setenv("TACTL_BENCH_LARGE_CHC", "0")
    taco_checkout(tmp_path, ("cc_case3.ta",))
    asked: list[list[str]] = []
    large_table(tmp_path / "no-shared", 10.0, answering({("safe", ""): "holds", ("reach", ""): "violated"}, asked))
    assert not any("--engine" in a for a in asked)


def test_the_bench_runs_the_large_table_end_to_end(tmp_path, monkeypatch, capsys):
    """``python -m tactl.bench --only large`` on one small stand-in file: real ``tactl check``
    processes, timed by the runner the table expects (status, stdout, wall, CPU usage)."""
    import argparse

    from tactl.bench import tables

    monkeypatch.setenv("TACTL_TACO", str(tmp_path))
    monkeypatch.setenv("TACTL_BENCH_LARGE_BEFORE", "0")
    taco_checkout(tmp_path, ("cc_case3.ta",))
    [table] = [t for t in tables.TABLES if t.name == "large"]
    assert table.run(argparse.Namespace(shared=tmp_path / "no-shared", timeout=60.0), tmp_path) is True
    out = capsys.readouterr().out
    assert "cc_case3.ta" in out and "chc holds too on 1 of 1 HOLDS" in out
