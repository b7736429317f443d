"""The file's reading of a liveness property re-checked under a tighter over-approximation of the
file's fair runs, when the file's justice on the whole automaton proves nothing
(``tactl/driver/file_reading.py`` asks it; only a HOLDS is taken from it, a violation still needs
a run of the file). Two tightenings, each argued in its module, tried in turn:

1. the automaton without the rules out of the locations the property's antecedent keeps empty on
   every violating run, the file's justice rebuilt without them
   (``passes/rta_to_ta/antecedent_pruning.py``);
2. on that automaton (or the whole one), the file's justice with the counts a process holds when
   it enters a location bounded by what it held one step before, where the file receives one
   message of each type per step (``passes/rta_to_ta/entry_counts.py``).

The first is tried alone first: it is the cheaper question, and the detail line says which rules
it left out."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY
from tactl.passes.rta_to_ta.antecedent_pruning import Pruning, pruning
from tactl.passes.rta_to_ta.entry_counts import entry_bounds
from tactl.passes.rta_to_ta.file_cycles import covered
from tactl.passes.rta_to_ta.file_justice_of import justice_of

ENTRY = ("a process that enters a location holds at most one message of each type more than it could "
         "hold where it came from (the file receives at most one of each per step), so none is frozen "
         "with more than that")


def tightened_verdict(reading, ta, path: str, name: str, over) -> Any:
    """The file's HOLDS for ``name`` on ``ta`` under the first tightening that proves it (module
    docstring), its reason saying which; None where none applies or proves it. ``reading``: the
    file's reading (``tactl/driver/file_reading.FileReading``); ``over``: the result on the whole
    automaton (its time and queries are added)."""
    prop = next(p for p in reading.justice.properties if p.name == name)
    cut = pruning(reading.translation.ta, prop.formula.right)
    rta, translation, small = reading.rta, reading.translation, ta
    spent = (over.time_s, over.queries)
    if cut is not None:
        rta, small = cut.apply_receive(rta), cut.apply(ta)
        translation = replace(translation, ta=cut.apply(translation.ta))
    tries = [None] if cut is not None else []
    bounds = entry_bounds(rta, reading.fairness)
    if bounds:
        tries.append(bounds)
    for entry in tries:
        r = _check(rta, translation, reading, small, path, name, entry)
        if r is None:
            continue
        spent = (spent[0] + r.time_s, spent[1] + r.queries)
        if r.verdict in (HOLDS, HOLDS_VACUOUSLY):
            said = "; ".join(s for s in (why(cut, ta, name) if cut else "", ENTRY if entry else "") if s)
            return replace(r, time_s=spent[0], queries=spent[1], reason=f"proved when {said}",
                           details={**r.details, "tightened": {"pruned": list(cut.locations) if cut else [],
                                                               "entry_counts": bool(entry)}})
    return None


def _check(rta, translation, reading, small, path: str, name: str, entry) -> Any:
    """The file's justice of ``rta`` (with ``entry``'s bounds) checked on ``small``; None when it
    is not built or does not fit ``small``'s cycles."""
    justice = justice_of(rta, translation, reading.fairness, entry)
    if justice is None or not covered(small, justice.cyclic):
        return None
    mine = next(p for p in justice.properties if p.name == name)
    return check_automaton(replace(small, properties=(mine,)), path, CheckOptions(properties=(name,))).results[0]


def why(cut: Pruning, ta, name: str) -> str:
    """Which rules the pruning left out, and why that loses no violating run."""
    rules = ", ".join(f"{r.id}: {r.source} -> {r.target}" for r in ta.rules if r.source in cut.locations)
    where = " and ".join(cut.locations)
    one = len(cut.locations) == 1
    return (f"the rules out of {where} are left out ({rules}): {name}'s antecedent keeps {where} empty on "
            f"every run that violates it ({where}, and every location {'it leads' if one else 'they lead'} to, "
            f"{'is' if one else 'are'} empty where the antecedent holds, and no rule from elsewhere enters "
            f"{'it' if one else 'them'})")
