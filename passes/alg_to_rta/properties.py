"""Properties: formulas over process variables become formulas over location counters.

``some P`` / ``all P`` / ``no P`` become conditions on the counters of the locations whose kept
values satisfy ``P`` (``all`` ranges over the modelled processes: the correct ones, and for
crash models those that have not crashed); ``count (P)`` is the sum of those counters, a
sympy term like the thresholds' (evaluate.py says why sympy).
"""

from __future__ import annotations

import sympy

from tactl.ir.alg import syntax as A
from tactl.ir.expr import (
    Always,
    And,
    BoolConst,
    Compare,
    Eventually,
    Expr,
    Implies,
    IntConst,
    Name,
    Not,
    Or,
    conj,
    disj,
)
from tactl.ir.rta.model import CRASH_MODELS, FaultModel
from tactl.ir.ta.model import Origin, Property

from tactl.passes.alg_to_rta.context import Context, cond_names, fail
from tactl.passes.alg_to_rta.crashes import CrashState
from tactl.passes.alg_to_rta.evaluate import chain_exprs
from tactl.passes.alg_to_rta.explore import Explorer
from tactl.passes.alg_to_rta.predicates import satisfies
from tactl.passes.alg_to_rta.thresholds import symbol


def translate_property(ctx: Context, ex: Explorer, p: A.PropertyDecl, keys, names, points,
                       initial: set, crashed: list[CrashState]) -> Property:
    """``some P`` / ``no P`` / ``count (P)`` range over every process, crashed ones with the
    state they kept (``crashed``: the crash locations); ``all P`` over the processes that have
    not crashed — and the crashed ones too when ``P`` names ``crashed`` (``all (crashed or
    done)``). An ``initially`` condition never sees a crashed process (none has crashed yet)."""
    def holds_at(pred, key) -> bool:
        pc, values = key
        if values is None:
            return False
        state = {c: v for c, v in zip(ex.components, values) if v is not None}
        return satisfies(ctx, pred, state, points[pc].kind == "end")

    def crashed_holds(pred, c: CrashState) -> bool:
        return satisfies(ctx, pred, c.state, c.done, crashed=True)

    def go(f: A.FormulaNode, init: bool) -> Expr:
        op = f.op
        if op in ("some", "all", "no"):
            label = names
            where = [k for k in keys if not init or k in initial]
            crash_model = FaultModel(ctx.alg.fault_model) in CRASH_MODELS
            if A.CRASHED in cond_names(f.args[0]) and not crash_model:
                raise fail(f"'{A.CRASHED}' needs a crash fault model (crash, clean_crash, "
                           "hybrid): here no process crashes", f.span)
            sat = [k for k in where if holds_at(f.args[0], k)]
            if not init:
                gone = [(c.name, None) for c in crashed]
                label = {**label, **{k: k[0] for k in gone}}
                sat += [k for k, c in zip(gone, crashed) if crashed_holds(f.args[0], c)]
                if A.CRASHED in cond_names(f.args[0]):
                    where = [*where, *gone]
            if op == "some":
                return disj(*(Compare("!=", Name(label[k]), IntConst(0)) for k in sat))
            if op == "no":
                return conj(*(Compare("==", Name(label[k]), IntConst(0)) for k in sat))
            return conj(*(Compare("==", Name(label[k]), IntConst(0)) for k in where if k not in sat))
        if op == "cmp":
            def count(c: A.CountPred) -> sympy.Expr:
                where = [k for k in keys if not init or k in initial]
                gone = [] if init else [x.name for x in crashed if crashed_holds(c.pred, x)]
                return sum((*(symbol(names[k]) for k in where if holds_at(c.pred, k)),
                            *map(symbol, gone)), sympy.Integer(0))

            return conj(*chain_exprs(ctx, f.args[0], {}, count,
                                     {*names.values(), *(x.name for x in crashed)}))
        if op == "true":
            return BoolConst(True)
        if op == "false":
            return BoolConst(False)
        args = [go(a, init or op == "initially") for a in f.args]
        if op == "initially":
            if _temporal(f.args[0]):
                raise fail("'initially' takes a condition on the initial configuration, "
                           "without always/eventually", f.span)
            return args[0]
        if op == "always":
            return Always(args[0])
        if op == "eventually":
            return Eventually(args[0])
        if op == "not":
            return Not(args[0])
        if op == "and":
            return _flat_unique(conj(*args))
        if op == "or":
            return _flat_unique(disj(*args))
        if op == "implies":
            return Implies(args[0], args[1])
        raise fail(f"unsupported property operator '{op}'", f.span)

    return Property(p.name, go(p.formula, False), p.hypothesis, origin=Origin(ctx.alg.path, (p.span.line,)
                    if p.span else (), ctx.alg.line(p.span.line) if p.span else ""))


def _flat_unique(e: Expr) -> Expr:
    """``a && b && a`` → ``a && b`` (``no v == 1 and no decided == 1`` may name a location twice)."""
    if isinstance(e, (And, Or)):
        args = list(dict.fromkeys(e.args))
        return (conj if isinstance(e, And) else disj)(*args)
    return e


def _temporal(f: A.FormulaNode) -> bool:
    return f.op in ("always", "eventually") or any(
        isinstance(a, A.FormulaNode) and _temporal(a) for a in f.args)
