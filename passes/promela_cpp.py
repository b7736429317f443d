"""The C preprocessor's conditionals, as ByMC's Promela benchmarks use them.

ByMC runs its input through ``cpp`` (``bymc -D NAME``), and the ISOLA'18 and CAV'15 Promela files
choose their variants with it: ``#ifdef SPIN`` (an explicit receive loop for SPIN) against the
``havoc``/``assume`` form, ``#ifndef BUG1`` (the resilience condition and its bug), ``#ifdef
CASE2`` (the case of condition-based consensus). Without the conditionals these files cannot be
read at all, and reading both branches would be a different model.

What is kept: ``#ifdef``, ``#ifndef``, ``#else``, ``#endif``, nested; a name is defined by
``defines`` (the command line's ``-D``) or by a ``#define`` seen earlier on an active line.
``#define NAME`` without a value only defines NAME (the line is dropped, as cpp does); ``#define
NAME value`` stays for the parser, which substitutes integer constants itself. ``#pragma`` lines
are ByMC's options for its own abstraction (``piaDom.thresholds``) and mean nothing for tactl.
Everything else that starts with ``#`` (``#if EXPR``, ``#elif``, ``#include``, ``#undef``) is
refused with its position rather than guessed at.

Dropped lines become empty lines, so every position the parser reports is the file's own.
Directives inside a ``/* ... */`` comment are not directives (cpp removes comments first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from tactl.ir.errors import Diagnostic, InputError, Severity, Span

_DIRECTIVE = re.compile(r"^(\s*)#\s*([A-Za-z]+)\b[ \t]*(.*)$")
_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(.*)$")
_SUPPORTED = ("ifdef", "ifndef", "else", "endif", "define", "pragma")


@dataclass
class _Branch:
    """One open ``#ifdef``/``#ifndef``: whether its lines are kept, and where it started."""

    taken: bool          # the condition's value for this branch
    outer_active: bool   # whether the enclosing text is kept at all
    span: Span
    seen_else: bool = False

    @property
    def active(self) -> bool:
        return self.outer_active and self.taken


def has_directives(text: str) -> bool:
    """Whether ``text`` needs this pass (a cheap test, so plain files skip it)."""
    return re.search(r"^\s*#\s*(if|else|endif|pragma|elif|include|undef)", text, re.MULTILINE) is not None


def preprocess(text: str, path: str, defines: Iterable[str] = ()) -> str:
    """``text`` with the conditional directives resolved; lines keep their numbers."""
    defined = set(defines)
    stack: list[_Branch] = []
    out: list[str] = []
    in_comment = False
    for number, line in enumerate(text.split("\n"), start=1):
        active = not stack or stack[-1].active
        m = None if in_comment else _DIRECTIVE.match(line)
        in_comment = _ends_in_comment(line, in_comment)
        if m is None:
            out.append(line if active else "")
            continue
        indent, word, rest = m.group(1), m.group(2), _strip_comment(m.group(3))
        span = Span(number, len(indent) + 1)
        if word not in _SUPPORTED:
            if not active:
                out.append("")
                continue
            raise _error(path, text, f"'#{word}' is not supported (tactl reads #ifdef, #ifndef, #else, "
                         "#endif, #define and #pragma)", span)
        if word in ("ifdef", "ifndef"):
            name = _NAME.match(rest)
            if name is None or name.group(2):
                raise _error(path, text, f"'#{word}' needs exactly one name", span)
            taken = (name.group(1) in defined) == (word == "ifdef")
            stack.append(_Branch(taken, active, span))
            out.append("")
        elif word == "else":
            if not stack or stack[-1].seen_else:
                raise _error(path, text, "'#else' without an open '#ifdef'/'#ifndef'" if not stack
                             else "a second '#else' for the same '#ifdef'/'#ifndef'", span)
            stack[-1].taken = not stack[-1].taken
            stack[-1].seen_else = True
            out.append("")
        elif word == "endif":
            if not stack:
                raise _error(path, text, "'#endif' without an open '#ifdef'/'#ifndef'", span)
            stack.pop()
            out.append("")
        elif word == "pragma":
            out.append("")
        else:  # define
            name = _NAME.match(rest)
            if name is None:
                raise _error(path, text, "'#define' needs a name", span)
            if active:
                defined.add(name.group(1))
            out.append(line if active and name.group(2) else "")
    if stack:
        raise _error(path, text, "this '#ifdef'/'#ifndef' has no '#endif'", stack[-1].span)
    return "\n".join(out)


def _strip_comment(rest: str) -> str:
    return re.sub(r"/\*.*?(\*/|$)|//.*$", "", rest).strip()


def _ends_in_comment(line: str, in_comment: bool) -> bool:
    """Whether a ``/* ... */`` comment is still open at the end of ``line``."""
    i = 0
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return True
            in_comment, i = False, end + 2
        else:
            start = line.find("/*", i)
            line_comment = line.find("//", i)
            if start < 0 or (0 <= line_comment < start):
                return False
            in_comment, i = True, start + 2
    return in_comment


def _error(path: str, text: str, message: str, span: Span) -> InputError:
    return InputError(Diagnostic(Severity.ERROR, message, span), path, text)
