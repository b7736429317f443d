"""``timing sync`` in the interpreter: lock-step rounds (docs/alg.md "Semantics": a round is one
step; every message of the round arrives before its end).

One transition is one round of every process that has not crashed: (1) each sends what its round
code sends — read from the start of the round, so a ``send`` must not depend on the round's own
messages (checked: the sends of the computed round must be the ones sent; else an error at the
round); (2) each receives every message of the round from the processes that do not crash in it,
plus what the fault model allows: a process crashing in the round (``crash(f)``: any set of up
to f − crashed processes) reaches a subset of the receivers, and keeps the state it had at the
round's start; a Byzantine process (``byzantine(f)``) sends any set of types to each receiver
(one per kind); (3) each computes its round (every outcome of its nondeterministic choices), and
starts the next round with its sent flags and received messages reset.

Phases (``round 1:`` … ``round K:``): each process runs the round its position is in, up to that
round's end, and starts the next round there (the last round's end leads to round 1). The phase's
coordinator (docs/alg.md "Phases and coordinators") is chosen by the adversary at the start of
the round that reads it (the only round of the phase in which it acts, so choosing there is
choosing one per phase): any process — each correct one, or, under ``byzantine(f)`` with f ≥ 1,
a faulty one, which then may make each receiver receive any one coordinator message or none
(different ones to different receivers). It is forgotten at the round's end.

Hypotheses (``NAME assuming clean round: always P``): ``P`` is required in every state reached
one or more rounds after a round of the kind (no crash; at most K crashes; a correct
coordinator); the state records which kinds of round have happened (``Global.rounds``). Only
safety is checked in lock step.
"""

from __future__ import annotations

from itertools import combinations, product

from tactl.ir.alg import syntax as A
from tactl.ir.alg.hypothesis import CLEAN_ROUND, CORRECT_COORDINATOR, FEW_CRASHES

from .errors import SourceError
from .step import Context, Local, step
from .system import Global, Label, System

MAX_ROUND_SUCCESSORS = 200_000


def hypothesis_bit(kind: str, crashes: int = 0) -> int:
    """The bit of ``Global.rounds`` that records a past round of this kind."""
    if kind == CORRECT_COORDINATOR:
        return 1 << 8
    return 1 if kind == CLEAN_ROUND else 2 << crashes if kind == FEW_CRASHES else 0


class SyncSystem(System):
    """The lock-step transitions; the rest (initial states, properties, symmetry) as asynchronous."""

    coordinator_at_start = False  # chosen at the start of the round that reads it

    def successors(self, g: Global) -> list[tuple[Label, Global]]:
        alive = self.alive(g)
        out: list[tuple[Label, Global]] = []
        for c in self._coordinators(g):
            h = g._replace(coordinator=c)
            sends = {p: self._sends(h, p) for p in alive}
            budget = max(0, self.faults.crashes - len(g.crashed)) if self.faults.mid_step or \
                self.faults.crashes else 0
            for k in range(min(budget, len(alive)) + 1):
                for crashing in combinations(alive, k):
                    survivors = [p for p in alive if p not in crashing]
                    reach_options = [list(_subsets(survivors)) for _ in crashing]
                    for reach in product(*reach_options):
                        out.extend(self._round(h, sends, crashing, dict(zip(crashing, reach)),
                                               survivors))
                        if len(out) > MAX_ROUND_SUCCESSORS:
                            raise SourceError(f"one round has more than {MAX_ROUND_SUCCESSORS} "
                                              "outcomes at these parameters: try smaller ones")
        return out

    def _current_round(self, g: Global) -> int:
        """The start of the round every process that has not crashed is in (lock step)."""
        alive = self.alive(g)
        return self.prog.round_start(g.procs[alive[0]].pc) if alive else 0

    def _coordinators(self, g: Global) -> list[int]:
        """Who may coordinate the round about to run: -1 (nobody) in a round that does not read
        ``coordinator``; else any process that is not stateless, or one faulty process (the
        faulty ones are interchangeable)."""
        if self._current_round(g) not in self.prog.coordinator_rounds:
            return [-1]
        return [i for i in range(self.n) if g.procs[i] is not None] + \
            list(self.faults.stateless[:1])

    def _context(self, g: Global) -> Context:
        c = g.coordinator
        return Context(self.prog, self.fparams, self.alive(g),
                       coordinator=c if c >= 0 and g.procs[c] is not None else None)

    def _sends(self, g: Global, pid: int) -> frozenset:
        local = g.procs[pid]
        found = {frozenset((t for t, _ in o.sends)) for o in step(self._context(g), pid, local, True)}
        if len(found) != 1:
            raise SourceError("in lock-step rounds the interpreter needs what a process sends to be "
                              "known at the round's start (no send after a choice or a receipt)",
                              self._round_span())
        return next(iter(found))

    def _round_span(self, g: Global | None = None):
        return self.prog.round_spans.get(self._current_round(g) if g is not None else 0)

    def _receipts(self, g: Global, r: int, base: frozenset) -> list[frozenset]:
        """What ``r`` may receive: ``base`` and any messages the Byzantine processes send it (a
        faulty coordinator: at most one coordinator message besides)."""
        options = [base]
        for b in (self.faults.stateless if self.faults.forge else ()):
            per_b = [frozenset()]
            groups: dict[object, list[int]] = {}
            for m in self.prog.types:
                if not m.coordinator:
                    groups.setdefault(m.name if m.name in self.kinds else m.index, []).append(m.index)
                elif g.coordinator == b:
                    groups.setdefault("coordinator", []).append(m.index)
            for group in groups.values():
                per_b = per_b + [x | {(b, t)} for x in per_b for t in group]
            options = [o | x for o in options for x in per_b]
        return options

    def _round(self, g: Global, sends: dict, crashing: tuple, reach: dict, survivors: list):
        base_for = {}
        for r in survivors:
            got = {(s, t) for s in survivors for t in sends[s]}
            got |= {(c, t) for c in crashing if r in reach[c] for t in sends[c]}
            base_for[r] = frozenset(got)
        per_process = []
        ctx = self._context(g)
        for r in survivors:
            choices, effects = [], set()
            for got in self._receipts(g, r, base_for[r]):
                rcv = [set() for _ in self.prog.types]
                for s, t in got:
                    rcv[t].add(s)
                local = g.procs[r]._replace(rcv=tuple(frozenset(x) for x in rcv))
                for o in step(ctx, r, local, True):
                    if frozenset(t for t, _ in o.sends) != sends[r]:
                        raise SourceError("a send in this round depends on the round's own "
                                          "messages: the interpreter's lock-step rounds need the "
                                          "sends known at the round's start", self._round_span(g))
                    nxt = _next_round(self.prog, o.local)
                    if nxt not in effects:  # receipts with the same effect: one successor
                        effects.add(nxt)
                        choices.append((got, o))
            per_process.append(choices)
        bits = g.rounds
        c = g.coordinator
        correct_coordinator = c >= 0 and g.procs[c] is not None and c in survivors
        for kind_bit, ok in ((hypothesis_bit(CLEAN_ROUND), not crashing),
                             (hypothesis_bit(CORRECT_COORDINATOR), correct_coordinator),
                             *((hypothesis_bit(FEW_CRASHES, k), len(crashing) <= k) for k in range(4))):
            if ok:
                bits |= kind_bit
        out = []
        for combo in product(*per_process):
            procs = list(g.procs)
            words = [] if c < 0 else [f"process {c} coordinates" + (" (faulty)" if g.procs[c] is None
                                                                       else "")]
            for r, (got, o) in zip(survivors, combo):
                procs[r] = _next_round(self.prog, o.local)
                forged = sorted((s, t) for s, t in got if s in self.faults.stateless)
                if forged:
                    words.append(f"process {r} receives " + ", ".join(
                        f"{self.prog.types[t].text} from {s} (faulty)" for s, t in forged))
                if o.events:
                    words.append(f"process {r}: " + "; ".join(o.events))
            for c in crashing:
                words.append(f"process {c} crashes, its messages reaching "
                             f"{', '.join(map(str, sorted(reach[c]))) or 'nobody'}")
            h = g._replace(procs=tuple(procs), crashed=g.crashed | frozenset(crashing), rounds=bits,
                           coordinator=-1)
            note = "a round" + (": " + "; ".join(words) if words else " (every message arrives)")
            out.append((Label("round", crashed=bool(crashing), note=note), h))
        return out

    def required(self, g: Global) -> frozenset:
        return frozenset()

    def idle(self, g: Global, pid: int) -> bool:
        return False


def _next_round(prog, local: Local) -> Local:
    """The state at the next round's start (the next round of the phase, or the same round):
    the position there, sent flags and receipts reset."""
    return local._replace(pc=prog.next_start.get(local.pc, 0), sent=frozenset(), binds=(),
                          rcv=tuple(frozenset() for _ in local.rcv))


def _subsets(items: list[int]):
    for k in range(len(items) + 1):
        yield from (frozenset(c) for c in combinations(items, k))


def with_hypothesis(formula: A.FormulaNode, hypothesis) -> A.FormulaNode | None:
    """``always P`` under a hypothesis: ``always (past round of the kind -> P)``; None for any
    other shape (not run)."""
    if formula.op != "always":
        return None
    flag = A.FormulaNode("round_flag", (hypothesis_bit(hypothesis.kind, hypothesis.crashes),))
    return A.FormulaNode("always", (A.FormulaNode("implies", (flag, formula.args[0])),))
