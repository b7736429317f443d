"""Linear integer arithmetic view of expressions: ``Σ aᵢ·xᵢ ⋈ c`` normal forms and z3 terms.

Threshold automata live in Presburger arithmetic: only multiplication by constants is allowed.
Everything here works on macro-expanded trees (see ``ThresholdAutomaton.expand``) and raises
:class:`NonLinearError`, carrying the span of the offending product, on anything else.

Division (``Div``, floor division by a positive constant) has no linear *normal form* unless its
dividend is constant: :func:`linearize` (hence :func:`normalize`) folds ``6 / 4`` to ``1`` and
raises :class:`NonLinearError` for ``(N + T) / 2``, so no pass mistakes a division for a linear
term; the checkers only ever see automata from which ``passes/ta_to_ta/lower_division.py`` has
eliminated divisions. :func:`to_z3` does translate a division exactly (z3's integer ``div``, which
is floor division for a positive divisor): it is a formula's *meaning*, used where the user's own
automaton is asked about (``show``'s initial locations, the lowering's own side conditions).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tactl.ir.errors import Span
from tactl.ir.expr import (
    Always,
    And,
    BoolConst,
    Compare,
    Div,
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
    constant_value,
    summation,
    to_text,
)


if TYPE_CHECKING:
    import z3  # imported where used: `tactl show`/`fmt` start faster without it


class NonLinearError(ValueError):
    """A product of two non-constant terms (outside linear integer arithmetic)."""

    def __init__(self, expr: Expr) -> None:
        self.expr = expr
        self.span: Span | None = expr.span
        if isinstance(expr, Div):
            super().__init__(
                f"division '{to_text(expr)}' of a non-constant term has no linear normal form "
                "(tactl eliminates such divisions before checking: passes/ta_to_ta/lower_division.py)")
            return
        super().__init__(
            f"non-linear term '{to_text(expr)}': only multiplication by a constant is allowed "
            "(threshold automata use linear integer arithmetic)")


@dataclass(frozen=True, slots=True)
class LinearTerm:
    """``Σ coeffs[x]·x + const`` with integer coefficients; zero coefficients are never stored."""

    coeffs: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(coeffs: Mapping[str, int], const: int = 0) -> LinearTerm:
        return LinearTerm(tuple(sorted((x, a) for x, a in coeffs.items() if a != 0)), const)

    @property
    def coeff_map(self) -> dict[str, int]:
        return dict(self.coeffs)

    @property
    def is_constant(self) -> bool:
        return not self.coeffs

    def variables(self) -> tuple[str, ...]:
        return tuple(x for x, _ in self.coeffs)

    def __add__(self, other: LinearTerm) -> LinearTerm:
        merged = self.coeff_map
        for x, a in other.coeffs:
            merged[x] = merged.get(x, 0) + a
        return LinearTerm.of(merged, self.const + other.const)

    def scale(self, k: int) -> LinearTerm:
        return LinearTerm.of({x: k * a for x, a in self.coeffs}, k * self.const)

    def __neg__(self) -> LinearTerm:
        return self.scale(-1)

    def __sub__(self, other: LinearTerm) -> LinearTerm:
        return self + (-other)

    def evaluate(self, values: Mapping[str, int]) -> int:
        return self.const + sum(a * values[x] for x, a in self.coeffs)

    def __str__(self) -> str:
        out = ""
        for x, a in self.coeffs:
            term = x if abs(a) == 1 else f"{abs(a)} * {x}"
            if not out:
                out = ("-" if a < 0 else "") + term
            else:
                out += (" - " if a < 0 else " + ") + term
        if not out:
            return str(self.const)
        if self.const:
            out += (" - " if self.const < 0 else " + ") + str(abs(self.const))
        return out


def linearize(e: Expr) -> LinearTerm:
    """The linear form of an arithmetic tree (macros must already be expanded)."""
    if isinstance(e, IntConst):
        return LinearTerm((), e.value)
    if isinstance(e, Name):
        return LinearTerm(((e.name, 1),), 0)
    if isinstance(e, Neg):
        return -linearize(e.arg)
    if isinstance(e, Sum):  # one accumulation: adding term by term is quadratic in a long sum
        coeffs: dict[str, int] = {}
        const = 0
        for sign, arg in e.signed():
            term = linearize(arg)
            const += sign * term.const
            for x, a in term.coeffs:
                coeffs[x] = coeffs.get(x, 0) + sign * a
        return LinearTerm.of(coeffs, const)
    if isinstance(e, Mul):
        left, right = linearize(e.left), linearize(e.right)
        if left.is_constant:
            return right.scale(left.const)
        if right.is_constant:
            return left.scale(right.const)
        raise NonLinearError(e)
    if isinstance(e, Div):
        dividend, divisor = linearize(e.left), constant_value(e.right)
        if dividend.is_constant and divisor is not None and divisor > 0:
            return LinearTerm((), dividend.const // divisor)
        raise NonLinearError(e)
    raise TypeError(f"not an arithmetic term: {to_text(e)}")


def term_expr(coeffs, const: int = 0, rename=None) -> Expr:
    """``Σ a·x + const`` as an expression tree (names renamed by ``rename`` if given)."""
    terms: list[tuple[str, Expr]] = []
    for x, a in coeffs:
        name: Expr = rename(x) if rename else Name(x)
        term = name if abs(a) == 1 else Mul(IntConst(abs(a)), name)
        terms.append(("+" if a > 0 else "-", term))
    if const:
        terms.append(("+" if const > 0 else "-", IntConst(abs(const))))
    if not terms:
        return IntConst(0)
    (sign, first), rest = terms[0], terms[1:]
    head = first if sign == "+" else Neg(first)
    return summation(head, rest) if rest else head



# Normalised comparison operators: every integer comparison becomes one of these three.
GE, EQ, NE = ">=", "==", "!="


@dataclass(frozen=True, slots=True)
class LinearAtom:
    """``Σ coeffs·x  op  bound`` with op in {>=, ==, !=}, coefficients divided by their gcd.

    ``<``, ``<=`` and ``>`` are rewritten over the integers (``x < c`` ⇔ ``-x >= 1 - c``), and for
    ``==``/``!=`` the first coefficient is made positive, so two atoms with the same integer
    solutions in this form compare equal.
    """

    coeffs: tuple[tuple[str, int], ...]
    op: str
    bound: int

    def lhs(self) -> LinearTerm:
        return LinearTerm(self.coeffs, 0)

    def __str__(self) -> str:
        return f"{self.lhs()} {self.op} {self.bound}"


def normalize(c: Compare) -> LinearAtom | bool:
    """The :class:`LinearAtom` of a comparison, or a Python bool if it is constant."""
    diff = linearize(c.left) - linearize(c.right)  # diff op 0
    lhs, bound, op = LinearTerm(diff.coeffs), -diff.const, c.op
    if op == "<":
        lhs, bound, op = -lhs, 1 - bound, GE
    elif op == "<=":
        lhs, bound, op = -lhs, -bound, GE
    elif op == ">":
        bound, op = bound + 1, GE
    if lhs.is_constant:
        return {GE: 0 >= bound, EQ: 0 == bound, NE: 0 != bound}[op]
    g = math.gcd(*(a for _, a in lhs.coeffs))
    if op == GE:
        return LinearAtom(_div(lhs, g), GE, -((-bound) // g))  # ceil(bound / g)
    if bound % g != 0:  # g·y == bound has no integer solution
        return op == NE
    coeffs = _div(lhs, g)
    if coeffs[0][1] < 0:
        coeffs = tuple((x, -a) for x, a in coeffs)
        bound = -bound
    return LinearAtom(coeffs, op, bound // g)


def _div(t: LinearTerm, g: int) -> tuple[tuple[str, int], ...]:
    return tuple((x, a // g) for x, a in t.coeffs)


# ------------------------------------------------------------------------------------------ z3

Symbols = Callable[[str], "z3.ArithRef"]


def int_symbols() -> Symbols:
    """A symbol table that makes one ``z3.Int`` per name, on first use."""
    import z3  # lazy: z3 is slow to import; reading and printing need no solver

    table: dict[str, z3.ArithRef] = {}

    def lookup(name: str) -> z3.ArithRef:
        if name not in table:
            table[name] = z3.Int(name)
        return table[name]

    return lookup


_COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
            ">=": operator.ge, ">": operator.gt}


def to_z3(e: Expr, symbols: Symbols | None = None, ctx: z3.Context | None = None) -> z3.ExprRef:
    """The z3 term (Int) or formula (Bool) of a macro-expanded, temporal-free expression, its
    constants in the z3 context ``ctx`` (default: z3's main one; ``symbols`` must make theirs
    there too).

    Products are checked for linearity first, so the result always stays in QF_LIA.
    """
    sym = symbols or int_symbols()
    return _z3(e, sym, ctx)


def _z3(e: Expr, sym: Symbols, ctx: z3.Context | None = None) -> z3.ExprRef:
    import z3  # lazy: z3 is slow to import (a dictionary lookup once loaded)

    if isinstance(e, IntConst):
        return z3.IntVal(e.value, ctx)
    if isinstance(e, Name):
        return sym(e.name)
    if isinstance(e, Neg):
        return -_z3(e.arg, sym, ctx)
    if isinstance(e, Sum):
        return z3.Sum([_z3(arg, sym, ctx) if sign > 0 else -_z3(arg, sym, ctx) for sign, arg in e.signed()])
    if isinstance(e, Mul):
        linearize(e)  # raises NonLinearError on a product of two variables
        return _z3(e.left, sym, ctx) * _z3(e.right, sym, ctx)
    if isinstance(e, Div):
        divisor = constant_value(e.right)
        if divisor is None or divisor <= 0:
            raise NonLinearError(e)
        return _z3(e.left, sym, ctx) / z3.IntVal(divisor, ctx)  # Int / Int is SMT-LIB div: floor here
    if isinstance(e, BoolConst):
        return z3.BoolVal(e.value, ctx)
    if isinstance(e, Compare):
        left, right = _z3(e.left, sym, ctx), _z3(e.right, sym, ctx)
        return _COMPARE[e.op](left, right)  # one comparison built (== and != also on Bools)
    if isinstance(e, Not):
        return z3.Not(_z3(e.arg, sym, ctx))
    if isinstance(e, And):
        return z3.And(*(_z3(a, sym, ctx) for a in e.args))
    if isinstance(e, Or):
        return z3.Or(*(_z3(a, sym, ctx) for a in e.args))
    if isinstance(e, Implies):
        return z3.Implies(_z3(e.left, sym, ctx), _z3(e.right, sym, ctx))
    if isinstance(e, (Always, Eventually)):
        raise ValueError(f"temporal formula has no z3 term: {to_text(e)}")
    raise TypeError(f"not an expression node: {e!r}")


def first_unsatisfiable(solver, layers) -> tuple[bool | None, str]:
    """Add ``layers`` — (why, z3 constraints) pairs, skipped when empty — to ``solver``:
    ``(False, why)`` for the first that makes them unsatisfiable, ``(None, "")`` when z3
    gives up, ``(True, "")`` when all are satisfiable together. Both "is there an initial
    configuration" questions (interleaving and lock-step) say *which* requirement empties the set.
    All layers are asked together first: the usual answer (sat) then costs one query, and the
    layer-by-layer search for *why* runs only when the set is empty."""
    import z3  # lazy: z3 is slow to import; reading and printing need no solver

    layers = [(why, constraints) for why, constraints in layers if constraints]
    solver.push()
    solver.add(*(c for _, cs in layers for c in cs))
    answer = solver.check()
    solver.pop()
    if answer == z3.sat:
        return True, ""
    if answer != z3.sat and answer != z3.unsat:
        return None, ""
    for why, constraints in layers:
        solver.add(*constraints)
        answer = solver.check()
        if answer == z3.unsat:
            return False, why
        if answer != z3.sat:
            return None, ""
    return None, ""  # unsat together but sat layer by layer: z3 contradicted itself
