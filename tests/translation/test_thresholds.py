"""Exact normalisation of rational thresholds (passes/alg_to_rta/thresholds.py), checked against z3.

Each normalised comparison must have exactly the integer solutions of the original one, where
the original is evaluated with exact rationals and z3's own floor (``ToInt``) for ⌊⌋ and
``-ToInt(-x)`` for ⌈⌉.
"""

from __future__ import annotations

import pytest
import sympy
import z3
from hypothesis import given, settings, strategies as st

from tactl.ir.expr import to_text
from tactl.ir.linear import int_symbols, to_z3
from tactl.passes.alg_to_rta.thresholds import ThresholdError, normalize, symbol

NAMES = ("r", "n", "t")
S = {x: symbol(x) for x in NAMES}


def is_count(name: str) -> bool:
    return name == "r"


def _z3_of(e, zs):
    """z3 real-valued term of a sympy expression with ceiling/floor."""
    if isinstance(e, sympy.Symbol):
        return z3.ToReal(zs(e.name))
    if isinstance(e, (sympy.Integer, sympy.Rational)):
        return z3.RealVal(str(e))
    if isinstance(e, sympy.Add):
        return z3.Sum([_z3_of(a, zs) for a in e.args])
    if isinstance(e, sympy.Mul):
        out = _z3_of(e.args[0], zs)
        for a in e.args[1:]:
            out = out * _z3_of(a, zs)
        return out
    if isinstance(e, sympy.floor):
        return z3.ToReal(z3.ToInt(_z3_of(e.args[0], zs)))
    if isinstance(e, sympy.ceiling):
        return -z3.ToReal(z3.ToInt(-_z3_of(e.args[0], zs)))
    raise TypeError(e)


OPS = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
       "<": lambda a, b: a < b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def assert_exact(lhs, op, rhs):
    zs = int_symbols()
    original = OPS[op](_z3_of(sympy.expand(lhs), zs), _z3_of(sympy.expand(rhs), zs))
    normal = to_z3(normalize(lhs, op, rhs, is_count), zs)
    s = z3.Solver()
    s.add(original != normal)
    assert s.check() == z3.unsat, (lhs, op, rhs, to_text(normalize(lhs, op, rhs, is_count)))


def test_papers_thresholds():
    r, n, t = S["r"], S["n"], S["t"]
    assert to_text(normalize(r, ">", (n + t) / 2, is_count)) == "2 * r > n + t"
    assert to_text(normalize(r, ">=", sympy.ceiling((n + 1) / sympy.Integer(2)), is_count)) == "2 * r >= n + 1"
    assert to_text(normalize(n, ">", 3 * t, is_count)) == "n > 3 * t"
    for op in OPS:
        assert_exact(r, op, (n + t) / 2)
        assert_exact(r, op, sympy.ceiling((n + t + 1) / sympy.Integer(2)))
        assert_exact(r, op, sympy.floor((2 * n) / sympy.Integer(3)) + 1)
        assert_exact(r - t, op, -sympy.floor(n / sympy.Integer(3)))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=4, max_size=4), st.integers(1, 5),
       st.sampled_from(sorted(OPS)), st.sampled_from(["none", "ceil", "floor"]),
       st.sampled_from([1, -1]))
def test_random_thresholds_are_normalised_exactly(coeffs, denominator, op, rounding, sign):
    r, n, t = S["r"], S["n"], S["t"]
    x = (coeffs[0] * n + coeffs[1] * t + coeffs[2]) / sympy.Integer(denominator)
    if rounding == "ceil":
        x = sympy.ceiling(x)
    elif rounding == "floor":
        x = sympy.floor(x)
    assert_exact(r + coeffs[3] * t, op, sign * x)


@pytest.mark.parametrize("rhs, why", [
    (S["n"] * S["t"], "not linear"),
    (2 * sympy.ceiling(S["n"] / sympy.Integer(2)), "coefficient 1 or -1"),
    (sympy.ceiling(S["n"] / 2) + sympy.floor(S["t"] / 2), "one ⌈⌉ or ⌊⌋"),
])
def test_thresholds_without_linear_form_are_refused(rhs, why):
    with pytest.raises(ThresholdError, match=why):
        normalize(S["r"], ">=", rhs, is_count)
