"""``tactl synthesize``: read the automaton (a ``.ta`` with ``unknowns``, or whatever the
pipeline reads into one), read its candidate space, and run the loop of tactl/synth/cegis.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tactl.driver.commands import usage_error
from tactl.driver.inputs import load_automaton
from tactl.engines.check import SelectionError, validate_selection
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.synth.cegis import SynthesisOptions, synthesize
from tactl.synth.order import weakest
from tactl.synth.result import SynthesisResult
from tactl.synth.space import candidate_space
from tactl.synth.tightness import tightness
from tactl.util import deadline


@dataclass(frozen=True)
class SynthesisRequest:
    file: Path
    properties: tuple[str, ...] = ()
    max_solutions: int | None = None
    weakest: bool = False  # only the solutions with the weakest RC, then the least thresholds


@dataclass
class SynthesisOutcome:
    result: SynthesisResult
    ta: ThresholdAutomaton  # the automaton as written, with its unknowns
    source: str


def synthesize_file(request: SynthesisRequest, progress: Callable[[str], None] | None = None) -> SynthesisOutcome:
    """Read ``request.file`` (as written: divisions are lowered per candidate, after the unknowns
    have values) and search its candidate space; a file without unknowns is a usage error."""
    with deadline.interruptible():
        loaded = load_automaton(request.file, lower_divisions=False)
    ta = loaded.ta
    if not ta.unknowns:
        raise usage_error(request.file, "the automaton has no unknowns to synthesise: declare the "
                                        "coefficients to find (`unknowns a1, b1;`) and bound them "
                                        "in the assumptions, or check it with `tactl check`")
    try:
        validate_selection(ta, request.properties, None)
    except SelectionError as e:
        raise usage_error(request.file, str(e)) from None
    space = candidate_space(ta, loaded.path, loaded.source)
    options = SynthesisOptions(properties=request.properties, max_solutions=request.max_solutions,
                               path=loaded.path)
    result = synthesize(ta, options, progress, space)
    _order_and_tightness(ta, result, request)
    return SynthesisOutcome(result, ta, loaded.source or "")


def _order_and_tightness(ta: ThresholdAutomaton, result: SynthesisResult, request: SynthesisRequest) -> None:
    """``--weakest``'s choice among the solutions (tactl/synth/order.py), and the neighbours one
    step away of every solution reported (tactl/synth/tightness.py); a neighbour no region
    covers is checked only while the command's clock allows."""
    if not result.solutions or result.interrupted is not None:
        return
    try:
        with deadline.interruptible():
            if request.weakest:
                result.weakest = weakest(ta, [s.values for s in result.solutions])
            result.tightness = tightness(ta, result, result.reported(), request.properties)
    except (deadline.DeadlineExceeded, KeyboardInterrupt):
        pass  # what was found is reported; the neighbours are left out
