"""The specifications: the file's ``ltl`` blocks as formulas over location counters.

``ltl`` blocks become the specifications, except ``fairness``: liveness is checked under the
justice tactl derives from the fault model, and the file's fairness is compared with it in a note
(``fairness_note``); where the two promise the same delivery (no crash model), liveness is also
checked under the file's formula itself, the default verdict (``tactl/driver/file_reading.py``). Propositions over the counters of the initial ``if`` (one value per run) are
evaluated in the initial configuration (``static_formula``); propositions no block uses and tactl
cannot read get one warning (``unused_propositions``). The propositions themselves are read by
``passes/pml_to_rta/propositions.py``.
"""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.ir.expr import (Always, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Name, Not, conj, disj,
                           summation)
from tactl.ir.linear import linearize
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import Faults, FaultModel
from tactl.ir.ta.model import Origin, Property
from tactl.passes.pml_to_rta import crash_readings, expressions, kept_counts, propositions, solving, values
from tactl.passes.pml_to_rta import faults as promela_faults
from tactl.passes.pml_to_rta import multi as PM
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import START, Refuse, bad_ltl_operator, expr_names, lift, qualify, refuse, var_name
from tactl.passes.rta_to_ta.env import guaranteed_delivery, sent

FAIRNESS = "fairness"
# fault models whose liveness is also read under the file's own fairness; of the crash models only
# the Fisman-style crash(F) (kept_counts.crash_reading; passes/rta_to_ta/crash_fairness.py)
FILE_READING_MODELS = (FaultModel.BYZANTINE, FaultModel.SYMMETRIC, FaultModel.OMISSION)


def properties(tr: TranslationState, faults: Faults) -> tuple[list[Property], list[Diagnostic]]:
    props = {p.name: p for p in tr.m.props}
    out: list[Property] = []
    notes: list[Diagnostic] = []
    for ltl in tr.m.ltls:
        if ltl.name == FAIRNESS:
            notes.append(fairness_note(tr, ltl, props, faults))
            continue
        if is_fairness(ltl.name):
            notes.append(Diagnostic(Severity.WARNING, (
                f"ltl {ltl.name}: an assumption, not a property (ByMC reads every ltl block whose name "
                f"starts with '{FAIRNESS}' as part of the fairness): not checked; the derived justice "
                "does not use it, the file's own reading assumes it where tactl can read it"), ltl.span))
            continue
        formula = static_formula(tr, ltl, props)
        out.append(Property(ltl.name, formula, origin=Origin(
            tr.m.path, (ltl.span.line,) if ltl.span else (), tr.m.line(ltl.span.line) if ltl.span else "")))
    return out, notes + unused_propositions(tr, props)


def unused_propositions(tr: TranslationState, props: dict[str, P.AtomicProp]) -> list[Diagnostic]:
    """One warning naming the ``atomic`` propositions no ``ltl`` block uses that tactl could not read.

    Such a proposition changes no verdict, so it is not an error; but saying nothing would let
    a user believe tactl read it (and be surprised when a formula that uses it is refused).
    One warning, at the first of them: ByMC's files all carry such auxiliary invariants."""
    used = {name for ltl in tr.m.ltls for name in P.variable_names(ltl.formula)}
    unread: list[tuple[str, Refuse, Span | None]] = []
    for name, prop in props.items():
        if name in used:
            continue
        try:
            values.condition(propositions.prop(tr, prop.expr), prop.expr.span)
        except Refuse as e:
            unread.append((name, e, e.span or prop.span))
    if not unread:
        return []
    name, first, span = unread[0]
    others = "".join(f"; {n} (line {sp.line}): {e.message}" if sp else f"; {n}: {e.message}"
                     for n, e, sp in unread[1:])
    return [Diagnostic(Severity.WARNING, f"not read, and used by no ltl block (so no verdict depends "
                       f"on them): atomic {name}: {first.message}{others}", span)]


def formula(tr: TranslationState, e: P.PExpr, props: dict[str, P.AtomicProp], fixed: dict[str, bool] | None = None,
            at_start: bool = True) -> Expr:
    """``e`` as a formula; ``at_start``: ``e`` is evaluated in the initial configuration (no
    temporal operator above it), where every receive variable has its declared value, so a
    proposition may read it there (cc's ``cond_init``: ``card(Proc:pc == V0 && Proc:nrcvd00
    == 0 ...)``); under ``[]``/``<>`` that is refused (``holds``)."""
    fixed = fixed or {}
    if isinstance(e, P.PName):
        if e.name in fixed:
            return BoolConst(fixed[e.name])
        if e.name in props:
            saved, tr.receive_at_start = tr.receive_at_start, at_start
            try:
                c = values.condition(propositions.prop(tr, props[e.name].expr), props[e.name].expr.span)
            finally:
                tr.receive_at_start = saved
            if any(n.name.startswith(START) for n in expr_names(c)):
                raise refuse(f"the proposition '{e.name}' mixes counters of the initialisation "
                             "with location counters", props[e.name].expr.span)
            return c
        raise refuse(f"'{e.name}' is not a proposition declared with 'atomic'", e.span)
    if isinstance(e, P.PUnary):
        arg = formula(tr, e.arg, props, fixed, at_start and e.op == "!")
        return {"!": Not, "[]": Always, "<>": Eventually}[e.op](arg) if e.op in ("!", "[]", "<>") \
            else bad_ltl_operator(e)
    if isinstance(e, P.PBinary) and e.op in ("&&", "||", "->"):
        a, b = formula(tr, e.left, props, fixed, at_start), formula(tr, e.right, props, fixed, at_start)
        if e.op == "&&":  # `prec_init` (P@end) is true: leave it out
            return b if a == BoolConst(True) else a if b == BoolConst(True) else conj(a, b)
        if e.op == "->" and a == BoolConst(True):
            return b
        return disj(a, b) if e.op == "||" else Implies(a, b)
    raise refuse("an ltl formula here must combine propositions declared with 'atomic'", e.span)


def static_formula(tr: TranslationState, ltl: P.Ltl, props: dict[str, P.AtomicProp]) -> Expr:
    """The formula of ``ltl``; propositions over counters of the initial 'if' (one value for
    the run) are evaluated in the initial configuration (``multi.shannon``)."""
    static = []
    for name in dict.fromkeys(P.variable_names(ltl.formula)):
        if name in props and name not in static:
            tr.receive_at_start = True  # only which counters it reads matters here
            try:
                c = propositions.prop(tr, props[name].expr)
            finally:
                tr.receive_at_start = False
            ns = [n.name for n in expr_names(c)]
            if any(n.startswith(START) for n in ns):
                if any(not n.startswith(START) and n not in tr.params for n in ns):
                    raise refuse(f"the proposition '{name}' mixes counters of the initialisation "
                                 "with location counters", props[name].expr.span)
                static.append(name)
    if not static:
        return PM.simplify(formula(tr, ltl.formula, props))
    from tactl.ir.expr import substitute  # lazy: only for static propositions

    starts = [tr.names[k] for k in tr.start_counts]
    at_start = {START + n: Name(n) for n in starts}
    total = summation(Name(starts[0]), [("+", Name(n)) for n in starts[1:]])
    copies = lift(expressions.value(tr, tr.proc.copies, {}, True, "the copy count"))
    initial = [Compare("==", total, copies)] + [Compare(">=", Name(n), IntConst(0)) for n in starts]

    def value_at_start(name: str) -> object:
        c = substitute(values.condition(propositions.prop(tr, props[name].expr), props[name].expr.span), at_start)
        if solving.valid(tr, c, initial):
            return True
        if solving.valid(tr, Not(c), initial):
            return False
        return c

    tr.notes.append(Diagnostic(Severity.WARNING, (
        f"ltl {ltl.name}: {', '.join(static)} count{'s' if len(static) == 1 else ''} the options "
        "of the initial 'if', fixed for the whole run: evaluated in the initial configuration "
        "(the initial counts of " + ", ".join(starts) + ")"), ltl.span))
    return PM.shannon(lambda fixed: PM.simplify(formula(tr, ltl.formula, props, fixed)), static,
                      value_at_start)


def fairness_note(tr: TranslationState, ltl: P.Ltl, props: dict[str, P.AtomicProp], faults: Faults) -> Diagnostic:
    """Compare the file's fairness with the derived justice; the derived one is used. Each
    message type the step sends is compared with its own ``in_transit`` proposition."""
    if faults.model is FaultModel.BOUND:  # the delivery is the file's (what was dropped, and why)
        return promela_faults.fairness_note(tr, ltl, tr.reading)
    from tactl.ir.expr import to_text  # lazy: printing only for the note

    pairs = [(r.rcv, r.counter) for r in tr.rvars if r.counter not in tr.static]
    agree, derived_all = True, []
    for rcv_var, counter in pairs:
        guaranteed = guaranteed_delivery(faults.model, counter, faults.parameters,
                                         Name(faults.parameters[1]) if faults.model is FaultModel.SYMMETRIC else None)
        bounds = []
        for name in P.variable_names(ltl.formula):
            p = props.get(name)
            e = p.expr if p else None
            if isinstance(e, P.PCall) and e.func == "some" and isinstance(e.arg, P.PBinary) and \
                    e.arg.op == "<" and var_name(qualify(e.arg.left, tr.proc.name)) == rcv_var:
                lin = expressions.linear(tr, e.arg.right)
                bounds.append(summation(Name(sent(counter)) if lin.get(counter) == 1 else IntConst(0),
                                        [("+" if c > 0 else "-", Name(k) if k else IntConst(abs(c)))
                                         for k, c in lin.items() if k != counter for _ in range(abs(c) if k else 1)]))
        expected = guaranteed
        if faults.model is FaultModel.CLEAN_CRASH and len(faults.parameters) == 2:
            # ByMC's nsnt also counts the Fnc broadcasts clean crashes lose (it subtracts them);
            # tactl's crashed processes never make them: the same delivery, counted apart
            expected = summation(guaranteed, [("-", Name(faults.parameters[1]))])
        agree = agree and bool(bounds) and all(linearize(b) == linearize(expected) for b in bounds)
        derived = f"{to_text(guaranteed)} '{counter}' messages"
        if expected is not guaranteed:
            derived += (f" (the file's {to_text(substitute_sent(expected, counter))}: its "
                        f"'{counter}' also counts the broadcasts the {faults.parameters[1]} "
                        "clean crashes lose, which tactl's crashed processes never make)")
        derived_all.append(derived)
    derived = f"every correct receiver eventually has {' and '.join(derived_all)}, and a " \
              "process whose rule stays enabled eventually takes it"
    if tr.static:
        derived += (f"; the initialisation's {', '.join(tr.static)} is delivered too (the file's "
                    "formula does not say so: its receive guards were eliminated, a rule that "
                    "needs it is unconditional)")
    tr.fairness_agrees = agree and (faults.model in FILE_READING_MODELS or kept_counts.crash_reading(tr, faults)
                                    or crash_readings.counted_and_cut(tr, faults) or crash_readings.kept_state(tr, faults))
    if tr.fairness_agrees:
        msg = (f"ltl fairness: its delivery bound agrees with the justice tactl derives from "
               f"faults {faults.model.value}({', '.join(faults.parameters)}) ({derived}); "
               + promela_faults.BOTH_READINGS)
    elif agree:
        msg = (f"ltl fairness: its delivery bound agrees with the justice tactl derives from "
               f"faults {faults.model.value}({', '.join(faults.parameters)}) ({derived}); "
               "liveness is checked under the derived justice, which also makes processes "
               "move (the file's formula alone lets a process with nothing to receive stay put)")
    else:
        msg = (f"ltl fairness: its delivery bound differs from (or is not recognised as) the "
               f"one tactl derives from faults {faults.model.value}({', '.join(faults.parameters)}) "
               f"({derived}); liveness is checked under the derived justice, not the file's formula")
    return Diagnostic(Severity.WARNING, msg, ltl.span)


def is_fairness(name: str) -> bool:
    """ByMC's ``Ltl.is_fairness_form``: a block named ``fairness…`` is an assumption."""
    return name.startswith(FAIRNESS)


def fairness_extra(tr: TranslationState, ltl: P.Ltl) -> Expr | None:
    """The conjuncts of the fairness formula beyond its delivery (``[]<>`` or ``<>[]`` of negated
    ``in_transit``-shaped propositions), as a formula over location counters: ``true`` if none,
    None if one cannot be read (then the file's own reading is not built). ByMC's clean-crash
    and omission files add ``[](some_ri -> <>no_ri)``: a process at RI eventually leaves it."""
    props = {p.name: p for p in tr.m.props}
    transit = {p.name for p in tr.m.props if promela_faults.delivery_shaped(tr, p.expr)}

    def conjuncts(e: P.PExpr) -> list[P.PExpr]:
        if isinstance(e, P.PBinary) and e.op == "&&":
            return conjuncts(e.left) + conjuncts(e.right)
        return [e]

    def delivery(e: P.PExpr) -> bool:
        if isinstance(e, P.PUnary) and e.op in ("[]", "<>") and isinstance(e.arg, P.PUnary) \
                and e.arg.op in ("[]", "<>") and e.arg.op != e.op:
            return all(isinstance(c, P.PUnary) and c.op == "!" and isinstance(c.arg, P.PName)
                       and c.arg.name in transit for c in conjuncts(e.arg.arg))
        return False

    others = [b.formula for b in tr.m.ltls if is_fairness(b.name) and b.name != FAIRNESS]
    extra = [c for f in (ltl.formula, *others) for c in conjuncts(f) if not delivery(c)]
    try:
        return conj(*(formula(tr, c, props, at_start=False) for c in extra)) if extra else BoolConst(True)
    except Refuse:
        return None


def substitute_sent(e: Expr, counter: str) -> Expr:
    """``e`` with the TA's ``ns_<counter>`` spelled as the file's counter."""
    from tactl.ir.expr import substitute  # lazy: only for the note

    return substitute(e, {sent(counter): Name(counter)})
