"""Two more crash models whose own fairness is read, and the steps that reset a receive count.

``kept_counts.crash_reading`` names the crash files whose own ``ltl fairness`` reading is built
(``passes/rta_to_ta/crash_fairness.py``). Two shapes are added here:

* **crash-send counters together with the file's own crash counter** (ISOLA'18/CAV'15/POPL'17
  ``c1cs.pml``, ``cf1s.pml``): ``nfaulty < F -> nfaulty++; next_pc = CR`` at any location, and
  ``pc == V0 && next_pc == CR -> nsnt0F++`` where the crash cuts a broadcast short.
  ``crash.py`` (``crash_location``) reads it as tactl's ``crash(F)`` with the one crash location
  CR, exactly the model of the Fisman-style files whose reading is built; the file's counter
  only bounds the crashes by F, which ``crash(F)`` does too (:func:`counted_and_cut`). The file's
  instance takes the file's own crash steps (:func:`crash_paths`): from every live location, each
  with the crash-send counters it increments and what its receive does (c1cs's crash at D0
  forgets the votes, one at V0 may receive first).
* **crash locations that keep state** (ISOLA'18 ``nbacr.pml``: a crashed process keeps its
  failure-detector bit, ``crash_copies.py``): the receive automaton's crash rules are the file's
  own crash steps. A crashed process is a process of the file's formula like the others (ByMC
  expands ``in_transit`` over every location, ``SymbSkel.expand_props_in_ltl``); the file's
  justice leaves its crash locations out (an over-approximation) and counts a crashed process
  that may keep stepping as "a process keeps taking steps" (:func:`crashed_moving_copies`,
  ``passes/rta_to_ta/crash_copies_fairness.py``). No instance of the file is built for them
  (``tactl/engines/file_fairness.py``): their file verdict is a proof, or UNKNOWN.

:func:`stay_zeroed` finds the steps that change nothing but reset a count (c1cs's decided
processes: ``pc == D0 -> next_nrcvd0 = 0``, then ``next_pc = pc``): a process that takes one holds
none of those messages afterwards, which the file's formula reads.
"""

from __future__ import annotations

from tactl.ir.rta.model import CRASH_LOCATION, FaultModel
from tactl.passes.pml_to_rta import kept_counts as PK
from tactl.passes.pml_to_rta.state import TranslationState


def counted_and_cut(tr: TranslationState, faults) -> bool:
    """``crash(F)`` read from the file's crash counter *and* its crash-send counters, with the one
    crash location CR (``crash.crash_location``, not its crash copies)."""
    return faults.model is FaultModel.CRASH and tr.file_crash is not None and tr.crash_counter is not None \
        and tr.dead is not None and not tr.crash_copies


def kept_state(tr: TranslationState, faults) -> bool:
    """``crash(F)`` whose crashed processes keep what the properties read (crash copies)."""
    return faults.model is FaultModel.CRASH and bool(tr.crash_copies)


def crashed_moving_copies(tr: TranslationState, stutters: list) -> bool:
    """Whether a crashed process at a crash copy may take a step: a stutter at one of its
    valuations, or a step between crash valuations (``crash_copies.split_moves``)."""
    dead = {v for c in tr.crash_copies for v in c.valuations}
    return any(s in dead for s, _ in stutters) or tr.crashed_moves


def stay_zeroed(tr: TranslationState, stutters: list, starts: list[tuple], edges: list) -> dict[str, tuple[str, ...]]:
    """Per named location, the counters every step there that changes nothing resets to 0 (where
    the count need not have been 0 already: not a start location no step enters); under the name
    of tactl's one crash location CR, those a crashed process's stutter resets (CAV'15 c1cs: ``pc ==
    CR -> next_nrcvd0 = 0``, then ``next_pc = pc``)."""
    entered = {t for s, t, _ in edges if s != t}
    dead = {tr.dead, *tr.dead_all} - {None}
    by: dict[str, list] = {}
    for s, p in stutters:
        if s in dead and not tr.crash_copies:
            by.setdefault(CRASH_LOCATION, []).append(p)
        elif s in tr.names and not (s in starts and s not in entered):
            by.setdefault(tr.names[s], []).append(p)
    out = {}
    for s, paths in by.items():

        def resets(p, rcv: str) -> bool:
            v = p.env.get(rcv)
            return isinstance(v, int) and not isinstance(v, bool) and v == 0
        zero = tuple(r.counter for r in tr.rvars if all(resets(p, r.rcv) for p in paths))
        if zero:
            out[s] = zero
    return out


def crash_paths(tr: TranslationState, starts: list[tuple], edges: list, crash_send: str) -> tuple[tuple, ...]:
    """The file's own crash steps of :func:`counted_and_cut`, as ``(source, message types whose
    crash-send counter it increments, types it receives none of, types it resets to 0)``, one per
    distinct step; ``crash.crash_location`` checked that each is possible whatever was received."""
    out: list[tuple] = []
    for s, _, p in tr.file_crash_paths:
        if s not in tr.names:
            continue
        sent = tuple(sorted(x[len(crash_send) + 1:] for x in p.sends if x.startswith(crash_send + ":")))
        path = (tr.names[s], sent, PK.kept(tr, [p], starts, edges), PK.zeroed(tr, [p], starts, edges))
        if path not in out:
            out.append(path)
    return tuple(out)
