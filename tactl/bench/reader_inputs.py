"""The reader table (``python -m tactl.bench --only reader``): every benchmark input read, shown
and round-tripped.

Per input: the size, whether the print/re-read round trip holds, the in-process read time
(median of 3), and the wall time and peak RSS of a whole ``tactl show`` process (start-up
included, as the anchors measure). Inputs: the shared ISOLA'18 files when ``--shared`` holds
them, our corpus and dialect examples (tests/data/dialects), and synthetic Promela-style
automata of 800 and 2200 rules. The scaling rows over 10k–100k locations are
``tactl/bench/reader.py``'s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tactl.bench import REPO
from tactl.bench.synthetic import promela_style_ta
from tactl.ir import print_ta, read_ta


@dataclass
class Row:
    name: str
    kbytes: float
    locations: int
    rules: int
    properties: int
    round_trip: str
    read_ms: float
    show_s: float
    peak_mb: float


def inputs(shared: Path, workdir: Path) -> list[tuple[str, Path]]:
    """(label, path) of every benchmark input."""
    found = [(f"isola18/{p.name}", p) for p in sorted((shared / "benchmarks" / "bymc-isola18").glob("*.ta"))]
    found += [(f"corpus/{p.name}", p) for p in sorted((REPO / "corpus").rglob("*.ta"))]
    found += [(f"dialects/{p.name}", p) for p in sorted((REPO / "tests" / "data" / "dialects").glob("*.ta"))]
    for n_locations, n_rules in ((300, 800), (800, 2200)):
        path = workdir / f"synthetic-{n_rules}.ta"
        path.write_text(promela_style_ta(n_locations, n_rules))
        found.append((f"synthetic/{n_rules} rules", path))
    return found


def measure(label: str, path: Path) -> Row:
    """One input: size, the in-process read time (median of 3), the round trip, and a whole
    ``tactl show`` process's wall time and peak RSS."""
    text = path.read_text()
    times = []
    for _ in range(3):
        start = time.perf_counter()
        result = read_ta(text, str(path))
        times.append(time.perf_counter() - start)
    ta = result.ta
    round_trip = "ok" if read_ta(print_ta(ta)).ta == ta else "FAILED"
    exe = Path(sys.executable).with_name("tactl")
    start = time.perf_counter()
    proc = subprocess.Popen([str(exe), "show", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Row(label, len(text.encode()) / 1024, len(ta.locations), len(ta.rules), len(ta.properties),
               round_trip if proc.returncode == 0 else f"{round_trip}, show exit {proc.returncode}",
               statistics.median(times) * 1000, wall, usage.ru_maxrss / 1024)


def reader_table(shared: Path, workdir: Path) -> bool:
    """Read, show and round-trip every benchmark input; False when a round trip differs."""
    header = f"{'input':<30} {'KiB':>6} {'locs':>5} {'rules':>6} {'props':>5} {'round trip':<11} " \
             f"{'read ms':>8} {'show s':>7} {'peak MB':>8}"
    print(header)
    print("-" * len(header))
    ok = True
    for label, path in inputs(shared, workdir):
        r = measure(label, path)
        ok &= r.round_trip == "ok"
        print(f"{r.name:<30} {r.kbytes:>6.1f} {r.locations:>5} {r.rules:>6} {r.properties:>5} "
              f"{r.round_trip:<11} {r.read_ms:>8.1f} {r.show_s:>7.2f} {r.peak_mb:>8.1f}")
    return ok
