"""``tactl check --engine source``: every property of an ``.alg`` file decided by exploring every
run of the program at the parameters given, each violation replayed.

Message kinds (docs/alg.md "Message kinds") are decided from the runs, as the interpreter must not
take the translation's word for them: the state graph is built assuming every message name with
several instances is a kind (a Byzantine sender counts once per receiver among its instances); if
some correct process sends two instances of a name in a reachable state, the name is not a kind, and
the graph is built again without it (until no such name is left). The report says which names were
kinds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

from tactl.ir.alg import syntax as A

from .errors import SourceError
from .formula import antecedent_test, is_liveness
from .lockstep import SyncSystem, with_hypothesis
from .program import Program, compile_program
from .rounds import with_obligations
from .search import Graph, Run, build, check, replay
from .system import System, faults_of
from .values import Env, truth

HOLDS, VIOLATED, UNKNOWN, UNSUPPORTED = "holds", "violated", "unknown", "unsupported"
HOLDS_VACUOUSLY = "holds vacuously"
DEFAULT_MAX_STATES = 300_000


@dataclass
class Result:
    name: str
    kind: str  # safety / liveness
    verdict: str
    time_s: float = 0.0
    reason: str = ""
    vacuity: str = ""  # "not vacuous" / "no antecedent" / the vacuous reason
    run: Run | None = None


@dataclass
class SourceReport:
    path: str
    alg: A.Algorithm
    params: dict[str, int]
    results: list[Result] = field(default_factory=list)
    states: int = 0
    transitions: int = 0
    kinds: tuple[str, ...] = ()
    not_kinds: tuple[str, ...] = ()
    faults: str = ""
    explore_s: float = 0.0
    system: System | None = None
    plain_states: int = 0  # states of the unreduced graph, if a liveness property needed it

    @property
    def exit_code(self) -> int:
        verdicts = {r.verdict for r in self.results}
        if VIOLATED in verdicts:
            return 1
        if verdicts & {UNKNOWN, UNSUPPORTED, HOLDS_VACUOUSLY} or not self.results:
            return 3
        return 0

    @property
    def valuation(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.params.items())


def check_parameters(alg: A.Algorithm, params: dict[str, int]) -> None:
    """Every parameter given, no other, and the resilience condition met (else a SourceError)."""
    missing = [p for p in alg.parameters if p not in params]
    if missing:
        raise SourceError(f"the interpreter runs concrete processes: give every parameter with "
                          f"--param (missing: {', '.join(missing)})", alg.spans.get("parameters"))
    unknown = [p for p in params if p not in alg.parameters]
    if unknown:
        raise SourceError(f"--param {unknown[0]}: the algorithm has no parameter '{unknown[0]}' "
                          f"(parameters: {', '.join(alg.parameters)})", alg.spans.get("parameters"))
    prog = Program(alg, [], (), (), {})
    env = Env(prog, {k: Fraction(v) for k, v in params.items()}, {}, {}, ())
    for c in alg.resilience:
        if not truth(env, c):
            raise SourceError(f"the values {', '.join(f'{k}={v}' for k, v in params.items())} "
                              f"violate the resilience condition "
                              f"'{alg.line(c.span.line) if c.span else ''}'", c.span)
    if "n" not in params:
        raise SourceError("the interpreter needs the number of processes as parameter 'n'",
                          alg.spans.get("parameters"))


def make_system(alg: A.Algorithm, params: dict[str, int], kinds: frozenset[str] | None = None) -> System:
    check_parameters(alg, params)
    alg, tossed = with_obligations(alg)
    prog = compile_program(alg, tossed)
    faults = faults_of(alg, params)
    kind = SyncSystem if alg.timing == "sync" else System
    return kind(prog, params, faults, frozenset(prog.payload_names()) if kinds is None else kinds)


def explore(alg: A.Algorithm, params: dict[str, int], max_states: int,
            symmetric: bool = True) -> tuple[System, Graph]:
    """The state graph, with the message kinds decided from the runs (module docstring)."""
    system = make_system(alg, params)
    while True:
        graph = build(system, max_states, symmetric)
        wrong = graph.two_instances & system.kinds
        if not wrong:
            return system, graph
        system = type(system)(system.prog, params, system.faults, system.kinds - wrong)


def check_algorithm(alg: A.Algorithm, params: dict[str, int], path: str,
                    properties: tuple[str, ...] = (),
                    max_states: int = DEFAULT_MAX_STATES) -> SourceReport:
    started = time.monotonic()
    program = alg  # make_system adds the ghost and obligations itself: adding them twice gave a
    # second ghost, the one the steps set, while the obligations read the first (never set)
    alg, _ = with_obligations(alg)  # `rounds carrying v`: the obligations are its properties
    selected = [p for p in alg.properties if not properties or p.name in properties]
    unknown = [p for p in properties if p not in {q.name for q in alg.properties}]
    if unknown:
        raise SourceError(f"no property '{unknown[0]}' (properties: "
                          f"{', '.join(p.name for p in alg.properties) or 'none'})")
    system, graph = explore(program, params, max_states)
    report = SourceReport(path, alg, dict(params), states=len(graph.states),
                          transitions=graph.transitions, kinds=tuple(sorted(system.kinds)),
                          not_kinds=tuple(sorted(set(system.prog.payload_names()) - system.kinds)),
                          faults=system.faults.words(), explore_s=time.monotonic() - started,
                          system=system)
    plain: list[Graph] = []  # built when a liveness property needs it

    def plain_graph() -> Graph:
        if not plain:
            plain.append(build(system, max_states, symmetric=False))
            report.plain_states = len(plain[0].states)
        return plain[0]

    for prop in selected:
        report.results.append(_check_property(system, graph, prop, plain_graph))
    return report


def _decide(system: System, graph: Graph, formula: A.FormulaNode, plain_graph):
    verdict = check(system, graph, formula)
    if verdict.verdict == "plain":
        verdict = check(system, plain_graph(), formula)
    return verdict


def _check_property(system: System, graph: Graph, prop: A.PropertyDecl, plain_graph) -> Result:
    started = time.monotonic()
    kind = "liveness" if is_liveness(prop.formula) else "safety"
    formula = prop.formula
    sync = isinstance(system, SyncSystem)
    if sync and kind == "liveness":
        return Result(prop.name, kind, UNSUPPORTED, reason="liveness in lock-step rounds is not "
                      "checked by the interpreter yet (safety is)")
    if prop.hypothesis is not None:
        formula = with_hypothesis(formula, prop.hypothesis) if sync else None
        if formula is None:
            return Result(prop.name, kind, UNSUPPORTED, reason=f"'assuming "
                          f"{prop.hypothesis.text()}' is run by the interpreter on 'always P' in "
                          "lock-step rounds only")
    prop = replace(prop, formula=formula)
    verdict = _decide(system, graph, prop.formula, plain_graph)
    result = Result(prop.name, kind, verdict.verdict, reason=verdict.reason)
    if verdict.verdict == VIOLATED and verdict.run is not None:
        ok, message = replay(system, prop.formula, verdict.run)
        verdict.run.replayed, verdict.run.replay_message = ok, message
        result.run = verdict.run
        if not ok:  # never report a run that does not replay
            result.verdict = UNKNOWN
            result.reason = f"internal: the violating run found does not replay ({message})"
    elif verdict.verdict == HOLDS:
        test = antecedent_test(prop.formula)
        if test is None:
            result.vacuity = "no antecedent"
        else:
            vac = _decide(system, graph, test, plain_graph)
            if vac.verdict == HOLDS:
                result.verdict = HOLDS_VACUOUSLY
                result.reason = "no run meets the antecedent (the property with its consequent " \
                                "replaced by false holds too)"
            elif vac.verdict == VIOLATED:
                result.vacuity = "not vacuous"
            else:
                result.vacuity = "vacuity unknown"
    result.time_s = time.monotonic() - started
    return result
