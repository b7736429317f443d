"""``tactl check --repair``: the nearest thresholds (and, on request, resilience condition) under
which every property of a violated automaton holds.

The automaton's written thresholds are lifted into unknowns with ranges around their written
values (passes/ta_to_ta/lift_thresholds.py), and the synthesis loop (tactl/synth/cegis.py) searches
that space in rings of growing L1 distance from the written values (tactl/synth/nearest.py):
every candidate it checks is decided by the checker of ``tactl check``, a refuted one excludes
its whole region, and the first ring that holds a solution holds every nearest repair. A
solution under which some property holds only vacuously is not a repair (it makes the property
true by making its premise impossible), so the search goes on past it — unless that property
held vacuously in the written automaton already. Each repair is re-checked
as ``synthesize`` re-checks its solutions: printed, read back, checked again. Several repairs at
the same distance are ordered as ``synthesize --weakest`` orders solutions (tactl/synth/order.py):
the minimal ones first, marked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tactl.ir.expr import Compare, Expr, const, substitute, to_text
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.ta_to_ta.lift_thresholds import LiftOptions, Site, lift_thresholds, term_text
from tactl.synth.cegis import SynthesisOptions, synthesize
from tactl.synth.nearest import distance
from tactl.synth.order import weakest


@dataclass(frozen=True)
class Change:
    """One threshold a repair changes: where, as written, as repaired."""

    where: str
    written: str
    repaired: str

    def text(self) -> str:
        return f"{self.where} `{self.written}` becomes `{self.repaired}`"


@dataclass
class Repair:
    values: dict[str, int]
    distance: int
    changes: list[Change]
    recheck: dict[str, str] = field(default_factory=dict)  # property -> verdict, checked again
    weakest: bool | None = None  # among the nearest, minimal in the order of tactl/synth/order.py

    def json(self) -> dict[str, Any]:
        return {"distance": self.distance, "values": self.values,
                **({"weakest": self.weakest} if self.weakest is not None else {}),
                "changes": [{"where": c.where, "written": c.written, "repaired": c.repaired}
                            for c in self.changes],
                "recheck": self.recheck}


@dataclass
class RepairResult:
    """What a repair search found, whichever way it searched (``method``): the lifted sites and
    the unknowns' ranges, the nearest repairs, and how much of the space was covered."""

    sites: tuple[Site, ...]
    ranges: dict[str, tuple[int, int]]
    method: str
    repairs: list[Repair] = field(default_factory=list)
    complete: bool = False  # every ring up to the nearest repair (or the whole space) covered
    stopped: str = ""
    candidates_tried: int = 0
    regions_excluded: int = 0
    time_s: float = 0.0
    vacuous: int = 0  # solutions passed over because a property held only vacuously under them
    notes: tuple[str, ...] = ()
    problems: list[str] = field(default_factory=list)
    interrupted: KeyboardInterrupt | None = field(default=None, repr=False)  # re-raised after printing

    @property
    def distance(self) -> int | None:
        return self.repairs[0].distance if self.repairs else None

    def json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "lifted": [{"where": site.where, "written": site.written, "unknowns": site.unknowns}
                       for site in self.sites],
            "ranges": {u: list(b) for u, b in self.ranges.items()},
            "complete": self.complete, **({"stopped": self.stopped} if self.stopped else {}),
            "distance": self.distance,
            "repairs": [r.json() for r in self.repairs],
            "candidates_tried": self.candidates_tried, "regions_excluded": self.regions_excluded,
            "time_s": round(self.time_s, 3),
            **({"vacuous_solutions_passed_over": self.vacuous} if self.vacuous else {}),
            **({"notes": list(self.notes)} if self.notes else {}),
            **({"problems": self.problems} if self.problems else {}),
        }


REGIONS = "synthesis loop over the lifted automaton (each refuted candidate excludes its region)"


def repair(ta: ThresholdAutomaton, lift: LiftOptions = LiftOptions(), properties: tuple[str, ...] = (),
           path: str = "<input>", progress: Callable[[str], None] | None = None,
           vacuous_allowed: tuple[str, ...] = ()) -> RepairResult:
    """The nearest repairs of ``ta`` (module docstring); ``properties``: those that must hold
    (empty: every property); ``vacuous_allowed``: those that held vacuously in ``ta`` already,
    which a repair may leave so."""
    lifted = lift_thresholds(ta, lift)
    if not lifted.sites:
        raise ValueError("no threshold to repair: no guard compares shared variables with a "
                         "linear term of parameters")
    result = synthesize(lifted.ta, SynthesisOptions(properties=properties, path=path, nearest=dict(lifted.written),
                                                    vacuous_allowed=vacuous_allowed), progress)
    out = RepairResult(lifted.sites, dict(result.space.bounds), REGIONS, complete=result.complete,
                       stopped=result.stopped, candidates_tried=result.candidates_tried,
                       regions_excluded=len(result.excluded), time_s=result.time_s,
                       notes=lifted.notes, problems=list(result.problems), interrupted=result.interrupted)
    for s in result.solutions:
        if not set(s.vacuous) <= set(vacuous_allowed):
            out.vacuous += 1
            continue
        out.repairs.append(Repair(s.values, distance(s.values, lifted.written),
                                  changes(lifted.sites, lifted.written, s.values, ta.parameters), dict(s.recheck)))
    return order_repairs(nearest_only(out), lifted.ta)


def order_repairs(out: RepairResult, lifted: ThresholdAutomaton) -> RepairResult:
    """Several nearest repairs: the weakest resilience condition, then the least thresholds,
    first and marked (the order of ``synthesize --weakest``, over ``lifted``, the automaton
    whose unknowns the repairs assign), or a note when none is below another."""
    if len(out.repairs) > 1:
        order = weakest(lifted, [r.values for r in out.repairs])
        if len(order.chosen) < len(out.repairs):
            for i, r in enumerate(out.repairs):
                r.weakest = i in order.chosen
            out.repairs.sort(key=lambda r: not r.weakest)
        else:
            out.notes = (*out.notes, f"the nearest repairs are incomparable: {order.why}")
    return out


def nearest_only(out: RepairResult) -> RepairResult:
    """``out`` with only the repairs at the least distance (a ring search may have found others)."""
    least = min((r.distance for r in out.repairs), default=None)
    out.repairs = [r for r in out.repairs if r.distance == least]
    return out


def changes(sites: tuple[Site, ...], written: Mapping[str, int], values: Mapping[str, int],
            order: tuple[str, ...] = ()) -> list[Change]:
    """The sites whose unknowns differ from their written values, each with its repaired text."""
    out = []
    for site in sites:
        if all(values[u] == written[u] for u in site.unknowns.values()):
            continue
        out.append(Change(site.where, site.written, repaired_text(site, values, order)))
    return out


def repaired_text(site: Site, values: Mapping[str, int], order: tuple[str, ...] = ()) -> str:
    """The site's threshold (or comparison) with the repair's values put in, as a person writes it."""
    e = substitute(site.lifted, {u: const(values[u]) for u in site.unknowns.values()})
    if isinstance(e, Compare):
        return f"{_linear(e.left, order)} {e.op} {_linear(e.right, order)}"
    return _linear(e, order)


def _linear(e: Expr, order: tuple[str, ...]) -> str:
    try:
        return term_text(linearize(e), order)
    except (NonLinearError, TypeError):
        return to_text(e)
