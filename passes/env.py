"""The environment assumption Env per fault model and timing (domain.md §4), in one place.

Env links what a correct process may have *received* (``received(M)``) to what was *sent*
(shared variables of the TA). Each choice below is a design decision of tactl; the tests in
tests/test_env.py pin every one of them.

| model        | processes modelled | TA adds                                  | async Env (per M)               | sync adds            |
|--------------|--------------------|------------------------------------------|---------------------------------|----------------------|
| byzantine(f) | n - f              | —                                        | rcv <= ns_M + f                 | ns_M <= rcv          |
| crash(f)     | n                  | CR, ncrashed, nsf_M (crashed mid-send)   | rcv <= ns_M + nsf_M             | ns_M <= rcv          |
| omission(f)  | n                  | —                                        | rcv <= ns_M                     | (refused, see below) |
| symmetric(f) | n - f              | —                                        | rcv <= ns_M + f                 | ns_M <= rcv          |
| clean_crash  | n                  | CR, ncrashed (crash between steps only)  | rcv <= ns_M                     | ns_M <= rcv          |
| hybrid(b, c) | n - b              | CR, ncrashed, nsf_M for the c crashes    | rcv <= ns_M + nsf_M + b         | ns_M <= rcv          |

Always ``0 <= rcv``. The first declared parameter is the number of processes n. Choices:

* **Kinds.** For a kind (``kind P: P0D, P1D, Pq;``) a Byzantine (or symmetric, hybrid) sender
  sends at most one message of the kind to a receiver. With ``b_M`` the faulty senders a
  receiver counts for M, ``rcv_M <= ns_M + b_M`` and ``Σ b_M <= f``; eliminating the ``b_M``
  gives exactly ``Σ_{M in S} rcv_M <= Σ_{M in S} ns_M + f`` for *every* subset S of the kind
  (Σ max(0, rcv_M - ns_M) <= f), so all subsets of two or more types are added — the bound on
  the whole kind alone would let one faulty sender count for two types of a three-type kind.
* **No sender bound.** ``rcv_M <= n`` is not added: with ``ns_M <= N`` it follows for every
  reachable configuration, and adding it would only put unreachable cases into guards.
* **Symmetric, sync.** Identical Byzantine processes send the same to everyone; per receiver the
  count lies in ``[ns_M, ns_M + f]``, which is what we assume (sound; it forgets that all
  receivers see the same faulty senders).
* **Clean crash, sync.** A process crashes only between steps, so everything it sent reached
  everyone: ``rcv_M == ns_M``.
* **Omission, sync** needs correct and faulty senders counted apart (``ns_correct_M <= rcv``);
  tactl refuses it with a message rather than assume something unsound.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from tactl.ir.expr import Compare, Expr, IntConst, Name, summation
from tactl.ir.rta import CRASH_COUNTER, CRASH_MODELS, FaultModel, ReceiveTA, Timing, received

PARTIAL_SEND_MODELS = (FaultModel.CRASH, FaultModel.HYBRID)
BYZANTINE_LIKE = (FaultModel.BYZANTINE, FaultModel.SYMMETRIC, FaultModel.HYBRID)


class UnsupportedEnvironment(ValueError):
    pass


def sent(message: str) -> str:
    """Shared variable: how many modelled processes have sent ``message``."""
    return f"ns_{message}"


def sent_by_crashing(message: str) -> str:
    """Shared variable: processes that crashed while sending ``message`` (reaching some)."""
    return f"nsf_{message}"


CRASHED = CRASH_COUNTER


@dataclass(frozen=True)
class Environment:
    processes: Expr  # N(p): how many processes the TA models
    crash_bound: str | None  # the parameter bounding crashes (crash models), else None
    partial_sends: bool  # crashing processes may have sent to some receivers only
    constraints: tuple[Expr, ...]  # Env over received(M), shared variables and parameters

    def shared(self, messages: tuple[str, ...]) -> tuple[str, ...]:
        names = [sent(m) for m in messages]
        if self.partial_sends:
            names += [sent_by_crashing(m) for m in messages]
        if self.crash_bound:
            names.append(CRASHED)
        return tuple(names)


def _kind_bound(subset: tuple[str, ...], byzantine: str, partial: bool) -> Expr:
    """``Σ_{M in subset} received(M) <= Σ ns_M (+ nsf_M) + f``."""
    total_rcv = summation(received(subset[0]), [("+", received(m)) for m in subset[1:]])
    total_sent = summation(Name(sent(subset[0])), [
        *(("+", Name(sent(m))) for m in subset[1:]),
        *((("+", Name(sent_by_crashing(m))) for m in subset) if partial else ()),
        ("+", Name(byzantine))])
    return Compare("<=", total_rcv, total_sent)


def environment(rta: ReceiveTA) -> Environment:
    model, timing = rta.faults.model, rta.timing
    params = rta.faults.parameters
    if model is FaultModel.OMISSION and timing is Timing.SYNC:
        raise UnsupportedEnvironment(
            "synchronous send omission needs correct and faulty senders counted apart "
            "(ns_correct(M) <= received(M)); tactl does not model that yet")
    byzantine = params[0] if model in (FaultModel.BYZANTINE, FaultModel.SYMMETRIC, FaultModel.HYBRID) else None
    crash = (params[1] if model is FaultModel.HYBRID else params[0]) if model in CRASH_MODELS else None
    n = rta.parameters[0]  # by convention the first parameter is the number of processes
    processes: Expr = Name(n) if byzantine is None else summation(Name(n), [("-", Name(byzantine))])
    partial = model in PARTIAL_SEND_MODELS
    out: list[Expr] = []
    for msg in rta.messages:
        rcv = received(msg.name)
        upper: list[tuple[str, Expr]] = []
        if partial:
            upper.append(("+", Name(sent_by_crashing(msg.name))))
        if byzantine is not None:
            upper.append(("+", Name(byzantine)))
        out.append(Compare(">=", rcv, IntConst(0)))
        out.append(Compare("<=", rcv, summation(Name(sent(msg.name)), upper) if upper else Name(sent(msg.name))))
        if timing is Timing.SYNC:
            out.append(Compare("<=", Name(sent(msg.name)), rcv))
    if byzantine is not None:
        for members in rta.kinds().values():
            for size in range(2, len(members) + 1):
                for subset in itertools.combinations(members, size):
                    out.append(_kind_bound(subset, byzantine, partial))
    return Environment(processes, crash, partial, tuple(out))
