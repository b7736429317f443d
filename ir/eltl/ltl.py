"""Classification of specification formulas into safety and liveness.

A formula is *safety* when a violation always shows on a finite run prefix; syntactically, when
its negation normal form has no ``<>`` (``[]``, ``&&``, ``||`` and state formulas only). ByMC's
safety shapes ``init -> [](good)`` and ``[](good)`` are of this kind (``a -> b`` is ``!a || b``),
while fairness-guarded properties such as ``<>[](fair) -> <>(goal)`` are liveness. Deciding this on
the NNF rather than matching a few shapes keeps every equivalent spelling in the same class. The NNF itself is ``ir/boolean.py``'s, shared
with every other pass that rewrites a formula.
"""

from __future__ import annotations

from enum import Enum

from tactl.ir.boolean import nnf
from tactl.ir.expr import Eventually, Expr, walk


class PropertyKind(Enum):
    SAFETY = "safety"
    LIVENESS = "liveness"


def classify(formula: Expr) -> PropertyKind:
    if any(isinstance(n, Eventually) for n in walk(nnf(formula))):
        return PropertyKind.LIVENESS
    return PropertyKind.SAFETY
