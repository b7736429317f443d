"""The peers bench table (tactl.bench.peers): parsing ByMC's and tactl's output, the ratio arithmetic,
the wall-clock limit, and the table end to end with a stand-in ByMC (no ByMC needed). One test runs the
real ByMC on ISOLA'18 strb.ta when tools/build_bymc.sh has built it, and skips loudly otherwise."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import pytest

from tactl.bench import peers
from tactl.bench.peers import (ERROR, HOLDS, TIMEOUT, UNKNOWN, UNSUPPORTED, VIOLATED, PeerRow, Run,
                               parse_bymc, parse_tactl, strip_line_comments, summarize)
from tests.conftest import CORPUS, ISOLA18

# What ByMC 2.4.4 prints (abridged from real runs of bymc.native ... --chain post).
BYMC_HOLDS = """    > Running SchemaCheckerLtl (on the fly)...
185758:         > Checking unforg...
        > Spec unforg holds
nschemas = 9, min length = 5, max length = 20, avg length = 12
  Bye!
"""
BYMC_CEX = """185931:         > Checking never...
 >1 >3 >5 END.
      > SLPS: counterexample for never found
  Bye!
"""
BYMC_PARSE_ERROR_STDERR = """185827: Starting the SMT solver z3 -smt2 -in...  PID 9653 DONE

Exception: TaParser.ParseErr("/x/strb.ta:11:24%s: syntax error\\n")

 -----------------------------------------------
Raised at TaParser.parse_input in file "src/taParser.ml", line 37, characters 8-66
"""


# ------------------------------------------------------------------------------------ ByMC's output

def test_bymc_holds_and_counterexample_lines_are_the_verdicts():
    assert parse_bymc(BYMC_HOLDS, "", "unforg", False) == (HOLDS, "")
    assert parse_bymc(BYMC_CEX, "", "never", False) == (VIOLATED, "")


def test_bymc_verdict_of_another_property_does_not_count():
    verdict, note = parse_bymc(BYMC_HOLDS, "", "corr", False)
    assert verdict == ERROR and "no verdict for corr" in note
    # a name that is a prefix of the reported one, or holds regex characters
    assert parse_bymc(BYMC_HOLDS, "", "unfo", False)[0] == ERROR
    assert parse_bymc("        > Spec a.b holds\n", "", "a.b", False) == (HOLDS, "")
    assert parse_bymc("        > Spec axb holds\n", "", "a.b", False)[0] == ERROR


def test_bymc_parse_error_exits_0_but_is_an_error():
    assert parse_bymc("  > Parsing /x/strb.ta...\n", BYMC_PARSE_ERROR_STDERR, "unforg", False) \
        == (ERROR, "parse error")
    verdict, note = parse_bymc("", "Exception: Failure(\"boom\")\n", "p", False)
    assert verdict == ERROR and "boom" in note


def test_bymc_timeout_unsupported_and_contradiction():
    assert parse_bymc(BYMC_HOLDS, "", "unforg", True) == (TIMEOUT, "")
    assert parse_bymc("      > Skipped fair (not supported)\n", "", "fair", False)[0] == UNSUPPORTED
    both = BYMC_HOLDS + "    > SLPS: counterexample for unforg found\n"
    assert parse_bymc(both, "", "unforg", False)[0] == ERROR


# ------------------------------------------------------------------------------------ tactl's output

def _report(verdict: str, reason: str = "") -> str:
    prop = {"name": "p", "kind": "safety", "verdict": verdict}
    if reason:
        prop["reason"] = reason
    return json.dumps({"properties": [prop], "exit_code": 0})


def test_tactl_report_verdicts():
    assert parse_tactl(0, _report(HOLDS), False) == (HOLDS, "")
    assert parse_tactl(1, _report(VIOLATED), False) == (VIOLATED, "")
    assert parse_tactl(3, _report(UNKNOWN, "timeout: the --timeout of 5 s passed"), False) == (TIMEOUT, "")
    assert parse_tactl(3, _report(UNKNOWN, "vacuous: no initial configuration"), False) \
        == (UNKNOWN, "vacuous: no initial configuration")
    assert parse_tactl(3, _report(UNSUPPORTED, "a cycle"), False) == (UNSUPPORTED, "a cycle")
    verdict, note = parse_tactl(3, _report("holds vacuously", "vacuous: no initial configuration"), False)
    assert verdict == HOLDS and note.startswith("holds vacuously")
    assert parse_tactl(2, "file.ta:1:1: error", False) == (ERROR, "exit 2")
    assert parse_tactl(-9, "", True) == (TIMEOUT, "")


def test_line_comments_are_stripped_and_lines_kept():
    text = "skel P { // a comment\n  /* block */ shared x; // another\n}\n"
    out = strip_line_comments(text)
    assert "//" not in out and "comment" not in out and "/* block */" in out
    assert out.count("\n") == text.count("\n")


# ------------------------------------------------------------------------------------ arithmetic

def _row(name: str, t: str, tw: float, b: str, bw: float) -> PeerRow:
    return PeerRow("g", f"{name}.ta", "p", Run(t, tw), Run(b, bw))


def test_summary_counts_ratios_and_disagreements():
    rows = [_row("a", HOLDS, 1.0, HOLDS, 2.0),         # 0.5
            _row("b", VIOLATED, 4.0, VIOLATED, 1.0),   # 4
            _row("c", HOLDS, 2.0, HOLDS, 2.0),         # 1
            _row("d", HOLDS, 1.0, TIMEOUT, 120.0),     # only tactl
            _row("e", UNSUPPORTED, 0.5, VIOLATED, 1.0),  # only ByMC
            _row("f", TIMEOUT, 120.0, ERROR, 0.1),     # neither
            _row("g", HOLDS, 3.0, VIOLATED, 1.0)]      # both decide, and disagree: 3
    s = summarize(rows, extremes=2)
    assert (s.pairs, s.both, s.only_tactl, s.only_bymc, s.neither) == (7, 4, 1, 1, 1)
    assert s.median == pytest.approx((1 + 3) / 2)
    assert s.geomean == pytest.approx((0.5 * 4 * 1 * 3) ** 0.25)
    assert [r.file for r in s.worst] == ["b.ta", "g.ta"]
    assert [r.file for r in s.best] == ["a.ta", "c.ta"]
    assert [r.file for r in s.disagreements] == ["g.ta"]
    assert rows[3].ratio is None and rows[4].ratio is None


def test_summary_of_nothing_decided_has_no_ratio():
    s = summarize([_row("a", TIMEOUT, 9.0, ERROR, 0.1)])
    assert (s.both, s.neither, s.median, s.geomean, s.worst) == (0, 1, None, None, [])


def test_geomean_of_reciprocal_ratios_is_one():
    s = summarize([_row("a", HOLDS, 1.0, HOLDS, 10.0), _row("b", HOLDS, 10.0, HOLDS, 1.0)])
    assert math.isclose(s.geomean, 1.0) and math.isclose(s.median, (0.1 + 10) / 2)


# ------------------------------------------------------------------------------------ running

def test_limit_kills_the_whole_process_group(tmp_path):
    start = time.perf_counter()
    done = peers.run_limited(["sh", "-c", "sleep 30 & sleep 30; echo late"], tmp_path, 0.3)
    # the sleeps would take 30 s: returning well before means they were killed, not waited for
    # (the kill itself takes milliseconds; the margin is for a loaded machine)
    assert done.timed_out and time.perf_counter() - start < 20 and "late" not in done.stdout
    quick = peers.run_limited(["sh", "-c", "echo out; echo err >&2"], tmp_path, 10)
    assert not quick.timed_out and quick.code == 0 and quick.stdout == "out\n" and quick.stderr == "err\n"


def test_peak_memory_is_the_child_s_not_the_bench_s(tmp_path):
    ballast = bytearray(200 * 1024 * 1024)   # this process is now over 200 MB; a spawned child
    ballast[::4096] = b"x" * len(ballast[::4096])  # would start its high-water mark there
    done = peers.run_limited(["sh", "-c", "true"], tmp_path, 10)
    if peers._GNU_TIME.is_file():
        assert done.peak_mb is not None and done.peak_mb < 50, done.peak_mb
    else:
        assert done.peak_mb is None
    del ballast


FAKE_BYMC = """#!/bin/sh
# a stand-in for bymc.native: the verdict of every --spec is $FAKE_VERDICT
spec=""; file=""
while [ $# -gt 0 ]; do case "$1" in --spec) spec="$2"; shift;; -a) file="$2"; shift;; esac; shift; done
grep -q '//' "$file" && { echo 'Exception: TaParser.ParseErr("syntax error")' >&2; exit 0; }
pwd > "$FAKE_LOG.$spec"
if [ "$FAKE_VERDICT" = holds ]; then echo "        > Spec $spec holds"
else echo "    > SLPS: counterexample for $spec found"; fi
"""


def _fake_setup(tmp_path: Path, monkeypatch, verdict: str) -> Path:
    fake = tmp_path / "bymc.native"
    fake.write_text(FAKE_BYMC)
    fake.chmod(0o755)
    monkeypatch.setenv("TACTL_BYMC", str(fake))
    monkeypatch.setenv("FAKE_VERDICT", verdict)
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "cwd"))
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ.get('PATH', '')}")
    (tmp_path / "z3").write_text("#!/bin/sh\n")   # the table only checks that a z3 is on PATH
    (tmp_path / "z3").chmod(0o755)
    shared = tmp_path / "shared" / "benchmarks" / "bymc-isola18"
    shared.mkdir(parents=True)
    # our STRB model (its properties hold), with a // comment that ByMC could not read
    (shared / "strb.ta").write_text("// our model\n" + (CORPUS / "strb" / "strb.ta").read_text())
    return tmp_path / "shared"


def test_table_end_to_end_with_a_stand_in_bymc(tmp_path, monkeypatch, capsys):
    shared = _fake_setup(tmp_path, monkeypatch, HOLDS)
    assert peers.peers_table(shared, tmp_path / "no-random19", 60, "unforgeability")
    out = capsys.readouterr().out
    assert "isola18/strb.ta" in out and "decided by both 1, only tactl 0, only ByMC 0, neither 0" in out
    assert "median" in out and "given a copy without them of isola18/strb.ta" in out
    # ByMC ran in a fresh temporary folder, not here
    ran_in = Path((tmp_path / "cwd.unforgeability").read_text().strip())
    assert ran_in != Path.cwd() and not ran_in.exists()


def test_table_flags_a_disagreement_and_fails(tmp_path, monkeypatch, capsys):
    shared = _fake_setup(tmp_path, monkeypatch, VIOLATED)
    assert not peers.peers_table(shared, tmp_path / "no-random19", 60, "unforgeability")
    out = capsys.readouterr().out
    assert "VERDICTS DISAGREE" in out and "VERDICT DISAGREEMENT on 1 pair" in out
    assert "tactl holds, ByMC violated" in out


def test_table_without_bymc_says_so_and_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TACTL_BYMC", str(tmp_path / "absent"))
    assert not peers.peers_table(tmp_path, tmp_path, 60, None)
    assert "peers table NOT RUN" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ the real ByMC

def test_real_bymc_on_strb_agrees_with_tactl(tmp_path):
    binary = peers.bymc_binary()
    if binary is None:
        pytest.skip("#### ByMC NOT BUILT: tools/build_bymc.sh (make bench-peers) builds it into the tools "
                    "cache; this test of the real ByMC is skipped ####")
    strb = ISOLA18 / "strb.ta"
    if not strb.is_file():
        pytest.skip(f"#### ISOLA'18 strb.ta not found at {strb} (set TACTL_SHARED) ####")
    assert peers.run_bymc(binary, strb, "unforg", 60).verdict == HOLDS
    # With T >= F weakened to T >= 0, more faults than T forge acceptance: a counterexample.
    weak = tmp_path / "strb-weak.ta"
    weak.write_text(strb.read_text().replace("T >= F;", "T >= 0;"))
    b, t = peers.run_bymc(binary, weak, "unforg", 60), peers.run_tactl(weak, "unforg", 60)
    assert (b.verdict, t.verdict) == (VIOLATED, VIOLATED), (b, t)
