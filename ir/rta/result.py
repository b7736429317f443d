"""What reading a receive automaton returns: the automaton, its warnings and its text. Apart from
the reader (``ir/rta/reader.py``) so that code which only passes a read automaton on (the pipeline
of a ``.ta`` check among it) need not load the reader's grammar."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tactl.ir.errors import Diagnostic
from tactl.ir.ta.reader import SourceResult

if TYPE_CHECKING:  # the model's classes are not needed to pass a result on
    from tactl.ir.rta.model import ReceiveTA


@dataclass
class RtaReadResult(SourceResult):
    """A receive automaton that passed every check, with its warnings and the text it came from."""

    rta: ReceiveTA

    def __init__(self, rta: ReceiveTA, path: str, source: str,
                 warnings: list[Diagnostic] | None = None) -> None:
        super().__init__(path, source, list(warnings or []))
        self.rta = rta
