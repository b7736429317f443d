"""Liveness of a Parametric Promela file under the file's own ``ltl fairness``: the default verdict.

A ``.pml`` liveness specification has two readings. The file's: ``fairness -> spec`` over the
file's interleaved steps (what ByMC checks, and what the author wrote); nothing makes a process
move, so a process that got every message it will ever get may stop for good. tactl's derived
justice (``passes/rta_to_ta/fairness.py``) also makes a process whose rule stays enabled take it.
The file's reading is the default; the derived one is computed as before and shown beside it
when the two verdicts differ. Where they agree the report is the derived one, unchanged.

How the file's verdict is decided (``passes/rta_to_ta/file_fairness.py`` says why each step is sound):

1. HOLDS: the parametric engine proves ``<>[](J_file) -> spec`` on the same automaton, ``J_file``
   an over-approximation of the file's fair runs — so it holds for all parameters.
2. VIOLATED: a run of the file itself, every process with its receive counts
   (``tactl/engines/file_fairness.py``), replayed by the simulator with the file's fairness in the
   formula: the derived justice's lasso made one (``realize``) where the derived verdict is
   VIOLATED, else one the explicit engine finds at the smallest valuations of the resilience
   condition in turn, then at the derived counterexample's, within :data:`SEARCH_S`.
3. Otherwise UNKNOWN, saying which instances were searched.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, replace
from typing import Any

from typing import TYPE_CHECKING

from tactl.ir.expr import Expr, IntConst, conj
from tactl.util import deadline

if TYPE_CHECKING:
    from tactl.passes.rta_to_ta.own_fairness import FileFairness
    from tactl.passes.rta_to_ta.file_fairness import FileJustice

MAX_PROCESSES = 6  # the largest instance (processes the file runs) searched for a violation
MAX_INSTANCES = 12
SEARCH_S = 30.0  # wall seconds for the search of a violating run, per property (within --timeout)
INSTANCE_S = 10.0  # of which one instance may take at most this


@dataclass
class FileReading:
    """What the file's reading needs, built when a check needs it (:func:`reading_of`)."""

    rta: Any  # the receive automaton (ir.rta.ReceiveTA)
    translation: Any  # passes/rta_to_ta/eliminate.Translation
    fairness: FileFairness
    justice: FileJustice

    @property
    def stays(self) -> dict[str, Expr]:
        return dict(self.fairness.stays)


def file_fairness(doc: dict) -> FileFairness:
    from tactl.passes.rta_to_ta.own_fairness import FileFairness  # lazy: only for a Promela file

    return FileFairness.from_json(doc)


def attach(read, loaded):
    """``read`` (the translate pass's result) with what a Promela file ``loaded`` (the parse pass's
    ``ParsedPromela``) keeps for its own fairness; nothing for another input. The reading itself is
    built when a check needs it (:func:`reading_of`), after the derived verdicts, from a translation
    of its own: neither its z3 queries nor a translation kept alive may change theirs (z3's models,
    hence a report's figures, e.g. its query counts)."""
    if getattr(loaded, "fairness", None) is not None:
        read.file_fairness = loaded.fairness
    return read


def keep(read, loaded):
    """``read`` with what ``loaded`` kept for a Promela file's own fairness (or nothing)."""
    read.file_fairness = getattr(loaded, "file_fairness", None)
    read.file_reading = getattr(loaded, "file_reading", None)
    return read


def reading_of(loaded) -> FileReading | None:
    """The reading of a checkable automaton (module docstring); None for any other input and where
    it is not built (``file_justice``)."""
    if getattr(loaded, "file_reading", None) is not None:
        return loaded.file_reading
    fairness = getattr(loaded, "file_fairness", None)
    if fairness is None or loaded.receive is None:
        return None
    # lazy: only for a .pml's liveness
    from tactl.passes.rta_to_ta.eliminate import translate
    from tactl.passes.rta_to_ta.file_justice_of import justice_of

    translation = translate(loaded.receive)
    justice = justice_of(loaded.receive, translation, fairness)
    loaded.file_reading = None if justice is None else FileReading(loaded.receive, translation, fairness, justice)
    return loaded.file_reading


def valuations(parameters: tuple[str, ...], assumptions: tuple[Expr, ...], processes: Expr,
               limit: int = MAX_PROCESSES):
    """Parameter valuations of the resilience condition, fewest processes first (then smaller
    values first), up to ``limit`` processes."""
    from tactl.ir.evaluate import holds  # lazy: only when a violation is searched

    found = []
    top = limit + 3
    for values in itertools.product(range(top + 1), repeat=len(parameters)):
        at = dict(zip(parameters, values))
        try:
            if not holds(conj(*assumptions), at):
                continue
            n = _int(processes, at)
        except (ArithmeticError, ValueError, KeyError):
            continue
        if 1 <= n <= limit:
            found.append((n, values, at))
    return [at for _, _, at in sorted(found, key=lambda t: (t[0], t[1]))]


def _int(e: Expr, at: dict[str, int]) -> int:
    from tactl.ir.evaluate import evaluate  # lazy: only here

    return int(evaluate(e, at))


def decide(reading: FileReading, ta, path: str, name: str, derived) -> Any:
    """The file's verdict on ``name`` (module docstring); ``ta`` is the checked automaton."""
    from tactl.engines.check import CheckOptions, check_automaton  # lazy: the engines load only to check
    from tactl.engines.file_fairness import TooLarge, run_lines, run_trace, unfold
    from tactl.passes.rta_to_ta.crash_fairness import crash_reading
    from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, VIOLATED, PropertyResult
    from tactl.passes.rta_to_ta.file_cycles import covered  # lazy: with the engines, as above
    from tactl.passes.rta_to_ta.static_steps import counted  # lazy: with the engines, as above

    prop = next(p for p in reading.justice.properties if p.name == name)
    over = check_automaton(replace(ta, properties=(prop,)), path, CheckOptions(properties=(name,))).results[0]
    if over.verdict in (HOLDS, HOLDS_VACUOUSLY):
        if covered(ta, reading.justice.cyclic):
            return over
        # the file's justice was built for another automaton's cycles (passes/rta_to_ta/file_cycles.py
        # argues only for the cycles it names): no proof, only a run of the file decides here
        over = replace(over, verdict=UNKNOWN, reason=(
            "the over-approximation of the file's fairness was built for other cycles than the "
            "checked automaton's"))
    env = reading.translation.environment
    messages = counted(reading.rta, reading.fairness)
    params = tuple(reading.translation.ta.parameters)
    candidates = valuations(params, reading.translation.ta.assumptions, env.processes)[:MAX_INSTANCES]
    cex = derived.counterexample
    if cex is not None and set(params) <= set(cex.parameters):  # the derived lasso's size too
        size = {p: cex.parameters[p] for p in params}
        candidates = [*(v for v in candidates if v != size), size]
    tried: list[str] = []
    started = time.monotonic()
    found = _realized(reading, ta, derived, messages, over)
    if found is not None:
        return found
    from tactl.driver.tightened_reading import tightened_verdict  # lazy: with the engines, as above

    found = tightened_verdict(reading, ta, path, name, over)  # a proof under a tighter reading
    if found is not None:
        return found
    # a crash model's violations are often runs in which nothing is received (a crash, then only the
    # dead keep stepping): those first, at every valuation (passes/rta_to_ta/crash_fairness.py)
    caps = [0, None] if crash_reading(reading.rta) else [None]
    for cap, values in ((c, v) for c in caps for v in candidates):
        left = SEARCH_S - (time.monotonic() - started)
        if left <= 0 or (deadline.remaining() is not None and deadline.remaining() <= 0):
            tried.append(f"(the search's {SEARCH_S:g} s passed)")
            break
        label = ", ".join(f"{p}={v}" for p, v in values.items()) + (" receiving nothing" if cap == 0 else "")
        try:
            inst = unfold(reading.rta, reading.translation, reading.fairness, values, cap)
        except TooLarge as e:
            tried.append(f"{label} (not built: {e})")
            continue
        if inst is None:
            break
        tried.append(label)
        counted = replace(inst.ta, assumptions=())
        with deadline.within(min(left, INSTANCE_S)):
            r = check_automaton(counted, path, CheckOptions(engine="explicit", properties=(name,),
                                                            parameters=values)).results[0]
        run = r.counterexample
        if r.verdict not in (VIOLATED, HOLDS, HOLDS_VACUOUSLY):
            why = r.reason or r.verdict
            tried[-1] += f" (not decided{' in time' if why.startswith('timeout') else ': ' + why})"
        if r.verdict == VIOLATED and run is not None and run.replayed:
            return PropertyResult(name, derived.kind, VIOLATED, r.engine, r.time_s + over.time_s,
                                  formula_class=derived.formula_class, details={
                                      "instance": values, "locations_with_counts": len(inst.ta.locations),
                                      "file_run": run_lines(inst, messages, run),
                                      "file_trace": run_trace(inst, messages, run)})
    why = ("the parametric engine found no proof under the over-approximation of the file's fairness"
           + (f" ({over.verdict}: {over.reason})" if over.reason else f" ({over.verdict})")
           + ", and the explicit engine found no run of the file that violates it at "
           + ("; ".join(tried) or "no instance built"))
    return PropertyResult(name, derived.kind, UNKNOWN, over.engine, over.time_s, reason=why,
                          formula_class=derived.formula_class)


def _realized(reading: FileReading, ta, derived, messages: tuple[str, ...], over) -> Any:
    """The derived justice's lasso made a run of the file (``tactl/engines/file_fairness.realize``),
    as the file's VIOLATED, or None."""
    from tactl.engines.file_fairness import TooLarge, realize, run_lines, run_trace, unfold  # lazy: as in decide
    from tactl.engines.result import VIOLATED, PropertyResult

    cex = derived.counterexample
    params = tuple(reading.translation.ta.parameters)
    if derived.verdict != VIOLATED or cex is None or cex.loop is None or not set(params) <= set(cex.parameters):
        return None
    values = {p: cex.parameters[p] for p in params}
    try:
        inst = unfold(reading.rta, reading.translation, reading.fairness, values)
    except TooLarge:
        return None
    env = reading.translation.environment
    guaranteed = tuple((m, env.guaranteed_count(m) or IntConst(0)) for m in messages)
    run = None if inst is None else realize(inst, ta, cex, values, guaranteed, derived.name)
    if run is None:
        return None
    return PropertyResult(derived.name, derived.kind, VIOLATED, "explicit", over.time_s,
                          formula_class=derived.formula_class, details={
                              "instance": values, "locations_with_counts": len(inst.ta.locations),
                              "file_run": run_lines(inst, messages, run),
                                      "file_trace": run_trace(inst, messages, run)})


def second_reading(reading: FileReading | None, report, ta, path: str, engine: str) -> None:
    """Put the file's verdict first where it differs from the derived one (module docstring);
    only for the parametric engine, the one whose verdicts are for every parameter."""
    from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN  # lazy: as above

    if reading is None or engine != "parametric":
        return
    names = {p.name for p in reading.justice.properties}
    for k, derived in enumerate(report.results):
        if derived.name not in names or derived.verdict not in (HOLDS, HOLDS_VACUOUSLY, "violated"):
            continue
        started = time.monotonic()
        ours = decide(reading, ta, path, derived.name, derived)
        # the time shown is what both readings cost, the file instance's search included
        spent = derived.time_s + time.monotonic() - started
        same = ours.verdict == derived.verdict or {ours.verdict, derived.verdict} == {HOLDS, HOLDS_VACUOUSLY}
        if same:
            # where the file's proof needed a tighter reading (tightened_reading.py), say which
            said = ({"reason": f"under the file's fairness ({reading.fairness.text}): {ours.verdict.upper()}, "
                               f"{ours.reason}"} if ours.details.get("tightened") else {})
            report.results[k] = replace(derived, time_s=spent, **said)
            continue
        ours = replace(ours, time_s=spent)
        other = derived.verdict.upper() + (f" ({derived.reason})" if derived.reason and derived.verdict == UNKNOWN else "")
        instance = ours.details.get("instance")
        said = (f"a run of the file at {', '.join(f'{p}={v}' for p, v in instance.items())} (below: each "
                "process with its receive counts; replayed by the simulator with the file's fairness in the "
                "formula): a process that has every message may stop for good" if instance else ours.reason or "")
        text = (f"under the file's fairness ({reading.fairness.text}): {ours.verdict.upper()}"
                + (f": {said}" if said else "")
                + f"; under tactl's derived justice (a process whose rule stays enabled takes it): {other}")
        details = {**ours.details, "assumption": "the file's fairness",
                   "other_reading": {"assumption": "derived justice", "verdict": derived.verdict,
                                     "reason": derived.reason}}
        report.results[k] = replace(ours, reason=text, details=details)
