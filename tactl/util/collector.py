"""Python's cyclic garbage collector runs less often in a process that imports tactl: its young
generation holds 50,000 objects before a collection instead of 700.

Why: almost everything a tactl process allocates at its start lives until it ends (modules,
classes, Typer's command, z3's bindings), and each collection of the young generation scans
those objects once more, every tenth one the middle generation's survivors again. With the
default threshold a ``tactl check`` of a small automaton ran about 70 collections, most of them
while importing, for nothing: they freed a few hundred objects (docs/bench.md, "Start-up").
Cycles are still collected, only in larger batches, which is cheaper per object; the two older
generations keep their thresholds, so how often the whole heap is scanned in a long check stays
as it was. A host program that already asked for a larger threshold, or turned automatic
collection off (threshold 0), keeps its setting.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 50_000


def collect_less_often() -> None:
    """The young generation's threshold raised to :data:`YOUNG_THRESHOLD` (never lowered)."""
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)
