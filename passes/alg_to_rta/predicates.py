"""Predicates on one process's kept state (``v == 1``, ``accept``, ``done``, ``sent M``,
``crashed``), which properties count processes by, and the variables the properties read (the
liveness analysis keeps them everywhere).
"""

from __future__ import annotations

from tactl.ir.alg import syntax as A
from tactl.ir.rta.model import CRASH_MODELS, FaultModel
from tactl.util.suggest import did_you_mean

from tactl.passes.alg_to_rta import sets as S
from tactl.passes.alg_to_rta.context import Context, cond_names, fail, span_of
from tactl.passes.alg_to_rta.evaluate import Evaluator, Thread
from tactl.passes.alg_to_rta.instructions import SENT


def formula_names(f: A.FormulaNode, under_initially: bool, out_all: set, out_init: set) -> None:
    if f.op in ("some", "all", "no"):
        names = cond_names(f.args[0])
        (out_init if under_initially else out_all).update(names)
        return
    if f.op == "cmp":
        for x in A.walk(f.args[0]):
            if isinstance(x, A.CountPred):
                (out_init if under_initially else out_all).update(cond_names(x.pred))
        return
    for a in f.args:
        if isinstance(a, A.FormulaNode):
            formula_names(a, under_initially or f.op == "initially", out_all, out_init)


def property_variables(ctx: Context) -> tuple[set[str], set[str]]:
    everywhere: set[str] = set()
    initially: set[str] = set()
    for p in ctx.alg.properties:
        formula_names(p.formula, False, everywhere, initially)
    known = set(ctx.variables) | ({A.DECIDED} if ctx.decides else set())
    # `sent M` keeps the "already sent" flags of the types M stands for
    flags = {SENT + m for p in ctx.alg.properties for x in _formula_nodes(p.formula)
             if isinstance(x, A.SentPred) for m in sent_types(ctx, x)}
    return (everywhere & known) | flags, ((initially | everywhere) & known) | flags


def _formula_nodes(f: A.FormulaNode):
    for a in f.args:
        if isinstance(a, A.FormulaNode):
            yield from _formula_nodes(a)
        else:
            yield from A.walk(a)


def sent_types(ctx: Context, pred: A.SentPred) -> list[str]:
    return Evaluator(ctx).matching(pred.pattern, Thread(0, {}))


def satisfies(ctx: Context, pred, state: dict, at_end: bool, crashed: bool = False) -> bool:
    """Whether a process with the kept values ``state`` satisfies ``pred`` (``crashed``: the
    process has crashed, keeping ``state``; in lock-step rounds it keeps nothing, so only
    ``crashed`` itself may be asked there)."""
    known = ", ".join([*ctx.variables, *([A.DECIDED] if ctx.decides else []), A.DONE,
                       *([A.CRASHED] if FaultModel(ctx.alg.fault_model) in CRASH_MODELS else [])])

    def value(t) -> str:
        if isinstance(t, A.Num):
            return str(t.value)
        if isinstance(t, A.Const):
            return t.value
        if isinstance(t, A.Ref):
            if t.name in ctx.variables or (t.name == A.DECIDED and ctx.decides):
                if crashed and t.name not in state:  # lock-step rounds: nothing kept
                    raise fail(f"a crashed process has no '{t.name}': ask 'crashed' alone "
                               "(e.g. 'no crashed')",
                               t.span)
                return state[t.name]
            if t.name in ctx.symbols:
                return t.name
            if t.name == A.DECIDED:
                raise fail("'decided' is only defined when the code has 'decide'", t.span)
            raise fail(f"unknown variable '{t.name}' in a property (a predicate on one "
                       f"process's variables: {known})" + did_you_mean(t.name, known.split(", ")), t.span)
        if S.is_set_term(t):  # |W|, {0, 1}, W ∪ X, min(W): computed from the kept values
            for x in A.walk(t):
                if isinstance(x, A.Ref):
                    value(x)  # unknown names and crashed processes are refused as above
            return Evaluator(ctx).value(t, Thread(0, dict(state)))
        raise fail("a predicate compares process variables with values", span_of(t))

    if isinstance(pred, A.Ref):
        if pred.name == A.DONE:
            return at_end
        if pred.name == A.CRASHED and FaultModel(ctx.alg.fault_model) in CRASH_MODELS:
            return crashed
        v = value(pred)
        if v not in A.BOOL:
            raise fail(f"'{pred.name}' is not Boolean: compare it, e.g. '{pred.name} == 1'",
                       pred.span)
        return v == A.TRUE
    if isinstance(pred, A.Compare):
        ok = True
        for op, a, b in zip(pred.ops, pred.terms, pred.terms[1:]):
            local = S.local_compare(op, a, b, value(a), value(b), pred.span)
            if local is not None:
                ok = ok and local
                continue
            if op not in ("==", "!="):
                raise fail("process variables are compared with == and != only", pred.span)
            ok = ok and ((value(a) == value(b)) == (op == "=="))
        return ok
    if isinstance(pred, A.Member):
        got = A.decode_set(value(pred.set))
        if got is None:
            raise fail("'∈' tests membership in a set: this is not a set variable",
                       span_of(pred.set) or pred.span)
        return (value(pred.elem) in got) != pred.negated
    if isinstance(pred, A.SentPred):
        if crashed and not state:  # lock-step rounds: nothing kept
            raise fail("a crashed process has no sent messages: ask 'crashed' alone", pred.span)
        return any(state.get(SENT + m) == A.TRUE for m in sent_types(ctx, pred))
    if isinstance(pred, A.NotCond):
        return not satisfies(ctx, pred.arg, state, at_end, crashed)
    if isinstance(pred, A.BoolOp):
        results = (satisfies(ctx, a, state, at_end, crashed) for a in pred.args)
        return all(results) if pred.op == "and" else any(results)
    if isinstance(pred, A.Const) and pred.value in A.BOOL:
        return pred.value == A.TRUE
    raise fail("a predicate on one process's variables must stand here (e.g. 'v == 1', "
               "'accept', 'decided == 0', 'done')", span_of(pred))
