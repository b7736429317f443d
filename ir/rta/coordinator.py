"""Coordinator messages of an *asynchronous* receive automaton: which locations are the
coordinator's, and what shape the automaton must have for the translation's encoding to be exact.

``coordinator K0, K1;`` in a ``timing async`` automaton models one round's coordinator (the
proposer of a Tendermint round, the coordinator of a rotating-coordinator round): exactly one
process is the coordinator; if it is correct it runs the automaton's coordinator part and sends
one coordinator message; if it is faulty it may send any coordinator message to any receiver,
at most one per receiver. The encoding is in ``passes/rta_to_ta/coordinator.py``; this module only names
the coordinator locations and states the shape rules, so that the validator (ir layer) and the
translation (passes layer) read them from one place.

**Coordinator locations** are the sources of rules that send a coordinator message — the same
definition as the lock-step engine's (``passes/rta_to_sync/sync_ta.py``, ``SyncTA.coordinators``). In an
asynchronous automaton a location is a process's state between steps, not a round, so the
translation can only count the correct coordinator if these locations are where the coordinator
*starts* and what it leaves by sending its message. Hence the shape rules
(:func:`shape_problems`):

1. every coordinator location is initial;
2. no rule enters a coordinator location (a self-loop that sends nothing — stuttering — is
   allowed);
3. every other rule leaving a coordinator location sends exactly one coordinator message (a
   correct coordinator sends on every path, and one message: a receiver gets at most one).

With them, "the correct processes in coordinator locations plus the coordinator messages sent
by correct processes" is constant along every run, so the initial constraint
``Σ κ[coordinator locations] == 1 - cf`` of the translation bounds the correct coordinator
messages ever sent by ``1 - cf``.
"""

from __future__ import annotations

from tactl.ir.errors import Span
from tactl.ir.rta.model import ReceiveTA, Timing


# a coordinator that acts after the start, or in every phase (king, queen), is lock-step's
_SYNC_HINT = "; a coordinator of later rounds or phases needs lock-step rounds ('timing sync;')"


def coordinator_locations(rta: ReceiveTA) -> tuple[str, ...]:
    """The sources of rules that send a coordinator message, in the order of the locations."""
    coordinator = set(rta.coordinator)
    sources = {r.source for r in rta.rules if coordinator & set(r.sends)}
    return tuple(loc.name for loc in rta.locations if loc.name in sources)


def is_async_coordinator(rta: ReceiveTA) -> bool:
    """True for an asynchronous automaton with coordinator messages."""
    return bool(rta.coordinator) and rta.timing is Timing.ASYNC


def shape_problems(rta: ReceiveTA) -> list[tuple[str, Span | None]]:
    """(message, where) for every violation of the shape rules of the module docstring (an
    asynchronous automaton with coordinator messages only; [] otherwise)."""
    if not is_async_coordinator(rta):
        return []
    out: list[tuple[str, Span | None]] = []
    coordinator = set(rta.coordinator)
    for m in rta.messages:
        if m.name in coordinator and m.kind is not None:
            out.append((f"coordinator message '{m.name}' is in kind '{m.kind}': the coordinator "
                        "messages already form one group (a receiver gets at most one of them); "
                        "declare it outside the kind", m.span))
    locations = coordinator_locations(rta)
    if not locations:
        out.append(("'coordinator' is declared but no rule sends a coordinator message "
                    f"({', '.join(rta.coordinator)}): the coordinator's rules must send one", rta.span))
        return out
    initial = set(rta.initial)
    for loc in locations:
        if loc not in initial:
            span = next((l.span for l in rta.locations if l.name == loc), rta.span)
            out.append((f"location {loc} sends a coordinator message, so it is a coordinator "
                        "location; in an asynchronous automaton the coordinator starts there: "
                        f"declare {loc} initial (the translation counts the correct coordinator "
                        f"in the initial configuration){_SYNC_HINT}", span))
    held = set(locations)
    for r in rta.rules:
        sent = [m for m in r.sends if m in coordinator]
        if r.target in held and not (r.is_self_loop and not r.sends):
            out.append((f"rule {r.id} enters the coordinator location {r.target}: a coordinator "
                        "location is where the coordinator starts (only a self-loop that sends "
                        f"nothing may return to it){_SYNC_HINT}", r.span))
        elif r.source in held and not r.is_self_loop and len(sent) != 1:
            what = "no coordinator message" if not sent else f"{len(sent)} coordinator messages"
            out.append((f"rule {r.id} leaves the coordinator location {r.source} and sends {what}: "
                        "a correct coordinator sends exactly one coordinator message on every path",
                        r.span))
    return out
