"""The file's justice (``passes/rta_to_ta/file_fairness.py``) for crash locations that keep state,
and for stays that reset a receive count.

**Crash locations that keep state** (``ReceiveTA.crash_locations``, ISOLA'18 ``nbacr.pml``: a
crashed process keeps its failure-detector bit; ``passes/pml_to_rta/crash_copies.py``). The
receive automaton's crash rules are the file's own crash steps, from a live location into a crash
location, counted against F; ``J_file`` is built on the live locations as for one crash location
(``crash_fairness.py``):

* no clause for a crash location: ``in_transit`` ranges over crashed processes too (ByMC expands
  the quantifier over every location of its skeleton), so the file's fair runs have each crashed
  process holding every correct message; leaving that out only admits more runs;
* the clause of a live location speaks of the processes that stay there for good (they stay,
  entered it and stopped, or never stepped): a crash rule out of it changes none of those cases;
* a run of the file goes on for ever only if some process keeps taking steps: a live one (the
  clause ``moving``), or, where the file lets a crashed process step (a stutter at a crash
  valuation, or a step between them: ``passes/pml_to_rta/crash_readings.py``), a crashed one —
  :func:`copies_moving` adds ``κ[CR_x] != 0`` for every crash location then.

So ``<>[](J_file) -> spec`` holding implies the specification under the file's fairness. No
instance of the file is built for these automata (``tactl/engines/file_fairness.py``): their
file verdict is this proof, or UNKNOWN; never a VIOLATED without a run.

**Stays that reset a count** (c1cs's decided processes: ``next_nrcvd0 = 0``, then ``next_pc =
pc``): a process that keeps taking, or last took, such a stay holds none of that type's messages,
so it is fair only if nothing of the type is guaranteed (:func:`reset_stay`). In the file's
instance such a stay goes to the count 0, and so does a crashed process's (:func:`crashed_resets`).

**The file's own crash steps where it counts crashes and cut broadcasts both** (c1cs, cf1s;
``passes/pml_to_rta/crash_readings.py``): ``J_file`` is ``crash_fairness.py``'s for ``crash(F)``;
the instance takes the file's crash steps as the front end read them (:func:`counted_crash_steps`),
so that a run found there is a run of the file: from each live location, to CR, counting the
crash (at most F, the file's ``nfaulty < F``) and the broadcasts it cuts short, receiving as the
file's step does there (nothing new where it keeps the counts, 0 where it resets them).
"""

from __future__ import annotations

from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Name, conj
from tactl.ir.rta.model import FaultModel, ReceiveTA
from tactl.passes.rta_to_ta.crash_fairness import crash_locations
from tactl.passes.rta_to_ta.env import CRASHED, sent_by_crashing


def copies_reading(rta: ReceiveTA) -> bool:
    """``crash(F)`` with crash locations that keep state and the file's crash steps as its rules."""
    return rta.faults.model is FaultModel.CRASH and bool(rta.crash_locations)


def copies_moving(rta: ReceiveTA, crashed_stutter: bool) -> list[Expr]:
    """``κ[CR_x] != 0`` for each crash location where a crashed process may keep stepping."""
    if not crashed_stutter or not copies_reading(rta):
        return []
    return [Compare("!=", Name(loc.name), IntConst(0)) for loc in rta.crash_locations]


def reset_stay(location: str, stay_zeroed: dict[str, tuple[str, ...]], guaranteed) -> Expr:
    """What a process's last stay at ``location`` leaves it fair with: ``g(M) <= 0`` for every
    type ``M`` each stay there resets (``guaranteed``: Env's ``(M, g(M))``)."""
    zero = stay_zeroed.get(location, ())
    return conj(*(Compare("<=", g, IntConst(0)) for m, g in guaranteed if m in zero))


def crashed_resets(crashing: dict[str, list[tuple]], stay_zeroed: dict[str, tuple[str, ...]]) -> dict[str, list[tuple]]:
    """The file's crash steps of the instance (``crash_fairness.crash_steps``: ``(target,
    condition, increments, kept, reset)`` per source) with a crashed process's stutter resetting
    what the file's resets (``stay_zeroed`` under the crash location's name): a crashed process
    that keeps stepping then holds none of those messages, as in the file."""
    return {loc: [(t, c, inc, kept, reset or (stay_zeroed.get(loc, ()) if t == loc and not inc else ()))
                  for t, c, inc, kept, reset in out] for loc, out in crashing.items()}


def counted_crash_steps(rta: ReceiveTA, translation, crash_paths: tuple[tuple, ...]) -> tuple[dict[str, list[tuple]], tuple[str, ...]]:
    """The instance's crash steps for :func:`crash_paths` of the front end (module docstring), in
    ``crash_fairness.crash_steps``'s form: paths ``(target, condition, increments, kept, reset)``
    per source, and the shared variables they increment; empty where the file has none."""
    where = crash_locations(rta, translation.ta)
    if not crash_paths or len(where) != 1:
        return {}, ()
    [cr] = where
    paths: dict[str, list[tuple]] = {}
    for source, cut, kept, reset in crash_paths:
        paths.setdefault(source, []).append(
            (cr, BoolConst(True), (CRASHED, *(sent_by_crashing(m) for m in cut)), kept, reset))
    return paths, (*(sent_by_crashing(m.name) for m in rta.messages), CRASHED)
