"""Lock-step round semantics: the engine for synchronous automata (``timing sync``), for all
parameter values at once (../shared/docs/sync.md §1–3).

A k-round path is a set of linear constraints over integers: per round i the location counters
κ_i, how many processes take each rule λ_i, and for each rule one witness of what its processes
received (``rcv_i,r``, within Env of κ_i):

* every process takes exactly one rule: Σ_{r from ℓ} λ_i[r] = κ_i[ℓ];
* κ_{i+1}[ℓ] = Σ_{r to ℓ} λ_i[r];
* λ_i[r] > 0 → Env(κ_i, rcv_i,r) ∧ guard_r(rcv_i,r): guards read what was sent *this round*,
  by the processes' locations at the round's start — nothing a process does in round i is
  visible before κ_{i+1}. One witness per rule suffices: Env is the same for every receiver.

**Diameter.** D is a diameter if everything reachable in D + 1 rounds from any configuration
(satisfying the invariants) is reachable within D rounds: the ∃∀ query of sync.md §2 is UNSAT.
Then a property checked on every path of at most D rounds holds on all paths (bounded model
checking up to D is complete), for every parameter valuation (they are symbolic). Without a
diameter (none up to the cap, or a solver timeout) the verdict is ``unknown``, with what the
bounded check found, stated as bounded.

**Properties** are ``Init -> [](Safe)`` or ``[](Safe)`` over location counters and parameters,
read at round starts; a location ℓ counts the processes in state ℓ that have not crashed (its
crashing twin included). **Clean rounds**: ``agreement`` needs a round in which no process
crashes (FloodMin decides after t + 1 rounds, one of which is clean). A property whose name
starts with ``agreement`` under crash faults is checked under that hypothesis — in every
configuration reached one or more rounds after a clean round — and the report says so.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

import z3

from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED, PropertyResult
from tactl.ir.expr import Always, Expr, Implies, names, to_text
from tactl.ir.linear import to_z3
from tactl.ir.rta import FaultModel, ReceiveTA, received
from tactl.passes.lockstep import SyncInputError, SyncTA, SyncUnsupported, build, received_types

ENGINE = "lockstep"
MAX_DIAMETER = 6
CLEAN_PREFIXES = ("agreement",)
K_AGREEMENT = re.compile(r"^k(\d+)_agreement")  # k2_agreement: k-set agreement for k = 2
CLEAN_ROUND = ("under the clean-round hypothesis: checked in every configuration reached one or "
               "more rounds after a round in which no process crashes (t + 1 rounds with at most "
               "t crashes contain one)")


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


def rc(sta: SyncTA, params: dict[str, Any]) -> Any:
    return z3.And(*[to_z3(a, _lookup(params)) for a in sta.assumptions], *[p >= 0 for p in params.values()])


def invariants(sta: SyncTA, kappa: dict[str, Any], params: dict[str, Any]) -> Any:
    out = [v >= 0 for v in kappa.values()]
    out.append(z3.Sum(list(kappa.values())) == to_z3(sta.processes, _lookup(params)))
    if sta.crashing:
        faulty = [kappa[l] for l in sta.crashing] + [kappa[sta.crashed]]
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
    counts the processes holding ℓ that have not crashed (ℓ and its crashing twin)."""
    table: dict[str, Any] = dict(params)
    for l in sta.correct:
        table[l] = z3.Sum([kappa[x] for x in sta.holding(l)])
    return to_z3(e, _lookup(table))


def initial(sta: SyncTA, kappa: dict[str, Any]) -> Any:
    return z3.And(*[kappa[l] == 0 for l in sta.locations if l not in sta.initial])


# ---------------------------------------------------------------------- well-formedness


def check_complete(sta: SyncTA, timeout_ms: int = 30_000) -> None:
    """Every populated correct location has an enabled rule for every receive values Env allows
    (sync.md §1, the deadlock pitfall); raises :class:`IncompleteGuards` with a witness."""
    params = parameters(sta)
    kappa = {l: z3.Int(f"c_{l}") for l in sta.locations}
    for loc in sta.correct:
        rules = [r for r in sta.rules if r.source == loc and r.target in sta.correct]
        rcv = {m: z3.Int(f"c_rcv_{m}") for m in received_types(sta, [r.guard for r in rules])}
        env, _ = environment(sta, kappa, params, rcv)
        symbols = dict(params)
        symbols.update({received(m).name: v for m, v in rcv.items()})
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        solver.add(rc(sta, params), invariants(sta, kappa, params), kappa[loc] > 0, env,
                   *[z3.Not(to_z3(r.guard, _lookup(symbols))) for r in rules])
        if solver.check() == z3.sat:
            model = solver.model()
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


_DIAMETERS: dict[ReceiveTA, Diameter] = {}


def _diameter_of(rta: ReceiveTA, timeout_s: float) -> Diameter:
    """The diameter, once per automaton in a process (every property of it needs it); a search
    that ended in a solver timeout is not kept (more time may decide it)."""
    found = _DIAMETERS.get(rta)
    if found is None:
        found = diameter(build(rta), timeout_s=timeout_s)
        if found.value is not None or "timeout" not in found.reason:
            _DIAMETERS[rta] = found
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


def diameter(sta: SyncTA, cap: int = MAX_DIAMETER, timeout_s: float = 60.0) -> Diameter:
    """The smallest D ≤ cap such that every configuration reachable in (D + 1)·φ rounds is
    reachable within D·φ rounds, from any configuration satisfying the invariants (φ = 1) or any
    phase start (φ > 1: only initial locations populated; sync.md §2). D counts phases."""
    started = time.perf_counter()
    queries = []
    phase = phase_length(sta)
    for d in range(0, cap + 1):
        params = parameters(sta)
        outer = path(sta, (d + 1) * phase, "e", params)
        inner = path(sta, d * phase, "a", params)
        last = outer.kappa[(d + 1) * phase]
        same_start = z3.And(*[inner.kappa[0][l] == outer.kappa[0][l] for l in sta.locations])
        differs = z3.And(*[z3.Or(*[inner.kappa[j][l] != last[l] for l in sta.locations])
                           for j in range(d * phase + 1)])
        solver = z3.Solver()
        solver.set("timeout", int(timeout_s * 1000))
        solver.add(rc(sta, params), *outer.constraints)
        if phase > 1:
            solver.add(initial(sta, outer.kappa[0]))
        solver.add(z3.ForAll(inner.variables(), z3.Implies(z3.And(same_start, *inner.constraints), differs)))
        t0 = time.perf_counter()
        answer = solver.check()
        queries.append((d, str(answer), time.perf_counter() - t0))
        if answer == z3.unsat:
            return Diameter(d * phase, time.perf_counter() - started, queries, phase=phase)
        if answer == z3.unknown:
            return Diameter(None, time.perf_counter() - started, queries,
                            f"the diameter query for D = {d * phase} rounds was not decided "
                            f"({solver.reason_unknown()})", phase)
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


def read_property(sta: SyncTA, name: str, formula: Expr) -> SyncProperty | str:
    """The property, or why lock-step checking does not support it."""
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
        unknown = {n.name for n in names(part)} - set(sta.correct) - set(sta.parameters)
        if unknown:
            return f"'{sorted(unknown)[0]}' is not a location or parameter of the receive automaton"
    k_set = K_AGREEMENT.match(name)
    if k_set and sta.model is not FaultModel.CRASH:
        raise SyncInputError(f"property {name}: the clean-round hypothesis of k-set agreement (a "
                             f"round in which at most k - 1 processes crash) needs a crash fault "
                             f"model, not {sta.model.value}")
    if sta.coordinator and name.startswith(CLEAN_PREFIXES):
        return SyncProperty(name, init, safe, True, 0, True, 1)
    clean = sta.model is FaultModel.CRASH and (name.startswith(CLEAN_PREFIXES) or bool(k_set))
    most = int(k_set.group(1)) - 1 if k_set else 0
    if k_set and most < 0:
        raise SyncInputError(f"property {name}: k-set agreement needs k >= 1")
    return SyncProperty(name, init, safe, clean, most, False, 1 if clean else 0)


def clean_formula(sta: SyncTA, spec: SyncProperty, kappa: dict[str, Any]) -> Any:
    """The round starting in ``kappa`` is clean: its coordinator is correct, or at most
    ``max_crashing`` processes crash in it."""
    if spec.coordinator:
        return z3.Sum([kappa[l] for l in sta.coordinators] or [z3.IntVal(0)]) == 1
    return z3.Sum([kappa[l] for l in sta.crashing] or [z3.IntVal(0)]) <= spec.max_crashing


def hypothesis(spec: SyncProperty) -> str:
    """The clean-round hypothesis a property is checked under, in words (for every report)."""
    if spec.coordinator:
        return ("under the correct-coordinator hypothesis: checked in every configuration reached "
                "one or more rounds after a round whose coordinator (king or queen) is correct "
                "(t + 1 phases with at most t faulty processes contain one)")
    if spec.max_crashing == 0:
        return CLEAN_ROUND
    k = spec.max_crashing + 1
    return (f"under the clean-round hypothesis of {k}-set agreement: checked in every configuration "
            f"reached one or more rounds after a round in which at most {k - 1} "
            f"{'process crashes' if k == 2 else 'processes crash'} (floor(t/{k}) + 1 rounds with "
            f"at most t crashes contain one)")


def _temporal(e: Expr) -> bool:
    from tactl.ir.expr import Eventually, walk

    return any(isinstance(x, (Always, Eventually)) for x in walk(e))


@dataclass
class Run:
    """A lock-step counterexample: parameters, the configuration at each round start, and how
    many processes took each rule in each round."""

    parameters: dict[str, int]
    configurations: list[dict[str, int]]
    rounds: list[dict[int, int]]
    clean_round: int | None  # the clean round the property's hypothesis uses, if any


def bmc(sta: SyncTA, prop: SyncProperty, depth: int, timeout_s: float) -> tuple[str, Run | None, int]:
    """Search a violation on paths of at most ``depth`` rounds (for a clean-round property: up
    to ``depth`` rounds before the clean round and ``depth`` after it). ("violated", run, k),
    ("none", None, queries) or ("unknown", None, queries)."""
    queries = 0
    shapes = [(None, k) for k in range(prop.min_rounds, depth + 1 + prop.min_rounds)] \
        if not prop.clean_round else [(j, j + 1 + m) for j in range(depth + 1) for m in range(depth + 1)]
    for clean, length in shapes:
        params = parameters(sta)
        p = path(sta, length, "b", params)
        solver = z3.Solver()
        solver.set("timeout", int(timeout_s * 1000))
        solver.add(rc(sta, params), *p.constraints, initial(sta, p.kappa[0]))
        if prop.init is not None:
            solver.add(state_formula(sta, prop.init, p.kappa[0], params))
        if clean is not None:
            solver.add(clean_formula(sta, prop, p.kappa[clean]))
        solver.add(z3.Not(state_formula(sta, prop.safe, p.kappa[length], params)))
        queries += 1
        answer = solver.check()
        if answer == z3.unknown:
            return "unknown", None, queries
        if answer == z3.sat:
            m = solver.model()
            val = lambda v: m.eval(v, model_completion=True).as_long()  # noqa: E731
            run = Run({q: val(v) for q, v in params.items()},
                      [{l: val(v) for l, v in k.items()} for k in p.kappa],
                      [{r: val(v) for r, v in lam.items()} for lam in p.lam], clean)
            return "violated", run, queries
    return "none", None, queries


def has_initial_configuration(sta: SyncTA, prop: SyncProperty, timeout_s: float) -> bool:
    """Whether some parameter values satisfying the RC have an initial configuration satisfying
    the property's Init (an undecided query counts as yes: the checks then run)."""
    params = parameters(sta)
    kappa = {l: z3.Int(f"i_{l}") for l in sta.locations}
    solver = z3.Solver()
    solver.set("timeout", int(timeout_s * 1000))
    solver.add(rc(sta, params), invariants(sta, kappa, params), initial(sta, kappa))
    if prop.init is not None:
        solver.add(state_formula(sta, prop.init, kappa, params))
    return solver.check() != z3.unsat


# ---------------------------------------------------------------------------------- check


def check_rta(rta: ReceiveTA, properties: tuple[str, ...] = (), timeout_s: float = 60.0) -> tuple[list[PropertyResult], dict[str, Any]]:
    """Every (selected) property of a synchronous receive automaton under lock-step semantics.
    The second value describes the automaton and its diameter for reports."""
    from tactl.lockstep_sim import replay

    sta = build(rta)
    check_complete(sta)
    d = _diameter_of(rta, timeout_s)
    info = {"locations": len(sta.locations), "rules": len(sta.rules), "diameter": d.value,
            "phase": d.phase, "diameter_s": round(d.seconds, 3),
            "diameter_queries": [list(q) for q in d.queries]}
    results = []
    for prop, spec in _selected(sta, rta, properties):
        if isinstance(spec, str):
            results.append(PropertyResult(prop.name, "safety", UNSUPPORTED, ENGINE, reason=spec))
            continue
        started = time.perf_counter()
        if not has_initial_configuration(sta, spec, timeout_s):
            results.append(PropertyResult(
                prop.name, "safety", UNKNOWN, ENGINE, formula_class="lock-step safety",
                reason="vacuous: no parameter values satisfying the resilience condition give an "
                       "initial configuration (with the property's Init), so the property would "
                       "hold vacuously: nothing was checked"))
            continue
        depth = d.depth()
        outcome, run, queries = bmc(sta, spec, depth, timeout_s)
        details: dict[str, Any] = {"diameter": d.value, "bounded_depth": depth,
                                   **({"hypothesis": hypothesis(spec)} if spec.clean_round else {})}
        result = PropertyResult(prop.name, "safety", UNKNOWN, ENGINE, queries=queries,
                                details=details, formula_class="lock-step safety")
        if outcome == "violated":
            assert run is not None
            replayed = replay(sta, spec, run)
            if replayed.ok:
                result.verdict = VIOLATED
                result.details["run"] = run_json(sta, run)
                result.reason = (hypothesis(spec) if spec.clean_round else None)
            else:
                result.reason = f"a lock-step counterexample did not replay ({replayed.message}): a tactl bug"
        elif outcome == "unknown":
            result.reason = "a bounded query was not decided by the solver"
        elif d.value is None:
            result.reason = (f"no violation within {depth} rounds (a bounded result, not a proof): "
                             f"{d.reason}")
        else:
            result.verdict = HOLDS
            result.scope = (f"all parameter values satisfying the resilience condition ({d.describe()})"
                            + (f"; {hypothesis(spec)}" if spec.clean_round else ""))
        result.time_s = time.perf_counter() - started
        results.append(result)
    return results, info


def _selected(sta: SyncTA, rta: ReceiveTA, properties: tuple[str, ...]):
    """(property, its lock-step reading or why it is unsupported) for the selected properties."""
    for prop in rta.properties:
        if not properties or prop.name in properties:
            yield prop, read_property(sta, prop.name, prop.formula)


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
    from tactl.lockstep_sim import replay

    try:
        sta = build(rta)
        spec = read_property(sta, result.name, next(p.formula for p in rta.properties
                                                    if p.name == result.name))
        if isinstance(spec, str):
            return spec
        outcome = replay(sta, spec, run_from_json(result.details["run"]))
    except (StopIteration, KeyError, IndexError, ValueError, TypeError) as e:
        return f"a lock-step run that does not fit the automaton ({type(e).__name__})"
    return None if outcome.ok else f"a lock-step run that no longer replays ({outcome.message})"


def run_lines(run: dict[str, Any]) -> list[str]:
    """A lock-step counterexample as text: per round, the configuration at its start (non-zero
    counters) and how many processes took each rule."""
    values = ", ".join(f"{k}={v}" for k, v in run["parameters"].items())
    lines = [f"counterexample in lock-step rounds, with {values} (replayed by the lock-step simulator):"]
    clean = run.get("clean_round")
    for i, r in enumerate(run["rounds"]):
        start = ", ".join(f"{l}={c}" for l, c in r["start"].items()) or "(no process)"
        mark = "  [the clean round of the hypothesis]" if clean == i else ""
        lines.append(f"  round {i + 1} starts: {start}{mark}" if r["rules"] else f"  then: {start}  <- violates the property")
        for label, n in r["rules"].items():
            lines.append(f"    {n} x {label}")
    return lines


def check_explicit(rta: ReceiveTA, properties: tuple[str, ...], params: dict[str, int]) -> list[PropertyResult]:
    """Lock-step rounds enumerated at fixed parameter values (a bounded sanity check, not a
    proof): the oracle the tests compare the parametric verdicts with."""
    from tactl.lockstep_sim import explicit_verdict, initial_configurations, replay, state_holds

    sta = build(rta)
    check_complete(sta)
    missing = [p for p in sta.parameters if p not in params]
    if missing:
        raise SyncInputError(f"the explicit engine needs every parameter fixed (--param); missing: "
                             f"{', '.join(missing)}")
    from tactl.ir.evaluate import holds

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
            out.append(PropertyResult(prop.name, "safety", UNKNOWN, "explicit",
                                      formula_class="lock-step safety",
                                      reason="vacuous: these parameter values give no initial "
                                             "configuration (with the property's Init): nothing "
                                             "was checked"))
            continue
        verdict, run = explicit_verdict(sta, spec, params)
        result = PropertyResult(prop.name, "safety", verdict, "explicit",
                                time_s=time.perf_counter() - started,
                                scope=f"the instance {', '.join(f'{k}={v}' for k, v in params.items())} only",
                                reason=hypothesis(spec) if spec.clean_round else None,
                                formula_class="lock-step safety")
        if run is not None:
            replayed = replay(sta, spec, run)
            if replayed.ok:
                result.details["run"] = run_json(sta, run)
            else:
                result.verdict = UNKNOWN
                result.reason = f"the enumerated run did not replay ({replayed.message}): a tactl bug"
        out.append(result)
    return out
