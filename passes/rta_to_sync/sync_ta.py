"""Receive automaton with ``timing sync`` → synchronous threshold automaton (STA) for lock-step
round semantics (docs/sync.md).

In a synchronous receive automaton a location is a process's state **at the start of a round**,
and a rule ``from -> to`` is one whole round: the process sends according to its location,
receives every message sent in the round, and ends the round in ``to`` (the state at the start
of the next round). Guards read the messages of this round only.

What this pass adds, per fault model:

* **crash(f)**: for every location ℓ a *crashing* twin ``CR_ℓ``: a process in state ℓ that
  crashes during the coming round; it sends ℓ's messages to an arbitrary subset of receivers,
  then stops (``CRASHED``). Every rule ℓ → ℓ' gets a twin ℓ → CR_ℓ' with the same guard (the
  process will crash in the next round), ``CR_ℓ → CRASHED`` and ``CRASHED → CRASHED`` are
  unguarded, and at most f processes are crashing or crashed. A crashed process keeps the state
  it had at the start of the round in which it crashed (docs/alg.md, "Fault models"): when the
  receive automaton has crash locations (``crash_locations``; unguarded crash rules
  ``ℓ -> CRASHED_x``, one target per location; the .alg translation makes one per class of
  locations that the properties' ``some``/``no``/``count`` predicates tell apart), ``CR_ℓ``
  enters ℓ's crash location instead of ``CRASHED``, and the properties count it there. A
  process may also crash in the first round: the twins of initial locations are initial. Env per message type M:
  ``sent_M <= received(M) <= sent_M + crashing_M`` with ``sent_M`` the processes in a location
  that sends M (never counting this round's crashing ones) and ``crashing_M`` their twins.
* **byzantine(f)**: n − f correct processes; ``sent_M <= received(M) <= sent_M + f``, and for a
  kind at most f faulty senders counted over all its types. **Coordinator** messages (a phase's
  king or queen, ``coordinator Q0, Q1;``) have one sender: the correct processes in the
  locations that send them are at most one (the coordinator, if correct); a receiver gets at
  most one coordinator message per round, and one beyond those sent only when the coordinator
  is faulty (no correct process in a coordinator location, and f >= 1).

Other fault models are refused (:class:`SyncUnsupported`), and so is a location whose rules
send different messages (in a round, a process sends according to its location).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.expr import BoolConst, Expr, Name, Sum
from tactl.ir.rta.model import CRASH_LOCATION, FaultModel, ReceiveTA, receive_variables

CRASHED = "CRASHED"

CRASHING_PREFIX = "CR_"


class SyncUnsupported(ValueError):
    """The synchronous automaton uses something lock-step semantics does not (yet) cover."""


class SyncInputError(SyncUnsupported):
    """The synchronous automaton is not one: an asynchronous-only construct (a location whose
    rules send different messages), or a name the fault model's copies need. Bad input."""


@dataclass(frozen=True)
class SyncRule:
    index: int
    source: str
    target: str
    guard: Expr  # over received(M) and parameters
    label: str  # how a report names it: "r3: V1 -> V0" or "r3': V1 -> CR_V0 (will crash)"
    receive_rule: int | None = None  # the id of the receive automaton's rule it comes from


@dataclass(frozen=True)
class SyncTA:
    name: str
    parameters: tuple[str, ...]
    assumptions: tuple[Expr, ...]
    model: FaultModel
    faults: str  # the parameter counting actual faults (f)
    processes: Expr  # how many processes are modelled: n, or n - f
    locations: tuple[str, ...]
    initial: tuple[str, ...]
    rules: tuple[SyncRule, ...]
    sends: dict[str, tuple[str, ...]]  # location -> message types sent by a process there
    messages: tuple[str, ...]
    kinds: dict[str, tuple[str, ...]] = field(default_factory=dict)
    crashing: dict[str, str] = field(default_factory=dict)  # CR_ℓ -> ℓ
    crashed: tuple[str, ...] = ()  # the crash locations: CRASHED, or the receive automaton's
    coordinator: tuple[str, ...] = ()  # message types only a round's coordinator sends

    @property
    def coordinators(self) -> tuple[str, ...]:
        """The locations of a correct coordinator: those that send a coordinator message."""
        return tuple(l for l in self.correct if set(self.sends.get(l, ())) & set(self.coordinator))

    @property
    def counted(self) -> dict[str, tuple[str, ...]]:
        """What a property's names count: a location ℓ of the receive automaton the processes
        holding it that have not crashed (ℓ and its crashing twin); a crash location the crashed
        processes that kept its state; without crash locations ``CR`` (the name the asynchronous
        translation gives crashed processes, what ``crashed`` in an .alg property reads) counts
        ``CRASHED``."""
        out = {l: self.holding(l) for l in self.correct}
        out.update({c: (c,) for c in self.crashed})
        if self.crashed == (CRASHED,) and CRASH_LOCATION not in out:
            out[CRASH_LOCATION] = (CRASHED,)
        return out

    @property
    def correct(self) -> tuple[str, ...]:
        return tuple(l for l in self.locations if l not in self.crashing and l not in self.crashed)

    def holding(self, location: str) -> tuple[str, ...]:
        """The STA locations whose processes are in the receive automaton's state ``location``
        (not crashed yet): ℓ itself and its crashing twin. A property's ``ℓ`` counts these."""
        twin = CRASHING_PREFIX + location
        return (location, twin) if twin in self.crashing else (location,)

    def senders(self, message: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(locations of correct senders of M, locations of crashing senders of M)."""
        correct = tuple(l for l in self.correct if message in self.sends.get(l, ()))
        crashing = tuple(CRASHING_PREFIX + l for l in correct if CRASHING_PREFIX + l in self.crashing)
        return correct, crashing


def build(rta: ReceiveTA) -> SyncTA:
    model = rta.faults.model
    if model not in (FaultModel.CRASH, FaultModel.BYZANTINE):
        raise SyncUnsupported(f"lock-step semantics supports crash and byzantine faults; "
                              f"'{model.value}' is not built yet")
    locations = tuple(loc.name for loc in rta.locations)
    sends: dict[str, tuple[str, ...]] = {}
    for rule in rta.rules:
        sent = tuple(sorted(set(rule.sends)))
        if rule.source in sends and sends[rule.source] != sent:
            raise SyncInputError(
                f"in a synchronous round a process sends according to its location, but the rules "
                f"from {rule.source} send different messages ({', '.join(sends[rule.source]) or 'none'} "
                f"and {', '.join(sent) or 'none'}, rule {rule.id})")
        sends[rule.source] = sent
    n = rta.parameters[0]
    f = rta.faults.parameters[0]
    messages = tuple(m.name for m in rta.messages)
    rules = [SyncRule(i, r.source, r.target, r.guard, f"r{r.id}: {r.source} -> {r.target}", r.id)
             for i, r in enumerate(rta.rules)]
    if model is FaultModel.BYZANTINE:
        return SyncTA(rta.name, rta.parameters, rta.assumptions, model, f,
                      Sum((Name(n), Name(f)), ("-",)), locations, tuple(rta.initial),
                      tuple(rules), sends, messages, rta.kinds(), coordinator=rta.coordinator)
    if rta.coordinator:
        raise SyncUnsupported("a coordinator (king or queen) is modelled under byzantine faults only")
    taken = set(locations) | set(rta.parameters)
    crashing = {CRASHING_PREFIX + l: l for l in locations}
    kept = _kept(rta, locations)
    crashed = tuple(dict.fromkeys(kept.values()))
    clash = sorted((set(crashing) & taken) | (set(crashed) & (taken | set(crashing))))
    if clash:
        raise SyncInputError(f"the names {', '.join(clash)} are used by the crash model's locations")
    for r in list(rules):
        rules.append(SyncRule(len(rules), r.source, CRASHING_PREFIX + r.target, r.guard,
                              f"r{r.receive_rule}': {r.source} -> {CRASHING_PREFIX}{r.target} "
                              f"(crashes in the next round)", r.receive_rule))
    for twin, loc in crashing.items():
        rules.append(SyncRule(len(rules), twin, kept[loc], BoolConst(True), f"{twin} -> {kept[loc]} (crashes)"))
    for c in crashed:
        rules.append(SyncRule(len(rules), c, c, BoolConst(True), f"{c} stays crashed"))
    all_locations = locations + tuple(crashing) + crashed
    initial = tuple(rta.initial) + tuple(CRASHING_PREFIX + l for l in rta.initial)
    return SyncTA(rta.name, rta.parameters, rta.assumptions, model, f, Name(n), all_locations,
                  initial, tuple(rules), sends, messages, {}, crashing, crashed)


def _kept(rta: ReceiveTA, locations: tuple[str, ...]) -> dict[str, str]:
    """Location ℓ -> the crash location of a process that crashes in a round it started in ℓ:
    the target of ℓ's crash rule, or the one ``CRASHED`` when the automaton has no crash
    locations (no property tells crashed processes apart)."""
    if not rta.crash_locations:
        return dict.fromkeys(locations, CRASHED)
    kept: dict[str, str] = {}
    for r in rta.crash_rules:
        if r.guard != BoolConst(True) or kept.get(r.source, r.target) != r.target:
            raise SyncInputError(
                f"in lock-step rounds a crash location keeps the state of the round's start: the "
                f"crash rules of a location are unguarded and enter one crash location (rule "
                f"{r.id}: {r.source} -> {r.target})")
        kept[r.source] = r.target  # its sends: the crashing twin's, to some receivers only
    missing = [l for l in locations if l not in kept]
    if missing:
        raise SyncInputError(f"the locations {', '.join(missing)} have no crash rule (in lock-step "
                             "rounds every location needs one)")
    return kept


def received_types(sta: SyncTA, guards) -> list[str]:
    """The message types whose received counts one receive step chooses together for these
    guards: the types the guards read, plus the rest of a coordinator's messages (one sender, so
    at most one of them per receiver) and, under Byzantine faults, the rest of their kinds (a
    faulty sender counts once per kind). The SMT encoding, the guard-completeness check and the
    enumerating simulator all use this one list."""
    msgs = {m for g in guards for m in receive_variables(g)}
    if msgs & set(sta.coordinator):
        msgs |= set(sta.coordinator)
    if sta.model is FaultModel.BYZANTINE:
        for members in sta.kinds.values():
            if msgs & set(members):
                msgs |= set(members)
    return sorted(msgs)
