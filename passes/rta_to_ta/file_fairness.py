"""Liveness under a Parametric Promela file's own ``ltl fairness`` formula, as a TA justice.

ByMC's files state their fairness as ``ltl fairness { []<>(!in_transit) }`` with ``in_transit =
some(Proc:nrcvd < nsnt)``: eventually every message is received. ByMC checks ``fairness -> spec``
(its ``Ltl.embed_fairness``) over the file's runs: interleavings of whole steps, where a step
receives, then takes one path of the ``do`` body. Nothing forces a process to be scheduled. The
justice tactl derives (``passes/rta_to_ta/fairness.py``) assumes more: "a process whose rule stays
enabled eventually takes it". The two differ on runs like ByMC's counterexample to ``corr`` of
Bracha's agreement (``asyn-byzagreement0.pml``): some processes receive their last messages in the
very step that brings them to EC, then are never scheduled again; the others wait at RD for one
ready message too few. Every message is delivered, so the file's formula holds on that run, and
no process accepts. This module builds the justice that is the file's reading, for the same TA.

**Which processes may stay at a location forever** (ℓ's counter stays positive in the loop).
Counts only grow and only in a step, and a file-fair run ends with every count at least the
guaranteed delivery ``g(M)`` (``Env.guaranteed``); a process that stays at ℓ for good either

* (a) keeps taking, or last took, a step that changes nothing at ℓ (a *stay*: a stutter path
  of the step, whose condition the front end records, ``passes/pml_to_rta/explore.py``
  ``stay_conditions``; or a self-loop rule) with a count ``c`` satisfying that condition;
* (b) entered ℓ by rule ``r`` and never stepped again: ``r``'s receive guard held at ``c``;
* (c) never stepped, at an initial location: ``c = 0``;

and in each case ``g <= c``, ``c`` within Env's receive bound. So ``J_file`` is, per location,

    κ[ℓ] == 0  ∨  ⋁_{stays and entering rules r} (∃c. g <= c ∧ Env(c) ∧ guard_r(c))  ∨  [ℓ initial] ⋀_M g(M) <= 0

with each existential eliminated exactly like a receive guard (``eliminate.eliminate_guard``).
It is an **over-approximation** of the file's fair runs: Env's bound is taken with the send
counts of the loop less the entering step's own sends (at that step they had not been made; the
counts only grow, so the loop's are an upper bound), and two steps of one process are not tied
to one count. So a HOLDS under ``<>[](J_file) -> spec`` holds under the file's
fairness; a lasso under it is re-checked process by process (``tactl/engines/file_fairness.py``)
before it is called a run of the file. On an automaton with cycles through several locations the
clause "some process keeps taking steps" also counts processes that go round, and the cycle engine
reads the rest per process: ``passes/rta_to_ta/file_cycles.py`` says why that is still sound.

Only for the fault models whose delivery is a count of correct senders, and for ``crash(F)`` and
``clean_crash(F)`` with tactl's one crash location (``passes/rta_to_ta/crash_fairness.py`` says
what a crashed process is in the file's runs), and only for automata without crash rules;
elsewhere :func:`file_justice` returns None and the derived justice alone is used. A location
where a count is 0 for good (``passes/rta_to_ta/zero_counts.py``) adds that nothing of its type
is guaranteed while a process stays there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.expr import (Always, And, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Mul, Name, conj, disj,
                           substitute, summation)
from tactl.ir.rta.model import FaultModel, ReceiveRule, ReceiveTA, received
from tactl.ir.ta.model import Property
from tactl.passes.rta_to_ta.crash_copies_fairness import copies_moving, copies_reading, reset_stay
from tactl.passes.rta_to_ta.crash_fairness import budget_stays, crash_reading, crashed_moving
from tactl.passes.rta_to_ta.eliminate import Translation, eliminate_guard, environment_cases
from tactl.passes.rta_to_ta.env import sent
from tactl.passes.rta_to_ta.file_cycles import on_cycles, progress
from tactl.passes.rta_to_ta.guards import GuardContext, guard_dnf

# fault models whose guaranteed delivery counts correct senders' messages only (fairness.py's table)
SUPPORTED = (FaultModel.BYZANTINE, FaultModel.SYMMETRIC, FaultModel.OMISSION, FaultModel.BOUND)


@dataclass(frozen=True)
class FileJustice:
    formula: Expr  # J_file
    properties: tuple[Property, ...]  # the liveness specifications, as <>[](J_file) -> spec
    stays: tuple[tuple[str, Expr], ...]  # the stay conditions it was built from, per location
    cyclic: frozenset[str] = frozenset()  # locations on cycles through several (file_cycles.progress)


def leaving(rta: ReceiveTA, extra: Expr) -> list[str]:
    """Locations ``ℓ`` of the conjuncts ``[](ℓ != 0 -> <>(ℓ == 0))`` of ``extra`` that no rule enters
    from elsewhere: once empty they stay empty, so the conjunct is ``<>[](ℓ == 0)``."""
    out = []
    for c in (extra.args if isinstance(extra, And) else (extra,)):
        if isinstance(c, Always) and isinstance(c.arg, Eventually) and _is_empty(c.arg.arg) \
                and not any(r.target == c.arg.arg.left.name and r.source != r.target for r in rta.rules):
            out.append(c.arg.arg.left.name)  # []<>(ℓ == 0) for a location no rule enters: the same
        elif isinstance(c, Always) and isinstance(c.arg, Implies) and isinstance(c.arg.right, Eventually):
            a, b = c.arg.left, c.arg.right.arg
            if isinstance(b, Compare) and b.op == "==" and isinstance(b.left, Name) and b.right == IntConst(0) \
                    and a == Compare("!=", b.left, IntConst(0)) \
                    and not any(r.target == b.left.name and r.source != r.target for r in rta.rules):
                out.append(b.left.name)
    return out


def _later_sends(location: str, entering: list[ReceiveRule], rta: ReceiveTA) -> dict[str, Expr]:
    """Sends made after the first of the processes that froze at ``location`` entered it, at least:
    if every process there froze (none stays by stepping, none never stepped), the ``κ - 1`` others
    entered later, each by a rule sending at least the fewest ``M`` any entering rule sends. Not
    at an initial location (a process there may never have stepped)."""
    if location in rta.initial or not entering:
        return {}
    out = {}
    for m in {m for r in entering for m in r.sends}:
        least = min(r.sends.count(m) for r in entering)
        if least:
            out[m] = Mul(IntConst(least), summation(Name(location), [("-", IntConst(1))]))
    return out


def _is_empty(e: Expr) -> bool:
    return isinstance(e, Compare) and e.op == "==" and isinstance(e.left, Name) and e.right == IntConst(0)


def _empty(location: str) -> Expr:
    return Compare("==", Name(location), IntConst(0))


def file_justice(rta: ReceiveTA, translation: Translation, stays: dict[str, Expr],
                 extra: Expr = BoolConst(True), one_per_step: tuple[str, ...] = (),
                 kept: dict[int, tuple[str, ...]] | None = None, crashed_stutter: bool = False,
                 zero_at_for_good: dict[str, tuple[str, ...]] | None = None,
                 stay_zeroed: dict[str, tuple[str, ...]] | None = None,
                 entry: dict[int, Expr] | None = None) -> FileJustice | None:
    """``J_file`` of ``rta`` (module docstring) and the specifications that assume the derived
    justice, re-stated under it; None where the file's reading is not built (module docstring).
    ``extra``: the fairness formula's other conjuncts; those of the shape ``[](ℓ != 0 -> <>(ℓ == 0))``
    for locations no rule enters (ByMC's ``[](some_ri -> <>no_ri)``) mean ``<>[](ℓ == 0)`` and join
    ``J_file``; the others are left out of it (an over-approximation still: fewer assumptions).
    ``one_per_step``: message types a step receives at most one of; a process that enters a location
    from one where its count is surely 0 (initial, never entered, every stay there needs a count of
    0) has at most 1 of them. ``kept``: per rule id, the message types no path of it receives
    (``passes/pml_to_rta/kept_counts.py``): from such a location the count stays 0. A crash model
    (``passes/rta_to_ta/crash_fairness.py``) adds the way ``crashed_stutter`` gives to go on forever.
    ``zero_at_for_good``: per location, the message types a process there holds none of, for good
    (``passes/rta_to_ta/zero_counts.py``): nothing of them may be guaranteed while it stays.
    ``stay_zeroed``: per location, the types its stays reset to 0 (``crash_copies_fairness.py``).
    ``entry``: per rule id, a bound on the counts a process holds when it enters by that rule
    (``passes/rta_to_ta/entry_counts.py``), conjoined to the option of entering by it."""
    justice, env = translation.justice, translation.environment
    if justice is None or not justice.used or rta.crash_rules and not copies_reading(rta) or \
            rta.faults.model not in SUPPORTED and not crash_reading(rta) and not copies_reading(rta):
        return None
    kept = kept or {}
    stays = budget_stays(stays, translation.environment.crash_bound)
    rta = replace(rta, parameters=(*rta.parameters, *env.parameters),
                  assumptions=(*rta.assumptions, *env.assumptions))
    context = GuardContext(rta, env.shared(tuple(m.name for m in rta.messages)))
    delivered = [Compare(">=", received(m), g) for m, g in env.guaranteed]

    def feasible(guard: Expr, sends: tuple[str, ...] = (), others: dict[str, Expr] | None = None) -> Expr:
        """∃c. g <= c ∧ Env(c) ∧ guard(c), Env's bound taken before the step's own sends and
        ``others`` (per message type: sends made after it, at least)."""
        others = others or {}
        before = {sent(m): summation(Name(sent(m)), [("-", IntConst(sends.count(m)))]
                                     + ([("-", others[m])] if m in others else []))
                  for m in {*sends, *others}}
        at = replace(env, constraints=tuple(substitute(c, before) for c in env.constraints)) if before else env
        probe = ReceiveRule(-1, "", "", conj(guard, *delivered), ())
        guards = eliminate_guard(rta, at, context, probe, environment_cases(at)).send_guards
        return disj(*guards) if guards else BoolConst(False)

    moving: list[Expr] = []  # some process keeps taking steps: a stay possible with its final count
    def zero_at(location: str, m: str) -> bool:
        if location not in rta.initial or any(r.target == location and r.source != location for r in rta.rules):
            return False
        ways = [stays[location]] if location in stays else []
        ways += [r.guard for r in rta.rules if r.source == r.target == location and r.sends]
        at_most_zero = guard_dnf(Compare("<=", received(m), IntConst(0)))[0]
        return all(context.holds(d, at_most_zero) for w in ways for d in guard_dnf(w))

    def first_step(rule: ReceiveRule) -> Expr:
        """What a step from a location where the count is surely 0 may receive: one message."""
        return conj(rule.guard, (entry or {}).get(rule.id, BoolConst(True)), *(Compare("<=", received(m), IntConst(0 if m in kept.get(rule.id, ()) else 1))
                                  for m in sorted({*one_per_step, *kept.get(rule.id, ())}) if zero_at(rule.source, m)))

    nothing_sent = conj(*(Compare("<=", g, IntConst(0)) for _, g in env.guaranteed))
    clauses: list[Expr] = []
    for loc in rta.locations:
        stay = [(stays[loc.name], ())] if loc.name in stays else []
        # a self-loop rule that sends nothing is no step of the file's own: its stutter steps are
        # the stay conditions (a waiting self-loop, passes/pml_to_rta/waiting.py, has guard true)
        stay += [(r.guard, ()) for r in rta.rules if r.source == r.target == loc.name and r.sends]
        entering = [r for r in rta.rules if r.target == loc.name and r.source != loc.name]
        options = [feasible(g, sends) for g, sends in stay]
        reset = reset_stay(loc.name, stay_zeroed or {}, env.guaranteed)
        if loc.name in stays and reset != BoolConst(True) and options[0] != BoolConst(False):
            options[0] = reset if options[0] == BoolConst(True) else conj(options[0], reset)  # it holds none of them
        options += [feasible(first_step(r), r.sends, _later_sends(loc.name, entering, rta)) for r in entering]
        for o in options[:len(stay)]:
            if o != BoolConst(False):
                moving.append(conj(Compare("!=", Name(loc.name), IntConst(0)), o))
        if loc.name in rta.initial:
            options.append(nothing_sent)
        options = [o for n, o in enumerate(options) if o != BoolConst(False) and o not in options[:n]]
        none = conj(*(Compare("<=", g, IntConst(0)) for m, g in env.guaranteed
                      if m in (zero_at_for_good or {}).get(loc.name, ())))
        if BoolConst(True) in options and none == BoolConst(True):
            continue
        clauses.append(disj(_empty(loc.name), conj(none, disj(*options)) if none != BoolConst(True) else disj(*options)))
    moving += crashed_moving(rta, translation.ta, crashed_stutter) + copies_moving(rta, crashed_stutter)
    clauses.append(progress(translation.ta, moving))  # some process keeps stepping (file_cycles.py)
    clauses += [_empty(name) for name in leaving(rta, extra)]
    formula = conj(*clauses)
    props = []
    for p in translation.ta.properties:
        if p.name not in justice.properties:
            continue
        f = p.formula
        if not (isinstance(f, Implies) and f.left == Eventually(Always(justice.formula))):
            return None  # a specification that places the justice itself: no second reading
        props.append(replace(p, formula=Implies(Eventually(Always(formula)), f.right)))
    return FileJustice(formula, tuple(props), tuple(sorted(stays.items())), on_cycles(translation.ta))
