"""The HTML page of ``tactl synthesize --html FILE``: one self-contained static file.

The space (each unknown's range), the search's figures (candidates checked, regions excluded,
time, whether it covered the space), the solutions with their thresholds, resilience condition,
re-check and neighbours one step away (tactl/synth/tightness.py), the excluded regions each with
its property, its constraints and the run that kills it, the candidates left undecided. A run is
shown exactly as the ``verify`` page shows a counterexample: the same view
(:func:`tactl.report.html.counterexample_view`, from ``check --json``'s counterexample) and the
same template (templates/html/counterexample.html.j2), with the same stylesheet. Like that page
it is pure and deterministic, with inline CSS and SVG only, and every text is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tactl.engines.result import Counterexample
from tactl.ir.expr import to_text
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.report.html import CounterexampleView, counterexample_view, page_environment
from tactl.report.property_json import counterexample_json
from tactl.report.tightness_text import neighbour_text
from tactl.synth.result import EMPTY_RC, SynthesisResult
from tactl.synth.tightness import KILLED
from tactl.util.version import __version__

TEMPLATE = "html/synthesis.html.j2"
# Runs drawn in full; the regions after these are listed with their constraints only.
RUNS_DRAWN = 60


@dataclass(frozen=True)
class NeighbourRow:
    text: str
    status: str
    link: str  # anchor of the run that kills it ("" when none)


@dataclass(frozen=True)
class SolutionRow:
    values: str
    thresholds: tuple[tuple[str, str], ...]
    resilience: str
    recheck: str
    vacuous: str
    tight: bool | None  # None: no neighbour looked at
    neighbours: tuple[NeighbourRow, ...]


@dataclass(frozen=True)
class RegionRow:
    anchor: str
    number: int
    property: str
    candidate: str
    region: str
    size: str
    note: str
    run: CounterexampleView | None


@dataclass(frozen=True)
class SynthesisPage:
    title: str
    version: str
    file: str
    unknowns: tuple[tuple[str, int, int], ...]
    box: str
    figures: tuple[tuple[str, str], ...]
    complete: bool
    stopped: str
    weakest: str
    solutions: tuple[SolutionRow, ...]
    regions: tuple[RegionRow, ...]
    extra_runs: tuple[CounterexampleView, ...]  # neighbours checked directly, not through a region
    undecided: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]
    runs_left_out: int


def render_synthesis_html(result: SynthesisResult) -> str:
    """The whole page for one synthesis result."""
    return page_environment().get_template(TEMPLATE).render(page=synthesis_page(result))


def _values(values: dict[str, int]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in values.items()) or "(none)"


def _run(automaton: ThresholdAutomaton | None, cex: Counterexample | None, prop: str, anchor: str) -> CounterexampleView | None:
    if automaton is None or cex is None:
        return None
    doc: dict[str, Any] = {"name": prop, "verdict": "violated", "counterexample": counterexample_json(automaton, cex)}
    return counterexample_view(doc, anchor)


def synthesis_page(result: SynthesisResult) -> SynthesisPage:
    regions = []
    for i, e in enumerate(result.excluded):
        anchor = f"region-{i + 1}"
        run = _run(e.automaton, e.counterexample, e.property, anchor) if i < RUNS_DRAWN else None
        what = ("no parameter values satisfy the resilience condition" if e.kind == EMPTY_RC else e.property)
        regions.append(RegionRow(anchor, i + 1, what, _values(e.candidate), to_text(e.region),
                                 "" if e.size is None else f"{e.size:,}", e.note, run))
    extra: list[CounterexampleView] = []
    solutions = []
    for index in result.reported():
        s = result.solutions[index]
        rows = []
        for j, n in enumerate(result.tightness.get(index, ())):
            link = ""
            if n.status == KILLED and n.region is not None:
                link = f"region-{n.region + 1}" if n.region < RUNS_DRAWN else ""
            elif n.status == KILLED:
                link = f"neighbour-{index + 1}-{j + 1}"
                view = _run(n.automaton, n.counterexample, n.prop, link)
                if view is not None:
                    extra.append(view)
            rows.append(NeighbourRow(neighbour_text(n), n.status, link))
        neighbours = result.tightness.get(index)
        solutions.append(SolutionRow(
            _values(s.values), tuple(s.thresholds.items()), s.resilience,
            ", ".join(f"{k}: {v}" for k, v in (s.recheck or s.verdicts).items()),
            ", ".join(s.vacuous),
            None if neighbours is None else not any(n.weaker for n in neighbours),
            tuple(rows)))
    space = result.space
    figures = (("candidates checked", f"{result.candidates_tried:,}"),
               ("regions excluded", f"{len(result.excluded):,}"),
               ("solutions", f"{len(result.solutions):,}"),
               ("undecided", f"{len(result.undecided):,}"),
               ("time", f"{result.time_s:.1f} s"))
    weakest = ""
    if result.weakest is not None:
        w = result.weakest
        weakest = (f"--weakest: {len(w.chosen)} of {len(result.solutions)} solutions shown, those with the weakest "
                   f"resilience condition and then the least thresholds ({w.classes} inequivalent "
                   f"condition{'s' if w.classes != 1 else ''} among the solutions)" + (f"; incomparable: {w.why}" if w.why else ""))
    return SynthesisPage(
        title=f"tactl synthesize: {result.path}", version=__version__, file=result.path,
        unknowns=tuple((u, lo, hi) for u, (lo, hi) in space.bounds.items()),
        box=f"{space.size():,}", figures=figures, complete=result.complete, stopped=result.stopped,
        weakest=weakest, solutions=tuple(solutions), regions=tuple(regions), extra_runs=tuple(extra),
        undecided=tuple((_values(c), why) for c, why in result.undecided),
        problems=tuple(result.problems), runs_left_out=max(0, len(result.excluded) - RUNS_DRAWN))
