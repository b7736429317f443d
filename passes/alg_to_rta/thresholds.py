"""Thresholds with rational arithmetic, normalised exactly to integer linear comparisons.

Papers write "more than (n + t)/2", "at least ⌈(n + 1)/2⌉", "n > 3t". Receive counts and
parameters are integers, so each such comparison has an exact integer linear form: sympy's
``Rational`` keeps every coefficient exact, ⌈⌉ and ⌊⌋ are removed by the identities below (``y``
an integer-valued term, ``x`` rational), and the comparison is finally scaled by the least common
multiple of its denominators:

    y ≥ ⌈x⌉ ⇔ y ≥ x        y > ⌈x⌉ ⇔ y − 1 ≥ x      y ≤ ⌈x⌉ ⇔ y < x + 1     y < ⌈x⌉ ⇔ y < x
    y ≤ ⌊x⌋ ⇔ y ≤ x        y < ⌊x⌋ ⇔ y + 1 ≤ x      y ≥ ⌊x⌋ ⇔ y > x − 1     y > ⌊x⌋ ⇔ y > x

(``==`` is the conjunction of ``≤`` and ``≥``, ``!=`` its negation). "more than (n + t)/2" thus
becomes ``2 * received(R0) > n + t`` — no rounding convention is needed, because the exact
rational comparison is what the paper says. What has no linear form — a product of two
parameters, a rounding term with a coefficient other than ±1 or nested in another — is refused
with :class:`ThresholdError`, never approximated. A product of an unknown coefficient with a
parameter (``?a * n``, ir/unknowns.py) is one term of the linear form: it is linear once the
unknown has a value; two unknowns multiplied, or an unknown times a receive count, is refused. ``tests/translation/test_thresholds.py`` checks the identities
against z3 on random terms.

Why sympy and not ``ir/linear.py``: a ``LinearTerm`` there has integer coefficients and no
rounding terms, while a threshold as papers write it needs rational coefficients (``(n + t)/2``)
and one ``⌈⌉``/``⌊⌋`` term until the identities above remove it. The result is built with
``ir/linear.py`` (``term_expr``), so sympy stays inside this module and evaluate.py, which builds
its arguments.
"""

from __future__ import annotations

from functools import reduce
from math import lcm

import sympy

from tactl.ir.expr import And, BoolConst, Compare, Expr, Not, Or, conj, disj
from tactl.ir.unknowns import is_unknown, product_key, render, split_product

FLIP = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}
NEGATE = {">=": "<", "<": ">=", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}


class ThresholdError(ValueError):
    """A comparison that has no exact integer linear form."""


def symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True)


def normalize(lhs: sympy.Expr, op: str, rhs: sympy.Expr, is_count=lambda name: False,
              order: dict[str, int] | None = None) -> Expr:
    """``lhs op rhs`` as an integer linear ``Expr`` (a comparison, or a Boolean combination of
    two for ``==``/``!=`` over a rounding term); constant comparisons become ``true``/``false``.

    Names for which ``is_count`` holds (receive counts) are put on the left-hand side; names are
    printed in the order of ``order`` (declaration order: ``n - t - f``), else alphabetically."""
    order = order or {}
    diff = sympy.expand(lhs - rhs)
    roundings = [a for a in diff.atoms(sympy.ceiling, sympy.floor)]
    if not roundings:
        return _linear(diff, op, is_count, order)
    if len(roundings) > 1:
        raise ThresholdError("a threshold may contain one ⌈⌉ or ⌊⌋ term, not several")
    rounding = roundings[0]
    inner = rounding.args[0]
    if inner.atoms(sympy.ceiling, sympy.floor):
        raise ThresholdError("nested ⌈⌉ / ⌊⌋ are not supported")
    coeff = diff.coeff(rounding)
    rest = sympy.expand(diff - coeff * rounding)
    if rest.has(rounding) or coeff not in (1, -1):
        raise ThresholdError("a ⌈⌉ or ⌊⌋ term must appear with coefficient 1 or -1 (e.g. "
                             "'received M >= ⌈(n + 1)/2⌉'), not multiplied")
    # coeff·F + rest op 0  ⇔  y op' F with y integer-valued.
    if coeff == 1:
        y, rel = -rest, FLIP[op]
    else:
        y, rel = rest, op
    _check_integer(y)
    x = inner
    if isinstance(rounding, sympy.ceiling):
        table = {">=": [(y, ">=", x)], ">": [(y - 1, ">=", x)], "<=": [(y, "<", x + 1)],
                 "<": [(y, "<", x)]}
    else:
        table = {"<=": [(y, "<=", x)], "<": [(y + 1, "<=", x)], ">=": [(y, ">", x - 1)],
                 ">": [(y, ">", x)]}
    if rel in table:
        return conj(*(_linear(sympy.expand(a - b), r, is_count, order) for a, r, b in table[rel]))
    both = conj(*(normalize(y, r, rounding, is_count, order) for r in (">=", "<=")))
    return both if rel == "==" else negate(both)


def negate(e: Expr) -> Expr:
    """``not e`` in negation normal form (comparisons flipped, De Morgan through and/or)."""
    if isinstance(e, BoolConst):
        return BoolConst(not e.value)
    if isinstance(e, Compare):
        return Compare(NEGATE[e.op], e.left, e.right)
    if isinstance(e, And):
        return disj(*(negate(a) for a in e.args))
    if isinstance(e, Or):
        return conj(*(negate(a) for a in e.args))
    if isinstance(e, Not):
        return e.arg
    return Not(e)


def _check_integer(y: sympy.Expr) -> None:
    poly = _poly(y)
    if any(not c.is_integer for c in poly.coeffs()):
        raise ThresholdError("beside a ⌈⌉ or ⌊⌋ term only integer coefficients are supported")


def _poly(e: sympy.Expr) -> sympy.Poly:
    symbols = sorted(e.free_symbols, key=lambda s: s.name)
    if not symbols:
        return sympy.Poly(e, sympy.Symbol("_unused"))
    try:
        poly = sympy.Poly(e, *symbols)
    except sympy.PolynomialError:
        raise ThresholdError("the threshold is not a linear term (only +, -, multiplication "
                             "and division by constants)") from None
    if poly.total_degree() > 1:
        for monomial in poly.monoms():
            _monomial_key(poly, monomial)  # refuses what is not linear once the unknowns are fixed
    return poly


def _monomial_key(poly: sympy.Poly, monomial: tuple[int, ...]) -> str | None:
    """The name a monomial of degree at most 2 stands for: ``None`` for the constant, the
    symbol's name, or for an unknown times a parameter the product's key (ir/unknowns.py:
    linear once the unknowns are fixed, and constant along a run)."""
    names = [g.name for g, k in zip(poly.gens, monomial) for _ in range(k)]
    if not names:
        return None
    if len(names) == 1:
        return names[0]
    unknowns = [x for x in names if is_unknown(x)]
    if len(unknowns) >= 2:
        raise ThresholdError(f"two unknowns multiplied ('{unknowns[0]} * {unknowns[1]}'): an unknown "
                             "coefficient multiplies a parameter or a constant, so that the "
                             "threshold is linear once the unknowns are fixed")
    if len(names) == 2 and len(unknowns) == 1:
        other = next(x for x in names if not is_unknown(x))
        if other.startswith("received("):
            raise ThresholdError(f"the unknown '{unknowns[0]}' multiplies a receive count: an "
                                 "unknown coefficient multiplies a parameter or a constant")
        return product_key(unknowns[0], other)
    raise ThresholdError("the threshold is not linear: a product of two names (such as "
                         "'n * t') has no linear form; thresholds must be linear in the "
                         "parameters")


def _linear(diff: sympy.Expr, op: str, is_count, order: dict[str, int]) -> Expr:
    """``diff op 0`` with rational coefficients → integer coefficients, counts on the left."""
    poly = _poly(diff)
    if poly.total_degree() <= 1:
        coeffs = {s.name: sympy.Rational(poly.coeff_monomial(s)) for s in diff.free_symbols}
        const = sympy.Rational(poly.coeff_monomial(1))
    else:  # products of an unknown with a parameter (ir/unknowns.py)
        coeffs, const = {}, sympy.Rational(0)
        for monomial, c in poly.terms():
            key = _monomial_key(poly, monomial)
            if key is None:
                const = sympy.Rational(c)
            else:
                coeffs[key] = sympy.Rational(c)
    scale = reduce(lcm, [int(c.q) for c in [*coeffs.values(), const]], 1)
    ints = {n: int(c * scale) for n, c in coeffs.items() if c != 0}
    k = int(const * scale)
    if not ints:
        return BoolConst({">=": k >= 0, ">": k > 0, "<=": k <= 0, "<": k < 0, "==": k == 0,
                          "!=": k != 0}[op])
    def key(name: str) -> tuple[int, int, str]:
        # a product ?a * n stands where n does, just before it; a bare unknown after the parameters
        parts = split_product(name)
        base = parts[1] if parts else name
        return (order.get(base, len(order)), 0 if parts else 1, name)

    left = sorted((n for n in ints if is_count(n)), key=key)
    right = sorted((n for n in ints if not is_count(n)), key=key)
    # Σ left + Σ right + k op 0  ⇔  Σ left op −Σ right − k
    if left and all(ints[n] < 0 for n in left):
        ints = {n: -a for n, a in ints.items()}
        k, op = -k, FLIP[op]
    # counts with a negative coefficient read better on the right: `v0 > v1 + t`
    right = [n for n in left if ints[n] < 0] + right
    left = [n for n in left if ints[n] > 0]
    if not left:  # a parameter condition: first parameter on the left, with a positive sign
        left, right = right[:1], right[1:]
        if ints[left[0]] < 0:
            ints = {n: -a for n, a in ints.items()}
            k, op = -k, FLIP[op]
    return Compare(op, render([(n, ints[n]) for n in left]),
                   render([(n, -ints[n]) for n in right], -k))
