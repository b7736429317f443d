"""The file's ``atomic`` propositions read over the automaton's locations.

``all(P:c)`` → every location where ``c`` is false is empty; ``some(P:c)`` → one where it is
true is occupied; ``card(P:c)`` → the sum of their counters; ``P@end`` → true (every process
starts at ``end:``). ``holds`` decides a process condition at one location (a valuation of the
location variables); the crash location CR counts as the valuation that became it, a crash
location that keeps the state (``crash_copies.py``) as the valuations it stands for.
"""

from __future__ import annotations

from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Mul, Name, Not, disj, conj, summation
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import CRASH_LOCATION
from tactl.ir.ta.model import Location
from tactl.passes.pml_to_rta import expressions
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import START, binary, qualify, refuse


def prop(tr: TranslationState, e: P.PExpr) -> Expr:
    """A proposition over location counters and parameters."""
    if isinstance(e, P.PCall) and isinstance(e.arg, P.PAtLabel) and e.func == "all":
        return prop(tr, e.arg)
    if isinstance(e, P.PCall):
        where = [loc for loc, key in zip(tr.locations, tr.valuations) if holds(tr, e.arg, key)]
        every = list(tr.locations)
        if tr.dead is not None:  # the dead location is the crash location CR
            every.append(Location(CRASH_LOCATION))
            seen = {holds(tr, e.arg, d) for d in tr.dead_all}
            if len(seen) > 1:
                raise refuse("this proposition tells crashed processes apart by "
                             f"{', '.join(v for i, v in enumerate(tr.loc_vars()) if len({d[i] for d in tr.dead_all}) > 1)}"
                             ", where tactl's crash location CR is one location", e.span)
            if holds(tr, e.arg, tr.dead):
                where.append(every[-1])
        for c in tr.crash_copies:  # crash locations that keep the state (crash_copies.py)
            every.append(Location(c.name))
            seen = {holds(tr, e.arg, d) for d in c.valuations}
            if len(seen) > 1:
                raise refuse(f"this proposition tells apart the crashed processes of {c.name} "
                             f"({c.meaning}), which the properties of the ltl blocks treat alike", e.span)
            if seen == {True}:
                where.append(every[-1])
        if e.func == "all":
            others = [Compare("==", Name(loc.name), IntConst(0)) for loc in every if loc not in where]
            return conj(*others) if others else BoolConst(True)
        if e.func == "some":
            some = [Compare("!=", Name(loc.name), IntConst(0)) for loc in where]
            return disj(*some) if some else BoolConst(False)
        return summation(Name(where[0].name), [("+", Name(loc.name)) for loc in where[1:]]) if where else IntConst(0)
    if isinstance(e, P.PAtLabel):
        if e.proc != tr.proc.name or e.label != "end":
            raise refuse(f"only '{tr.proc.name}@end' is supported", e.span)
        return BoolConst(True)  # every process is at end: once its initial choice is made
    if isinstance(e, P.PInt):
        return IntConst(e.value)
    if isinstance(e, P.PName):
        if e.name in tr.params:
            return Name(e.name)
        if e.name in tr.shared and e.name in tr.init_values:
            return IntConst(tr.init_values[e.name])  # fixed by the initialisation
        if e.name in tr.shared and e.name in tr.init_only:
            # counted by the initial 'if': the number of processes that took each option,
            # i.e. the initial counts of their locations (multi.shannon)
            terms = [(k, Name(START + tr.names[key])) for key, cs in tr.start_counts.items()
                     for k in [cs.get(e.name, 0)] if k]
            if not terms:
                return IntConst(0)
            parts = [t if k == 1 else Mul(IntConst(k), t) for k, t in terms]
            return summation(parts[0], [("+", t) for t in parts[1:]])
        if e.name in tr.shared:
            raise refuse(f"a proposition over the shared variable '{e.name}' (a receive "
                         "automaton's specifications read location counters and parameters)", e.span)
        raise refuse(f"unknown name '{e.name}' in a proposition{expressions.defined_later(tr, e.name, e.span)}",
                     e.span)
    if isinstance(e, P.PUnary) and e.op in ("!", "-"):
        a = prop(tr, e.arg)
        return Not(a) if e.op == "!" else summation(IntConst(0), [("-", a)])
    if isinstance(e, P.PBinary):
        a, b = prop(tr, e.left), prop(tr, e.right)
        return binary(e.op, a, b, e.span)  # type: ignore[return-value]
    raise refuse("this proposition is not supported", e.span)


def holds(tr: TranslationState, e: P.PExpr, key: tuple) -> bool:
    env = dict(zip(tr.loc_vars(), key))
    qualified = qualify(e, tr.proc.name)
    for name in P.variable_names(qualified):
        if name in tr.rvar_of and tr.receive_at_start and \
                not any(name == r.rcv and initial_if_sets(tr, name) for r in tr.rvars):
            env[name] = tr.locals[name]  # in the initial configuration: its declared value
        elif name in tr.rvar_of:
            raise refuse(f"a proposition over the receive variable '{name}' (read only where no "
                         "temporal operator is above it, in the initial configuration, and in the "
                         "fairness formula, whose meaning tactl derives)", e.span)
        if name in tr.locals and name not in env:
            raise refuse(f"a proposition over the temporary '{name}'", e.span)
    v = expressions.value(tr, qualified, env, False, "a proposition")
    if not isinstance(v, bool) and not isinstance(v, int):
        raise refuse("a process condition must depend on location variables only", e.span)
    return bool(v)


def initial_if_sets(tr: TranslationState, var: str) -> bool:
    """The initial ``if`` or the initialisation assigns ``var`` (then its declared value is not
    the one every process starts with)."""
    stmts = (tr.init_if,) if tr.init_if else ()
    return any(isinstance(t, (P.Assign, P.Incr, P.Havoc)) and t.var == var
               for t in P.statements(stmts + tuple(tr.init_atomics)))


