"""The parameterized engine: one steady-segment SMT query per safety property, answered by z3.

``unsat`` means the property holds for every parameter valuation satisfying the resilience
condition. ``sat`` gives a model; the engine first asks for one with small parameters (easier to
read, and within reach of the explicit oracle), turns its firing counts into a schedule and
replays it with ``tactl.engines.simulate``. Only a replayed counterexample makes the verdict
``violated``; a timeout, a solver ``unknown`` or a failed replay makes it ``unknown``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import partial
from collections.abc import Callable

from tactl.util import deadline
from tactl.engines.result import (HOLDS, NO_LOOP, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, Obligation,
                                  PropertyResult)
from tactl.ir.eltl.cycles import cycle_reason
from tactl.ir.eltl.formula import TemporalQuery, lasso_reason
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.expr import BoolConst
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.emit.smtlib import emit_smtlib, smt_name
from tactl.passes.ta_to_smt.lasso import NeedsBounds, encode_query, under_passes, under_segments
from tactl.passes.ta_to_smt.guard_abstraction import UnsupportedAutomaton
from tactl.passes.ta_to_smt.steady import SteadyLayout, encode, usable_rules_premise
from tactl.engines import budget
from tactl.engines.minimal_params import OFF, QUERY_MS, enabled, minimise
from tactl.engines.probe import probe
from tactl.engines.schedule import order_steady
from tactl.engines.simulate import Configuration, Step, enabled_loops, replay, replay_run

ENGINE = "parametric"
SMALL_PARAMETER_SUMS = (8, 24)  # tried in turn after a first sat answer
# Eliminating the flow equations' definitions before search roughly halves z3's time on the
# larger ISOLA'18 automata compared with z3's default solver (make bench's checker table shows
# it); the answers are identical on every benchmark and test automaton. The definitions are
# already solved for their variable (``x = t``), so solve-eqs is told not to isolate variables of
# other linear equations (``theory_solver``): those substitutions put sums into sums, and made
# the query larger and slower to decide on every random19 and ISOLA'18 automaton where they fired.
PIPELINE = ("simplify", "propagate-values", ("solve-eqs", {"theory_solver": False}), "smt")


def pipeline():
    """z3's tactic for :data:`PIPELINE` (a step is a tactic name, or a name with its parameters)."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    return z3.Then(*(z3.With(s[0], **s[1]) if isinstance(s, tuple) else s for s in PIPELINE))


def check(ta: ThresholdAutomaton, question: ReachQuery,
          progress: Callable[[str], None] | None = None,
          parameters: dict[str, int] | None = None, *, readable: bool = True) -> PropertyResult:
    """The verdict on ``question``; solver calls get the time left before the command's
    deadline (``tactl.util.deadline``), which also interrupts the Python parts of the work.
    ``readable=False``: a violation keeps the first model's parameters (see ``solve``)."""
    start = time.perf_counter()
    encoding = encode(ta, question, parameters=parameters)
    solved = solve(ta, encoding, question.property, progress, readable)
    queries = solved.queries

    def result(verdict: str, **kw: object) -> PropertyResult:
        return PropertyResult(question.property, "safety", verdict, ENGINE,
                              time.perf_counter() - start, queries, **kw)  # type: ignore[arg-type]

    if solved.answer == "unsat":
        return result(HOLDS, scope=verdict_scope(ta, parameters), details=query_size(encoding),
                      obligations=[Obligation(question.property, solved.smtlib),
                                   premise(ta, question, parameters)])
    if solved.answer != "sat":
        return result(UNKNOWN, reason=solved.why)
    model = solved.model
    counterexample = _counterexample(encoding.layout, question, model)
    if counterexample is not None:
        _minimality(counterexample, solved)
    if counterexample is None or not counterexample.replayed:
        return result(UNKNOWN, reason=unreplayed(counterexample), counterexample=counterexample)
    return result(VIOLATED, counterexample=counterexample, details=query_size(encoding))


@dataclass
class Solved:
    """z3's answer to a query (and its re-queries for small parameters): the model, and whether its
    parameters are proved the smallest."""
    answer: str  # "sat" | "unsat" | "unknown"
    queries: int
    model: object = None  # on sat: a model, with small parameters where z3 finds one
    why: str = ""         # on unknown: z3's reason
    minimal: bool = False  # on sat: its parameters proved the lexicographically smallest
    not_minimal: str = ""  # on sat, when not: why
    first: object = None   # on sat: the model before the minimisation (small parameters)
    smtlib: str = ""       # on unsat: the query's SMT-LIB text (what --certify re-asks)
    stopped: bool = False  # on sat: ``keep_going`` refused the first model, nothing more was asked


def solve(ta: ThresholdAutomaton, encoding, name: str,
           progress: Callable[[str], None] | None, readable: bool = True,
           exact: bool = True, accept: Callable[[object], bool] | None = None,
           keep_going: Callable[[object], bool] | None = None) -> Solved:
    """Ask z3 (the time left before the command's deadline as its timeout); on sat ask again for
    small parameters and initial shared values: readable, and in the explicit oracle's reach.
    Not when ``readable`` is False (a vacuity witness, whose run nobody reads: the re-queries
    cost more than the first answer on random19, e.g. 2.0 s after 1.0 s for p-rabc-cr).
    Then, on an ``exact`` encoding (its unsat proves that no run exists), the parameters are
    minimised lexicographically (``tactl.engines.minimal_params``) — with ``accept``, only when
    the small model passes it (an over-approximation's model must replay first). ``keep_going``
    sees the first model before any re-query: False returns it at once (``stopped``), for a
    caller with a cheaper way to a readable run than re-asking this query. The re-queries and the
    minimisation only make the run smaller: they stop when the property's budget
    (``tactl.engines.budget``) is spent, keeping the model in hand."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    text = emit_smtlib(encoding.query)
    solver = pipeline().solver()
    solver.from_string(text)
    queries = 0

    def ask(*extra: z3.BoolRef, limit_s: float | None = None) -> z3.CheckSatResult:
        nonlocal queries
        queries += 1
        timeout_ms = deadline.solver_timeout_ms(limit_s)
        if timeout_ms is not None:
            solver.set("timeout", timeout_ms)
        return solver.check(*extra)

    def minimising(*extra: z3.BoolRef) -> z3.CheckSatResult:
        """A query that only makes the run smaller: capped per query and by the budget."""
        limit_s, by_budget = budget.wall_limit_s(QUERY_MS / 1000)
        answer = ask(*extra, limit_s=limit_s)
        if answer not in (z3.sat, z3.unsat) and by_budget:
            budget.expire()
        return answer

    answer = ask()
    if answer == z3.unsat:
        return Solved("unsat", queries, smtlib=text)
    if answer != z3.sat:
        why = solver.reason_unknown()
        return Solved("unknown", queries, why=f"z3 gave no answer ({why})" if why else "z3 gave no answer")
    model = solver.model()
    if keep_going is not None and not keep_going(model):
        return Solved("sat", queries, model, stopped=True)
    budget.verdict_known()
    small = [*ta.parameters, *(encoding.layout.shared(0, v) for v in ta.shared)] if readable else []
    cut = None  # why the budget stopped the search for small parameters
    # Small parameters decide the verdict where the first model must still replay (``accept``)
    # or an approximating query's model is searched explicitly at its parameters
    # (tactl/engines/cycle_liveness.py): there the re-queries are not the budget's to cut.
    budgeted = exact and accept is None
    if small:
        total = z3.Sum([z3.Int(smt_name(p)) for p in small])
        for bound in SMALL_PARAMETER_SUMS:
            cut = budget.stop() if budgeted else None
            if cut:
                break
            if progress:
                progress(f"{name}: violated; looking for small parameters (sum <= {bound})")
            answer = minimising(total <= bound) if budgeted else ask(total <= bound, limit_s=QUERY_MS / 1000)
            if answer == z3.sat:
                model = solver.model()
                break
    if not readable:
        return Solved("sat", queries, model, not_minimal="not minimised (a witness nobody reads)")
    if not enabled():
        return Solved("sat", queries, model, not_minimal=f"not minimised ({OFF} is set)")
    if not exact:
        return Solved("sat", queries, model, not_minimal="not shown minimal: the query "
                       "approximates the runs, so its unsat answers prove nothing smaller")
    if accept is not None and not accept(model):
        return Solved("sat", queries, model, not_minimal="not shown minimal: the "
                       "over-approximation's model has no run the simulator replays")
    cut = cut or budget.stop()
    if cut:
        return Solved("sat", queries, model, not_minimal=f"not shown minimal: {cut}", first=model)
    if progress:
        progress(f"{name}: violated; looking for the smallest parameters")
    lex = minimise(solver, minimising, model,
                   [*ta.parameters, *(encoding.layout.shared(0, v) for v in ta.shared)], budget.stop)
    return Solved("sat", queries, lex.model, minimal=lex.proved,
                   not_minimal="" if lex.proved else f"not shown minimal: {lex.why}", first=model)


def _minimality(counterexample: Counterexample, solved: Solved) -> None:
    counterexample.parameters_minimal = solved.minimal
    if not solved.minimal:
        counterexample.minimality = solved.not_minimal


def unreplayed(counterexample: Counterexample | None) -> str:
    why = counterexample.replay.message if counterexample else "no executable order of the firings"
    return (f"the solver reported a violation that the simulator could not replay ({why}); this is "
            "a tactl bug, please report it")


def premise(ta: ThresholdAutomaton, question: ReachQuery, parameters: dict[str, int] | None) -> Obligation:
    """The z3 answer an encoding rests on besides its query: the rules it leaves out cannot fire
    (passes/ta_to_smt/steady.py); asked only by --certify."""
    return Obligation(f"{question.property}, rules left out of the encoding",
                      build=partial(usable_rules_premise, ta, question, parameters or {}))


def branch_obligations(ta: ThresholdAutomaton, query: TemporalQuery, branch, label: str, solved: Solved,
                       parameters: dict[str, int] | None) -> list[Obligation]:
    """What a branch's unsat answer rests on, for --certify: the query itself and the rules it left out."""
    return [Obligation(f"{query.property}, {label}", solved.smtlib),
            premise(ta, initial_question(query, branch), parameters)]


def initial_question(query: TemporalQuery, branch) -> ReachQuery:
    """What the encoding of ``branch`` reads of its initial configurations (ir/eltl/formula.py)."""
    return ReachQuery(query.property, branch.initial, BoolConst(True))


def verdict_scope(ta: ThresholdAutomaton, parameters: dict[str, int] | None) -> str:
    if parameters:
        fixed = ", ".join(f"{p}={v}" for p, v in parameters.items())
        return f"all parameter values with {fixed} satisfying the resilience condition"
    return "all parameter values satisfying the resilience condition"


def query_size(encoding) -> dict[str, object]:
    constants, assertions = encoding.query.size()
    return {"segments": encoding.layout.segments, "smt_constants": constants,
            "smt_assertions": assertions}


def _counterexample(layout: SteadyLayout, question: ReachQuery, model) -> Counterexample | None:
    run = schedule_of(layout, model)
    if run is None:
        return None
    params, initial, schedule = run
    return Counterexample(params, initial, schedule, replay(ta=layout.ta, question=question,
                                                            parameters=params, initial=initial,
                                                            schedule=schedule))


def schedule_of(layout: SteadyLayout, model) -> tuple[dict[str, int], Configuration, list[Step]] | None:
    """Parameters, initial configuration and an executable schedule read from ``model``."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    ta = layout.ta

    def value(name: str) -> int:
        return model.eval(z3.Int(smt_name(name)), model_completion=True).as_long()

    params = {p: value(p) for p in ta.parameters}
    counters = {loc.name: value(layout.counter(0, loc.name)) for loc in ta.locations}
    shared = {v: value(layout.shared(0, v)) for v in ta.shared}
    initial = Configuration.of(counters, shared)
    schedule: list[Step] = []
    kappa = dict(counters)
    for j in range(layout.segments):
        if layout.passes:  # the query fixed the order: passes of batches in rule order
            steps = [Step(i, value(layout.batch(j, p, i))) for p in range(layout.passes)
                     for i in layout.pass_order]
            steps = [s for s in steps if s.factor > 0]
        else:
            counts = {i: value(layout.fired(j, i)) for i in layout.abstraction.active}
            steps = order_steady(ta, kappa, counts)
            if steps is None:
                return None
        for s in steps:
            rule = ta.rules[s.rule]
            kappa[rule.source] -= s.factor
            kappa[rule.target] += s.factor
        schedule.extend(steps)
        if j + 1 < layout.segments:
            for i in layout.boundary_rules:
                if value(layout.boundary(j, i)) == 1:
                    rule = ta.rules[i]
                    kappa[rule.source] -= 1
                    kappa[rule.target] += 1
                    schedule.append(Step(i, 1))
    return params, initial, _merge(schedule)


def _merge(schedule: list[Step]) -> list[Step]:
    merged: list[Step] = []
    for s in schedule:
        if merged and merged[-1].rule == s.rule:
            merged[-1] = Step(s.rule, merged[-1].factor + s.factor)
        else:
            merged.append(s)
    return merged


# --------------------------------------------------------------------------- ELTL-FT properties


def check_temporal(ta: ThresholdAutomaton, query: TemporalQuery,
                   progress: Callable[[str], None] | None = None,
                   parameters: dict[str, int] | None = None, *, readable: bool = True) -> PropertyResult:
    """The verdict on an ELTL-FT property: one query per branch of the negation (most
    specifications have one), reachability-shaped branches with the reachability encoding.
    Violated only with a run that ``tactl.engines.simulate.replay_run`` confirms on the negated formula."""
    start = time.perf_counter()
    queries = 0
    sizes: list[dict[str, object]] = []
    obligations: list[Obligation] = []  # the unsat answer of every branch

    def result(verdict: str, **kw: object) -> PropertyResult:
        return temporal_result(query, verdict, time.perf_counter() - start, queries, sizes, **kw)

    if query.infinite:
        reason = lasso_reason(ta)
        if reason:  # the loop query of tactl/engines/cycle_liveness.py decides the others
            return result(UNSUPPORTED, reason=cycle_reason(ta) or reason)
        if not any(r.is_self_loop and ta.increments(r) == {} for r in ta.rules):
            return result(UNKNOWN, reason=NO_LOOP)
    for number, branch in enumerate(query.branches, 1):
        if progress and len(query.branches) > 1:
            progress(f"{query.property}: branch {number}/{len(query.branches)} of the negation")
        try:
            encoding = encode_query(ta, replace(query, branches=(branch,)), parameters=parameters)[0]
        except NeedsBounds as e:
            bounded = _bounded(ta, replace(query, branches=(branch,)), e, progress, parameters, readable)
            queries += bounded.queries
            sizes.extend(bounded.sizes)
            if bounded.verdict == HOLDS:
                obligations += [Obligation(f"{query.property}, branch {number}, over-approximation",
                                           bounded.smtlib), premise(ta, initial_question(query, branch), parameters)]
                continue
            return result(bounded.verdict, reason=bounded.reason, counterexample=bounded.counterexample)
        except UnsupportedAutomaton as e:
            return result(UNSUPPORTED, reason=str(e))
        sizes.append(query_size(encoding))
        solved = solve(ta, encoding, query.property, progress, readable)
        queries += solved.queries
        if solved.answer == "unsat":
            obligations += branch_obligations(ta, query, branch, f"branch {number}", solved, parameters)
            continue
        if solved.answer != "sat":
            return result(UNKNOWN, reason=solved.why)
        model = solved.model
        counterexample = _lasso(encoding.layout, query, model)
        if counterexample is not None:
            _minimality(counterexample, solved)
        if counterexample is None or not counterexample.replayed:
            return result(UNKNOWN, reason=unreplayed(counterexample), counterexample=counterexample)
        return result(VIOLATED, counterexample=counterexample)
    return result(HOLDS, scope=verdict_scope(ta, parameters), obligations=obligations)


def temporal_result(query: TemporalQuery, verdict: str, seconds: float, queries: int,
                    sizes: list[dict[str, object]], **kw: object) -> PropertyResult:
    """A temporal property's result, with the sizes of its queries summed up in ``details``."""
    details: dict[str, object] = {"class": query.formula_class.value, "cut_points": query.cut_points,
                                  "branches": len(query.branches)}
    if sizes:
        details["segments"] = max(int(d["segments"]) for d in sizes)  # type: ignore[call-overload]
        details["smt_constants"] = sum(int(d["smt_constants"]) for d in sizes)  # type: ignore[call-overload]
        details["smt_assertions"] = sum(int(d["smt_assertions"]) for d in sizes)  # type: ignore[call-overload]
    details.update(kw.pop("extra", {}))  # type: ignore[call-overload]
    return PropertyResult(query.property, query.kind, verdict, ENGINE, seconds, queries, details=details,
                          formula_class=query.formula_class.value, **kw)  # type: ignore[arg-type]


@dataclass
class _Bounded:
    """The verdict of one branch of a property, from its exact or one-sided queries."""
    verdict: str  # HOLDS (no run for this branch), VIOLATED or UNKNOWN
    queries: int
    sizes: list[dict[str, object]]
    counterexample: Counterexample | None = None
    reason: str = ""
    smtlib: str = ""  # HOLDS: the over-approximation's unsat query


def _bounded(ta: ThresholdAutomaton, query: TemporalQuery, why: NeedsBounds,
             progress: Callable[[str], None] | None, parameters: dict[str, int] | None,
             readable: bool) -> _Bounded:
    """A branch with two or more re-enterable "occupied" sets, between its two one-sided queries
    (``passes/ta_to_smt/lasso.py``): the over-approximation unsat means no run; its model, when the
    simulator accepts its run, or a model of an under-approximation is a replayed violation;
    otherwise the answer is honestly unknown. Before any query, a capped explicit search at the
    least valuation the resilience condition allows (``tactl.engines.probe``): its replayed run
    refutes the property for every valuation, at a fraction of the queries' cost.

    After the over-approximation's first model, the short under-approximations
    (``under_segments``) are asked before anything else: the first one with a model gives a
    replayed violation with small parameters at a fraction of the cost of re-asking the
    over-approximation for small parameters (whose model need not replay) and of the full
    under-approximation. Only when none has a model does the search go on as before (the
    over-approximation's small and minimised models, then the full under-approximations). A
    short query's run is one of the full under-approximation too (its extra segments may stay
    empty), so the verdicts are the same either way."""
    found = probe(ta, query, parameters, progress)
    if found is not None:
        return _Bounded(VIOLATED, 0, [], found)
    over = encode_query(ta, query, parameters=parameters, bound="over")[0]
    sizes = [query_size(over)]
    if progress:
        progress(f"{query.property}: over-approximation (re-enterable sets checked at segment ends)")
    # the over-approximation's unsat answers are proofs: its minimised model, when it replays,
    # has the smallest parameters; else its first model, then the under-approximations
    def replays(model) -> bool:
        found = _lasso(over.layout, query, model)
        return found is not None and found.replayed

    short: list[tuple[_Bounded | None, int]] = []

    def keep_going(_model) -> bool:
        short.append(_short_under(ta, query, over.layout.segments, under_passes(why.sets)[0], progress,
                                  parameters, readable, sizes))
        return short[0][0] is None

    solved = solve(ta, over, query.property, progress, readable, accept=replays, keep_going=keep_going)
    queries = solved.queries + sum(n for _, n in short)
    if solved.stopped and short[0][0] is not None:
        return replace(short[0][0], queries=queries)
    if solved.answer == "unsat":
        return _Bounded(HOLDS, queries, sizes, smtlib=solved.smtlib)
    if solved.answer != "sat":
        return _Bounded(UNKNOWN, queries, sizes, reason=solved.why)
    counterexample = _lasso(over.layout, query, solved.model)
    if counterexample is not None and counterexample.replayed:
        _minimality(counterexample, solved)
        return _Bounded(VIOLATED, queries, sizes, counterexample)
    if solved.first is not None and solved.first is not solved.model:
        counterexample = _lasso(over.layout, query, solved.first)
        if counterexample is not None and counterexample.replayed:
            counterexample.minimality = ("not shown minimal: the over-approximation's smallest "
                                         "parameters have no run the simulator replays")
            return _Bounded(VIOLATED, queries, sizes, counterexample)
    tried = []
    for passes in under_passes(why.sets):
        solved, found = _under(ta, query, parameters, progress, readable, sizes, passes)
        queries += solved.queries
        if solved.answer == "sat":
            return replace(found, queries=queries)
        if solved.answer != "unsat":
            return _Bounded(UNKNOWN, queries, sizes, reason=solved.why)
        tried.append(str(passes))
    return _Bounded(UNKNOWN, queries, sizes, reason=(
        f"{why}; the over-approximation (each such set occupied at every segment's start and end) "
        f"has a run, the under-approximations ({' and '.join(tried)} sorted passes per segment) have "
        "none, and no exact query is known between them"))


def _short_under(ta: ThresholdAutomaton, query: TemporalQuery, total: int, passes: int,
                 progress: Callable[[str], None] | None, parameters: dict[str, int] | None,
                 readable: bool, sizes: list[dict[str, object]]) -> tuple[_Bounded | None, int]:
    """The under-approximation with ``passes`` sorted passes per segment, capped at each of
    ``under_segments(total)`` segments in turn: the first with a model decides (VIOLATED, or
    UNKNOWN should its run not replay, as for the full query); None when none has one (or z3
    gave no answer), with the number of queries asked either way."""
    queries = 0
    for segments in under_segments(total):
        solved, found = _under(ta, query, parameters, progress, readable, sizes, passes, segments)
        queries += solved.queries
        if solved.answer == "sat":
            return found, queries
        if solved.answer != "unsat":
            break
    return None, queries


def _under(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None,
           progress: Callable[[str], None] | None, readable: bool, sizes: list[dict[str, object]],
           passes: int, segments: int | None = None) -> tuple[Solved, _Bounded]:
    """One under-approximation (``passes`` sorted passes, at most ``segments`` segments) asked;
    on sat also its verdict: VIOLATED with the replayed run, else UNKNOWN (a tactl bug)."""
    under = encode_query(ta, query, parameters=parameters, bound="under", passes=passes, segments=segments)[0]
    sizes.append(query_size(under))
    if progress:
        cap = f", at most {segments} segments" if segments is not None else ""
        progress(f"{query.property}: under-approximation ({passes} sorted passes per segment{cap})")
    solved = solve(ta, under, query.property, progress, readable, exact=False)
    if solved.answer != "sat":
        return solved, _Bounded(UNKNOWN, solved.queries, sizes)
    counterexample = _lasso(under.layout, query, solved.model)
    if counterexample is not None:
        _minimality(counterexample, solved)
    if counterexample is None or not counterexample.replayed:
        return solved, _Bounded(UNKNOWN, solved.queries, sizes, counterexample, unreplayed(counterexample))
    return solved, _Bounded(VIOLATED, solved.queries, sizes, counterexample)


def _lasso(layout: SteadyLayout, query: TemporalQuery, model) -> Counterexample | None:
    run = schedule_of(layout, model)
    if run is None:
        return None
    params, initial, schedule = run
    loop = None
    if query.infinite:
        last = initial
        kappa, shared = dict(initial.counters), dict(initial.shared)
        for s in schedule:
            rule = layout.ta.rules[s.rule]
            kappa[rule.source] -= s.factor
            kappa[rule.target] += s.factor
            for v, d in (layout.ta.increments(rule) or {}).items():
                shared[v] += d * s.factor
        last = Configuration.of(kappa, shared)
        loops = enabled_loops(layout.ta, params, last)
        loop = loops[0] if loops else None
    outcome = replay_run(layout.ta, query.negation, query.infinite, params, initial, schedule, loop)
    return Counterexample(params, initial, schedule, outcome, loop)
