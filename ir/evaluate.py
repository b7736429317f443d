"""Concrete evaluation of expressions: the semantics the simulator and the explicit engine share.

Deliberately written against the expression tree alone (no linear normal form, no solver), so
that a counterexample found through the SMT encoding is confirmed by code that shares nothing
with that encoding.
"""

from __future__ import annotations

from collections.abc import Mapping

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
    to_text,
)

_COMPARE = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b,
}


class EvaluationError(ValueError):
    """A name without a value, or a temporal operator where a state formula was expected."""


def evaluate(e: Expr, env: Mapping[str, int]) -> int | bool:
    """The value of a macro-expanded, temporal-free expression under ``env`` (name → integer)."""
    if isinstance(e, IntConst):
        return e.value
    if isinstance(e, Name):
        try:
            return env[e.name]
        except KeyError:
            raise EvaluationError(f"no value for '{e.name}'") from None
    if isinstance(e, Neg):
        return -_int(e.arg, env)
    if isinstance(e, Sum):
        return sum(sign * _int(arg, env) for sign, arg in e.signed())
    if isinstance(e, Mul):
        return _int(e.left, env) * _int(e.right, env)
    if isinstance(e, Div):  # floor division, as SMT-LIB div (see ir.expr.Div for ByMC's rounding)
        divisor = _int(e.right, env)
        if divisor <= 0:
            raise EvaluationError(f"the divisor of '{to_text(e)}' is {divisor}, not positive")
        return _int(e.left, env) // divisor
    if isinstance(e, BoolConst):
        return e.value
    if isinstance(e, Compare):
        return _COMPARE[e.op](_int(e.left, env), _int(e.right, env))
    if isinstance(e, Not):
        return not holds(e.arg, env)
    if isinstance(e, And):
        return all(holds(a, env) for a in e.args)
    if isinstance(e, Or):
        return any(holds(a, env) for a in e.args)
    if isinstance(e, Implies):
        return (not holds(e.left, env)) or holds(e.right, env)
    if isinstance(e, (Always, Eventually)):
        raise EvaluationError(f"temporal formula has no value in one configuration: {to_text(e)}")
    raise TypeError(f"not an expression node: {e!r}")


def holds(e: Expr, env: Mapping[str, int]) -> bool:
    value = evaluate(e, env)
    if not isinstance(value, bool):
        raise EvaluationError(f"expected a formula, found the term '{to_text(e)}'")
    return value


def _int(e: Expr, env: Mapping[str, int]) -> int:
    value = evaluate(e, env)
    if isinstance(value, bool):
        raise EvaluationError(f"expected a term, found the formula '{to_text(e)}'")
    return value
