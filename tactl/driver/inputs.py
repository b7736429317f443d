"""Loading an automaton from whatever the user names: a file recognised by its extension, or
standard input (``-``) recognised by its first word.

Two questions, one dispatch: :func:`read_automaton` returns what the input *is* (a threshold
automaton, or a receive automaton as written), :func:`load_automaton` what the checkers need (a
threshold automaton; a receive automaton is translated, with certificates). JSON documents say
which IR they hold in their ``"format"`` field. Both run the passes declared in
``tactl.driver.pipeline``, which also decides the kind of an input.
"""

from __future__ import annotations

from pathlib import Path

from tactl.driver.pipeline import as_written, load, refusal
from tactl.ir.rta.reader import RtaReadResult
from tactl.ir.ta.reader import ReadResult


def read_automaton(path: str | Path, defines: tuple[str, ...] = ()) -> ReadResult | RtaReadResult:
    """The automaton in ``path`` as written: a checked TA or a checked receive TA (pseudocode is
    parsed into its receive TA), through the declared passes (``tactl.driver.pipeline``);
    ``defines`` are a Promela file's ``-D`` names."""
    return as_written(str(path), options={"defines": defines})


def load_automaton(path: str | Path, lower_divisions: bool = True, defines: tuple[str, ...] = ()) -> ReadResult:
    """A checked threshold automaton from ``path``; a receive automaton is translated (with
    certificates) first. With ``lower_divisions`` (what ``check`` and ``emit`` need) every
    ``/`` is eliminated exactly (the lower pass, ``pipeline.lower_loaded``), so the engines see
    linear automata only; ``show`` and ``fmt`` want the automaton as written
    (``lower_divisions=False``)."""
    return load(str(path), "checkable-ta" if lower_divisions else "ta", options={"defines": defines})


def load_receive_automaton(path: str | Path, defines: tuple[str, ...] = ()) -> RtaReadResult:
    """A checked receive automaton from ``path`` (``.rta`` text or its ``tactl.rta`` JSON form)."""
    loaded = read_automaton(path, defines)
    if not isinstance(loaded, RtaReadResult):
        raise refusal(path, "is a threshold automaton; this command reads a receive threshold "
                            "automaton (.rta, or JSON with \"format\": \"tactl.rta\")")
    return loaded
