"""A Parametric Promela file's runs at one valuation, with every process's receive counts: the
instance in which a lasso under the file's own fairness is searched and replayed.

The threshold automaton forgets the receive counts (``passes/rta_to_ta/eliminate.py``), so a lasso
under the file's fairness found there (``passes/rta_to_ta/file_fairness.py``, an over-approximation)
may be no run of the file: it may freeze a process whose count could not yet reach what is
delivered later. Here the counts are kept: at a fixed valuation a process's state is its location
and its count of every message type, so a location of this automaton is ``(ℓ, c)``, named
``ℓ_c1_c2…``. A step of the file is one rule: from ``(ℓ, c)`` receive up to ``c' >= c`` (a guard:
Env's bound with ``received(M) = c'``, over the send counters) and take a path whose condition holds
at ``c'`` — a rule of the receive automaton to ``(ℓ', c')``, or a stay (the front end's stutter
conditions) to ``(ℓ, c')``. A stay that receives nothing is the only self-loop: a run is infinite
only if some process keeps taking steps, as in the file's interleaving. The file's fairness is the
state formula "every process has every message": ``κ[ℓ_c] == 0 || ns_M + D <= c_M`` per location
and type, assumed as ``<>[]`` (counts and sends only grow).

The explicit engine (``tactl/engines/explicit_ltl.py``) searches this automaton; its lasso is
replayed by the simulator on it, with that justice in the formula. :func:`search` tries the
smallest valuations of the resilience condition in turn, within a budget of processes.
:func:`realize` turns a lasso of the derived justice into a run of this automaton directly (no
search), which is how a VIOLATED of both readings is confirmed cheaply.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from tactl.ir.evaluate import evaluate, holds
from tactl.ir.expr import (Always, And, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Name, conj, disj,
                           names, substitute, summation)
from tactl.ir.rta.model import ReceiveTA, received
from tactl.ir.ta.model import Location, Property, Rule, ThresholdAutomaton, Update
from tactl.passes.rta_to_ta.eliminate import Translation
from tactl.passes.rta_to_ta.crash_copies_fairness import counted_crash_steps, crashed_resets
from tactl.passes.rta_to_ta.crash_fairness import crash_steps
from tactl.passes.rta_to_ta.env import CRASHED, sent, sent_by_crashing
from tactl.passes.rta_to_ta.file_fairness import leaving
from tactl.passes.rta_to_ta.own_fairness import FileFairness
from tactl.passes.rta_to_ta.static_steps import counted as kept_counts

MAX_LOCATIONS = 4000  # local states (ℓ, c) of one instance; beyond, the instance is not built
MAX_RULES = 40000


@dataclass(frozen=True)
class Instance:
    ta: ThresholdAutomaton
    parameters: dict[str, int]
    counts: dict[str, tuple[str, tuple[int, ...]]]  # location of this TA -> (ℓ, counts)


class TooLarge(Exception):
    pass


def _value(e: Expr, values: dict[str, int]) -> int:
    return int(evaluate(e, values))


def unfold(rta: ReceiveTA, translation: Translation, fairness: FileFairness, values: dict[str, int],
           receive_cap: int | None = None) -> Instance | None:
    """The automaton of the module docstring at ``values`` (every parameter), or None where it is
    not built: an Env with existential (auxiliary) variables, a self-loop rule that sends. The
    fairness formula's other conjuncts (``fairness.extra``) are assumed too; a message type the
    file receives one at a time (``fairness.one_per_step``) grows by at most 1 per step, one that
    no path of a rule receives (``fairness.kept``) not at all in it. A crash model's instance has
    the file's crash steps and crash location (``passes/rta_to_ta/crash_fairness.py``); a file with
    static counters has the steps that keep their counts (``passes/rta_to_ta/static_steps.py``).
    ``receive_cap``: no count grows beyond it (0: the runs in which nothing is received, a part of
    the file's runs small enough to search where the whole instance is not)."""
    stays, extra = dict(fairness.stays), fairness.extra
    env = translation.environment
    if env.auxiliary or any(r.is_self_loop and r.sends for r in rta.rules) or rta.crash_rules:
        return None
    messages = list(kept_counts(rta, fairness))  # the static counters last (static_steps.py)
    static = dict(fairness.static.counters) if fairness.static is not None else {}
    sent_types = [m for m in messages if m not in static]
    one = {m for m in messages if m in fairness.one_per_step}
    rcv = {m: received(m).name for m in messages}
    crashing, crash_sends = crash_steps(rta, translation, fairness.crashed_stutter, fairness.crashed_kept,
                                        dict(fairness.zeroed))
    if fairness.crash_paths:  # the file counts its crashes and cut broadcasts both (crash_copies_fairness.py)
        counted = counted_crash_steps(rta, translation, fairness.crash_paths)
        crashing = {**counted[0], **{cr: out for cr, out in crashing.items() if cr not in (loc.name for loc in rta.locations)}}
        crash_sends = counted[1] if counted[0] else crash_sends
    crashing = crashed_resets(crashing, dict(fairness.stay_zeroed))
    crash_bound = Compare("<", Name(CRASHED), IntConst(values[env.crash_bound])) if crash_sends else BoolConst(True)
    counted_sends = (*(sent(m) for m in sent_types), *crash_sends)
    crashed = {n: IntConst(0) for n in env.shared(tuple(sent_types)) if n not in counted_sends}
    bounds = [substitute(c, crashed) for c in env.constraints if any(n.name in rcv.values() for n in names(c))]
    bounds += [Compare("<=", received(c), IntConst(top)) for c, top in static.items()]
    processes = _value(env.processes, values)
    most_sent = {v: processes * sum(1 for r in rta.rules if m in r.sends) for m in sent_types
                 for v in counted_sends if v in (sent(m), sent_by_crashing(m))}

    def within(counts: dict[str, int], sent_now: dict[str, int]) -> bool:
        at = {**values, **{rcv[m]: counts.get(m, 0) for m in messages}, **sent_now}
        return all(holds(c, at) for c in bounds)

    cap = {c: top if receive_cap is None else min(top, receive_cap) for c, top in static.items()}
    for m in sent_types:
        k = 0
        while within({x: (k + 1 if x == m else 0) for x in sent_types}, most_sent):
            k += 1
            if k > 4 * (processes + sum(values.values())):
                raise TooLarge(f"the receive bound of {m} does not bound the counts")
        cap[m] = k if receive_cap is None else min(k, receive_cap)

    def bound_guard(counts: tuple[int, ...]) -> Expr:
        """Env with received(M) = counts: the send counters it needs (parameters fixed)."""
        at = {rcv[m]: IntConst(c) for m, c in zip(messages, counts)}
        at.update({p: IntConst(v) for p, v in values.items()})
        return conj(*(substitute(c, at) for c in bounds))

    # per location, its steps: (target, condition, shared variables incremented, counts kept, counts reset)
    paths: dict[str, list[tuple[str, Expr, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]] = {}
    if fairness.static is not None:  # the file's steps with the static counts in their conditions
        static_stays = dict(fairness.static.stays)
        for loc in rta.locations:
            out = [(t, g, tuple(sent(m) for m in sends), (), ()) for s, t, g, sends in fairness.static.rules
                   if s == loc.name]
            if loc.name in static_stays:
                out.append((loc.name, static_stays[loc.name], (), (), dict(fairness.stay_zeroed).get(loc.name, ())))
            paths[loc.name] = out + crashing.get(loc.name, [])
    for loc in rta.locations if fairness.static is None else ():
        # the file's stutter steps are the stay conditions; a self-loop rule without sends is not
        # one of its steps (a waiting self-loop has guard true: passes/pml_to_rta/waiting.py)
        out = [(r.target, r.guard, tuple(sent(m) for m in r.sends), fairness.kept_by(r.id), fairness.zeroed_by(r.id))
               for r in rta.rules if r.source == loc.name and (r.source != r.target or r.sends)]
        if loc.name in stays:
            out.append((loc.name, stays[loc.name], (), (), dict(fairness.stay_zeroed).get(loc.name, ())))
        paths[loc.name] = out + crashing.get(loc.name, [])
    for loc, out in crashing.items():
        paths.setdefault(loc, out)
    zero = tuple(0 for _ in messages)
    start = [(name, zero) for name in rta.initial]
    seen: dict[tuple[str, tuple[int, ...]], str] = {}
    queue = list(start)
    rules: list[Rule] = []

    def name(state: tuple[str, tuple[int, ...]]) -> str:
        if state not in seen:
            if len(seen) >= MAX_LOCATIONS:
                raise TooLarge(f"more than {MAX_LOCATIONS} (location, counts) states")
            seen[state] = "_".join([state[0], *map(str, state[1])])
            queue.append(state)
        return seen[state]

    for s in start:
        name(s)
    while queue:
        loc, c = queue.pop(0)
        src = seen[(loc, c)]
        for c2 in itertools.product(*(range(lo, (min(lo + 1, cap[m]) if m in one else cap[m]) + 1)
                                      for lo, m in zip(c, messages))):
            at = {**values, **{rcv[m]: v for m, v in zip(messages, c2)}}
            guard = BoolConst(True) if c2 == c else bound_guard(c2)
            for target, cond, increments, kept, reset in paths.get(loc, ()):
                if any(c2[k] != c[k] for k, m in enumerate(messages) if m in kept):
                    continue
                budget = CRASHED in {n.name for n in names(cond)}  # a stay only once the crashes are spent
                if budget:
                    cond_here = substitute(cond, {k: IntConst(v) for k, v in at.items()})
                elif not holds(cond, at):
                    continue
                dst = name((target, tuple(0 if m in reset else v for m, v in zip(messages, c2))))
                if len(rules) >= MAX_RULES:
                    raise TooLarge(f"more than {MAX_RULES} rules")
                updates = tuple(Update(v, summation(Name(v), [("+", IntConst(1))])) for v in increments)
                rules.append(Rule(len(rules), src, dst, conj(guard, *([crash_bound] if CRASHED in increments else []),
                                                             *([cond_here] if budget else [])), updates))
    locations = tuple(Location(n) for n in seen.values())
    by_loc: dict[str, list[str]] = {}
    for (loc, _), n in seen.items():
        by_loc.setdefault(loc, []).append(n)
    total = {loc: summation(Name(ns[0]), [("+", Name(n)) for n in ns[1:]]) for loc, ns in by_loc.items()}
    initial = [seen[s] for s in start]
    shared = counted_sends
    inits = [Compare("==", summation(Name(initial[0]), [("+", Name(n)) for n in initial[1:]]), env.processes)]
    inits += [Compare("==", Name(n), IntConst(0)) for n in seen.values() if n not in initial]
    inits += [Compare("==", Name(v), IntConst(0)) for v in shared]
    delivered = []
    for (loc, c), n in seen.items():
        for m, count in zip(messages, c):
            g = None if m in static else env.guaranteed_count(m)  # the file promises no static delivery
            if g is not None:
                # `<= 0`, not `== 0`: read literally, never per process (ir/eltl/justice.py reads
                # `ℓ == 0` clauses so on a cycle): a process going round at this count is not fair
                delivered.append(disj(Compare("<=", Name(n), IntConst(0)), Compare("<=", g, IntConst(count))))
    everything = conj(*delivered) if delivered else BoolConst(True)
    empty = {loc.name: IntConst(0) for loc in (*rta.locations, *translation.ta.locations) if loc.name not in total}
    counted = {**total, **empty}
    # [](ℓ != 0 -> <>(ℓ == 0)) for a location no rule enters is <>[](ℓ == 0): into the justice, so
    # that the formula stays in the fragment the explicit engine decides; other conjuncts as written
    emptied = leaving(rta, extra)
    everything = conj(everything, *(Compare("==", total.get(n, IntConst(0)), IntConst(0)) for n in emptied))
    rest = [c for c in (extra.args if isinstance(extra, And) else (extra,))
            if c != BoolConst(True) and not any(c in _leaving_conjuncts(n) for n in emptied)]
    assumed = conj(Eventually(Always(everything)), *(substitute(c, counted) for c in rest))
    props = tuple(Property(p.name, Implies(assumed, substitute(p.formula, counted))) for p in rta.properties)
    ta = ThresholdAutomaton(f"{translation.ta.name}_counts", shared=shared, parameters=translation.ta.parameters,
                            assumptions=translation.ta.assumptions, locations=locations, inits=tuple(inits),
                            rules=tuple(rules), properties=props)
    return Instance(ta, dict(values), {n: s for s, n in seen.items()})


def _leaving_conjuncts(location: str) -> tuple[Expr, Expr]:
    empty = Compare("==", Name(location), IntConst(0))
    return Always(Implies(Compare("!=", Name(location), IntConst(0)), Eventually(empty))), Always(Eventually(empty))


def _message(shared: str, messages: tuple[str, ...]) -> str:
    return next((m for m in messages if sent(m) == shared), shared)


def _state(inst: Instance, messages: tuple[str, ...], location: str) -> str:
    loc, counts = inst.counts[location]
    return f"{loc} ({', '.join(f'{m}: {c}' for m, c in zip(messages, counts))} received)"


def run_lines(inst: Instance, messages: tuple[str, ...], cex) -> list[str]:
    """The lasso of ``cex`` (on ``inst.ta``) in words: who moves, with which counts, and what
    stays forever; every configuration's send counters."""
    configs = cex.replay.configurations
    start = configs[0] if configs else cex.initial
    out = ["initially: " + ", ".join(f"{k} at {_state(inst, messages, n)}" for n, k in start.counters if k)]
    prefix = len(cex.schedule)
    for i, step in enumerate(cex.schedule + (cex.cycle or []), 1):
        rule = inst.ta.rules[step.rule]
        sent = ", ".join(f"{_message(v, messages)} {x}" for v, x in configs[i].shared) if i < len(configs) else ""
        who = f"{step.factor} process{'' if step.factor == 1 else 'es'}"
        out.append(f"step {i}{'*' if i > prefix else ''}: {who} {_state(inst, messages, rule.source)} -> "
                   f"{_state(inst, messages, rule.target)}" + (f"; sent so far: {sent}" if sent else ""))
    if cex.cycle:  # a loop through several configurations (passes/rta_to_ta/file_cycles.py)
        out.append("steps marked * repeat for ever, from the configuration after step "
                   f"{prefix}: every process has every message the file's fairness promises, and one "
                   "that takes no step marked * has stopped")
        return out
    last = configs[-1] if configs else start
    out.append("forever after: " + ", ".join(f"{k} at {_state(inst, messages, n)}" for n, k in last.counters if k))
    if cex.loop is not None:
        out.append("  (processes at " + _state(inst, messages, inst.ta.rules[cex.loop].source)
                   + " keep taking steps that receive nothing new; every other process has stopped, "
                   "having received every message sent)")
    return out


def run_trace(inst: Instance, messages: tuple[str, ...], cex) -> dict[str, object]:
    """The lasso of ``cex`` (on ``inst.ta``) as data, for the ITF trace of ``--itf``
    (tactl/report/itf.py): the configurations over the locations some process occupies during
    the run (the others stay 0; an instance has thousands), each location's meaning, and the
    index of the configuration where the repeated part starts."""
    configs, loop = cex.states()
    used = [loc.name for loc in inst.ta.locations if any(dict(c.counters).get(loc.name) for c in configs)]
    steps = cex.schedule + (cex.cycle or [])
    return {"parameters": dict(cex.parameters),
            "locations": {name: _state(inst, messages, name) for name in used},
            "shared": {v: _message(v, messages) for v in inst.ta.shared},
            "configurations": [{"locations": {n: dict(c.counters).get(n, 0) for n in used},
                                "shared": dict(c.shared)} for c in configs],
            "steps": [{"from": inst.ta.rules[s.rule].source, "to": inst.ta.rules[s.rule].target,
                       "factor": s.factor} for s in steps[:len(configs) - 1]],
            "loop": loop}


def realize(inst: Instance, ta: ThresholdAutomaton, cex, values: dict[str, int],
            guaranteed: tuple[tuple[str, Expr], ...], name: str):
    """The derived justice's lasso ``cex`` (on ``ta``) as a run of the file: the same moves, one
    process at a time, each receiving as little as its step allows; then every process receives, by
    steps that change nothing else, what the file's fairness promises; then one process keeps
    taking a step that changes nothing. Replayed by the simulator on ``inst.ta`` with the file's
    fairness in the formula; a Counterexample, or None where this construction gives no such run
    (which says nothing: another run may exist)."""
    from tactl.engines.result import Counterexample  # lazy: only when a lasso is realized
    from tactl.engines.simulate import Configuration, Step, replay_run
    from tactl.ir.eltl.formula import TemporalQuery, temporal_query

    where = {state: n for n, state in inst.counts.items()}
    out: dict[str, list[tuple[int, Rule]]] = {}
    for k, rule in enumerate(inst.ta.rules):
        out.setdefault(rule.source, []).append((k, rule))
    zero = tuple(0 for _ in guaranteed)
    procs: list[str] = [where[(loc, zero)] for loc, k in cex.initial.counters for _ in range(k) if k]
    shared = {v: 0 for v in inst.ta.shared}
    schedule: list[Step] = []

    def fire(p: int, k: int, rule: Rule) -> None:
        procs[p] = rule.target
        for u in rule.updates:
            shared[u.var] += u.increment() or 0
        schedule.append(Step(k, 1))

    def best(p: int, target: str | None) -> tuple[int, Rule] | None:
        """The enabled step of process ``p`` to ``target`` that receives the least (a move: the
        guards of later moves may bound a count from above), or, staying (``None``), the most."""
        options = [(k, r) for k, r in out.get(procs[p], ()) if r.source != r.target
                   and inst.counts[r.target][0] == (target or inst.counts[r.source][0])
                   and holds(r.guard, {**values, **shared})]
        pick = min if target else max
        return pick(options, key=lambda kr: sum(inst.counts[kr[1].target][1]), default=None)

    def route(p: int, target: str) -> list[tuple[int, Rule]] | None:
        """Steps that change nothing else (receiving one at a time where the file does), then the
        move to ``target`` receiving the least: the fewest such steps (breadth first)."""
        env = {**values, **shared}
        paths, seen = [(procs[p], [])], {procs[p]}
        while paths:
            at, path = paths.pop(0)
            moves = [(k, r) for k, r in out.get(at, ()) if inst.counts[r.target][0] == target
                     and r.source != r.target and holds(r.guard, env)]
            if moves:
                return path + [min(moves, key=lambda kr: sum(inst.counts[kr[1].target][1]))]
            for k, r in out.get(at, ()):
                if r.target not in seen and inst.counts[r.target][0] == inst.counts[at][0] and holds(r.guard, env):
                    seen.add(r.target)
                    paths.append((r.target, path + [(k, r)]))
        return None

    for step in cex.schedule:
        rule = ta.rules[step.rule]
        if rule.source == rule.target:
            continue
        for _ in range(step.factor):
            movers = [p for p, at in enumerate(procs) if inst.counts[at][0] == rule.source]
            choice = next(((p, c) for p in movers for c in [route(p, rule.target)] if c), None)
            if choice is None:
                return None
            for k, r in choice[1]:
                fire(choice[0], k, r)
    at = {**values, **shared}
    for p in range(len(procs)):
        while any(c < evaluate(g, at) for c, (_, g) in zip(inst.counts[procs[p]][1], guaranteed)):
            choice = best(p, None)
            if choice is None:
                break
            fire(p, *choice)
    loop = next((k for p in procs for k, r in out.get(p, ()) if r.source == r.target and not r.updates
                 and holds(r.guard, {**values, **shared})), None)
    if loop is None:
        return None
    prop = next(p for p in inst.ta.properties if p.name == name)
    query = temporal_query(inst.ta, prop)
    if not isinstance(query, TemporalQuery):
        return None
    counters = {n: 0 for n in inst.counts}
    for loc, k in cex.initial.counters:
        if k:
            counters[where[(loc, zero)]] += k
    initial = Configuration.of(counters, {v: 0 for v in inst.ta.shared})
    check = replay_run(inst.ta, query.negation, True, values, initial, schedule, loop)
    return Counterexample(values, initial, schedule, check, loop=loop) if check.ok else None
