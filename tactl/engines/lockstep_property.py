"""The properties the lock-step engine (tactl/engines/lockstep.py) reads, and their hypotheses.

Properties are ``Init -> [](Safe)`` or ``[](Safe)`` over location counters and parameters, read
at round starts; a location ℓ counts the processes in state ℓ that have not crashed (its crashing
twin included). **Hypotheses**: agreement needs a round in which no process crashes (FloodMin
decides after t + 1 rounds, one of which is clean). A property written ``agreement assuming clean
round: …`` (or ``assuming round with at most K crashes``, ``assuming correct coordinator``;
``ir.ta.Hypothesis``) is checked in every configuration reached one or more rounds after such a
round, and every report shows the hypothesis with the verdict. Nothing is inferred from a
property's name: without the clause a property is checked without hypothesis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from tactl.ir.alg.hypothesis import CLEAN_ROUND, CORRECT_COORDINATOR, FEW_CRASHES
from tactl.ir.expr import Always, Eventually, Expr, Implies, names, to_text, walk
from tactl.ir.rta.model import FaultModel
from tactl.ir.ta.model import Property
from tactl.passes.rta_to_sync.sync_ta import SyncInputError, SyncTA



@dataclass(frozen=True)
class SyncProperty:
    name: str
    init: Expr | None
    safe: Expr
    clean_round: bool
    max_crashing: int = 0  # a "clean" round: at most this many processes crash in it (k - 1)
    coordinator: bool = False  # the clean round is one whose coordinator (king, queen) is correct
    # Safe is required only from this round on (the clean-round hypothesis implies 1: after the
    # clean round); the tests use 1 without a clean round to show what the hypothesis excludes
    min_rounds: int = 0
    assuming: str | None = None  # the hypothesis as written after `assuming`


def read_property(sta: SyncTA, prop: Property) -> SyncProperty | str:
    """The property, or why lock-step checking does not support it. Its hypothesis is the one
    written (``assuming …``), never one inferred from its name."""
    name, formula = prop.name, prop.formula
    init, body = (formula.left, formula.right) if isinstance(formula, Implies) else (None, formula)
    if not isinstance(body, Always):
        return ("lock-step checking supports 'Init -> [](Safe)' and '[](Safe)' over round starts; "
                f"this is {to_text(formula)}")
    safe = body.arg
    for part in (init, safe):
        if part is None:
            continue
        if _temporal(part):
            return f"nested temporal operators are not supported in lock-step checking: {to_text(formula)}"
        unknown = {n.name for n in names(part)} - {*sta.counted, *sta.parameters}
        if unknown:
            return f"'{sorted(unknown)[0]}' is not a location or parameter of the receive automaton"
    h = prop.hypothesis
    if h is None:
        return SyncProperty(name, init, safe, False)
    if h.kind == CORRECT_COORDINATOR and sta.coordinator:
        return SyncProperty(name, init, safe, True, 0, True, 1, h.text())
    if h.kind in (CLEAN_ROUND, FEW_CRASHES) and sta.model is FaultModel.CRASH:
        return SyncProperty(name, init, safe, True, h.crashes, False, 1, h.text())
    # ir/rta/validate.py refuses these with their position; a hand-built automaton gets here
    raise SyncInputError(f"property {name}: 'assuming {h.text()}' cannot be met under "
                         f"{sta.model.value} faults{'' if sta.coordinator else ' without coordinator messages'}")


def clean_formula(sta: SyncTA, spec: SyncProperty, kappa: dict[str, Any]) -> Any:
    """The round starting in ``kappa`` is clean: its coordinator is correct, or at most
    ``max_crashing`` processes crash in it."""
    if spec.coordinator:
        return z3.Sum([kappa[l] for l in sta.coordinators] or [z3.IntVal(0)]) == 1
    return z3.Sum([kappa[l] for l in sta.crashing] or [z3.IntVal(0)]) <= spec.max_crashing


def hypothesis(spec: SyncProperty) -> str:
    """The hypothesis a property is checked under, in words (for every report)."""
    lead = f"assuming {spec.assuming}: checked in every configuration reached one or more rounds after "
    if spec.coordinator:
        return (lead + "a round whose coordinator (king or queen) is correct (t + 1 phases with at "
                "most t faulty processes contain one)")
    if spec.max_crashing == 0:
        return (lead + "a round in which no process crashes (t + 1 rounds with at most t crashes "
                "contain one)")
    k = spec.max_crashing + 1
    return (lead + f"a round in which at most {k - 1} "
            f"{'process crashes' if k == 2 else 'processes crash'} (for k-set agreement with k = {k}: "
            f"floor(t/{k}) + 1 rounds with at most t crashes contain one)")


def _temporal(e: Expr) -> bool:
    return any(isinstance(x, (Always, Eventually)) for x in walk(e))
