"""The receive variables of the step, the message types they count, and the fault model's choice.

Each receive variable (``passes/pml_to_rta/multi.py`` finds them) pairs a receive choice with a
bound over one send counter; that counter is its message type. The first one whose counter the
step sends is the *primary*: its bound names the fault model (``fault_model``, read by
``passes/pml_to_rta/faults.py``), and every other one must add the same fault term. A counter
the initialisation fixes is *static*. Crash-send counters (``passes/pml_to_rta/crash.py``) are
recognised here, since they appear in the bounds.
"""

from __future__ import annotations

from functools import partial

from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import Faults
from tactl.passes.pml_to_rta import crash as PC
from tactl.passes.pml_to_rta import direct
from tactl.passes.pml_to_rta import expressions
from tactl.passes.pml_to_rta import faults as promela_faults
from tactl.passes.pml_to_rta import multi as PM
from tactl.passes.pml_to_rta import widths as PT
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import refuse, var_name


def find_receive(tr: TranslationState) -> None:
    """The receive variables (``passes/pml_to_rta/multi.py``): each a receive choice and a bound
    pairing it with a send counter. The first one whose counter the step sends is the
    *primary*: its bound names the fault model (``fault_model``); every other such one must
    have the same fault term. A counter the initialisation fixed (``tr.init_values``) is
    *static*: its receive count ranges over 0..value and is eliminated from the guards."""
    tr.direct = False
    tr.rvars = PM.find_receives(tr.step, tr.locals, set(tr.shared), partial(expressions.linear, tr),
                                tr.proc.span, not direct.reads_shared(tr))
    if not tr.rvars:  # guards over the shared counters themselves (direct.py)
        direct.read_counters(tr)
        return
    tr.rvar_of = {}
    for r in tr.rvars:
        for v in (r.rcv, r.next):
            if v in tr.rvar_of or v not in tr.locals:
                raise refuse(f"'{v}' is not a local variable of its own receive choice", r.choice_if.span)
            tr.rvar_of[v] = r
        r.lin = expressions.linear(tr, r.bound)
        for v in (r.rcv, r.next):
            PT.check_count(tr.local_type[v], v, "a receive count", tr.local_span[v])
    tr.choice_of = {id(r.choice_if): r for r in tr.rvars if not r.havoc}
    tr.havoc_of = {i: r for r in tr.rvars for i in r.sites}  # havoc.py
    tr.havoc_assumes = {i for r in tr.rvars for i in r.assumes}
    tr.bound_of = {id(r.bound_if): r for r in tr.rvars if r.bound_if is not None}
    tr.bound_ifs = set(tr.bound_of)
    tr.props_by_name = {p.name: p for p in tr.m.props}
    tr.static = {}  # static counter -> the largest receive count
    dynamic = []
    for r in tr.rvars:
        cs = [n for n in r.lin if n in tr.shared]
        if not cs:
            raise refuse("the receive bound names no shared send counter", r.bound.span)
        if len(cs) == 1 and cs[0] in tr.init_values:
            rest = {k: v for k, v in r.lin.items() if k != cs[0]}
            if set(rest) - {""} or r.lin[cs[0]] != 1:
                raise refuse(f"the bound of '{r.next}' over '{cs[0]}', which the initialisation "
                             "fixes, may only add a constant", r.bound.span)
            r.counter = cs[0]
            tr.static[cs[0]] = tr.init_values[cs[0]] + rest.get("", 0)
        else:
            dynamic.append(r)
    if not dynamic:
        raise refuse("no receive variable counts messages the step sends", tr.proc.span)
    first = dynamic[0]
    tr.rcv_var, tr.next_var, tr.bound = first.rcv, first.next, first.bound
    tr.bound_if, tr.choice_if = first.bound_if or first.choice_if, first.choice_if
    lin = first.lin
    tr.counters = [n for n in lin if n in tr.shared]
    tr.crash_counter = None
    tr.crash_of = {}  # crash-send counter -> its message (crash.py)
    several = len(dynamic) > 1 and PC.crash_counters(tr, dynamic, partial(in_transit_counter, tr))
    if several:
        tr.crash_of = several
        tr.crash_counter = next(iter(several))
        tr.counters = list(several.values())
    elif len(tr.counters) == 2 and all(lin[c] == 1 for c in tr.counters) and len(lin) == 2 \
            and len(dynamic) == 1:
        # crash (Fisman et al.): `nrcvd <= nsnt + nsntF`, the second counting broadcasts of
        # processes that die while sending; the delivered one is named by `in_transit`
        guaranteed = in_transit_counter(tr)
        if guaranteed not in tr.counters:
            raise refuse("a receive bound over two send counters needs a proposition "
                         "'some(Proc:nrcvd < c)' naming the counter whose messages are "
                         "delivered (crash faults)", tr.bound.span)
        tr.crash_counter = next(c for c in tr.counters if c != guaranteed)
        tr.counters = [guaranteed]
        tr.crash_of = {tr.crash_counter: guaranteed}
    elif len(tr.counters) > 1 or lin[tr.counters[0]] != 1:
        raise refuse("a receive bound over several send counters (one receive variable "
                     "counting several message types) is not supported", tr.bound.span)
    tr.counter = tr.counters[0]
    first.counter = tr.counter
    tr.bound_rest = {n: c for n, c in lin.items() if n not in (tr.counter, tr.crash_counter)}
    for n in tr.bound_rest:
        if n not in tr.params and n != "":
            raise refuse(f"'{n}' in the receive bound is neither a parameter nor a send counter",
                         tr.bound.span)
    for r in dynamic[1:] if not several else ():
        cs = [n for n in r.lin if n in tr.shared]
        if len(cs) != 1 or r.lin[cs[0]] != 1:
            raise refuse("a receive bound over several send counters (one receive variable "
                         "counting several message types) is not supported", r.bound.span)
        rest = {n: c for n, c in r.lin.items() if n != cs[0]}
        if rest != tr.bound_rest:
            raise refuse(f"the bound of '{r.next}' adds {rest or 'nothing'} to '{cs[0]}', the bound "
                         f"of '{tr.next_var}' {tr.bound_rest or 'nothing'}: one fault model "
                         "bounds every message type", r.bound.span)
        r.counter = cs[0]
        tr.counters.append(cs[0])
    if len(set(tr.counters)) != len(tr.counters):
        raise refuse("two receive variables bounded by the same send counter", tr.proc.span)
    tr.choices = first.choices
    if any(r.havoc for r in tr.rvars) and promela_faults.may_be_negative(tr.bound_rest):
        raise refuse("a havoc receive's bound 'nsnt + B' with a B that may be negative: the "
                     "file's assume would block a process whose count exceeds it, which no "
                     "fault model of tactl states", tr.bound.span)


def in_transit_counter(tr: TranslationState, rcv: str | None = None) -> str | None:
    rcv = rcv or tr.rcv_var
    for p in tr.m.props:
        e = p.expr
        if isinstance(e, P.PCall) and e.func == "some" and isinstance(e.arg, P.PBinary) \
                and e.arg.op == "<" and var_name(e.arg.left) == rcv \
                and isinstance(e.arg.right, P.PName):
            return e.arg.right.name
    return None


def fault_model(tr: TranslationState) -> tuple[Faults, str]:
    if tr.direct:
        return direct.fault_model(tr)
    tr.reading = promela_faults.fault_model(tr)
    return tr.reading.faults, tr.reading.n


