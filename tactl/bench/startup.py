"""The start-up tables (``--only startup``): what a ``tactl`` process costs beyond the Python
that runs it.

Each command's process is held against a Python process that only imports what the command
needs (``typer``; ``z3`` too for ``check``): a command that pays for modules it does not use
shows as a ratio above the budget. The per-property table does the same for ``tactl check -p P``
on every ISOLA'18 hand-coded file, with the property's own solve time taken out.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tactl.ir import read_ta

STARTUP_RUNS = 9  # per command; the median is reported
STARTUP_BUDGET = 1.5  # ratio to the baseline


def _startup_rows(shared: Path) -> list[tuple[str, list[str], list[str]]]:
    """(label, tactl arguments, baseline Python statement) per row of the start-up table."""
    typer_only = [sys.executable, "-c", "import typer"]
    z3_typer = [sys.executable, "-c", "import z3, typer"]
    rows = [("tactl --version", ["--version"], typer_only), ("tactl --help", ["--help"], typer_only)]
    for name in ("strb", "frb", "nbacg"):
        path = shared / "benchmarks" / "bymc-isola18" / f"{name}.ta"
        if path.is_file():
            rows.append((f"tactl check {name}.ta", ["check", str(path)], z3_typer))
    return rows


def _median_wall(args: list[str]) -> float:
    times = []
    for _ in range(STARTUP_RUNS):
        start = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def _solve_time(args: list[str]) -> float | None:
    """The summed ``time_s`` of every property ``tactl check … --json`` reports."""
    done = subprocess.run([*args, "--json"], capture_output=True, text=True)
    try:
        return sum(float(p.get("time_s") or 0.0) for p in json.loads(done.stdout)["properties"])
    except (ValueError, KeyError):
        return None


def startup_table(shared: Path) -> bool:
    """Process start: each command as a ratio to its Python baseline (median of several runs,
    run alternately on the same machine), against the start-up budget below. For ``check`` the
    properties' own solve time (``--json``'s time_s, summed; the vacuity checks included) is
    shown too, and the ratio without it: what process start and reading cost beyond the solver."""
    header = (f"{'command':<24} {'tactl s':>8} {'baseline':<28} {'base s':>7} {'ratio':>6}  "
              f"{'budget':<15} {'solve s':>8} {'ratio w/o solve':>15}")
    print("\n" + header)
    print("-" * len(header))
    ok = True
    tactl = [sys.executable, "-m", "tactl.cli"]
    for label, args, baseline in _startup_rows(shared):
        ours, theirs = _median_wall([*tactl, *args]), _median_wall(baseline)
        ratio = ours / theirs
        within = ratio <= STARTUP_BUDGET
        ok &= within
        solve = _solve_time([*tactl, *args]) if args[0] == "check" else None
        extra = f"{solve:>8.3f} {(ours - solve) / theirs:>15.2f}" if solve is not None else ""
        print(f"{label:<24} {ours:>8.3f} {'python -c ' + repr(baseline[-1]):<28} {theirs:>7.3f} "
              f"{ratio:>6.2f}  {('ok' if within else 'OVER') + f' (<= {STARTUP_BUDGET})':<15} {extra}",
              flush=True)
    return per_property_startup_table(shared) & ok


PROPERTY_RUNS = 3  # per (file, property); the median is reported
PROPERTY_SLACK_S = 0.2  # wall <= import z3 + the solve time --json reports + this


def per_property_startup_table(shared: Path) -> bool:
    """``tactl check FILE -p P --json`` on every ISOLA'18 hand-coded file and property, process
    start included: the wall time against ``python -c 'import z3'`` plus the property's own
    solve time (its ``time_s``, the vacuity check included), with the slack left for everything
    else (interpreter, imports, reading, reporting), budget 0.2 s."""
    folder = shared / "benchmarks" / "bymc-isola18"
    if not folder.is_dir():
        print(f"\n(per-property start-up table skipped: {folder} is absent)")
        return True
    z3_alone = _median_wall([sys.executable, "-c", "import z3"])
    header = (f"{'file':<7} {'property':<22} {'verdict':<16} {'wall s':>7} {'solve s':>8} "
              f"{'slack s':>8}  budget (wall - import z3 {z3_alone:.3f} s - solve)")
    print("\n" + header)
    print("-" * len(header))
    ok = True
    for path in sorted(folder.glob("*.ta")):
        for name in [p.name for p in read_ta(path.read_text(), str(path)).ta.properties]:
            walls, solve, verdict = [], 0.0, "?"
            for _ in range(PROPERTY_RUNS):
                start = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "tactl.cli", "check", str(path), "-p", name,
                                       "--json"], capture_output=True, text=True)
                walls.append(time.perf_counter() - start)
                try:
                    result = json.loads(done.stdout)["properties"][0]
                    solve, verdict = float(result.get("time_s") or 0.0), result["verdict"]
                except (ValueError, KeyError, IndexError):
                    verdict = f"exit {done.returncode}"
            wall = sorted(walls)[len(walls) // 2]
            slack = wall - z3_alone - solve
            within = slack <= PROPERTY_SLACK_S
            ok &= within
            print(f"{path.stem:<7} {name:<22} {verdict:<16} {wall:>7.3f} {solve:>8.3f} {slack:>8.3f}  "
                  f"{'ok' if within else 'OVER'} (<= {PROPERTY_SLACK_S})", flush=True)
    return ok
