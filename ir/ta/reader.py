"""Reader for ByMC ``.ta`` files: text → :class:`ThresholdAutomaton`, or an :class:`InputError`.

Two stages with one error type. :func:`parse_ta` checks syntax and the sort of each expression
(a term where a number is meant, a formula where a truth value is meant); :func:`read_ta` adds the
semantic checks of :mod:`ir.validate` (unknown names, non-linear terms, non-monotone updates) and
returns the automaton with its warnings. Whatever the input, nothing but ``InputError`` escapes.

A plain ``.ta`` text is read by the hand-written reader (``ir/ta/fast_reader.py``, the same
automaton without loading lark); what it declines, an error among it, and every ``.eta`` text are
read by lark's (``ir/ta/grammar.py``), which words every error.
"""

from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.source import label, read_text
from tactl.ir.ta.build import reader_warnings
from tactl.ir.ta.fast_reader import Declined, read_plain_ta
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.ir.ta.validate import MAX_NESTING, validate


# ------------------------------------------------------------------------------------ entry points


def parse_ta(text: str, path: str = "<input>") -> ThresholdAutomaton:
    """Syntax and expression sorts only; raises :class:`InputError` with a position."""
    return parse_ta_with_warnings(text, path)[0]


def parse_ta_with_warnings(text: str, path: str = "<input>",
                           extended: bool = False) -> tuple[ThresholdAutomaton, list[Diagnostic]]:
    """:func:`parse_ta` and the warnings of reading (e.g. a repeated ``unchanged(x)``);
    ``extended``: the text is TACO's extended format (.eta)."""
    warnings: list[Diagnostic] = []
    token = reader_warnings.set(warnings)
    try:
        with _collector_paused():
            ta = None if extended else _read_plain(text)
            if ta is None:
                warnings.clear()  # the hand-written reader's, if it warned before it declined
                ta = _parse(text, path, extended)
    finally:
        reader_warnings.reset(token)
    check_nesting(ta.expressions(), path, text)
    return ta, warnings


def _read_plain(text: str) -> ThresholdAutomaton | None:
    """The automaton of a plain .ta text as the hand-written reader (``ir/ta/fast_reader.py``) reads
    it, or None where it declines (then lark reads the text and words any error)."""
    try:
        return read_plain_ta(text)
    except Declined:
        return None


def _parse(text: str, path: str, extended: bool) -> ThresholdAutomaton:
    """The automaton of ``text``: lark's reading (``ir/ta/grammar.py``) of an .eta file, or of a .ta
    file the hand-written reader declines (anything unusual, every error among it)."""
    from tactl.ir.ta.grammar import ETA_GRAMMAR, parser, run_parser  # lazy: lark and its tables cost more to load than a plain .ta file takes to read

    return run_parser(parser(ETA_GRAMMAR if extended else None), text, path)


@contextmanager
def _collector_paused():
    """No cyclic garbage collection while parsing: the parser allocates millions of objects and
    frees no cycles, yet each collection of the old generation rescans the growing heap (a third
    of the parse time of a file of 50,000 rules)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def check_nesting(expressions, path: str, text: str) -> None:
    """Refuse an expression nested more than :data:`MAX_NESTING` levels deep."""
    too_deep = _deeper_than(expressions, MAX_NESTING)
    if too_deep is not None:
        raise InputError(Diagnostic(Severity.ERROR, f"expression nested more than {MAX_NESTING} "
                                    "levels deep", too_deep), path, text)


def _deeper_than(expressions, limit: int) -> Span | None:
    """The position of an expression node more than ``limit`` levels deep, if any (no recursion)."""
    for root in expressions:
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            if depth > limit:
                return node.span
            stack.extend((c, depth + 1) for c in node.children())
    return None


@dataclass
class SourceResult:
    """What a reader returns besides the IR: where it came from and its warnings."""

    path: str
    source: str
    warnings: list[Diagnostic]

    @property
    def comment_count(self) -> int:
        """Comments the canonical printer would drop (it prints the IR, which has none)."""
        return len(_COMMENT_RE.findall(self.source))

    def render_warnings(self) -> str:
        return "\n".join(w.render(self.path, self.source) for w in self.warnings)


@dataclass
class ReadResult(SourceResult):
    """An automaton that passed every check, with its warnings and the text it came from."""

    ta: ThresholdAutomaton
    # Why checking this TA says nothing about what it came from (e.g. a synchronous .rta), if so.
    not_checkable: str | None

    def __init__(self, ta: ThresholdAutomaton, path: str, source: str,
                 warnings: list[Diagnostic] | None = None, not_checkable: str | None = None,
                 certificates: list[dict] | None = None, receive=None,
                 refused: dict[str, tuple[str, str]] | None = None) -> None:
        super().__init__(path, source, list(warnings or []))
        self.ta = ta
        self.not_checkable = not_checkable
        # A translated automaton: one row per receive guard, how it was translated and certified
        # (``tactl.driver.translation.certificate_rows``); empty for an automaton read from a file.
        self.certificates = list(certificates or [])
        # A synchronous automaton: the receive automaton it was translated from (ir.rta.ReceiveTA).
        # Lock-step checking needs it (sends per location, crash twins); interleaving the TA's
        # rules would be no approximation of rounds.
        self.receive = receive
        # Properties that must not be checked (name -> (verdict, reason)): the liveness
        # specifications of a translated automaton whose derived justice is not justified.
        self.refused = dict(refused or {})


_COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def only_warnings(diagnostics: list[Diagnostic], path: str, text: str) -> list[Diagnostic]:
    """Raise :class:`InputError` with the errors among ``diagnostics``; else the warnings."""
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    if errors:
        raise InputError(errors, path, text)
    return [d for d in diagnostics if d.severity is Severity.WARNING]


def read_ta(text: str, path: str = "<input>", extended: bool = False) -> ReadResult:
    """Parse and validate; raises :class:`InputError` listing every error found.
    ``extended``: read TACO's extended threshold automata (.eta): its few extra spellings
    (``eta.lark``), and resets and decrements as the format's own updates (no warning)."""
    ta, warnings = parse_ta_with_warnings(text, path, extended)
    return ReadResult(ta, path, text, only_warnings(warnings + validate(ta, extended), path, text))


def read_ta_file(path: str | Path) -> ReadResult:
    """:func:`read_ta` on a file, turning I/O and encoding problems into :class:`InputError`."""
    return read_ta(read_source(path), label(path))


def read_source(path: str | Path) -> str:
    """The text of ``path`` as every reader must see it (``ir.source.read_text``)."""
    return read_text(path)
