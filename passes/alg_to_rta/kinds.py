"""Message kinds: which instances of a message name a correct process sends at most one of per
round (then they form a kind), and the check that a sum of instances' receive counts counts
distinct senders.
"""

from __future__ import annotations

from tactl.ir.alg import syntax as A

from tactl.passes.alg_to_rta.context import Context, fail
from tactl.passes.alg_to_rta.explore import Explorer
from tactl.passes.alg_to_rta.instructions import SENT


def message_kinds(ctx: Context, ex: Explorer, edges) -> set[str]:
    """The message names whose instances form a kind: those of which a correct process sends at
    most one instance per round (Ben-Or's ``(R, v)``). A kind tells the Env that a faulty sender
    counts once per receiver among all its instances (passes/rta_to_ta/env.py) — right when the protocol
    has every process send one of them, wrong when a correct process may send several (the
    binary-value broadcast's ``(B, 0)`` and ``(B, 1)``): then a faulty one may too, and its
    instances stay separate messages."""
    several = _sent_several(ctx, ex, edges)
    base = {t.name: t.base for t in ctx.types}
    coordinator = {b for t, b in base.items() if t in ctx.layout.coordinator_types}
    return {k for k in ctx.kinds if k not in several and k not in coordinator}


def check_sums_count_processes(ctx: Context, ex: Explorer, edges) -> None:
    """Refuse a sum of instances that does not count distinct senders.

    ``received (AUX, vals) from K processes`` and ``received (AUX, *) …`` are read as the sum of
    the instances' receive counts. A receiver's counts are per instance, so the sum counts a
    sender once per instance it sent: it is the number of distinct senders exactly when no
    process sends two instances — for correct processes, when the instances form a kind (the
    code sends at most one per round, ``_sent_several``); a faulty one is then bounded per kind
    by the Env. When a correct process may send two instances, the sum may count it twice and
    the guard holds with fewer distinct senders than K: a run the program does not have (a
    spurious violation, or a guard that fires too early). No linear form of the per-instance
    counts says "K distinct senders" then (a process that sent both is indistinguishable from
    two that sent one each), so the construct is refused at its position."""
    several = _sent_several(ctx, ex, edges)
    for name, span in ex.ev.sums.items():
        if name in several:
            instances = ", ".join(t.name for t in ctx.types if t.base == name)
            raise fail(f"this counts the processes that sent some instance of '{name}' as the sum "
                       f"of the instances' counts ({instances}), but a correct process may send "
                       f"several instances of '{name}' in one round, and the sum would count it "
                       "once per instance, not once: tactl cannot count distinct senders here. "
                       f"Count one instance at a time (e.g. 'received ({name}, v) from …'), or send one "
                       "instance per round (then the instances form a kind and the sum is exact)",
                       span)


def _sent_several(ctx: Context, ex: Explorer, edges) -> set[str]:
    """The message names of which a correct process may send two instances in one round."""
    base = {t.name: t.base for t in ctx.types}

    def flags(values) -> set[str]:
        return {c[len(SENT):] for c, v in zip(ex.components, values)
                if c.startswith(SENT) and v == A.TRUE}

    several: set[str] = set()
    for (_, before), (_, after), o in edges:
        # what the process has sent in this round once the step is done: the flags it had
        # (kept while another send of the name may follow) and what the step sends
        sent = [base[m] for m in flags(before) | set(o.sends) | flags(after)]
        several |= {b for b in sent if sent.count(b) > 1}
    return several
