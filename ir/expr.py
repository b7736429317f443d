"""Expression AST shared by every IR: integer terms, Boolean guards and LTL formulas.

One tree type covers all three because the ByMC text format writes them with one expression
syntax (a guard is a formula without temporal operators; a term is what sits under a comparison).
Nodes keep the user's structure — macro names, parentheses that change meaning, operator order — so
that the canonical printer re-reads to the very same tree; semantic views (linear normal form, z3
terms) are computed from it in ``ir.linear``.

Invariants that make ``parse(print(e)) == e`` hold for every tree built through this module:
``IntConst`` is never negative (``-1`` is ``Neg(IntConst(1))``; use :func:`const`), and ``And``/``Or``
have at least two arguments and never a direct child of their own kind (use :func:`conj`/:func:`disj`).
Source spans take no part in equality.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from tactl.ir.errors import Span

# --------------------------------------------------------------------------------------- nodes


@dataclass(frozen=True, slots=True)
class Expr:
    """Base of every node; ``span`` locates the node in its source text (if it came from one)."""

    def children(self) -> tuple[Expr, ...]:
        return ()


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class IntConst(Expr):
    """A natural-number literal (negative constants are ``Neg`` of one, see ``const``)."""
    value: int
    span: Span | None = _span()

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("IntConst holds non-negative values; use const() for negative ones")


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A reference to a declared symbol: parameter, shared/local variable, location counter or macro."""

    name: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class _Unary(Expr):
    """A node with one operand (negation, ``!``, the temporal operators)."""
    arg: Expr
    span: Span | None = _span()

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)


@dataclass(frozen=True, slots=True)
class _Binary(Expr):
    """A node with two operands (product, division, implication)."""
    left: Expr
    right: Expr
    span: Span | None = _span()

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, slots=True)
class Neg(_Unary):
    """Unary minus."""


_SIGNS = frozenset(("+", "-"))


@dataclass(frozen=True, slots=True)
class Sum(Expr):
    """``args[0] ops[0] args[1] ops[1] …`` with every op ``+`` or ``-``.

    N-ary, so that the long sums of generated automata (``loc0 + … + loc599 == N``) stay shallow
    trees. ``args[0]`` is never itself a ``Sum`` (use :func:`add`/:func:`sub`, which flatten); a
    ``Sum`` further right stands for a parenthesised group and is printed as one.
    """

    args: tuple[Expr, ...]
    ops: tuple[str, ...]
    span: Span | None = _span()

    def __post_init__(self) -> None:
        if len(self.args) < 2 or len(self.ops) != len(self.args) - 1:
            raise ValueError("Sum needs n >= 2 arguments and n - 1 operators")
        if not _SIGNS.issuperset(self.ops):
            raise ValueError(f"Sum operators are '+' and '-', not {self.ops!r}")
        if isinstance(self.args[0], Sum):
            raise ValueError("a Sum's first argument is not a Sum: build it with add()/sub()")

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def signed(self) -> Iterator[tuple[int, Expr]]:
        """``(+1 or -1, term)`` for each argument."""
        yield 1, self.args[0]
        for op, arg in zip(self.ops, self.args[1:]):
            yield (1 if op == "+" else -1), arg


@dataclass(frozen=True, slots=True)
class Mul(_Binary):
    """``left * right``; linear only when one side is constant (see ``ir.linear``)."""


@dataclass(frozen=True, slots=True)
class Div(_Binary):
    """``left / right``: integer division of a term by a positive integer constant, rounding
    down (floor; the same as SMT-LIB ``div`` and Python ``//`` for a positive divisor).

    ByMC reads ``/`` in expressions (its thresholds are written ``(N + T) / 2 + 1``); the node
    keeps the user's division so that ``tactl fmt``/``show`` print it back, and
    ``passes/ta_to_ta/lower_division.py`` eliminates it exactly (a fresh parameter and two linear
    constraints, or an equivalent linear comparison) before any engine runs. The readers admit
    only divisors that fold to a positive integer (see :func:`constant_value`).

    Rounding: ByMC's SMT back end (``bymc/src/smt.ml``, ``expr_to_smt2``) prints ``DIV`` as
    SMT-LIB ``(div l r)``, which is floor division for a positive divisor, while its concrete
    evaluator (``bymc/src/spinIrEval.ml``, ``eval_expr``) uses OCaml's ``/``, which truncates
    towards zero. The two agree on non-negative dividends — every threshold over parameters in
    practice. tactl uses floor everywhere (evaluation, z3, lowering), so that one semantics holds
    for negative dividends too, and it is the one of ByMC's solver back end.
    """


@dataclass(frozen=True, slots=True)
class BoolConst(Expr):
    """``true`` or ``false``."""
    value: bool
    span: Span | None = _span()


COMPARE_OPS = ("<", "<=", "==", "!=", ">=", ">")


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    """A comparison ``left op right`` of two integer terms (``==``/``!=`` also of formulas)."""
    op: str  # one of COMPARE_OPS
    left: Expr
    right: Expr
    span: Span | None = _span()

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, slots=True)
class Not(_Unary):
    """``!arg``."""


@dataclass(frozen=True, slots=True)
class _NAry(Expr):
    """A flat conjunction or disjunction of two or more operands (none of the same kind)."""
    args: tuple[Expr, ...]
    span: Span | None = _span()

    def __post_init__(self) -> None:
        if len(self.args) < 2:
            raise ValueError(f"{type(self).__name__} needs two or more arguments")
        if any(type(a) is type(self) for a in self.args):
            raise ValueError(f"nested {type(self).__name__}: build it with conj()/disj()")

    def children(self) -> tuple[Expr, ...]:
        return self.args


@dataclass(frozen=True, slots=True)
class And(_NAry):
    """``a && b && …``."""


@dataclass(frozen=True, slots=True)
class Or(_NAry):
    """``a || b || …``."""


@dataclass(frozen=True, slots=True)
class Implies(_Binary):
    """``left -> right``."""


@dataclass(frozen=True, slots=True)
class Always(_Unary):
    """LTL ``[] arg``."""


@dataclass(frozen=True, slots=True)
class Eventually(_Unary):
    """LTL ``<> arg``."""


ARITH_NODES = (IntConst, Name, Neg, Sum, Mul, Div)
TEMPORAL_NODES = (Always, Eventually)

# ---------------------------------------------------------------------------- smart constructors


def const(value: int, span: Span | None = None) -> Expr:
    """An integer literal; negative values become ``Neg(IntConst(-value))`` as the parser reads them."""
    if value < 0:
        return Neg(IntConst(-value, span=span), span=span)
    return IntConst(value, span=span)


def add(left: Expr, right: Expr, span: Span | None = None) -> Sum:
    """``left + right``, extending ``left`` if it is already a sum."""
    return _sum(left, "+", right, span)


def sub(left: Expr, right: Expr, span: Span | None = None) -> Sum:
    """``left - right``, extending ``left`` if it is already a sum."""
    return _sum(left, "-", right, span)


def _sum(left: Expr, op: str, right: Expr, span: Span | None) -> Sum:
    return summation(left, [(op, right)], span)  # type: ignore[return-value]


def summation(first: Expr, rest: Iterable[tuple[str, Expr]], span: Span | None = None) -> Expr:
    """``first op₁ t₁ op₂ t₂ …`` built in one step (linear in its length); ``first`` if no terms."""
    args, ops = ([*first.args], [*first.ops]) if isinstance(first, Sum) else ([first], [])
    for op, term in rest:
        ops.append(op)
        args.append(term)
    return Sum(tuple(args), tuple(ops), span=span) if ops else first


def conj(*args: Expr, span: Span | None = None) -> Expr:
    """``a && b && …`` flattened; ``true`` for no arguments, the argument itself for one."""
    return _nary(And, args, BoolConst(True), span)


def disj(*args: Expr, span: Span | None = None) -> Expr:
    """``a || b || …`` flattened; ``false`` for no arguments, the argument itself for one."""
    return _nary(Or, args, BoolConst(False), span)


def _nary(kind: type[_NAry], args: tuple[Expr, ...], unit: Expr, span: Span | None) -> Expr:
    flat: list[Expr] = []
    for a in args:
        flat.extend(a.args if isinstance(a, kind) else (a,))
    if not flat:
        return unit
    if len(flat) == 1:
        return flat[0]
    return kind(tuple(flat), span=span)


# ------------------------------------------------------------------------------------ queries


def walk(e: Expr) -> Iterator[Expr]:
    """Every node of ``e``, parents before children."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children()))


def names(e: Expr) -> Iterator[Name]:
    """Every ``Name`` occurrence in ``e`` (with its span), in source order."""
    return (n for n in walk(e) if isinstance(n, Name))


def is_arith(e: Expr) -> bool:
    return isinstance(e, ARITH_NODES)


def is_temporal(e: Expr) -> bool:
    """True if an LTL operator occurs anywhere in ``e``."""
    return any(isinstance(n, TEMPORAL_NODES) for n in walk(e))


def constant_value(e: Expr) -> int | None:
    """The integer a name-free arithmetic term folds to (floor division), or None.

    None for a term with a name (even a macro: the reader sees no macro bodies), a formula, or a
    division by a constant that is not positive; used to check divisors, which must fold to a
    positive integer.
    """
    if isinstance(e, IntConst):
        return e.value
    if isinstance(e, Neg):
        v = constant_value(e.arg)
        return None if v is None else -v
    if isinstance(e, Sum):
        total = 0
        for sign, arg in e.signed():
            v = constant_value(arg)
            if v is None:
                return None
            total += sign * v
        return total
    if isinstance(e, (Mul, Div)):
        left, right = constant_value(e.left), constant_value(e.right)
        if left is None or right is None:
            return None
        if isinstance(e, Mul):
            return left * right
        return left // right if right > 0 else None
    return None


def substitute(e: Expr, mapping: Mapping[str, Expr]) -> Expr:
    """Replace names by expressions (used to expand ``define`` macros); spans of the rest are kept."""
    return transform(e, lambda n: mapping.get(n.name) if isinstance(n, Name) else None)


def transform(e: Expr, rewrite: Callable[[Expr], Expr | None]) -> Expr:
    """Bottom-up rebuild: ``rewrite(node)`` returns a replacement or None to keep the node."""
    new = rewrite(e)
    if new is not None:
        return new
    if isinstance(e, _Unary):
        arg = transform(e.arg, rewrite)
        return e if arg is e.arg else replace(e, arg=arg)
    if isinstance(e, Sum):
        args = tuple(transform(a, rewrite) for a in e.args)
        if all(a is b for a, b in zip(args, e.args)):
            return e
        return summation(args[0], zip(e.ops, args[1:]), e.span)
    if isinstance(e, (_Binary, Compare)):
        left, right = transform(e.left, rewrite), transform(e.right, rewrite)
        return e if (left is e.left and right is e.right) else replace(e, left=left, right=right)
    if isinstance(e, (And, Or)):
        args = tuple(transform(a, rewrite) for a in e.args)
        if all(a is b for a, b in zip(args, e.args)):
            return e
        return (conj if isinstance(e, And) else disj)(*args, span=e.span)
    return e


# ----------------------------------------------------------------------------------- printing

# Binding strength, loosest first. The printer adds parentheses only where the grammar in
# ir/ta/ta.lark would otherwise group differently, plus a few for readability (`&&` under `||`).
_PREC_IMPLIES, _PREC_OR, _PREC_AND, _PREC_UNARY, _PREC_CMP, _PREC_SUM, _PREC_MUL, _PREC_NEG, _PREC_ATOM = range(9)


def _prec(e: Expr) -> int:
    if isinstance(e, Implies):
        return _PREC_IMPLIES
    if isinstance(e, Or):
        return _PREC_OR
    if isinstance(e, And):
        return _PREC_AND
    if isinstance(e, (Not, Always, Eventually)):
        return _PREC_UNARY
    if isinstance(e, Compare):
        return _PREC_CMP
    if isinstance(e, Sum):
        return _PREC_SUM
    if isinstance(e, (Mul, Div)):  # one level, left-associative, as in the grammar
        return _PREC_MUL
    if isinstance(e, Neg):
        return _PREC_NEG
    return _PREC_ATOM


def to_text(e: Expr) -> str:
    """Canonical ByMC-syntax text of ``e``; re-parsing it yields an equal tree."""
    if isinstance(e, IntConst):
        return str(e.value)
    if isinstance(e, Name):
        return e.name
    if isinstance(e, BoolConst):
        return "true" if e.value else "false"
    if isinstance(e, Neg):
        return "-" + _wrap(e.arg, _prec(e.arg) < _PREC_NEG)
    if isinstance(e, Sum):
        parts = [_wrap(e.args[0], _prec(e.args[0]) < _PREC_SUM)]
        for op, arg in zip(e.ops, e.args[1:]):
            parts.append(f"{op} {_wrap(arg, _prec(arg) <= _PREC_SUM)}")
        return " ".join(parts)
    if isinstance(e, (Mul, Div)):
        op = "*" if isinstance(e, Mul) else "/"
        return f"{_wrap(e.left, _prec(e.left) < _PREC_MUL)} {op} {_wrap(e.right, _prec(e.right) <= _PREC_MUL)}"
    if isinstance(e, Compare):
        return f"{_wrap(e.left, _prec(e.left) <= _PREC_CMP)} {e.op} {_wrap(e.right, _prec(e.right) <= _PREC_CMP)}"
    if isinstance(e, (Not, Always, Eventually)):
        op = {Not: "!", Always: "[]", Eventually: "<>"}[type(e)]
        bare = isinstance(e.arg, (Name, IntConst, BoolConst, Always, Eventually))
        return op + _wrap(e.arg, not bare)
    if isinstance(e, And):
        return " && ".join(_wrap(a, _prec(a) <= _PREC_AND) for a in e.args)
    if isinstance(e, Or):
        # `a && b || c` would re-read correctly, but people read `(a && b) || c` faster.
        return " || ".join(_wrap(a, _prec(a) <= _PREC_AND) for a in e.args)
    if isinstance(e, Implies):
        # The grammar needs parentheses only for an implication on the left, but `(a || b) -> c`
        # and `a -> (b -> c)` are how people write and read these.
        return f"{_wrap(e.left, _prec(e.left) <= _PREC_AND)} -> {_wrap(e.right, _prec(e.right) <= _PREC_AND)}"
    raise TypeError(f"not an expression node: {e!r}")


def _wrap(e: Expr, parens: bool) -> str:
    text = to_text(e)
    return f"({text})" if parens else text
