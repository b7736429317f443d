"""Explained counterexamples: what the faulty processes did, and why waiting forever is allowed.

A replayed run says *that* a guard was true; a reviewer wants to know *why*. Two facts, read off
the replay and the automaton, never from the solver's model:

* **Messages from faulty processes.** After quantifier elimination a guard such as
  ``ns_ECHO >= t + 1 - f`` is true when the correct senders' messages plus at most ``f`` from
  faulty ones reach the threshold (the environment's ``received(M) <= ns_M + f``). For a step,
  the least value of each *fault term* of the environment (a Byzantine parameter such as ``f``,
  a count ``nsf_M`` of crashed partial senders) at which the step's guard still holds, the
  others at their values in the run, is how many messages from faulty processes the receivers
  had to count (at the first firing of an accelerated step). 0: the correct ones sufficed.
  The fault terms come from the receive automaton's environment (``passes/rta_to_ta/env.py``); a ``.ta``
  without one gets no such lines.
* **Why a lasso may wait forever.** In the repeating configuration nothing changes any more, so
  every message that will ever be counted is already sent: per occupied location, each rule
  leaving it has a false guard there (the values say by how much), and the justice conjuncts of
  the negated property (the bodies of its ``<>[]``) hold there — so the processes that wait are
  not owed a step. On a loop through several locations (``ir/eltl/cycles.py``) processes move
  but no message is sent any more, and the same is said of the loop's first configuration, with
  the justice read per process (``ir/eltl/justice.py``): which pairs the loop meets, and how.
"""

from __future__ import annotations

from tactl.engines.result import Counterexample
from tactl.ir.eltl.formula import TemporalQuery
from tactl.ir.eltl.justice import FairReading, JusticePair, loop_reading
from tactl.ir.evaluate import EvaluationError, holds
from tactl.ir.expr import Always, And, BoolConst, Eventually, Expr, Name, to_text, walk
from tactl.ir.rta.model import FaultModel
from tactl.ir.ta.model import ThresholdAutomaton


def fault_terms(receive_automaton, ta: ThresholdAutomaton) -> tuple[str, ...]:
    """Names of the environment's fault terms that the automaton ``ta`` knows (parameters and
    shared variables), in a stable order; () without a receive automaton."""
    if receive_automaton is None:
        return ()
    # lazy: the environment pass, only for a counterexample of an automaton with a receive automaton
    from tactl.passes.rta_to_ta.env import UnsupportedEnvironment, environment, sent

    try:
        env = environment(receive_automaton)
    except (UnsupportedEnvironment, ValueError):
        return ()
    known = set(ta.parameters) | set(ta.shared)
    senders = {sent(m.name) for m in receive_automaton.messages}
    found: list[str] = []
    for constraint in env.constraints:
        for node in walk(constraint):
            if isinstance(node, Name) and node.name in known and node.name not in senders \
                    and node.name not in found and node.name != env.crash_bound \
                    and node.name not in receive_automaton.parameters[:1]:
                found.append(node.name)
    # The faulty senders' parameter is a fault term even where the constraints do not name it
    # (every type a coordinator's: Env bounds those by cf). Not symmetric's fp and fs: its
    # senders reach a receive bound only through the per-type counts fs_M found above.
    faults = receive_automaton.faults
    if faults.model is not FaultModel.SYMMETRIC:
        found += [p for p in faults.sender_parameters() if p in known and p not in found]
    return tuple(found)


def explain(ta: ThresholdAutomaton, cex: Counterexample, query: TemporalQuery | None,
            terms: tuple[str, ...]) -> list[str]:
    """Lines explaining ``cex`` (empty when there is nothing to say)."""
    lines = _faulty_messages(ta, cex, terms)
    if (cex.loop is not None or cex.cycle) and query is not None and cex.replay.configurations:
        lines += _waiting(ta, cex, query, terms)
    return lines


def _faulty_messages(ta: ThresholdAutomaton, cex: Counterexample, terms: tuple[str, ...]) -> list[str]:
    if not terms:
        return []
    out: list[str] = []
    configs = cex.replay.configurations
    for number, step in enumerate(cex.schedule + (cex.cycle or []), 1):
        if number - 1 >= len(configs):
            break
        rule = ta.rules[step.rule]
        guard = ta.expand(rule.guard)
        used = {n.name for n in walk(guard) if isinstance(n, Name)}
        env = configs[number - 1].env(cex.parameters)
        counted = []
        for term in terms:
            if term not in used or env.get(term, 0) <= 0:
                continue
            least = _least(guard, env, term)
            if least:
                counted.append(f"{least} (of {term} = {env[term]})")
        if counted:
            out.append(f"step {number}: its receivers ({rule.source} -> {rule.target}) counted "
                       f"messages from faulty processes: {', '.join(counted)}; "
                       f"`{to_text(rule.guard)}` is false with fewer")
    return out


def _least(guard: Expr, env: dict[str, int], term: str) -> int:
    """The least value of ``term`` in 0..env[term] at which ``guard`` holds (the others fixed)."""
    for k in range(env[term] + 1):
        try:
            if holds(guard, {**env, term: k}):
                return k
        except EvaluationError:
            return 0
    return env[term]


def _waiting(ta: ThresholdAutomaton, cex: Counterexample, query: TemporalQuery,
             terms: tuple[str, ...]) -> list[str]:
    last = cex.replay.configurations[len(cex.schedule)] if len(cex.replay.configurations) > len(cex.schedule) \
        else cex.replay.configurations[-1]
    env = last.env(cex.parameters)
    shared = ", ".join(f"{v} = {env[v]}" for v in ta.shared if v not in terms)
    faulty = ", ".join(f"{t} = {env[t]}" for t in terms)
    # a loop through several locations (ir/eltl/cycles.py): processes move, the messages do not
    left = {ta.rules[s.rule].source for s in cex.cycle or [] if not ta.rules[s.rule].is_self_loop}
    moving = bool(left)
    if moving and _loop_changes_shared(ta, cex):
        return _resetting(ta, cex, query, left, env)
    where = (f"the loop from configuration {len(cex.schedule)}, where processes go round but no more "
             "messages are sent" if moving else
             f"configuration {len(cex.schedule)}, where nothing changes any more")
    out = [f"why {'going round' if moving else 'waiting'} forever is allowed ({where}: the messages "
           f"sent are all that correct processes will ever send"
           + (f", {shared}" if shared else "")
           + (f"; faulty processes may add up to {faulty}, or nothing" if faulty else "") + "):"]
    for loc, count in last.counters:
        if count <= 0:
            continue
        leaving = [r for r in ta.rules if r.source == loc and not r.is_self_loop]
        if not leaving:
            out.append(f"  {count} at {loc}: no rule leaves it")
            continue
        guards = []
        for r in leaving:
            guard = ta.expand(r.guard)
            try:
                value = holds(guard, env)
                correct_only = holds(guard, {**env, **{t: 0 for t in terms}})
            except EvaluationError:
                continue
            if not value:
                state = "false, for ever"
            elif not correct_only:
                state = ("true only with messages from faulty processes, which need not arrive "
                         "(false with " + ", ".join(f"{t} = 0" for t in terms) + ")")
            elif loc in left:
                state = "true, and the loop takes a step out of it, which is what the justice asks"
            else:
                state = "true, yet the justice below does not force this step"
            guards.append(f"`{to_text(r.guard)}` ({r.source} -> {r.target}) is {state}")
        out.append(f"  {count} at {loc}: " + "; ".join(guards))
    reading = loop_reading(ta, query) if moving else FairReading(query.negation)
    if reading.pairs:
        out.append("  justice on the loop, per process (each process that stays enabled leaves in "
                   "turn): " + "; ".join(_pair_status(p, left, cex, env) for p in reading.pairs))
        return out
    conjuncts = _justice(query.negation)
    if conjuncts:
        parts = []
        for c in conjuncts:
            try:
                parts.append(f"`{to_text(c)}` {'holds' if holds(c, env) else 'does not hold'}")
            except EvaluationError:
                continue
        out.append("  justice there: " + "; ".join(parts))
    return out


def _loop_changes_shared(ta: ThresholdAutomaton, cex: Counterexample) -> bool:
    """Whether a shared variable takes several values along the loop (a reset or a decrement on it)."""
    loop = cex.replay.configurations[len(cex.schedule):]
    return any(len({dict(c.shared)[v] for c in loop}) > 1 for v in ta.shared)


def _resetting(ta: ThresholdAutomaton, cex: Counterexample, query: TemporalQuery, left: set[str],
               env: dict[str, int]) -> list[str]:
    """Why a loop that changes shared variables may repeat: messages are sent and reset again each
    time round, so no guard need stay as it is; what is said is per occupied location whether the
    loop leaves it, and how the justice is met per process (``ir/eltl/justice.py``)."""
    loop = cex.replay.configurations[len(cex.schedule):]
    out = [f"why going round forever is allowed (the loop from configuration {len(cex.schedule)} "
           "changes shared variables, by a reset or a decrement, so its guards need not stay as "
           "they are):"]
    for loc, count in loop[0].counters:
        if count <= 0:
            continue
        if loc in left:
            out.append(f"  {count} at {loc}: the loop takes a step out of it")
            continue
        leaving = [r for r in ta.rules if r.source == loc and not r.is_self_loop]
        states = []
        for r in leaving:
            try:
                when = sum(holds(ta.expand(r.guard), c.env(cex.parameters)) for c in loop)
            except EvaluationError:
                continue
            states.append(f"`{to_text(r.guard)}` ({r.source} -> {r.target}) is "
                          + ("false at every loop configuration" if not when else
                             f"true at {when} of the loop's {len(loop)} configurations, yet no "
                             "justice of the property forces this step"))
        out.append(f"  {count} at {loc}: " + ("; ".join(states) if states else "no rule leaves it"))
    reading = loop_reading(ta, query)
    if reading.pairs:
        out.append("  justice on the loop, per process (each process that stays enabled leaves in "
                   "turn): " + "; ".join(_pair_status(p, left, cex, env) for p in reading.pairs))
    return out


def _pair_status(pair: JusticePair, left: set[str], cex: Counterexample, env: dict[str, int]) -> str:
    text = (f"`{pair.location} == 0`" if pair.waived == BoolConst(False)
            else f"`{to_text(pair.waived)} || {pair.location} == 0`")
    if pair.location in left:
        return f"{text}: the loop leaves {pair.location}"
    loop = cex.replay.configurations[len(cex.schedule):]
    if all(dict(c.counters)[pair.location] == 0 for c in loop):
        return f"{text}: {pair.location} stays empty"
    waived = all(holds(pair.waived, c.env(cex.parameters)) for c in loop)  # at every one (a reset may change it)
    return f"{text}: waived ({to_text(pair.waived)} holds)" if waived else f"{text}: not met"


def _justice(negation: Expr) -> list[Expr]:
    """The conjuncts of the bodies of ``<>[]`` in the negated property (its justice)."""
    out: list[Expr] = []
    for node in walk(negation):
        if isinstance(node, Eventually) and isinstance(node.arg, Always):
            body = node.arg.arg
            parts = body.args if isinstance(body, And) else (body,)
            out.extend(parts)
    return out
