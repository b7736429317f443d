"""Quantifier elimination for existential linear integer constraints: Fourier–Motzkin with the
Omega test's exactness condition.

``∃x. ∧ lower_i ∧ ∧ upper_j`` over the integers equals the real shadow ``∧ b_j·L_i <= a_i·U_j``
when every lower bound ``a_i·x >= L_i`` has ``a_i = 1`` or every upper bound ``b_j·x <= U_j`` has
``b_j = 1`` (Pugh's exact projection). Typical receive guards have that shape (thresholds bound a
receive counter from below, and Env's upper bounds ``received(M) <= ns_M + f`` have coefficient
1). A guard that also bounds receive counters from above with other coefficients
(``2 * received(A) <= n + t``) can need a parity condition that no linear guard states; then the
real shadow is still implied (sound), the result says ``exact=False``, and the certificates of
``passes/certify.py`` report the guard as not precise instead of hiding it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.linear import GE, LinearAtom, LinearTerm


@dataclass(frozen=True)
class Projection:
    atoms: tuple[LinearAtom, ...] | None  # None: the conjunction is unsatisfiable
    exact: bool


def project(atoms: list[LinearAtom], eliminate: list[str]) -> Projection:
    """``∃ eliminate. ∧ atoms`` as a conjunction of ``>=`` atoms free of ``eliminate``."""
    current = [_term(a) for a in atoms]
    exact = True
    for x in eliminate:
        lower, upper, rest = [], [], []
        for t in current:
            a = t.coeff_map.get(x, 0)
            (lower if a > 0 else upper if a < 0 else rest).append((a, t))
        if lower and upper and not (all(a == 1 for a, _ in lower) or all(-b == 1 for b, _ in upper)):
            exact = False
        for a, lo in lower:  # a·x + L' >= 0   (x >= -L'/a)
            for b, up in upper:  # b·x + U' >= 0 with b < 0   (x <= U'/|b|)
                rest.append((0, lo.scale(-b) + up.scale(a)))
        current = [t for _, t in rest]
    out: list[LinearAtom] = []
    for t in current:
        if t.is_constant:
            if t.const < 0:
                return Projection(None, exact)
            continue
        atom = _atom(t)
        if atom not in out:
            out.append(atom)
    return Projection(tuple(out), exact)


def _term(a: LinearAtom) -> LinearTerm:
    """``lhs >= bound`` as the term ``lhs - bound`` (>= 0)."""
    assert a.op == GE
    return LinearTerm(a.coeffs, -a.bound)


def _atom(t: LinearTerm) -> LinearAtom:
    import math

    g = math.gcd(*(c for _, c in t.coeffs))
    return LinearAtom(tuple((x, c // g) for x, c in t.coeffs), GE, -(t.const // g))  # ceil(-const/g)
