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
from tactl.synth.result import SynthesisResult
from tactl.synth.space import candidate_space
from tactl.util import deadline


@dataclass(frozen=True)
class SynthesisRequest:
    file: Path
    properties: tuple[str, ...] = ()
    max_solutions: int | None = None


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
    return SynthesisOutcome(synthesize(ta, options, progress, space), ta, loaded.source or "")
