"""Promela expressions evaluated over a path's locals: concrete where they can be, else ``ir``.

``value`` is the evaluator of the step, the initialisation and the propositions (``scope`` says
which, for the messages and for how a shared counter reads); ``division`` reads Promela's
truncating ``/`` and ``%`` exactly or refuses; ``linear`` reads a receive bound as a sum of names.
"""

from __future__ import annotations

from tactl.ir.errors import Span
from tactl.ir.expr import Compare, Expr, IntConst, Name, Not, summation
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import received
from tactl.passes.pml_to_rta import multi as PM
from tactl.passes.pml_to_rta.solving import valid
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import (CMP, CRASH_SYMBOL, OBLIGATION, Frozen, Rcv, binary, is_condition,
                                            is_term, lift, refuse)


def const(tr: TranslationState, e: P.PExpr) -> int | None:
    v = value(tr, e, {}, allow_symbolic=False)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def param_expr(tr: TranslationState, e: P.PExpr) -> Expr:
    v = value(tr, e, {}, allow_symbolic=True, scope="assume")
    return lift(v)


def linear(tr: TranslationState, e: P.PExpr) -> dict[str, int]:
    """``e`` as name → coefficient ('' the constant), over names and defines."""
    if isinstance(e, P.PInt):
        return {"": e.value}
    if isinstance(e, P.PName):
        return {e.name: 1}
    if isinstance(e, P.PUnary) and e.op == "-":
        return {k: -v for k, v in linear(tr, e.arg).items()}
    if isinstance(e, P.PBinary) and e.op in "+-":
        out = dict(linear(tr, e.left))
        for k, v in linear(tr, e.right).items():
            out[k] = out.get(k, 0) + (v if e.op == "+" else -v)
        return {k: v for k, v in out.items() if v != 0}
    raise refuse("expected a sum of names and constants here", e.span)


def value(tr: TranslationState, e: P.PExpr, env: dict[str, object], allow_symbolic: bool = True,
          scope: str = "step") -> object:
    """``e`` evaluated: an int or bool where concrete, else an ``ir`` expression over
    parameters and the receive counters (a :class:`multi.FloorTerm` for a division
    not yet compared)."""
    if isinstance(e, P.PInt):
        return e.value
    if isinstance(e, P.PName):
        n = e.name
        if n in env:
            v = env[n]
            if isinstance(v, Rcv):
                return received(v.counter)
            if isinstance(v, Frozen):
                if scope == OBLIGATION:  # any count it has satisfies the receive bound
                    return received(v.counter)
                raise refuse(f"the step reads '{n}' where its receive choice is disabled: its "
                             "count is the one the process entered with, which tactl would "
                             "need per location", e.span)
            return v
        if n in tr.params and allow_symbolic:
            return Name(n)
        if n in tr.shared:
            return shared_value(tr, n, e.span, scope)
        if n == "true":
            return True
        if n == "false":
            return False
        raise refuse(f"unknown name '{n}' in {scope}{defined_later(tr, n, e.span)}", e.span)
    if isinstance(e, P.PUnary):
        v = value(tr, e.arg, env, allow_symbolic, scope)
        if isinstance(v, PM.FloorTerm):
            raise refuse("a division is supported only in a comparison", e.span)
        if e.op == "!" and isinstance(v, Expr) and not is_condition(v) or \
                e.op == "-" and not is_term(v):
            raise refuse(f"'{e.op}' of the wrong kind of operand", e.span)
        if e.op == "!":
            return (not v) if isinstance(v, bool) else Not(lift(v))
        if e.op == "-":
            return -v if isinstance(v, int) and not isinstance(v, bool) else summation(IntConst(0), [("-", lift(v))])
        raise refuse(f"'{e.op}' outside an ltl formula", e.span)
    if isinstance(e, P.PBinary):
        a = value(tr, e.left, env, allow_symbolic, scope)
        if e.op == "&&" and a is False or e.op == "||" and a is True:
            return a
        b = value(tr, e.right, env, allow_symbolic, scope)
        if e.op in ("/", "%") or isinstance(a, PM.FloorTerm) or isinstance(b, PM.FloorTerm):
            return division(tr, e, a, b)
        return binary(e.op, a, b, e.span)
    raise refuse("this expression is not supported in " + scope, e.span)


def defined_later(tr: TranslationState, n: str, span: Span | None) -> str:
    """Why a name that a later ``#define`` names is unknown here: cpp substitutes a
    macro only from its definition on, so SPIN and ByMC reject the file too."""
    later = [d.span.line for d in tr.m.defines if d.name == n and d.span and span and d.span.line > span.line]
    return (f": '#define {n}' comes only at line {later[0]}, and a macro means something only "
            "after its definition (cpp)") if later else ""


def shared_value(tr: TranslationState, n: str, span: Span | None, scope: str) -> object:
    """A shared counter read outside the receive bounds and sends: concrete in the
    initialisation, its fixed value where the initialisation set it and the step never
    changes it, the crash counter (only in the crash option and the paths it disables), or
    ``sent(M)`` in an ``assume``/``assert`` the translation must prove always true."""
    if tr.shared_env is not None:
        return tr.shared_env.get(n, 0)
    if n in tr.init_values:
        return tr.init_values[n]
    if n == tr.file_crash and scope == "step":
        return Name(CRASH_SYMBOL)
    if tr.direct and n in tr.counters and scope == "step":  # a threshold guard (direct.py)
        return received(n)
    if scope == OBLIGATION:
        return Name(f"sent {n}")
    raise refuse(f"the shared variable '{n}' is used outside the receive bound and "
                 "sends", span)


def division(tr: TranslationState, e: P.PBinary, a: object, b: object) -> object:
    """``/`` and ``%``: concrete as in C (truncation); ``x / d`` for a positive constant d
    as ``floor(x / d)`` once ``x >= 0`` is proved; a comparison with one such term is
    rewritten without it (``multi.compare_div``); anything else is refused."""
    if e.op in ("/", "%"):
        if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and not isinstance(b, bool):
            if b == 0:
                raise refuse("division by zero", e.span)
            q = PM.c_division(a, b)
            return q if e.op == "/" else a - b * q
        if e.op == "/" and isinstance(b, int) and not isinstance(b, bool) and b > 0 and is_term(a):
            return PM.FloorTerm(IntConst(0), lift(a), b)
        raise refuse(f"'{e.op}' is supported for integers, and '/' by a positive constant", e.span)
    if e.op in "+-" and all(isinstance(x, PM.FloorTerm) or is_term(x) for x in (a, b)):
        out = PM.add_div(e.op, a if isinstance(a, PM.FloorTerm) else lift(a),
                         b if isinstance(b, PM.FloorTerm) else lift(b))
        if out is not None:
            return out
    if e.op in CMP and all(isinstance(x, PM.FloorTerm) or is_term(x) for x in (a, b)) \
            and not (isinstance(a, PM.FloorTerm) and isinstance(b, PM.FloorTerm)):
        cond, dividend = PM.compare_div(e.op, a if isinstance(a, PM.FloorTerm) else lift(a),
                                        b if isinstance(b, PM.FloorTerm) else lift(b))
        if not valid(tr, Compare(">=", dividend, IntConst(0))):
            raise refuse("tactl cannot prove this dividend non-negative (Promela's '/' truncates "
                         "toward zero, which is floor only there)", e.span)
        return cond
    raise refuse(f"a division here ('{e.op}' of it); supported: one 'x / d' term added to "
                 "others and compared", e.span)


