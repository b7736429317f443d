"""Where the synthesis tests find their automata: the hand-written ones in tests/data/synth/ and,
when fetched (`make opodis17`), the OPODIS'17 files of konnov/fault-tolerant-benchmarks."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import REPO

DATA = REPO / "tests" / "data" / "synth"
OPODIS17 = Path(os.environ.get("TACTL_OPODIS17", Path.home() / ".cache" / "tactl" / "benchmarks" / "opodis17"))


def opodis17_files() -> list[Path]:
    """The fetched OPODIS'17 files (empty when `make opodis17` has not run: the tests skip)."""
    return sorted(OPODIS17.glob("*.ta")) if OPODIS17.is_dir() else []
