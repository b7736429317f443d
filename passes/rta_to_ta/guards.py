"""Guards as the translation works on them: disjunctive normal form over linear ``>=`` atoms
(:func:`guard_dnf`), and the z3 questions that simplify them under the resilience condition and
render them back as expressions (:class:`GuardContext`). The translate pass
(``passes/rta_to_ta/eliminate.py``) and the justice it derives (``passes/rta_to_ta/fairness.py``) share them.
"""

from __future__ import annotations

from tactl.ir.expr import And, BoolConst, Compare, Expr, IntConst, Neg, Or, conj
from tactl.ir.linear import EQ, GE, NE, LinearAtom, int_symbols, normalize, term_expr, to_z3
from tactl.ir.boolean import nnf
from tactl.ir.rta.model import ReceiveTA


def guard_dnf(e: Expr) -> list[list[LinearAtom]]:
    """Disjunctive normal form of a temporal-free guard over ``>=`` atoms ([] = false)."""
    e = nnf(e)
    if isinstance(e, BoolConst):
        return [[]] if e.value else []
    if isinstance(e, Or):
        return [c for a in e.args for c in guard_dnf(a)]
    if isinstance(e, And):
        out: list[list[LinearAtom]] = [[]]
        for a in e.args:
            out = [left + right for left in out for right in guard_dnf(a)]
        return out
    if isinstance(e, Compare):
        atom = normalize(e)
        if isinstance(atom, bool):
            return [[]] if atom else []
        neg = tuple((x, -c) for x, c in atom.coeffs)
        if atom.op == GE:
            return [[atom]]
        if atom.op == EQ:
            return [[LinearAtom(atom.coeffs, GE, atom.bound), LinearAtom(neg, GE, -atom.bound)]]
        assert atom.op == NE
        return [[LinearAtom(atom.coeffs, GE, atom.bound + 1)], [LinearAtom(neg, GE, 1 - atom.bound)]]
    raise ValueError(f"not a guard: {e!r}")


class GuardContext:
    """z3 questions under the RC with every parameter and counter non-negative."""

    def __init__(self, rta: ReceiveTA, shared: tuple[str, ...]) -> None:
        import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

        self.z3, self.sym, self.shared = z3, int_symbols(), set(shared)
        self.order = {x: i for i, x in enumerate((*shared, *rta.parameters))}
        self.cache: dict[LinearAtom, object] = {}
        self.solver = z3.Solver()
        for e in rta.assumptions:
            self.solver.add(to_z3(e, self.sym))
        for x in (*rta.parameters, *shared):
            self.solver.add(self.sym(x) >= 0)
        self.to_z3 = to_z3

    def formula(self, atoms: list[LinearAtom]):
        return self.z3.And([self.atom_z3(a) for a in atoms])

    def atom_z3(self, a: LinearAtom):
        """z3 form of an atom, built once (simplification asks about the same atoms many times)."""
        if a not in self.cache:
            z3 = self.z3
            self.cache[a] = z3.Sum([c * self.sym(x) for x, c in a.coeffs]) >= a.bound \
                if a.coeffs else z3.BoolVal(0 >= a.bound)
        return self.cache[a]

    def holds(self, premise: list[LinearAtom], conclusion: list[LinearAtom]) -> bool:
        return self.solver.check(self.formula(premise), self.z3.Not(self.formula(conclusion))) == self.z3.unsat

    def simplify(self, disjuncts: list[list[LinearAtom]]) -> list[list[LinearAtom]]:
        kept: list[list[LinearAtom]] = []
        for d in disjuncts:
            if self.solver.check(self.formula(d)) == self.z3.unsat:
                continue  # false under the RC
            atoms = list(dict.fromkeys(d))
            for a in list(atoms):
                rest = [b for b in atoms if b != a]
                if self.holds(rest, [a]):
                    atoms = rest
            kept.append(atoms)
        out: list[list[LinearAtom]] = []
        for i, d in enumerate(kept):  # drop a disjunct implied by another (keep the first of equals)
            if any(j != i and self.holds(d, e) and (not self.holds(e, d) or j < i) for j, e in enumerate(kept)):
                continue
            out.append(d)
        return out

    def render(self, atoms: list[LinearAtom]) -> Expr:
        return conj(*(self.atom(a) for a in atoms)) if atoms else BoolConst(True)

    def atom(self, a: LinearAtom) -> Expr:
        """Shared variables on the left, parameters and constants on the right."""
        def readable(terms):  # declaration order, positive terms first: "t + 1 - f"
            return sorted(terms, key=lambda xc: (xc[1] < 0, self.order.get(xc[0], len(self.order))))

        left = readable([(x, c) for x, c in a.coeffs if x in self.shared])
        right = readable([(x, -c) for x, c in a.coeffs if x not in self.shared])
        if left and all(c < 0 for _, c in left):  # a fall guard: Σ|c|·x < rhs
            return Compare("<", term_expr(readable([(x, -c) for x, c in left])),
                           term_expr(readable([(x, -c) for x, c in right]), 1 - a.bound))
        if not left:
            return Compare(">=", term_expr(a.coeffs), _int(a.bound))
        return Compare(">=", term_expr(left), term_expr(right, a.bound))


def _int(v: int) -> Expr:
    return IntConst(v) if v >= 0 else Neg(IntConst(-v))
