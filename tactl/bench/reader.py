"""Reader scaling rows for ``make bench``: ``tactl show`` on automata of 10k–100k locations and rules.

``tactl show`` was once quadratic in the number of locations (minutes at 51k locations). These
rows keep it honest: for each size, a synthetic automaton from
:func:`tactl.bench.synthetic.scaled_ta` (once with that many locations, once with that many
rules) is written to a temporary file, read by a child process that reports the in-process read
time (parse + validation, parser warmed up), and shown by a separate ``tactl show`` process whose
wall time (start-up included) and peak RSS are measured, as :mod:`tactl.bench` does for its
tables.

Linear behaviour shows as read and show times growing by about 5× from 10k to 50k and 2× from
50k to 100k. Standalone: ``python -m tactl.bench.reader [SIZE …]``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

from tactl.bench import measure
from tactl.bench.synthetic import scaled_ta
from tactl.ir.ta.reader import read_ta, read_ta_file

SIZES = (10_000, 50_000, 100_000)
COMPANION = 1_000  # rules of the location-scaled automata, locations of the rule-scaled ones


class ScalingRow(NamedTuple):
    label: str
    locations: int
    rules: int
    kbytes: float
    read_s: float  # read_ta_file in a child process (parse + validation), start-up excluded
    show_s: float  # wall time of a whole `tactl show` process, start-up included
    peak_mb: float  # peak RSS of that process


def cases(sizes=SIZES) -> list[tuple[str, int, int]]:
    """(label, locations, rules) of every row."""
    rows = [(f"{_short(n)} locations", n, COMPANION) for n in sizes]
    rows += [(f"{_short(n)} rules", COMPANION, n) for n in sizes]
    return rows


def _short(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def reader_scaling_rows(sizes=SIZES, workdir: Path | None = None,
                        timeout_s: float | None = None) -> list[ScalingRow]:
    """One :class:`ScalingRow` per case of :func:`cases`, each measured in child processes.

    A ``tactl show`` that fails or times out is marked in the row's label (``show exit 2``,
    ``timed out``) and its time is ``inf`` when it timed out.
    """
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(workdir) if workdir is not None else Path(tmp)
        return [measure_case(label, n_locations, n_rules, folder, timeout_s)
                for label, n_locations, n_rules in cases(sizes)]


def measure_case(label: str, n_locations: int, n_rules: int, folder: Path,
                 timeout_s: float | None = None) -> ScalingRow:
    path = folder / f"scaled-{n_locations}-{n_rules}.ta"
    text = scaled_ta(n_locations, n_rules)
    path.write_text(text)
    kbytes = len(text.encode()) / 1024
    del text
    code, out, _, _ = _measured([sys.executable, "-m", "tactl.bench.reader", "--read", str(path)], timeout_s)
    try:
        read_s = float(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        read_s = float("inf")
        label += " (read failed)" if code is not None else " (read timed out)"
    exe = Path(sys.executable).with_name("tactl")
    code, _, wall, peak = _measured([str(exe), "show", str(path)], timeout_s)
    if code is None:
        label += " (show timed out)"
    elif code != 0:
        label += f" (show exit {code})"
    return ScalingRow(label, n_locations, n_rules, kbytes, read_s, wall, peak)


def _measured(args: list[str], timeout_s: float | None) -> tuple[int | None, str, float, float]:
    """Exit status (None: killed at the timeout), stdout, wall seconds (start-up included) and
    peak RSS in MB of a child process (as ``tactl.bench.measure.timed_process`` measures them:
    ``tactl.bench.measure``). The child runs in its own process group, killed whole at the timeout."""
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile("w+") as out:
        rss = Path(tmp) / "rss"
        start = time.perf_counter()
        proc = subprocess.Popen(measure.wrapped(args, rss), stdout=out, stderr=subprocess.DEVNULL,
                                text=True, start_new_session=True)
        timer = threading.Timer(timeout_s, kill) if timeout_s else None
        if timer is not None:
            timer.start()
        try:
            _, status, rusage = os.wait4(proc.pid, 0)
        except BaseException:  # Ctrl-C: its own session does not get the signal; leave nothing behind
            kill()
            raise
        finally:
            if timer is not None:
                timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
        peak = measure.usage(rusage, rss).ru_maxrss
    return (None if killed.is_set() else proc.returncode), text, wall, peak / 1024


def _read_seconds(path: str) -> float:
    read_ta("skel Warm { }")  # build (or load) the parser outside the measurement
    start = time.perf_counter()
    read_ta_file(path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--read"]:
        print(_read_seconds(args[1]))
        return 0
    print_table(tuple(int(a) for a in args) or SIZES)
    print(f"\nmachine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    return 0


def print_table(sizes=SIZES) -> None:
    """The reader scaling table, row by row as they are measured (``make bench`` prints it)."""
    header = f"{'reader scaling':<22} {'locs':>7} {'rules':>7} {'KiB':>8} {'read s':>7} {'show s':>7} {'peak MB':>8}"
    print("\n" + header)
    print("-" * len(header))
    for r in reader_scaling_rows(sizes):
        print(f"{r.label:<22} {r.locations:>7} {r.rules:>7} {r.kbytes:>8.0f} {r.read_s:>7.2f} "
              f"{r.show_s:>7.2f} {r.peak_mb:>8.1f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
