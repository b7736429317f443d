"""Candidates in rings of growing L1 distance from a written assignment: the search order of
``tactl check --repair`` (tactl/synth/repair.py), run inside the loop of tactl/synth/cegis.py.

The loop's generator asks z3 for any candidate outside the excluded regions; with a
:class:`DistanceRings` it asks under the assumption ``Σ |u - written(u)| <= d`` instead, and
widens ``d`` by one only when that ring holds no candidate left. The rings are assumptions of
``check``, not constraints added to the solver, so the regions learnt in one ring keep excluding
candidates in the next. The first ring with a solution holds every nearest repair: the search
stops when that ring is exhausted (``done``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


class DistanceRings:
    """The distance bound of the next ``generator.check``; ``sym`` names the unknowns' z3
    integers; ``bounds`` their ranges (the widest ring that still holds a candidate)."""

    def __init__(self, written: Mapping[str, int], bounds: Mapping[str, tuple[int, int]],
                 sym: Callable[[str], Any]) -> None:
        import z3  # lazy: z3 is slow to import; only repair searches by distance

        self.z3 = z3
        self.distance = z3.Int("__distance")
        self.written = dict(written)
        terms = [z3.If(sym(u) >= w, sym(u) - w, w - sym(u)) for u, w in self.written.items()]
        self.definition = self.distance == (z3.Sum(terms) if terms else z3.IntVal(0))
        self.widest = sum(max(abs(lo - self.written.get(u, lo)), abs(hi - self.written.get(u, hi)))
                          for u, (lo, hi) in bounds.items())
        self.ring = 0

    def assumptions(self) -> list[Any]:
        return [self.distance <= self.ring]

    def widen(self) -> bool:
        """Next ring; False when the last ring was the widest."""
        if self.ring >= self.widest:
            return False
        self.ring += 1
        return True


def distance(a: Mapping[str, int], b: Mapping[str, int]) -> int:
    """L1 distance of two assignments of the same unknowns."""
    return sum(abs(a[u] - b[u]) for u in a)
