"""The lock-step engine's encoding (tactl/engines/lockstep.py): a k-round path of a synchronous
automaton as linear integer constraints for z3, and the solver every lock-step question is asked
of.

A k-round path: per round i the location counters κ_i, how many processes take each rule λ_i,
and for each rule one witness of what its processes received (``rcv_i,r``, within Env of κ_i):

* every process takes exactly one rule: Σ_{r from ℓ} λ_i[r] = κ_i[ℓ];
* κ_{i+1}[ℓ] = Σ_{r to ℓ} λ_i[r];
* λ_i[r] > 0 → Env(κ_i, rcv_i,r) ∧ guard_r(rcv_i,r): guards read what was sent *this round*,
  by the processes' locations at the round's start — nothing a process does in round i is
  visible before κ_{i+1}. One witness per rule suffices: Env is the same for every receiver.

Without ``--timeout`` every query gets z3's deterministic resource limit :data:`RLIMIT`
(``rlimit``), so a verdict does not depend on the machine's load; with it (``tactl.util.deadline``)
every query gets the time left.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from tactl.ir.expr import Expr
from tactl.ir.linear import to_z3
from tactl.ir.rta.model import FaultModel, received
from tactl.passes.rta_to_sync.sync_ta import SyncTA, SyncUnsupported, received_types
from tactl.util import deadline

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


def lookup(table: dict[str, Any]):
    """The symbol table as ``to_z3`` reads it: a name that is not in it is unsupported here."""
    def sym(name: str):
        if name not in table:
            raise SyncUnsupported(f"'{name}' is not a location, parameter or received(M) here")
        return table[name]
    return sym


def rc(sta: SyncTA, params: dict[str, Any], fixed: dict[str, int] | None = None) -> Any:
    """The resilience condition, parameters natural numbers, and the ``--param`` values."""
    return z3.And(*[to_z3(a, lookup(params)) for a in sta.assumptions], *[p >= 0 for p in params.values()],
                  *[params[p] == v for p, v in (fixed or {}).items()])


def invariants(sta: SyncTA, kappa: dict[str, Any], params: dict[str, Any]) -> Any:
    out = [v >= 0 for v in kappa.values()]
    out.append(z3.Sum(list(kappa.values())) == to_z3(sta.processes, lookup(params)))
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
            p.constraints.append(z3.Implies(lam[r.index] > 0, z3.And(env, to_z3(r.guard, lookup(symbols)))))
        p.constraints.append(invariants(sta, nxt, params))
    return p


def state_formula(sta: SyncTA, e: Expr, kappa: dict[str, Any], params: dict[str, Any]) -> Any:
    """A property's state formula over one configuration: a location ℓ of the receive automaton
    counts the processes holding ℓ that have not crashed (ℓ and its crashing twin); a crash
    location the crashed processes that kept its state (``SyncTA.counted``)."""
    table: dict[str, Any] = dict(params)
    for name, counted in sta.counted.items():
        table[name] = z3.Sum([kappa[x] for x in counted])
    return to_z3(e, lookup(table))


def initial(sta: SyncTA, kappa: dict[str, Any]) -> Any:
    return z3.And(*[kappa[l] == 0 for l in sta.locations if l not in sta.initial])
