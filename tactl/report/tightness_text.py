"""The lines ``tactl synthesize`` prints about the order of its solutions (``--weakest``) and,
under each solution, its neighbours one step away (tactl/synth/tightness.py)."""

from __future__ import annotations

from collections.abc import Sequence

from tactl.synth.result import SynthesisResult
from tactl.synth.tightness import EMPTY, KILLED, SOLUTION, UNDECIDED, Neighbour


def weakest_lines(result: SynthesisResult) -> list[str]:
    w = result.weakest
    n = len(w.chosen)
    total = len(result.solutions)
    head = (f"{n} of {total} solution{'s' if total != 1 else ''} {'are' if n != 1 else 'is'} weakest "
            f"({w.classes} inequivalent resilience condition{'s' if w.classes != 1 else ''} among "
            "the solutions; weakest condition first, then the least thresholds for every parameter "
            "value):")
    return [head] + ([f"  incomparable: {w.why}"] if w.why else [])


def _params(values: dict[str, int] | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in (values or {}).items())


def neighbour_text(n: Neighbour) -> str:
    step = f"{n.unknown} = {n.value}" + (f" ({n.shows})" if n.shows else "")
    if n.status == KILLED:
        where = (f" (the run of the region found for {_params(n.found_for)})" if n.found_for
                 else " (a check of this candidate)")
        return f"{step}: {n.prop} violated with {_params(n.parameters)}{where}"
    if n.status == SOLUTION:
        return (f"{step}: also a solution" + (f" ({n.reason})" if n.reason else "")
                + (", and weaker" if n.weaker else ", not weaker"))
    if n.status == EMPTY:
        return f"{step}: no parameter values satisfy the resilience condition"
    if n.status == UNDECIDED:
        return f"{step}: undecided ({n.reason})"
    return f"{step}: {n.status} ({n.reason})"


def tightness_lines(neighbours: Sequence[Neighbour]) -> list[str]:
    """Indented under a solution: "cannot be weakened by one step" when no neighbour is a weaker
    solution, else "one step away"."""
    if not neighbours:
        return []
    tight = not any(n.weaker for n in neighbours)
    head = "cannot be weakened by one step:" if tight else "one step away:"
    return [f"      {head}"] + [f"        {neighbour_text(n)}" for n in neighbours]
