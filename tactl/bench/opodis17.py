"""The OPODIS'17 synthesis benchmarks: where their files are, and what the paper publishes about them.

The 14 threshold automata with unknown coefficients of ``opodis17/ta/`` in
konnov/fault-tolerant-benchmarks (``make opodis17`` fetches them into the cache; never into the
repository) come from Lazić, Konnov, Widder, Bloem, "Synthesis of Distributed Algorithms with
Parameterized Threshold Guards", OPODIS 2017, LIPIcs 95, paper 32. What that paper reports for each
file is data, ``tactl/bench/opodis17_published.json``: every figure there cites the table and row
it was read from, or says "not found" and what was searched (:func:`published`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from tactl.bench.random19 import cached_inputs

PUBLISHED = Path(__file__).with_name("opodis17_published.json")
NOT_FOUND = "not found"
# The 14 files of opodis17/ta/ (the published data must cover exactly these)
FILES = (
    "table1-1bcast-folklore-ta-synt.ta", "table1-2bcast-byz-ta-synt.ta", "table1-3bcast-byz-ta-synt-nGE3tb.ta",
    "table1-4bcast-byz-crash-ta-synt.ta", "table1-5bcast-byz-crash-ta-synt-nGE3tbPLUS2tc.ta",
    "table1-6bcast-byz-crash-ta-synt-nGE3tbPLUStc.ta", "table2-1bcast-byz-ta-synt-XCR.ta",
    "table2-2bcast-byz-ta-synt-XCR-nGE3tbPLUS2.ta", "table2-3bcast-byz-ta-synt-YCR.ta",
    "table2-4bcast-byz-ta-synt-YCR-nGE4tb.ta", "table2-5bcast-byz-crash-ta-synt-UZR.ta",
    "table3-1bosco-synt-3cases-AOFT.ta", "table3-6bosco-synt-3cases-AOUT.ta", "table3-7bosco-synt-3cases-AOVT.ta",
)


def opodis17_dir() -> Path:
    """``$TACTL_OPODIS17``, else the cache ``make opodis17`` fills."""
    env = os.environ.get("TACTL_OPODIS17")
    return Path(env) if env else Path.home() / ".cache" / "tactl" / "benchmarks" / "opodis17"


def opodis17_files(directory: Path | None = None) -> list[Path]:
    """The ``.ta`` files there (none: one line says so and how to fetch them)."""
    return cached_inputs(directory or opodis17_dir(), "*.ta", "synthesis table (OPODIS'17)",
                         "make opodis17 fetches them, or set TACTL_OPODIS17")


@dataclass(frozen=True)
class Published:
    """What the paper says about one file: ``row`` (e.g. "Table 1, row 2"), ``solutions`` (the text
    of the solutions it lists, or their number, or :data:`NOT_FOUND`), ``time`` (as printed, or
    :data:`NOT_FOUND`), ``source`` (where in the paper each figure was read, or what was searched)."""

    file: str
    row: str
    solutions: str
    time: str
    source: str


def published(path: Path = PUBLISHED) -> dict[str, Published]:
    """The paper's figures per file name, from the data file (its ``about`` says how it was made)."""
    data = json.loads(path.read_text())
    return {e["file"]: Published(e["file"], e["row"], e["solutions"], e["time"], e["source"])
            for e in data["files"]}
