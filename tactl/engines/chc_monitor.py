"""Nested safety as reachability: the counter system times a monitor of the negation's ``<>``s.

A nested safety property (``[](p -> [](q))``, ``[](a) || [](b)``) is violated by a finite run
on which its negation — a branch of cut points (ir/eltl/formula.py: each ``<>χ`` witnessed at a
configuration at or after its parent's, no ``[]`` left) — holds. The CHC engine
(tactl/engines/chc.py) asks reachability questions only, so each branch becomes one over the
product of the counter system (tactl/engines/chc_system.py) with a monitor that remembers which
``<>`` has been witnessed: one component ``seen#k`` per cut point ``k`` (0 or 1), set in a
configuration where the cut's formula holds and its parent's flag is set (the root's always is),
and never cleared. Cut points come after their parents in the branch, so the flags of one
configuration are computed in order, and a cut and its parent may share a configuration, as the
semantics allows. The branch is violated exactly when a state with every flag set is reachable:
flags are only set by a configuration of the run that witnesses their ``<>`` after the parent's
witness, and conversely each witness of a violating run sets its flag. The flags are state
components like the counters, so Spacer's invariant and the certificate's three questions range
over the product, and the printed invariant names them.
"""

from __future__ import annotations

from dataclasses import replace

import z3

from tactl.engines.chc_system import CounterSystem, Transition
from tactl.ir.eltl.formula import ROOT, Branch
from tactl.ir.linear import to_z3

SEEN = "seen#"


def with_monitor(system: CounterSystem, branch: Branch) -> CounterSystem:
    """``system`` (built with the branch's ``initial`` and any ``bad``) times the monitor of the
    branch's cut points; its ``bad`` is "every flag set"."""
    ctx = system.state[0].ctx
    table = dict(zip(system.names, system.state))

    def formula(e) -> z3.BoolRef:
        return to_z3(e, lambda n: table[n], ctx)

    seen = tuple(z3.Int(f"{SEEN}{k}", ctx) for k in range(len(branch.cuts)))
    witnessed = [formula(c.formula) for c in branch.cuts]
    one, zero = z3.IntVal(1, ctx), z3.IntVal(0, ctx)

    def flags(now: list[z3.BoolRef], before: tuple[z3.ArithRef, ...] | None) -> list[z3.ArithRef]:
        """Each flag in a configuration where cut ``k``'s formula is ``now[k]``; ``before``: the
        flags of the configuration before (None: the initial one)."""
        out: list[z3.ArithRef] = []
        for k, cut in enumerate(branch.cuts):
            parent = z3.BoolVal(True, ctx) if cut.parent == ROOT else out[cut.parent] == 1
            set_now = z3.And(parent, now[k])
            out.append(z3.If(set_now if before is None else z3.Or(before[k] == 1, set_now), one, zero))
        return out

    initial = z3.And(system.initial, *(s == f for s, f in zip(seen, flags(witnessed, None))))
    transitions = []
    for t in system.transitions:
        after = flags([system.rename(w, t.after) for w in witnessed], seen)
        transitions.append(Transition(t.rule, t.enabled, (*t.after, *after)))
    names = (*system.names, *(str(s) for s in seen))
    known = z3.And(system.known, *(z3.And(s >= 0, s <= 1) for s in seen))
    return replace(system, names=names, state=(*system.state, *seen), initial=initial, known=known,
                   transitions=tuple(transitions), bad=z3.And(*(s == 1 for s in seen)),
                   monitor=tuple(zip(seen, witnessed)))
