"""The z3 questions the translation asks of path conditions, under the file's assumptions.

``valid`` (a condition follows), ``sat`` (a path condition can hold), ``equivalent`` and
``valid_in_rc`` use the assumptions and the receive counts' ranges collected in the state
(``passes/pml_to_rta/state.py``); ``guarded`` extends a path by a guard and drops it when the
guard cannot hold there. z3 is loaded only when a .pml file is translated.
"""

from __future__ import annotations

from tactl.ir.errors import Span
from tactl.ir.expr import BoolConst, Expr, Or, conj, disj
from tactl.ir.rta.model import received_message
from tactl.passes.pml_to_rta import values
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import StepPath, expr_names


def valid(tr: TranslationState, c: Expr, cond: list[Expr] = ()) -> bool:
    """``c`` follows from the assumptions translated so far (and ``cond``)."""
    from tactl.ir.linear import int_symbols, to_z3  # lazy: z3 loads only when a .pml is translated
    import z3  # lazy: as above

    syms = tr.syms or int_symbols()
    solver = z3.Solver()
    solver.add(*[to_z3(a, syms) for a in tr.assumes], *[to_z3(a, syms) for a in cond])
    for name in expr_names(c):
        if received_message(name.name):
            solver.add(syms(name.name) >= 0)
    solver.add(z3.Not(to_z3(c, syms)))
    return solver.check() == z3.unsat


def sat(tr: TranslationState, cond: list[Expr]) -> bool:
    s = tr.z3.Solver()
    s.add(*tr.rc, *[tr.to_z3(c, tr.syms) for c in cond])
    return s.check() != tr.z3.unsat


def equivalent(tr: TranslationState, a: list[Expr], b: list[Expr]) -> bool:
    s = tr.z3.Solver()
    ca, cb = tr.to_z3(conj(*a) if a else BoolConst(True), tr.syms), \
        tr.to_z3(conj(*b) if b else BoolConst(True), tr.syms)
    s.add(*tr.rc, ca != cb)
    return s.check() == tr.z3.unsat


def valid_in_rc(tr: TranslationState, a: Expr) -> bool:
    """``a`` holds under the assumptions alone (a receive-free atom left by elimination)."""
    if any(received_message(n.name) for n in expr_names(a)):
        return False
    s = tr.z3.Solver()
    s.add(*tr.rc, tr.z3.Not(tr.to_z3(a, tr.syms)))
    return s.check() == tr.z3.unsat


def guarded(tr: TranslationState, p: StepPath, g: object, line: list[int], span: Span | None = None) -> list[StepPath]:
    if isinstance(g, Expr):
        g = values.condition(g, span)
    if g is True:
        return [StepPath(dict(p.env), list(p.cond), list(p.sends), p.lines + line)]
    if g is False:
        return []
    if isinstance(g, int):
        return [p] if g else []
    g = prune(tr, p.cond, g)  # type: ignore[arg-type]
    cond = p.cond + [g]  # type: ignore[list-item]
    if not sat(tr, cond):
        return []
    return [StepPath(dict(p.env), cond, list(p.sends), p.lines + line)]


def prune(tr: TranslationState, cond: list[Expr], g: Expr) -> Expr:
    """``g`` without the disjuncts impossible together with ``cond`` under the assumes (so that
    a guard like ``n >= N - T || (n >= N && n <= N - 2T)`` is read as the lower bound it is)."""
    if not isinstance(g, Or):
        return g
    kept = [d for d in g.args if sat(tr, [*cond, d])]
    return disj(*kept) if kept else g
