"""The counterexample-guided loop of ``tactl synthesize``: propose a candidate, check it, and
when a property is violated exclude every candidate the same run refutes (its region,
tactl/synth/region.py), not just the candidate itself.

Why this terminates and is complete: the candidate space is finite (tactl/synth/space.py refuses
an unbounded unknown), every iteration removes at least the candidate it checked (a region always
contains its own candidate: asserted), and a candidate is reported a solution only when the
checker (tactl/engines/check.py, the machinery of ``tactl check``) says every selected property
HOLDS for every parameter valuation. A region only removes candidates under which a concrete,
replayable run violates a property, so no solution is ever lost: when the generator's solver
answers unsat, the solutions found are all of them.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass

from tactl.engines.check import CheckOptions, check_automaton, initial_configuration_exists
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, VIOLATED
from tactl.ir.evaluate import holds
from tactl.ir.expr import Compare, Expr, const, substitute, to_text
from tactl.ir.linear import LinearTerm, int_symbols, linearize, to_z3
from tactl.ir.ta.model import SymbolKind, ThresholdAutomaton
from tactl.ir.ta.printer import print_ta
from tactl.ir.ta.reader import read_ta
from tactl.passes.ta_to_ta.instantiate import instantiate
from tactl.passes.ta_to_ta.lower_division import lower_division
from tactl.synth.nearest import DistanceRings
from tactl.synth.region import RegionError, point_region, run_region
from tactl.synth.result import EMPTY_RC, ExcludedRegion, Solution, SynthesisResult, search_stops
from tactl.synth.space import CandidateSpace, candidate_space
from tactl.util import deadline


@dataclass
class SynthesisOptions:
    properties: tuple[str, ...] = ()  # empty: every property
    max_solutions: int | None = None  # stop after this many solutions (the search is then incomplete)
    path: str = "<input>"
    recheck: bool = True  # every solution printed, read back and checked again
    max_unit_steps: int = 200_000  # a longer run excludes its candidate alone (tactl/synth/region.py)
    # repair: candidates by growing L1 distance from these values, stopping after the nearest
    # ring with a solution none of whose properties holds vacuously, but for those of
    # `vacuous_allowed` (vacuous in the written automaton already) (tactl/synth/nearest.py)
    nearest: dict[str, int] | None = None
    vacuous_allowed: tuple[str, ...] = ()
    count_below: int = 5_000  # a space with fewer points in its box: each region's candidates counted


def synthesize(ta: ThresholdAutomaton, options: SynthesisOptions,
               progress: Callable[[str], None] | None = None,
               space: CandidateSpace | None = None) -> SynthesisResult:
    """Every candidate of ``ta``'s space under which every selected property holds, with the
    regions that exclude the others; stops early (``complete`` False) on the command's deadline,
    an interrupt or ``max_solutions``."""
    import z3  # lazy: z3 is slow to import; the loop's generator is a solver

    space = space or candidate_space(ta, options.path)
    result = SynthesisResult(space, path=options.path)
    if ta.timing == "sync":
        # Lock-step checking needs each candidate's receive automaton, which the loop does not
        # build: every candidate would come back unsupported, one point at a time.
        result.unsupported = result.stopped = (
            "synthesis of a synchronous (timing sync) algorithm is not supported: its lock-step "
            "check needs each candidate's receive automaton")
        return result
    started = time.perf_counter()
    sym = int_symbols()
    generator = z3.Solver()
    generator.add(*(to_z3(c, sym) for c in space.constraints))
    for u, (lo, hi) in space.bounds.items():
        generator.add(sym(u) >= lo, sym(u) <= hi)
    selected = [p.name for p in ta.properties if not options.properties or p.name in options.properties]
    order = list(selected)  # most recently refuting property first
    rings = DistanceRings(options.nearest, space.bounds, sym) if options.nearest is not None else None
    if rings is not None:
        generator.add(rings.definition)
    points = space_points(space) if space.size() < options.count_below else None
    last_note = [0.0]

    def note() -> None:
        if progress is None:
            return
        now = time.perf_counter()
        if now - last_note[0] < 1.0:
            return
        last_note[0] = now
        progress(f"synthesize: {result.candidates_tried} candidates tried, {len(result.excluded)} regions "
                 f"excluded, {len(result.solutions)} solutions, {now - started:.1f} s elapsed")

    with search_stops(result):
        while True:
            if deadline.remaining() == 0:
                result.stopped = deadline.timeout_reason()
                break
            with deadline.interruptible():
                answer = generator.check(*(rings.assumptions() if rings else ()))
            if answer == z3.unsat:
                if rings is not None and not any(set(s.vacuous) <= set(options.vacuous_allowed)
                                                 for s in result.solutions) and rings.widen():
                    continue
                result.complete = True
                break
            if answer != z3.sat:
                result.stopped = "z3 could not propose the next candidate: " + generator.reason_unknown()
                break
            model = generator.model()
            candidate = {u: model.eval(sym(u), model_completion=True).as_long() for u in space.unknowns}
            blocked = _check_candidate(ta, candidate, selected, order, options, result)
            if points is not None and result.excluded and result.excluded[-1].candidate == candidate:
                result.excluded[-1].size = sum(1 for p in points if holds(blocked, p))
            result.candidates_tried += 1  # decided (an interrupted candidate is not counted)
            generator.add(z3.Not(to_z3(blocked, sym)))
            note()
            if options.max_solutions is not None and len(result.solutions) >= options.max_solutions:
                result.stopped = f"--max-solutions {options.max_solutions} reached"
                break
    result.time_s = time.perf_counter() - started
    # The order z3 proposes candidates in varies from run to run; the set does not. Reported in
    # the unknowns' order, so that two runs (and the documentation's example) print the same list.
    result.solutions.sort(key=lambda s: tuple(s.values[u] for u in space.unknowns))
    if options.recheck:
        _recheck(ta, result, selected, options.path)
    return result


def _check_candidate(ta: ThresholdAutomaton, candidate: dict[str, int], selected: list[str],
                     order: list[str], options: SynthesisOptions, result: SynthesisResult) -> Expr:
    """Check one candidate, record what it is, and return the region the generator must leave."""
    automaton = lower_division(instantiate(ta, candidate))
    exists, why = initial_configuration_exists(automaton, None)
    if exists is False:
        region = point_region(candidate)
        result.excluded.append(ExcludedRegion("(all)", candidate, region, None, 1, kind=EMPTY_RC,
                                              automaton=automaton, note=why))
        return region
    verdicts: dict[str, str] = {}
    vacuous: list[str] = []
    for name in list(order):
        with deadline.interruptible():
            report = check_automaton(automaton, options.path,
                                     CheckOptions(properties=(name,), minimize=False))
        if report.interrupted is not None:
            raise report.interrupted
        r = report.results[0]
        if r.verdict not in (HOLDS, HOLDS_VACUOUSLY, VIOLATED) and deadline.remaining() == 0:
            raise deadline.DeadlineExceeded()  # the command's --timeout, not this candidate's doing
        verdicts[name] = r.verdict
        if r.verdict == VIOLATED:
            order.remove(name)
            order.insert(0, name)
            region, note = point_region(candidate), ""
            if r.counterexample is not None:
                try:
                    region = run_region(ta, name, r.counterexample, candidate, options.max_unit_steps,
                                        result.space)
                except RegionError as e:
                    note = str(e)
                    if e.bug:
                        result.problems.append(f"candidate {_values(candidate)}, {name}: {e}")
            result.excluded.append(ExcludedRegion(name, candidate, region, r.counterexample,
                                                  automaton=automaton, note=note))
            return region
        if r.verdict == HOLDS_VACUOUSLY:
            vacuous.append(name)
        elif r.verdict != HOLDS:
            result.undecided.append((candidate, f"{name}: {r.verdict}: {r.reason or ''}".rstrip(": ")))
            return point_region(candidate)
    result.solutions.append(Solution(candidate, thresholds(ta, candidate),
                                     resilience(ta, candidate), verdicts=verdicts, vacuous=tuple(vacuous)))
    return point_region(candidate)


def space_points(space: CandidateSpace) -> list[dict[str, int]]:
    """Every candidate of a (small) space, by enumerating its box."""
    boxes = [range(lo, hi + 1) for lo, hi in space.bounds.values()]
    out = []
    for point in itertools.product(*boxes):
        values = dict(zip(space.unknowns, point))
        if all(holds(c, values) for c in space.constraints):
            out.append(values)
    return out


def _values(candidate: dict[str, int]) -> str:
    return ", ".join(f"{u}={v}" for u, v in candidate.items())


def linear_text(e: Expr) -> str:
    """``e`` in the canonical linear form (``N - T + 1``) when it is linear, else as written."""
    try:
        return str(linearize(e))
    except (ValueError, TypeError):
        return to_text(e)


def thresholds(ta: ThresholdAutomaton, candidate: dict[str, int]) -> dict[str, str]:
    """Every define whose expansion names an unknown, with the candidate's values put in."""
    values = {u: const(v) for u, v in candidate.items()}
    out = {}
    for d in ta.defines:
        if SymbolKind.UNKNOWN in ta.macro_names.get(d.name, {}):
            out[d.name] = linear_text(substitute(ta.macro_bodies[d.name], values))
    return out


def resilience(ta: ThresholdAutomaton, candidate: dict[str, int]) -> str:
    """The instantiated resilience condition, each conjunct in canonical linear form."""
    inst = instantiate(ta, candidate)
    parts = []
    for a in inst.assumptions:
        e = inst.expand(a)
        if isinstance(e, Compare):
            try:
                diff = linearize(e.left) - linearize(e.right)
                parts.append(_compare_text(diff, e.op))
                continue
            except (ValueError, TypeError):
                pass
        parts.append(to_text(a))
    return " && ".join(parts) or "true"


def _compare_text(diff, op: str) -> str:
    """``diff op 0`` as ``positive side op negative side`` (``N > 3 * T``)."""
    left = LinearTerm.of({x: a for x, a in diff.coeffs if a > 0}, max(diff.const, 0))
    right = LinearTerm.of({x: -a for x, a in diff.coeffs if a < 0}, max(-diff.const, 0))
    return f"{left} {op} {right}"


def _recheck(ta: ThresholdAutomaton, result: SynthesisResult, selected: list[str], path: str) -> None:
    """Each solution printed as a .ta, read back, and checked again: the verdicts must agree."""
    for s in result.solutions:
        text = print_ta(instantiate(ta, s.values))
        read = read_ta(text, path)
        automaton = lower_division(read.ta)
        report = check_automaton(automaton, path, CheckOptions(properties=tuple(selected), minimize=False))
        s.recheck = {r.name: r.verdict for r in report.results}
        if any(v not in (HOLDS, HOLDS_VACUOUSLY) for v in s.recheck.values()):
            result.problems.append(f"the solution {_values(s.values)} does not re-check: "
                                   + ", ".join(f"{k}: {v}" for k, v in s.recheck.items()))
