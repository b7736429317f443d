"""The file's own fairness for a crash model: what a crashed process is in the file's runs.

ByMC reads ``fairness -> spec`` over the file's interleaved steps (``passes/rta_to_ta/file_fairness.py``).
In the Fisman-style crash files (``frb.pml``, ``bcast-folklore-crash.pml``: a process dies by a
step to ``pc = CR`` that counts its broadcast in ``nsntF``; tactl's ``crash(F)``,
``passes/pml_to_rta/crash.py``) a crashed process is a process like the others for that formula:

* it takes a step at CR only if the file's step has an option there: ``:: else -> next_pc = pc``
  (CONCUR'14) lets it stutter forever, the POPL'17/ISOLA'18 version has none, so it never steps
  again (``passes/pml_to_rta/kept_counts.py``, ``crashed_stutter``);
* ``in_transit = some(Proc: nrcvd < nsnt)`` ranges over it too (ByMC expands the quantifier over
  every location of its skeleton, CR included), so a fair run eventually has every crashed
  process holding every correct message, which it can only have received before it crashed
  unless it keeps stepping.

So ``J_file`` of a crash model is ``J_file`` of the live locations (``file_justice``), with no
conjunct for CR — leaving one out only admits more runs, and tactl's silent crashes (a crash at any
location, which the file does not have) are no file runs anyway — and with one more way for a
run to go on forever: a crashed process that keeps taking its stutter step, where the file lets it.
A HOLDS under ``<>[](J_file) -> spec`` holds under the file's fairness.

The same holds for a file that counts its crashes itself (cond-consensus2: ``nfaulty < F && pc != CR
-> nfaulty++; next_pc = CR`` at any location, sending nothing; tactl's ``clean_crash(F)``). There
the ``else`` step, the stay, is enabled only once no other option is, so a stay needs the crash
budget spent (``nfaulty >= F``): J_file reads such a stay with the counter both at 0 and at F
(:func:`budget_stays`), the instance with its own crash counter.

A VIOLATED is a run of the file's instance (``tactl/engines/file_fairness.py``) with the file's
own crash steps (:func:`crash_steps`), at most F of them, replayed by the simulator with the file's
fairness in the formula.
"""

from __future__ import annotations

from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Name, disj, names, substitute
from tactl.ir.rta.model import FaultModel, ReceiveTA
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.rta_to_ta.env import CRASHED, sent_by_crashing


def crash_reading(rta: ReceiveTA) -> bool:
    """The crash models whose file reading is built: ``crash(F)`` and ``clean_crash(F)`` with the
    one crash location of tactl's (no crash locations that keep the state, no crash rules of the
    parse pass); the front end builds the reading only for the two shapes of the module docstring
    (``passes/pml_to_rta/kept_counts.py``, ``crash_reading``)."""
    return rta.faults.model in (FaultModel.CRASH, FaultModel.CLEAN_CRASH) and not rta.crash_locations \
        and not rta.crash_rules


def budget_stays(stays: dict[str, Expr], bound: str | None) -> dict[str, Expr]:
    """The stays with the crash counter (the front end's name for the file's, ``ncrashed``) read
    both ways: a stay of cond-consensus2 is
    ``else``, taken only when no crash option is enabled (``nfaulty >= F``); J_file does not track
    the crash count, so it allows the stay with the counter at 0 or at ``F`` (either value of
    ``nfaulty < F``): more stays, an over-approximation still."""
    if bound is None:
        return stays
    out = {}
    for loc, cond in stays.items():
        if CRASHED in {n.name for n in names(cond)}:
            cond = disj(substitute(cond, {CRASHED: IntConst(0)}), substitute(cond, {CRASHED: Name(bound)}))
        out[loc] = cond
    return out


def crash_locations(rta: ReceiveTA, ta: ThresholdAutomaton) -> tuple[str, ...]:
    """The automaton's locations the receive automaton has not: its crash location."""
    live = {loc.name for loc in rta.locations}
    return tuple(loc.name for loc in ta.locations if loc.name not in live)


def crashed_moving(rta: ReceiveTA, ta: ThresholdAutomaton, crashed_stutter: bool) -> list[Expr]:
    """The ways a crashed process keeps the run going: ``CR != 0`` where the file's step lets a
    crashed process stutter, none elsewhere."""
    if not crashed_stutter or not crash_reading(rta):
        return []
    return [Compare("!=", Name(n), IntConst(0)) for n in crash_locations(rta, ta)]


def crash_steps(rta: ReceiveTA, translation, crashed_stutter: bool, crashed_kept: tuple[str, ...],
                zeroed: dict[int, tuple[str, ...]] | None = None) -> tuple[dict[str, list[tuple]], tuple[str, ...]]:
    """The file's crash steps for the instance of ``tactl/engines/file_fairness.py``, as its paths
    ``(target, condition, counters incremented, message types not received, types reset to 0)``
    per source, and the
    crash-send counters they increment, and the crash counter (``ncrashed``, below the instance's F). A Fisman-style file crashes exactly where a correct step
    would broadcast, under that step's condition, counting the broadcast in ``nsntF`` instead of
    ``nsnt`` (``passes/pml_to_rta/crash.py``: ``sending_crash_location``): one crash step per
    sending rule, to the crash location, incrementing ``nsf_M`` (tactl's name for ``nsntF``). A
    crashed process stutters there where the file lets it (``crashed_stutter``), receiving unless
    no path of that step receives (``crashed_kept``). A file with its own crash counter
    (``clean_crash(F)``) crashes at any live location, sending nothing. Empty for any other model."""
    zeroed = zeroed or {}
    env = translation.environment
    where = crash_locations(rta, translation.ta)
    if not crash_reading(rta) or len(where) != 1 or \
            (rta.faults.model is FaultModel.CRASH and not env.partial_sends):
        return {}, ()
    [cr] = where
    paths: dict[str, list[tuple]] = {}
    if rta.faults.model is FaultModel.CLEAN_CRASH:
        # the file's own crash step (``nfaulty < F -> nfaulty++; next_pc = CR``), from every live
        # location, sends nothing; taken with nothing new received (the receive allows it), the
        # counts as the location's steps leave them where every one resets them
        for loc in rta.locations:
            out = [r for r in rta.rules if r.source == loc.name and r.source != r.target]
            reset = tuple(m.name for m in rta.messages
                          if out and all(m.name in zeroed.get(r.id, ()) for r in out))
            paths.setdefault(loc.name, []).append(
                (cr, BoolConst(True), (CRASHED,), tuple(m.name for m in rta.messages), reset))
        sends: tuple[str, ...] = (CRASHED,)
    else:
        for r in rta.rules:
            if r.sends and r.source != r.target:
                paths.setdefault(r.source, []).append(
                    (cr, r.guard, (CRASHED, *(sent_by_crashing(m) for m in r.sends)), (), ()))
        sends = (*(sent_by_crashing(m.name) for m in rta.messages), CRASHED)
    if crashed_stutter:
        paths.setdefault(cr, []).append((cr, BoolConst(True), (), crashed_kept, ()))
    return paths, sends
