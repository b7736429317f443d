"""Classification of specification formulas into safety and liveness.

A formula is *safety* when a violation always shows on a finite run prefix; syntactically, when
its negation normal form has no ``<>`` (``[]``, ``&&``, ``||`` and state formulas only). ByMC's
safety shapes ``init -> [](good)`` and ``[](good)`` are of this kind (``a -> b`` is ``!a || b``),
while fairness-guarded properties such as ``<>[](fair) -> <>(goal)`` are liveness. Deciding this on
the NNF rather than matching a few shapes keeps every equivalent spelling in the same class.
"""

from __future__ import annotations

from enum import Enum

from tactl.ir.expr import (
    Always,
    And,
    BoolConst,
    Compare,
    Eventually,
    Expr,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    Or,
    Sum,
    conj,
    disj,
    walk,
)


class PropertyKind(Enum):
    SAFETY = "safety"
    LIVENESS = "liveness"


_NEGATED_CMP = {"<": ">=", "<=": ">", "==": "!=", "!=": "==", ">=": "<", ">": "<="}


def nnf(e: Expr, negate: bool = False) -> Expr:
    """Negation normal form: ``!`` pushed into comparisons, ``->`` expanded, duality of ``[]``/``<>``."""
    if isinstance(e, Not):
        return nnf(e.arg, not negate)
    if isinstance(e, Implies):
        return nnf(disj(Not(e.left), e.right), negate)
    if isinstance(e, (And, Or)):
        parts = [nnf(a, negate) for a in e.args]
        use_and = isinstance(e, And) != negate
        return conj(*parts) if use_and else disj(*parts)
    if isinstance(e, (Always, Eventually)):
        inner = nnf(e.arg, negate)
        keep = isinstance(e, Always) != negate
        return Always(inner) if keep else Eventually(inner)
    if isinstance(e, Compare):
        return Compare(_NEGATED_CMP[e.op], e.left, e.right) if negate else e
    if isinstance(e, BoolConst):
        return BoolConst(e.value != negate)
    if isinstance(e, (IntConst, Name, Neg, Sum, Mul)):
        raise TypeError("nnf() needs a formula, not a term")
    raise TypeError(f"not an expression node: {e!r}")


def classify(formula: Expr) -> PropertyKind:
    if any(isinstance(n, Eventually) for n in walk(nnf(formula))):
        return PropertyKind.LIVENESS
    return PropertyKind.SAFETY
