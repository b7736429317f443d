"""The lock-step engine's diameter (tactl/engines/lockstep.py): the number of rounds within which
every reachable configuration is reached, so that bounded checks up to it decide a property for
every run and every parameter valuation.

D is a diameter if everything reachable in D + φ rounds from a configuration (satisfying the
invariants; with phases of φ > 1 rounds, from a phase start: only initial locations populated) is
reachable within D rounds: the ∃∀ query :func:`_diameter` asks is UNSAT. Without a diameter (none
up to the cap, or a solver timeout) the engine's verdicts are ``unknown``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

import z3

from tactl.engines.lockstep_certificate import in_rounds, obligation, smtlib
from tactl.engines.lockstep_encoding import initial, parameters, path, rc, solver, undecided
from tactl.engines.result import Obligation
from tactl.ir.rta.model import ReceiveTA
from tactl.passes.rta_to_sync.sync_ta import SyncTA, build
from tactl.util import deadline
from tactl.util import progress as shown
from tactl.util.progress import Note

MAX_DIAMETER = 6


@dataclass
class Diameter:
    value: int | None  # in rounds; None: not found
    seconds: float
    queries: list[tuple[int, str, float]]  # (D in phases, sat/unsat/unknown, seconds)
    reason: str = ""
    phase: int = 1  # rounds per phase
    timed_out: bool = False  # stopped by the command's --timeout
    # The unsat answers a found diameter rests on (tactl/engines/lockstep_certificate.py): the
    # query at D and, with phases, that a phase leads from a phase start to a phase start.
    obligations: list[Obligation] = field(default_factory=list)

    def describe(self) -> str:
        if self.phase == 1:
            return (f"diameter {self.value}: every reachable configuration is reached within "
                    f"{self.value} rounds")
        return (f"diameter {self.value} rounds, phases of {self.phase}: every configuration "
                f"reachable at a phase start is reached within {self.value} rounds, every other "
                f"within {self.depth()}")

    def depth(self) -> int:
        """How many rounds the bounded checks must cover: the diameter, plus the rounds that
        lead from a phase start into the middle of a phase."""
        return (self.value if self.value is not None else MAX_DIAMETER * self.phase) + self.phase - 1


_DIAMETERS: dict[tuple[ReceiveTA, tuple[tuple[str, int], ...]], Diameter] = {}


def diameter_of(rta: ReceiveTA, fixed: dict[str, int], progress: Note | None = None) -> Diameter:
    """The diameter (for the ``--param`` values ``fixed``), once per automaton in a process
    (every property of it needs it); a search stopped by the --timeout is not kept (more time
    may decide it), one that z3 gave up within its resource limit is (the same again)."""
    key = (rta, tuple(sorted(fixed.items())))
    found = _DIAMETERS.get(key)
    if found is None:
        found = diameter(build(rta), fixed=fixed, progress=progress)
        if not found.timed_out:
            _DIAMETERS[key] = found
    return found


def phase_length(sta: SyncTA) -> int:
    """φ, the rounds of a phase: when every rule from a round-k location (k rounds after an
    initial one) leads to a round-(k + 1) location, and rules into initial locations come from
    round φ - 1 only (phase queen: V → S/W/Q → V, φ = 2). 1 when there is no such structure
    (FloodMin: V → V), or under crash faults (crashing twins blur it)."""
    levels = phase_levels(sta)
    return 1 if levels is None else max(levels.values()) + 1


def phase_levels(sta: SyncTA) -> dict[str, int] | None:
    """Each location's round within its phase (0: an initial location) when the automaton has
    the phase structure :func:`phase_length` describes; None when it has none."""
    if sta.crashing:
        return None
    level = {l: 0 for l in sta.initial}
    changed = True
    while changed:
        changed = False
        for r in sta.rules:
            if r.source in level and r.target not in sta.initial and r.target not in level:
                level[r.target] = level[r.source] + 1
                changed = True
    if set(level) != set(sta.locations):
        return None
    phase = max(level.values()) + 1
    for r in sta.rules:
        expected = 0 if level[r.source] == phase - 1 else level[r.source] + 1
        if level[r.target] != expected:
            return None
    return level


def after_coordinator(sta: SyncTA) -> int:
    """How many rounds a round with a coordinator can end before the next phase start (0 without
    phases, or when every coordinator location is in a phase's last round): the bounded checks
    after a hypothesis's round cover that many rounds more than the depth, since the diameter
    speaks of paths from phase starts."""
    levels = phase_levels(sta)
    if levels is None or not sta.coordinators:
        return 0
    last = max(levels.values())
    return max(last - levels[c] for c in sta.coordinators)


def phase_question(sta: SyncTA, phase: int, fixed: dict[str, int]) -> str:
    """What the diameter with phases takes from :func:`phase_length`, as an SMT-LIB question
    whose answer must be ``unsat``: a phase of ``phase`` rounds from a configuration with only
    initial locations populated ends with a non-initial location populated (so every phase of a
    run starts at a phase start, by induction from its initial configuration)."""
    params = parameters(sta)
    p = path(sta, phase, "p", params)
    s = solver()
    s.add(rc(sta, params, fixed), *p.constraints, initial(sta, p.kappa[0]),
          z3.Not(initial(sta, p.kappa[phase])))
    return smtlib(s, f"phases of {phase} rounds: a phase of {phase} rounds from a phase start (only initial locations populated) "
                     "that ends elsewhere; unsat: every phase of a run starts at a phase start")


def diameter(sta: SyncTA, cap: int = MAX_DIAMETER, fixed: dict[str, int] | None = None,
             progress: Note | None = None) -> Diameter:
    """The smallest D ≤ cap such that every configuration reachable in (D + 1)·φ rounds is
    reachable within D·φ rounds, from any configuration satisfying the invariants (φ = 1) or any
    phase start (φ > 1: only initial locations populated). D counts phases. With
    ``fixed`` (--param), for those parameter values only. The command's --timeout interrupts it
    (``timed_out``). ``progress`` hears of each depth as its query starts and ends."""
    started = time.perf_counter()
    queries: list[tuple[int, str, float]] = []
    phase = phase_length(sta)
    try:
        with deadline.interruptible():
            return _diameter(sta, cap, fixed or {}, started, queries, phase, progress)
    except deadline.DeadlineExceeded:
        return Diameter(None, time.perf_counter() - started, queries,
                        deadline.timeout_reason() + " while searching the diameter", phase, timed_out=True)


_DEPTH_ANSWER = {"unsat": "a diameter", "sat": "not a diameter", "unknown": "not decided"}


def _diameter(sta: SyncTA, cap: int, fixed: dict[str, int], started: float,
              queries: list[tuple[int, str, float]], phase: int, progress: Note | None = None) -> Diameter:
    for d in range(0, cap + 1):
        shown.step(progress, f"diameter search: D = {in_rounds(d * phase)} (at most {cap * phase}) ...")
        params = parameters(sta)
        outer = path(sta, (d + 1) * phase, "e", params)
        inner = path(sta, d * phase, "a", params)
        last = outer.kappa[(d + 1) * phase]
        same_start = z3.And(*[inner.kappa[0][l] == outer.kappa[0][l] for l in sta.locations])
        differs = z3.And(*[z3.Or(*[inner.kappa[j][l] != last[l] for l in sta.locations])
                           for j in range(d * phase + 1)])
        s = solver()
        s.add(rc(sta, params, fixed), *outer.constraints)
        if phase > 1:
            s.add(initial(sta, outer.kappa[0]))
        s.add(z3.ForAll(inner.variables(), z3.Implies(z3.And(same_start, *inner.constraints), differs)))
        t0 = time.perf_counter()
        answer = s.check()
        queries.append((d, str(answer), time.perf_counter() - t0))
        shown.step(progress, f"diameter search: D = {in_rounds(d * phase)}: {_DEPTH_ANSWER[str(answer)]} "
                             f"({queries[-1][2]:.2f} s)")
        if answer == z3.unsat:
            rounds = in_rounds(d * phase)
            asked = [obligation(f"diameter {rounds}", s,
                                f"a configuration reached in {in_rounds((d + 1) * phase)} from "
                                f"{'a phase start' if phase > 1 else 'any configuration'} and on "
                                f"no path of at most {rounds} from there; unsat: {rounds} is a "
                                "diameter")]
            if phase > 1:
                asked.append(Obligation(f"phases of {phase} rounds",
                                        build=partial(phase_question, sta, phase, fixed)))
            return Diameter(d * phase, time.perf_counter() - started, queries, phase=phase,
                            obligations=asked)
        if answer == z3.unknown:
            return Diameter(None, time.perf_counter() - started, queries,
                            f"the diameter query for D = {d * phase} rounds was not decided: "
                            f"{undecided(s)}", phase,
                            timed_out=deadline.active() and deadline.remaining() == 0)
    return Diameter(None, time.perf_counter() - started, queries,
                    f"no diameter up to {cap * phase} rounds (parameterized reachability of "
                    "synchronous threshold automata is undecidable in general)", phase)
