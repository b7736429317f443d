"""The start-up tables (``--only startup``): what a ``tactl`` process costs beyond the Python
that runs it.

Each command's process is held against a Python process that only imports what the command
needs (``typer``; ``z3`` too for ``check``): a command that pays for modules it does not use
shows as a ratio above the budget. The per-property table does the same for ``tactl check -p P``
on every ISOLA'18 hand-coded file, with the property's own solve time taken out.

The budget is judged on CPU time (user + system of the process, from ``wait4``), shown beside
the wall time: on a shared machine the wall time measures the other processes' load as much as
tactl. Before measuring, tactl's sources are compiled to bytecode (as pip does for an installed
wheel, and the Makefile for the editable install): with ``PYTHONDONTWRITEBYTECODE`` set, an
editable checkout would otherwise compile every module again in every process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tactl.bench.measure import compile_sources
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


def _times(args: list[str], stdout=subprocess.DEVNULL) -> tuple[float, float, bytes | None]:
    """Wall and CPU (user + system) seconds of one process running ``args``, and its output when
    ``stdout`` is a pipe."""
    start = time.perf_counter()
    process = subprocess.Popen(args, stdout=stdout, stderr=subprocess.DEVNULL)
    out = None
    if process.stdout is not None:
        with process.stdout:
            out = process.stdout.read()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0  # reaped above: keep Popen from waiting again
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, out


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def _median_times(*commands: list[str]) -> list[tuple[float, float]]:
    """(wall, CPU) medians of ``STARTUP_RUNS`` runs of each command, the commands alternated so
    that a change of load touches all of them alike."""
    runs: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(STARTUP_RUNS):
        for i, args in enumerate(commands):
            wall, cpu, _ = _times(args)
            runs[i].append((wall, cpu))
    return [(_median([w for w, _ in r]), _median([c for _, c in r])) for r in runs]


def _solve_time(args: list[str]) -> float | None:
    """The summed ``time_s`` of every property ``tactl check … --json`` reports."""
    done = subprocess.run([*args, "--json"], capture_output=True, text=True)
    try:
        return sum(float(p.get("time_s") or 0.0) for p in json.loads(done.stdout)["properties"])
    except (ValueError, KeyError):
        return None


def startup_table(shared: Path) -> bool:
    """Process start: each command as a ratio to its Python baseline (median of several runs,
    run alternately on the same machine), CPU and wall, against the start-up budget below (on
    CPU). For ``check`` the properties' own solve time (``--json``'s time_s, summed; the vacuity
    checks included) is shown too, and the CPU ratio without it: what process start and reading
    cost beyond the solver."""
    compile_sources()
    header = (f"{'command':<24} {'cpu s':>6} {'wall s':>6} {'baseline':<28} {'cpu s':>6} {'wall s':>6} "
              f"{'cpu ratio':>9} {'wall ratio':>10}  {'budget (cpu)':<15} {'solve s':>8} {'cpu ratio w/o solve':>19}")
    print("\n" + header)
    print("-" * len(header))
    ok = True
    tactl = [sys.executable, "-m", "tactl.cli"]
    for label, args, baseline in _startup_rows(shared):
        (ours, ours_cpu), (theirs, theirs_cpu) = _median_times([*tactl, *args], baseline)
        ratio = ours_cpu / theirs_cpu
        within = ratio <= STARTUP_BUDGET
        ok &= within
        solve = _solve_time([*tactl, *args]) if args[0] == "check" else None
        extra = f"{solve:>8.3f} {(ours_cpu - solve) / theirs_cpu:>19.2f}" if solve is not None else ""
        print(f"{label:<24} {ours_cpu:>6.3f} {ours:>6.3f} {'python -c ' + repr(baseline[-1]):<28} "
              f"{theirs_cpu:>6.3f} {theirs:>6.3f} {ratio:>9.2f} {ours / theirs:>10.2f}  "
              f"{('ok' if within else 'OVER') + f' (<= {STARTUP_BUDGET})':<15} {extra}", flush=True)
    return per_property_startup_table(shared) & ok


PROPERTY_RUNS = 3  # per (file, property); the median is reported
PROPERTY_SLACK_S = 0.2  # wall <= import z3 + the solve time --json reports + this


def per_property_startup_table(shared: Path) -> bool:
    """``tactl check FILE -p P --json`` on every ISOLA'18 hand-coded file and property, process
    start included: its CPU time against that of ``python -c 'import z3'`` plus the property's own
    solve time (its ``time_s``, the vacuity check included), with the slack left for everything
    else (interpreter, imports, reading, reporting), budget 0.2 s; the wall time beside it."""
    folder = shared / "benchmarks" / "bymc-isola18"
    if not folder.is_dir():
        print(f"\n(per-property start-up table skipped: {folder} is absent)")
        return True
    ((_, z3_alone),) = _median_times([sys.executable, "-c", "import z3"])
    header = (f"{'file':<7} {'property':<22} {'verdict':<16} {'cpu s':>6} {'wall s':>7} {'solve s':>8} "
              f"{'slack s':>8}  budget (cpu - import z3 {z3_alone:.3f} s - solve)")
    print("\n" + header)
    print("-" * len(header))
    ok = True
    for path in sorted(folder.glob("*.ta")):
        for name in [p.name for p in read_ta(path.read_text(), str(path)).ta.properties]:
            walls, cpus, solve, verdict = [], [], 0.0, "?"
            for _ in range(PROPERTY_RUNS):
                wall, cpu, out = _times([sys.executable, "-m", "tactl.cli", "check", str(path), "-p", name,
                                         "--json"], stdout=subprocess.PIPE)
                walls.append(wall)
                cpus.append(cpu)
                try:
                    result = json.loads(out or b"")["properties"][0]
                    solve, verdict = float(result.get("time_s") or 0.0), result["verdict"]
                except (ValueError, KeyError, IndexError):
                    verdict = "no report"
            wall, cpu = _median(walls), _median(cpus)
            slack = cpu - z3_alone - solve
            within = slack <= PROPERTY_SLACK_S
            ok &= within
            print(f"{path.stem:<7} {name:<22} {verdict:<16} {cpu:>6.3f} {wall:>7.3f} {solve:>8.3f} {slack:>8.3f}  "
                  f"{'ok' if within else 'OVER'} (<= {PROPERTY_SLACK_S})", flush=True)
    return ok
