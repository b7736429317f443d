"""Reading the text of an input: a regular file, or standard input when the user says ``-``.

Everything a reader sees has passed through :func:`read_text`, so every reader agrees on what a
line is (``ir.errors.source_line``): a UTF-8 byte-order mark is skipped, and "\\r\\n" and a lone
"\\r" become "\\n" before any lexer counts lines. Only regular files are read: a FIFO with no
writer would block forever and a device never ends, so both are refused by ``stat`` (which does
not open them).
"""

from __future__ import annotations

import re
import stat
import sys
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity, Span

STDIN = "-"
STDIN_LABEL = "<stdin>"


def is_stdin(path: str | Path) -> bool:
    return str(path) == STDIN


def label(path: str | Path) -> str:
    """How diagnostics name the input."""
    return STDIN_LABEL if is_stdin(path) else str(path)


def normalize(text: str) -> str:
    """Skip a byte-order mark and make "\\n" the only line break."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: str | Path) -> str:
    """The normalised text of ``path`` (``-``: standard input), or an :class:`InputError`."""
    where = label(path)

    def refuse(message: str, span: Span | None = None) -> InputError:
        return InputError(Diagnostic(Severity.ERROR, message, span), where)

    if is_stdin(path):
        data = sys.stdin.buffer.read()
    else:
        p = Path(path)
        try:
            mode = p.stat().st_mode
        except OSError as e:
            raise refuse(f"cannot read: {e.strerror}") from None
        if stat.S_ISDIR(mode):
            raise refuse("is a directory, not a file")
        if not stat.S_ISREG(mode):
            what = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or \
                stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
            raise refuse(f"is {what}; tactl reads regular files (or '-' for standard input)")
        try:
            with open(p, "rb") as f:
                data = f.read()
        except OSError as e:
            raise refuse(f"cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise refuse("the file is not UTF-8 text", Span(line, col)) from None
    return normalize(text)


def source_language(path: str) -> str:
    """What a counterexample's source lines are, named for the reader: a Promela model, a TLA+
    module, or pseudocode (an .alg file, and what else maps rules to lines)."""
    suffix = path.lower().rsplit(".", 1)[-1] if "." in path else ""
    return {"pml": "Promela", "tla": "TLA+ module"}.get(suffix, "pseudocode")


def sniff_kind(text: str) -> str:
    """What standard input holds, judged by its first word: ``json``, ``rta``, ``alg``, ``tla``
    (a TLA+ module header ``---- MODULE name ----``) or ``ta``."""
    if re.match(r"\s*(\(\*.*?\*\)\s*|\\\*[^\n]*\s*)*-{4,}\s*MODULE\b", text, flags=re.S):
        return "tla"
    body = re.sub(r"^(\s|//[^\n]*|/\*.*?\*/|#[^\n]*)*", "", text, count=1, flags=re.S)
    if body.startswith("{"):
        return "json"
    if re.match(r"algorithm\b", body):
        return "alg"
    return "rta" if re.match(r"rta\b", body) else "ta"


