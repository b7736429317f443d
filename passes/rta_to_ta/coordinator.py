"""Coordinator messages in asynchronous rounds: what the translate pass adds to the TA.

``coordinator K0, K1;`` in a ``timing async`` receive automaton (byzantine(f) faults) models one
round's coordinator — the proposer of a Tendermint round: exactly one process is the coordinator;
if it is correct it is one of the n - f modelled processes and sends its coordinator message as
its rules say; if it is faulty (possible only when f >= 1) it may send any coordinator message
to any receiver (equivocate), at most one per receiver; no other process sends one. The shape
the automaton must have (coordinator locations initial, never re-entered, left only by sending
exactly one coordinator message) is checked by ``ir/rta/coordinator.py``.

**Encoding** (all of it linear, in the TA itself, so every engine that reads a TA — parametric,
explicit, the replaying simulator, SMT-LIB, nuXmv — runs it unchanged):

* a parameter ``cf`` ("the coordinator is faulty"; ``cf1``, … if the automaton has the name) with
  ``0 <= cf``, ``cf <= 1``, ``cf <= f`` joining the resilience condition — fixed for the run, as
  is who the coordinator is;
* the initial constraint ``Σ κ[C] == 1 - cf`` over the coordinator locations C: a correct
  coordinator starts in one of them, a faulty one is not modelled (it is one of the f);
* Env per coordinator message K: ``0 <= received(K) <= ns_K + cf`` (in place of the byzantine
  ``+ f``: only the coordinator sends K) and ``Σ_K received(K) <= 1`` (one coordinator message
  per receiver in all, from a correct or a faulty coordinator);
* guaranteed delivery ``ns_K`` (passes/rta_to_ta/fairness.py): a correct coordinator's message reaches
  every correct receiver; a faulty coordinator guarantees nothing.

**Why exact.** By the shape rules, ``Σ κ[C] + Σ_K ns_K`` is constant along every run (a rule
leaving C sends exactly one K, nothing enters C, nothing else sends K), so the invariant
``Σ_K ns_K <= 1 - cf`` holds. If cf = 0, every receiver's K count is bounded by what the one
correct coordinator sent (at most one message), which is the real constraint; if cf = 1, no
correct process sends K and Env allows every receiver any one coordinator message or none,
independently of the others, which is exactly an equivocating coordinator. The per-receiver
choice is made per step, like every receive count of the counter abstraction
(``passes/rta_to_ta/env.py``). Certificates (passes/rta_to_ta/certify.py) may assume the
invariant (:attr:`Encoding.invariants`): a guard only has to be sound and precise in reachable
configurations, and the justice's admissibility needs it (receiving ``ns_K0`` and ``ns_K1`` at
once is a delivery only because at most one of them is 1).

**Why not cheaper.** Counting the coordinator by a shared "already sent" flag on the sending
rule (the first correct process to send becomes the coordinator) would let a run have no
correct coordinator although cf = 0 and block the others in the same location; an initial
constraint states the hypothesis exactly and costs nothing at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.expr import Compare, Expr, Implies, IntConst, Name, summation
from tactl.ir.rta.model import ReceiveTA, received
from tactl.ir.rta.coordinator import coordinator_locations
from tactl.ir.alg.hypothesis import CORRECT_COORDINATOR
from tactl.ir.ta.model import Property

FAULTY_COORDINATOR = "cf"  # the parameter's name unless the automaton has it


@dataclass(frozen=True)
class Encoding:
    parameter: str  # cf: 1 iff the coordinator is faulty
    messages: tuple[str, ...]  # coordinator message types
    locations: tuple[str, ...]  # coordinator locations (ir/rta/coordinator.py)
    assumptions: tuple[Expr, ...]  # 0 <= cf, cf <= 1, cf <= f
    constraints: tuple[Expr, ...]  # Env beyond the per-type bounds: Σ_K received(K) <= 1
    inits: tuple[Expr, ...]  # Σ κ[C] == 1 - cf
    invariants: tuple[Expr, ...]  # Σ_K ns_K <= 1 - cf (every reachable configuration)

    def bound(self) -> Name:
        """What a receiver may count beyond the correct coordinator's messages: ``cf``."""
        return Name(self.parameter)


def assuming_correct(prop: Property, parameter: str | None) -> Expr:
    """The formula of ``prop``, behind the premise ``cf == 0`` if it says ``assuming correct
    coordinator`` and the automaton has an asynchronous coordinator (``parameter`` is its cf);
    the lock-step engine reads the hypothesis itself, so a synchronous formula is unchanged."""
    h = prop.hypothesis
    if parameter is None or h is None or h.kind != CORRECT_COORDINATOR:
        return prop.formula
    return Implies(Compare("==", Name(parameter), IntConst(0)), prop.formula)


def _sum(terms: list[Expr]) -> Expr:
    return summation(terms[0], [("+", x) for x in terms[1:]]) if terms else IntConst(0)


def encoding(rta: ReceiveTA, parameter: str, sent) -> Encoding:
    """The encoding of the module docstring; ``parameter`` is the fresh name for cf, ``sent``
    maps a message type to its send counter's name (passes/rta_to_ta/env.py)."""
    cf = Name(parameter)
    f = Name(rta.faults.parameters[0])
    zero, one = IntConst(0), IntConst(1)
    messages = tuple(rta.coordinator)
    locations = coordinator_locations(rta)
    rest = summation(one, [("-", cf)])
    return Encoding(
        parameter, messages, locations,
        assumptions=(Compare(">=", cf, zero), Compare("<=", cf, one), Compare("<=", cf, f)),
        constraints=(Compare("<=", _sum([received(m) for m in messages]), one),),
        inits=(Compare("==", _sum([Name(loc) for loc in locations]), rest),),
        invariants=(Compare("<=", _sum([Name(sent(m)) for m in messages]), rest),))
