"""Progress you can trust: without a terminal, one plain line per started and per
finished item on stderr, written while the run goes on (a log of ``make verify ALG=corpus``
shows where it is); the item named is the one being worked on; check and verify show it alike;
the lock-step diameter search reports each depth."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
from conftest import CORPUS, REPO

from tactl.util.progress import Progress

START = re.compile(r"^tactl: \[(\d+)/(\d+)\] (reading|checking) (.+) \.\.\.$")
END = re.compile(r"^tactl: \[(\d+)/(\d+)\] (.+?): ([A-Z ]+|.+ ready \(.*\)) \((.*elapsed)\)$")


def _tactl(*args, **kw) -> subprocess.Popen:
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.Popen([sys.executable, "-m", "tactl.cli", *map(str, args)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_a_fake_clock_names_the_started_item_with_k_of_n():
    out, now = io.StringIO(), [0.0]
    p = Progress(out, clock=lambda: now[0])
    p.phase(2)
    p.start("a: p")
    now[0] = 1.5
    p.finish("a: p", "HOLDS", "cache miss")
    p.finish("a: q", "VIOLATED", "cache hit")  # a cache hit: finished without a start
    p("a note")  # an engine's note: only when verbose
    assert out.getvalue().splitlines() == [
        "tactl: [1/2] checking a: p ...",
        "tactl: [1/2] a: p: HOLDS (1.50 s; cache miss; 1.5 s elapsed)",
        "tactl: [2/2] a: q: VIOLATED (cache hit; 1.5 s elapsed)",
    ]


def test_verify_into_a_log_shows_a_line_per_started_and_finished_item_while_it_runs(tmp_path):
    """stdout to a file, stderr a pipe (no terminal): lines arrive before the command ends."""
    log = tmp_path / "log"
    with log.open("w") as stdout:
        proc = subprocess.Popen([sys.executable, "-m", "tactl.cli", "verify", "strb", "floodmin",
                                 "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r"],
                                cwd=REPO, stdout=stdout, stderr=subprocess.PIPE, text=True)
        first = proc.stderr.readline()
        running_when_first_line = proc.poll() is None
        rest = proc.stderr.read()
        proc.wait(timeout=120)
    lines = [first] + rest.splitlines()
    assert running_when_first_line, "the first progress line came only at the end"
    assert START.match(first.strip()) and "reading strb" in first
    starts = [START.match(line.strip()) for line in lines if START.match(line.strip())]
    ends = [END.match(line.strip()) for line in lines if END.match(line.strip())]
    checks = [m.group(4) for m in starts if m.group(3) == "checking"]
    assert checks and all(m.group(2) == str(len(checks)) for m in starts if m.group(3) == "checking")
    finished = {m.group(3) for m in ends}
    assert set(checks) <= finished  # every started check finished, with its verdict
    assert {"strb", "floodmin"} <= finished  # the reading items
    assert "HOLDS" in log.read_text() and "tactl:" not in log.read_text()  # the log is the table


def test_check_and_verify_show_progress_alike_and_no_progress_or_quiet_silences_it(tmp_path):
    strb = CORPUS / "strb" / "strb.ta"
    lines = {}
    for flags in ((), ("--no-progress",), ("-q",)):
        proc = _tactl("check", strb, *flags)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        lines[flags] = [line for line in err.splitlines() if line.startswith("tactl: [")]
    starts = [line for line in lines[()] if START.match(line)]
    # the reading is not a plain line (an input error must be stderr's first line)
    assert [START.match(s).group(3, 4) for s in starts] == [
        ("checking", "unforgeability"), ("checking", "correctness"), ("checking", "relay")]
    assert all(END.match(line) for line in lines[()] if line not in starts)
    assert lines[("--no-progress",)] == [] and lines[("-q",)] == []


def test_a_live_line_names_the_running_item_not_the_last_finished():
    from rich.console import Console

    from tactl.util.progress import Live

    screen = io.StringIO()
    live = Live(console=Console(file=screen, force_terminal=True, width=80, highlight=False))
    try:
        live.phase(3)
        live.start("x: a")
        live.finish("x: a", "HOLDS")
        live.start("x: b")
        text = live._status_text()
    finally:
        live.stop()
    assert text.startswith("[2/3] checking x: b · this item 0:00 · ") and "x: a" not in text
    assert "[1/3] x: a: HOLDS" in screen.getvalue()  # the finished item, printed above the line


def test_the_lockstep_diameter_search_reports_each_depth():
    proc = _tactl("check", CORPUS / "floodmin" / "floodmin.alg")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    depths = re.findall(r"^tactl: diameter search: D = (\d+) rounds?: (.+) \(", err, re.M)
    assert depths and depths[-1][1] == "a diameter"
    assert [int(d) for d, _ in depths] == list(range(len(depths)))  # each depth, in order
    assert all(answer == "not a diameter" for _, answer in depths[:-1])
    assert f"diameter {depths[-1][0]}" in out  # the depth the report states


@pytest.mark.parametrize("jobs", [1, 2])
def test_executors_say_a_task_started_before_it_finishes_and_in_order(jobs):
    """In this process exactly; in a pool as a worker frees (at most ``jobs`` running)."""
    from tactl.driver.executors import executor_for

    events: list[tuple[str, int]] = []
    with executor_for(None, jobs) as executor:
        for index, result, _ in executor.run(abs, [-1, -2, -3, -4, -5],
                                             lambda i: events.append(("start", i))):
            assert result == index + 1
            events.append(("end", index))
    starts = [i for kind, i in events if kind == "start"]
    assert starts == [0, 1, 2, 3, 4]
    running = 0
    for kind, i in events:
        running += 1 if kind == "start" else -1
        assert 0 <= running <= jobs
        assert kind == "start" or ("start", i) in events[:events.index((kind, i))]
