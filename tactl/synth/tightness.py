"""Tightness of a synthesised solution: one step further in any unknown, and a property fails.

For a solution ``u`` and each unknown ``x``, the neighbours ``u`` with ``x ± 1`` that lie in the
candidate space are looked at. A neighbour that is itself a solution says the solution is not
tight in that direction. Any other is shown with what kills it: the region of an excluded
candidate that contains it (tactl/synth/region.py — the same run is a run of the neighbour's
automaton and violates the same property, so the region's counterexample is the neighbour's,
shown with the neighbour's thresholds), the undecided verdict, the empty resilience condition,
or, when no region covers it (a search that stopped early), a check of the neighbour itself with
the checker of ``tactl check``. This is the "``n > 2t`` fails: at ``n = 3, t = 1`` …" of a
resilience condition, and the "``T`` instead of ``T + 1`` ECHOs lets a forged message through"
of a threshold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, VIOLATED, Counterexample
from tactl.ir.evaluate import EvaluationError, holds
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.ir.expr import names
from tactl.passes.ta_to_ta.instantiate import instantiate, only_unknowns
from tactl.passes.ta_to_ta.lower_division import lower_division
from tactl.synth.cegis import resilience, thresholds
from tactl.synth.order import dominates
from tactl.synth.result import EMPTY_RC, SynthesisResult
from tactl.synth.space import CandidateSpace
from tactl.util import deadline

# What a neighbour is.
KILLED, SOLUTION, UNDECIDED, EMPTY, UNCHECKED = "violated", "solution", "undecided", "empty resilience condition", "not checked"


@dataclass
class Neighbour:
    """``unknown`` set to ``value`` (the solution's value ± 1), and what that candidate is."""

    unknown: str
    value: int
    status: str
    prop: str = ""  # the property that fails
    counterexample: Counterexample | None = None
    checked: ThresholdAutomaton | None = field(default=None, repr=False)  # the neighbour's, when checked
    region: int | None = None  # index of the excluded region that contains it
    reason: str = ""  # undecided / not checked: why
    shows: str = ""  # what changes from the solution: its thresholds or resilience condition
    weaker: bool = False  # a solution below the solution in the order of tactl/synth/order.py
    of: ThresholdAutomaton | None = field(default=None, repr=False)  # the automaton with unknowns
    values: dict[str, int] = field(default_factory=dict, repr=False)  # the neighbour itself
    found_for: dict[str, int] = field(default_factory=dict)  # the candidate its region's run was found for

    @property
    def automaton(self) -> ThresholdAutomaton | None:
        """The neighbour's instantiated automaton, which its run is a run of (instantiated when
        first asked: only a page or JSON that draws the run needs it)."""
        if self.checked is None and self.counterexample is not None and self.of is not None:
            self.checked = lower_division(instantiate(self.of, self.values))
        return self.checked

    @property
    def parameters(self) -> dict[str, int] | None:
        return None if self.counterexample is None else dict(self.counterexample.parameters)

    def json(self, render=None) -> dict[str, Any]:
        out: dict[str, Any] = {"unknown": self.unknown, "value": self.value, "status": self.status}
        if self.prop:
            out["property"] = self.prop
        if self.region is not None:
            out["region"] = self.region
        if self.shows:
            out["changes"] = self.shows
        if self.status == SOLUTION:
            out["weaker"] = self.weaker
        if self.reason:
            out["reason"] = self.reason
        if self.counterexample is not None:
            out["parameters"] = self.parameters
            if render is not None and self.automaton is not None:
                out["counterexample"] = render(self.automaton, self.counterexample)
        return out


def in_space(space: CandidateSpace, values: Mapping[str, int]) -> bool:
    if any(not lo <= values[u] <= hi for u, (lo, hi) in space.bounds.items()):
        return False
    try:
        return all(holds(c, values) for c in space.constraints)
    except EvaluationError:
        return False


def neighbours(space: CandidateSpace, values: Mapping[str, int]) -> list[tuple[str, dict[str, int]]]:
    """The candidates one step from ``values`` in one unknown, inside the space."""
    out = []
    for u in space.unknowns:
        for step in (-1, 1):
            other = {**values, u: values[u] + step}
            if in_space(space, other):
                out.append((u, other))
    return out


def tightness(ta: ThresholdAutomaton, result: SynthesisResult, chosen: Sequence[int] | None = None,
              properties: Sequence[str] = (), check_uncovered: bool = True) -> dict[int, list[Neighbour]]:
    """For each solution (index into ``result.solutions``; ``chosen``, default all), its
    neighbours: a solution (``weaker`` when below it in the order of tactl/synth/order.py), or
    what kills it (module docstring). ``check_uncovered``:
    check a neighbour no region covers (else it is ``not checked``)."""
    solutions = {tuple(sorted(s.values.items())) for s in result.solutions}
    undecided = {tuple(sorted(c.items())): why for c, why in result.undecided}
    out: dict[int, list[Neighbour]] = {}
    for index in (range(len(result.solutions)) if chosen is None else chosen):
        found: list[Neighbour] = []
        for u, other in neighbours(result.space, result.solutions[index].values):
            key = tuple(sorted(other.items()))
            if key in solutions:
                found.append(Neighbour(u, other[u], SOLUTION))
                continue
            if key in undecided:
                found.append(Neighbour(u, other[u], UNDECIDED, reason=undecided[key]))
                continue
            found.append(_killer(ta, result, u, other, properties, check_uncovered))
        values = result.solutions[index].values
        for n in found:
            other = {**values, n.unknown: n.value}
            n.shows = _changed(ta, values, other, n.unknown)
            n.weaker = n.status == SOLUTION and dominates(ta, other, values)
        out[index] = found
    return out


def _changed(ta: ThresholdAutomaton, values: Mapping[str, int], other: Mapping[str, int], unknown: str) -> str:
    """The thresholds and resilience condition of ``other`` that differ from those of ``values``
    (the condition is instantiated only when ``unknown`` occurs in it)."""
    before, after = thresholds(ta, dict(values)), thresholds(ta, dict(other))
    parts = [f"{k} = {v}" for k, v in after.items() if before.get(k) != v]
    in_rc = any(n.name == unknown for a in ta.assumptions if not only_unknowns(ta, a) for n in names(ta.expand(a)))
    if in_rc:
        rc = resilience(ta, dict(other))
        if rc != resilience(ta, dict(values)):
            parts.append(f"resilience {rc}")
    return ", ".join(parts)


def _killer(ta: ThresholdAutomaton, result: SynthesisResult, u: str, other: dict[str, int],
            properties: Sequence[str], check_uncovered: bool) -> Neighbour:
    """The excluded region that contains ``other`` (the first, preferring a run over an empty
    resilience condition), else a check of ``other`` itself."""
    for i, e in enumerate(result.excluded):
        try:
            inside = holds(e.region, other)
        except EvaluationError:
            continue
        if not inside:
            continue
        if e.kind == EMPTY_RC:
            return Neighbour(u, other[u], EMPTY, region=i, reason=e.note)
        return Neighbour(u, other[u], KILLED, e.property, e.counterexample, region=i, of=ta, values=other,
                         found_for=dict(e.candidate))
    if not check_uncovered or deadline.remaining() == 0:
        return Neighbour(u, other[u], UNCHECKED, reason="no excluded region contains it and it was not checked")
    automaton = lower_division(instantiate(ta, other))
    selected = [p.name for p in ta.properties if not properties or p.name in properties]
    for name in selected:
        with deadline.interruptible():
            report = check_automaton(automaton, result.path, CheckOptions(properties=(name,), minimize=False))
        if report.interrupted is not None:
            raise report.interrupted
        r = report.results[0]
        if r.verdict == VIOLATED:
            return Neighbour(u, other[u], KILLED, name, r.counterexample, automaton)
        if r.verdict not in (HOLDS, HOLDS_VACUOUSLY):
            return Neighbour(u, other[u], UNDECIDED, name, reason=f"{r.verdict}: {r.reason or ''}".rstrip(": "))
    return Neighbour(u, other[u], SOLUTION, reason="checked now: every property holds")
