"""The kinds of input file tactl reads, declared once.

A file's suffix says where the chains of passes (``tactl/driver/pipeline.py``) start: the IR
kind of its text, from which every command finds its way to what it needs (a ``.tla`` file
reaches ``check``, ``translate``, ``show`` and ``emit`` through the ``read-tla`` pass, like an
``.eta`` through ``read-eta``). Adding a file type is one row here and one reading pass there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileType:
    """One kind of input file, declared once: its suffix, the IR kind of its text (where the
    chains of passes start) and what it holds (named in the error for an unknown suffix).
    ``translated``: its reader translates another language into a threshold automaton, which
    ``tactl translate`` prints. ``printed``: tactl prints this file's own language (the canonical
    form of ``tactl fmt``), so ``fmt --in-place`` may rewrite it; a source language that tactl
    only reads (pseudocode, Promela, TLA+) would be replaced by another language."""

    suffix: str
    kind: str
    holds: str
    translated: bool = False
    printed: bool = True


FILE_TYPES = (
    FileType(".ta", "ta-text", "threshold automata from .ta files (or their .json form)"),
    FileType(".eta", "eta-text", "extended threshold automata (TACO) from .eta files"),
    FileType(".tla", "tla-text", "threshold automata written in TLA+ (TACO's fragment, counter systems) "
                                 "from .tla files", translated=True, printed=False),
    FileType(".rta", "rta-text", "receive automata from .rta files"),
    FileType(".alg", "alg-text", "pseudocode from .alg files", printed=False),
    FileType(".pml", "pml-text", "Parametric Promela (ByMC) from .pml files", printed=False),
    FileType(".json", "json", ""),  # its "format" field says which IR (see _json_kind)
)


def file_type(path: str | Path) -> FileType | None:
    """The declared type of ``path`` by its suffix (None: not one tactl reads)."""
    suffix = Path(path).suffix.lower()
    return next((t for t in FILE_TYPES if t.suffix == suffix), None)
