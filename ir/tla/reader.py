"""Reading a TLA+ module (the fragment of docs/tla.md) into its syntax tree (``ir/tla/syntax.py``).

The grammar (``tla.lark``) is LALR and knows nothing of layout; TLA+ bulleted junction lists
(``/\\`` or ``\\/`` starting an item, the items aligned on one column) are grouped, the list
and each item in parentheses, by
:class:`Bullets`, a post-lexer that applies TLA+'s column rule: an item continues until a token
starts a line at or left of the bullet's column (a bullet of the same kind there starts the next
item), or a bracket opened before the list closes. What is not TLA+ or not in the fragment's
syntax is an :class:`~tactl.ir.errors.InputError` at ``file:line:col``.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Iterator

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.tla.syntax import Assumption, Declaration, Definition, Module, Node

# After these tokens a /\ or \/ starts a bulleted list rather than joining two operands.
_LIST_STARTS = {"==", "(", "[", "{", "<<", ",", ":", "IN", "THEN", "ELSE", "ASSUME", "/\\", "\\/",
                "=>", "~", "[]", "<>", "|->", "="}
_OPENERS = {"(": ")", "[": "]", "{": "}", "<<": ">>"}
_CLOSERS = {")", "]", "}", ">>", "]_"}


def _at(tok: Token, kind: str, value: str) -> Token:
    return Token(kind, value, tok.start_pos, tok.line, tok.column, tok.end_line, tok.end_column, tok.end_pos)


def _two(tok: Token) -> Iterator[Token]:
    """A list closes twice: its last item, then itself."""
    yield tok
    yield tok


class Bullets:
    """The post-lexer that turns TLA+ bulleted junction lists into parentheses."""

    always_accept = ("AND", "OR")  # lexed in any parser state: this post-lexer decides what they are

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        # entries: ("bullet", symbol, column) | ("bracket", closer) | ("kw", "IF"/"THEN"/"LET")
        stack: list[tuple] = []
        previous: Token | None = None
        for tok in stream:
            first_on_line = previous is None or tok.line > previous.end_line
            if first_on_line:
                while stack and stack[-1][0] == "bullet" and (
                        stack[-1][2] > tok.column
                        or (stack[-1][2] == tok.column and tok.value != stack[-1][1])):
                    stack.pop()
                    yield from _two(_at(tok, "BULLET_CLOSE", ")"))
            value = tok.value
            if value in ("/\\", "\\/"):
                top = stack[-1] if stack else None
                if (first_on_line and top is not None and top[0] == "bullet"
                        and top[2] == tok.column and top[1] == value):
                    # the next item of the list: ") op (", each item in its own parentheses
                    yield _at(tok, "BULLET_CLOSE", ")")
                    yield tok
                    yield _at(tok, "BULLET_OPEN", "(")
                    previous = tok
                    continue
                if previous is None or previous.value in _LIST_STARTS:
                    stack.append(("bullet", value, tok.column))
                    yield _at(tok, "BULLET_OPEN", "(")
                    yield _at(tok, "BULLET_OPEN", "(")
                    previous = tok
                    continue
            if value in _CLOSERS:
                yield from self._close_until(stack, tok, lambda e: e[0] == "bracket")
                if stack and stack[-1][0] == "bracket":
                    stack.pop()
            elif value in ("THEN", "ELSE", "IN"):
                opener = {"THEN": "IF", "ELSE": "THEN", "IN": "LET"}[value]
                yield from self._close_until(stack, tok, lambda e: e == ("kw", opener))
                if stack and stack[-1] == ("kw", opener):
                    stack.pop()
                if value == "THEN":
                    stack.append(("kw", "THEN"))
            elif value in ("IF", "LET"):
                stack.append(("kw", value))
            if value in _OPENERS:
                stack.append(("bracket", _OPENERS[value]))
            yield tok
            previous = tok
        while stack:
            if stack.pop()[0] == "bullet":
                yield from _two(Token("BULLET_CLOSE", ")", 0, previous.end_line if previous else 1,
                                      previous.end_column if previous else 1))

    @staticmethod
    def _close_until(stack: list[tuple], tok: Token, stop) -> Iterator[Token]:
        while stack and not stop(stack[-1]):
            if stack.pop()[0] == "bullet":
                yield from _two(_at(tok, "BULLET_CLOSE", ")"))


@cache
def _parser() -> Lark:
    grammar = resources.files(__package__).joinpath("tla.lark").read_text(encoding="utf-8")
    # cache=True keeps Lark's grammar analysis in the temp directory, keyed by a hash of grammar and
    # options (as the .ta reader does), instead of redoing it at every start.
    return Lark(grammar, parser="lalr", postlex=Bullets(), maybe_placeholders=False, cache=True)


def _span(tok: Token) -> Span:
    return Span(tok.line, tok.column, tok.end_line, tok.end_column)


def _join(items) -> Span | None:
    spans = [s for s in (_span(i) if isinstance(i, Token) else getattr(i, "span", None) for i in items)
             if s is not None]
    if not spans:
        return None
    return Span(spans[0].line, spans[0].col, spans[-1].end_line, spans[-1].end_col)


class FragmentError(Exception):
    """A construct the reader refuses, at ``span``."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def _nodes(children) -> tuple[Node, ...]:
    return tuple(c for c in children if isinstance(c, Node))


class _Build(Transformer):
    """Parse tree → :class:`Node` (expressions) and module units."""

    # ---- atoms
    def int_(self, ch):
        return Node("int", value=int(ch[0]), text=str(ch[0]), span=_span(ch[0]))

    def string(self, ch):
        return Node("string", text=str(ch[0])[1:-1], span=_span(ch[0]))

    def name(self, ch):
        return Node("name", text=str(ch[0]), span=_span(ch[0]))

    def true_(self, ch):
        return Node("bool", value=1, text="TRUE")

    def false_(self, ch):
        return Node("bool", value=0, text="FALSE")

    def at(self, ch):
        return Node("at", text="@")

    def primed(self, ch):
        return Node("primed", text=str(ch[0]), span=_join(ch))

    def call(self, ch):
        return Node("call", _nodes(ch[1:]), text=str(ch[0]), span=_join(ch))

    def apply_fn(self, ch):
        return Node("apply", _nodes(ch), span=_join(ch))

    def paren(self, ch):
        [inner] = _nodes(ch)
        return Node(inner.op, inner.args, inner.text, inner.value, True, span=inner.span, defs=inner.defs)

    def set_enum(self, ch):
        return Node("set", _nodes(ch), span=_join(ch))

    def set_filter(self, ch):
        return Node("set_filter", _nodes(ch), text=str(ch[0]), span=_join(ch))

    def fn_def(self, ch):
        return Node("fn_def", _nodes(ch), text=str(ch[0]), span=_join(ch))

    def fn_set(self, ch):
        return Node("fn_set", _nodes(ch), span=_join(ch))

    def except_item(self, ch):
        return Node("except_item", _nodes(ch), span=_join(ch))

    def except_(self, ch):
        return Node("except", _nodes(ch), span=_join(ch))

    def tuple_(self, ch):
        return Node("tuple", _nodes(ch), span=_join(ch))

    def unchanged(self, ch):
        return Node("unchanged", _nodes(ch), span=_join(ch))

    def box_action(self, ch):
        return Node("box_action", _nodes(ch), span=_join(ch))

    # ---- operators
    def _infix(self, op: str, ch) -> Node:
        return Node(op, _nodes(ch), text=" ".join(str(t) for t in ch if isinstance(t, Token)), span=_join(ch))

    def and_(self, ch):
        return self._infix("and", ch)

    def or_(self, ch):
        return self._infix("or", ch)

    def implies(self, ch):
        left, right = _nodes(ch)
        for side in (left, right):
            if side.op == "or" and not side.parenthesized:
                raise FragmentError(
                    "a disjunction next to '=>' without parentheses: TLA+ reads 'a \\/ b => c' as "
                    "'(a \\/ b) => c' but TACO as 'a \\/ (b => c)'; write the parentheses you mean",
                    side.span)
        return Node("implies", (left, right), span=_join(ch))

    def not_(self, ch):
        return Node("not", _nodes(ch), span=_join(ch))

    def always(self, ch):
        return Node("always", _nodes(ch), span=_join(ch))

    def eventually(self, ch):
        return Node("eventually", _nodes(ch), span=_join(ch))

    def quantified(self, ch):
        kind = "exists" if str(ch[0]) in ("\\E", "\\exists") else "forall"
        if str(ch[2]) != "\\in":
            raise FragmentError("a bounded quantifier is written '\\E x \\in S : P'", _span(ch[2]))
        return Node(kind, _nodes(ch), text=str(ch[1]), span=_join(ch))

    def let_def(self, ch):
        params = tuple(str(t) for t in ch[1].children) if isinstance(ch[1], Tree) else ()
        return Definition(str(ch[0]), params, ch[-1], span=_join([ch[0]]))

    def params(self, ch):
        return Tree("params", ch[0].children)

    def name_list(self, ch):
        return Tree("name_list", list(ch))

    def let_in(self, ch):
        defs = tuple(c for c in ch if isinstance(c, Definition))
        return Node("let", (ch[-1],), defs=defs, span=_join([ch[-1]]))

    def if_then_else(self, ch):
        return Node("if", _nodes(ch), span=_join(ch))

    def compare(self, ch):
        op = str(ch[1])
        op = {"#": "/=", "=<": "<="}.get(op, op)
        return Node("compare", _nodes(ch), text=op, span=_join(ch))

    def member(self, ch):
        return Node("member", _nodes(ch), text=str(ch[1]), span=_join(ch))

    def union(self, ch):
        return Node("union", _nodes(ch), span=_join(ch))

    def sum(self, ch):
        ops = " ".join(str(t) for t in ch if isinstance(t, Token))
        return Node("sum", _nodes(ch), text=ops, span=_join(ch))

    def product(self, ch):
        return Node("product", _nodes(ch), span=_join(ch))

    def neg(self, ch):
        return Node("neg", _nodes(ch), span=_join(ch))

    # ---- units
    def module(self, ch):
        return ("module", str(ch[0]).strip("- \t").split()[-1])

    def _declaration(self, keyword: str, ch) -> Declaration:
        names = tuple((str(t), _span(t)) for t in ch[-1].children)
        return Declaration(keyword, names, span=_join(list(ch[-1].children)))

    def extends(self, ch):
        return self._declaration("extends", ch)

    def constants(self, ch):
        return self._declaration("constants", ch)

    def variables(self, ch):
        return self._declaration("variables", ch)

    def assume(self, ch):
        return Assumption(ch[0], span=ch[0].span)

    def definition(self, ch):
        params = tuple(str(t) for t in ch[1].children) if isinstance(ch[1], Tree) else ()
        return Definition(str(ch[0]), params, ch[-1], span=_span(ch[0]))

    def start(self, ch):
        name = next((c[1] for c in ch if isinstance(c, tuple)), "")
        return Module(name, tuple(c for c in ch if isinstance(c, Declaration)),
                      tuple(c for c in ch if isinstance(c, Assumption)),
                      tuple(c for c in ch if isinstance(c, Definition)))


def _module_text(text: str) -> str:
    """The module up to its closing ``====`` line (TLA+ ignores what follows), blanked rather
    than cut so that positions stay those of the file."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("===="):
            return "\n".join(lines[:i] + ["" for _ in lines[i:]])
    return text


_FRIENDLY = {"NAME": "a name", "INT": "a number", "STRING": "a string", "CMP_OP": "a comparison",
             "IN_OP": "'\\in'", "AND": "'/\\'", "OR": "'\\/'", "IMPLIES": "'=>'", "$END": "end of file",
             "BULLET_CLOSE": "the end of a bulleted list", "BULLET_OPEN": "a bulleted list",
             "CONSTANTS": "'CONSTANTS'", "VARIABLES": "'VARIABLES'", "QUANT": "'\\E'"}


def _expected(names: set[str]) -> str:
    parser = _parser()
    texts = set()
    for n in names:
        if n in _FRIENDLY:
            texts.add(_FRIENDLY[n])
            continue
        try:
            pattern = parser.get_terminal(n).pattern
            texts.add(f"'{pattern.value}'" if pattern.type == "str" else n.lower())
        except KeyError:
            texts.add(n.lower())
    ordered = sorted(texts)
    if len(ordered) > 6:
        ordered = ordered[:6] + ["…"]
    return ", ".join(ordered)


def _syntax_error(e: UnexpectedInput, text: str) -> Diagnostic:
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream]
        hint = " (a TLA+ comment is '\\*' to the end of the line, or '(* … *)')" if ch in "\\(" else \
            " (a string is closed on its line)" if ch == '"' else ""
        return Diagnostic(Severity.ERROR, f"unexpected character {ch!r}: not in the TLA+ fragment "
                          f"tactl reads{hint}", Span(e.line, e.column))
    assert isinstance(e, UnexpectedToken)
    tok, expected = e.token, set(e.expected)
    if tok.type == "$END":
        return Diagnostic(Severity.ERROR, f"unexpected end of the module; expected {_expected(expected)}",
                          Span(max(1, text.count("\n")), 1))
    if tok.type in ("AND", "OR") and _mixes_junctions(text, tok):
        return Diagnostic(Severity.ERROR, "'/\\' and '\\/' mixed without parentheses: TLA+ gives "
                          "them the same precedence; write parentheses or a bulleted list",
                          _span(tok))
    outside = _outside_word(text, tok)
    if outside is not None:
        word, span = outside
        return Diagnostic(Severity.ERROR, f"'{word}' is TLA+ outside the fragment tactl reads (docs/tla.md "
                          "lists what it reads: a threshold automaton's locations, counters and rules)", span)
    return Diagnostic(Severity.ERROR, f"unexpected '{tok.value}'; expected {_expected(expected)}", _span(tok))


#: TLA+ operators the fragment has no reading for; the grammar reads each as a plain name, so a
#: parse error just after one would otherwise name the token that follows it.
OUTSIDE_FRAGMENT = ("CHOOSE", "LAMBDA", "RECURSIVE", "INSTANCE", "SUBSET", "UNION", "DOMAIN",
                    "ENABLED", "CASE", "OTHER", "THEOREM")
_OUTSIDE_WORD = re.compile(r"\b(" + "|".join(OUTSIDE_FRAGMENT) + r")\b")


def _outside_word(text: str, tok: Token) -> tuple[str, Span] | None:
    """The last operator outside the fragment on ``tok``'s line up to and including ``tok``, with
    its place: the reason the parse failed there, rather than the token the parser stopped at."""
    line = text.split("\n")[tok.line - 1] if 0 < tok.line <= text.count("\n") + 1 else ""
    found = list(_OUTSIDE_WORD.finditer(line[:max(tok.end_column - 1, tok.column)]))
    if not found:
        return None
    m = found[-1]
    return m.group(1), Span(tok.line, m.start() + 1, tok.line, m.end() + 1)


def _mixes_junctions(text: str, tok: Token) -> bool:
    """Whether ``tok`` (a /\\ or \\/) follows the other junction in the same parentheses."""
    other = "\\/" if tok.value == "/\\" else "/\\"
    before = []
    try:
        for t in _parser().lex(_module_text(text)):
            if t.start_pos >= tok.start_pos and t.type not in ("BULLET_OPEN", "BULLET_CLOSE"):
                break
            before.append(t)
    except UnexpectedInput:
        pass
    depth = 0
    for t in reversed(before):
        if t.value in (")", "]", "}", ">>") or t.type == "BULLET_CLOSE":
            depth += 1
        elif t.value in ("(", "[", "{", "<<", "==") or t.type == "BULLET_OPEN":
            if depth == 0:
                return False
            depth -= 1
        elif depth == 0 and t.value == other:
            return True
    return False


def parse_tla(text: str, path: str = "<input>") -> Module:
    """The module in ``text``; raises :class:`InputError` at the first syntax error."""
    try:
        return _Build().transform(_parser().parse(_module_text(text)))
    except UnexpectedInput as e:
        raise InputError(_syntax_error(e, text), path, text) from None
    except RecursionError:
        raise InputError(Diagnostic(Severity.ERROR, "expression nested too deeply"), path, text) from None
    except VisitError as e:
        if isinstance(e.orig_exc, RecursionError):
            raise InputError(Diagnostic(Severity.ERROR, "expression nested too deeply"), path, text) from None
        if isinstance(e.orig_exc, FragmentError):
            raise InputError(Diagnostic(Severity.ERROR, e.orig_exc.message, e.orig_exc.span), path, text) from None
        raise
