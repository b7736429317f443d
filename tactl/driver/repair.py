"""``tactl check --repair``: after a check with a VIOLATED property, the nearest threshold changes
under which every property holds.

A threshold automaton (``.ta``, ``.eta``, its JSON form, a TLA+ module's reading) is repaired by
the synthesis loop over its lifted thresholds (tactl/synth/repair.py); an ``.alg`` program in its
own text, each candidate program read, translated and checked through the same chain as ``tactl
check`` (tactl/synth/repair_alg.py says why). A receive automaton or a Promela file is refused
with the reason: their thresholds pass through a translation whose other outputs (the justice,
the guards over parameters alone) the repair would not follow.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from tactl.driver.commands import load
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY
from tactl.ir.errors import InputError
from tactl.passes.ta_to_ta.lift_thresholds import LiftOptions
from tactl.synth.repair import RepairResult, repair
from tactl.synth.repair_alg import lift_source, repair_source
from tactl.util import deadline

Progress = Callable[[str], None] | None
REPAIRABLE = (".ta", ".eta", ".json", ".tla", ".alg")


def repair_problem(file: Path) -> str:
    """Why ``--repair`` cannot run on ``file`` ("" when it can), known before anything is checked."""
    if file.suffix.lower() in REPAIRABLE:
        return ""
    return ("--repair changes the thresholds of a threshold automaton (.ta, .eta, .tla) or of an "
            ".alg program; the thresholds of this file pass through a translation whose other "
            "outputs (the justice, the guards over parameters alone) a repair would not follow")


def repair_file(file: Path, checked_ta, options: LiftOptions, properties: tuple[str, ...],
                progress: Progress = None, vacuous: tuple[str, ...] = ()) -> RepairResult:
    """The nearest repairs of ``file`` whose automaton, as checked, is ``checked_ta``;
    ``vacuous``: the properties the check found holding vacuously, which a repair may leave so."""
    if file.suffix.lower() == ".alg":
        return _repair_alg(file, options, properties, progress, vacuous)
    try:
        return repair(checked_ta, options, properties, str(file), progress, vacuous)
    except ValueError as e:  # nothing to lift: said after the check's report
        return RepairResult((), {}, "", complete=True, notes=(str(e),))


def _repair_alg(file: Path, options: LiftOptions, properties: tuple[str, ...], progress: Progress,
                vacuous: tuple[str, ...]) -> RepairResult:
    from tactl.driver.commands import read_alg  # lazy: the pseudocode reader, only for an .alg

    alg, text = read_alg(file)
    lift = lift_source(alg, text, options)
    if not lift.sites:
        return RepairResult((), {}, "", complete=True, notes=(
            "no threshold to repair: no `received … from K` with K a linear term of parameters",))
    order = list(properties)
    with tempfile.TemporaryDirectory(prefix="tactl-repair-") as folder:
        candidate = Path(folder) / file.name

        def check(program: str) -> dict[str, str]:
            """Every selected property of one candidate program, the last refuted one first;
            stops at the first that does not hold."""
            candidate.write_text(program, encoding="utf-8")
            try:
                with deadline.interruptible():
                    loaded = load(candidate).checkable
            except InputError as e:  # a candidate the reader refuses is no repair
                return {"(reading)": f"refused: {e}"}
            names = order or [p.name for p in loaded.ta.properties]
            order[:] = names
            verdicts: dict[str, str] = {}
            for name in list(names):
                with deadline.interruptible():
                    report = check_automaton(loaded.ta, str(file), CheckOptions(properties=(name,), minimize=False))
                if report.interrupted is not None:
                    raise report.interrupted
                verdicts[name] = report.results[0].verdict
                if verdicts[name] != HOLDS and not (verdicts[name] == HOLDS_VACUOUSLY and name in vacuous):
                    order.remove(name)
                    order.insert(0, name)
                    break
            return verdicts

        return repair_source(lift, check, progress, vacuous)
