"""The grammar-driven reader of ``.ta`` and ``.eta`` text (lark, ``ir/ta/ta.lark`` after the shared
expression rules of ``ir/expr.lark``), and the syntax messages of every reader built on them.

The ``.rta`` reader (``ir/rta/reader.py``) builds on the same expression callbacks
(:class:`ExprBuild`). Plain ``.ta`` files are read first by the hand-written reader
(``ir/ta/fast_reader.py``); this one reads whatever it declines, and words every error.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from importlib import resources

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.expr import (
    Always,
    BoolConst,
    Compare,
    Div,
    Eventually,
    Expr,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    conj,
    disj,
    summation,
)
from tactl.ir.limits import MAX_DIGITS
from tactl.ir.ta.build import SortError, Unchanged, as_formula, automaton, divisor, merge_unchanged, sections, term
from tactl.ir.ta.model import Define, Location, Property, Rule, Update


def grammar_text(package: str, name: str) -> str:
    """The shared expression rules (``ir/expr.lark``) followed by the grammar ``name`` of the
    dialect ``package`` (e.g. ``"tactl.ir.ta"``, ``"ta.lark"``), which may ``%extend`` them."""
    shared = resources.files("tactl.ir").joinpath("expr.lark").read_text(encoding="utf-8")
    return shared + "\n" + resources.files(package).joinpath(name).read_text(encoding="utf-8")


# What TACO's extended threshold automata (.eta) add to the .ta grammar (overrides of its rules).
ETA_GRAMMAR = "eta.lark"


@cache
def parser(extension: str | None = None) -> Lark:
    """The .ta parser, or with ``extension`` (a grammar file of this package, e.g.
    :data:`ETA_GRAMMAR`) appended: one reader, whose IR is the same for both formats."""
    grammar = grammar_text(__package__, "ta.lark")
    if extension is not None:
        grammar += "\n" + resources.files(__package__).joinpath(extension).read_text(encoding="utf-8")
    # The transformer runs inside the parser, at each reduction: no parse tree is built and
    # nothing recurses, however long the file. Spans come from the tokens (see span_of).
    # cache=True keeps Lark's grammar analysis, which would otherwise run at every start, in the temp
    # directory, keyed by a hash of grammar and options, so a changed grammar is never stale.
    return Lark(grammar, parser="lalr", lexer="contextual", transformer=_Build(),
                maybe_placeholders=False, cache=True)


def _text(tok: Token) -> str:
    """A name's text, one string object per distinct name (a large file names a few variables
    and locations hundreds of thousands of times)."""
    return sys.intern(str(tok))


def token_span(tok: Token) -> Span:
    """Where ``tok`` is in the source."""
    return Span(tok.line, tok.column, tok.end_line, tok.end_column)


def span_of(items: list) -> Span | None:
    """From the start of the first located item (token or IR node) to the end of the last."""
    spans = [s for s in map(_item_span, items) if s is not None]
    if not spans:
        return None
    return Span(spans[0].line, spans[0].col, spans[-1].end_line, spans[-1].end_col)


def _item_span(item: object) -> Span | None:
    return token_span(item) if isinstance(item, Token) else getattr(item, "span", None)


class ExprBuild(Transformer):
    """The callbacks of the expression rules of ``expr.lark``: IR nodes with sorts checked.

    Shared by the readers of every format built on ``expr.lark`` (a base class of each one's
    transformer).
    """

    def int_(self, ch):
        return IntConst(int(ch[0]), span=token_span(ch[0]))

    def name(self, ch):
        return Name(_text(ch[0]), span=token_span(ch[0]))

    def true_(self, ch):
        return BoolConst(True, span=span_of(ch))  # the TRUE token is kept for its position

    def false_(self, ch):
        return BoolConst(False, span=span_of(ch))

    def neg(self, ch):
        return Neg(term(ch[-1]), span=span_of(ch))

    def sum(self, ch):
        rest = [(str(op), term(arg)) for op, arg in zip(ch[1::2], ch[2::2])]
        return summation(term(ch[0]), rest, span_of(ch))

    # Whether '/' (integer division by a positive constant) is read; the .ta reader admits it
    # (ByMC files write thresholds as `(N + T) / 2`), a format whose passes cannot eliminate it
    # (.rta) keeps refusing it.
    DIVISION = False

    def product(self, ch):
        result = term(ch[0])
        for op, arg in zip(ch[1::2], ch[2::2]):
            span = span_of([result, arg])
            if op == "/" and self.DIVISION:
                result = Div(result, divisor(term(arg)), span=span)
                continue
            if op == "/":
                raise SortError("division is not linear integer arithmetic: multiply the other side "
                                 "instead (write '2 * x >= N + T' for 'x >= (N + T) / 2')", span)
            if op == "%":
                raise SortError("'%' is not supported in threshold automata (linear integer "
                                 "arithmetic)", span)
            result = Mul(result, term(arg), span=span)
        return result

    def compare(self, ch):
        op = "!=" if ch[1] == "=!" else str(ch[1])  # TACO's other spelling (ir/ta/eta.lark)
        return Compare(op, term(ch[0]), term(ch[2]), span=span_of(ch))

    def not_(self, ch):
        return Not(as_formula(ch[-1]), span=span_of(ch))

    def always(self, ch):
        return Always(as_formula(ch[-1]), span=span_of(ch))

    def eventually(self, ch):
        return Eventually(as_formula(ch[-1]), span=span_of(ch))

    def and_expr(self, ch):
        return conj(*map(as_formula, ch), span=span_of(ch))

    def or_expr(self, ch):
        return disj(*map(as_formula, ch), span=span_of(ch))

    def implies(self, ch):
        return Implies(as_formula(ch[0]), as_formula(ch[1]), span=span_of(ch))


class _Build(ExprBuild):
    """Parse tree → IR nodes, bottom-up, checking expression sorts on the way."""

    DIVISION = True

    def decl(self, ch):
        kind = {"local": "locals", "locals": "locals", "shared": "shared",
                "parameters": "parameters", "unknowns": "unknowns"}[str(ch[0])]
        return ("decl", kind, [(str(t), token_span(t)) for t in ch[1:]])

    def define(self, ch):
        return ("define", Define(str(ch[0]), term(ch[1]), span=token_span(ch[0])))

    def timing(self, ch):
        return ("timing", str(ch[0]))

    def assumptions(self, ch):
        return ("assumptions", [as_formula(e) for e in ch if isinstance(e, Expr)])

    def inits(self, ch):
        return ("inits", [as_formula(e) for e in ch if isinstance(e, Expr)])

    def signed_int(self, ch):
        return -int(ch[-1]) if len(ch) == 2 else int(ch[-1])

    def location(self, ch):
        return Location(_text(ch[0]), tuple(ch[1:]), span=token_span(ch[0]))

    def locations(self, ch):
        return ("locations", [c for c in ch if isinstance(c, Location)])

    def assign(self, ch):
        return [Update(_text(ch[0]), term(ch[1]), span=span_of(ch))]

    def unchanged(self, ch):
        return [Unchanged(Update(name, Name(name, span=span), span=span))
                for name, span in ((_text(t), token_span(t)) for t in ch)]

    def reset(self, ch):
        return [Update(name, IntConst(0, span=span), span=span)
                for name, span in ((_text(t), token_span(t)) for t in ch)]

    def rule(self, ch):
        rid, src, dst, guard, *acts = ch
        guard, updates = merge_unchanged(int(rid), as_formula(guard), [u for group in acts for u in group])
        return Rule(int(rid), _text(src), _text(dst), guard, updates, span=token_span(rid),
                    source_span=token_span(src), target_span=token_span(dst))

    def rules(self, ch):
        return ("rules", [c for c in ch if isinstance(c, Rule)])

    def spec(self, ch):
        return Property(str(ch[0]), as_formula(ch[1]), span=token_span(ch[0]))

    def specifications(self, ch):
        return ("properties", [c for c in ch if isinstance(c, Property)])

    def start(self, ch):
        name = str(ch[1])
        parts = sections()
        declared_at: list[tuple[str, Span]] = []
        timing = "async"
        for section in ch[2:]:
            if section[0] == "timing":
                timing = section[1]
            elif section[0] == "decl":
                _, kind, entries = section
                parts[kind].extend(n for n, _ in entries)
                declared_at.extend(entries)
            elif section[0] == "define":
                parts["define"].append(section[1])
            else:
                parts[section[0]].extend(section[1])
        return automaton(name, parts, declared_at, timing)


def run_parser(parser: Lark, text: str, path: str):
    """``parser.parse(text)`` with every syntax or sort error turned into an :class:`InputError`."""
    try:
        return parser.parse(text)
    except UnexpectedInput as e:
        raise InputError(_syntax_diagnostic(e, text, parser), path, text) from None
    except SortError as e:
        raise InputError(Diagnostic(Severity.ERROR, e.message, e.span), path, text) from None
    except RecursionError:  # only an error message of a monstrous term could get here
        raise InputError(Diagnostic(Severity.ERROR, "expression nested too deeply"), path, text) from None
    except ValueError:  # int() of a literal longer than Python converts (sys.get_int_max_str_digits)
        long = _LONG_INTEGER.search(text)
        if long is None:
            raise
        line = text.count("\n", 0, long.start()) + 1
        col = long.start() - (text.rfind("\n", 0, long.start()) + 1) + 1
        raise InputError(Diagnostic(Severity.ERROR, f"integer literal of {len(long.group())} digits: "
                                    f"tactl reads integers of at most {MAX_DIGITS} digits",
                                    Span(line, col, line, col + len(long.group()))), path, text) from None


_LONG_INTEGER = re.compile(r"(?<![A-Za-z0-9_])[0-9]{%d,}" % (MAX_DIGITS + 1))


# ------------------------------------------------------------------------------- syntax messages

_FRIENDLY = {"NAME": "a name", "INT": "a number", "HEADER": "'skel' (or 'thresholdAutomaton')",
             "CMP_OP": "a comparison", "DECL_KW": "a declaration", "ASSUME_KW": "'assumptions'",
             "SIGN": "'-'", "SPEC_KW": "'specifications'", "$END": "end of file"}
_OPENERS = {"{": "}", "(": ")", "[": "]"}


def _terminal_text(name: str, parser: Lark) -> str:
    if name in _FRIENDLY:
        return _FRIENDLY[name]
    try:
        pattern = parser.get_terminal(name).pattern
    except KeyError:
        return name
    return f"'{pattern.value}'" if pattern.type == "str" else name.lower()


def _syntax_diagnostic(e: UnexpectedInput, text: str, parser: Lark) -> Diagnostic:
    pos = e.pos_in_stream if e.pos_in_stream is not None else len(text)
    if text.startswith("/*", pos):
        return Diagnostic(Severity.ERROR, "unterminated comment: '/*' without a closing '*/'",
                          Span(e.line, e.column))
    if isinstance(e, UnexpectedCharacters):
        span = Span(e.line, e.column)
        ch = text[e.pos_in_stream]
        return Diagnostic(Severity.ERROR, f"unexpected character {ch!r}", span)
    assert isinstance(e, UnexpectedToken)
    tok, expected = e.token, set(e.expected)
    previous = _token_before(text, tok.start_pos if tok.type != "$END" else len(text), parser)
    if tok.type == "$END":
        unclosed = _unclosed_bracket(text, parser)
        where = _after(previous) if previous is not None else Span(1, 1)
        if unclosed is not None:
            opener, pos = unclosed
            return Diagnostic(Severity.ERROR, f"unexpected end of file: the '{opener}' at "
                              f"{pos.line}:{pos.col} is never closed", where)
        return Diagnostic(Severity.ERROR, f"unexpected end of file; expected {_expected(expected, parser)}", where)
    found = f"'{tok.value}'" if tok.type != "$END" else "end of file"
    if "SEMICOLON" in expected and previous is not None:
        return Diagnostic(Severity.ERROR, f"expected ';' after '{previous.value}' (found {found})",
                          _after(previous))
    return Diagnostic(Severity.ERROR, f"unexpected {found}; expected {_expected(expected, parser)}",
                      token_span(tok))


def _expected(names: set[str], parser: Lark) -> str:
    texts = sorted({_terminal_text(n, parser) for n in names})
    if len(texts) > 6:
        texts = texts[:6] + ["…"]
    return " or ".join(texts) if len(texts) <= 2 else ", ".join(texts)


def _after(tok: Token) -> Span:
    return Span(tok.end_line, tok.end_column)


def _tokens(text: str, parser: Lark):
    """Tokens of ``text`` as far as they lex (comments and spaces skipped)."""
    try:
        yield from parser.lex(text)
    except UnexpectedInput:
        return


def _token_before(text: str, pos: int, parser: Lark) -> Token | None:
    last = None
    for t in _tokens(text, parser):
        if t.start_pos >= pos:
            break
        last = t
    return last


def _unclosed_bracket(text: str, parser: Lark) -> tuple[str, Span] | None:
    stack: list[Token] = []
    for t in _tokens(text, parser):
        if t.value in _OPENERS:
            stack.append(t)
        elif stack and t.value == _OPENERS[stack[-1].value]:
            stack.pop()
    return (stack[-1].value, token_span(stack[-1])) if stack else None
