"""What the SPIN engines share to run SPIN, the C compiler and ``pan``: the folder they work in,
the time a tool may still take, and the tail of a tool's output for a reason line.

Three engines run the same tools (``tactl.engines.spin`` on the counter model,
``tactl.engines.spin_process`` on the process model, ``tactl.engines.spin_source`` on a Promela
file itself); these helpers keep their folders, time limits and failure reasons alike.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tactl.util import deadline


class WorkDirectory:
    """The folder given (created if missing and kept), else a temporary one removed on exit."""

    def __init__(self, given: Path | None) -> None:
        self.given = given
        self._tmp: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> Path:
        if self.given is not None:
            self.given.mkdir(parents=True, exist_ok=True)
            return self.given
        self._tmp = tempfile.TemporaryDirectory(prefix="tactl-spin-")
        return Path(self._tmp.name)

    def __exit__(self, *exc) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()


def time_left(timeout: float | None) -> float | None:
    """Seconds a tool may still run: the smaller of ``timeout`` and the command's deadline
    (None when neither is set)."""
    limits = [x for x in (timeout, deadline.remaining()) if x is not None]
    return min(limits) if limits else None


def output_tail(text: str, lines: int = 6) -> str:
    """The last non-blank ``lines`` of a tool's output on one line, for a reason."""
    kept = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return " | ".join(kept) or "(no output)"
