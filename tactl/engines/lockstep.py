"""Lock-step round semantics: the engine for synchronous automata (``timing sync``), for all
parameter values at once.

A k-round path is a set of linear constraints over integers: per round i the location counters
κ_i, how many processes take each rule λ_i, and for each rule one witness of what its processes
received (``rcv_i,r``, within Env of κ_i):

* every process takes exactly one rule: Σ_{r from ℓ} λ_i[r] = κ_i[ℓ];
* κ_{i+1}[ℓ] = Σ_{r to ℓ} λ_i[r];
* λ_i[r] > 0 → Env(κ_i, rcv_i,r) ∧ guard_r(rcv_i,r): guards read what was sent *this round*,
  by the processes' locations at the round's start — nothing a process does in round i is
  visible before κ_{i+1}. One witness per rule suffices: Env is the same for every receiver.

**Diameter.** D is a diameter if everything reachable in D + 1 rounds from any configuration
(satisfying the invariants) is reachable within D rounds: the ∃∀ query :func:`_diameter` asks
is UNSAT. Then a property checked on every path of at most D rounds holds on all paths (bounded model
checking up to D is complete), for every parameter valuation (they are symbolic). Without a
diameter (none up to the cap, or a solver timeout) the verdict is ``unknown``, with what the
bounded check found, stated as bounded.

**Properties** are ``Init -> [](Safe)`` or ``[](Safe)`` over location counters and parameters,
read at round starts; a location ℓ counts the processes in state ℓ that have not crashed (its
crashing twin included). **Hypotheses**: agreement needs a round in which no process crashes
(FloodMin decides after t + 1 rounds, one of which is clean). A property written
``agreement assuming clean round: …`` (or ``assuming round with at most K crashes``, ``assuming
correct coordinator``; ``ir.ta.Hypothesis``) is checked in every configuration reached one or
more rounds after such a round, and every report shows the hypothesis with the verdict. Nothing
is inferred from a property's name: without the clause a property is checked without hypothesis.

**Limits.** ``--param`` restricts every query (diameter, bounded checks) to those values, and
the verdict's scope says so. Without ``--timeout`` no query has a wall-clock limit: each gets
z3's deterministic resource limit :data:`RLIMIT` (``rlimit``), so a verdict does not depend on
the machine's load; with ``--timeout`` (``tactl.util.deadline``) every query gets the time left and
the Python work in between is interruptible, so the check stops by the deadline and what is
undecided is ``unknown``. An undecided query is never a pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import z3

from tactl.engines import minimal_params
from tactl.engines.lockstep_sim import Run, explicit_verdict, initial_configurations, replay, state_holds
from tactl.engines.result import (HOLDS, HOLDS_VACUOUSLY, NO_ANTECEDENT, NOT_VACUOUS, UNKNOWN, UNSUPPORTED,
                                  VACUITY_UNKNOWN, VIOLATED, PropertyResult)
from tactl.ir.evaluate import holds
from tactl.ir.expr import Always, Eventually, Expr, Implies, names, to_text, walk
from tactl.ir.linear import first_unsatisfiable, to_z3
from tactl.ir.source import source_language
from tactl.ir.rta.model import FaultModel, ReceiveTA, received
from tactl.ir.alg.hypothesis import CLEAN_ROUND, CORRECT_COORDINATOR, FEW_CRASHES
from tactl.ir.ta.model import Property
from tactl.passes.rta_to_sync.sync_ta import SyncInputError, SyncTA, SyncUnsupported, build, received_types
from tactl.util import deadline
from tactl.util import progress as shown
from tactl.util.progress import Note

ENGINE = "lockstep"
MAX_DIAMETER = 6
# z3's resource limit per query when the command has no --timeout: deterministic (the same
# verdict on an idle and a loaded machine). The corpus's largest query (phase king's diameter,
# D = 4) takes about 2·10^8; this leaves ten times that.
RLIMIT = 2_000_000_000


def solver() -> z3.Solver:
    """A z3 solver limited by the command's --timeout (the time left), or else by :data:`RLIMIT`."""
    s = z3.Solver()
    ms = deadline.solver_timeout_ms()
    if ms is None:
        s.set("rlimit", RLIMIT)
    else:
        s.set("timeout", ms)
    return s


def undecided(s: z3.Solver) -> str:
    """Why a query came back unknown, in the user's terms."""
    if deadline.active():
        if deadline.remaining() == 0:
            return deadline.timeout_reason()
        return f"z3 could not decide it ({s.reason_unknown()})"
    return (f"z3 gave up within its deterministic resource limit (rlimit {RLIMIT:,} per query; "
            f"{s.reason_unknown()})")


class GuardsUndecided(Exception):
    """The guard-completeness check was not decided: no property may be reported as holding."""


class IncompleteGuards(ValueError):
    """A location where, for some reachable receive values, no rule is enabled: lock-step runs
    would silently vanish there (unsound), so this is an input error."""

    def __init__(self, location: str, witness: dict[str, int]) -> None:
        self.location = location
        self.witness = witness
        shown = ", ".join(f"{k}={v}" for k, v in witness.items())
        super().__init__(f"synchronous location {location}: no rule is enabled when {shown}; in "
                         "lock-step rounds every process must take a rule every round (add the "
                         "rule for this case, e.g. a self-loop)")


# ------------------------------------------------------------------------------- encoding


@dataclass
class Path:
    """z3 variables of a k-round path, and its constraints."""

    sta: SyncTA
    tag: str
    rounds: int
    params: dict[str, Any]
    kappa: list[dict[str, Any]] = field(default_factory=list)
    lam: list[dict[int, Any]] = field(default_factory=list)
    witnesses: list[Any] = field(default_factory=list)  # every rcv variable (the ∀ block needs them)
    constraints: list[Any] = field(default_factory=list)

    def variables(self) -> list[Any]:
        return [v for k in self.kappa for v in k.values()] + \
               [v for l in self.lam for v in l.values()] + self.witnesses


def parameters(sta: SyncTA) -> dict[str, Any]:
    return {p: z3.Int(p) for p in sta.parameters}


def _lookup(table: dict[str, Any]):
    def sym(name: str):
        if name not in table:
            raise SyncUnsupported(f"'{name}' is not a location, parameter or received(M) here")
        return table[name]
    return sym


def rc(sta: SyncTA, params: dict[str, Any], fixed: dict[str, int] | None = None) -> Any:
    """The resilience condition, parameters natural numbers, and the ``--param`` values."""
    return z3.And(*[to_z3(a, _lookup(params)) for a in sta.assumptions], *[p >= 0 for p in params.values()],
                  *[params[p] == v for p, v in (fixed or {}).items()])


def invariants(sta: SyncTA, kappa: dict[str, Any], params: dict[str, Any]) -> Any:
    out = [v >= 0 for v in kappa.values()]
    out.append(z3.Sum(list(kappa.values())) == to_z3(sta.processes, _lookup(params)))
    if sta.crashing:
        faulty = [kappa[l] for l in (*sta.crashing, *sta.crashed)]
        out.append(z3.Sum(faulty) <= params[sta.faults])
    if sta.coordinator:
        out.append(z3.Sum([kappa[l] for l in sta.coordinators] or [z3.IntVal(0)]) <= 1)
    return z3.And(*out)


def environment(sta: SyncTA, kappa: dict[str, Any], params: dict[str, Any],
                rcv: dict[str, Any]) -> tuple[Any, list[Any]]:
    """What a receiver may have received in a round that starts in ``kappa`` (``rcv`` per
    message type), and the auxiliary variables the formula uses (Byzantine kinds)."""
    out = []
    auxiliary: list[Any] = []
    extra_terms: dict[str, Any] = {}
    coordinator_rcv = []
    for m, r in rcv.items():
        correct, crashing = sta.senders(m)
        sent = z3.Sum([kappa[l] for l in correct]) if correct else z3.IntVal(0)
        out.append(r >= sent)
        if m in sta.coordinator:  # one sender: the coordinator, faulty only if no correct one
            present = z3.Sum([kappa[l] for l in sta.coordinators] or [z3.IntVal(0)])
            out += [r <= sent + 1 - present, r <= sent + params[sta.faults]]
            coordinator_rcv.append(r)
            continue
        if sta.model is FaultModel.CRASH:
            extra = z3.Sum([kappa[l] for l in crashing]) if crashing else z3.IntVal(0)
            out.append(r <= sent + extra)
        else:
            out.append(r <= sent + params[sta.faults])
            extra_terms[m] = r - sent
    if len(coordinator_rcv) > 1:
        out.append(z3.Sum(coordinator_rcv) <= 1)
    if sta.model is FaultModel.BYZANTINE:  # a faulty sender counts once per kind
        for kind, members in sta.kinds.items():
            present = [extra_terms[m] for m in members if m in extra_terms]
            if len(present) > 1:
                # Σ max(0, rcv - sent) <= f, stated linearly with one auxiliary per type
                aux = [z3.FreshInt(f"byz_{m}") for m in members if m in extra_terms]
                out += [a >= 0 for a in aux] + [a >= t for a, t in zip(aux, present)]
                out.append(z3.Sum(aux) <= params[sta.faults])
                auxiliary += aux
    return z3.And(*out), auxiliary


def _witness(sta: SyncTA, rule, tag: str) -> dict[str, Any]:
    return {m: z3.Int(f"{tag}_rcv_{rule.index}_{m}") for m in received_types(sta, [rule.guard])}


def path(sta: SyncTA, rounds: int, tag: str, params: dict[str, Any]) -> Path:
    p = Path(sta, tag, rounds, params)
    p.kappa = [{l: z3.Int(f"{tag}_k{i}_{l}") for l in sta.locations} for i in range(rounds + 1)]
    p.lam = [{r.index: z3.Int(f"{tag}_l{i}_{r.index}") for r in sta.rules} for i in range(rounds)]
    p.constraints.append(invariants(sta, p.kappa[0], params))
    for i in range(rounds):
        k, nxt, lam = p.kappa[i], p.kappa[i + 1], p.lam[i]
        for r in sta.rules:
            p.constraints.append(lam[r.index] >= 0)
        for l in sta.locations:
            p.constraints.append(z3.Sum([lam[r.index] for r in sta.rules if r.source == l] or [z3.IntVal(0)]) == k[l])
            p.constraints.append(z3.Sum([lam[r.index] for r in sta.rules if r.target == l] or [z3.IntVal(0)]) == nxt[l])
        for r in sta.rules:
            rcv = _witness(sta, r, f"{tag}{i}")
            env, aux = environment(sta, k, params, rcv)
            p.witnesses += list(rcv.values()) + aux
            symbols = dict(params)
            symbols.update({received(m).name: v for m, v in rcv.items()})
            p.constraints.append(z3.Implies(lam[r.index] > 0, z3.And(env, to_z3(r.guard, _lookup(symbols)))))
        p.constraints.append(invariants(sta, nxt, params))
    return p


def state_formula(sta: SyncTA, e: Expr, kappa: dict[str, Any], params: dict[str, Any]) -> Any:
    """A property's state formula over one configuration: a location ℓ of the receive automaton
    counts the processes holding ℓ that have not crashed (ℓ and its crashing twin); a crash
    location the crashed processes that kept its state (``SyncTA.counted``)."""
    table: dict[str, Any] = dict(params)
    for name, counted in sta.counted.items():
        table[name] = z3.Sum([kappa[x] for x in counted])
    return to_z3(e, _lookup(table))


def initial(sta: SyncTA, kappa: dict[str, Any]) -> Any:
    return z3.And(*[kappa[l] == 0 for l in sta.locations if l not in sta.initial])


# ---------------------------------------------------------------------- well-formedness


def check_complete(sta: SyncTA) -> None:
    """Every populated correct location has an enabled rule for every receive values Env allows
    (a round in which some process has no rule would silently drop it: the deadlock pitfall);
    raises :class:`IncompleteGuards` with a witness, or :class:`GuardsUndecided` when z3 does not
    decide it (never a pass)."""
    params = parameters(sta)
    kappa = {l: z3.Int(f"c_{l}") for l in sta.locations}
    for loc in sta.correct:
        rules = [r for r in sta.rules if r.source == loc and r.target in sta.correct]
        rcv = {m: z3.Int(f"c_rcv_{m}") for m in received_types(sta, [r.guard for r in rules])}
        env, _ = environment(sta, kappa, params, rcv)
        symbols = dict(params)
        symbols.update({received(m).name: v for m, v in rcv.items()})
        s = solver()
        s.add(rc(sta, params), invariants(sta, kappa, params), kappa[loc] > 0, env,
              *[z3.Not(to_z3(r.guard, _lookup(symbols))) for r in rules])
        answer = s.check()
        if answer == z3.unknown:
            raise GuardsUndecided(f"whether every rule-less case of location {loc} is impossible "
                                  f"(guard completeness) was not decided: {undecided(s)}")
        if answer == z3.sat:
            model = s.model()
            witness = {p: model.eval(v, model_completion=True).as_long() for p, v in params.items()}
            witness.update({f"received({m})": model.eval(v, model_completion=True).as_long()
                            for m, v in rcv.items()})
            raise IncompleteGuards(loc, witness)


# ----------------------------------------------------------------------------- diameter


@dataclass
class Diameter:
    value: int | None  # in rounds; None: not found
    seconds: float
    queries: list[tuple[int, str, float]]  # (D in phases, sat/unsat/unknown, seconds)
    reason: str = ""
    phase: int = 1  # rounds per phase
    timed_out: bool = False  # stopped by the command's --timeout

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


def _diameter_of(rta: ReceiveTA, fixed: dict[str, int], progress: Note | None = None) -> Diameter:
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
    if sta.crashing:
        return 1
    level = {l: 0 for l in sta.initial}
    changed = True
    while changed:
        changed = False
        for r in sta.rules:
            if r.source in level and r.target not in sta.initial and r.target not in level:
                level[r.target] = level[r.source] + 1
                changed = True
    if set(level) != set(sta.locations):
        return 1
    phase = max(level.values()) + 1
    for r in sta.rules:
        expected = 0 if level[r.source] == phase - 1 else level[r.source] + 1
        if level[r.target] != expected:
            return 1
    return phase


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


def _rounds(n: int) -> str:
    return f"{n} round{'' if n == 1 else 's'}"


_DEPTH_ANSWER = {"unsat": "a diameter", "sat": "not a diameter", "unknown": "not decided"}


def _diameter(sta: SyncTA, cap: int, fixed: dict[str, int], started: float,
              queries: list[tuple[int, str, float]], phase: int, progress: Note | None = None) -> Diameter:
    for d in range(0, cap + 1):
        shown.step(progress, f"diameter search: D = {_rounds(d * phase)} (at most {cap * phase}) ...")
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
        shown.step(progress, f"diameter search: D = {_rounds(d * phase)}: {_DEPTH_ANSWER[str(answer)]} "
                             f"({queries[-1][2]:.2f} s)")
        if answer == z3.unsat:
            return Diameter(d * phase, time.perf_counter() - started, queries, phase=phase)
        if answer == z3.unknown:
            return Diameter(None, time.perf_counter() - started, queries,
                            f"the diameter query for D = {d * phase} rounds was not decided: "
                            f"{undecided(s)}", phase,
                            timed_out=deadline.active() and deadline.remaining() == 0)
    return Diameter(None, time.perf_counter() - started, queries,
                    f"no diameter up to {cap * phase} rounds (parameterized reachability of "
                    "synchronous threshold automata is undecidable in general)", phase)


# ----------------------------------------------------------------------------- properties


@dataclass(frozen=True)
class SyncProperty:
    name: str
    init: Expr | None
    safe: Expr
    clean_round: bool
    max_crashing: int = 0  # a "clean" round: at most this many processes crash in it (k - 1)
    coordinator: bool = False  # the clean round is one whose coordinator (king, queen) is correct
    # Safe is required only from this round on (the clean-round hypothesis implies 1: after the
    # clean round); the tests use 1 without a clean round to show what the hypothesis excludes
    min_rounds: int = 0
    assuming: str | None = None  # the hypothesis as written after `assuming`


def read_property(sta: SyncTA, prop: Property) -> SyncProperty | str:
    """The property, or why lock-step checking does not support it. Its hypothesis is the one
    written (``assuming …``), never one inferred from its name."""
    name, formula = prop.name, prop.formula
    init, body = (formula.left, formula.right) if isinstance(formula, Implies) else (None, formula)
    if not isinstance(body, Always):
        return ("lock-step checking supports 'Init -> [](Safe)' and '[](Safe)' over round starts; "
                f"this is {to_text(formula)}")
    safe = body.arg
    for part in (init, safe):
        if part is None:
            continue
        if _temporal(part):
            return f"nested temporal operators are not supported in lock-step checking: {to_text(formula)}"
        unknown = {n.name for n in names(part)} - {*sta.counted, *sta.parameters}
        if unknown:
            return f"'{sorted(unknown)[0]}' is not a location or parameter of the receive automaton"
    h = prop.hypothesis
    if h is None:
        return SyncProperty(name, init, safe, False)
    if h.kind == CORRECT_COORDINATOR and sta.coordinator:
        return SyncProperty(name, init, safe, True, 0, True, 1, h.text())
    if h.kind in (CLEAN_ROUND, FEW_CRASHES) and sta.model is FaultModel.CRASH:
        return SyncProperty(name, init, safe, True, h.crashes, False, 1, h.text())
    # ir/rta/validate.py refuses these with their position; a hand-built automaton gets here
    raise SyncInputError(f"property {name}: 'assuming {h.text()}' cannot be met under "
                         f"{sta.model.value} faults{'' if sta.coordinator else ' without coordinator messages'}")


def clean_formula(sta: SyncTA, spec: SyncProperty, kappa: dict[str, Any]) -> Any:
    """The round starting in ``kappa`` is clean: its coordinator is correct, or at most
    ``max_crashing`` processes crash in it."""
    if spec.coordinator:
        return z3.Sum([kappa[l] for l in sta.coordinators] or [z3.IntVal(0)]) == 1
    return z3.Sum([kappa[l] for l in sta.crashing] or [z3.IntVal(0)]) <= spec.max_crashing


def hypothesis(spec: SyncProperty) -> str:
    """The hypothesis a property is checked under, in words (for every report)."""
    lead = f"assuming {spec.assuming}: checked in every configuration reached one or more rounds after "
    if spec.coordinator:
        return (lead + "a round whose coordinator (king or queen) is correct (t + 1 phases with at "
                "most t faulty processes contain one)")
    if spec.max_crashing == 0:
        return (lead + "a round in which no process crashes (t + 1 rounds with at most t crashes "
                "contain one)")
    k = spec.max_crashing + 1
    return (lead + f"a round in which at most {k - 1} "
            f"{'process crashes' if k == 2 else 'processes crash'} (for k-set agreement with k = {k}: "
            f"floor(t/{k}) + 1 rounds with at most t crashes contain one)")


def _temporal(e: Expr) -> bool:
    return any(isinstance(x, (Always, Eventually)) for x in walk(e))


def bmc(sta: SyncTA, prop: SyncProperty, depth: int,
        fixed: dict[str, int] | None = None) -> tuple[str, Run | None, int, str]:
    """Search a violation on paths of at most ``depth`` rounds (for a property with a
    hypothesis: up to ``depth`` rounds before the clean round and ``depth`` after it), for the
    ``--param`` values ``fixed`` if given. ("violated", run, k, ""), ("none", None, queries, "")
    or ("unknown", None, queries, why)."""
    queries = 0
    # fewest rounds first: the first violation found is a shortest one (then its parameters are
    # minimised lexicographically, tactl.engines.minimal_params)
    shapes = [(None, k) for k in range(prop.min_rounds, depth + 1 + prop.min_rounds)] \
        if not prop.clean_round else sorted(((j, j + 1 + m) for j in range(depth + 1) for m in range(depth + 1)),
                                            key=lambda shape: (shape[1], shape[0]))
    for clean, length in shapes:
        params = parameters(sta)
        p = path(sta, length, "b", params)
        s = solver()
        s.add(rc(sta, params, fixed), *p.constraints, initial(sta, p.kappa[0]))
        if prop.init is not None:
            s.add(state_formula(sta, prop.init, p.kappa[0], params))
        if clean is not None:
            s.add(clean_formula(sta, prop, p.kappa[clean]))
        s.add(z3.Not(state_formula(sta, prop.safe, p.kappa[length], params)))
        queries += 1
        answer = s.check()
        if answer == z3.unknown:
            return "unknown", None, queries, undecided(s)
        if answer == z3.sat:
            m = s.model()
            if minimal_params.enabled():
                lex = minimal_params.minimise_terms(s, s.check, m, list(params.items()))
                queries += lex.queries
                m = lex.model
                minimality = ("fewest rounds, then the lexicographically smallest parameters "
                              "(each smaller valuation refuted by z3)" if lex.proved else
                              f"fewest rounds; parameters not shown minimal: {lex.why}")
            val = lambda v: m.eval(v, model_completion=True).as_long()  # noqa: E731
            run = Run({q: val(v) for q, v in params.items()},
                      [{l: val(v) for l, v in k.items()} for k in p.kappa],
                      [{r: val(v) for r, v in lam.items()} for lam in p.lam], clean)
            return "violated", run, queries, minimality if minimal_params.enabled() else ""
    return "none", None, queries, ""


def initial_configuration(sta: SyncTA, init: Expr | None,
                          fixed: dict[str, int] | None = None) -> tuple[bool | None, str]:
    """Whether some parameter values (satisfying the RC and ``fixed``) have an initial
    configuration (satisfying ``init``, a property's antecedent); with why not, by layer."""
    params = parameters(sta)
    kappa = {l: z3.Int(f"i_{l}") for l in sta.locations}
    layers = (("the resilience condition is unsatisfiable", [rc(sta, params)]),
              ("no parameter values given by --param satisfy the resilience condition",
               [rc(sta, params, fixed)] if fixed else []),
              ("no initial configuration satisfies the invariants",
               [invariants(sta, kappa, params), initial(sta, kappa)]),
              ("no initial configuration satisfies the property's antecedent "
               f"({to_text(init) if init is not None else ''})",
               [state_formula(sta, init, kappa, params)] if init is not None else []))
    s = solver()
    exists, why = first_unsatisfiable(s, layers)
    return (None, undecided(s)) if exists is None else (exists, why)


def hypothesis_met(sta: SyncTA, prop: SyncProperty, depth: int,
                   fixed: dict[str, int] | None = None) -> tuple[bool | None, str]:
    """Whether some run (from an initial configuration satisfying Init) has a round of the
    property's hypothesis within ``depth`` rounds — with a diameter, at all."""
    params = parameters(sta)
    p = path(sta, depth, "h", params)
    s = solver()
    s.add(rc(sta, params, fixed), *p.constraints, initial(sta, p.kappa[0]),
          z3.Or(*[clean_formula(sta, prop, k) for k in p.kappa]))
    if prop.init is not None:
        s.add(state_formula(sta, prop.init, p.kappa[0], params))
    answer = s.check()
    return (None, undecided(s)) if answer == z3.unknown else (answer == z3.sat, "")


# ---------------------------------------------------------------------------------- check


def check_rta(rta: ReceiveTA, properties: tuple[str, ...] = (), timeout_s: float | None = None,
              fixed: dict[str, int] | None = None,
              progress: Note | None = None) -> tuple[list[PropertyResult], dict[str, Any]]:
    """Every (selected) property of a synchronous receive automaton under lock-step semantics,
    for all parameter values satisfying the RC, or those with the ``--param`` values ``fixed``.
    ``timeout_s`` starts a deadline for this call unless the command already runs one. The
    second value describes the automaton and its diameter for reports, and whether any initial
    configuration exists (``initial_configurations``, ``vacuous``: why not)."""
    own_clock = timeout_s is not None and not deadline.active()
    if own_clock:
        deadline.start(timeout_s)
    try:
        return _check_rta(rta, properties, fixed or {}, progress)
    finally:
        if own_clock:
            deadline.cancel()


def _scope(fixed: dict[str, int], d: Diameter) -> str:
    if fixed:
        values = ", ".join(f"{k}={v}" for k, v in fixed.items())
        return (f"the parameter values with {values} (--param) satisfying the resilience condition "
                f"({d.describe()}, for these values)")
    return f"all parameter values satisfying the resilience condition ({d.describe()})"


def _check_rta(rta: ReceiveTA, properties: tuple[str, ...], fixed: dict[str, int],
               progress: Note | None = None) -> tuple[list[PropertyResult], dict[str, Any]]:
    sta = build(rta)
    selected = list(_selected(sta, rta, properties))
    info: dict[str, Any] = {"locations": len(sta.locations), "rules": len(sta.rules), "diameter": None,
                            "phase": 1, "diameter_s": 0.0, "diameter_queries": []}
    stop: str | None = None  # why no property can be decided
    try:
        with deadline.interruptible():
            exists, why = initial_configuration(sta, None, fixed)
            info.update(initial_configurations=exists, vacuous=why)
            check_complete(sta)
    except deadline.DeadlineExceeded:
        stop = deadline.timeout_reason()
    except GuardsUndecided as e:
        stop = str(e)
    d = Diameter(None, 0.0, [], stop or "")
    if stop is None and info["initial_configurations"] is not False:  # else all hold vacuously
        d = _diameter_of(rta, fixed, progress)
        info.update(diameter=d.value, phase=d.phase, diameter_s=round(d.seconds, 3),
                    diameter_queries=[list(q) for q in d.queries])
    results = []
    shown.phase(progress, len(selected))
    for prop, spec in selected:
        if isinstance(spec, str):
            results.append(PropertyResult(prop.name, "safety", UNSUPPORTED, ENGINE, reason=spec))
            continue
        details: dict[str, Any] = {"diameter": d.value, "bounded_depth": d.depth(),
                                   **({"hypothesis": spec.assuming} if spec.assuming else {})}
        result = PropertyResult(prop.name, "safety", UNKNOWN, ENGINE, details=details,
                                formula_class="lock-step safety")
        results.append(result)
        started = time.perf_counter()
        if stop is not None or deadline.remaining() == 0:
            result.reason = stop or (deadline.timeout_reason() + " before this property was checked")
            continue
        shown.started(progress, prop.name, f"checking {prop.name} (lock-step, {d.depth()} rounds)")
        try:
            with deadline.interruptible():
                _check_property(sta, spec, d, fixed, result, replay)
            if result.verdict == VIOLATED and "run" in result.details:
                result.details["pseudocode"] = pseudocode_rounds(rta, sta, result.details["run"])
        except deadline.DeadlineExceeded:
            result.verdict, result.scope, result.reason = UNKNOWN, None, deadline.timeout_reason()
        result.time_s = time.perf_counter() - started
        shown.finished(progress, prop.name, result.verdict.upper())
    return results, info


def _check_property(sta: SyncTA, spec: SyncProperty, d: Diameter, fixed: dict[str, int],
                    result: PropertyResult, replay) -> None:
    """One property's verdict into ``result`` (UNKNOWN with a reason until decided)."""
    exists, why = initial_configuration(sta, spec.init, fixed)
    if exists is False:
        result.verdict = HOLDS_VACUOUSLY
        result.reason = f"{why}, so the property holds vacuously: nothing was checked"
        return
    if exists is None:
        result.reason = f"whether an initial configuration exists was not decided: {why}"
        return
    depth = d.depth()
    outcome, run, queries, why = bmc(sta, spec, depth, fixed)
    result.queries = queries
    if outcome == "violated":
        assert run is not None
        replayed = replay(sta, spec, run)
        if replayed.ok:
            result.verdict = VIOLATED
            result.details["run"] = run_json(sta, run)
            if why:
                result.details["minimality"] = why
            result.reason = hypothesis(spec) if spec.clean_round else None
        else:
            result.reason = f"a lock-step counterexample did not replay ({replayed.message}): a tactl bug"
        return
    if outcome == "unknown":
        result.reason = f"a bounded query was not decided: {why}"
        return
    if d.value is None:
        result.reason = (f"no violation within {depth} rounds (a bounded result, not a proof): "
                         f"{d.reason}")
        return
    if spec.clean_round:
        met, why = hypothesis_met(sta, spec, depth, fixed)
        result.queries += 1
        if met is None:
            result.reason = f"whether the hypothesis can be met was not decided: {why}"
            return
        if not met:
            result.verdict = HOLDS_VACUOUSLY
            result.reason = (f"the hypothesis 'assuming {spec.assuming}' is never met: no run has "
                             f"such a round within {depth} rounds ({d.describe()}), so the property "
                             "holds vacuously")
            return
    result.verdict = HOLDS
    result.scope = _scope(fixed, d) + (f"; {hypothesis(spec)}" if spec.clean_round else "")
    _mark_vacuity(spec, result, hypothesis_asked=True)


def _mark_vacuity(spec: SyncProperty, result: PropertyResult, hypothesis_asked: bool) -> None:
    """What a lock-step HOLDS says about its antecedents (ir/eltl/vacuity.py for the interleaving
    engines): the initial configuration satisfying Init was found before the bounded checks, and
    the hypothesis's round was found within the bound when ``hypothesis_asked``."""
    if spec.init is None and not spec.clean_round:
        result.vacuity = NO_ANTECEDENT
        return
    met = []
    if spec.init is not None:
        met.append("an initial configuration satisfies the antecedent")
    if spec.clean_round and not hypothesis_asked:
        result.vacuity = VACUITY_UNKNOWN
        result.vacuity_witness = ("whether a run meets the hypothesis 'assuming "
                                  f"{spec.assuming}' is asked by the parametric lock-step engine only")
        return
    if spec.clean_round:
        met.append(f"a run meets the hypothesis 'assuming {spec.assuming}'")
    result.vacuity, result.vacuity_witness = NOT_VACUOUS, " and ".join(met)


def _selected(sta: SyncTA, rta: ReceiveTA, properties: tuple[str, ...]):
    """(property, its lock-step reading or why it is unsupported) for the selected properties."""
    for prop in rta.properties:
        if not properties or prop.name in properties:
            yield prop, read_property(sta, prop)


def run_json(sta: SyncTA, run: Run) -> dict[str, Any]:
    """The run for people (``rounds``: non-zero counters and rule labels) and for the simulator
    (``steps``: rule indices; :func:`run_from_json`)."""
    return {"parameters": run.parameters,
            "rounds": [{"start": {l: c for l, c in conf.items() if c},
                        "rules": {sta.rules[r].label: n for r, n in lam.items() if n}}
                       for conf, lam in zip(run.configurations, run.rounds + [{}])],
            "configurations": run.configurations,
            "steps": [[[r, n] for r, n in lam.items() if n] for lam in run.rounds],
            **({"clean_round": run.clean_round} if run.clean_round is not None else {})}


def run_from_json(doc: dict[str, Any]) -> Run:
    return Run({k: int(v) for k, v in doc["parameters"].items()},
               [{l: int(c) for l, c in conf.items()} for conf in doc["configurations"]],
               [{int(r): int(n) for r, n in step} for step in doc["steps"]], doc.get("clean_round"))


def revalidated(rta: ReceiveTA, result: PropertyResult) -> str | None:
    """Why a stored lock-step violation must not be used (None: it replays on ``rta`` now)."""
    try:
        sta = build(rta)
        spec = read_property(sta, next(p for p in rta.properties if p.name == result.name))
        if isinstance(spec, str):
            return spec
        outcome = replay(sta, spec, run_from_json(result.details["run"]))
    except (StopIteration, KeyError, IndexError, ValueError, TypeError) as e:
        return f"a lock-step run that does not fit the automaton ({type(e).__name__})"
    return None if outcome.ok else f"a lock-step run that no longer replays ({outcome.message})"


def pseudocode_rounds(rta: ReceiveTA, sta: SyncTA, run: dict[str, Any]) -> list[str]:
    """The run's rounds in the words of the source (``.alg``/``.pml``): per round, per rule taken,
    the lines its processes executed (the receive automaton's source map); [] without one."""
    origins = {r.id: r.origin for r in rta.rules if r.origin}
    if not origins:
        return []
    where = next(iter(origins.values())).file
    out = [f"in the {source_language(where)} ({where}):"]
    for i, steps in enumerate(run["steps"], 1):
        for index, n in steps:
            rule = sta.rules[index]
            origin = origins.get(rule.receive_rule) if rule.receive_rule is not None else None
            who = f"{n} process{'' if n == 1 else 'es'} ({rule.label})"
            what = origin.describe() if origin else "(a step of the fault model)"
            out.append(f"round {i}: {who}: {what}")
    return out


def check_explicit(rta: ReceiveTA, properties: tuple[str, ...], params: dict[str, int]) -> list[PropertyResult]:
    """Lock-step rounds enumerated at fixed parameter values (a bounded sanity check, not a
    proof): the oracle the tests compare the parametric verdicts with."""
    sta = build(rta)
    try:
        check_complete(sta)
    except GuardsUndecided as e:
        return [PropertyResult(prop.name, "safety", UNKNOWN, "explicit", reason=str(e))
                for prop, _ in _selected(sta, rta, properties)]
    missing = [p for p in sta.parameters if p not in params]
    if missing:
        raise SyncInputError(f"the explicit engine needs every parameter fixed (--param); missing: "
                             f"{', '.join(missing)}")
    failed = [to_text(a) for a in sta.assumptions if not holds(a, params)]
    if failed:
        raise SyncInputError(f"the --param values violate the resilience condition ({'; '.join(failed)}); "
                             "--allow-outside-rc checks them anyway")
    out = []
    for prop, spec in _selected(sta, rta, properties):
        if isinstance(spec, str):
            out.append(PropertyResult(prop.name, "safety", UNSUPPORTED, "explicit", reason=spec))
            continue
        started = time.perf_counter()
        if not any(spec.init is None or state_holds(sta, spec.init, dict(c), params)
                   for c in initial_configurations(sta, params)):
            out.append(PropertyResult(prop.name, "safety", HOLDS_VACUOUSLY, "explicit",
                                      formula_class="lock-step safety",
                                      reason="these parameter values give no initial "
                                             "configuration (with the property's Init), so the "
                                             "property holds vacuously: nothing was checked"))
            continue
        verdict, run = explicit_verdict(sta, spec, params)
        result = PropertyResult(prop.name, "safety", verdict, "explicit",
                                time_s=time.perf_counter() - started,
                                scope=f"the instance {', '.join(f'{k}={v}' for k, v in params.items())} only",
                                reason=hypothesis(spec) if spec.clean_round else None,
                                formula_class="lock-step safety",
                                details={"hypothesis": spec.assuming} if spec.assuming else {})
        if verdict == HOLDS:
            _mark_vacuity(spec, result, hypothesis_asked=False)
        if run is not None:
            replayed = replay(sta, spec, run)
            if replayed.ok:
                result.details["run"] = run_json(sta, run)
            else:
                result.verdict = UNKNOWN
                result.reason = f"the enumerated run did not replay ({replayed.message}): a tactl bug"
        out.append(result)
    return out
