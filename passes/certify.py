"""Certificates for the translate pass: z3 checks every produced guard (domain.md §4).

* sound:   ``RC ∧ Env ∧ φ ⇒ φ̂`` — every receive step the RTA allows, the TA allows;
* precise: ``RC ∧ φ̂ ⇒ ∃received. (φ ∧ Env)`` — the TA allows nothing the RTA could not.

Parameters, send counters and receive counters are natural numbers in both. Env is the exact
one of ``passes/env.py``: its auxiliary variables (``faulty(M)`` of kinds) are quantified with
the receive counters (∃ in both: ``∀received ∀faulty`` in (a) is ``∀received. (∃faulty. Env) ⇒ …``),
so a guard is certified against the full semantics of kinds, not against the bounds the
translation happened to need. ``None`` means z3 gave no answer (reported, never counted as a pass).
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl import deadline
from tactl.ir.expr import disj
from tactl.ir.rta import ReceiveTA, received
from tactl.passes.eliminate import Translation


@dataclass(frozen=True)
class Certificate:
    rule_id: int
    sound: bool | None
    precise: bool | None

    @property
    def ok(self) -> bool:
        return bool(self.sound and self.precise)


def certify(rta: ReceiveTA, translation: Translation, timeout_s: float = 30.0) -> list[Certificate]:
    import z3

    from tactl.ir.linear import int_symbols, to_z3

    sym = int_symbols()
    shared = translation.ta.shared
    base = [to_z3(a, sym) for a in rta.assumptions]
    base += [sym(x) >= 0 for x in (*rta.parameters, *shared)]
    env = [to_z3(e, sym) for e in translation.environment.constraints]
    all_received = [sym(received(m.name).name) for m in rta.messages]
    all_received += [sym(x) for x in translation.environment.auxiliary]

    def valid(claim) -> bool | None:
        solver = z3.Solver()
        solver.set("timeout", deadline.solver_timeout_ms(timeout_s))  # and the command's --timeout
        solver.add(*base)
        solver.add(z3.Not(claim))
        answer = solver.check()
        return True if answer == z3.unsat else False if answer == z3.sat else None

    out = []
    for g in translation.guards:
        phi = to_z3(g.receive_guard, sym)
        phi_hat = to_z3(disj(*g.send_guards), sym)
        receive_nonneg = [r >= 0 for r in all_received]
        sound = valid(z3.ForAll(all_received, z3.Implies(z3.And(*env, *receive_nonneg, phi), phi_hat)))
        precise = valid(z3.Implies(phi_hat, z3.Exists(all_received, z3.And(*env, phi))))
        out.append(Certificate(g.rule_id, sound, precise))
    return out

