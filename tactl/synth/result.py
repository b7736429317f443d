"""What a synthesis run found: the solutions, the regions of candidates each counterexample
excluded, the candidates left undecided, and whether the search covered the whole space.

Data only; the text is rendered by tactl/report/synthesize_text.py. The JSON form is built here
(:meth:`SynthesisResult.json`) except for the counterexamples, whose shape is the one ``check
--json`` gives them: the caller passes that renderer (tactl/report/property_json.py sits above
this layer).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tactl.engines.result import Counterexample
from tactl.ir.expr import Expr, to_text
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.synth.space import CandidateSpace
from tactl.util import deadline

# Kinds of exclusion: a property's counterexample, or a candidate under which no initial
# configuration exists (the resilience condition or the inits unsatisfiable: every property would
# hold vacuously, which shows nothing).
VIOLATION, EMPTY_RC = "violation", "empty resilience condition"

CounterexampleJson = Callable[[ThresholdAutomaton, Counterexample], dict[str, Any]]


@dataclass
class ExcludedRegion:
    """Candidates refuted by one run: under each of them ``counterexample`` (found for
    ``candidate``) is a run of the automaton that violates ``property``. ``region`` is a
    formula over the unknowns (tactl/synth/region.py says why it is sound); ``size`` the number
    of candidates of the space it removes, when counted."""

    property: str
    candidate: dict[str, int]
    region: Expr
    counterexample: Counterexample | None
    size: int | None = None
    kind: str = VIOLATION
    # the instantiated automaton the counterexample is a run of (its rules name the steps)
    automaton: ThresholdAutomaton | None = field(default=None, repr=False, compare=False)
    note: str = ""  # e.g. why the region is the candidate alone

    def json(self, render: CounterexampleJson | None = None) -> dict[str, Any]:
        cex = self.counterexample
        out: dict[str, Any] = {"property": self.property, "kind": self.kind, "candidate": self.candidate,
                               "region": to_text(self.region), "size": self.size}
        if self.note:
            out["note"] = self.note
        if cex is not None:
            out["parameters"] = cex.parameters
            if render is not None and self.automaton is not None:
                out["counterexample"] = render(self.automaton, cex)
        return out


@dataclass
class Solution:
    """A candidate under which every selected property holds; ``thresholds``: each define that
    mentioned an unknown, instantiated (``"THRESH1": "T + 1"``); ``recheck``: each property's
    verdict when the printed instantiated automaton was read back and checked again."""

    values: dict[str, int]
    thresholds: dict[str, str]
    resilience: str
    recheck: dict[str, str] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)  # the loop's own verdicts
    vacuous: tuple[str, ...] = ()  # properties that held vacuously under this candidate

    def json(self) -> dict[str, Any]:
        return {"values": self.values, "thresholds": self.thresholds, "resilience": self.resilience,
                "recheck": self.recheck, **({"vacuous": list(self.vacuous)} if self.vacuous else {})}


@dataclass
class SynthesisResult:
    space: CandidateSpace
    solutions: list[Solution] = field(default_factory=list)
    excluded: list[ExcludedRegion] = field(default_factory=list)
    undecided: list[tuple[dict[str, int], str]] = field(default_factory=list)  # (candidate, why)
    complete: bool = False  # False when --timeout, an interrupt or --max-solutions stopped the search
    candidates_tried: int = 0
    time_s: float = 0.0
    stopped: str = ""  # why the search stopped before covering the space ("" when complete)
    unsupported: str = ""  # why no candidate was searched at all (a kind of algorithm the loop cannot check)
    problems: list[str] = field(default_factory=list)  # bugs found on the way (re-check disagreements)
    path: str = ""
    interrupted: KeyboardInterrupt | None = field(default=None, repr=False)
    # Set after the loop by the driver: ``--weakest``'s choice (tactl/synth/order.py ``Weakest``)
    # and each reported solution's neighbours one step away (tactl/synth/tightness.py).
    weakest: Any = field(default=None, repr=False)
    tightness: dict[int, list] = field(default_factory=dict, repr=False)

    def reported(self) -> list[int]:
        """The indices of the solutions to show: ``--weakest``'s choice, else every one."""
        return list(self.weakest.chosen) if self.weakest is not None else list(range(len(self.solutions)))

    @property
    def exit_code(self) -> int:
        """0: complete with a solution; 1: complete, no solution; 3: incomplete (as check's unknown:
        stopped early, or candidates no engine decided, any of which may be a solution), or a
        re-check that disagreed (1 as well: the result cannot be trusted)."""
        if self.problems:
            return 1
        if not self.complete or self.undecided:
            return 3
        return 0 if self.solutions else 1

    def json(self, render: CounterexampleJson | None = None) -> dict[str, Any]:
        return {
            "file": self.path,
            "unknowns": {u: list(b) for u, b in self.space.bounds.items()},
            "complete": self.complete,
            **({"stopped": self.stopped} if self.stopped else {}),
            "candidates_tried": self.candidates_tried,
            "time_s": round(self.time_s, 3),
            "solutions": [{**self.solutions[i].json(),
                           **({"tightness": [n.json(render) for n in self.tightness[i]]}
                              if i in self.tightness else {})} for i in self.reported()],
            **({"weakest": {"of": len(self.solutions), "conditions": self.weakest.classes,
                            "incomparable": self.weakest.why}} if self.weakest is not None else {}),
            "excluded": [e.json(render) for e in self.excluded],
            "undecided": [{"candidate": c, "reason": why} for c, why in self.undecided],
            **({"unsupported": self.unsupported} if self.unsupported else {}),
            **({"problems": self.problems} if self.problems else {}),
        }


@contextmanager
def search_stops(outcome: Any) -> Iterator[None]:
    """The command's deadline and Ctrl-C end a search (synthesis or repair), not the command:
    what was found stays in ``outcome``, whose ``stopped`` says why and whose ``interrupted``
    keeps the interrupt, for the exit status of an interrupted command."""
    try:
        yield
    except deadline.DeadlineExceeded:
        outcome.stopped = deadline.timeout_reason()
    except KeyboardInterrupt as stop:
        outcome.stopped = "interrupted"
        outcome.interrupted = stop
