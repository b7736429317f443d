"""The receive rules: the explored paths grouped by source, target, sends and choice, each group
one rule whose guard is its paths' disjunction, simplified (guards.py), with the source lines the
paths executed; and the check that a coordinator sends on every path of its round.

A step that changes nothing is the *self-loop* of a waiting or finished location (its guard is
"no receive condition that would change anything holds"; asynchronous translation makes it
``true``). Synchronous algorithms (``timing sync``) run a whole round as one step, so they have
no self-loops.
"""

from __future__ import annotations

from tactl.ir.alg import syntax as A
from tactl.ir.expr import BoolConst, Expr, Or
from tactl.ir.rta.model import ReceiveRule
from tactl.ir.ta.model import Origin

from tactl.passes.alg_to_rta.context import Context, fail
from tactl.passes.alg_to_rta.explore import Explorer, Outcome
from tactl.passes.alg_to_rta.guards import simplified_guard
from tactl.passes.alg_to_rta.thresholds import negate


def check_coordinator_sends(ctx: Context, ex: Explorer, edges, points) -> None:
    """In a synchronous algorithm the coordinator sends its message in its round on every path:
    the engines take the locations that send a coordinator message for the coordinator's (one at
    most; passes/rta_to_sync/sync_ta.py ``coordinators``), so a coordinator that sends none would escape
    the one-coordinator constraint and the ``correct coordinator`` hypothesis."""
    if ctx.alg.timing != "sync" or not ctx.layout.coordinator_round:
        return
    at = ex.components.index(A.COORDINATOR)
    for (pc, before), _, o in edges:
        if before[at] == A.TRUE and not set(o.sends) & set(ctx.layout.coordinator_types):
            lines = ", ".join(str(n) for n in o.lines) or "none"
            point = points[pc]
            raise fail("the coordinator must send a coordinator message "
                       f"({', '.join(ctx.layout.coordinator_types)}) on every path of its round: "
                       f"the path through line(s) {lines} sends none", point.span)


def receive_rules(ctx: Context, ex: Explorer, alg: A.Algorithm, edges, names, points) -> tuple[ReceiveRule, ...]:
    groups: dict[tuple, list[Outcome]] = {}
    for src, tgt, o in edges:
        # paths with different choices stay apart: their rules differ in fairness; a self-loop
        # is never forced, so its mark would say nothing (passes/rta_to_ta/fairness.py)
        choice = None if names[src] == names[tgt] else o.choice
        groups.setdefault((names[src], names[tgt], o.sends, choice), []).append(o)
    rules = []
    for (src, tgt, sends, choice), outcomes in groups.items():
        guard = simplified_guard(ex.solver, [o.literals for o in outcomes])
        if guard == BoolConst(False):
            continue
        # Lock-step: a rule per disjunct, each guard a conjunction as hand-written automata write
        # them. The same semantics (a rule's processes share one witness of what they received,
        # whichever disjunct it satisfies), but the diameter's ∀-query over conjunctive guards is
        # far easier for z3: a ∀-query over a disjunctive guard makes it split cases that the
        # separate conjunctive rules state outright.
        parts = guard.args if alg.timing == "sync" and isinstance(guard, Or) else (guard,)
        for part in parts:
            lines: list[int] = []
            for o in outcomes:
                if len(parts) == 1 or ex.solver.sat([part, *path_literals(o)]):
                    lines.extend(x for x in o.lines if x not in lines)
            lines.sort()
            text = "; ".join(f'line {n} "{alg.line(n)}"' for n in lines)
            if src == tgt and not sends:
                text = _idle_text(src, names, points, alg)
            rules.append(ReceiveRule(len(rules), src, tgt, part, sends, choice=choice,
                                     origin=Origin(alg.path, tuple(lines), text)))
    return tuple(rules)


def _idle_text(location: str, names, points, alg: A.Algorithm) -> str:
    """What the self-loop of a waiting or finished location means."""
    key = next(k for k, n in names.items() if n == location)
    point = points[key[0]]
    if point.kind == "end":
        return "finished: takes no more steps"
    if point.kind == "wait" and point.span:
        return f'waits at line {point.span.line} "{alg.line(point.span.line)}"'
    if point.kind == "loop":
        return "waits: no handler changes anything"
    return "waits"


def path_literals(o: Outcome) -> list[Expr]:
    """The receive conditions a path took, as formulas (negated where the path took them false)."""
    return [e if v else negate(e) for e, v in o.literals.values()]
