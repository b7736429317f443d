"""Partial messages tactl's crash model does not generate: then the file's crash steps are the crash rules.

tactl's ``crash(F)`` builds its crash rules from the automaton (``passes/rta_to_ta/eliminate.py``):
a silent crash at every location and, for every rule that broadcasts M, a crash in the middle of
it that may reach some receivers (``nsf_M``). ByMC's NBAC files with a failure detector
(``nbacg``, ``asyn-guer01-nbac``) crash otherwise: at NO and YES the crash step increments its
vote's crash-send counter (``next_pc == CRASH && pc == NO -> nsntNoF++``) whatever the
failure-detector bit, also where the correct step (``some_fail == 1 -> next_pc = ABORT``) sends
nothing. Read as written, a process there that crashes may have sent its vote to some receivers,
a partial message of a broadcast no correct step at that location makes.

Where a crash step sends such a partial message (``uncut``), the automaton's crash rules are the
file's own crash steps (``passes/pml_to_rta/crash_copies.py``: ``ReceiveTA.crash_rules`` into crash
locations, ``ir/rta/model.py``), which is the file's crash model exactly: a crash where the file
has a crash step, sending partially what that step's crash-send counters count. A warning names
the locations and messages.
"""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.passes.pml_to_rta.state import TranslationState


def uncut(tr: TranslationState, dying: list, others: list, crash_send: str, span: Span | None) -> bool:
    """Whether some crash step of ``dying`` increments the crash-send counter of a message M at a
    location from which no correct step of ``others`` broadcasts M unconditionally (module
    docstring); if so, one warning lists them. ``crash_send``: the prefix of the walk's markers
    ``f"{crash_send}:{M}"``."""
    found: dict[tuple, list[str]] = {}
    for s, _, p in dying:
        for x in p.sends:
            m = x[len(crash_send) + 1:] if x.startswith(crash_send + ":") else None
            if m and not any(s2 == s and q.sends == [m] and not q.cond for s2, _, q in others):
                found.setdefault(s, [])
                if m not in found[s]:
                    found[s].append(m)
    if not found:
        return False
    lv = tr.loc_vars()
    of = {m: c for c, m in tr.crash_of.items()}
    where = "; ".join(", ".join(f"{v} = {x}" for v, x in zip(lv, s)) + ": " +
                      ", ".join(f"'{m}' ('{of.get(m, m)}++')" for m in ms) for s, ms in found.items())
    tr.notes.append(Diagnostic(Severity.WARNING, (
        "crash faults: the file's crash steps send partial messages no correct step at their "
        f"location broadcasts ({where}): read as written, a process crashing there may have sent "
        "that message to some receivers. tactl's crash model would only cut short the broadcasts "
        "the location's rules make, so the automaton's crash rules are the file's own crash steps"),
        span))
    return True
