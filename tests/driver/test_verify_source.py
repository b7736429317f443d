"""``tactl verify --engine source``: the reference interpreter as one more engine of the
driver. The check-source pass reads the pseudocode itself (no translation), is cached like the
other checks, runs through the same executors, and its verdicts and runs land in the table,
report.json and report.html."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import A4_HEADER, A4_PROPERTIES, CORPUS

STRB = CORPUS / "strb" / "strb.alg"
PARAMS = ("--param", "n=4", "--param", "t=1", "--param", "f=1")

# A4-like (trust-round4): a crashed process keeps its state, so a process that delivers and
# crashes before its relay reaches anyone violates uniform agreement; validity holds.
CRASH = A4_HEADER + """\
loop forever:
  if v == 1:
    delivered := true
    send DATA to all
  upon receiving DATA from at least 1 process:
    v := 1
""" + A4_PROPERTIES


def _verify(cli, tmp_path: Path, *args):
    out = tmp_path / "report"
    r = cli("verify", *args, "--engine", "source", "--report-dir", out,
            "--cache-dir", tmp_path / "cache", "--no-progress")
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
    return r, report


def _crash(tmp_path: Path) -> Path:
    path = tmp_path / "crash.alg"
    path.write_text(CRASH, encoding="utf-8")
    return path


def test_strb_holds_then_hits_the_cache(cli, tmp_path):
    r, report = _verify(cli, tmp_path, STRB, *PARAMS)
    assert r.code == 0, r.out + r.err
    rows = [line.split() for line in r.out.splitlines() if line.startswith("strb ")]
    assert [(row[1], row[3], row[-4], row[-1]) for row in rows] == [
        ("unforgeability", "HOLDS", "source", "miss"), ("correctness", "HOLDS", "source", "miss"),
        ("relay", "HOLDS", "source", "miss")]
    [alg] = report["algorithms"]
    assert alg["engine"] == "source" and alg["parameters"] == {"n": 4, "t": 1, "f": 1}
    assert {p["name"]: (p["verdict"], p["engine"]) for p in alg["properties"]} == {
        "unforgeability": ("holds", "source"), "correctness": ("holds", "source"),
        "relay": ("holds", "source")}
    assert all("every run explored" in p["scope"] and p["vacuity"]["status"] == "not vacuous"
               for p in alg["properties"])
    assert {p["pass"] for p in alg["passes"]} == {"check-source"}  # no translation ran
    again, report = _verify(cli, tmp_path, STRB, *PARAMS)
    assert again.code == 0
    assert [p["cache"] for p in report["algorithms"][0]["properties"]] == ["hit"] * 3
    assert report["cache"]["hits"] == 3 and report["cache"]["misses"] == 0


def test_a_violation_carries_the_interpreters_run(cli, tmp_path):
    r, report = _verify(cli, tmp_path, _crash(tmp_path), "--param", "n=3", "--param", "t=1",
                        "--param", "f=1", "-j", "2")
    assert r.code == 1, r.out + r.err
    assert "uniform_agreement VIOLATED at n=3, t=1, f=1, by this run of the program:" in r.out
    assert '"delivered := true", and crashes there' in r.out
    props = {p["name"]: p for p in report["algorithms"][0]["properties"]}
    assert props["validity"]["verdict"] == "holds"
    bad = props["uniform_agreement"]
    assert bad["verdict"] == "violated" and bad["engine"] == "source"
    assert bad["details"]["valuation"] == {"n": 3, "t": 1, "f": 1} and bad["details"]["replayed"]
    assert any("crashes there" in line for line in bad["details"]["source_run"])
    assert bad["details"]["source_run"][-1].startswith("replayed: ")
    page = (tmp_path / "report" / "report.html").read_text()
    assert "run of the program at n=3, t=1, f=1 (reference interpreter)" in page
    assert "crashes there" in page
    assert report["exit_code"] == 1


def test_missing_parameters_are_bad_input(cli, tmp_path):
    r, report = _verify(cli, tmp_path, STRB, "--param", "n=4", "--param", "t=1")
    assert r.code == 2
    assert "give every parameter with --param (missing: f)" in r.err
    assert "strb.alg:" in r.err and "^" in r.err
    assert report["algorithms"][0]["properties"] == []


def test_an_automaton_has_no_program_to_interpret(cli, tmp_path):
    r, report = _verify(cli, tmp_path, CORPUS / "strb" / "strb.rta", *PARAMS)
    assert r.code == 3
    props = report["algorithms"][0]["properties"]
    assert props and all(p["verdict"] == "unsupported" and p["engine"] == "source"
                         and p["reason"].startswith("no source program to interpret") for p in props)
    assert "HOLDS" not in r.out


def test_emit_is_refused_with_the_source_engine(cli, tmp_path):
    r, _ = _verify(cli, tmp_path, STRB, *PARAMS, "--emit", "promela")
    assert r.code == 2 and "--engine source translates nothing" in r.err
