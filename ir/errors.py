"""Source positions and user-facing diagnostics shared by every reader and pass.

Every error a user can cause is reported as ``path:line:col: message`` followed by the offending
source line and a caret, so positions travel with the IR (in ``Span`` fields that take no part in
equality) from the reader to the last pass that can complain about them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


@dataclass(frozen=True, order=True, slots=True)
class Span:
    """A 1-based (line, column) range in one source text; ``end_*`` point just past the text."""

    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __post_init__(self) -> None:
        if self.end_line == 0:
            object.__setattr__(self, "end_line", self.line)
            object.__setattr__(self, "end_col", self.col + 1)


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Diagnostic:
    """A message about the input: an error or a warning, at ``span`` when its position is known."""
    severity: Severity
    message: str
    span: Span | None = None

    def render(self, path: str, source: str | None) -> str:
        """``path:line:col: message`` plus the source line and a caret (when the position is known)."""
        prefix = "warning: " if self.severity is Severity.WARNING else ""
        if self.span is None:
            return f"{path}: {prefix}{self.message}"
        head = f"{path}:{self.span.line}:{self.span.col}: {prefix}{self.message}"
        return head + caret_lines(source, self.span)


# Source lines longer than this are shown as a window around the caret.
MAX_ECHO = 120


def source_line(source: str, number: int) -> str | None:
    """Line ``number`` (1-based) of ``source``, or None.

    The one definition of "line" in tactl, shared with the lark lexers that compute positions:
    lines end at "\n" only (a form feed, U+0085 or U+2028 is an ordinary character; readers turn
    "\r\n" and a lone "\r" into "\n" before parsing, see ``ir.source``).
    """
    starts = _line_starts(source)
    if not 1 <= number <= len(starts):
        return None
    start = starts[number - 1]
    end = source.find("\n", start)
    return source[start:] if end < 0 else source[start:end]


_last_source: tuple[str, list[int]] | None = None


def _line_starts(source: str) -> list[int]:
    """Offsets where the lines of ``source`` start; remembered for the last source, since a file
    with many errors asks for many of its lines."""
    global _last_source
    if _last_source is not None and _last_source[0] is source:
        return _last_source[1]
    starts = [0]
    at = source.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = source.find("\n", at + 1)
    _last_source = (source, starts)
    return starts


def caret_lines(source: str | None, span: Span) -> str:
    """The source line of ``span`` and a caret line under it (empty when the line is unknown);
    a very long line is cut to a window around the caret."""
    if source is None:
        return ""
    line = source_line(source, span.line)
    if line is None:
        return ""
    text = "".join(c if c.isprintable() else " " for c in line.rstrip("\r"))
    col = max(1, min(span.col, len(text) + 1))
    width = 1
    if span.end_line == span.line and span.end_col > span.col:
        width = span.end_col - span.col
    width = max(1, min(width, len(text) - col + 1, MAX_ECHO // 2))
    if len(text) > MAX_ECHO:
        first = max(0, min(col - 1 - MAX_ECHO // 3, len(text) - MAX_ECHO))
        head, tail = ("…" if first > 0 else ""), ("…" if first + MAX_ECHO < len(text) else "")
        text = head + text[first:first + MAX_ECHO] + tail
        col = col - first + len(head)
    return f"\n  {text}\n  {' ' * (col - 1)}{'^' * width}"


class TactlError(Exception):
    """Base class of every error tactl reports to a user (exit status 2, no traceback)."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic, path: str = "<input>",
                 source: str | None = None) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = sorted(diagnostics, key=_position_key)
        self.path = path
        self.source = source
        super().__init__()

    def __str__(self) -> str:  # rendered when asked for, not when raised
        return self.render()

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]

    def render(self) -> str:
        return "\n".join(d.render(self.path, self.source) for d in self.diagnostics)


def _position_key(d: Diagnostic) -> tuple[int, int]:
    return (d.span.line, d.span.col) if d.span else (0, 0)


class InputError(TactlError):
    """The user's input is malformed or meaningless: syntax, unknown names, non-linear terms."""


@dataclass
class DiagnosticSink:
    """Collects diagnostics so that a reader can report every problem in one run, not just the first."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, message: str, span: Span | None = None) -> None:
        self.items.append(Diagnostic(Severity.ERROR, message, span))

    def warning(self, message: str, span: Span | None = None) -> None:
        self.items.append(Diagnostic(Severity.WARNING, message, span))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.WARNING]
