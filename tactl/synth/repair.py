"""``tactl check --repair``: the nearest thresholds (and, on request, resilience condition) under
which every property of a violated automaton holds.

The automaton's written thresholds are lifted into unknowns with ranges around their written
values (passes/ta_to_ta/lift_thresholds.py), and the synthesis loop (tactl/synth/cegis.py) searches
that space in rings of growing L1 distance from the written values (tactl/synth/nearest.py):
every candidate it checks is decided by the checker of ``tactl check``, a refuted one excludes
its whole region, and the first ring that holds a solution holds every nearest repair. A
solution under which some property holds only vacuously is not a repair (it makes the property
true by making its premise impossible), so the search goes on past it. Each repair is re-checked
as ``synthesize`` re-checks its solutions: printed, read back, checked again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tactl.ir.expr import Compare, Expr, const, substitute, to_text
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.ta_to_ta.lift_thresholds import LiftOptions, Lifted, Site, lift_thresholds
from tactl.synth.cegis import SynthesisOptions, synthesize
from tactl.synth.nearest import distance
from tactl.synth.result import Solution, SynthesisResult


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
    solution: Solution
    distance: int
    changes: list[Change]

    def json(self) -> dict[str, Any]:
        return {"distance": self.distance, "values": self.solution.values,
                "changes": [{"where": c.where, "written": c.written, "repaired": c.repaired}
                            for c in self.changes],
                "recheck": self.solution.recheck}


@dataclass
class RepairResult:
    lifted: Lifted
    synthesis: SynthesisResult
    repairs: list[Repair] = field(default_factory=list)
    vacuous: int = 0  # solutions passed over because a property held only vacuously under them

    @property
    def distance(self) -> int | None:
        return self.repairs[0].distance if self.repairs else None

    def json(self, render=None) -> dict[str, Any]:
        s = self.synthesis
        return {
            "lifted": [{"where": site.where, "written": site.written, "unknowns": site.unknowns}
                       for site in self.lifted.sites],
            "ranges": {u: list(b) for u, b in s.space.bounds.items()},
            "complete": s.complete, **({"stopped": s.stopped} if s.stopped else {}),
            "distance": self.distance,
            "repairs": [r.json() for r in self.repairs],
            "candidates_tried": s.candidates_tried, "regions_excluded": len(s.excluded),
            "time_s": round(s.time_s, 3),
            **({"notes": list(self.lifted.notes)} if self.lifted.notes else {}),
            **({"problems": s.problems} if s.problems else {}),
        }


def repair(ta: ThresholdAutomaton, lift: LiftOptions = LiftOptions(), properties: tuple[str, ...] = (),
           path: str = "<input>", progress: Callable[[str], None] | None = None) -> RepairResult:
    """The nearest repairs of ``ta`` (module docstring); ``properties``: those that must hold
    (empty: every property)."""
    lifted = lift_thresholds(ta, lift)
    if not lifted.sites:
        raise ValueError("no threshold to repair: no guard compares shared variables with a "
                         "linear term of parameters")
    result = synthesize(lifted.ta, SynthesisOptions(properties=properties, path=path,
                                                    nearest=dict(lifted.written)), progress)
    out = RepairResult(lifted, result)
    for s in result.solutions:
        if s.vacuous:
            out.vacuous += 1
            continue
        out.repairs.append(Repair(s, distance(s.values, lifted.written), changes(lifted, s.values)))
    nearest = min((r.distance for r in out.repairs), default=None)
    out.repairs = [r for r in out.repairs if r.distance == nearest]
    return out


def changes(lifted: Lifted, values: Mapping[str, int]) -> list[Change]:
    """The sites whose unknowns differ from their written values, each with its repaired text."""
    out = []
    for site in lifted.sites:
        if all(values[u] == lifted.written[u] for u in site.unknowns.values()):
            continue
        out.append(Change(site.where, site.written, repaired_text(site, values)))
    return out


def repaired_text(site: Site, values: Mapping[str, int]) -> str:
    e = substitute(site.lifted, {u: const(values[u]) for u in site.unknowns.values()})
    if isinstance(e, Compare):
        return f"{_linear(e.left)} {e.op} {_linear(e.right)}"
    return _linear(e)


def _linear(e: Expr) -> str:
    try:
        return str(linearize(e))
    except (NonLinearError, TypeError):
        return to_text(e)
