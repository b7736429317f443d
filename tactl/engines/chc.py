"""The CHC engine (``tactl check --engine chc``): safety of any threshold automaton, resets included.

The steady-schema engine (tactl/engines/parametric.py) decides automata whose shared variables
only grow; a rule that resets a variable (``x' == 0``) takes it outside that class. Here the
counter system (tactl/engines/chc_system.py) becomes three kinds of constrained Horn clauses over
one unknown relation ``Inv`` of parameters, location counters and shared variables —

    initial(s) → Inv(s)             Inv(s) ∧ enabled_r(s) → Inv(after_r(s))   (every rule r)
    Inv(s) ∧ bad(s) → false

— and z3's Spacer looks for an ``Inv`` that satisfies them all or for a derivation of ``false``.
Neither answer is taken on trust:

* no derivation (HOLDS): Spacer's ``Inv`` is an inductive invariant, re-checked as three plain
  SMT questions by z3 and, when its Python package is installed, by cvc5
  (tactl/engines/chc_certificate.py); a failed or undecided re-check is UNKNOWN;
* a derivation (VIOLATED): its rule sequence is solved for concrete parameters and
  configurations, and the run is replayed by the simulator (tactl/engines/simulate.py); a run
  that does not replay is UNKNOWN.

The state has, besides the automaton's components, ghost counters and the facts proved of them
(tactl/engines/chc_facts.py: how often each rule fired, the accounting of counters and shared
variables, guards that stay true once a rule fired), and for a nested safety property the flags
of a monitor of its negation (tactl/engines/chc_monitor.py), so that it too is a reachability
question. Liveness is UNSUPPORTED with the reason. The solver runs under the command's deadline.
"""

from __future__ import annotations

import time
from dataclasses import replace

import z3

from tactl.engines.chc_certificate import recheck
from tactl.engines.chc_facts import with_facts
from tactl.engines.chc_monitor import with_monitor
from tactl.engines.chc_system import CounterSystem, counter_system
from tactl.engines.parametric import verdict_scope
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, PropertyResult
from tactl.engines.simulate import Configuration, Step, replay, replay_run
from tactl.ir.eltl.formula import Branch, TemporalQuery, cut_points_only, reach_question
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.expr import BoolConst
from tactl.ir.linear import NonLinearError
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.ir.unknowns import unknowns_reason
from tactl.util import deadline
from tactl.util.teardown import own_context

ENGINE = "chc"
# The name of the clause that puts initial states into Inv; rules are named by their index.
INIT = "init"
# Spacer stops this long before the command's deadline: it reports a timeout by raising from
# z3's error callback, and the deadline's own interrupt landing inside that callback would be
# printed and lost instead of stopping the check.
MARGIN_MS = 500


def check(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None = None,
          limit_s: float | None = None) -> PropertyResult:
    """The verdict on ``query`` for every parameter valuation (restricted by ``parameters``);
    ``limit_s`` caps Spacer's time below the command's deadline (tactl/engines/chc_fallback.py
    keeps the rest for its bounded search). A nested safety property is one question per branch
    of its negation (tactl/engines/chc_monitor.py): it holds when every branch is unreachable."""
    started = time.perf_counter()
    question = reach_question(query)
    if question is None and not cut_points_only(query):
        return PropertyResult(query.property, query.kind, UNSUPPORTED, ENGINE, reason=(
            f"{query.formula_class.value} property: the chc engine decides safety (reachability and "
            "nested safety) only, so far"))
    if ta.unknowns:
        return PropertyResult(query.property, query.kind, UNSUPPORTED, ENGINE, reason=unknowns_reason(ta.unknowns))
    found = []
    for branch in (None,) if question is not None else query.branches:
        found.append(_branch(ta, query, question, branch, parameters, limit_s, started))
        if found[-1].verdict == VIOLATED:
            return found[-1]
    return _together(found, time.perf_counter() - started)


def _branch(ta: ThresholdAutomaton, query: TemporalQuery, question: ReachQuery | None, branch: Branch | None,
            parameters: dict[str, int] | None, limit_s: float | None, started: float) -> PropertyResult:
    """The verdict on the reachability ``question``, or on one ``branch`` of a nested safety
    property's negation (``question`` None)."""
    def result(verdict: str, **kw: object) -> PropertyResult:
        return PropertyResult(query.property, query.kind, verdict, ENGINE,
                              time_s=time.perf_counter() - started, **kw)  # type: ignore[arg-type]

    try:
        # a context of its own: Spacer's search depends on the order z3 created the terms in
        context = own_context(z3.Context())
        if branch is None:
            system = counter_system(ta, question, parameters, context)
        else:
            system = with_monitor(counter_system(ta, ReachQuery(query.property, branch.initial, BoolConst(True)),
                                                 parameters, context), branch)
        system = with_facts(ta, system).system
    except (NonLinearError, TypeError, ValueError) as e:
        return result(UNSUPPORTED, reason=f"the counter system is not linear integer arithmetic: {e}")
    fp, inv = _horn(system, limit_s)
    try:
        with deadline.cancellable(fp.ctx):
            answer = fp.query(z3.And(inv(*system.state), system.assumed, system.bad))
        why = fp.reason_unknown() if answer == z3.unknown else ""
    except z3.Z3Exception as e:  # Spacer reports its timeout, and a cancelled call, by raising
        stop = deadline.interruption(e)
        if stop is not None:  # cancelled by a stop signal, whose interrupt z3's callback swallowed
            raise stop from None
        answer, why = z3.unknown, e.value.decode() if isinstance(e.value, bytes) else str(e.value)
    if answer == z3.unknown:
        left = deadline.remaining()
        if left is not None and left * 1000 < MARGIN_MS * 2:  # stopped by its share of the deadline
            return result(UNKNOWN, queries=1, reason=deadline.timeout_reason())
        return result(UNKNOWN, queries=1, reason=f"Spacer gave no answer ({why} after "
                      f"{time.perf_counter() - started:.1f} s)")
    if answer == z3.unsat:
        # What Spacer found, with the facts the clauses assumed: the invariant to re-check
        invariant = z3.And(z3.substitute_vars(fp.get_cover_delta(-1, inv), *system.state), system.assumed)
        certificate = recheck(system, invariant)
        details = certificate.details()
        if not certificate.ok:
            return result(UNKNOWN, queries=1 + certificate.queries, details=details,
                          reason="Spacer's inductive invariant was not confirmed: " + certificate.summary())
        return result(HOLDS, queries=1 + certificate.queries, scope=verdict_scope(ta, parameters), details=details,
                      obligations=certificate.obligations)
    rules = _trace(fp)
    counterexample = _counterexample(ta, system, query if question is None else question, rules)
    if counterexample is None:
        return result(UNKNOWN, queries=2, reason=f"Spacer found a violation along {len(rules)} "
                      "rule firings, but no concrete run of them was found to replay")
    if not counterexample.replayed:
        return result(UNKNOWN, queries=2, counterexample=counterexample,
                      reason="Spacer's run did not replay in the simulator: " + counterexample.replay.message)
    return result(VIOLATED, queries=2, counterexample=counterexample)


def _together(found: list[PropertyResult], time_s: float) -> PropertyResult:
    """One verdict from the branches' (none violated): HOLDS when every branch holds, each
    branch's invariant and obligations kept; else the first branch that did not hold."""
    if len(found) == 1 or any(r.verdict != HOLDS for r in found):
        first = next((r for r in found if r.verdict != HOLDS), found[0])
        return replace(first, time_s=time_s)
    details = {key: "; ".join(f"branch {i}: {r.details[key]}" for i, r in enumerate(found, 1) if key in r.details)
               for key in found[0].details}
    # each branch's three questions under labels of their own (emit writes one file per label)
    return replace(found[0], time_s=time_s, queries=sum(r.queries for r in found), details=details,
                   obligations=[replace(o, label=f"branch{i}.{o.label}")
                                for i, r in enumerate(found, 1) for o in r.obligations])


def _horn(system: CounterSystem, limit_s: float | None = None) -> tuple[z3.Fixedpoint, z3.FuncDeclRef]:
    """The clauses, in a Spacer instance in the system's own z3 context.

    That context is fresh (:func:`check` builds the counter system there): Spacer's search
    depends on the order in which z3 created the terms, which the queries asked before in the
    same process would otherwise set (rb-reset_V1.eta of TACO's reset benchmarks: decided in
    2 s from a fresh context, no answer in 150 s after the initial-configuration queries tactl
    check asks first). Every rule is kept (no slicing or inlining), so that a derivation names
    the automaton's rules and the relation keeps all its arguments."""
    context = system.state[0].ctx
    fp = z3.Fixedpoint(ctx=context)
    fp.set(engine="spacer")
    # global guidance: without it Spacer diverges on tiny automata with resets (counting x <= 1,
    # x <= 2, … instead of relating x to a counter)
    fp.set("spacer.global", True)
    for option in ("xform.slice", "xform.inline_linear", "xform.inline_eager"):
        fp.set(option, False)
    timeout = deadline.solver_timeout_ms(limit_s)
    if timeout is not None:
        fp.set("timeout", max(1, timeout - MARGIN_MS))
    inv = z3.Function("Inv", *(z3.IntSort(context) for _ in system.state), z3.BoolSort(context))
    fp.register_relation(inv)
    fp.declare_var(*system.state)
    fp.rule(inv(*system.state), system.initial, name=INIT)
    for t in system.transitions:
        fp.rule(inv(*t.after), z3.And(inv(*system.state), system.assumed, t.enabled), name=str(t.rule))
    return fp, inv


def _trace(fp: z3.Fixedpoint) -> list[int]:
    """The rule indices of Spacer's derivation, first firing first."""
    names = fp.get_rule_names_along_trace()
    return [int(n) for n in reversed(names) if n.isdigit()]


def _counterexample(ta: ThresholdAutomaton, system: CounterSystem, question: ReachQuery | TemporalQuery,
                    rules: list[int]) -> Counterexample | None:
    """A concrete run firing ``rules`` in order from an initial state to a bad one, found by one
    SMT query over the unrolled sequence, with the simulator's replay attached (of the
    reachability ``question``, or of a nested safety query's negation)."""
    context = system.state[0].ctx
    states = [tuple(z3.Int(f"{n}@{i}", context) for n in system.names) for i in range(len(rules) + 1)]
    solver = z3.Solver(ctx=context)
    timeout = deadline.solver_timeout_ms()
    if timeout is not None:
        solver.set("timeout", timeout)
    solver.add(system.rename(system.initial, states[0]))
    for i, r in enumerate(rules):
        t = system.transitions[r]
        solver.add(system.rename(t.enabled, states[i]))
        solver.add(*(a == system.rename(b, states[i]) for a, b in zip(states[i + 1], t.after)))
    solver.add(system.rename(system.bad, states[-1]))
    if solver.check() != z3.sat:
        return None
    model = solver.model()

    def value(x: z3.ArithRef) -> int:
        return model.eval(x, model_completion=True).as_long()

    first = dict(zip(system.names, (value(x) for x in states[0])))
    params = {p: first[p] for p in system.parameters}
    initial = Configuration.of({loc: first[loc] for loc in system.locations},
                               {v: first[v] for v in system.shared})
    schedule = [Step(r, 1) for r in rules]
    replayed = replay(ta, question, params, initial, schedule) if isinstance(question, ReachQuery) else \
        replay_run(ta, question.negation, False, params, initial, schedule)  # nested safety: by LTL semantics
    return Counterexample(params, initial, schedule, replayed, violating_step=len(schedule))
