"""The translate pass: receive TA → TA, by eliminating receive variables under Env.

For every RTA rule with receive guard φ the TA guard is ``φ̂ ≡ ∃received. (φ ∧ Env)`` over the
shared send counters and the parameters (Env per fault model: ``passes/rta_to_ta/env.py``):

1. φ is put in disjunctive normal form over linear ``>=`` atoms (``==`` and ``!=`` split);
2. each disjunct, conjoined with the Env atoms linked to it, is projected by ``passes/rta_to_ta/qe.py``
   (exact for Env's unit upper bounds): the receive counters are eliminated first, then Env's
   auxiliary ``faulty(M)`` of kinds (``passes/rta_to_ta/env.py``); a projection that would need more than
   ``PROJECTION_LIMIT`` atoms — a guard needing a bound for nearly every subset of a large
   kind — is refused with :class:`UnsupportedEnvironment` (an input error, not a hang);
3. atoms implied by the resilience condition (with all counters non-negative) and by the other
   atoms are dropped, disjuncts false under the RC are dropped, and a disjunct implied by another
   is dropped — every remaining disjunct becomes one TA rule (parallel rules), and a rule with
   none is removed;
4. ``passes/rta_to_ta/certify.py`` then checks soundness and precision of every result with z3.

The TA gets ``ns_M`` per message (and the crash parts of ``passes/rta_to_ta/env.py``), the initial
constraint "the initial locations hold N(p) processes, everything else 0", and the RTA's
specifications — the liveness ones under the justice derived from the fault model (asynchronous
timing; ``passes/rta_to_ta/fairness.py``), the others unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Name, conj, summation
from tactl.ir.linear import LinearAtom
from tactl.ir.rta.model import CRASH_LOCATION, ReceiveRule, ReceiveTA, receive_variables, received_message
from tactl.ir.ta.model import Location, Origin, Property, Rule, ThresholdAutomaton, Update
from tactl.passes.rta_to_ta.coordinator import assuming_correct
from tactl.passes.rta_to_ta.env import (
    CRASHED,
    UNSENT,
    Environment,
    UnsupportedEnvironment,
    environment,
    sent,
    sent_by_crashing,
)
from tactl.passes.rta_to_ta.fairness import Justice, derive_justice, under_justice, with_stutter
from tactl.passes.rta_to_ta.guards import GuardContext, guard_dnf
from tactl.passes.rta_to_ta.qe import ProjectionTooLarge, project
from tactl.passes.rta_to_ta.unknowns import decode_expr, decode_ta, encode

# Most linear atoms one projection may hold at any step. Guards over sums of a kind need a
# handful; a guard that needs a bound for every subset of k types of a kind (``received(M) >= 1``
# for each M) needs 2^k - 1 and is accepted up to k = 8 (each atom then costs z3 redundancy
# checks, several seconds in all for k = 8); beyond, the guard has no usable linear form.
PROJECTION_LIMIT = 400


@dataclass(frozen=True)
class GuardTranslation:
    rule_id: int
    receive_guard: Expr
    send_guards: tuple[Expr, ...]  # one TA rule each; () = the rule can never fire (removed)
    exact: bool  # every projection step was exact


@dataclass(frozen=True)
class Translation:
    ta: ThresholdAutomaton
    guards: tuple[GuardTranslation, ...]
    environment: Environment
    justice: Justice | None = None  # None: no fairness (synchronous timing)
    crash_guards: tuple[GuardTranslation, ...] = ()  # of the RTA's crash rules, in their order
    # an automaton with unknowns (passes/rta_to_ta/unknowns.py): the encoded automaton and its
    # translation, which the certificates check (this translation is their decoding)
    encoded: "tuple[ReceiveTA, Translation] | None" = None


def translate(rta: ReceiveTA, env: Environment | None = None) -> Translation:
    """The TA of ``rta``; ``env`` replaces the Env of ``passes/rta_to_ta/env.py`` (tests compare Envs)."""
    if rta.unknowns:
        return _translate_unknowns(rta, env)
    env = environment(rta) if env is None else env
    # the parameters the fault model adds (symmetric's fs) join the automaton's, their
    # constraints its resilience condition (passes/rta_to_ta/env.py)
    rta = replace(rta, parameters=(*rta.parameters, *env.parameters),
                  assumptions=(*rta.assumptions, *env.assumptions))
    messages = tuple(m.name for m in rta.messages)
    shared = env.shared(messages)
    context = GuardContext(rta, shared)
    env_cases = environment_cases(env)
    guards = [eliminate_guard(rta, env, context, rule, env_cases) for rule in rta.rules]
    crash_guards = [eliminate_guard(rta, env, context, rule, env_cases) for rule in rta.crash_rules]
    justice = derive_justice(rta, env, context)
    # A synchronous property's hypothesis (``assuming clean round``) stays in the receive automaton
    # (.rta, its JSON): the lock-step engine checks that; the .ta carries the formula only.
    # An asynchronous coordinator's 'assuming correct coordinator' is the premise cf == 0.
    properties = tuple(replace(p, hypothesis=None, formula=assuming_correct(p, env.coordinator_faulty))
                       for p in rta.properties)
    if justice is not None:
        properties, justice = under_justice(properties, justice)
    ta = _assemble(rta, env, shared, guards, properties, crash_guards)
    if justice is not None and justice.used:
        ta, stutter = with_stutter(ta)
        justice = replace(justice, stutter=stutter)
    return Translation(ta, tuple(guards), env, justice, tuple(crash_guards))


def _translate_unknowns(rta: ReceiveTA, env: Environment | None) -> Translation:
    """Translate the encoded automaton, then decode what is shown and checked
    (passes/rta_to_ta/unknowns.py)."""
    encoded, coding = encode(rta)
    inner = translate(encoded, env)
    ta = decode_ta(inner.ta, rta, coding)
    order = {x: i for i, x in enumerate((*ta.shared, *ta.parameters))}

    def dec(e: Expr) -> Expr:
        return decode_expr(e, coding, order)

    def guards(gs: tuple[GuardTranslation, ...]) -> tuple[GuardTranslation, ...]:
        return tuple(replace(g, receive_guard=dec(g.receive_guard),
                             send_guards=tuple(map(dec, g.send_guards))) for g in gs)

    justice = inner.justice
    if justice is not None:
        justice = replace(justice, formula=dec(justice.formula), rules=tuple(
            replace(r, premise=dec(r.premise), atom=dec(r.atom)) for r in justice.rules))
    return replace(inner, ta=ta, guards=guards(inner.guards), crash_guards=guards(inner.crash_guards),
                   justice=justice, encoded=(encoded, inner))


def eliminate_guard(rta: ReceiveTA, env: Environment, context: GuardContext, rule: ReceiveRule,
                    env_cases: list[list[LinearAtom]] | None = None) -> GuardTranslation:
    """``∃ received. guard ∧ Env`` of ``rule`` as send guards (the TA rule's guard): each conjunct
    of the guard's DNF with each case of Env, projected (``passes/rta_to_ta/qe.py``), then
    simplified under the resilience condition. ``rta`` already carries Env's parameters."""
    auxiliary = set(env.auxiliary)
    disjuncts, exact = [], True
    for conjunct in guard_dnf(rule.guard):
        for env_atoms in (environment_cases(env) if env_cases is None else env_cases):
            relevant = _connected(conjunct, env_atoms, auxiliary)
            variables = {x for a in (*conjunct, *relevant) for x, _ in a.coeffs}
            receive = sorted(x for x in variables if received_message(x))
            later = sorted(x for x in variables if x in auxiliary)
            try:
                shadow = project([*conjunct, *relevant], receive, later, naturals=True,
                                 limit=PROJECTION_LIMIT)
            except ProjectionTooLarge as e:
                raise UnsupportedEnvironment(_too_large(rta, rule, e)) from None
            exact = exact and shadow.exact
            if shadow.atoms is not None and list(shadow.atoms) not in disjuncts:
                disjuncts.append(list(shadow.atoms))
    kept = context.simplify(disjuncts)
    return GuardTranslation(rule.id, rule.guard, tuple(context.render(d) for d in kept), exact)


def environment_cases(env: Environment) -> list[list[LinearAtom]]:
    """Env as a disjunction of conjunctions of atoms: one case for every model but ``bound``
    with a bound that may be negative (``rcv <= ns + B || rcv <= 0``, passes/rta_to_ta/env.py); then
    ``∃rcv. φ ∧ (E1 ∨ E2)`` is ``(∃rcv. φ ∧ E1) ∨ (∃rcv. φ ∧ E2)``, each eliminated as before."""
    cases: list[list[LinearAtom]] = [[]]
    for e in env.constraints:
        cases = [case + alternative for case in cases for alternative in guard_dnf(e)]
    return cases


def _too_large(rta: ReceiveTA, rule: ReceiveRule, e: ProjectionTooLarge) -> str:
    mentioned = set(receive_variables(rule.guard))
    kinds = [f"{kind} ({', '.join(m for m in members if m in mentioned)})"
             for kind, members in rta.kinds().items() if len(mentioned & set(members)) >= 2]
    head = (f"the receive guard of rule {rule.id} has no usable translation: eliminating its "
            f"receive counters needs more than {e.limit} linear constraints")
    if not kinds:
        return head + "; simplify the guard (fewer atoms over the same receive counters)"
    return (f"{head}: it constrains types of kind {' and '.join(kinds)} separately, and as a "
            "faulty sender counts once per kind its translation needs a bound for each "
            "combination of them. Constrain the sum of the kind instead of its types one by one, "
            "or split the kind.")


def _connected(conjunct: list[LinearAtom], env_atoms: list[LinearAtom],
               auxiliary: set[str]) -> list[LinearAtom]:
    """The Env atoms linked to the guard's receive variables (through shared receive or
    auxiliary variables).

    The others constrain receive (and auxiliary) variables the guard does not reach; values 0
    satisfy them whatever the send counters are, so leaving them out changes nothing — and it
    keeps Fourier–Motzkin small.
    """
    def eliminated(x: str) -> bool:
        return received_message(x) is not None or x in auxiliary

    wanted = {x for a in conjunct for x, _ in a.coeffs if eliminated(x)}
    chosen: list[LinearAtom] = []
    rest = list(env_atoms)
    grew = True
    while grew:
        grew = False
        for a in list(rest):
            if any(x in wanted for x, _ in a.coeffs):
                chosen.append(a)
                rest.remove(a)
                wanted |= {x for x, _ in a.coeffs if eliminated(x)}
                grew = True
    return chosen


def _assemble(rta: ReceiveTA, env: Environment, shared: tuple[str, ...],
              guards: list[GuardTranslation], properties: tuple[Property, ...],
              crash_guards: list[GuardTranslation]) -> ThresholdAutomaton:
    locations = list(rta.locations)
    crash = env.crash_bound is not None
    crash_loc = CRASH_LOCATION
    taken = {loc.name for loc in locations} | set(rta.parameters) | set(shared)
    while crash and crash_loc in taken:  # CR, else CR_, CR__, …: never a name the user has
        crash_loc += "_"
    kept = crash and bool(rta.crash_locations)  # crash locations that keep the state (ir/rta/model.py)
    if kept:
        locations += rta.crash_locations
    elif crash:
        locations.append(Location(crash_loc))
    initial = [n for n in rta.initial]
    inits: list[Expr] = [Compare("==", summation(Name(initial[0]), [("+", Name(n)) for n in initial[1:]])
                                 if len(initial) > 1 else Name(initial[0]), env.processes)]
    inits += [Compare("==", Name(loc.name), IntConst(0)) for loc in locations if loc.name not in initial]
    inits += [Compare("==", Name(v), IntConst(0)) for v in shared]
    inits += env.inits  # an asynchronous coordinator: Σ κ[C] == 1 - cf (passes/rta_to_ta/coordinator.py)
    rules: list[Rule] = []

    def add(source: str, target: str, guard: Expr, increments: list[str],
            origin: Origin | None = None) -> None:
        updates = tuple(Update(v, summation(Name(v), [("+", IntConst(1))])) for v in increments)
        rules.append(Rule(len(rules), source, target, guard, updates, origin=origin))

    below_bound = Compare("<", Name(CRASHED), Name(env.crash_bound)) if crash else None
    # clean_crash(fc, fnc): a crash before a step that would send loses that broadcast (to
    # all); at most fnc crashes do (passes/rta_to_ta/env.py, **Clean crash**)
    pending = {r.source for r in rta.rules if r.sends and not r.is_self_loop} \
        if env.unsent_bound else set()
    unsent = Compare("<", Name(UNSENT), Name(env.unsent_bound)) if env.unsent_bound else None
    for rule, g in zip(rta.rules, guards):
        for guard in g.send_guards:
            add(rule.source, rule.target, guard, [sent(m) for m in rule.sends], rule.origin)
            if env.partial_sends and rule.sends and below_bound is not None and not kept:
                crashing = None if rule.origin is None else replace(
                    rule.origin, text="crashes while executing " + rule.origin.describe())
                add(rule.source, crash_loc, conj(*(g for g in (guard, below_bound) if g != BoolConst(True))),
                    [CRASHED, *(sent_by_crashing(m) for m in rule.sends)], crashing)
    if kept and below_bound is not None:
        # the parse pass's crash rules: between steps (no sends) or in the middle of a step,
        # its broadcasts so far reaching some receivers only (nsf_M)
        crashed = {loc.name for loc in rta.crash_locations}
        for rule, g in zip(rta.crash_rules, crash_guards):
            if rule.source in crashed:  # a crashed process's own step: no crash counted
                for guard in g.send_guards:
                    add(rule.source, rule.target, guard, [], rule.origin)
                continue
            lost = rule.source in pending and not rule.sends
            for guard in g.send_guards:
                add(rule.source, rule.target,
                    conj(*(x for x in (guard, below_bound, unsent if lost else None)
                           if x is not None and x != BoolConst(True))),
                    [CRASHED, *([UNSENT] if lost else []),
                     *(sent_by_crashing(m) for m in rule.sends if env.partial_sends)], rule.origin)
    elif below_bound is not None:
        for loc in rta.locations:
            if loc.name in pending:
                add(loc.name, crash_loc, conj(below_bound, unsent), [CRASHED, UNSENT])
            else:
                add(loc.name, crash_loc, below_bound, [CRASHED])
    return ThresholdAutomaton(
        name=rta.name, shared=shared, parameters=rta.parameters, assumptions=rta.assumptions,
        locations=tuple(locations), inits=tuple(inits), rules=tuple(rules),
        properties=properties, timing=rta.timing.value)

