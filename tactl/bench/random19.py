"""The random19 table (``--only random19``): one row per property of the random19 automata of
konnov/fault-tolerant-benchmarks (``make random19`` fetches them into the cache; never copied
into the repository): verdict, the engine's solve time without process start, SMT queries and
size, the wall time of the ``tactl check`` process, and ByMC's figure where
``tactl/bench/peer_timings.json`` records one.
"""

from __future__ import annotations

import json
import os
import statistics
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from tactl.bench.checker import check_processes

RANDOM19_TIMEOUT_S = 120.0  # per property, so that the table finishes (n-kset's can run long)


def bymc_random19() -> dict[tuple[str, str], str]:
    """ByMC's figure per (file, property), from ``peer_timings.json`` (its ``bymc_random19``
    entry says how and where they were measured); only the pairs recorded there."""
    data = json.loads(files("tactl.bench").joinpath("peer_timings.json").read_text())
    return {(row["file"], row["property"]): row["bymc"] for row in data["bymc_random19"]["rows"]}


def random19_dir() -> Path:
    """Where the random19 automata are: ``$TACTL_RANDOM19``, else the cache ``make random19`` fills."""
    env = os.environ.get("TACTL_RANDOM19")
    return Path(env) if env else Path.home() / ".cache" / "tactl" / "benchmarks" / "random19"


def cached_inputs(directory: Path, pattern: str, table: str, how: str) -> list[Path]:
    """The files ``pattern`` finds in ``directory`` (a fetched benchmark set); none: the table
    is skipped, and one line says so and ``how`` to get them."""
    found = sorted(directory.glob(pattern)) if directory.is_dir() else []
    if not found:
        print(f"\n{table} skipped: no {pattern.removeprefix('*')} files in {directory} ({how})")
    return found


@dataclass
class Random19Row:
    name: str
    prop: str
    verdict: str
    solve_s: float | None   # the engine's time_s (the property and its vacuity question)
    vacuity_s: float | None  # of which the vacuity question
    queries: str
    constants: str
    assertions: str
    wall_s: float


def measure_random19(path: Path, timeout_s: float) -> list[Random19Row]:
    """One ``tactl check FILE -p P --json`` process per property of ``path``."""
    rows = []
    for prop, code, report, wall, _ in check_processes(path, timeout_s):
        try:
            result = report["properties"][0]
        except (TypeError, KeyError, IndexError):
            rows.append(Random19Row(path.name, prop, f"exit {code}", None, None, "-", "-", "-", wall))
            continue
        details = result.get("details", {})
        verdict = result["verdict"]
        if verdict == "unknown" and "timeout" in result.get("reason", ""):
            verdict = "timeout"
        rows.append(Random19Row(path.name, prop, verdict, result.get("time_s"), details.get("vacuity_s"),
                                str(result.get("queries", "-")), str(details.get("smt_constants", "-")),
                                str(details.get("smt_assertions", "-")), wall))
    return rows


def random19_table(timeout_s: float, directory: Path | None = None) -> bool:
    """Per (random19 file, property): verdict, the engine's solve time (process start excluded)
    and the vacuity question's share of it, SMT queries, the query size (constants/assertions,
    summed over branches), the wall time of the whole ``tactl check`` process and ByMC's figure
    where ``peer_timings.json`` has one. Skipped, with one line, when the files are absent."""
    directory = directory or random19_dir()
    files = cached_inputs(directory, "*.ta", "random19 table", "make random19 fetches them, or set TACTL_RANDOM19")
    if not files:
        return True
    header = f"{'random19':<22} {'property':<16} {'verdict':<14} {'solve s':>8} {'vac s':>6} " \
             f"{'SMT q':>5} {'constants':>9} {'asserts':>7} {'wall s':>7} {'ByMC s':>9}"
    print("\n" + header)
    print("-" * len(header))
    ok, rows, bymc = True, [], bymc_random19()
    for path in files:
        for r in measure_random19(path, timeout_s):
            rows.append(r)
            ok &= not r.verdict.startswith("exit")
            solve = f"{r.solve_s:>8.2f}" if r.solve_s is not None else f"{'-':>8}"
            vac = f"{r.vacuity_s:>6.2f}" if r.vacuity_s is not None else f"{'-':>6}"
            print(f"{r.name:<22} {r.prop:<16} {r.verdict:<14} {solve} {vac} {r.queries:>5} "
                  f"{r.constants:>9} {r.assertions:>7} {r.wall_s:>7.2f} "
                  f"{bymc.get((r.name, r.prop), '-'):>9}", flush=True)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    solved = [r.solve_s for r in rows if r.solve_s is not None and r.verdict in ("holds", "violated")]
    print(f"random19: {len(rows)} properties: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
          + (f"; decided ones: solve time total {sum(solved):.1f} s, median {statistics.median(solved):.2f} s, "
             f"max {max(solved):.2f} s" if solved else ""))
    return ok
