"""A threshold automaton written in Promela: guards over the shared counters themselves.

ByMC's files usually receive into a local count (``nrcvd``, ``passes/pml_to_rta/receives.py``);
CONCUR'14's ``toy.pml`` has no receive variable at all: its step increments shared counters
(``x++``) and guards read them directly (``pc == L1 && x >= N - F -> next_pc = L3``), as the
rules of a threshold automaton do. tactl reads such a step when it has no receive variable and
some of its conditions read a shared counter:

* every shared counter the step increments is a message type; a condition reads the counter
  ``x`` as ``received(x)``;
* the fault model is ``bound(processes: P; receive: 0; deliver: 0)`` with P the copy count:
  every process the file runs is correct, a count is at most what was sent (``received(x) <=
  ns_x``) and eventually all of it;
* the translation eliminates ``received(x)`` under ``received(x) <= ns_x``, so the rule's guard
  over ``ns_x`` is the file's guard exactly when the guard can only turn true as counters grow
  (``x >= N - F``, ``x + y > T``, and/or of such): then some count up to ``ns_x`` satisfies it iff
  ``ns_x`` does. A condition that can turn false as a counter grows (``x < T``, ``x == 0``, an
  ``else`` after ``x >= T``) is refused at its position (``check_upward``).

A warning states the reading.
"""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.ir.expr import And, BoolConst, Compare, Expr, IntConst, Or, to_text
from tactl.ir.linear import linearize
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import Faults, FaultModel, received, received_message
from tactl.passes.pml_to_rta import expressions
from tactl.passes.pml_to_rta.faults import FaultReading, terms_expr
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import expr_names, refuse


def reads_shared(tr: TranslationState) -> bool:
    """Some condition of the step (a guard, an option's first statement) compares shared
    counters with parameters and constants, and none compares one with a local variable (that is
    a receive bound, ``next_x <= nsnt + F``, whose receive choice the step must have)."""
    atoms = [a for s in P.statements(tr.step) if isinstance(s, (P.Condition, P.AssumeStmt))
             for a in P.subexpressions(s.expr) if isinstance(a, P.PBinary) and a.op in _COMPARISONS]
    shared = [set(P.variable_names(a)) for a in atoms if set(P.variable_names(a)) & set(tr.shared)]
    return bool(shared) and not any(names & set(tr.locals) for names in shared)


_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def read_counters(tr: TranslationState) -> None:
    """The message types of a step without receive variables (module docstring)."""
    incremented = {s.var for s in P.statements(tr.step) if isinstance(s, P.Incr) and s.var in tr.shared}
    tr.counters = [c for c in tr.shared if c in incremented]
    if not tr.counters:
        raise refuse("the step reads shared counters but increments none: no message type to "
                     "read them as", tr.proc.span)
    tr.counter = tr.counters[0]
    tr.direct = True
    tr.rvars, tr.rvar_of = [], {}
    tr.choice_of, tr.havoc_of, tr.havoc_assumes, tr.bound_of, tr.bound_ifs = {}, {}, set(), {}, set()
    tr.props_by_name = {p.name: p for p in tr.m.props}
    tr.static, tr.bound_rest, tr.crash_of, tr.crash_counter = {}, {}, {}, None


def fault_model(tr: TranslationState) -> tuple[Faults, str]:
    """``bound(processes: copies; receive: 0; deliver: 0)`` and the parameter counting processes."""
    copies = expressions.linear(tr, tr.proc.copies)
    ns = [k for k, c in copies.items() if k in tr.params and c == 1]
    if len(ns) != 1 or any(k and k not in tr.params for k in copies):
        raise refuse("the copy count must be 'N' or 'N - F1 - F2 …' for parameters N, F1, …",
                     tr.proc.copies.span)
    faults = Faults(FaultModel.BOUND, (), terms=(terms_expr(copies), IntConst(0), IntConst(0)))
    tr.reading = FaultReading(faults, ns[0])
    tr.notes.append(Diagnostic(Severity.WARNING, (
        "no receive variable: the step's guards read the shared counters " +
        ", ".join(f"'{c}'" for c in tr.counters) + " directly, as a threshold automaton's rules "
        "do; each is a message type read as what was sent (a guard that can only turn true as the "
        "counters grow is exactly the file's), every process correct: faults bound(processes: "
        f"{_copies_text(tr)}; receive: 0; deliver: 0); liveness is checked under the justice derived "
        "from it: a process whose rule stays enabled eventually takes it"), tr.proc.span))
    return faults, ns[0]


def _copies_text(tr: TranslationState) -> str:
    return to_text(terms_expr(expressions.linear(tr, tr.proc.copies)))


def ranges(tr: TranslationState) -> list[Expr]:
    """``received(x) >= 0`` for every counter read directly (the walk's satisfiability checks)."""
    return [Compare(">=", received(c), IntConst(0)) for c in tr.counters] if tr.direct else []


def check_upward(tr: TranslationState, g: object, span: Span | None) -> None:
    """Refuse a condition over counters read directly that may turn false as a counter grows."""
    if tr.direct and isinstance(g, Expr) and not _upward(g):
        raise refuse("this condition over a shared counter may turn false as the counter grows: "
                     "tactl reads a counter in a guard as what was sent, which is exact only "
                     "for guards like 'x >= e' that stay true once true", span)


def _upward(e: Expr) -> bool:
    if not any(received_message(n.name) for n in expr_names(e)):
        return True
    if isinstance(e, (And, Or)):
        return all(_upward(a) for a in e.args)
    if isinstance(e, BoolConst):
        return True
    if isinstance(e, Compare) and e.op in (">=", ">", "<=", "<"):
        diff = linearize(e.left) - linearize(e.right)
        sign = 1 if e.op in (">=", ">") else -1
        return all(sign * a >= 0 for x, a in diff.coeffs if received_message(x))
    return False
