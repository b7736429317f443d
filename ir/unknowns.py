"""Unknown coefficients of thresholds and of the resilience condition, as ``.alg`` and ``.rta`` write them.

A designer who does not know a threshold writes ``received ECHO from ?a * n + ?b * t + ?c
processes`` and ``resilience n > ?k * t``, with a range per unknown: ``unknowns ?a in 0..1,
?k in 0..5`` (docs/synthesize.md, "From pseudocode"). Inside the receive automaton an unknown is
the name ``?a`` of the one expression tree of ``ir.expr`` — as ``received(M)`` is, never an
identifier of a threshold automaton, so it cannot clash with a parameter or a location. The
translation (``passes/rta_to_ta/unknowns.py``) writes it into the ``.ta`` as ByMC's synthesis
files do: ``unknowns a;`` and ``0 <= a; a <= 1;`` among the assumptions.

An unknown may multiply a parameter (``?a * n``): for fixed unknowns the term is linear, and
along a run it is constant, so every pass treats the product as one more parameter-like term.
:func:`linear_form` is the linear view of an expression in which each such product is one
variable, spelled :func:`product_key` (``?a*n``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.errors import Span
from tactl.ir.expr import Compare, Div, Expr, IntConst, Mul, Name, Neg, Sum, transform, walk
from tactl.ir.linear import LinearTerm, NonLinearError, linearize, term_expr

PREFIX = "?"


@dataclass(frozen=True)
class Unknown:
    """``?a in 0..1``: an unknown integer coefficient and its inclusive range."""

    name: str  # with the prefix: ``?a``
    low: int
    high: int
    span: Span | None = field(default=None, compare=False, repr=False, kw_only=True)

    @property
    def bare(self) -> str:
        """The name without ``?``: how the threshold automaton declares it (``unknowns a;``)."""
        return self.name[len(PREFIX):]

    def text(self) -> str:
        return f"{self.name} in {self.low}..{self.high}"


def is_unknown(name: str) -> bool:
    return name.startswith(PREFIX)


def product_key(unknown: str, factor: str) -> str:
    """The variable that stands for ``unknown * factor`` in :func:`linear_form`."""
    return f"{unknown}*{factor}"


def split_product(key: str) -> tuple[str, str] | None:
    """``("?a", "n")`` for ``?a*n``, else None."""
    if not is_unknown(key) or "*" not in key:
        return None
    unknown, factor = key.split("*", 1)
    return unknown, factor


def unknown_names(e: Expr) -> list[str]:
    """The unknowns ``e`` mentions, in order of first occurrence."""
    return list(dict.fromkeys(n.name for n in walk(e) if isinstance(n, Name) and is_unknown(n.name)))


def _has_unknown(t: LinearTerm) -> bool:
    return any(is_unknown(x) for x in t.variables())


def linear_form(e: Expr) -> LinearTerm:
    """The linear form of an arithmetic tree in which a product of unknowns with a term over the
    other names is expanded into :func:`product_key` variables (``?a * (n + 1)`` →
    ``?a*n + ?a``). Raises :class:`NonLinearError` on two unknowns multiplied, an unknown times a
    product, or any other non-linear term."""
    if isinstance(e, Mul):
        left, right = linear_form(e.left), linear_form(e.right)
        if left.is_constant:
            return right.scale(left.const)
        if right.is_constant:
            return left.scale(right.const)
        if _has_unknown(right) and not _has_unknown(left):
            left, right = right, left
        only_unknowns = all(is_unknown(x) and "*" not in x for x in left.variables())
        if not only_unknowns or _has_unknown(right):
            raise NonLinearError(e)
        coeffs: dict[str, int] = {}
        for u, a in left.coeffs:
            for x, b in right.coeffs:
                key = product_key(u, x)
                coeffs[key] = coeffs.get(key, 0) + a * b
            coeffs[u] = coeffs.get(u, 0) + a * right.const
        for x, b in right.coeffs:
            coeffs[x] = coeffs.get(x, 0) + left.const * b
        return LinearTerm.of(coeffs, left.const * right.const)
    if isinstance(e, Sum):
        total = LinearTerm()
        for sign, arg in e.signed():
            term = linear_form(arg)
            total = total + (term if sign > 0 else -term)
        return total
    if isinstance(e, Neg):
        return -linear_form(e.arg)
    if isinstance(e, Div) and unknown_names(e):
        raise NonLinearError(e)
    return linearize(e)


def product_expr(key: str) -> Expr:
    """``?a * n`` for the key ``?a*n``, the name otherwise."""
    parts = split_product(key)
    return Name(key) if parts is None else Mul(Name(parts[0]), Name(parts[1]))


def render(coeffs, const: int = 0) -> Expr:
    """``Σ a·x + const`` as a tree, products of unknowns written ``?a * n`` (``term_expr``)."""
    return term_expr(coeffs, const, rename=product_expr)


def range_constraints(u: Unknown, name: str | None = None) -> tuple[Expr, Expr]:
    """``low <= u`` and ``u <= high``, as ByMC's synthesis files bound their unknowns."""
    ref = Name(name or u.name)
    return (Compare("<=", _int(u.low), ref), Compare("<=", ref, _int(u.high)))


def _int(v: int) -> Expr:
    return IntConst(v) if v >= 0 else Neg(IntConst(-v))


def abstract_products(e: Expr) -> tuple[Expr, tuple[str, ...]]:
    """``e`` with every comparison that multiplies an unknown rewritten over product variables
    (``received(ECHO) >= ?a * n`` → ``received(ECHO) - ?a*n >= 0``, ``?a*n`` one name), and the
    product keys it mentions: a linear formula a solver takes, to be read with
    :func:`product_bounds` (which relate each product to its unknown's range)."""
    keys: dict[str, None] = {}

    def rewrite(node: Expr) -> Expr | None:
        if not isinstance(node, Compare) or not any(isinstance(x, Mul) for x in walk(node)):
            return None
        if not unknown_names(node):
            return None
        diff = linear_form(node.left) - linear_form(node.right)
        keys.update((x, None) for x in diff.variables() if split_product(x))
        return Compare(node.op, term_expr(diff.coeffs, diff.const), IntConst(0))

    return transform(e, rewrite), tuple(keys)


def product_bounds(key: str, unknowns: dict[str, Unknown]) -> tuple[Expr, Expr]:
    """``low·n <= ?a*n <= high·n`` for the product key ``?a*n`` (``n`` is a parameter, so
    non-negative): what the product's value is known to satisfy, in linear form."""
    u, x = split_product(key)  # type: ignore[misc]
    known = unknowns[u]
    p = Name(key)
    return (Compare(">=", p, term_expr([(x, known.low)]) if known.low else IntConst(0)),
            Compare("<=", p, term_expr([(x, known.high)]) if known.high else IntConst(0)))


def unknowns_reason(names) -> str:
    """Why an automaton with unknowns gets no verdict: every engine says it alike."""
    return f"the automaton has synthesis unknowns ({', '.join(names)}); give them values first"


__all__ = ["PREFIX", "Unknown", "NonLinearError", "abstract_products", "is_unknown", "linear_form",
           "product_bounds", "product_expr", "product_key", "range_constraints", "render", "split_product",
           "unknown_names", "unknowns_reason"]
