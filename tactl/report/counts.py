"""How many properties got each verdict, and the line every report ends with: ``3 hold,
0 violated, 0 unknown, 0 unsupported``. ``tactl check`` (text, and with ``--engine source``),
``tactl verify``'s table and its HTML page all count from here, so their tallies agree."""

from __future__ import annotations

from collections.abc import Iterable

from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, VIOLATED

VERDICTS = (HOLDS, HOLDS_VACUOUSLY, VIOLATED, UNKNOWN, UNSUPPORTED)


def verdict_counts(verdicts: Iterable[str]) -> list[tuple[str, int]]:
    """(verdict, how many) in :data:`VERDICTS` order; words that are no verdict (verify's
    ``interrupted``) are not counted. ``holds vacuously`` is listed only when some property got
    it, so the line reads as it did before vacuity was a verdict."""
    seen = list(verdicts)
    counts = [(v, sum(x == v for x in seen)) for v in VERDICTS]
    return [(v, n) for v, n in counts if n or v != HOLDS_VACUOUSLY]


def counts_line(verdicts: Iterable[str]) -> str:
    """``3 hold, 1 hold vacuously, 0 violated, …``: counts say hold (the verdict stays HOLDS)."""
    return ", ".join(f"{n} {v.replace('holds', 'hold')}" for v, n in verdict_counts(verdicts))
