"""The Promela dialect's preprocessor: the C preprocessor as SPIN and ByMC run it on a file.

Conditionals and macros, applied before ``ir/promela/reader.py`` reads the text.

ByMC runs its input through ``cpp`` (``bymc -D NAME``), and SPIN does too (``spin -E`` shows its
output), so a Promela file means what its *preprocessed* text says. The ISOLA'18 and CAV'15 files
choose their variants with conditionals: ``#ifdef SPIN`` (an explicit receive loop for SPIN)
against the ``havoc``/``assume`` form, ``#ifndef BUG1`` (the resilience condition and its bug),
``#ifdef CASE2`` (the case of condition-based consensus). Reading both branches would be a
different model.

Macros are **token substitution**, never values: ``#define ONE 2 - 1`` makes ``T + 2 - ONE`` the
text ``T + 2 - 2 - 1`` (``T - 1``), not ``T + 1``. A macro means something only
from its ``#define`` on, until an ``#undef`` (a use before the definition is an ordinary,
undeclared name). A body may be empty (``#define EMPTY`` deletes the name) or start with a
sign (``#define M -1``); a body's own macros are expanded at the use, as cpp rescans, and a
macro is not expanded inside itself. Function-like macros (``#define IDX(i, j) (N * i + j)``)
take their arguments from the same line. Command-line names (``-D NAME``) are cpp's: defined as
``1``.

What is kept: ``#ifdef``, ``#ifndef``, ``#else``, ``#endif`` (nested), ``#define``, ``#undef``.
``#pragma`` lines are ByMC's options for its own abstraction (``piaDom.thresholds``) and mean
nothing for tactl. Everything else that starts with ``#`` (``#if EXPR``, ``#elif``,
``#include``), a ``#define`` continued with ``\\``, and ``#``/``##`` in a body are refused with
their position rather than guessed at.

Positions stay the file's: a directive becomes an empty line, and :meth:`Expansion.origin` maps
a column of the expanded text back to the file's (a column inside an expansion to the macro's
name at the use). Directives and macro names inside comments and strings are left alone (cpp
removes comments first and never expands inside a string).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from tactl.ir.errors import Diagnostic, InputError, Severity, Span

_DIRECTIVE = re.compile(r"^(\s*)#\s*([A-Za-z]+)\b[ \t]*(.*)$")
_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(.*)$", re.DOTALL)
_PARAMS = re.compile(r"^\(\s*((?:[A-Za-z_][A-Za-z0-9_]*\s*(?:,\s*[A-Za-z_][A-Za-z0-9_]*\s*)*)?)\)(.*)$")
_SUPPORTED = ("ifdef", "ifndef", "else", "endif", "define", "undef", "pragma")
SUPPORTED_DIRECTIVES = _SUPPORTED  # what the editors' grammar highlights (tactl/lsp/textmate.py)
# One token of C text outside comments: a string, an identifier, a number (with its suffix
# letters, as cpp's pp-number), white space, or one other character.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_]*|\s+|.')
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_OPERATOR = set("+-*/%<>=!&|:^~.")
MAX_EXPANSION = 20_000  # characters one use of a macro may expand to (cpp has no bound; a chain
# of macros doubling each other would otherwise fill the memory before the parser says anything)


@dataclass(frozen=True)
class Macro:
    """One ``#define``: its body text (comments removed), its parameters (function-like)."""

    name: str
    body: str
    params: tuple[str, ...] | None
    span: Span | None


@dataclass(frozen=True)
class MacroUse:
    """Where a macro's name is written and was expanded (the file's position)."""

    name: str
    span: Span


@dataclass(frozen=True)
class Expansion:
    """The preprocessed text (as many lines as the file), with what it took to make it."""

    text: str
    macros: tuple[Macro, ...]        # every #define on a kept line, in the file's order
    uses: tuple[MacroUse, ...]       # every expanded use, in the file's order
    columns: dict[int, tuple[int, ...]] = field(default_factory=dict)  # changed lines: original column per column (+ end)

    def origin(self, span: Span) -> Span:
        """``span`` (of the expanded text) as a position of the file."""
        cols = self.columns.get(span.line)
        if cols is None:
            return span
        i = span.col - 1
        col = cols[i] if 0 <= i < len(cols) else cols[-1] + (i - len(cols) + 1)
        return Span(span.line, col)


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


def preprocess(text: str, path: str, defines: Iterable[str] = ()) -> str:
    """``text`` with its directives resolved and its macros expanded; lines keep their numbers."""
    return expand(text, path, defines).text


def expand(text: str, path: str, defines: Iterable[str] = ()) -> Expansion:
    """What cpp makes of ``text`` with ``-D`` ``defines``: see the module's docstring."""
    return _Preprocessor(text, path, defines).run()


class _Preprocessor:
    def __init__(self, text: str, path: str, defines: Iterable[str]) -> None:
        self.text, self.path = text, path
        self.table: dict[str, Macro] = {d: Macro(d, "1", None, None) for d in defines}
        self.macros: list[Macro] = []
        self.uses: list[MacroUse] = []
        self.columns: dict[int, tuple[int, ...]] = {}

    def run(self) -> Expansion:
        stack: list[_Branch] = []
        out: list[str] = []
        in_comment = False
        for number, line in enumerate(self.text.split("\n"), start=1):
            active = not stack or stack[-1].active
            m = None if in_comment else _DIRECTIVE.match(line)
            if m is None:
                if active:
                    line, in_comment = self.line(line, number, in_comment)
                else:
                    in_comment = _ends_in_comment(line, in_comment)
                out.append(line if active else "")
                continue
            in_comment = _ends_in_comment(line, in_comment)
            out.append("")
            self.directive(m, number, active, stack)
        if stack:
            raise self.error("this '#ifdef'/'#ifndef' has no '#endif'", stack[-1].span)
        return Expansion("\n".join(out), tuple(self.macros), tuple(self.uses), self.columns)

    # ------------------------------------------------------------------------------ directives
    def directive(self, m: re.Match, number: int, active: bool, stack: list[_Branch]) -> None:
        indent, word, raw = m.group(1), m.group(2), m.group(3)
        rest = _strip_comment(raw)
        span = Span(number, len(indent) + 1)
        if word not in _SUPPORTED:
            if active:
                raise self.error(f"'#{word}' is not supported (tactl reads #ifdef, #ifndef, #else, "
                                 "#endif, #define, #undef and #pragma)", span)
        elif word in ("ifdef", "ifndef"):
            name = _NAME.match(rest)
            if name is None or name.group(2).strip():
                raise self.error(f"'#{word}' needs exactly one name", span)
            taken = (name.group(1) in self.table) == (word == "ifdef")
            stack.append(_Branch(taken, active, span))
        elif word == "else":
            if not stack or stack[-1].seen_else:
                raise self.error("'#else' without an open '#ifdef'/'#ifndef'" if not stack
                                 else "a second '#else' for the same '#ifdef'/'#ifndef'", span)
            stack[-1].taken = not stack[-1].taken
            stack[-1].seen_else = True
        elif word == "endif":
            if not stack:
                raise self.error("'#endif' without an open '#ifdef'/'#ifndef'", span)
            stack.pop()
        elif word == "undef" and active:
            name = _NAME.match(rest)
            if name is None or name.group(2).strip():
                raise self.error("'#undef' needs exactly one name", span)
            self.table.pop(name.group(1), None)
        elif word == "define" and active:
            self.define(raw, span)

    def define(self, raw: str, span: Span) -> None:
        """Record ``#define NAME body`` / ``#define NAME(a, b) body`` from here on."""
        name = _NAME.match(raw)
        if name is None:
            raise self.error("'#define' needs a name", span)
        after, params = name.group(2), None
        if after.startswith("("):  # no space before '(': a function-like macro, as in cpp
            p = _PARAMS.match(after)
            if p is None:
                raise self.error(f"'#define {name.group(1)}(...)': the parameters must be names "
                                 "separated by commas", span)
            params = tuple(x.strip() for x in p.group(1).split(",") if x.strip())
            after = p.group(2)
        body = " ".join(_strip_comment(after).split())
        if raw.rstrip().endswith("\\"):
            raise self.error(f"'#define {name.group(1)}' continued on the next line with '\\' is "
                             "not supported", span)
        if "#" in body:
            raise self.error(f"'#' or '##' in the body of '#define {name.group(1)}' is not supported",
                             span)
        macro = Macro(name.group(1), body, params, span)
        self.table[macro.name] = macro
        self.macros.append(macro)

    # ---------------------------------------------------------------------------- substitution
    def line(self, line: str, number: int, in_comment: bool) -> tuple[str, bool]:
        """``line`` with its macros expanded, whether a comment is open at its end; records
        the column map of a line that changed."""
        pieces: list[tuple[str, int, bool]] = []  # (text, its column in the file, an expansion?)
        i = 0
        while i < len(line):
            if in_comment or line.startswith("/*", i):
                end = line.find("*/", i + (0 if in_comment else 2))
                j = len(line) if end < 0 else end + 2
                in_comment = end < 0
                pieces.append((line[i:j], i + 1, False))
                i = j
                continue
            if line.startswith("//", i):
                pieces.append((line[i:], i + 1, False))
                break
            tok = _TOKEN.match(line, i)
            assert tok is not None
            word, j = tok.group(0), tok.end()
            macro = self.table.get(word) if _IDENT.fullmatch(word) else None
            call = None if macro is None or macro.params is None else _call(line, j)
            if macro is None or (macro.params is not None and call is None):
                pieces.append((word, i + 1, False))
                i = j
                continue
            use = Span(number, i + 1)
            self.uses.append(MacroUse(word, use))
            if call is not None:
                args, j = call
                if args is None:
                    raise self.error(f"the arguments of '{word}(' must close on the same line", use)
                text = self.call(macro, args, frozenset(), use)
            else:
                text = self.substitute(macro.body, frozenset({word}), use)
            pieces.append((text, i + 1, True))
            i = j
        if not any(expanded for _, _, expanded in pieces):
            return line, in_comment
        out, cols, after_expansion = "", [], False
        for text, col, expanded in pieces:
            if (expanded or after_expansion) and out and text and _glues(out[-1], text[0]):
                out += " "
                cols.append(col)
            cols.extend([col] * len(text) if expanded else range(col, col + len(text)))
            out += text
            after_expansion = expanded
        cols.append(len(line) + 1)
        self.columns[number] = tuple(cols)
        return out, in_comment

    def substitute(self, text: str, disabled: frozenset[str], use: Span) -> str:
        """``text`` (a body or an argument) with the macros it names expanded, not those in
        ``disabled`` (cpp never expands a macro inside its own expansion)."""
        out: list[str] = []
        i, after_expansion, size = 0, False, 0
        while i < len(text):
            tok = _TOKEN.match(text, i)
            assert tok is not None
            word, j = tok.group(0), tok.end()
            macro = self.table.get(word) if _IDENT.fullmatch(word) and word not in disabled else None
            call = None if macro is None or macro.params is None else _call(text, j)
            if macro is None or (macro.params is not None and call is None):
                piece, expanded = word, False
            else:
                self.uses.append(MacroUse(word, use))
                if call is not None:
                    args, j = call
                    if args is None:
                        raise self.error(f"the arguments of '{word}(' do not close", use)
                    piece = self.call(macro, args, disabled, use)
                else:
                    piece = self.substitute(macro.body, disabled | {word}, use)
                expanded = True
            if (expanded or after_expansion) and out and out[-1] and piece and _glues(out[-1][-1], piece[0]):
                out.append(" ")
            out.append(piece)
            after_expansion, i = expanded, j
            size += len(piece)
            if size > MAX_EXPANSION:
                raise self.error(f"a macro expands to more than {MAX_EXPANSION} characters here", use)
        return "".join(out)

    def call(self, macro: Macro, args: list[str], disabled: frozenset[str], use: Span) -> str:
        """A function-like macro's body with its parameters replaced by the (expanded)
        arguments, then rescanned."""
        params = macro.params or ()
        if args == [""] and not params:
            args = []
        if len(args) != len(params):
            raise self.error(f"'{macro.name}' takes {len(params)} argument(s), given {len(args)}", use)
        values = {p: self.substitute(a.strip(), disabled, use) for p, a in zip(params, args)}
        out: list[str] = []
        for tok in _TOKEN.finditer(macro.body):
            word = tok.group(0)
            value = values.get(word)
            if value is None:
                out.append(word)
            else:  # kept apart from its neighbours, as cpp keeps an argument's tokens
                out += [" ", value, " "]
        return self.substitute("".join(out), disabled | {macro.name}, use).strip()

    def error(self, message: str, span: Span) -> InputError:
        return InputError(Diagnostic(Severity.ERROR, message, span), self.path, self.text)


def _call(text: str, j: int) -> tuple[list[str] | None, int] | None:
    """The arguments of a function-like macro's use whose name ends at ``j``: None when no '('
    follows (the name is then left alone, as cpp does), ``(None, j)`` when it does not close."""
    k = j
    while k < len(text) and text[k] in " \t":
        k += 1
    if k >= len(text) or text[k] != "(":
        return None
    depth, args, start = 0, [], k + 1
    for pos in range(k, len(text)):
        c = text[pos]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                args.append(text[start:pos])
                return args, pos + 1
        elif c == "," and depth == 1:
            args.append(text[start:pos])
            start = pos + 1
    return None, len(text)


def _glues(a: str, b: str) -> bool:
    """Whether characters ``a`` then ``b`` would read as one token (cpp keeps tokens apart)."""
    return (a in _WORD and b in _WORD) or (a in _OPERATOR and b in _OPERATOR)


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
