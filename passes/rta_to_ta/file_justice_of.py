"""The file's justice of a receive automaton from what the Promela front end read of the file's
own fairness (``passes/rta_to_ta/own_fairness.py``), in one call: the reading of
``tactl/driver/file_reading.py`` builds it for the whole automaton, and
``tactl/driver/tightened_reading.py`` again for a smaller one or with bounds on entering counts."""

from __future__ import annotations

from tactl.ir.expr import Expr
from tactl.ir.rta.model import ReceiveTA
from tactl.passes.rta_to_ta.eliminate import Translation
from tactl.passes.rta_to_ta.file_fairness import FileJustice, file_justice
from tactl.passes.rta_to_ta.own_fairness import FileFairness
from tactl.passes.rta_to_ta.zero_counts import surely_zero


def justice_of(rta: ReceiveTA, translation: Translation, fairness: FileFairness,
               entry: dict[int, Expr] | None = None) -> FileJustice | None:
    """``file_justice`` of ``rta`` and its ``translation`` with ``fairness``'s stays, extra
    conjuncts, per-step and kept counts, counts zero for good and stays that reset; ``entry``: bounds on the counts
    of a process entering by a rule (``passes/rta_to_ta/entry_counts.py``), or none."""
    return file_justice(rta, translation, dict(fairness.stays), fairness.extra, fairness.one_per_step,
                        dict(fairness.kept), fairness.crashed_stutter, surely_zero(rta, fairness),
                        dict(fairness.stay_zeroed), entry)
