"""The values the symbolic execution of a Promela step computes with, and its refusal.

A local's value during the walk (``passes/pml_to_rta/walk.py``) is an ``int``/``bool`` where it
is concrete, an ``ir`` expression over parameters and receive counts where it is not, or one of
the markers below for a receive variable. The pure helpers here combine such values as Promela's
operators do and lift them to ``ir`` expressions; nothing in this module knows the translation's
state (``passes/pml_to_rta/state.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.errors import Span
from tactl.ir.expr import And, BoolConst, Compare, Expr, Mul, Name, Not, Or, conj, const, disj, summation
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import received

OBLIGATION = "an assume/assert"  # scope of value(): shared counters read as sent(M)
FORCED = " forced "  # env key prefix (+ next_x): the receive choice had no "no receive" option
START = "@start "  # prefix: a location's counter in the initial configuration
RESETS = " resets"  # env key: the counters whose receive variable the path reset to 0
FILE_CRASH = " file crash"  # marker send: the file's own crash counter's increment
CRASH_SYMBOL = " crashed"  # the file's crash counter in conditions (only stutter paths may read it)
CRASH_SEND = " crash"  # marker send: the crash counter's increment (never a message name)
HAVOC_DONE = " havoc done"  # env key: the havoc receive variables whose receive the path decided
SOURCE = " source"  # env key: the location the step starts at
HAVOC_RESETS = " havoc resets"  # env key: counter -> the span of the `next_x = 0` of a havoc receive


class Refuse(Exception):
    """What the front end does not support, at its position; ``translate_promela`` turns it into
    an :class:`InputError` (``passes/pml_to_rta/translation.py``)."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.span = message, span


def refuse(message: str, span: Span | None) -> Refuse:
    return Refuse(message, span)


@dataclass(frozen=True)
class Rcv:
    """Marker value: the abstract receive count received(counter)."""

    counter: str


@dataclass(frozen=True)
class Frozen:
    """Marker value: the count of a receive variable whose receive is disabled at this location
    (the count the process entered with; readable only where it is known)."""

    counter: str


@dataclass
class StepPath:
    """One path through the step: the locals' values, its condition, its sends, its lines."""

    env: dict[str, object]
    cond: list[Expr] = field(default_factory=list)
    sends: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)


def condition(g: object, span: Span | None) -> Expr:
    """``g`` as a condition: a comparison or a combination of them (an arithmetic term is
    refused: a Promela guard 'x' meaning 'x != 0' over parameters is not supported)."""
    e = lift(g)
    if not is_condition(e):
        raise refuse("expected a condition (a comparison) here", span)
    return e


def var_name(e: P.PExpr) -> str | None:
    if isinstance(e, P.PName):
        return e.name
    if isinstance(e, P.PQualified):
        return e.var
    return None


def qualify(e: P.PExpr, proc: str) -> P.PExpr:
    """``Proc:pc`` → ``pc`` (refusing another proctype's name)."""
    if isinstance(e, P.PQualified):
        if e.proc != proc:
            raise refuse(f"unknown proctype '{e.proc}'", e.span)
        return P.PName(name=e.var, span=e.span)
    if isinstance(e, P.PUnary):
        return P.PUnary(op=e.op, arg=qualify(e.arg, proc), span=e.span)
    if isinstance(e, P.PBinary):
        return P.PBinary(op=e.op, left=qualify(e.left, proc), right=qualify(e.right, proc), span=e.span)
    if isinstance(e, P.PCall):
        raise refuse(f"'{e.func}' nested inside a process condition", e.span)
    return e


def is_condition(e: Expr) -> bool:
    if isinstance(e, (Compare, BoolConst)):
        return True
    if isinstance(e, (And, Or)):
        return all(is_condition(a) for a in e.args)
    if isinstance(e, Not):
        return is_condition(e.arg)
    return False


def lift(v: object) -> Expr:
    if isinstance(v, bool):
        return BoolConst(v)
    if isinstance(v, int):
        return const(v)  # a negative one too: '#define M -1' makes 'T - M' the text 'T - -1'
    assert isinstance(v, Expr), v
    return v


def dedupe(items: list[Expr]) -> list[Expr]:
    out: list[Expr] = []
    for a in items:
        if a not in out:
            out.append(a)
    return out


def lower_bound(a: Expr, counter: str) -> bool:
    """``received(M) >= e`` or ``> e`` with ``e`` free of the receive count: upward closed."""
    rcv = received(counter)
    return (isinstance(a, Compare) and a.op in (">=", ">") and a.left == rcv
            and rcv not in expr_names(a.right))


def expr_names(e: Expr) -> list[Name]:
    from tactl.ir.expr import names  # lazy: avoids widening the module's import list

    return list(names(e))


def is_received(v: object, counter: str) -> bool:
    return isinstance(v, Name) and v.name == received(counter).name


def negate_any(guards: list[object]) -> object:
    if any(g is True or (isinstance(g, int) and not isinstance(g, bool) and g) for g in guards):
        return False
    rest = [lift(g) for g in guards if g is not False and not (isinstance(g, int) and not g)]
    return Not(disj(*rest)) if rest else True


CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
       "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def is_term(v: object) -> bool:
    """An arithmetic value: an int (not a truth value) or an arithmetic expression."""
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, Expr) and not is_condition(v))


def is_truth(v: object) -> bool:
    return isinstance(v, bool) or (isinstance(v, Expr) and is_condition(v))


def binary(op: str, a: object, b: object, span: Span | None) -> object:
    if op in ("&&", "||"):
        if not ((is_truth(a) or isinstance(a, int)) and (is_truth(b) or isinstance(b, int))):
            raise refuse(f"the operands of '{op}' must be conditions", span)
    elif not (is_term(a) and is_term(b)):
        raise refuse(f"the operands of '{op}' must be numbers", span)
    concrete = not isinstance(a, Expr) and not isinstance(b, Expr)
    if op in CMP:
        return CMP[op](a, b) if concrete else Compare(op, lift(a), lift(b))
    if op in ("&&", "||"):
        if concrete:
            return (bool(a) and bool(b)) if op == "&&" else (bool(a) or bool(b))
        unit = op == "&&"  # the operand that changes nothing (True for &&, False for ||)
        if b is unit:
            return a
        if b is (not unit):  # the absorbing one decides
            return not unit
        if a is unit:
            return b
        return (conj if op == "&&" else disj)(lift(a), lift(b))
    if op in "+-":
        if not concrete and isinstance(b, int) and not isinstance(b, bool) and b < 0:
            op, b = "+-"[op == "+"], -b  # 'T - -1' (a macro's text) is T + 1
        return (a + b if op == "+" else a - b) if concrete else summation(lift(a), [(op, lift(b))])  # type: ignore[operator]
    if op == "*":
        if concrete:
            return a * b  # type: ignore[operator]
        if isinstance(a, int) or isinstance(b, int):
            return Mul(lift(a), lift(b))
    raise refuse(f"the operator '{op}' is not supported here", span)


def bad_ltl_operator(e: P.PExpr) -> Expr:
    raise refuse(f"'{getattr(e, 'op', '?')}' in an ltl formula", e.span)
