"""Guard completeness of a synchronous automaton (the deadlock pitfall of lock-step rounds): a
populated location where, for some receive values, no rule is enabled would silently drop the
processes there, and every verdict of tactl/engines/lockstep.py would be unsound.
"""

from __future__ import annotations

import z3

from tactl.engines.lockstep_certificate import obligation
from tactl.engines.lockstep_encoding import environment, invariants, lookup, parameters, rc, solver, undecided
from tactl.engines.result import Obligation
from tactl.ir.linear import to_z3
from tactl.ir.rta.model import received
from tactl.passes.rta_to_sync.sync_ta import SyncTA, received_types


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


def check_complete(sta: SyncTA) -> list[Obligation]:
    """Every populated correct location has an enabled rule for every receive values Env allows
    (a round in which some process has no rule would silently drop it: the deadlock pitfall);
    raises :class:`IncompleteGuards` with a witness, or :class:`GuardsUndecided` when z3 does not
    decide it (never a pass). Returns the questions z3 answered ``unsat``, one per location."""
    params = parameters(sta)
    kappa = {l: z3.Int(f"c_{l}") for l in sta.locations}
    asked = []
    for loc in sta.correct:
        rules = [r for r in sta.rules if r.source == loc and r.target in sta.correct]
        rcv = {m: z3.Int(f"c_rcv_{m}") for m in received_types(sta, [r.guard for r in rules])}
        env, _ = environment(sta, kappa, params, rcv)
        symbols = dict(params)
        symbols.update({received(m).name: v for m, v in rcv.items()})
        s = solver()
        s.add(rc(sta, params), invariants(sta, kappa, params), kappa[loc] > 0, env,
              *[z3.Not(to_z3(r.guard, lookup(symbols))) for r in rules])
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
        asked.append(obligation(f"guard completeness of {loc}", s,
                                f"location {loc} populated and no rule enabled; unsat: every process "
                                "there takes a rule in every round"))
    return asked
