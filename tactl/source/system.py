"""Global states of n concrete processes, the fault models, and the transitions between states.

A global state holds every non-faulty-by-construction process's :class:`~tactl.source.step.Local`
(``None`` for a Byzantine or symmetric-faulty process: it has no state), the messages sent but
not delivered (sender, receiver, type), the crashed processes (which KEEP their state: properties
read it), and the run's fixed choices (the coordinator; clean crashes that lost a broadcast;
symmetric-faulty broadcasts made).

Transitions (asynchronous): a process's step (``tactl.source.step``), preceded by the receipt of
any set of the messages pending to it and of messages faulty processes may forge for it; and what
the fault model adds (crashes, symmetric broadcasts). Deliveries are not transitions of their
own, and that loses no run: a delivery changes only the receiver's sender sets, which only the
receiver's own steps read (properties read variables, ``decided``, ``sent``, ``done``,
``crashed``), and no other transition disables it, so in any run every delivery can be moved to
just before the receiver's next step (or dropped if it takes none) without changing what any
step does or what any property sees. For the same reason, of two receipt sets S ⊂ S' whose steps
have the same effect (new variables, position, decision, sends), only S is kept: the state after
S' is the state after S followed by the receipt of S' ∖ S at the next step. Justice is stated
accordingly (``tactl.source.search``): a process that never moves again must be unable to move
even after receiving every message that must reach it (:meth:`System.idle`).

* ``byzantine(f)``: processes n-f..n-1 are faulty; at any time one may make any correct receiver
  receive any message type from it, once per type, and once per *kind* (the instances of one
  message name, unless a correct process sends two of them: see ``kinds``);
* ``crash(f)``: up to f processes crash, between two steps or between two statements of a step,
  possibly in the middle of a send to all (the message then reaches a subset of the receivers);
* ``omission(f)``: processes n-f..n-1 run the code, but any of their messages may be dropped
  (per receiver);
* ``symmetric(fp[, fs])``: processes n-fp..n-1 are faulty and have no state; fs of them (all fp
  without fs) may each broadcast any message type, the same to every correct receiver (once per
  type, once per kind), which is then delivered like a correct process's message;
* ``clean_crash(fc[, fnc])``: up to fc processes crash, between steps only; at most fnc of them
  while a ``send`` is still ahead of them in the code (a broadcast lost for everyone);
* ``hybrid(fb, fc)``: fb Byzantine processes (n-fb..n-1) and up to fc crashes among the others.

Process ids are interchangeable (every process runs the same code), so which ids are faulty is
fixed without loss of generality.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import permutations, product
from typing import NamedTuple

from tactl.ir.alg import syntax as A

from . import program as P
from .errors import SourceError
from .step import Context, Local, Outcome, initial_locals, step

MAX_RECEIVE_ATOMS = 14  # 2^14 receipts tried per step at most
FAULT_MODELS = ("byzantine", "crash", "omission", "symmetric", "clean_crash", "hybrid")


class Global(NamedTuple):
    procs: tuple  # Local | None per process id
    pending: frozenset  # (sender, receiver, type index)
    crashed: frozenset
    coordinator: int  # the coordinator's id (-1: none declared)
    lost: int  # clean crashes that lost a broadcast
    broadcasts: frozenset  # symmetric-faulty broadcasts made: (sender, type index)
    rounds: int = 0  # lock-step: which hypotheses a past round met (HYPOTHESIS_BITS)
    # pending messages sent in the step in which their sender crashed: as docs/alg.md's crash
    # model says (nsf_M), such a send may reach any subset of the receivers, so the justice does
    # not require them (for safety a message never delivered is one not sent to that receiver)
    unreliable: frozenset = frozenset()


@dataclass(frozen=True)
class Label:
    """What a transition does: ``step`` (process, what it receives first, its outcome), ``crash``
    (process), ``broadcast`` (a symmetric-faulty sender, type), ``stutter``."""

    kind: str
    process: int = -1
    sender: int = -1
    type: int = -1
    outcome: Outcome | None = field(default=None, compare=False)
    crashed: bool = False
    coins: tuple = ()
    got: frozenset = frozenset()  # a step: what the process receives first, (sender, type)
    note: str = field(default="", compare=False)  # a lock-step round, in words


STUTTER = Label("stutter")


@dataclass
class Faults:
    model: str
    stateless: tuple[int, ...] = ()  # Byzantine or symmetric-faulty: no state
    forge: bool = False  # Byzantine: forges messages for any receiver
    symmetric_senders: tuple[int, ...] = ()
    crashes: int = 0
    mid_step: bool = False
    lossy: int = 0  # clean crashes that may lose a pending broadcast
    omission: tuple[int, ...] = ()

    def words(self) -> str:
        parts = []
        if self.forge and self.stateless:
            parts.append(f"Byzantine processes {_ids(self.stateless)}")
        if self.symmetric_senders or (self.stateless and not self.forge):
            parts.append(f"symmetric-faulty processes {_ids(self.stateless)}")
        if self.crashes:
            parts.append(f"up to {self.crashes} crash{'es' if self.crashes != 1 else ''}"
                         + ("" if self.mid_step else " between steps"))
        if self.omission:
            parts.append(f"omission-faulty processes {_ids(self.omission)}")
        return "; ".join(parts) or "no faulty process"


def _ids(ids) -> str:
    return ", ".join(str(i) for i in ids)


def faults_of(alg: A.Algorithm, params: dict[str, int]) -> Faults:
    model, names = alg.fault_model, alg.fault_parameters
    n = params["n"] if "n" in params else None
    if n is None:
        raise SourceError("the interpreter needs the number of processes as parameter 'n'",
                          alg.spans.get("parameters"))
    vals = [params[x] for x in names]
    last = lambda k: tuple(range(n - k, n))  # noqa: E731
    if model == "byzantine":
        return Faults(model, last(vals[0]), forge=True)
    if model == "crash":
        return Faults(model, crashes=vals[0], mid_step=True)
    if model == "omission":
        return Faults(model, omission=last(vals[0]))
    if model == "symmetric":
        fs = vals[1] if len(vals) > 1 else vals[0]
        return Faults(model, last(vals[0]), symmetric_senders=last(vals[0])[:fs])
    if model == "clean_crash":
        return Faults(model, crashes=vals[0], lossy=vals[1] if len(vals) > 1 else vals[0])
    if model == "hybrid":
        return Faults(model, last(vals[0]), forge=True, crashes=vals[1], mid_step=True)
    raise SourceError(f"unknown fault model '{model}'", alg.spans.get("fault model"))


@dataclass
class System:
    prog: P.Program
    params: dict[str, int]
    faults: Faults
    kinds: frozenset[str]  # message names whose instances form a kind
    coordinator_at_start = True  # async: the coordinator is chosen at the start
    _cache: dict = field(default_factory=dict, repr=False)
    _steps: dict = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return self.params["n"]

    @property
    def fparams(self) -> dict[str, Fraction]:
        return {k: Fraction(v) for k, v in self.params.items()}

    def correct_ids(self) -> tuple[int, ...]:
        return tuple(i for i in range(self.n) if i not in self.faults.stateless)

    def alive(self, g: Global) -> tuple[int, ...]:
        return tuple(i for i in range(self.n) if g.procs[i] is not None and i not in g.crashed)

    # ---- initial states ----
    def initial_states(self) -> list[Global]:
        ids = self.correct_ids()
        options = initial_locals(self.prog, len(self.prog.types))
        combos: list[tuple] = [()]
        for _ in ids:
            combos = [c + (o,) for c in combos for o in options]
        coordinators = [-1]
        if self.coordinator_at_start and any(m.coordinator for m in self.prog.types):
            coordinators = ([ids[0]] if ids else []) + list(self.faults.stateless[:1])
        out = []
        for combo in combos:
            procs: list = [None] * self.n
            for i, local in zip(ids, combo):
                procs[i] = local
            for c in coordinators:
                out.append(Global(tuple(procs), frozenset(), frozenset(), c, 0, frozenset()))
        return out

    # ---- transitions ----
    def context(self, g: Global) -> Context:
        return Context(self.prog, self.fparams, self.alive(g), self.faults.mid_step and
                       len(g.crashed) < self.faults.crashes,
                       g.coordinator if g.coordinator >= 0 and g.procs[g.coordinator] is not None
                       else None)

    def outcomes(self, g: Global, pid: int) -> list[tuple[frozenset, Outcome]]:
        """Every step of ``pid`` from ``g``, each with what it receives first: a set of pending
        messages to it and of messages Byzantine processes forge for it, as (sender, type).
        Only ⊆-minimal sets per effect are kept (see the module docstring)."""
        ctx = self.context(g)
        local = g.procs[pid]
        pend = tuple(sorted((s, ti) for (s, r, ti) in g.pending if r == pid))
        key = (pid, local, pend, ctx.receivers, ctx.crash_ok, ctx.coordinator == pid, g.coordinator)
        found = self._cache.get(key)
        if found is None:
            found = self._receive_and_step(ctx, g, pid, pend)
            if len(self._cache) > 100_000:
                self._cache.clear()
            self._cache[key] = found
        return found

    def _receive_and_step(self, ctx: Context, g: Global, pid: int, pend: tuple) -> list:
        local = g.procs[pid]
        forgeable = [(b, m.index) for b in (self.faults.stateless if self.faults.forge else ())
                     for m in self.prog.types if self.may_forge(g, b, pid, m)]
        atoms = list(pend) + forgeable
        if len(atoms) > MAX_RECEIVE_ATOMS:
            raise SourceError(f"process {pid} could receive {len(atoms)} different messages in one "
                              f"step: beyond what the interpreter enumerates ({MAX_RECEIVE_ATOMS}); "
                              "try smaller parameters")
        subsets = sorted(range(1 << len(atoms)), key=lambda mask: bin(mask).count("1"))
        kept: list[tuple[int, tuple]] = []
        out: list[tuple[frozenset, Outcome]] = []
        for mask in subsets:
            got = [atoms[i] for i in range(len(atoms)) if mask >> i & 1]
            if not self._valid_receipt(g, pid, got):
                continue
            rcv = list(local.rcv)
            for sender, ti in got:
                rcv[ti] = rcv[ti] | {sender}
            receiving = local._replace(rcv=tuple(rcv))
            for o in self._step(ctx, pid, receiving):
                effect = (o.local._replace(rcv=()), o.sends, o.crashed)
                if any(e == effect and (m & mask) == m for m, e in kept):
                    continue
                kept.append((mask, effect))
                out.append((frozenset(got), o))
        return out

    def _step(self, ctx: Context, pid: int, local: Local) -> list[Outcome]:
        """``step``, remembered: many pending sets and receipts lead to the same receiving
        state, and a step reads only that state, ``pid`` and the context (the key)."""
        key = (pid, local, ctx.receivers, ctx.crash_ok, ctx.coordinator == pid)
        found = self._steps.get(key)
        if found is None:
            if len(self._steps) > 200_000:
                self._steps.clear()
            found = self._steps[key] = step(ctx, pid, local)
        return found

    def _valid_receipt(self, g: Global, pid: int, got: list) -> bool:
        """Forged messages respect the kinds (a faulty sender once per kind) and a receiver gets
        at most one coordinator message."""
        if not got:
            return True
        rcv = g.procs[pid].rcv
        seen: set = set()
        coord = sum(1 for m in self.prog.types if m.coordinator and rcv[m.index])
        for sender, ti in got:
            m = self.prog.types[ti]
            if m.coordinator:
                coord += 1
            if sender in self.faults.stateless and self.faults.forge:
                group = m.name if m.name in self.kinds else ti
                if (sender, group) in seen:
                    return False
                seen.add((sender, group))
        return coord <= 1

    def idle(self, g: Global, pid: int) -> bool:
        """Whether ``pid`` cannot move even after receiving every message that must reach it
        (justice: such a process may wait forever)."""
        local = g.procs[pid]
        rcv = list(local.rcv)
        for (s, r, ti) in self.required(g):
            if r == pid:
                rcv[ti] = rcv[ti] | {s}
        return not self._step(self.context(g), pid, local._replace(rcv=tuple(rcv)))

    def successors(self, g: Global) -> list[tuple[Label, Global]]:
        out: list[tuple[Label, Global]] = []
        alive = self.alive(g)
        for pid in alive:
            for got, o in self.outcomes(g, pid):
                out.append((Label("step", pid, outcome=o, crashed=o.crashed, coins=o.coins, got=got),
                            self.apply_step(g, pid, o, got)))
        for b in self.faults.symmetric_senders:
            for m in self.prog.types:
                if self.may_broadcast(g, b, m):
                    pend = g.pending | {(b, r, m.index) for r in alive}
                    out.append((Label("broadcast", -1, b, m.index),
                                g._replace(pending=pend, broadcasts=g.broadcasts | {(b, m.index)})))
        if len(g.crashed) < self.faults.crashes:
            for pid in alive:
                lossy = not self.faults.mid_step and self.prog.sends_ahead(g.procs[pid].pc)
                if lossy and g.lost >= self.faults.lossy:
                    continue
                out.append((Label("crash", pid), self._crash(g, pid, lost=int(lossy))))
        return out

    def apply_step(self, g: Global, pid: int, o: Outcome, got: frozenset = frozenset()) -> Global:
        procs = list(g.procs)
        procs[pid] = o.local
        pending = set(g.pending) - {(s, pid, ti) for s, ti in got}
        alive = self.alive(g)
        sent = {(pid, r, ti) for ti, receivers in o.sends
                for r in (alive if receivers is None else receivers)}
        pending |= sent
        unreliable = (g.unreliable | sent) if o.crashed else g.unreliable
        out = g._replace(procs=tuple(procs), pending=frozenset(pending),
                         unreliable=frozenset(unreliable & pending))
        return self._crash(out, pid) if o.crashed else out

    def _crash(self, g: Global, pid: int, lost: int = 0) -> Global:
        pending = frozenset(x for x in g.pending if x[1] != pid)
        return g._replace(crashed=g.crashed | {pid}, lost=g.lost + lost, pending=pending,
                          unreliable=g.unreliable & pending)

    def _same_kind(self, m: P.MsgType) -> tuple[P.MsgType, ...]:
        return self.prog.types_named(m.name) if m.name in self.kinds else (m,)

    def may_forge(self, g: Global, b: int, r: int, m: P.MsgType) -> bool:
        """Whether ``b`` may still make ``r`` receive ``m`` (once per type, once per kind; a
        coordinator message only from a faulty coordinator, one per receiver)."""
        rcv = g.procs[r].rcv
        if m.coordinator:
            return g.coordinator == b and not any(rcv[x.index] for x in self.prog.types if x.coordinator)
        return all(b not in rcv[x.index] for x in self._same_kind(m))

    def may_broadcast(self, g: Global, b: int, m: P.MsgType) -> bool:
        if m.coordinator:
            return False
        return all((b, x.index) not in g.broadcasts for x in self._same_kind(m))

    # ---- justice ----
    def required(self, g: Global) -> frozenset:
        """Pending messages that must eventually be delivered: every one except an
        omission-faulty sender's (which may be dropped) and those sent in the step in which their
        sender crashed (which may reach any subset of the receivers)."""
        return frozenset(x for x in g.pending
                         if x[0] not in self.faults.omission and x not in g.unreliable)

    def two_instances(self, g: Global) -> set[str]:
        """Message names of which some correct process has sent two instances (no kind)."""
        found = set()
        for local in g.procs:
            if local is None:
                continue
            names = [self.prog.types[i].name for i in local.sent]
            found |= {x for x in names if names.count(x) > 1}
        return found


# ---- symmetry ------------------------------------------------------------------------------------
# Every correct process runs the same code, so renaming the correct processes (consistently in
# their sender sets, the pending messages, the crashed set and the coordinator) maps runs to runs,
# and every property is symmetric (some/all/no/count never name a process). The state graph may
# therefore keep one state per orbit (safety: exact). Liveness needs more care: justice speaks of
# individual processes along a loop, which renaming permutes; tactl.source.search uses the reduced
# graph for liveness only where that is exact (a loop on one state where every process is idle)
# and falls back to the plain graph otherwise.

MAX_PERMUTATIONS = 720


@lru_cache(maxsize=1 << 16)
def _local_key(local) -> tuple:
    """A process's state as a totally ordered tuple (remembered: a state's processes are keyed
    once per renaming tried, and most locals recur across states)."""
    if local is None:
        return ()
    return (local.pc, local.vals, local.decided, tuple(sorted(local.sent)), repr(local.binds),
            tuple(tuple(sorted(s)) for s in local.rcv))


def _state_key(g: Global) -> tuple:
    return (tuple(_local_key(p) for p in g.procs), tuple(sorted(g.pending)),
            tuple(sorted(g.crashed)), g.coordinator, g.lost, tuple(sorted(g.broadcasts)),
            tuple(sorted(g.unreliable)))


def rename(g: Global, perm: dict[int, int]) -> Global:
    """``g`` with process i renamed perm[i] (ids not in ``perm`` keep their name)."""
    def p(i: int) -> int:
        return perm.get(i, i)

    procs: list = list(g.procs)
    for i, local in enumerate(g.procs):
        if i in perm:
            procs[p(i)] = None if local is None else local._replace(
                rcv=tuple(frozenset(p(s) for s in senders) for senders in local.rcv))
        elif local is not None:
            procs[i] = local._replace(rcv=tuple(frozenset(p(s) for s in senders)
                                                for senders in local.rcv))
    return g._replace(procs=tuple(procs), pending=frozenset((p(s), p(r), t) for s, r, t in g.pending),
                      unreliable=frozenset((p(s), p(r), t) for s, r, t in g.unreliable),
                      crashed=frozenset(p(i) for i in g.crashed),
                      coordinator=p(g.coordinator) if g.coordinator >= 0 else -1)


def canonical(system: System, g: Global) -> Global:
    """One representative of ``g``'s orbit under renamings of the correct processes (omission-
    faulty ones among themselves): the least by a total order over the renamings that sort the
    processes by a renaming-invariant signature (all of them when at most
    :data:`MAX_PERMUTATIONS`, else the first: a representative, possibly not the only one)."""
    ids = system.correct_ids()
    out_count = dict.fromkeys(ids, 0)
    in_count = dict.fromkeys(ids, 0)
    for s, r, _ in g.pending:  # one pass, not one per process
        if s in out_count:
            out_count[s] += 1
        if r in in_count:
            in_count[r] += 1
    classes: dict[tuple, list[int]] = {}
    for i in ids:
        local = g.procs[i]
        # the local key without the sender sets (renaming changes them; their sizes stay)
        sig = (i in system.faults.omission, i in g.crashed, g.coordinator == i,
               _local_key(local)[:5], tuple(len(s) for s in local.rcv), out_count[i], in_count[i])
        classes.setdefault(sig, []).append(i)
    slots = sorted(ids)
    ordered = [classes[k] for k in sorted(classes)]
    total = 1
    for group in ordered:
        for k in range(2, len(group) + 1):
            total *= k
    choices = [list(permutations(group)) for group in ordered] if total <= MAX_PERMUTATIONS \
        else [[tuple(group)] for group in ordered]
    if total == 1 or total > MAX_PERMUTATIONS:  # one renaming: no keys to compare
        order = [i for group in ordered for i in group]
        return g if order == slots else rename(g, dict(zip(order, slots)))
    best, best_key = g, None
    for combo in product(*choices):
        order = [i for group in combo for i in group]
        h = g if order == slots else rename(g, dict(zip(order, slots)))
        key = _state_key(h)
        if best_key is None or key < best_key:
            best, best_key = h, key
    return best
