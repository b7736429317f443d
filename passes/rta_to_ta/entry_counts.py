"""What a process can have received when it enters a location, for the file's justice
(``passes/rta_to_ta/file_fairness.py``): one message of each type per step bounds it by what the
process could hold one step earlier, where it came from.

``J_file`` lets a process be frozen at ``ℓ`` having entered it by rule ``r`` with a count ``c``
that satisfies ``r``'s receive guard and holds every message guaranteed. Where the file receives
at most one message of each type per step (``nrcvd' = nrcvd + 1`` or ``nrcvd' = nrcvd``, no
``havoc``: ``FileFairness.one_per_step``) that count is bounded by what the process held at
``r``'s source before the step. A cut-down Bracha agreement
(``tests/data/promela/init_branch.pml -D BRACHA``): a process that enters RD from EC has at most
T + 2 readies, since at EC it had at most T + 1 (T while it waited there, T + 1 if it came from
IT in the step before) — not the 2T + 1 that would let it stop at RD for good while the others
accept.

**Claim.** Let every message type be received at most one per step, no rule reset a count, and
the rule graph have no cycle through several locations. Define, per location ``s``,

    Reach_s(c) = [s initial] c == 0  ∨  stay_s(c)  ∨  ⋁_{self-loops r at s that send} guard_r(c)
                 ∨ ⋁_{r: s' -> s, s' != s} guard_r(c) ∧ Pre_r(c)
    Pre_r(c)   = ⋁_{δ ∈ {0,1}^M, δ_m = 0 for the types r never receives} c >= δ ∧ Reach_{s'}(c - δ)

Then a process at ``s`` holding the counts ``c`` satisfies ``Reach_s(c)``. *Proof*, by induction on
its steps. Initially it is at an initial location with nothing received. A step that changes
nothing at ``s`` is a stay, whose condition holds at the counts after it (the guards of the file
read ``next_nrcvd``); a self-loop rule likewise. A step by ``r`` from ``s'`` receives at most one
message of each type and none of those ``r`` never receives, so ``c - δ`` for some such ``δ`` is
what it held at ``s'`` (``Reach_{s'}`` by induction), and ``r``'s guard holds at ``c``. ∎

So conjoining ``Pre_r`` to the option "entered ``ℓ`` by ``r`` and never stepped again" keeps
``J_file`` an over-approximation of the file's fair runs. Formulas are built in the order of the
rule graph; one (``Reach_s`` or ``Pre_r``) that grows past :data:`LIMIT` nodes is replaced by
``true`` (no bound: weaker, still sound). Outside the claim's conditions nothing is built.
"""

from __future__ import annotations

import itertools

from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, conj, disj, substitute, summation, walk
from tactl.ir.rta.model import ReceiveTA, received
from tactl.passes.rta_to_ta.crash_fairness import crash_reading
from tactl.passes.rta_to_ta.own_fairness import FileFairness

LIMIT = 4000  # expression nodes of one Reach_s or Pre_r beyond which it is replaced by true


def entry_bounds(rta: ReceiveTA, fairness: FileFairness) -> dict[int, Expr]:
    """``Pre_r`` per rule id of ``rta`` (module docstring); empty outside the claim's conditions."""
    return held(rta, fairness)[1]


def held(rta: ReceiveTA, fairness: FileFairness) -> tuple[dict[str, Expr], dict[int, Expr]]:
    """``Reach_s`` per location and ``Pre_r`` per rule id (module docstring); both empty outside the
    claim's conditions, and for the crash models (whose stays read the file's crash counter) and
    files with counts that a step resets or that the initialisation fixes (``fairness.zeroed``,
    ``fairness.stay_zeroed``, ``fairness.static``)."""
    messages = [m.name for m in rta.messages]
    moves = [r for r in rta.rules if r.source != r.target]
    order = _topological([loc.name for loc in rta.locations], [(r.source, r.target) for r in moves])
    if not messages or not set(messages) <= set(fairness.one_per_step) or order is None \
            or fairness.zeroed or fairness.stay_zeroed or fairness.static is not None or crash_reading(rta) \
            or rta.crash_rules:
        return {}, {}
    stays, kept = dict(fairness.stays), dict(fairness.kept)
    reach: dict[str, Expr] = {}
    pre: dict[int, Expr] = {}
    for loc in order:
        ways = [conj(*(Compare("==", received(m), IntConst(0)) for m in messages))] if loc in rta.initial else []
        ways += [stays[loc]] if loc in stays else []
        ways += [r.guard for r in rta.rules if r.source == r.target == loc and r.sends]
        for r in (r for r in moves if r.target == loc):
            pre[r.id] = _capped(_before(reach[r.source], messages, kept.get(r.id, ())))
            ways.append(conj(r.guard, pre[r.id]))
        reach[loc] = _capped(disj(*ways) if ways else BoolConst(False))
    return reach, {k: v for k, v in pre.items() if v != BoolConst(True)}


def _capped(formula: Expr) -> Expr:
    """``formula``, or ``true`` (no bound) where it has more than :data:`LIMIT` nodes."""
    return formula if sum(1 for _ in walk(formula)) <= LIMIT else BoolConst(True)


def _before(at_source: Expr, messages: list[str], never: tuple[str, ...]) -> Expr:
    """``Pre_r``: the counts one step earlier, at most one of each type fewer, satisfied ``at_source``."""
    if at_source == BoolConst(True):
        return at_source
    free = [m for m in messages if m not in never]
    cases = []
    for delta in itertools.product((0, 1), repeat=len(free)):
        less = [m for m, d in zip(free, delta) if d]
        back = {received(m).name: summation(received(m), [("-", IntConst(1))]) for m in less}
        cases.append(conj(*(Compare(">=", received(m), IntConst(1)) for m in less), substitute(at_source, back)))
    return disj(*cases)


def _topological(nodes: list[str], edges: list[tuple[str, str]]) -> list[str] | None:
    """``nodes`` with every edge's source first; None when the edges have a cycle."""
    out, left = [], list(nodes)
    while left:
        ready = [n for n in left if not any(t == n and s in left and s != n for s, t in edges)]
        if not ready:
            return None
        out += ready
        left = [n for n in left if n not in ready]
    return out
