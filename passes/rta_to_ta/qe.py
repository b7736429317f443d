"""Quantifier elimination for existential linear integer constraints: Fourier–Motzkin with the
Omega test's exactness condition.

``∃x. ∧ lower_i ∧ ∧ upper_j`` over the integers equals the real shadow ``∧ b_j·L_i <= a_i·U_j``
when every lower bound ``a_i·x >= L_i`` has ``a_i = 1`` or every upper bound ``b_j·x <= U_j`` has
``b_j = 1`` (Pugh's exact projection). Typical receive guards have that shape (thresholds bound a
receive counter from below, and Env's upper bounds ``received(M) <= ns_M + f`` have coefficient
1). A guard that also bounds receive counters from above with other coefficients
(``2 * received(A) <= n + t``) can need a parity condition that no linear guard states; then the
real shadow is still implied (sound), the result says ``exact=False``, and the certificates of
``passes/rta_to_ta/certify.py`` report the guard as not precise instead of hiding it.

Exact steps compose, so the order of elimination does not matter for the result's meaning, only
for its size: the variable eliminated next is the one whose step is exact and adds the fewest
atoms (Fourier–Motzkin's usual greedy rule). Kinds (``passes/rta_to_ta/env.py``) rely on it: Env's
auxiliary ``faulty(M)`` are eliminated after the receive counters (``later``), which keeps the
bounds to the combinations of types a guard needs. Between steps, atoms are divided by the gcd
of their coefficients (rounding the constant as integers allow), duplicates and atoms weaker
than another with the same coefficients are dropped, and — for natural-number variables
(``naturals``) — so are atoms that non-negativity alone implies. ``limit`` bounds the number of
atoms of every intermediate system; beyond it :class:`ProjectionTooLarge` is raised rather than
exhausting time and memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tactl.ir.linear import GE, LinearAtom, LinearTerm
from tactl.util import deadline


@dataclass(frozen=True)
class Projection:
    atoms: tuple[LinearAtom, ...] | None  # None: the conjunction is unsatisfiable
    exact: bool


class ProjectionTooLarge(ValueError):
    """Eliminating ``variable`` makes more than ``limit`` distinct atoms."""

    def __init__(self, variable: str, limit: int) -> None:
        super().__init__(f"eliminating {variable} needs more than {limit} linear constraints")
        self.variable, self.limit = variable, limit


def project(atoms: list[LinearAtom], eliminate: list[str], later: list[str] | tuple[str, ...] = (),
            naturals: bool = False, limit: int | None = None) -> Projection:
    """``∃ eliminate ∃ later. ∧ atoms`` as a conjunction of ``>=`` atoms free of both.

    ``eliminate`` goes first, then ``later``. With ``naturals`` every variable ranges over the
    natural numbers: ``x >= 0`` is added for the eliminated ones, and the result holds for
    non-negative values of the others (atoms that follow from their non-negativity are left out).
    """
    groups = [list(dict.fromkeys(eliminate)), [x for x in dict.fromkeys(later) if x not in eliminate]]
    protected = {*groups[0], *groups[1]}  # still to be eliminated: their x >= 0 is kept
    current: dict[tuple, int] = {}  # coefficients -> the strongest constant (term >= 0)
    for a in atoms:
        _add(current, _term(a), naturals, protected)
    if naturals:
        for x in protected:
            _add(current, LinearTerm(((x, 1),), 0), naturals, protected)
    exact = True
    for remaining in groups:
        while remaining:
            if None in current:  # a real contradiction: no integer solution either (exact)
                return Projection(None, True)
            x, step_exact, lower, upper, rest = _choose(current, remaining)
            remaining.remove(x)
            protected.discard(x)
            exact = exact and step_exact
            nxt: dict[tuple, int] = {}
            for coeffs, const in rest:
                _add(nxt, LinearTerm(coeffs, const), naturals, protected)
            for a, lo in lower:  # a·x + L' >= 0   (x >= -L'/a)
                for b, up in upper:  # b·x + U' >= 0 with b < 0   (x <= U'/|b|)
                    _add(nxt, lo.scale(-b) + up.scale(a), naturals, protected)
                    if limit is not None and len(nxt) > limit:
                        raise ProjectionTooLarge(x, limit)
            if len(nxt) > max(PRUNE_ABOVE, len(current)) and None not in nxt:  # it grew
                _drop_redundant(nxt, protected if naturals else None)
            current = nxt
    if None in current:
        return Projection(None, True)
    out: list[LinearAtom] = []
    for coeffs, const in current.items():
        atom = _atom(LinearTerm(coeffs, const))
        if atom not in out:
            out.append(atom)
    return Projection(tuple(out), exact)


# A step that makes a system larger than this (and larger than before) is followed by removing
# redundant atoms (an LP check per atom, by z3): Fourier–Motzkin's intermediate systems are
# mostly redundant, and without this a guard with equalities and non-unit coefficients over a
# kind of three types grew to hundreds of atoms.
PRUNE_ABOVE = 24


def _drop_redundant(system: dict, pending: set[str] | None) -> None:
    """Remove atoms implied over the reals by the others: the real polyhedron — hence its
    integer points and the exactness of later steps — does not change. With ``pending`` (the
    variables still to be eliminated; the rest are natural numbers by the caller's contract) the
    other variables count as non-negative."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    table: dict[str, z3.ArithRef] = {}

    def var(x: str):
        if x not in table:
            table[x] = z3.Real(x)
        return table[x]

    def formula(coeffs, const):
        return z3.Sum([c * var(x) for x, c in coeffs]) + const >= 0

    atoms = {key: formula(key, const) for key, const in system.items()}
    solver = z3.SolverFor("QF_LRA")
    solver.set("timeout", deadline.solver_timeout_ms(10.0))  # undecided: the atom is kept
    if pending is not None:
        solver.add(*(var(x) >= 0 for key in system for x, _ in key if x not in pending))
    for key in sorted(system):  # each against all the others still kept
        others = [f for k, f in atoms.items() if k != key]
        if solver.check(*others, z3.Not(atoms[key])) == z3.unsat:
            del atoms[key]
            del system[key]


def _choose(current: dict[tuple, int], remaining: list[str]):
    """The variable to eliminate next: an exact step first, then the fewest new atoms."""
    best = None
    for index, x in enumerate(remaining):
        lower, upper, rest = [], [], []
        for coeffs, const in current.items():
            a = dict(coeffs).get(x, 0)
            if a > 0:
                lower.append((a, LinearTerm(coeffs, const)))
            elif a < 0:
                upper.append((a, LinearTerm(coeffs, const)))
            else:
                rest.append((coeffs, const))
        step_exact = not (lower and upper) or all(a == 1 for a, _ in lower) or all(b == -1 for b, _ in upper)
        growth = len(lower) * len(upper) - len(lower) - len(upper)
        key = (not step_exact, growth, index)
        if best is None or key < best[0]:
            best = (key, (x, step_exact, lower, upper, rest))
    return best[1]


def _add(system: dict, t: LinearTerm, naturals: bool, protected) -> None:
    """Add ``t >= 0`` to ``system`` (coefficients -> constant); the key None marks "false"."""
    if t.is_constant:
        if t.const < 0:
            system[None] = 0
        return
    g = math.gcd(*(c for _, c in t.coeffs))
    coeffs = tuple((x, c // g) for x, c in t.coeffs)
    const = t.const // g  # floor: Σ (c/g)·x >= -const/g over the integers
    if naturals and const >= 0 and all(c > 0 for _, c in coeffs):
        # implied by the non-negativity of its variables — except x >= 0 itself for a variable
        # still to be eliminated, which is its lower bound
        if not (len(coeffs) == 1 and const == 0 and coeffs[0][1] == 1 and coeffs[0][0] in protected):
            return
    old = system.get(coeffs)
    if old is None or const < old:
        system[coeffs] = const


def _term(a: LinearAtom) -> LinearTerm:
    """``lhs >= bound`` as the term ``lhs - bound`` (>= 0)."""
    assert a.op == GE
    return LinearTerm(a.coeffs, -a.bound)


def _atom(t: LinearTerm) -> LinearAtom:
    g = math.gcd(*(c for _, c in t.coeffs))
    return LinearAtom(tuple((x, c // g) for x, c in t.coeffs), GE, -(t.const // g))  # ceil(-const/g)
