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
    # per rule id, the message types no path of it receives (passes/pml_to_rta/kept_counts.py)
    kept: tuple[tuple[int, tuple[str, ...]], ...] = ()
    crashed_stutter: bool = False  # a crashed process may keep taking a step that changes nothing
    crashed_kept: tuple[str, ...] = ()  # the message types that step never receives
    zeroed: tuple[tuple[int, tuple[str, ...]], ...] = ()  # per rule id, the message types it resets to 0
    stay_kept: tuple[tuple[str, tuple[str, ...]], ...] = ()  # per location, the types its stays never receive
    static: Any = None  # static_steps.StaticSteps: the steps with static receive counts kept, or None
    # per location, the types every stay there resets to 0 (passes/pml_to_rta/crash_readings.py)
    stay_zeroed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the file's own crash steps where it counts crashes and cut broadcasts both: (source, types
    # cut short, types not received, types reset) (passes/pml_to_rta/crash_readings.py)
    crash_paths: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = ()

    def kept_by(self, rule: int) -> tuple[str, ...]:
        return dict(self.kept).get(rule, ())

    def zeroed_by(self, rule: int) -> tuple[str, ...]:
        return dict(self.zeroed).get(rule, ())

    def to_json(self) -> dict:
        from tactl.ir.ta.json_form import expr_to_json  # lazy: only for the cache

        doc = {"stays": [[k, expr_to_json(v)] for k, v in self.stays], "text": self.text,
               "extra": expr_to_json(self.extra), "one_per_step": list(self.one_per_step),
               "kept": [[k, list(v)] for k, v in self.kept], "crashed_stutter": self.crashed_stutter,
               "crashed_kept": list(self.crashed_kept), "zeroed": [[k, list(v)] for k, v in self.zeroed],
               "stay_kept": [[k, list(v)] for k, v in self.stay_kept],
               "stay_zeroed": [[k, list(v)] for k, v in self.stay_zeroed],
               "crash_paths": [[s, list(m), list(k), list(z)] for s, m, k, z in self.crash_paths]}
        if self.static is not None:
            doc["static"] = self.static.to_json()
        return doc

    @staticmethod
    def from_json(doc: dict) -> FileFairness:
        from tactl.ir.ta.json_form import expr_from_json  # lazy: only from the cache

        from tactl.passes.rta_to_ta.static_steps import StaticSteps  # lazy: as above

        return FileFairness(tuple((k, expr_from_json(v)) for k, v in doc["stays"]), doc["text"],
                            expr_from_json(doc["extra"]), tuple(doc["one_per_step"]),
                            tuple((k, tuple(v)) for k, v in doc.get("kept", ())), doc.get("crashed_stutter", False),
                            tuple(doc.get("crashed_kept", ())),
                            tuple((k, tuple(v)) for k, v in doc.get("zeroed", ())),
                            tuple((k, tuple(v)) for k, v in doc.get("stay_kept", ())),
                            StaticSteps.from_json(doc["static"]) if "static" in doc else None,
                            tuple((k, tuple(v)) for k, v in doc.get("stay_zeroed", ())),
                            tuple((s, tuple(m), tuple(k), tuple(z)) for s, m, k, z in doc.get("crash_paths", ())))
