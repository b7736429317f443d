"""Errors the interpreter finds while executing a program: each is the program's fault (a name
that is nothing, a payload outside its domain, a second ``decide`` of another value, a loop that
never becomes quiescent) and is reported like any bad input: ``file:line:col``, a caret line,
exit status 2."""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, InputError, Severity, Span


class SourceError(Exception):
    """A runtime error at a position of the program (converted to an :class:`InputError` by
    :func:`as_input_error` where the file's path and text are known)."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def as_input_error(error: SourceError, path: str, text: str) -> InputError:
    return InputError(Diagnostic(Severity.ERROR, error.message, error.span), path, text)
