"""``tactl check``: a verdict for every selected property, as a :class:`CheckReport` (data only:
tactl/report/check_text.py and tactl/report/check_json.py render it). Exit status: 0 when every
checked property holds, 1 when one is violated, 3 when none is violated but one is unknown or
unsupported.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from tactl.util import deadline
from tactl.util import progress as shown
from tactl.util.suggest import did_you_mean
from tactl.engines import budget, minimal_params, parametric, reduced
from tactl.engines.result import (ENGINE_CHOICE, EXPLICIT_DEFAULT_BOUND, EXPLICIT_DEFAULT_MAX_STATES, EXPLICIT_ENGINE,
                                  HOLDS, HOLDS_VACUOUSLY, NO_ANTECEDENT, NO_LOOP, NOT_VACUOUS, UNKNOWN, UNSUPPORTED,
                                  VACUITY_UNKNOWN, VIOLATED, PropertyResult)
from tactl.ir.eltl.cycles import can_run_forever, cycle_reason, has_several_location_cycles
from tactl.ir.eltl.formula import (FormulaClass, TemporalQuery, cut_points_only, lasso_reason, reach_question,
                                   temporal_query)
from tactl.ir.eltl.justice import readings_differ
from tactl.ir.eltl.reset_response import reset_rules
from tactl.ir.errors import Diagnostic, InputError, Severity
from tactl.ir.evaluate import holds
from tactl.ir.expr import BoolConst, Eventually, disj, to_text
from tactl.ir.linear import NonLinearError, first_unsatisfiable, int_symbols, to_z3
from tactl.ir.ta.model import Property, ThresholdAutomaton
from tactl.ir.unknowns import unknowns_reason
from tactl.ir.eltl.vacuity import vacuity_question
from tactl.passes.ta_to_smt.guard_abstraction import unsupported_reason

# spin and nusmv run the external checkers at fixed parameters (tactl/engines/spin*.py, nusmv.py)
SPIN, NUSMV = "spin", "nusmv"
# the CHC engine (tactl/engines/chc.py) decides safety of any automaton, resets included
CHC = "chc"
ENGINES = (parametric.ENGINE, EXPLICIT_ENGINE, SPIN, NUSMV, CHC)
EXTERNAL = (SPIN, NUSMV)
SPIN_MODELS = ("counter", "process")


@dataclass
class CheckOptions:
    """How to check an automaton: the engine, which properties, fixed parameters and limits."""
    engine: str = parametric.ENGINE
    properties: tuple[str, ...] = ()  # empty: all
    parameters: dict[str, int] | None = None  # explicit: fixed values; parametric: restriction
    bound: int = EXPLICIT_DEFAULT_BOUND
    max_states: int = EXPLICIT_DEFAULT_MAX_STATES
    not_checkable: str | None = None  # set: every property is unsupported, for this reason
    # name -> (verdict, reason): properties not checked, e.g. liveness under an unjustified justice
    refused: dict[str, tuple[str, str]] = field(default_factory=dict)
    # spin: the counter model (from the TA) or the process model (from the receive automaton,
    # which must then be given); its initial locations by integer partitions
    model: str = "counter"
    receive_automaton: object | None = None  # tactl.ir.rta.model.ReceiveTA
    partition: bool = False
    receive: str = "auto"  # spin process model: forced receive steps where sound ("auto"), or as given
    bmc: int | None = None  # nusmv: bounded model checking up to this length (never "holds")
    max_depth: int | None = None  # spin: pan's search depth (-m)
    memory_mb: int | None = None  # spin: pan's memory limit
    # spin, nusmv: how many selected properties are still to be checked, counting this one: each
    # gets an equal share of the time left (one that finishes early leaves its rest to the others)
    properties_left: int = 1
    # every query behind a HOLDS re-asked of cvc5 (tactl/engines/certify.py), the reduction's
    # (tactl/engines/reduced.py) included
    certify: bool = False
    # set by check itself when it gives a property the parametric engine cannot decide to the
    # chc engine (which then searches for a shallow violation before asking Spacer)
    chosen_engine: bool = False
    # --minimize: a violation's counterexample made minimal however long it takes; by default
    # that work has a budget per property (tactl/engines/budget.py)
    minimize: bool = False


@dataclass
class CheckReport:
    """Every selected property's verdict for one automaton, with the warnings that concern all of them."""
    path: str
    ta: ThresholdAutomaton
    results: list[PropertyResult]
    # Things the user must know that are not one property's verdict (e.g. nothing to check).
    warnings: list[str] = field(default_factory=list)
    # False when no initial configuration satisfies the RC, the inits and --param: every
    # "holds" would be vacuous, so no property is reported as holding. None: not decided.
    initial_configurations: bool | None = None
    # Facts about how the automaton was checked (e.g. the lock-step diameter), printed once.
    notes: list[str] = field(default_factory=list)
    # The interrupt (SIGINT/SIGTERM) that stopped the checks: the properties not decided by then
    # are UNKNOWN with reason "interrupted"; the caller prints the report, then re-raises it.
    interrupted: KeyboardInterrupt | None = None
    # The receive automaton the TA was translated from (None for a .ta): a counterexample's
    # space-time diagram reads its fault model (tactl/report/spacetime.py)
    receive_automaton: object | None = None  # tactl.ir.rta.model.ReceiveTA

    @property
    def exit_code(self) -> int:
        if self.interrupted is not None:
            return deadline.interrupted_status()
        verdicts = {r.verdict for r in self.results}
        if VIOLATED in verdicts:
            return 1
        if verdicts & {UNKNOWN, UNSUPPORTED, HOLDS_VACUOUSLY} or not self.results \
                or self.initial_configurations is False \
                or any(r.vacuity == VACUITY_UNKNOWN for r in self.results):  # a holds not known to say anything
            return 3
        return 0


CHOSEN = ("checked by the chc engine (Spacer on Horn clauses, a bounded search for a violation) "
          "instead of the parametric one, which does not decide this automaton: {why}")

SYNC_TA = ("the automaton is synchronous (timing sync): it is meant for lock-step rounds, which "
           "the interleaving engines do not run, and lock-step checking needs the receive "
           "automaton it was translated from (which messages each location sends): check the "
           ".rta or .alg instead")


class SelectionError(ValueError):
    """``--property`` or ``--param`` names something the automaton does not have."""


def validate_selection(ta: ThresholdAutomaton, properties: tuple[str, ...] | list[str],
                       parameters: dict[str, int] | None) -> None:
    names = [p.name for p in ta.properties]
    missing = [p for p in properties if p not in names]
    if missing:
        raise SelectionError(f"no property named {', '.join(missing)} (the automaton has: "
                             f"{', '.join(names) or 'no properties'})"
                             + (did_you_mean(missing[0], names) if len(missing) == 1 else ""))
    unknown = sorted(set(parameters or {}) - set(ta.parameters))
    if unknown:
        raise SelectionError(f"--param names {', '.join(unknown)}, which the automaton does not "
                             f"declare (its parameters: {', '.join(ta.parameters) or 'none'})")


# Decided answers of initial_configuration_exists, by everything the answer depends on.
_INITIAL_ANSWERS: dict[tuple, tuple[bool, str]] = {}
_INITIAL_ANSWERS_KEPT = 256


def initial_configuration_exists(ta: ThresholdAutomaton, parameters: dict[str, int] | None,
                                 extra: tuple = ()) -> tuple[bool | None, str]:
    """Whether some initial configuration satisfies the RC, ``inits``, the fixed ``parameters``
    and the state formulas ``extra`` (counters, shared variables and parameters natural numbers),
    asked of z3; with the reason when there is none.

    A check asks the same question several times (a property's initial condition, then again for
    its vacuity witness, whose runs start where the property's do), so a decided answer is kept,
    keyed by the variables, the expanded RC and inits, ``parameters`` and ``extra``."""
    try:
        key = (tuple(ta.parameters), tuple(ta.shared), tuple(loc.name for loc in ta.locations),
               tuple(ta.expand(a) for a in ta.assumptions), tuple(ta.expand(e) for e in ta.inits),
               tuple(sorted((parameters or {}).items())), tuple(extra))
        hash(key)
    except TypeError:  # an unhashable part: ask without keeping the answer
        key = None
    if key is not None and key in _INITIAL_ANSWERS:
        return _INITIAL_ANSWERS[key]
    try:
        answer = _initial_configuration_exists(ta, parameters, extra)
    except (NonLinearError, TypeError, ValueError):
        return None, "not decidable here (the constraints are not linear)"
    if key is not None and answer[0] is not None:
        if len(_INITIAL_ANSWERS) >= _INITIAL_ANSWERS_KEPT:
            _INITIAL_ANSWERS.clear()
        _INITIAL_ANSWERS[key] = answer
    return answer


_NO_INITIAL_ANTECEDENT = "no initial configuration satisfies the property's antecedent"


def _initial_configuration_exists(ta, parameters, extra):
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    sym = int_symbols()
    solver = z3.Solver()
    timeout = deadline.solver_timeout_ms(30.0)
    if timeout is not None:
        solver.set("timeout", timeout)
    nonneg = [sym(x) >= 0 for x in (*ta.parameters, *ta.shared, *(loc.name for loc in ta.locations))]
    fixed = [sym(p) == v for p, v in (parameters or {}).items()]
    layers = (("the resilience condition is unsatisfiable",
               [to_z3(ta.expand(a), sym) for a in ta.assumptions]),
              ("no parameter values given by --param satisfy the resilience condition", fixed),
              ("no initial configuration satisfies the inits", [to_z3(ta.expand(e), sym) for e in ta.inits]),
              (_NO_INITIAL_ANTECEDENT, [to_z3(e, sym) for e in extra]))
    solver.add(*nonneg)
    exists, why = first_unsatisfiable(solver, layers)
    return (None, "z3 could not decide whether an initial configuration exists") if exists is None \
        else (exists, why)


# Why a justice can have no run on an automaton with cycles (ir/eltl/cycles.py), said with it.
CYCLIC_JUSTICE = ("; on this automaton processes can go round a cycle through several locations, and "
                  "a justice conjunct `!g || loc == 0` for a location on it asks that location to be "
                  "empty at every configuration of the run's loop, which processes going round never "
                  "allow: on a cycle it does not say 'every process keeps moving'")
VACUOUS = ("{why}, so every property holds vacuously: nothing was checked")


def _timing():
    from tactl.ir.rta.model import Timing  # lazy: only an automaton translated from a receive automaton asks

    return Timing


def check_automaton(ta: ThresholdAutomaton, path: str, options: CheckOptions,
                    progress: Callable[[str], None] | None = None) -> CheckReport:
    """Every selected property's verdict, by the command's deadline if it runs one (the one
    clock, tactl/util/deadline.py: ``deadline.clock`` gives a check of its own one)."""
    validate_selection(ta, options.properties, options.parameters)
    receive = options.receive_automaton
    if receive is not None and getattr(receive, "timing", None) is _timing().SYNC:
        return _check_lockstep(ta, path, receive, options, progress)
    if ta.timing == "sync" and not options.not_checkable:
        options = replace(options, not_checkable=SYNC_TA)
    if options.engine in EXTERNAL:
        problem = external_parameters_problem(ta, options.parameters, options.engine)
        if problem:
            raise SelectionError(problem)
    selected = [p for p in ta.properties if not options.properties or p.name in options.properties]
    report = CheckReport(path, ta, [], receive_automaton=options.receive_automaton)
    try:
        with deadline.interruptible():
            blocker = options.not_checkable or unsupported_reason(ta)
    except deadline.DeadlineExceeded:
        blocker = None  # every property below is then unknown: the deadline has passed
    why = ""
    if not ta.properties:
        report.warnings.append("the automaton has no specifications: nothing was checked")
    if selected and not options.not_checkable:
        try:
            with deadline.interruptible():
                exists, why = initial_configuration_exists(ta, options.parameters)
        except deadline.DeadlineExceeded:
            exists, why = None, deadline.timeout_reason()
        report.initial_configurations = exists
        if exists is False:
            report.warnings.append(VACUOUS.format(why=why))
    try:
        _check_each(ta, options, progress, report, selected, blocker, why)
    except Exception as error:  # noqa: BLE001 - re-raised unless a stop signal caused it
        stop = deadline.interruption(error)
        if stop is None:
            raise
        _interrupted(report, selected, options.engine, stop)
    except KeyboardInterrupt as stop:
        _interrupted(report, selected, options.engine, stop)
    return report


def _interrupted(report: CheckReport, selected, engine: str, stop: KeyboardInterrupt) -> None:
    """A stop signal ended the checks: the properties not decided yet are UNKNOWN, interrupted —
    whether the signal surfaced as the interrupt itself or as the error of the z3 call it
    cancelled (which can come first)."""
    report.interrupted = stop
    decided = {r.name for r in report.results}
    report.results.extend(PropertyResult(p.name, "safety", UNKNOWN, engine,
                                         reason="interrupted: the run was stopped before this "
                                                "property was decided")
                          for p in selected if p.name not in decided)


def _check_each(ta: ThresholdAutomaton, options: CheckOptions, progress, report: CheckReport,
                selected, blocker: str | None, why: str) -> None:
    """The verdict of every selected property, appended to ``report.results`` one by one (so that
    an interrupt leaves the decided ones)."""
    results = report.results
    witnesses: dict[tuple[str, str], PropertyResult] = {}  # vacuity answers, shared (_with_vacuity)
    shown.phase(progress, len(selected))
    for index, prop in enumerate(selected):
        if options.engine in EXTERNAL:
            options = replace(options, properties_left=len(selected) - index)
        if deadline.remaining() == 0:
            results.append(PropertyResult(prop.name, "safety", UNKNOWN, options.engine,
                                          reason=deadline.timeout_reason() + " before this property was checked"))
            continue
        query = temporal_query(ta, prop)
        if not isinstance(query, TemporalQuery):
            results.append(PropertyResult(prop.name, query.kind.value, UNSUPPORTED,
                                          options.engine, reason=query.reason))
            continue
        kind, cls = query.kind, query.formula_class.value
        if prop.name in options.refused:
            verdict, why = options.refused[prop.name]
            results.append(PropertyResult(prop.name, kind, verdict, options.engine, reason=why,
                                          formula_class=cls))
            continue
        chosen = options
        if blocker and (options.engine == parametric.ENGINE or options.not_checkable) \
                and (options.not_checkable or not _resets_decide(ta, query)):
            if options.not_checkable or not _chc_decides(ta, query):
                results.append(PropertyResult(prop.name, kind, UNSUPPORTED, options.engine, reason=blocker,
                                              formula_class=cls))
                continue
            chosen = replace(options, engine=CHC, chosen_engine=True)
        if report.initial_configurations is False:
            results.append(PropertyResult(prop.name, kind, HOLDS_VACUOUSLY, options.engine, formula_class=cls,
                                          reason="vacuous: " + VACUOUS.format(why=why)))
            continue
        shown.started(progress, prop.name, f"checking {prop.name} ({chosen.engine})")
        started = time.perf_counter()
        try:
            with deadline.interruptible():
                result = _check_one(ta, query, chosen, progress)
                if result.verdict == VIOLATED and result.counterexample is not None:
                    from tactl.engines import explain  # lazy: only a violation is explained

                    result.counterexample.explanation = explain.explain(
                        ta, result.counterexample, query,
                        explain.fault_terms(options.receive_automaton, ta))
            result.formula_class = cls
            result = _with_vacuity(ta, prop, result, chosen, progress, witnesses)
            results.append(_certified(result) if options.certify else result)
        except deadline.DeadlineExceeded:
            results.append(PropertyResult(prop.name, kind, UNKNOWN, chosen.engine, formula_class=cls,
                                          time_s=time.perf_counter() - started, reason=deadline.timeout_reason()))
        if chosen is not options:
            results[-1].details[ENGINE_CHOICE] = CHOSEN.format(why=blocker)
        shown.finished(progress, prop.name, results[-1].verdict.upper())


def _chc_decides(ta: ThresholdAutomaton, query: TemporalQuery) -> bool:
    """Whether the CHC engine takes ``query`` where the parametric engine cannot: a safety
    property (reachability, ``init -> [](good)``, or nested safety) on an automaton without
    synthesis unknowns; the CHC engine answers nothing else (tactl/engines/chc.py)."""
    return not ta.unknowns and (reach_question(query) is not None or cut_points_only(query))


def _resets_decide(ta: ThresholdAutomaton, query: TemporalQuery) -> bool:
    """Whether ``query`` is liveness of an automaton with resets or decrements (and no synthesis
    unknowns), which tactl/engines/reset_liveness.py answers where the parametric engine cannot."""
    return query.infinite and not ta.unknowns and bool(reset_rules(ta))


def _check_lockstep(ta: ThresholdAutomaton, path: str, rta, options: CheckOptions,
                    progress: Callable[[str], None] | None = None) -> CheckReport:
    """A synchronous automaton: lock-step rounds (``tactl.engines.lockstep``), selected by its
    timing. ``parametric`` decides every parameter valuation (diameter + bounded checks);
    ``explicit`` enumerates the rounds at the fixed ``--param`` values."""
    # lazy: the lock-step engine (z3 at its top) checks synchronous automata only
    from tactl.engines import lockstep
    from tactl.passes.rta_to_sync.sync_ta import SyncInputError, SyncUnsupported

    report = CheckReport(path, ta, [], receive_automaton=options.receive_automaton)
    selected = [p for p in rta.properties if not options.properties or p.name in options.properties]
    try:
        if ta.unknowns:  # as every interleaving engine answers
            raise SyncUnsupported(unknowns_reason(ta.unknowns))
        if options.engine == parametric.ENGINE:
            # the lock-step engine reads the command's --timeout itself (tactl.util.deadline)
            results, info = lockstep.check_rta(rta, tuple(options.properties),
                                               fixed=options.parameters or {}, progress=progress)
            if info.get("initial_configurations") is False:  # as the interleaving engines do
                report.initial_configurations = False
                report.warnings.append(VACUOUS.format(why=info["vacuous"]))
            found = info["diameter"]
            report.notes.append(
                f"lock-step rounds: {info['locations']} locations, {info['rules']} rules with the "
                f"fault model's copies; " + (f"diameter {found} (found in {info['diameter_s']:.2f} s)"
                                             if found is not None else "no diameter found")
                + (f"; phases of {info['phase']} rounds" if info.get("phase", 1) > 1 else ""))
        elif options.engine == EXPLICIT_ENGINE:
            results = lockstep.check_explicit(rta, tuple(options.properties), options.parameters or {})
        else:
            raise SyncUnsupported(f"the {options.engine} engine interleaves single steps; "
                                  "synchronous automata are checked in lock-step rounds by the "
                                  "parametric and explicit engines")
    except (SyncInputError, lockstep.IncompleteGuards) as e:
        raise InputError(Diagnostic(Severity.ERROR, str(e)), path) from None
    except SyncUnsupported as e:
        results = [PropertyResult(p.name, "safety", UNSUPPORTED, options.engine, reason=str(e))
                   for p in selected]
    answered: dict[str, tuple[str, str]] = {}  # the questions its HOLDS share: asked of cvc5 once
    report.results.extend([_certified(r, answered) for r in results] if options.certify else results)
    return report


def _certified(result: PropertyResult, answered: dict[str, tuple[str, str]] | None = None) -> PropertyResult:
    from tactl.engines.certify import certify  # lazy: cvc5 runs only with --certify

    return certify(result, answered)


def _check_one(ta: ThresholdAutomaton, query: TemporalQuery, options: CheckOptions,
               progress: Callable[[str], None] | None, witness: bool = False) -> PropertyResult:
    """The engine's verdict; ``witness``: a vacuity question, whose run is only replayed, not
    shown (the parametric engine then skips its search for small parameters)."""
    initial = disj(*(b.initial for b in query.branches))
    exists, why = initial_configuration_exists(ta, options.parameters, (initial,))
    # (a property that is `false` once negated says nothing, e.g. a Promela specification whose
    # antecedent the translation found impossible and folded away: that stays vacuous)
    propositional = query.formula_class is FormulaClass.PROPOSITIONAL and why == _NO_INITIAL_ANTECEDENT \
        and initial != BoolConst(False)
    if exists is False and propositional and options.engine in (parametric.ENGINE, EXPLICIT_ENGINE) \
            and not options.certify:
        # A propositional property is its own initial condition: the branch's `initial` is its
        # whole negation, so no initial configuration satisfying it is the proof that it holds
        # (whether its own antecedent can happen is then asked like any other's). With --certify
        # the engine answers, so that the HOLDS carries the query a second solver re-asks.
        return PropertyResult(query.property, query.kind, HOLDS, options.engine, queries=1,
                              scope=parametric.verdict_scope(ta, options.parameters),
                              reason="no initial configuration violates it (z3)")
    if exists is False and not propositional:
        return PropertyResult(query.property, query.kind, HOLDS_VACUOUSLY, options.engine,
                              reason=f"vacuous: {why}, so the property holds vacuously: nothing was checked")
    if options.engine == CHC:  # it answers safety only: a liveness property is UNSUPPORTED there
        # lazy: Spacer's engine loads only when a property goes to it
        from tactl.engines import chc_fallback

        def spacer(small: ThresholdAutomaton) -> PropertyResult:
            # a vacuity witness asks for a run only: the short search first (Spacer is slow to find one)
            return chc_fallback.check(small, query, options.parameters, options.bound, options.max_states,
                                      progress, probe=options.chosen_engine or witness)

        # Spacer on the automaton without its shortcut rules when there are any (as the parametric
        # engine below); liveness: the chc engine answers UNSUPPORTED, nothing to reduce for
        if query.infinite:
            return spacer(ta)
        return reduced.check(ta, query, options.parameters, spacer, smaller_only=True)
    if query.infinite and options.engine == parametric.ENGINE and _resets_decide(ta, query):
        from tactl.engines import reset_liveness  # lazy: only automata with resets need it

        def decide(monotone: ThresholdAutomaton, asked: TemporalQuery) -> PropertyResult:
            return _check_one(monotone, asked, options, progress, witness=True)

        return reset_liveness.check(ta, query, options.parameters, options.bound, options.max_states,
                                    progress, decide)
    if query.infinite and not can_run_forever(ta):
        return PropertyResult(query.property, query.kind, UNKNOWN, options.engine, reason=NO_LOOP)
    if options.engine in EXTERNAL:
        return _external(ta, query, options)
    question = reach_question(query)
    if options.engine == EXPLICIT_ENGINE:
        from tactl.engines import explicit, explicit_ltl  # lazy: loaded only for their engine

        if question is not None:
            return explicit.check(ta, question, options.parameters or {}, options.bound,
                                  options.max_states, progress)
        return explicit_ltl.check_temporal(ta, query, options.parameters or {}, options.bound,
                                           options.max_states, progress)
    # the engine decides the automaton without its shortcut rules (tactl/engines/reduced.py)
    def decide(small: ThresholdAutomaton) -> PropertyResult:
        return _parametric(small, query, question, options, progress, witness)

    with budget.per_property(full=options.minimize):
        # (with --certify too: the reduction's z3 answers are one more question cvc5 re-asks)
        result = reduced.check(ta, query, options.parameters, decide)
        if result.verdict == VIOLATED and result.counterexample is not None and not witness \
                and minimal_params.enabled():
            started = time.perf_counter()
            if progress:
                progress(f"{query.property}: violated; looking for a shortest schedule")
            from tactl.engines import shortest  # lazy: only a counterexample is shortened

            result.counterexample = shortest.shortest(ta, query, result.counterexample, stop=budget.stop,
                                                         fixed=options.parameters or {})
            result.time_s += time.perf_counter() - started
    return result


def _parametric(ta: ThresholdAutomaton, query: TemporalQuery, question, options: CheckOptions,
                progress: Callable[[str], None] | None, witness: bool) -> PropertyResult:
    if question is not None:
        result = parametric.check(ta, question, progress, options.parameters, readable=not witness)
        result.details.update({"class": query.formula_class.value, "cut_points": len(query.branches[0].cuts),
                               "branches": 1})
        return result
    if query.infinite and lasso_reason(ta) is not None and cycle_reason(ta) is None:
        # a loop may pass through several configurations (ir/eltl/cycles.py)
        from tactl.engines import cycle_liveness  # lazy: only automata with such cycles need it

        return cycle_liveness.check_temporal(ta, query, progress, options.parameters, readable=not witness)
    return parametric.check_temporal(ta, query, progress, options.parameters, readable=not witness)


def _with_vacuity(ta: ThresholdAutomaton, prop: Property, result: PropertyResult, options: CheckOptions,
                  progress: Callable[[str], None] | None,
                  witnesses: dict[tuple[str, str], PropertyResult] | None = None) -> PropertyResult:
    """A HOLDS with what it says about its antecedents (``ir/eltl/vacuity.py``): the witness formula
    ``W`` (the consequent replaced by false) is decided by the same engine, at the same
    parameters; ``W`` holding means no run meets the antecedents, so the verdict becomes
    HOLDS_VACUOUSLY (exit 3). The time and queries of that check are added to the property's.

    Properties with the same antecedents have the same ``W`` (e.g. a validity and a completeness
    property about the same initial value): ``witnesses``, kept for one automaton's check, holds the
    engines' decided answers by ``W``'s text, and a property whose ``W`` was decided for another
    reuses the answer instead of asking again (no queries, no time). Only for the engines that
    decide ``W`` on the automaton alone (not SPIN/NuSMV, whose models take the specification from
    the receive automaton too), and only a decided answer (an unknown may be a timeout's)."""
    if result.verdict != HOLDS:
        return result
    question = vacuity_question(prop.formula)
    if question is None:
        result.vacuity = NO_ANTECEDENT
        return result
    witness_property = Property(prop.name, question.witness)
    # The external engines emit the automaton's own specification of that name: give them W. The
    # others read only the query, and keep the automaton itself (and what the check of the
    # property computed for it, such as its reduction, tactl/engines/reduced.py).
    if options.engine in EXTERNAL:
        ta = replace(ta, properties=tuple(witness_property if p.name == prop.name else p for p in ta.properties))
    query = temporal_query(ta, witness_property)
    if not isinstance(query, TemporalQuery):
        result.vacuity, result.vacuity_witness = VACUITY_UNKNOWN, query.reason
        return result
    if options.receive_automaton is not None:
        # SPIN's process model states the receive automaton's specification (without the
        # justice, for which it has its own fairness): its W is taken from that formula.
        rta = options.receive_automaton
        options = replace(options, receive_automaton=replace(rta, properties=tuple(
            _receive_witness(p, query.infinite) if p.name == prop.name else p for p in rta.properties)))
    if options.engine == parametric.ENGINE and not query.infinite and reset_rules(ta) and _chc_decides(ta, query):
        # the antecedent of a reset automaton's `[](a -> <>p)` is a reachability question (can
        # `a` happen?), which only the chc engine decides there, as it decides its safety properties
        options = replace(options, engine=CHC, chosen_engine=True)
    if progress:
        progress(f"checking {prop.name}: can its antecedent happen?")
    started = time.perf_counter()
    key = (to_text(question.witness), options.engine)
    shared = witnesses.get(key) if witnesses is not None and options.engine not in EXTERNAL else None
    try:
        with deadline.interruptible():
            witness = shared or _initial_witness(ta, query, options) or _check_one(ta, query, options, progress,
                                                                                   witness=True)
    except deadline.DeadlineExceeded:
        witness = PropertyResult(prop.name, query.kind, UNKNOWN, options.engine, reason=deadline.timeout_reason())
    if shared is not None:
        result.details["vacuity_shared_with"] = shared.name
    else:
        result.time_s += time.perf_counter() - started
        result.queries += witness.queries
        result.details["vacuity_s"] = round(time.perf_counter() - started, 4)
        if witnesses is not None and witness.verdict in (HOLDS, HOLDS_VACUOUSLY, VIOLATED):
            witnesses[key] = replace(witness, name=prop.name)
    if witness.verdict in (HOLDS, HOLDS_VACUOUSLY):
        result.verdict = HOLDS_VACUOUSLY
        result.reason = (f"vacuous: no {question.describe()[2:]} exists, so the consequent is never "
                         "asked for (the property holds without saying anything)")
        if witness.verdict == HOLDS_VACUOUSLY and witness.reason:
            result.reason += "; " + witness.reason.removeprefix("vacuous: ")
        if query.infinite and question.assumes_justice and has_several_location_cycles(ta):
            result.reason += CYCLIC_JUSTICE
    elif witness.verdict == VIOLATED:
        # The witness run's parameters are left out: which model z3 returns first depends on
        # the queries the process asked before, and the cached result must not.
        replayed = witness.counterexample is not None and witness.counterexample.replayed
        result.vacuity = NOT_VACUOUS
        result.vacuity_witness = f"{question.describe()} exists" + (
            " (a run found and replayed)" if replayed else f" ({witness.reason or 'found by ' + witness.engine})")
    else:
        result.vacuity = VACUITY_UNKNOWN
        result.vacuity_witness = f"whether {question.describe()} exists was not decided: {witness.reason}"
    return result


def _initial_witness(ta: ThresholdAutomaton, query: TemporalQuery, options: CheckOptions) -> PropertyResult | None:
    """W of ``init -> [](…)`` is ``init -> false``: met exactly when some initial configuration
    satisfies ``init`` (under the RC and --param), which one z3 query answers — instead of the
    engine's reachability run with its schedule search and replay, which would double the
    queries of an easy file. Parametric engine only (the others check instances)."""
    if options.engine != parametric.ENGINE or query.formula_class is not FormulaClass.PROPOSITIONAL \
            or len(query.branches) != 1 or query.branches[0].cuts or query.branches[0].invariants:
        return None
    exists, _ = initial_configuration_exists(ta, options.parameters, (query.branches[0].initial,))
    if exists is None:
        return None
    return PropertyResult(query.property, query.kind, VIOLATED if exists else HOLDS, options.engine,
                          queries=1, reason="an initial configuration found by z3" if exists else None)


def _receive_witness(prop: Property, infinite: bool) -> Property:
    """A receive automaton's specification with its consequent replaced by false (``<>false`` for
    a liveness question, so that the process model keeps its fairness); without ``->`` the
    translation's justice was its only antecedent, so W is that false itself."""
    falsum = Eventually(BoolConst(False)) if infinite else BoolConst(False)
    question = vacuity_question(prop.formula, falsum)
    return replace(prop, formula=question.witness if question else falsum)


def _external(ta: ThresholdAutomaton, query: TemporalQuery, options: CheckOptions) -> PropertyResult:
    """SPIN or NuSMV at the fixed parameters, a ``holds`` of their counter models kept only where
    they read the justice as tactl does (``_LITERAL_JUSTICE``)."""
    result = _run_external(ta, query, options)
    if result.verdict == HOLDS and query.infinite and not (options.engine == SPIN and options.model == "process") \
            and readings_differ(ta, query):
        return replace(result, verdict=UNKNOWN, reason=_LITERAL_JUSTICE.format(engine=options.engine))
    return result


# The counter models state the justice <>[](J) as written, which on a loop through several
# configurations asks every pair's location empty at each of them: more than the per-process
# reading (ir/eltl/justice.py), so fewer runs are checked and "holds" proves nothing; a lasso
# they find is just either way, so "violated" stands.
_LITERAL_JUSTICE = ("{engine}'s model states the justice as written (each location of it empty at "
                    "every configuration of a loop), which on this automaton's cycles through several "
                    "locations excludes just runs in which processes keep going round; its 'holds' "
                    "covers only the runs left, so it is not a verdict (decide it with the default "
                    "engine or --engine explicit)")


def _run_external(ta: ThresholdAutomaton, query: TemporalQuery, options: CheckOptions) -> PropertyResult:
    """SPIN or NuSMV at the fixed parameters; their own timeouts get this property's share of the
    command's remaining time."""
    timeout = deadline.remaining()
    if timeout is not None:
        timeout /= max(1, options.properties_left)
    if options.engine == SPIN and options.model == "process":
        # lazy: SPIN's process model, only with --engine spin --model process
        from tactl.engines import spin_process

        if options.receive_automaton is None:
            return PropertyResult(query.property, query.kind, UNSUPPORTED, SPIN,
                                  reason="the process model runs the receive automaton: give an "
                                         ".rta or .alg file (the counter model works from any TA)")
        return spin_process.check(options.receive_automaton, ta, query, options.parameters or {},
                                  partition=options.partition, timeout_s=timeout, receive=options.receive,
                                  **({"max_depth": options.max_depth} if options.max_depth else {}))
    if options.engine == SPIN:
        from tactl.engines import spin  # lazy: SPIN runs only with --engine spin

        extra = {k: v for k, v in (("max_depth", options.max_depth), ("memory_mb", options.memory_mb))
                 if v is not None}
        return spin.check(ta, query, options.parameters or {}, timeout_s=timeout, **extra)
    # lazy: NuSMV runs only with --engine nusmv
    from tactl.engines import nusmv
    from tactl.passes.emit.smv import SmvError

    try:
        return nusmv.check(ta, query, options.parameters or {}, bmc=options.bmc, timeout_s=timeout,
                           initial_cap=options.bound)
    except SmvError as e:  # no finite SMV model of this automaton (the parameters were checked)
        return PropertyResult(query.property, query.kind, UNSUPPORTED, NUSMV, reason=str(e))


def external_parameters_problem(ta: ThresholdAutomaton, parameters: dict[str, int] | None,
                                engine: str) -> str | None:
    """SPIN and NuSMV check one instance: every parameter needs a value."""
    missing = [p for p in ta.parameters if p not in (parameters or {})]
    if missing:
        return (f"the {engine} engine checks one instance: give every parameter a value "
                f"(--param {missing[0]}=…; missing: {', '.join(missing)})")
    failed = [to_text(a) for a in ta.assumptions if not holds(ta.expand(a), parameters or {})]
    if failed:
        values = ", ".join(f"{p}={v}" for p, v in (parameters or {}).items())
        return (f"the parameter values {values} violate the resilience condition ({'; '.join(failed)}); "
                "--allow-outside-rc checks them anyway (that is how the tightness of a resilience "
                "condition shows)")
    return None
