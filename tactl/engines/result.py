"""What an engine says about one property."""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.simulate import Configuration, Replay, Step

HOLDS, VIOLATED, UNKNOWN, UNSUPPORTED = "holds", "violated", "unknown", "unsupported"


@dataclass
class Counterexample:
    parameters: dict[str, int]
    initial: Configuration
    schedule: list[Step]
    replay: Replay

    @property
    def replayed(self) -> bool:
        return self.replay.ok


@dataclass
class PropertyResult:
    name: str
    kind: str  # "safety" | "liveness"
    verdict: str
    engine: str
    time_s: float = 0.0
    queries: int = 0
    reason: str | None = None
    scope: str | None = None  # what "holds" covers: all parameters, or the instances checked
    counterexample: Counterexample | None = None
    details: dict[str, object] = field(default_factory=dict)
