"""Global states of n concrete processes, the fault models, and the transitions between states.

A global state holds every non-faulty-by-construction process's :class:`~tactl.source.step.Local`
(``None`` for a Byzantine or symmetric-faulty process: it has no state), the messages sent but
not delivered (sender, receiver, type), the crashed processes (which KEEP their state: properties
read it), and the run's fixed choices (the coordinator; clean crashes that lost a broadcast;
symmetric-faulty broadcasts made).

Transitions (asynchronous): a process's step (``tactl.source.step``), the delivery of one pending
message, and what the fault model allows:

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
from typing import NamedTuple

from tactl.ir import alg as A

from . import program as P
from .errors import SourceError
from .step import Context, Local, Outcome, initial_locals, step

FAULT_MODELS = ("byzantine", "crash", "omission", "symmetric", "clean_crash", "hybrid")


class Global(NamedTuple):
    procs: tuple  # Local | None per process id
    pending: frozenset  # (sender, receiver, type index)
    crashed: frozenset
    coordinator: int  # the coordinator's id (-1: none declared)
    lost: int  # clean crashes that lost a broadcast
    broadcasts: frozenset  # symmetric-faulty broadcasts made: (sender, type index)


@dataclass(frozen=True)
class Label:
    """What a transition does: ``step`` (process, its outcome), ``deliver``/``forge``/``drop``
    (sender, receiver, type), ``crash`` (process), ``broadcast`` (sender, type), ``stutter``."""

    kind: str
    process: int = -1
    sender: int = -1
    type: int = -1
    outcome: Outcome | None = field(default=None, compare=False)
    crashed: bool = False
    coins: tuple = ()


STUTTER = Label("stutter")


@dataclass
class Faults:
    model: str
    stateless: tuple[int, ...] = ()  # Byzantine or symmetric-faulty: no state
    forge: bool = False  # Byzantine: may deliver anything
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
    _cache: dict = field(default_factory=dict, repr=False)

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
        if any(m.coordinator for m in self.prog.types):
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

    def outcomes(self, g: Global, pid: int) -> list[Outcome]:
        ctx = self.context(g)
        key = (pid, g.procs[pid], ctx.receivers, ctx.crash_ok, ctx.coordinator == pid)
        found = self._cache.get(key)
        if found is None:
            found = step(ctx, pid, g.procs[pid])
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[key] = found
        return found

    def successors(self, g: Global) -> list[tuple[Label, Global]]:
        out: list[tuple[Label, Global]] = []
        alive = self.alive(g)
        for pid in alive:
            for o in self.outcomes(g, pid):
                out.append((Label("step", pid, outcome=o, crashed=o.crashed, coins=o.coins),
                            self.apply_step(g, pid, o)))
        for (s, r, ti) in sorted(g.pending):
            out.append((Label("deliver", r, s, ti), self._receive(g, s, r, ti, pending=True)))
            if s in self.faults.omission:
                out.append((Label("drop", r, s, ti), g._replace(pending=g.pending - {(s, r, ti)})))
        if self.faults.forge:
            for b in self.faults.stateless:
                for r in alive:
                    for m in self.prog.types:
                        if self.may_forge(g, b, r, m):
                            out.append((Label("forge", r, b, m.index),
                                        self._receive(g, b, r, m.index, pending=False)))
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

    def apply_step(self, g: Global, pid: int, o: Outcome) -> Global:
        procs = list(g.procs)
        procs[pid] = o.local
        pending = set(g.pending)
        alive = self.alive(g)
        for ti, receivers in o.sends:
            for r in (alive if receivers is None else receivers):
                pending.add((pid, r, ti))
        out = g._replace(procs=tuple(procs), pending=frozenset(pending))
        return self._crash(out, pid) if o.crashed else out

    def _crash(self, g: Global, pid: int, lost: int = 0) -> Global:
        return g._replace(crashed=g.crashed | {pid}, lost=g.lost + lost,
                          pending=frozenset(x for x in g.pending if x[1] != pid))

    def _receive(self, g: Global, s: int, r: int, ti: int, pending: bool) -> Global:
        local = g.procs[r]
        rcv = list(local.rcv)
        rcv[ti] = rcv[ti] | {s}
        procs = list(g.procs)
        procs[r] = local._replace(rcv=tuple(rcv))
        return g._replace(procs=tuple(procs),
                          pending=g.pending - {(s, r, ti)} if pending else g.pending)

    def _same_kind(self, m: P.MsgType) -> tuple[P.MsgType, ...]:
        return self.prog.types_named(m.name) if m.name in self.kinds else (m,)

    def may_forge(self, g: Global, b: int, r: int, m: P.MsgType) -> bool:
        rcv = g.procs[r].rcv
        if m.coordinator:
            # only a faulty coordinator forges, and a receiver gets one coordinator message
            return g.coordinator == b and not any(rcv[x.index] for x in self.prog.types if x.coordinator)
        return all(b not in rcv[x.index] for x in self._same_kind(m))

    def may_broadcast(self, g: Global, b: int, m: P.MsgType) -> bool:
        if m.coordinator:
            return False
        return all((b, x.index) not in g.broadcasts for x in self._same_kind(m))

    # ---- justice ----
    def required(self, g: Global) -> frozenset:
        """Pending messages that must eventually be delivered: every one except an
        omission-faulty sender's (which may be dropped)."""
        return frozenset(x for x in g.pending if x[0] not in self.faults.omission)

    def two_instances(self, g: Global) -> set[str]:
        """Message names of which some correct process has sent two instances (no kind)."""
        found = set()
        for local in g.procs:
            if local is None:
                continue
            names = [self.prog.types[i].name for i in local.sent]
            found |= {x for x in names if names.count(x) > 1}
        return found
