"""Guards under the resilience condition: the z3 oracle that prunes infeasible paths
(:class:`Solver`), and the simplification of a rule's guard, the disjunction of its paths'
receive conditions (:func:`simplified_guard`).
"""

from __future__ import annotations

from typing import Iterable

from tactl.ir.expr import BoolConst, Compare, Expr, conj, disj, to_text
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.rta.model import received
from tactl.ir.unknowns import abstract_products, product_bounds, range_constraints

from tactl.passes.alg_to_rta.context import Context
from tactl.passes.alg_to_rta.thresholds import negate


class Solver:
    """Satisfiability of guards under the resilience condition (received counts ≥ 0)."""

    def __init__(self, ctx: Context) -> None:
        import z3  # lazy: commands that never ask a solver question start without loading z3

        self.z3 = z3
        self.sym = int_symbols()
        self.unknowns = ctx.unknowns
        self.products: set[str] = set()
        self.solver = z3.Solver()
        base = [self.to_z3(e) for e in ctx.rc]
        base += [self.to_z3(e) for e in ctx.unknown_constraints]
        base += [self.to_z3(e) for u in ctx.unknowns.values() for e in range_constraints(u)]
        base += [self.sym(p) >= 0 for p in ctx.parameters]
        base += [self.sym(received(t.name).name) >= 0 for t in ctx.types]
        if len(ctx.layout.coordinator_types) > 1:  # one coordinator: one of its messages at most
            base.append(z3.Sum([self.sym(received(m).name) for m in ctx.layout.coordinator_types])
                        <= 1)
        self.base = base
        self.cache: dict[tuple, bool] = {}
        self.terms: dict[str, object] = {}  # text → z3 formula: paths share their literals
        self.texts: dict[int, tuple[Expr, str]] = {}
        # one solver holds the resilience condition; each query is pushed on it and popped
        self.solver.set("timeout", 5000)
        self.solver.add(*base)

    def to_z3(self, e: Expr):
        """The z3 formula of ``e``; a product of an unknown with a parameter is one variable
        whose range the solver learns when it first appears (ir/unknowns.py): a path is pruned
        only if it is infeasible for every value of the unknowns."""
        if self.unknowns:
            e, keys = abstract_products(e)
            for key in keys:
                if key not in self.products:
                    self.products.add(key)
                    self.solver.add(*(to_z3(b, self.sym) for b in product_bounds(key, self.unknowns)))
        return to_z3(e, self.sym)

    def text(self, e: Expr) -> str:
        """``to_text(e)``, remembered for the large formulas a guard's simplification asks about
        again and again (kept alive with their text, so that an id is never reused)."""
        hit = self.texts.get(id(e))
        if hit is None:
            hit = self.texts[id(e)] = (e, to_text(e))
        return hit[1]

    def sat(self, exprs: Iterable[Expr]) -> bool:
        texts = {}
        for e in exprs:
            texts.setdefault(self.text(e) if not isinstance(e, Compare) else to_text(e), e)
        key = tuple(sorted(texts))
        if key not in self.cache:
            for text, e in texts.items():
                if text not in self.terms:
                    self.terms[text] = self.to_z3(e)
            self.solver.push()
            try:
                self.solver.add(*(self.terms[t] for t in key))
                self.cache[key] = self.solver.check() != self.z3.unsat  # unknown: keep the path
            finally:
                self.solver.pop()
        return self.cache[key]

    def implies(self, premise: list[Expr], conclusion: Expr) -> bool:
        return not self.sat([*premise, negate(conclusion)])


def simplified_guard(solver: Solver, paths: list[dict[str, tuple[Expr, bool]]]) -> Expr:
    """The disjunction of the paths' conditions, simplified: complementary literals merged
    (``a∧b ∨ a∧¬b`` → ``a``), subsumed paths dropped, literals implied by the others dropped."""
    atoms: dict[str, Expr] = {}
    cubes: set[frozenset] = set()
    for lits in paths:
        for k, (e, _) in lits.items():
            atoms[k] = e
        cubes.add(frozenset((k, v) for k, (_, v) in lits.items()))
    changed = True
    while changed:
        changed = False
        for a in list(cubes):
            for lit in a:
                other = (a - {lit}) | {(lit[0], not lit[1])}
                if other in cubes:
                    cubes -= {a, other}
                    cubes.add(a - {lit})
                    changed = True
                    break
            if changed:
                break
    cubes = {c for c in cubes if not any(o < c for o in cubes)}
    if frozenset() in cubes:
        return BoolConst(True)

    def lit(k: str, v: bool) -> Expr:
        return atoms[k] if v else negate(atoms[k])

    order = list(atoms)
    current = [sorted(c, key=lambda kv: order.index(kv[0]))
               for c in sorted(cubes, key=lambda c: sorted((k, v) for k, v in c))]
    whole = disj(*(conj(*(lit(*x) for x in c)) for c in current))
    not_whole = negate(whole)  # built (and converted) once, asked about for every literal
    # Drop a literal whenever the weakened path still implies the whole guard (under the RC):
    # `a ∧ b ∨ ¬a` becomes `b ∨ ¬a`, and a literal implied by the others disappears.
    for cube in current:
        for item in list(cube):
            rest = [lit(*x) for x in cube if x != item]
            if not solver.sat([*rest, not_whole]):
                cube.remove(item)
    out: list[Expr] = []
    for cube in current:
        e = conj(*(lit(*x) for x in cube))
        if e not in out:
            out.append(e)
    # Drop a path implied by the others (`a ∨ (b ∧ c)` where `b ∧ c` ⇒ `a` under the RC).
    for e in list(out):
        rest = [o for o in out if o is not e]
        if rest and solver.implies([e], disj(*rest)):
            out.remove(e)
    guard = disj(*out)
    if solver.implies([], guard):
        return BoolConst(True)
    return guard
