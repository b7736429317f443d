"""Which of the file's steps receive nothing: what the file's own fairness reading needs to know
of a process's receive counts that the receive automaton forgets.

A receive rule says only what a step needs (its guard over ``received(M)``); under the derived
justice that is all that matters, since the counts are the environment's. Under the file's own
``ltl fairness`` (``passes/rta_to_ta/file_fairness.py``, ``tactl/engines/file_fairness.py``) a
process's counts are part of the formula: ``in_transit = some(Proc: nrcvd < nsnt)`` ranges over
every process, a crashed one and one that never steps again included (ByMC expands the quantifier
over every location of its skeleton, ``SymbSkel.expand_props_in_ltl``). A step whose paths all
take the file's "no receive" branch (``next_nrcvd = nrcvd``, e.g. NBAC's first step from YES or
NO) leaves the count where it was, so a process that takes it from an initial location still has
0 messages afterwards. That fact decides whether a process frozen after such a step is fair.

:func:`kept` computes it per rule; :func:`crashed_stutter` says whether a crashed process can
still take a step at all (a file whose step has no option at the crash location lets it take
none, one with ``:: else -> next_pc = pc`` lets it stutter forever).
"""

from __future__ import annotations

from tactl.ir.rta.model import FaultModel
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import SOURCE, Frozen


def kept(tr: TranslationState, paths: list, starts: list[tuple], edges: list) -> tuple[str, ...]:
    """The counters that no path of one rule receives: every path ends with the count it started
    with (``Frozen``), or with 0 at an initial location no step enters (the count is 0 there)."""
    entered = {t for s, t, _ in edges if s != t}
    out = []
    for r in tr.rvars:
        def keeps(p) -> bool:
            v = p.env.get(r.rcv)
            if isinstance(v, Frozen):
                return True
            src = p.env.get(SOURCE)
            return isinstance(v, int) and not isinstance(v, bool) and v == 0 and src in starts and src not in entered
        if paths and all(keeps(p) for p in paths):
            out.append(r.counter)
    return tuple(out)


def zeroed(tr: TranslationState, paths: list, starts: list[tuple], edges: list) -> tuple[str, ...]:
    """The counters that every path of one rule resets to 0 (cond-consensus2's DMZ discards the
    phase-0 messages), where the count need not have been 0 already."""
    entered = {t for s, t, _ in edges if s != t}
    out = []
    for r in tr.rvars:
        def resets(p) -> bool:
            v = p.env.get(r.rcv)
            return isinstance(v, int) and not isinstance(v, bool) and v == 0 and \
                (p.env.get(SOURCE) not in starts or p.env.get(SOURCE) in entered)
        if paths and all(resets(p) for p in paths):
            out.append(r.counter)
    return tuple(out)


def stay_kept(tr: TranslationState, stutters: list, starts: list[tuple], edges: list) -> dict[str, tuple[str, ...]]:
    """Per named location, the counters no step that changes nothing there receives."""
    by: dict[tuple, list] = {}
    for s, p in stutters:
        by.setdefault(s, []).append(p)
    return {tr.names[s]: kept(tr, ps, starts, edges) for s, ps in by.items() if s in tr.names}


def crashed_stutter(tr: TranslationState, stutters: list, starts: list[tuple], edges: list) -> tuple[bool, tuple[str, ...]]:
    """Whether a process at the file's crash location may keep taking a step that changes nothing,
    and the counters no such step receives."""
    dead = {tr.dead, *tr.dead_all} - {None}
    at = [p for s, p in stutters if s in dead]
    return bool(at), kept(tr, at, starts, edges) if at else ()


def crash_reading(tr: TranslationState, faults) -> bool:
    """The crash files whose own fairness is read (``passes/rta_to_ta/crash_fairness.py``), with one
    crash location (no crash locations that keep the state): tactl's ``crash(F)`` from a
    crash-send counter (``nsntF``), and ``clean_crash(F)`` from the file's own crash counter
    (cond-consensus2's ``nfaulty``)."""
    one = not tr.crash_copies and tr.dead is not None and not tr.dead_all
    fisman = faults.model is FaultModel.CRASH and tr.crash_counter is not None and tr.file_crash is None
    counted = faults.model is FaultModel.CLEAN_CRASH and tr.file_crash is not None and tr.crash_counter is None
    return one and (fisman or counted)
