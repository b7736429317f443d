"""What the Promela front end reads of a file's own ``ltl fairness`` for the file's reading of its
liveness (``passes/rta_to_ta/file_fairness.py``, ``tactl/driver/file_reading.py``).

A module of its own, importing nothing heavy: the front end builds it while reading every
``.pml``, and importing the translation's machinery then (z3 objects made at import) would change
what z3 answers a later check — its models, hence the figures of a report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tactl.ir.expr import BoolConst, Expr


@dataclass(frozen=True)
class FileFairness:
    """What the Promela front end read of the file's own fairness (``passes/pml_to_rta/translation.py``)."""

    stays: tuple[tuple[str, Expr], ...]  # per location, the condition of the step's paths that change nothing
    text: str  # the fairness block as written, with its line
    extra: Expr = BoolConst(True)  # its conjuncts beyond the delivery, over location counters
    one_per_step: tuple[str, ...] = ()  # message types a step receives at most one of (no havoc)
    static: Any = None  # static_steps.StaticSteps: the steps with static receive counts kept, or None

    def to_json(self) -> dict:
        from tactl.ir.ta.json_form import expr_to_json  # lazy: only for the cache

        doc = {"stays": [[k, expr_to_json(v)] for k, v in self.stays], "text": self.text,
               "extra": expr_to_json(self.extra), "one_per_step": list(self.one_per_step)}
        if self.static is not None:
            doc["static"] = self.static.to_json()
        return doc

    @staticmethod
    def from_json(doc: dict) -> FileFairness:
        from tactl.ir.ta.json_form import expr_from_json  # lazy: only from the cache

        from tactl.passes.rta_to_ta.static_steps import StaticSteps  # lazy: as above

        return FileFairness(tuple((k, expr_from_json(v)) for k, v in doc["stays"]), doc["text"],
                            expr_from_json(doc["extra"]), tuple(doc["one_per_step"]),
                            StaticSteps.from_json(doc["static"]) if "static" in doc else None)
