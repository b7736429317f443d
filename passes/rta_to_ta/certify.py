"""Certificates for the translate pass: z3 checks every produced guard against the
environment assumption of ``passes/rta_to_ta/env.py``.

* sound:   ``RC ∧ Env ∧ φ ⇒ φ̂`` — every receive step the RTA allows, the TA allows;
* precise: ``RC ∧ φ̂ ⇒ ∃received. (φ ∧ Env)`` — the TA allows nothing the RTA could not.

Parameters, send counters and receive counters are natural numbers in both. Env is the exact
one of ``passes/rta_to_ta/env.py``: its auxiliary variables (``faulty(M)`` of kinds) are quantified with
the receive counters (∃ in both: ``∀received ∀faulty`` in (a) is ``∀received. (∃faulty. Env) ⇒ …``),
so a guard is certified against the full semantics of kinds, not against the bounds the
translation happened to need. ``None`` means z3 gave no answer (reported, never counted as a pass).

**Justice** (``passes/rta_to_ta/fairness.py``). For every fair rule ``r`` leaving ``ℓ``, with receive guard
φ, guaranteed guard (premise) ``π`` as printed, and ``g(M)`` = guaranteed(M) of ``passes/rta_to_ta/env.py``
— all three under ``RC``, counters and parameters natural:

* exact:      ``π ⇔ φ[received(M) := g(M)]`` — the atom's premise is the receive guard evaluated
  at the guaranteed delivery (what the simplified, printed text says is what was derived);
* admissible: ``g(M) <= ns_M + s(M)`` and ``∃faulty. Env[received(M) := max(0, g(M))]`` for the types φ
  reads — a correct receiver is never promised more than modelled processes completely sent, and
  receiving exactly the guaranteed messages (the faulty ones silent, partial sends lost) is a
  behaviour the fault model allows. Promising more (``ns_M + f`` for Byzantine: "the faulty
  senders' messages arrive too") fails here, and would make J exclude real runs. ``s(M)`` is 0
  except for the symmetric model, whose ``fs_M`` faulty senders send the same to every receiver
  and are delivered like correct ones (passes/rta_to_ta/env.py, **Symmetric**);
* justified:  ``π ⇒ ∀received ∀faulty. (Env ∧ ⋀_M received(M) >= g(M)) ⇒ ⋁_{r' fair, from ℓ} φ_{r'}``
  — once every guaranteed message has arrived, whatever else arrived (within Env), a process in
  ``ℓ`` has a fair rule enabled, so it leaves ``ℓ``: the atom ``¬π ∨ κ[ℓ] == 0`` is a consequence
  of the two fairness assumptions, not an extra one. With lower guards only this holds rule by
  rule; with upper guards (``received(M) < k``) it needs the guards leaving ``ℓ`` to cover every
  delivery, which is why the disjunction ranges over ``ℓ``'s fair rules. An atom that is not
  justified would make a liveness verdict unsound.

Together: J holds eventually on every run of the RTA on which correct processes keep stepping and
messages of correct senders arrive (justified, exact), and J never asks for a step the TA cannot
take (admissible: at the guaranteed delivery some fair rule of ``ℓ`` is enabled in the RTA, hence,
by the guard certificates, in the TA).
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.expr import disj
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.rta.model import ReceiveTA, receive_variables, received
from tactl.passes.rta_to_ta.eliminate import Translation
from tactl.passes.rta_to_ta.env import delivery_extra, sent
from tactl.passes.rta_to_ta.fairness import Fairness, guaranteed_guard
from tactl.util import deadline


@dataclass(frozen=True)
class Certificate:
    rule_id: int
    sound: bool | None
    precise: bool | None

    @property
    def ok(self) -> bool:
        return bool(self.sound and self.precise)


@dataclass(frozen=True)
class JusticeCertificate:
    """The three checks of one fair rule's justice atom (see the module docstring)."""

    rule_id: int
    exact: bool | None
    admissible: bool | None
    justified: bool | None

    @property
    def ok(self) -> bool:
        return bool(self.exact and self.admissible and self.justified)

    def failed(self) -> list[str]:
        """The names of the checks that failed (False) or were not decided (None)."""
        return [n for n in ("exact", "admissible", "justified") if getattr(self, n) is not True]


def _validity(rta: ReceiveTA, translation: Translation, timeout_s: float):
    """``valid(claim)``: True/False/None for "RC ∧ parameters, counters natural ⇒ claim"."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    sym = int_symbols()
    # the TA's: the RTA's parameters and RC with those the fault model adds (passes/rta_to_ta/env.py)
    base = [to_z3(a, sym) for a in translation.ta.assumptions]
    base += [sym(x) >= 0 for x in (*translation.ta.parameters, *translation.ta.shared)]
    # invariants of every reachable configuration (an asynchronous coordinator's Σ ns_K <= 1 - cf,
    # passes/rta_to_ta/coordinator.py): a guard need only be sound and precise where a run can be
    base += [to_z3(e, sym) for e in translation.environment.invariants]

    # Rules that share a guard ask the same claim: DBFT's 248 rules ask 357 distinct claims in
    # 1,060 calls. Definite answers are remembered by the claim's z3 id (terms are
    # hash-consed: equal terms have one id; the claim is kept so that its id is not reused);
    # "unknown" is asked again (the deadline may have been the reason).
    answers: dict[int, tuple[object, bool]] = {}

    def valid(claim) -> bool | None:
        key = claim.get_id()
        if key in answers:
            return answers[key][1]
        solver = z3.Solver()
        solver.set("timeout", deadline.solver_timeout_ms(timeout_s))  # and the command's --timeout
        solver.add(*base)
        solver.add(z3.Not(claim))
        answer = solver.check()
        if answer in (z3.sat, z3.unsat):
            answers[key] = (claim, answer == z3.unsat)
        return True if answer == z3.unsat else False if answer == z3.sat else None

    return valid, sym


def _quantified(quantifier, variables: list, body):
    """``quantifier(variables, body)``; z3 refuses an empty list (an automaton without messages)."""
    return quantifier(variables, body) if variables else body


def certify(rta: ReceiveTA, translation: Translation, timeout_s: float = 30.0) -> list[Certificate]:
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    if translation.encoded is not None:  # unknowns: the encoded automaton is what was translated
        rta, translation = translation.encoded
    valid, sym = _validity(rta, translation, timeout_s)
    env = [to_z3(e, sym) for e in translation.environment.constraints]
    all_received = [sym(received(m.name).name) for m in rta.messages]
    all_received += [sym(x) for x in translation.environment.auxiliary]
    out = []
    for g in translation.guards:
        phi = to_z3(g.receive_guard, sym)
        phi_hat = to_z3(disj(*g.send_guards), sym)
        receive_nonneg = [r >= 0 for r in all_received]
        sound = valid(_quantified(z3.ForAll, all_received,
                                  z3.Implies(z3.And(*env, *receive_nonneg, phi), phi_hat)))
        precise = valid(z3.Implies(phi_hat, _quantified(z3.Exists, all_received, z3.And(*env, phi))))
        out.append(Certificate(g.rule_id, sound, precise))
    return out



def certify_justice(rta: ReceiveTA, translation: Translation,
                    timeout_s: float = 30.0) -> list[JusticeCertificate]:
    """exact, admissible, justified for every fair rule of ``translation.justice`` ([] if none)."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    if translation.encoded is not None:  # unknowns: the encoded automaton is what was translated
        rta, translation = translation.encoded
    justice, environment = translation.justice, translation.environment
    if justice is None:
        return []
    valid, sym = _validity(rta, translation, timeout_s)
    receive = {m.name: sym(received(m.name).name) for m in rta.messages}
    auxiliary = [sym(x) for x in environment.auxiliary]
    quantified = [*receive.values(), *auxiliary]
    env = z3.And(*(to_z3(e, sym) for e in environment.constraints), *(r >= 0 for r in receive.values()))
    count = {m: to_z3(g, sym) for m, g in environment.guaranteed}
    symmetric = {m: to_z3(c, sym) for m, c in delivery_extra(rta).items()}
    delivered = z3.And(*(receive[m] >= count[m] for m in receive))
    # justice.rules has one entry per rule that leaves its location, in order (ids may repeat)
    pairs = list(zip((r for r in rta.rules if not r.is_self_loop), justice.rules))
    fair = [rule for rule, rj in pairs if rj.fairness is Fairness.FAIR]
    # each location's fair guards converted once, not again per rule of the location: on
    # Tendermint that repetition was about half of the certification
    leaving_from: dict[str, list] = {}
    for r in fair:
        leaving_from.setdefault(r.source, []).append(to_z3(r.guard, sym))
    out = []
    for rule, rj in pairs:
        if rj.fairness is not Fairness.FAIR:
            continue
        premise = to_z3(rj.premise, sym)
        exact = valid(premise == to_z3(guaranteed_guard(rule.guard, environment), sym))
        read = receive_variables(rule.guard)
        at_guaranteed = [receive[m] == (z3.If(count[m] >= 0, count[m], 0) if m in read else 0)
                         for m in receive]
        admissible = valid(z3.And(*(count[m] <= sym(sent(m)) + symmetric.get(m, 0) for m in read),
                                  _quantified(z3.Exists, quantified, z3.And(*at_guaranteed, env))))
        leaving = z3.Or(*leaving_from.get(rule.source, []))
        justified = valid(z3.Implies(premise, _quantified(z3.ForAll, quantified, z3.Implies(
            z3.And(env, delivered), leaving))))
        out.append(JusticeCertificate(rj.rule_id, exact, admissible, justified))
    return out
