"""The declarations of a Parametric Promela file: the symbol tables the translation reads.

Macros (their values name the locations), parameters, the shared send counters (each starting at
0), the ``assume``s on parameters, and of the one proctype its locals (each starting at a
constant, within its type: ``passes/pml_to_rta/widths.py``), the initial ``if``, the
initialisation's ``atomic`` blocks and the step of ``end: do :: atomic { step } od``.
"""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, Severity
from tactl.ir.expr import Compare, IntConst
from tactl.ir.promela import syntax as P
from tactl.passes.pml_to_rta import expressions, solving
from tactl.passes.pml_to_rta import multi as PM
from tactl.passes.pml_to_rta import values
from tactl.passes.pml_to_rta import widths as PT
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import lift, refuse


def read_declarations(tr: TranslationState) -> None:
    """The model's macros, parameters, shared counters and assumptions, and its one proctype."""
    m = tr.m
    # the macros are substituted as text already (ir/promela/cpp.py): their values only
    # name the locations (pc == 2 is 'SE')
    tr.defines = {d.name: d.value.value for d in m.defines if d.value is not None}
    tr.params = [n for n, _ in m.symbolic]
    tr.shared = {}
    for g in m.globals:
        for name, init in g.vars:
            if init is not None and expressions.const(tr, init) != 0:
                raise refuse(f"global '{name}' must start at 0 (a send counter)", g.span)
            PT.check_count(g.type, name, "a shared counter", g.span)
            tr.shared[name] = g.span
    tr.assumes = []
    for a in m.assumes:  # in order: a division's dividend is checked under the ones before
        tr.assumes.append(values.condition(expressions.param_expr(tr, a.expr), a.expr.span))
    if len(m.proctypes) != 1:
        raise refuse(f"exactly one proctype is supported, found {len(m.proctypes)}",
                     m.proctypes[1].span if len(m.proctypes) > 1 else None)
    tr.proc = m.proctypes[0]


def split_body(tr: TranslationState) -> None:
    body = list(tr.proc.body)
    tr.locals = {}
    tr.local_span = {}
    tr.local_type = {}  # declared types: widths.py checks the values
    while body and isinstance(body[0], P.Decl):
        d = body.pop(0)
        for name, init in d.vars:
            v = 0 if init is None else expressions.const(tr, init)
            if v is None:
                raise refuse(f"local '{name}' must start at a constant", d.span)
            PT.check_value(d.type, name, v, d.span)
            tr.locals[name] = v
            tr.local_type[name] = d.type
            tr.local_span[name] = d.span
    tr.init_if = None
    tr.init_atomics = []  # run once by every process before 'end:'
    start = initial_assignments(tr, body)
    while body and (isinstance(body[0], P.Atomic) or isinstance(body[0], P.If) and tr.init_if is None):
        if isinstance(body[0], P.If):
            tr.init_if = body.pop(0)
        else:
            tr.init_atomics.append(body.pop(0))
    if start:  # `pc = L1;` before 'end:' (CONCUR'14's toy.pml): the one initial option, or a
        # prefix of every option of the initial 'if'
        options = tr.init_if.options if tr.init_if else (P.Option((), span=start[0].span),)
        tr.init_if = P.If(options=tuple(P.Option(tuple(start) + o.body, span=o.span) for o in options),
                          span=start[0].span)
    if not body or not isinstance(body[0], P.Labelled) or body[0].label != "end":
        raise refuse("expected the process's loop 'end: do :: atomic { ... } od' here",
                     body[0].span if body else tr.proc.span)
    loop = body.pop(0).stmt
    if body:
        raise refuse("statements after the 'end:' loop", body[0].span)
    if not (isinstance(loop, P.Do) and len(loop.options) == 1 and len(loop.options[0].body) == 1
            and isinstance(loop.options[0].body[0], P.Atomic)):
        raise refuse("the 'end:' loop must be 'do :: atomic { ... } od' (one atomic step)", loop.span)
    tr.step = loop.options[0].body[0].body


def initial_assignments(tr: TranslationState, body: list[P.Stmt]) -> list[P.Assign]:
    """The assignments to locals that open the process's body, taken off ``body``: every process
    executes them before anything else, so they choose its initial location as an initial ``if``
    with one option does."""
    start: list[P.Assign] = []
    while body and isinstance(body[0], P.Assign) and body[0].var in tr.locals:
        start.append(body.pop(0))
    return start


def initialisation(tr: TranslationState) -> None:
    """The prefix's effect on shared counters (``multi.initial_counters``): the
    counters an ``atomic`` block before ``end:`` sets, with their values once every process
    has run it."""
    tr.shared_env = None
    tr.init_values = {}
    if not tr.init_atomics:
        return
    copies = lift(expressions.value(tr, tr.proc.copies, {}, True, "the copy count"))

    def at_least(j: int) -> bool:
        return solving.valid(tr, Compare(">=", copies, IntConst(j)))

    def evaluate(e: P.PExpr, state: dict[str, int]) -> object:
        tr.shared_env = state
        try:
            v = expressions.value(tr, e, {}, False, "the initialisation")
        finally:
            tr.shared_env = None
        if not isinstance(v, bool):
            raise refuse("expected a condition on shared counters", e.span)
        return v

    touched = {t.var for b in tr.init_atomics for t in P.statements(b.body) if isinstance(t, P.Incr)}
    state = PM.initial_counters(tr.init_atomics, at_least, evaluate, set(tr.shared))
    stepped = {t.var for t in P.statements(tr.step) if isinstance(t, (P.Incr, P.Assign))}
    for c in sorted(touched):
        if c in stepped:
            raise refuse(f"the initialisation sets '{c}', which the step also changes: a send "
                         "counter of the threshold automaton starts at 0", tr.init_atomics[0].span)
        tr.init_values[c] = state.get(c, 0)
    tr.notes.append(Diagnostic(Severity.WARNING, (
        "initialisation: every process runs the 'atomic' block before 'end:' once, before its "
        "first step (ByMC's prec_init = all(Proc@end)); afterwards " +
        ", ".join(f"{c} = {v}" for c, v in tr.init_values.items()) + " for the whole run"),
        tr.init_atomics[0].span))


