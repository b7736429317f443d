"""The file's reading of a liveness property re-checked on the automaton its antecedent allows
(``passes/rta_to_ta/antecedent_pruning.py`` says why that is sound): the rules out of locations
that stay empty on every violating run are left out, and the file's justice is rebuilt from what
is left, so that no process is taken to be frozen somewhere "as having come by" one of them.
``tactl/driver/file_reading.py`` asks it when the file's justice on the whole automaton proves
nothing; only a HOLDS is taken from it (a violation still needs a run of the file)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tactl.driver.file_reading import FileReading, justice_of
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY
from tactl.passes.rta_to_ta.antecedent_pruning import Pruning, pruning
from tactl.passes.rta_to_ta.file_cycles import covered


def pruned_verdict(reading: FileReading, ta, path: str, name: str, over) -> Any:
    """The file's HOLDS for ``name`` on ``ta`` without the rules its antecedent rules out, saying
    which in its reason; None where nothing is pruned or the smaller automaton proves nothing
    either. ``over``: the result on the whole automaton (its time is added)."""
    prop = next(p for p in reading.justice.properties if p.name == name)
    cut = pruning(reading.translation.ta, prop.formula.right)
    if cut is None:
        return None
    translation = replace(reading.translation, ta=cut.apply(reading.translation.ta))
    justice = justice_of(cut.apply_receive(reading.rta), translation, reading.fairness)
    small = cut.apply(ta)
    if justice is None or not covered(small, justice.cyclic):
        return None
    mine = next(p for p in justice.properties if p.name == name)
    r = check_automaton(replace(small, properties=(mine,)), path, CheckOptions(properties=(name,))).results[0]
    if r.verdict not in (HOLDS, HOLDS_VACUOUSLY):
        return None
    return replace(r, time_s=r.time_s + over.time_s, queries=r.queries + over.queries,
                   reason=why(cut, ta, name), details={**r.details, "pruned": list(cut.locations)})


def why(cut: Pruning, ta, name: str) -> str:
    """The detail line: which rules were left out, and why that loses no violating run."""
    rules = ", ".join(f"{r.id}: {r.source} -> {r.target}" for r in ta.rules if r.source in cut.locations)
    where = " and ".join(cut.locations)
    one = len(cut.locations) == 1
    return (f"proved without the rules out of {where} ({rules}): {name}'s antecedent keeps {where} empty on "
            f"every run that violates it ({where}, and every location {'it leads' if one else 'they lead'} to, "
            f"{'is' if one else 'are'} empty where the antecedent holds, and no rule from elsewhere enters "
            f"{'it' if one else 'them'})")
