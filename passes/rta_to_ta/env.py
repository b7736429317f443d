"""The environment assumption Env per fault model and timing, in one place (docs/faults.md
states it for users; docs/formats.md shows `tactl translate` at work).

Env links what a correct process may have *received* (``received(M)``) to what was *sent*
(shared variables of the TA). Each choice below is a design decision of tactl; the tests in
tests/translation/test_translate.py pin every one of them.

| model                 | processes modelled | TA adds                                          | async Env (per M)        | sync adds             |
|-----------------------|--------------------|--------------------------------------------------|--------------------------|-----------------------|
| byzantine(f)          | n - f              | —                                                | rcv <= ns_M + f          | ns_M <= rcv           |
| crash(f)              | n                  | CR, ncrashed, nsf_M (crashed mid-send)           | rcv <= ns_M + nsf_M      | ns_M <= rcv           |
| omission(f)           | n                  | —                                                | rcv <= ns_M              | (refused, see below)  |
| symmetric(fp, fs)     | n - fp             | parameters fs_M (several types), RC 0 <= fs <= fp | rcv <= ns_M + fs_M       | ns_M + fs_M <= rcv    |
| symmetric(fp)         | n - fp             | as above and a fresh parameter fs (0 <= fs <= fp) | rcv <= ns_M + fs_M      | ns_M + fs_M <= rcv    |
| clean_crash(fc, fnc)  | n                  | CR, ncrashed, nunsent; RC 0 <= fnc <= fc         | rcv <= ns_M              | ns_M <= rcv           |
| clean_crash(f)        | n                  | CR, ncrashed (crash between steps only)          | rcv <= ns_M              | ns_M <= rcv           |
| hybrid(b, c)          | n - b              | CR, ncrashed, nsf_M for the c crashes            | rcv <= ns_M + nsf_M + b  | ns_M <= rcv           |
| bound(P; B; D)        | P                  | —                                                | rcv <= max(0, ns_M + B)  | (refused)             |

For a message type of a kind of two or more types (byzantine, hybrid) the ``+ f``
(``+ b``) is replaced by a per-type auxiliary variable, see **Kinds**:

| kind K of types M1..Mk | async Env                                                              |
|------------------------|------------------------------------------------------------------------|
| byzantine              | rcv_M <= ns_M + faulty(M),         faulty(M) >= 0,  Σ_K faulty(M) <= f |
| hybrid(b, c)           | rcv_M <= ns_M + nsf_M + faulty(M), faulty(M) >= 0,  Σ_K faulty(M) <= b |

Always ``0 <= rcv``. The first declared parameter is the number of processes n.

**Guaranteed delivery** (async only; the fairness of ``passes/rta_to_ta/fairness.py``): the
number of ``M`` messages every correct receiver eventually has, stated over the TA's variables —
the messages of senders that are correct, i.e. that did not stop mid-send and cannot omit:

| model        | guaranteed(M) | why (what the TA's counters count)                                    |
|--------------|---------------|-----------------------------------------------------------------------|
| byzantine(f) | ns_M          | ns_M counts correct senders only (the f Byzantine are not modelled)   |
| symmetric    | ns_M + fs_M   | the fp faulty are not modelled; the fs_M that send, send to everyone  |
| crash(f)     | ns_M          | ns_M counts complete sends; nsf_M (crashed mid-send) may be lost      |
| clean_crash  | ns_M          | a process crashes between steps: every send it made is complete; a lost broadcast is one it never made (fnc) |
| hybrid(b, c) | ns_M          | the b Byzantine are not modelled; nsf_M (c crashing mid-send) may be lost |
| omission(f)  | ns_M - f      | ns_M counts all n senders; up to f of them are faulty and may omit    |
| bound(P; B; D) | ns_M + D    | as the model says (below, **Bound**)                                  |

Crash models take "complete" literally: a message a process sent before it crashed is in the
channel and is delivered (reliable links); only a broadcast cut short by the crash reaches some
receivers only, which is what ``nsf_M`` counts. ``ns_M - f`` may be negative (fewer than f
senders): a receiver is then guaranteed nothing — ``max(0, ns_M - f)`` messages, which is how
``passes/rta_to_ta/fairness.py`` evaluates a guard at the guaranteed delivery (a guard true at 0, such as
``received(M) >= n - t`` where n may equal t, is then guaranteed enabled).

Choices:

* **Kinds.** For a kind (``kind P: P0D, P1D, Pq;``) a Byzantine (or symmetric, hybrid) sender
  sends at most one message of the kind to a receiver. ``faulty(M)`` is the number of faulty
  senders a receiver counts for M: ``rcv_M <= ns_M + faulty(M)`` and ``Σ_{M in K} faulty(M) <= f``.
  This *is* the semantics (equivalently ``Σ_M max(0, rcv_M - ns_M) <= f``), stated with 3k + 1
  constraints. Eliminating the ``faulty(M)`` alone gives one bound
  ``Σ_{M in S} rcv_M <= Σ_{M in S} ns_M + f`` per subset S of the kind (the bound of the whole
  kind alone would let one faulty sender count for two types of a three-type kind) — 2^k bounds,
  which is what tactl put into Env before: a kind of 5 types then took minutes and gigabytes.
  Instead the ``faulty(M)`` stay existential variables of Env
  (``Environment.auxiliary``) and the translate pass eliminates them per guard together with
  the receive counters (``passes/rta_to_ta/qe.py``, receive counters first), so only the combinations the
  guard needs appear: for a guard over the sum of the kind, the whole-kind bound; for
  ``rcv_B >= 1 && rcv_C >= 1``, the bounds of {B}, {C} and {B, C}.
  *Why this is exact.* ``∃rcv ∃faulty. (φ ∧ Env)`` is the formula ``∃rcv. (φ ∧ ∃faulty. Env)``,
  and ``∃faulty. Env`` is the all-subsets Env, so the guard to compute is the same as before;
  only the order of Fourier–Motzkin steps differs. Each step is exact over the integers when the
  Omega test's condition holds, which the pass checks step by step as before: it holds for the
  usual guards (kind sums, thresholds with coefficient 1), since ``faulty(M)`` enters the
  receive bounds with coefficient 1 and the kind sum bounds it with coefficient 1; where it
  fails the result says ``exact=False`` and the precision certificate decides, as it did with
  the subset Env. The certificates (``passes/rta_to_ta/certify.py``) quantify the ``faulty(M)`` together
  with the receive counters, so every guard is checked against this exact Env, never a reduced
  one; tests/translation/test_translate.py also proves ``∃faulty. Env`` equal to the subset bounds and to the
  max form, and compares the guards with those of the all-subsets Env (kinds of 3 and 4 types).
  A guard that genuinely needs a bound for (nearly) every subset of a large kind — e.g.
  ``rcv_M >= 1`` for each of 10 types, 2^10 - 1 irredundant bounds — has no usable linear form:
  beyond ``PROJECTION_LIMIT`` atoms (``passes/rta_to_ta/eliminate.py``) the pass refuses it with an input
  error instead of exhausting memory.
* **No sender bound.** ``rcv_M <= n`` is not added: with ``ns_M <= N`` it follows for every
  reachable configuration, and adding it would only put unreachable cases into guards.
* **Symmetric** (ByMC's fmcad13 ``bcast-symm.pml``: ``nrcvd <= nsnt + Fs``, fairness
  ``in_transit = some(nrcvd < nsnt + Fs)``, ``T >= Fp >= Fs >= 0``). The fp faulty processes are
  not modelled (N = n - fp); fs of them send, and a symmetric-faulty process sends the same to
  everyone: its message is delivered to every correct receiver, so guaranteed(M) = ns_M + fs_M.
  ``symmetric(fp, fs)`` names fs; ``symmetric(fp)`` adds a fresh parameter ``fs`` (``fs1``, … if
  the automaton has that name) with ``0 <= fs <= fp``. With one message type fs_M *is* fs.
  With several, the translation adds a parameter ``fs_M`` (``<fs>_<M>``) per type: how many
  symmetric-faulty processes send M — parameters, i.e. fixed for the run and the same for every
  receiver — with ``fs_M >= 0`` and, per kind (a type outside a kind is a kind of its own; a
  faulty process sends one message of a kind), ``Σ_K fs_M <= fs``. Sync: every receiver gets
  exactly ``ns_M + fs_M``.
* **Clean crash** (ByMC's ``bcast-clean.pml``: ``Tc >= Fc >= Fnc >= 0``, Fnc clean crashes "not
  sending", ``nrcvd <= nsnt - Fnc``). A clean crash falls between steps: the last step of a
  crashing process sent to all, or — crashing before it — to none. tactl models exactly that:
  ``clean_crash(fc, fnc)`` lets at most fc processes crash and at most fnc of them crash at a
  location with a pending broadcast (a location some sending rule leaves), counted in the
  shared ``nunsent``; every message sent is delivered, so guaranteed(M) = ns_M and Env is
  ``rcv <= ns_M`` (sync ``rcv == ns_M``). ByMC keeps the Fnc processes running and subtracts
  their broadcasts from every receiver; here they are in CR, which is the same for the others.
  ``clean_crash(f)`` means fnc = f (any crash may fall before a broadcast: today's model); as
  fnc = fc is the largest case, the second count changes a verdict only for a property or
  ``--param`` that fixes fnc.
* **Bound** (``faults bound(processes: P; receive: B; deliver: D);``, P, B, D linear in the
  parameters): the fault model "as the bound says", for ByMC's Promela files whose fault
  assumptions no named model states — hybrids of Byzantine, symmetric, omission and clean-crash
  faults (``bcast-hyb.pml``: ``active[N - Fa - Fsp]``, bound ``nsnt + Fa + Fss``, in_transit
  ``nsnt - Fo - Fnc + Fss``), and ByMC's clean crashes, whose crashed processes keep running
  (``bcast-clean.pml``, bound ``nsnt - Fnc``). P processes run the algorithm; every receiver's
  count of each type M obeys ``0 <= rcv <= ns_M + B`` — and where B may be negative, ByMC drops
  a receive past the bound, so the count stays at what it has (at least 0):
  ``rcv <= max(0, ns_M + B)``, the disjunction ``rcv <= ns_M + B || rcv <= 0`` (the translate
  pass eliminates the receive counters per disjunct). B >= 0 is recognised from its
  coefficients (parameters are natural numbers), else the disjunction is used. The justice
  guarantees ``ns_M + D`` (``D <= B``, checked by ir/rta/validate.py: otherwise no run would be
  fair and liveness would hold vacuously). Each type has its bound of its own (no kinds
  coupling, as a Promela file states one bound per counter); sync is refused (no lock-step
  meaning given). ``passes/pml_to_rta/faults.py`` says which Promela files become which model and
  which of the file's delivery guarantees are accepted.
* **Coordinator, async** (``coordinator K0, K1;`` with ``timing async``, byzantine only): one
  round's coordinator. A coordinator type K gets ``rcv_K <= ns_K + cf`` in place of ``+ f`` and
  ``Σ_K rcv_K <= 1``, with the parameter ``cf`` (the coordinator is faulty, ``cf <= f``), the
  initial constraint ``Σ κ[coordinator locations] == 1 - cf`` and guaranteed(K) = ns_K
  (``passes/rta_to_ta/coordinator.py`` has the encoding and why it is exact).
* **Omission, sync** needs correct and faulty senders counted apart (``ns_correct_M <= rcv``);
  tactl refuses it with a message rather than assume something unsound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tactl.ir.expr import Compare, Expr, IntConst, Mul, Name, Or, summation
from tactl.ir.linear import linearize
from tactl.ir.rta.model import CRASH_COUNTER, CRASH_LOCATION, CRASH_MODELS, FaultModel, ReceiveTA, Timing, received
from tactl.ir.rta.coordinator import is_async_coordinator
from tactl.passes.rta_to_ta.coordinator import FAULTY_COORDINATOR, encoding

PARTIAL_SEND_MODELS = (FaultModel.CRASH, FaultModel.HYBRID)
# models whose unmodelled faulty senders a receiver counts per receiver (`+ f`, `faulty(M)`)
BYZANTINE_LIKE = (FaultModel.BYZANTINE, FaultModel.HYBRID)
# models whose first fault parameter counts processes that are not modelled (N = n - f)
UNMODELLED_FAULTY = (FaultModel.BYZANTINE, FaultModel.SYMMETRIC, FaultModel.HYBRID)


class UnsupportedEnvironment(ValueError):
    pass


def sent(message: str) -> str:
    """Shared variable: how many modelled processes have sent ``message``."""
    return f"ns_{message}"


def sent_by_crashing(message: str) -> str:
    """Shared variable: processes that crashed while sending ``message`` (reaching some)."""
    return f"nsf_{message}"


def faulty(message: str) -> Name:
    """Env's auxiliary variable: the faulty senders a receiver counts for ``message`` (kinds).

    Spelled like ``received(M)``, so it can never clash with an identifier of the automaton.
    """
    return Name(f"faulty({message})")


_FAULTY = re.compile(r"^faulty\((\w+)\)$")


def auxiliary_message(name: str) -> str | None:
    """``M`` for the name ``faulty(M)``, else None."""
    match = _FAULTY.match(name)
    return match.group(1) if match else None


CRASHED = CRASH_COUNTER
UNSENT = "nunsent"  # clean_crash(fc, fnc): crashes that lost a pending broadcast (at most fnc)


@dataclass(frozen=True)
class Environment:
    processes: Expr  # N(p): how many processes the TA models
    crash_bound: str | None  # the parameter bounding crashes (crash models), else None
    partial_sends: bool  # crashing processes may have sent to some receivers only
    constraints: tuple[Expr, ...]  # Env over received(M), auxiliary, shared variables, parameters
    # existential variables of Env (faulty(M) of kinds): Env means ∃auxiliary. ∧ constraints
    auxiliary: tuple[str, ...] = ()
    # (M, guaranteed(M)) per message type, async only (see the table above); () for sync
    guaranteed: tuple[tuple[str, Expr], ...] = ()
    # parameters the fault model adds to the TA (symmetric: fs, fs_M; see the table) and their
    # constraints, which join the resilience condition
    parameters: tuple[str, ...] = ()
    assumptions: tuple[Expr, ...] = ()
    # clean_crash(fc, fnc): fnc, the bound of crashes that lose a pending broadcast (counted in
    # nunsent); None for every other model
    unsent_bound: str | None = None
    # initial constraints the model adds (an asynchronous coordinator: Σ κ[C] == 1 - cf) and
    # facts true in every reachable configuration that certificates may assume (Σ ns_K <= 1 - cf);
    # passes/rta_to_ta/coordinator.py
    inits: tuple[Expr, ...] = ()
    invariants: tuple[Expr, ...] = ()
    coordinator_faulty: str | None = None  # cf of an asynchronous coordinator

    def guaranteed_count(self, message: str) -> Expr | None:
        """How many ``message``s every correct receiver eventually has (None: no fairness)."""
        return next((g for m, g in self.guaranteed if m == message), None)

    def shared(self, messages: tuple[str, ...]) -> tuple[str, ...]:
        names = [sent(m) for m in messages]
        if self.partial_sends:
            names += [sent_by_crashing(m) for m in messages]
        if self.crash_bound:
            names.append(CRASHED)
        if self.unsent_bound:
            names.append(UNSENT)
        return tuple(names)


def environment(rta: ReceiveTA) -> Environment:
    model, timing = rta.faults.model, rta.timing
    if model is FaultModel.BOUND:
        return bound_environment(rta)
    params = rta.faults.parameters
    if model is FaultModel.OMISSION and timing is Timing.SYNC:
        raise UnsupportedEnvironment(
            "synchronous send omission needs correct and faulty senders counted apart "
            "(ns_correct(M) <= received(M)); tactl does not model that yet")
    byzantine = params[0] if model in BYZANTINE_LIKE else None
    crash = (params[1] if model is FaultModel.HYBRID else params[0]) if model in CRASH_MODELS else None
    n = rta.parameters[0]  # by convention the first parameter is the number of processes
    unmodelled = params[0] if model in UNMODELLED_FAULTY else None
    processes: Expr = Name(n) if unmodelled is None else summation(Name(n), [("-", Name(unmodelled))])
    partial = model in PARTIAL_SEND_MODELS
    added, assumed, symmetric = fault_parameters(rta)
    coordinator = None
    if is_async_coordinator(rta):  # one round's coordinator (passes/rta_to_ta/coordinator.py)
        if model is not FaultModel.BYZANTINE:
            raise UnsupportedEnvironment("an asynchronous coordinator is modelled under byzantine "
                                         f"faults only, not {model.value}")
        coordinator = encoding(rta, fresh_name(rta, FAULTY_COORDINATOR, set(added)), sent)
        added, assumed = (*added, coordinator.parameter), (*assumed, *coordinator.assumptions)
    unsent = params[1] if model is FaultModel.CLEAN_CRASH and len(params) == 2 else None
    # message types whose faulty senders are shared with other types of their kind
    kinds = [members for members in rta.kinds().values() if len(members) >= 2] if byzantine else []
    in_kind = {m for members in kinds for m in members}
    out: list[Expr] = []
    for msg in rta.messages:
        rcv = received(msg.name)
        upper: list[tuple[str, Expr]] = []
        if partial:
            upper.append(("+", Name(sent_by_crashing(msg.name))))
        if coordinator is not None and msg.name in coordinator.messages:
            upper.append(("+", coordinator.bound()))
        elif msg.name in in_kind:
            upper.append(("+", faulty(msg.name)))
        elif byzantine is not None:
            upper.append(("+", Name(byzantine)))
        if msg.name in symmetric:
            upper.append(("+", symmetric[msg.name]))
        bound = summation(Name(sent(msg.name)), upper) if upper else Name(sent(msg.name))
        out.append(Compare(">=", rcv, IntConst(0)))
        out.append(Compare("<=", rcv, bound))
        if timing is Timing.SYNC:
            if msg.name in symmetric:  # every receiver gets the same: all of them
                out.append(Compare("<=", bound, rcv))
            else:
                out.append(Compare("<=", Name(sent(msg.name)), rcv))
    if coordinator is not None:
        out += coordinator.constraints
    auxiliary: list[str] = []
    for members in kinds:
        out += [Compare(">=", faulty(m), IntConst(0)) for m in members]
        out.append(Compare("<=", summation(faulty(members[0]), [("+", faulty(m)) for m in members[1:]]),
                           Name(byzantine)))
        auxiliary += [faulty(m).name for m in members]
    guaranteed = () if timing is Timing.SYNC else tuple(
        (m.name, guaranteed_delivery(model, m.name, params, symmetric.get(m.name)))
        for m in rta.messages)
    return Environment(processes, crash, partial, tuple(out), tuple(auxiliary), guaranteed,
                       tuple(added), tuple(assumed), unsent,
                       *((coordinator.inits, coordinator.invariants, coordinator.parameter)
                         if coordinator else ()))


def may_be_negative(term: Expr) -> bool:
    """True unless every coefficient and the constant of the linear ``term`` are >= 0 (then it
    is >= 0 for all natural parameters)."""
    lin = linearize(term)
    return lin.const < 0 or any(c < 0 for _, c in lin.coeffs)


def offset(base: str, term: Expr) -> Expr:
    """``base ± …`` with the linear ``term``'s summands (``ns_M + Fa + Fss``, ``ns_M - Fnc``)."""
    lin = linearize(term)
    rest: list[tuple[str, Expr]] = [("+" if a > 0 else "-", Name(x) if abs(a) == 1 else Mul(IntConst(abs(a)), Name(x)))
                                    for x, a in lin.coeffs]
    if lin.const:
        rest.append(("+" if lin.const > 0 else "-", IntConst(abs(lin.const))))
    return summation(Name(base), rest)


def bound_environment(rta: ReceiveTA) -> Environment:
    """Env of ``bound(P; B; D)`` (module docstring, **Bound**)."""
    if rta.timing is Timing.SYNC:
        raise UnsupportedEnvironment("the fault model 'bound' is asynchronous: a lock-step round "
                                     "needs to know which senders every receiver hears")
    processes, extra, delivered = rta.faults.terms
    out: list[Expr] = []
    guaranteed = []
    for msg in rta.messages:
        rcv = received(msg.name)
        bound = offset(sent(msg.name), extra)
        out.append(Compare(">=", rcv, IntConst(0)))
        upper = Compare("<=", rcv, bound)
        out.append(Or((upper, Compare("<=", rcv, IntConst(0)))) if may_be_negative(extra) else upper)
        guaranteed.append((msg.name, offset(sent(msg.name), delivered)))
    return Environment(processes, None, False, tuple(out), guaranteed=tuple(guaranteed))


def fresh_name(rta: ReceiveTA, base: str, taken: set[str] = frozenset()) -> str:
    """``base``, or ``base1``, ``base2`` … : a name no parameter, location, message or kind of
    ``rta`` (nor ``taken``, nor the built-in CR, ncrashed, fair) has."""
    used = {*rta.parameters, *(loc.name for loc in rta.locations), *(m.name for m in rta.messages),
            *rta.kinds(), CRASH_LOCATION, CRASHED, "fair", *taken}
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}{k}"
    return name


def fault_parameters(rta: ReceiveTA) -> tuple[tuple[str, ...], tuple[Expr, ...], dict[str, Expr]]:
    """The parameters the fault model adds, their constraints, and for ``symmetric`` the count of
    symmetric-faulty senders of each message type (module docstring, **Symmetric**)."""
    model, params = rta.faults.model, rta.faults.parameters
    zero = IntConst(0)
    if model is FaultModel.CLEAN_CRASH and len(params) == 2:
        fc, fnc = params
        return (), (Compare(">=", Name(fnc), zero), Compare("<=", Name(fnc), Name(fc))), {}
    if model is not FaultModel.SYMMETRIC:
        return (), (), {}
    fp = params[0]
    added: list[str] = []
    assumed: list[Expr] = []
    if len(params) == 2:
        fs = params[1]
    else:
        fs = fresh_name(rta, "fs")
        added.append(fs)
    assumed += [Compare(">=", Name(fs), zero), Compare("<=", Name(fs), Name(fp))]
    if len(rta.messages) == 1:
        return tuple(added), tuple(assumed), {rta.messages[0].name: Name(fs)}
    counts: dict[str, Expr] = {}
    groups: dict[str, list[str]] = {}  # in the order of the messages; no kind: a kind of its own
    for m in rta.messages:
        groups.setdefault(m.kind if m.kind is not None else " " + m.name, []).append(m.name)
    for members in groups.values():
        names = []
        for m in members:
            name = fresh_name(rta, f"{fs}_{m}", set(added))
            added.append(name)
            names.append(Name(name))
            counts[m] = Name(name)
            assumed.append(Compare(">=", Name(name), zero))
        assumed.append(Compare("<=", summation(names[0], [("+", x) for x in names[1:]]), Name(fs)))
    return tuple(added), tuple(assumed), counts


def delivery_extra(rta: ReceiveTA) -> dict[str, Expr]:
    """Per message type, how far a guaranteed delivery may exceed ``ns_M`` and still be made of
    messages the model lets arrive: ``fs_M`` (symmetric), the bound's B (``bound``), else
    nothing (passes/rta_to_ta/certify.py's admissibility)."""
    if rta.faults.model is FaultModel.BOUND:
        return {m.name: rta.faults.terms[1] for m in rta.messages}
    return fault_parameters(rta)[2]


def guaranteed_delivery(model: FaultModel, message: str, fault_parameters: tuple[str, ...],
                        symmetric: Expr | None = None) -> Expr:
    """guaranteed(M) of the table in the module docstring: ``ns_M``; ``ns_M - f`` for omission
    (the only model whose send counter also counts faulty senders that may omit); ``ns_M + fs_M``
    for symmetric (its faulty senders' messages reach every receiver)."""
    if model is FaultModel.OMISSION:
        return summation(Name(sent(message)), [("-", Name(fault_parameters[0]))])
    if symmetric is not None:
        return summation(Name(sent(message)), [("+", symmetric)])
    return Name(sent(message))
