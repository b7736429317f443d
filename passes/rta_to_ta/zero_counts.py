"""Receive counts that are 0 for good at a location: what the file's own fairness then demands.

``in_transit = some(Proc: nrcvd < nsnt)`` ranges over every process (``passes/pml_to_rta/kept_counts.py``).
A process whose count of ``M`` is 0 at ``ℓ`` and stays 0 while it is there holds none of the ``M``
messages, so a fair run in which some process stays at ``ℓ`` forever has ``g(M) <= 0``: nothing of
``M`` guaranteed. Where that holds is a greatest fixpoint over the receive automaton: ``(ℓ, M)`` is
in it when every step that changes nothing at ``ℓ`` receives no ``M``, and every rule into ``ℓ``
resets the count to 0 or receives no ``M`` from a location in it. It is an invariant of every run
(processes start at initial locations with every count 0; each step keeps it), so conjoining
``g(M) <= 0`` to ``ℓ``'s clause of ``J_file`` (``passes/rta_to_ta/file_fairness.py``) keeps it an
over-approximation of the file's fair runs. Examples: NBAC's ``CRASH_NO``, entered from NO by a
step that receives nothing; cond-consensus2's P1 and decisions, where DMZ discarded the phase-0
messages (nothing of phase 0 may have been sent in a fair run that reaches them).
"""

from __future__ import annotations

from tactl.ir.rta.model import ReceiveTA
from tactl.passes.rta_to_ta.own_fairness import FileFairness


def surely_zero(rta: ReceiveTA, fairness: FileFairness) -> dict[str, tuple[str, ...]]:
    """Per location, the message types whose count is 0 there for good (module docstring)."""
    kept, zeroed, stay_kept, stays = (dict(fairness.kept), dict(fairness.zeroed), dict(fairness.stay_kept),
                                      dict(fairness.stays))
    messages = [m.name for m in rta.messages]
    zero = {(loc.name, m) for loc in rta.locations for m in messages}

    def holds(loc: str, m: str) -> bool:
        if loc in stays and m not in stay_kept.get(loc, ()):
            return False
        for r in rta.rules:
            if r.target != loc or (r.source == loc and not r.sends):
                continue  # a self-loop without sends is the translation's, no step of the file
            if m in zeroed.get(r.id, ()):
                continue
            if m not in kept.get(r.id, ()) or (r.source, m) not in zero:
                return False
        return True

    changed = True
    while changed:
        changed = False
        for pair in sorted(zero):
            if not holds(*pair):
                zero.discard(pair)
                changed = True
    return {loc.name: tuple(m for m in messages if (loc.name, m) in zero) for loc in rta.locations}
