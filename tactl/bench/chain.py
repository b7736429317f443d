"""``python -m tactl.bench --only chain``: how the check's CPU time grows with the automaton.

The chain family (:func:`tactl.bench.synthetic.chain_ta`: STRB with ``k`` relay stages, the guards
unchanged) for ``k`` in :data:`tactl.bench.synthetic.CHAIN_SIZES`: per ``k``, the CPU seconds (user +
system, children included, process start included) of one ``tactl check -p P`` process for
``unforg`` (safety) and ``corr`` (liveness), and of ByMC on the same file where it is built
(:func:`tactl.bench.peers.bymc_binary`), each with its own limit. The last columns are the growth
exponent of tactl's CPU between two sizes (``log(t2/t1) / log(k2/k1)``: 1 is linear); CPU rather
than wall because the figure must not depend on the machine's load. A verdict other than "holds"
from tactl fails the table (both properties hold for every ``k``).
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tactl.bench.peers import HOLDS, Run, bymc_binary, chain_files, run_bymc, run_tactl
from tactl.bench.synthetic import CHAIN_SIZES

CHAIN_TIMEOUT_S = 120.0
PROPERTIES = ("unforg", "corr")


@dataclass(frozen=True)
class ChainPoint:
    k: int
    prop: str
    tactl: Run
    bymc: Run | None   # None: ByMC not built


def growth(points: list[tuple[int, float]]) -> list[float | None]:
    """The exponent between each point and the one before (None for the first, or a zero time)."""
    out: list[float | None] = [None]
    for (k1, t1), (k2, t2) in zip(points, points[1:]):
        out.append(math.log(t2 / t1) / math.log(k2 / k1) if t1 > 0 and t2 > 0 and k2 != k1 else None)
    return out


def measure_chain(timeout_s: float, sizes: tuple[int, ...] = CHAIN_SIZES) -> list[ChainPoint]:
    binary = bymc_binary()
    points = []
    with tempfile.TemporaryDirectory(prefix="tactl-chain-") as tmp:
        for k, path in zip(sizes, chain_files(Path(tmp), sizes)):
            for prop in PROPERTIES:
                points.append(ChainPoint(k, prop, run_tactl(path, prop, timeout_s),
                                         run_bymc(binary, path, prop, timeout_s) if binary else None))
    return points


def _cell(r: Run | None) -> str:
    if r is None:
        return f"{'-':>9}"
    if r.verdict != HOLDS:
        return f"{r.verdict[:9]:>9}"
    return f"{r.cpu_s:>9.2f}" if r.cpu_s is not None else f"{'?':>9}"


def print_chain(points: list[ChainPoint]) -> bool:
    """The curve, one line per ``k``; False when tactl does not answer "holds" somewhere."""
    sizes = sorted({p.k for p in points})
    at = {(p.k, p.prop): p for p in points}
    exps = {prop: dict(zip(sizes, growth([(k, at[k, prop].tactl.cpu_s or 0.0) for k in sizes])))
            for prop in PROPERTIES}
    print(f"{'k':>5} {'tactl unforg':>12} {'ByMC unforg':>12} {'tactl corr':>12} {'ByMC corr':>12}"
          f" {'exp unforg':>10} {'exp corr':>9}   (CPU s)")
    for k in sizes:
        u, c = at[k, "unforg"], at[k, "corr"]
        e = [f"{exps[p][k]:>9.2f}" if exps[p][k] is not None else f"{'':>9}" for p in PROPERTIES]
        print(f"{k:>5} {_cell(u.tactl):>12} {_cell(u.bymc):>12} {_cell(c.tactl):>12} {_cell(c.bymc):>12}"
              f" {e[0]:>10} {e[1]:>9}")
    return all(p.tactl.verdict == HOLDS for p in points)


def chain_table(timeout_s: float) -> bool:
    limit = min(timeout_s, CHAIN_TIMEOUT_S)
    built = bymc_binary() is not None
    print(f"\nchain: STRB with k relay stages (tactl.bench.synthetic.chain_ta), CPU s per check, limit "
          f"{limit:g} s each; ByMC {'beside it' if built else 'not built (make bench-peers builds it)'}")
    return print_chain(measure_chain(limit))
