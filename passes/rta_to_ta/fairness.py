"""The justice (fairness) of an asynchronous receive TA, derived from its fault model.

Asynchronous liveness holds only under two assumptions: **every correct process
keeps taking steps**, and **every message a correct process sent is eventually received** by
every correct process. A user of ``.rta`` does not write them; the translation derives them and
states them the way ByMC's specifications do (docs/faults.md, "Liveness: the justice is derived,
not written"): a *justice* formula

    J  =  ⋀_{r fair}  ( ¬φ_r^fair  ∨  κ[from_r] == 0 )

and every liveness specification ``spec`` becomes ``<>[](J) -> (spec)`` in the TA: "on every run
on which, from some point on, no fair rule whose guard is *guaranteed* true still has processes
in its source, ``spec`` holds".

**The guaranteed guard** ``φ_r^fair`` is the rule's *receive* guard with every ``received(M)``
replaced by the number of ``M`` messages every correct receiver is guaranteed to get eventually,
``guaranteed(M)`` — not the eliminated send guard, which also counts messages of faulty senders
that may never come (STRB's justice reads ``nsnt < T + 1 || loc0 == 0`` while its
guard is ``nsnt >= T + 1 - F``). Parameter conditions in the guard stay as they are. Stated over
the TA's real counters (``passes/rta_to_ta/env.py`` defines them, per fault model):

| model        | guaranteed(M) | so that, e.g., ``received(M) >= t + 1`` gives                  |
|--------------|---------------|----------------------------------------------------------------|
| byzantine(f) | ns_M          | ns_M >= t + 1: ns_M counts only the correct senders              |
| symmetric    | ns_M + fs_M   | ns_M + fs >= t + 1: the fs faulty senders send to everyone        |
| crash(f)     | ns_M          | ns_M >= t + 1: nsf_M (crashed mid-send) may be lost               |
| clean_crash  | ns_M          | ns_M >= t + 1: crashes fall between steps, every send completes  |
| hybrid(b, c) | ns_M          | ns_M >= t + 1: not the b Byzantine, not nsf_M of the c crashes    |
| omission(f)  | ns_M - f      | ns_M >= t + 1 + f: ns_M counts all n senders, f of them may omit  |

This is the tutorial's justice set ``{∀i. rcvd_i ≥ nsnt}`` for Byzantine faults (``nsnt + Fs``
for symmetric ones, ByMC's bcast-symm),
``rcvd_i + f ≥ nsnt`` for omission, and "exactly the ``ns`` part" for crashes.

**Which rules are fair** (ByMC's justice ranges over the rules that *leave* a location):

* a self-loop never is (it does not leave its location, and ByMC's justice ranges over leaving
  rules);
* a rule whose guard reads a receive variable always is: a correct process that has received
  enough reacts ("upon receiving …") — delivery plus steps force it out;
* a rule that reads no message ("spontaneous": ``V1 -> SE send ECHO``) is fair — the process keeps
  taking steps, so its atom is ``κ[from] == 0`` (or ``¬φ ∨ κ[from] == 0`` for a parameter
  condition φ) — *unless* its source has a self-loop rule in the ``.rta``: a self-loop says that
  a process may stay there ("waiting", "finished"), so a spontaneous exit of it is
  an optional event (NBAC's failure detector ``SE -> SEFD`` may never suspect) and gets no atom.

**Coin and oracle marks** (``.rta``: ``… coin;``, ``… oracle;``; ``.alg``: ``x := coin``,
``x := oracle``; docs/alg.md, "Coin and oracle") override the two cases above:

* a rule marked ``oracle`` is an outcome of a nondeterministic choice with no fairness (a failure
  detector that suspects): OPTIONAL, never forced, whatever its guard. ``.alg`` marks the rules
  on which an oracle gave a value *other than* the variable's current one; the outcome that keeps
  the value is an ordinary rule — the run on which the oracle never changes is always possible;
* a rule marked ``coin`` is an outcome of a coin toss: FAIR even when it reads no message and its
  source has a self-loop. Probability-1 argument: a process that stays at the toss's location
  while the toss is guaranteed possible tosses again at each of its (infinitely many) steps; each
  toss takes a given outcome with probability >= 1/2, independently of the scheduler, so the
  runs on which an outcome that leaves is never taken have probability 0 (every outcome of a
  toss that is repeatedly possible eventually happens). The justice ``¬φ ∨ κ[from] == 0`` says
  exactly that the location is eventually left; a justice formula (a state predicate) cannot
  say *which* outcome, and need not: the verdicts are "with probability 1".

Per location the atoms combine to "if some fair exit is guaranteed enabled, the location
eventually empties for good". An atom whose location already has the atom ``κ[from] == 0`` is
implied by it and left out of J (STRB's ``V1 -> AC``), so J is ByMC's shape for STRB:
``V1 == 0 && (ns_ECHO < t + 1 || V0 == 0) && (ns_ECHO < n - t || V0 == 0) && (ns_ECHO < n - t || SE == 0)``.
A guaranteed guard false under the RC gives no atom (the rule is never forced).

**Runs are infinite** only through self-loops in tactl's liveness semantics (``ir/eltl/formula.py``,
decision 1: no implicit stuttering, as in ByMC). A receive TA has none unless the user wrote them,
so when some specification assumes J the translation adds a *stutter* self-loop (``when (true)``, no
update) to every location that has no self-loop: any process may then wait anywhere, and progress
comes only from J — exactly "justice is only what J says" (docs/check.md, "Semantics", item 1).
Without them every run would end in a deadlock and every liveness property would hold vacuously. The
stutter loops change no configuration, hence no safety verdict.

**The name.** J is called :func:`ir.rta.justice_name` — ``fair``, or ``fair_`` … if the automaton
declares ``fair``. A ``.rta`` specification may use that name as a condition to place J itself
(``(p && <>[](fair)) -> <>q``); such a specification is kept as written, with J put in for the
name, and is not wrapped again. ``tactl``'s ``.ta`` reader (and ByMC's) reads ``define`` macros
of numbers only, so the TA carries J expanded in its specifications, as ByMC's own files do,
and ``tactl translate`` prints ``fair == J`` beside the certificate table.

**Synchronous** automata get no justice: every message is received in its round; their
specifications are left as written.

What z3 certifies about J is in ``passes/rta_to_ta/certify.py`` (:func:`certify_justice`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from tactl.ir.expr import (
    Always,
    And,
    BoolConst,
    Compare,
    Eventually,
    Expr,
    Implies,
    IntConst,
    Name,
    conj,
    disj,
    names,
    substitute,
)
from tactl.ir.linear import GE, LinearAtom
from tactl.ir.eltl.ltl import PropertyKind, classify
from tactl.ir.rta.model import COIN, ORACLE, ReceiveRule, Timing, ReceiveTA, justice_name, mentions, receive_variables, received
from tactl.ir.ta.model import Property, Rule, ThresholdAutomaton
from tactl.passes.rta_to_ta.env import Environment, may_be_negative
from tactl.passes.rta_to_ta.guards import GuardContext, guard_dnf


class Fairness(Enum):
    FAIR = "fair"  # contributes ¬premise ∨ κ[source] == 0 to J
    OPTIONAL = "optional"  # reads no message and leaves a location with a self-loop: may never fire


@dataclass(frozen=True)
class RuleJustice:
    """What one rule that leaves its location contributes to J."""

    rule_id: int
    source: str
    fairness: Fairness
    premise: Expr  # the guaranteed guard φ[received(M) := guaranteed(M)], simplified under the RC
    atom: Expr  # ¬premise ∨ source == 0, as a conjunction of clauses; true: no constraint


@dataclass(frozen=True)
class Justice:
    name: str  # how specifications call it (fair, or fair_ … if the automaton declares fair)
    rules: tuple[RuleJustice, ...]
    formula: Expr  # J: the atoms of the fair rules, duplicates and implied ones left out
    properties: tuple[str, ...] = ()  # the specifications that assume J (wrapped or naming it)
    stutter: tuple[str, ...] = ()  # locations given a stutter self-loop in the TA

    @property
    def used(self) -> bool:
        return bool(self.properties)

    def rule(self, rule_id: int) -> RuleJustice | None:
        return next((r for r in self.rules if r.rule_id == rule_id), None)


def fairness_of(rule: ReceiveRule, waiting: set[str]) -> Fairness | None:
    """FAIR, OPTIONAL, or None for a self-loop (see the module docstring)."""
    if rule.is_self_loop:
        return None
    if rule.choice == ORACLE:
        return Fairness.OPTIONAL
    if rule.choice == COIN:
        return Fairness.FAIR
    if not receive_variables(rule.guard) and rule.source in waiting:
        return Fairness.OPTIONAL
    return Fairness.FAIR


def waiting_locations(rta: ReceiveTA) -> set[str]:
    """Locations with a self-loop rule in the ``.rta``: a process may stay there."""
    return {r.source for r in rta.rules if r.is_self_loop}


NEGATIVE_CASES_LIMIT = 6  # message types whose guaranteed count may be negative, split by cases


def guaranteed_guard(guard: Expr, env: Environment) -> Expr:
    """The receive guard evaluated at the guaranteed delivery: ``received(M) := guaranteed(M)``.

    A count that may be negative (``ns_M - f``: fewer senders than possible losses) guarantees
    ``max(0, guaranteed(M))`` messages — a count is never below 0 — so for each such type read
    by the guard the two cases are written out: ``g >= 0 && φ[g]`` or ``g < 0 && φ[0]``. (Only
    guards true at 0 but false below 0, like ``received(M) >= N - Tc`` with ``N == Tc``, differ
    from the plain substitution.)"""
    mapping = {received(m).name: g for m, g in env.guaranteed}
    read = {n.name for n in names(guard)}
    negative = [(received(m).name, g) for m, g in env.guaranteed
                if received(m).name in read and may_be_negative(g)]
    if not negative or len(negative) > NEGATIVE_CASES_LIMIT:
        return substitute(guard, mapping)
    cases: list[tuple[list[Expr], dict[str, Expr]]] = [([], dict(mapping))]
    for name, g in negative:
        cases = [(cond + [Compare(">=", g, IntConst(0))], at) for cond, at in cases] + \
                [(cond + [Compare("<", g, IntConst(0))], {**at, name: IntConst(0)}) for cond, at in cases]
    return disj(*(conj(*cond, substitute(guard, at)) for cond, at in cases))


def empty(location: str) -> Expr:
    return Compare("==", Name(location), IntConst(0))


def _negated(a: LinearAtom) -> LinearAtom:
    """``¬(Σ c·x >= b)`` over the integers: ``Σ -c·x >= 1 - b``."""
    return LinearAtom(tuple((x, -c) for x, c in a.coeffs), GE, 1 - a.bound)


def rule_justice(rule: ReceiveRule, fairness: Fairness, env: Environment,
                 context: GuardContext) -> RuleJustice:
    """The guaranteed guard of ``rule`` and its atom ``¬premise ∨ κ[source] == 0``.

    The premise is put in disjunctive normal form and simplified like the send guards (atoms
    implied by the RC dropped, disjuncts false under the RC dropped); its negation is then a
    conjunction of clauses ``¬a1 ∨ … ∨ ¬ak``, each of which gets ``∨ κ[source] == 0`` — ByMC's
    justice shape ``(g1 ∨ … ∨ gn) ∨ κ = 0``.
    """
    disjuncts = context.simplify(guard_dnf(guaranteed_guard(rule.guard, env)))
    premise = disj(*(context.render(d) for d in disjuncts))
    if fairness is not Fairness.FAIR or not disjuncts:
        atom: Expr = BoolConst(True)
    elif any(not d for d in disjuncts):
        atom = empty(rule.source)
    else:
        atom = conj(*(disj(*(context.atom(_negated(a)) for a in d), empty(rule.source))
                      for d in disjuncts))
    return RuleJustice(rule.id, rule.source, fairness, premise, atom)


def derive_justice(rta: ReceiveTA, env: Environment, context: GuardContext) -> Justice | None:
    """J of ``rta`` (None for synchronous timing, whose Env has no guaranteed delivery; an
    asynchronous automaton without messages still has J: its processes keep taking steps)."""
    if rta.timing is Timing.SYNC:
        return None
    waiting = waiting_locations(rta)
    rules = []
    for rule in rta.rules:
        fairness = fairness_of(rule, waiting)
        if fairness is not None:
            rules.append(rule_justice(rule, fairness, env, context))
    return Justice(justice_name(rta), tuple(rules), justice_formula(rules))


def justice_formula(rules: list[RuleJustice]) -> Expr:
    """The conjunction of the atoms, each clause once; the clauses of a location that must empty
    unconditionally (``κ == 0``) are implied by that atom and left out."""
    emptied = {r.source for r in rules if r.atom == empty(r.source)}
    clauses: list[Expr] = []
    for r in rules:
        if r.source in emptied and r.atom != empty(r.source):
            continue
        for clause in (r.atom.args if isinstance(r.atom, And) else (r.atom,)):
            if clause != BoolConst(True) and clause not in clauses:
                clauses.append(clause)
    return conj(*clauses)


def under_justice(properties: tuple[Property, ...], justice: Justice) -> tuple[tuple[Property, ...], Justice]:
    """The TA's specifications: one naming J gets J put in for the name; another liveness one
    becomes ``<>[](J) -> (spec)``; safety ones stay as they are."""
    out, assuming = [], []
    for p in properties:
        formula = p.formula
        if mentions(formula, justice.name):
            formula = substitute(formula, {justice.name: justice.formula})
        elif classify(formula) is PropertyKind.LIVENESS:
            formula = Implies(Eventually(Always(justice.formula)), formula)
        else:
            out.append(p)
            continue
        out.append(Property(p.name, formula, span=p.span, origin=p.origin))
        assuming.append(p.name)
    return tuple(out), replace(justice, properties=tuple(assuming))


def with_stutter(ta: ThresholdAutomaton) -> tuple[ThresholdAutomaton, tuple[str, ...]]:
    """``ta`` with a non-updating ``when (true)`` self-loop at every location that has no
    self-loop, and those locations (why: the module docstring, "Runs are infinite")."""
    looping = {r.source for r in ta.rules if r.is_self_loop}
    bare = tuple(loc.name for loc in ta.locations if loc.name not in looping)
    first = max((r.id for r in ta.rules), default=-1) + 1
    loops = tuple(Rule(first + k, name, name, BoolConst(True)) for k, name in enumerate(bare))
    return replace(ta, rules=(*ta.rules, *loops)), bare
