"""Facts every run of a threshold automaton has by construction, proved inductive, for Spacer.

Spacer (tactl/engines/chc.py) looks for an inductive invariant one counterexample-to-induction
at a time, over the counters and shared variables alone. On automata whose safety rests on
counting (bosco's ``lemma3_1``: two processes decide differently only if more than ``N - F``
messages were sent) it must rediscover what the steady-schema engine's encoding states outright
(passes/ta_to_smt/steady.py): how many times each rule fired, that the counters and the shared
variables are sums of those numbers, and that a rule that fired had its guard true — which, for
a guard that stays true once true, still holds. It did not find that in 200 s.

So the counter system (tactl/engines/chc_system.py) gets ghost components, which no guard reads
and no property mentions:

* ``fired#i`` — how many times the i-th rule of the file fired (0 initially, one more at each
  of its firings; by position, since rule ids need not be distinct);
* ``initial#v`` — the value of location counter or shared variable ``v`` in the initial state
  (set there, never changed);

and candidate facts over them:

* accounting: each location counter is its initial value plus the firings of the rules into it
  minus those out of it; each shared variable is its initial value plus the increments of the
  rules that fired;
* the initial state: the ``inits`` and the resilience condition over the ``initial#`` copies;
* once fired, the guard: ``fired#i >= 1 -> guard_i`` for each rule whose guard is not ``true``;
* once seen, the formula: for each flag of a nested safety monitor (tactl/engines/chc_monitor.py),
  ``seen#k == 1 ->`` its formula with each counter read as the number of processes that ever
  entered the location (which only grows, so a lower bound there stays true).

Only automata of the steady-schema engine's class get them (:func:`counted_runs`: increments by
constants, every cycle a self-loop); an automaton with resets is given to Spacer as it is.

A candidate is only a candidate: :func:`proved` keeps the largest subset that holds initially and
is preserved by every rule assuming the others (Houdini's fixpoint, z3 answering each question),
so a guard that can become false again (``nfaulty < F``) drops out. What is kept holds in every reachable state; the Horn clauses assume it, and since it is
part of the invariant the certificate re-checks (tactl/engines/chc_certificate.py: initiation
from the initial states, which do not assume the facts, and consecution over every rule), a HOLDS
never rests on this module being right.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import z3

from tactl.engines.chc_system import CounterSystem, Transition
from tactl.ir.eltl.cycles import has_several_location_cycles
from tactl.ir.expr import BoolConst
from tactl.ir.linear import NonLinearError, to_z3
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.util import deadline

FIRED = "fired#"
INITIAL = "initial#"
# Each question of the fixpoint is small; one that takes longer than this drops its candidate.
QUESTION_MS = 5_000


@dataclass(frozen=True)
class Facts:
    """The augmented system and the facts proved of it (also conjoined into ``system.facts``)."""

    system: CounterSystem
    proved: tuple[z3.BoolRef, ...]
    candidates: int


def with_facts(ta: ThresholdAutomaton, system: CounterSystem) -> Facts:
    """``system`` with the ghost components and the facts :func:`proved` of it; ``system`` as it
    is for an automaton :func:`counted_runs` leaves out."""
    if not counted_runs(ta):
        return Facts(system, (), 0)
    ctx = system.state[0].ctx
    table = dict(zip(system.names, system.state))
    # by position: rule ids need not be distinct (random19's rs-bosco numbers every rule 1)
    counted = [i for i, r in enumerate(ta.rules) if not (r.is_self_loop and all(u.is_identity for u in r.updates))]
    fired = {i: z3.Int(f"{FIRED}{i}", ctx) for i in counted}
    # a value the initial states fix (most counters and shared variables start at 0) is a
    # constant, not a ghost: fewer components for Spacer to relate
    fixed = _fixed_initially(system, (*system.locations, *system.shared))
    copies = {v: z3.Int(f"{INITIAL}{v}", ctx) for v in (*system.locations, *system.shared) if v not in fixed}
    initial_copy = {**{v: z3.IntVal(c, ctx) for v, c in fixed.items()}, **copies}
    ghosts = (*fired.values(), *copies.values())
    names = (*system.names, *(str(g) for g in ghosts))
    state = (*system.state, *ghosts)

    transitions = []
    for t in system.transitions:
        after_ghosts = [g + 1 if i == t.rule else g for i, g in fired.items()] + list(copies.values())
        transitions.append(Transition(t.rule, t.enabled, (*t.after, *after_ghosts)))
    initial = z3.And(system.initial, *(g == 0 for g in fired.values()),
                     *(copies[v] == table[v] for v in copies))

    def moved(loc: str) -> z3.ArithRef:
        into = [fired[i] for i in counted if ta.rules[i].target == loc and not ta.rules[i].is_self_loop]
        out = [fired[i] for i in counted if ta.rules[i].source == loc and not ta.rules[i].is_self_loop]
        return _sum(initial_copy[loc], *into) - _sum(z3.IntVal(0, ctx), *out)

    candidates: list[z3.BoolRef] = []
    candidates += [table[loc] == moved(loc) for loc in system.locations]
    increments = [ta.increments(r) or {} for r in ta.rules]  # constants (counted_runs)
    for x in system.shared:
        candidates.append(table[x] == _sum(initial_copy[x], *(d[x] * fired[i] for i, d in enumerate(increments)
                                                              if d.get(x))))
    copy_of = {**{n: table[n] for n in system.parameters}, **initial_copy}
    candidates += _over_copies(ta, copy_of, ctx)
    for i in counted:
        if ta.rules[i].guard != BoolConst(True):
            candidates.append(z3.Implies(fired[i] >= 1, _guard(system, i)))
    # a monitor's flag (nested safety): its formula held once; with each counter read as the
    # number of processes that ever entered its location, which only grows, it may still hold
    entered = [(table[loc], _sum(initial_copy[loc], *(fired[i] for i in counted if ta.rules[i].target == loc
                                                       and not ta.rules[i].is_self_loop)))
               for loc in system.locations]
    candidates += [z3.Implies(flag == 1, z3.substitute(formula, *entered)) for flag, formula in system.monitor]
    # ghosts are natural numbers like the counters (firings only grow, copies of natural numbers
    # never change): a fact of every state, which the printed invariant leaves out as it does
    # for counters (tactl/engines/chc_invariant.py)
    known = z3.And(system.known, *(g >= 0 for g in ghosts))
    augmented = replace(system, names=names, state=state, initial=initial, known=known,
                        transitions=tuple(transitions))
    kept = proved(augmented, candidates)
    return Facts(replace(augmented, facts=z3.And(*kept) if kept else z3.BoolVal(True, ctx)),
                 tuple(kept), len(candidates))


def counted_runs(ta: ThresholdAutomaton) -> bool:
    """Whether the facts are added: shared variables only grow by constants and every cycle is a
    self-loop, the steady-schema engine's class, whose encoding the facts mirror. With a reset,
    a decrement or a cycle through several locations, a variable has no accounting, guards need
    not stay true, and the firing counts grow without bound around the cycle: the facts say little
    there, and Spacer took up to eight times longer with them on TACO's reset benchmarks (all of
    which it decides without them)."""
    if has_several_location_cycles(ta):
        return False
    for rule in ta.rules:
        increments = ta.increments(rule)
        if increments is None or any(d < 0 for d in increments.values()):
            return False
    return True


def _fixed_initially(system: CounterSystem, names: tuple[str, ...]) -> dict[str, int]:
    """The components among ``names`` that have one value in every initial state, with it."""
    table = dict(zip(system.names, system.state))
    solver = z3.Solver(ctx=system.initial.ctx)
    solver.set("timeout", QUESTION_MS)
    solver.add(system.initial)
    if solver.check() != z3.sat:
        return {}
    model = solver.model()
    fixed = {}
    for n in names:
        value = model.eval(table[n], model_completion=True)
        solver.push()
        solver.add(table[n] != value)
        if solver.check() == z3.unsat:
            fixed[n] = value.as_long()
        solver.pop()
    return fixed


def _sum(first: z3.ArithRef, *rest: z3.ArithRef) -> z3.ArithRef:
    """``first + …``, without the one-argument sum that z3 prints as ``(+ x)`` and cvc5 refuses."""
    return z3.Sum(first, *rest) if rest else first


def _guard(system: CounterSystem, position: int) -> z3.BoolRef:
    """The guard of the rule at ``position`` (its enabling condition without the source counter)."""
    enabled = system.transitions[position].enabled
    return enabled.arg(1) if z3.is_and(enabled) and enabled.num_args() == 2 else enabled


def _over_copies(ta: ThresholdAutomaton, copy_of: dict[str, z3.ArithRef], ctx: z3.Context) -> list[z3.BoolRef]:
    """The resilience condition and the ``inits`` over the ``initial#`` copies: frozen, so they
    hold ever after."""
    def sym(name: str) -> z3.ArithRef:
        if name not in copy_of:
            raise ValueError(name)
        return copy_of[name]

    found = []
    for e in (*ta.assumptions, *ta.inits):
        try:
            found.append(to_z3(ta.expand(e), sym, ctx))
        except (NonLinearError, TypeError, ValueError):
            continue
    return found


def proved(system: CounterSystem, candidates: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """The largest subset of ``candidates`` that the initial states satisfy and every rule keeps
    (assuming the facts every state has and the subset itself before the step): Houdini's
    fixpoint, each counterexample dropping every candidate it falsifies at once. A question z3
    does not answer in time drops every candidate."""
    ctx = system.initial.ctx
    kept = _surviving(z3.Solver(ctx=ctx), system.initial, [(c, c) for c in candidates], [])
    if not kept or not system.transitions:
        return kept
    # one step of any rule: ``rule#`` picks it, ``next`` is the state after it
    which = z3.Int("rule#", ctx)
    after = tuple(z3.Int(f"{n}'", ctx) for n in system.names)
    step = z3.Or(*(z3.And(which == i, t.enabled, *(a == b for a, b in zip(after, t.after)))
                   for i, t in enumerate(system.transitions)))
    solver = z3.Solver(ctx=ctx)
    solver.add(system.known, step)
    guards = {c.get_id(): z3.Bool(f"assume#{k}", ctx) for k, c in enumerate(kept)}
    for c in kept:
        solver.add(z3.Implies(guards[c.get_id()], c))
    while True:
        before = len(kept)
        kept = _surviving(solver, z3.BoolVal(True, ctx), [(c, system.rename(c, after)) for c in kept],
                          [guards[c.get_id()] for c in kept])
        if len(kept) == before or not kept:
            return kept


def _surviving(solver: z3.Solver, premise: z3.BoolRef, pairs: list[tuple[z3.BoolRef, z3.BoolRef]],
               assumptions: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """The candidates ``c`` of ``pairs`` (``c``, ``its form to prove``) that ``premise`` (under
    ``assumptions``) implies, found by dropping what each model of ``premise ∧ ¬(all of them)``
    falsifies; ``solver`` holds what is assumed besides."""
    timeout = deadline.solver_timeout_ms()
    solver.set("timeout", QUESTION_MS if timeout is None else min(QUESTION_MS, timeout))
    left = list(pairs)
    while left:
        solver.push()
        solver.add(premise, z3.Not(z3.And(*(goal for _, goal in left))))
        answer = solver.check(*assumptions)
        model = solver.model() if answer == z3.sat else None
        solver.pop()
        if answer == z3.unsat:
            break
        if model is None:
            return []
        left = [(c, goal) for c, goal in left if z3.is_true(model.eval(goal, model_completion=True))]
    return [c for c, _ in left]
