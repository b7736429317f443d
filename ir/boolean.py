"""Boolean rewriting over ``ir.expr`` formulas: negation normal form and constant folding.

Every layer that rewrites a formula's Boolean structure uses these two functions, so that a
guard, a specification and a Promela ``ltl`` formula are normalised alike: the safety/liveness
classifier (``ir/eltl/ltl.py``), the violation a checker searches for (``ir/eltl/formula.py``),
the guards' disjunctive normal form (``passes/rta_to_ta/guards.py``), the SMV emitter
(``passes/emit/smv.py``), the guard reduction (``passes/ta_to_ta/simplify_guards.py``), the
steady encoding (``passes/ta_to_smt/guard_abstraction.py``) and the Promela front end's fixed
propositions (``passes/pml_to_rta/multi.py``).

The reference interpreter (``tactl/source/formula.py``) keeps its own NNF over the ``.alg``
formula IR on purpose: it is the independent reading the automata are compared against, so it
imports nothing from the automaton side.
"""

from __future__ import annotations

from tactl.ir.expr import (Always, And, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Mul, Name,
                           Neg, Not, Or, Sum, conj, disj, transform)

# The comparison that holds exactly when ``a op b`` does not.
NEGATED_COMPARISON = {"<": ">=", "<=": ">", "==": "!=", "!=": "==", ">=": "<", ">": "<="}

_CONNECTIVES = (Not, And, Or, Implies)


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
        return Compare(NEGATED_COMPARISON[e.op], e.left, e.right) if negate else e
    if isinstance(e, BoolConst):
        return BoolConst(e.value != negate)
    if isinstance(e, (IntConst, Name, Neg, Sum, Mul)):
        raise TypeError("nnf() needs a formula, not a term")
    raise TypeError(f"not an expression node: {e!r}")


def simplify(e: Expr, *, normalise: bool = False) -> Expr:
    """``e`` with its Boolean constants folded: ``true``/``false`` absorbed by or dropped from
    ``&&``/``||``, ``!`` of a constant, ``false -> p`` and ``p -> true`` are true, ``true -> p``
    is ``p``. Enough to drop guards such as ``true`` or, once atoms are decided, ``x >= 0``.
    An expression without constants is left as it is.

    ``normalise`` also decides comparisons that ``ir.linear`` reduces to a constant (``1 > 0``),
    cancels double negations, folds ``[]``/``<>`` over a constant and reads ``p -> false`` as
    ``!p``: what the Promela front end's fixed propositions leave behind. Without it the formula
    keeps those shapes, because the guards of the steady encoding and of the guard reduction are
    printed in emitted SMT queries and automata, whose text must not depend on the rewrite."""
    t, f = BoolConst(True), BoolConst(False)
    if isinstance(e, Not):
        a = simplify(e.arg, normalise=normalise)
        if isinstance(a, BoolConst):
            return BoolConst(not a.value)
        return a.arg if normalise and isinstance(a, Not) else Not(a)
    if isinstance(e, (And, Or)):
        unit, zero = (t, f) if isinstance(e, And) else (f, t)
        args = [simplify(a, normalise=normalise) for a in e.args]
        if zero in args:
            return zero
        return (conj if isinstance(e, And) else disj)(*(a for a in args if a != unit))
    if isinstance(e, Implies):
        a, b = simplify(e.left, normalise=normalise), simplify(e.right, normalise=normalise)
        if a == f or b == t:
            return t
        if a == t:
            return b
        if normalise and b == f:
            return simplify(Not(a), normalise=True)
        return Implies(a, b)
    if not normalise:
        return transform(e, lambda n: simplify(n) if isinstance(n, _CONNECTIVES) else None)
    if isinstance(e, Compare):
        from tactl.ir.linear import normalize  # lazy: only comparisons under `normalise` need arithmetic

        try:
            v = normalize(e)
        except (TypeError, ValueError):
            return e
        return BoolConst(v) if isinstance(v, bool) else e
    if isinstance(e, (Always, Eventually)):
        a = simplify(e.arg, normalise=True)
        return a if isinstance(a, BoolConst) else type(e)(a)
    return e
