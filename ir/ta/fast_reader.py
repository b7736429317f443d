"""A hand-written reader for plain ``.ta`` text: the automaton that the grammar-driven reader
(``ir/ta/grammar.py``) builds from the same text, node for node and span for span, without loading
lark and its parse tables (which cost a small ``tactl check`` more than reading the file does).

It reads only what it is sure of and declines everything else (:class:`Declined`): a syntax or
sort error, a keyword where a name is written, an unterminated comment, a literal Python cannot
convert, nesting deeper than its recursion allows. The caller (``ir/ta/reader.py``) then reads the
text with lark, which words every error (``file:line:col`` and a caret) as it always has. It builds
with the grammar reader's own functions (``ir/ta/build.py``, ``ir/expr.py``), so sort checks and
``unchanged(x)`` warnings are the same; tests/frontends/test_ta_fast_reader.py compares both readers'
automata, spans included, on every ``.ta`` file of the corpus.

The grammar it follows is ``ir/expr.lark`` followed by ``ir/ta/ta.lark``; the comments below name
the rule each method reads.
"""

from __future__ import annotations

import re
import sys

from tactl.ir.errors import Span
from tactl.ir.expr import (Always, BoolConst, Compare, Div, Eventually, Expr, Implies, IntConst, Mul, Name,
                           Neg, Not, conj, disj, summation)
from tactl.ir.ta.build import SortError, Unchanged, as_formula, automaton, divisor, merge_unchanged, sections, term
from tactl.ir.ta.model import Define, Location, Property, Rule, ThresholdAutomaton, Update
from tactl.ir.ta.validate import MAX_NESTING


class Declined(Exception):
    """The text is not one this reader is sure to read as lark does: lark reads it instead."""


# Every word the grammars spell out (ta.lark, expr.lark). Where a name is expected, lark's
# contextual lexer may read such a word as a name or as the keyword depending on the parser state;
# this reader does not model that and declines instead.
KEYWORDS = frozenset({
    "skel", "thresholdAutomaton", "threshAuto", "ta", "timing", "sync", "async", "local", "locals",
    "shared", "parameters", "unknowns", "define", "assumptions", "assume", "inits", "locations",
    "rules", "when", "do", "unchanged", "reset", "specifications", "true", "false"})
HEADERS = ("skel", "thresholdAutomaton", "threshAuto", "ta")
DECLARATIONS = {"local": "locals", "locals": "locals", "shared": "shared", "parameters": "parameters",
                "unknowns": "unknowns"}

# Longest operators first: lark's lexer prefers the longer of two string terminals.
_TOKEN = re.compile(r"""
    (?P<space>[ \t\f\r\n]+)
  | (?P<comment>/\*(?:.|\n)*?\*/|//[^\n]*)
  | (?P<open_comment>/\*)
  | (?P<int>[0-9]+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=|>=|==|!=|->|\|\||&&|\[\]|<>|:=|[-+*/%<>!(){}\[\];,:='])
""", re.VERBOSE)

INT, NAME, END = "int", "name", "end"
_CMP = frozenset({"<=", ">=", "==", "!=", "<", ">"})


def tokens(text: str) -> list[tuple[str, str, int, int]]:
    """(kind, text, line, column) of each token, lark's 1-based positions; ``kind`` is
    :data:`INT`, :data:`NAME` or the operator itself, and the list ends with :data:`END`."""
    out: list[tuple[str, str, int, int]] = []
    line, line_start, pos, size = 1, 0, 0, len(text)
    match = _TOKEN.match
    while pos < size:
        m = match(text, pos)
        if m is None:
            raise Declined("a character no token starts with")
        kind, value = m.lastgroup, m.group()
        if kind == "space" or kind == "comment":
            newlines = value.count("\n")
            if newlines:
                line += newlines
                line_start = pos + value.rindex("\n") + 1
        elif kind == "open_comment":
            raise Declined("an unterminated comment")
        else:
            out.append((value if kind == "op" else kind, value, line, pos - line_start + 1))
        pos = m.end()
    out.append((END, "", line, pos - line_start + 1))
    return out


def _span(token: tuple[str, str, int, int]) -> Span:
    _, value, line, col = token
    return Span(line, col, line, col + len(value))


def _joined(first: Span | None, last: Span | None) -> Span | None:
    """From the start of ``first`` to the end of ``last``, as ``span_of`` in ``ir/ta/grammar.py``
    joins the located items of a rule (one of them may be unlocated)."""
    if first is None:
        return last
    if last is None:
        return first
    return Span(first.line, first.col, last.end_line, last.end_col)


class _Reader:
    def __init__(self, text: str) -> None:
        self.tokens = tokens(text)
        self.i = 0

    # ---------------------------------------------------------------------- tokens

    def peek(self) -> str:
        return self.tokens[self.i][0]

    def take(self, kind: str) -> tuple[str, str, int, int]:
        token = self.tokens[self.i]
        if token[0] != kind:
            raise Declined(f"expected {kind}")
        self.i += 1
        return token

    def word(self, *words: str) -> tuple[str, str, int, int]:
        token = self.tokens[self.i]
        if token[0] != NAME or token[1] not in words:
            raise Declined(f"expected {' or '.join(words)}")
        self.i += 1
        return token

    def name(self) -> tuple[str, str, int, int]:
        token = self.take(NAME)
        if token[1] in KEYWORDS:
            raise Declined("a keyword where a name is written")
        return token

    def at_word(self, word: str) -> bool:
        token = self.tokens[self.i]
        return token[0] == NAME and token[1] == word

    # ---------------------------------------------------------------------- ta.lark

    def read(self) -> ThresholdAutomaton:
        """start: HEADER NAME "{" _section* "}" """
        self.word(*HEADERS)
        name = self.name()[1]
        self.take("{")
        parts = sections()
        declared_at: list[tuple[str, Span]] = []
        timing = "async"
        while self.peek() != "}":
            keyword = self.take(NAME)[1]
            if keyword == "timing":
                timing = self.word("sync", "async")[1]
                self.take(";")
            elif keyword in DECLARATIONS:
                entries = [(n[1], _span(n)) for n in self.names()]
                self.take(";")
                parts[DECLARATIONS[keyword]].extend(n for n, _ in entries)
                declared_at.extend(entries)
            elif keyword == "define":
                parts["define"].append(self.define())
            elif keyword in ("assumptions", "assume", "inits"):
                parts["inits" if keyword == "inits" else "assumptions"].extend(self.formulas())
            elif keyword == "locations":
                parts["locations"].extend(self.locations())
            elif keyword == "rules":
                parts["rules"].extend(self.rules())
            elif keyword == "specifications":
                parts["properties"].extend(self.specifications())
            else:
                raise Declined("not a section")
        self.take("}")
        self.take(END)
        return automaton(name, parts, declared_at, timing)

    def names(self) -> list[tuple[str, str, int, int]]:
        """_names: NAME ("," NAME)*"""
        found = [self.name()]
        while self.peek() == ",":
            self.i += 1
            found.append(self.name())
        return found

    def count(self) -> None:
        """_count: "(" INT ")" (optional; both tools ignore it)"""
        if self.peek() == "(":
            self.i += 1
            self.take(INT)
            self.take(")")

    def define(self) -> Define:
        """define: "define" NAME ("==" | "=") expr ";" """
        name = self.name()
        if self.peek() not in ("==", "="):
            raise Declined("expected '=='")
        self.i += 1
        value = term(self.expr())
        self.take(";")
        return Define(name[1], value, span=_span(name))

    def block(self, item) -> list:
        """A section's body after its keyword: _count? "{" item* "}" """
        self.count()
        self.take("{")
        found = []
        while self.peek() != "}":
            found.append(item())
        self.i += 1
        return found

    def formulas(self) -> list[Expr]:
        """assumptions / inits: KEYWORD _count? "{" (expr ";")* "}" """
        return [as_formula(e) for e in self.block(self.statement)]

    def statement(self) -> Expr:
        e = self.expr()
        self.take(";")
        return e

    def locations(self) -> list[Location]:
        """locations: "locations" _count? "{" location* "}" """
        return self.block(self.location)

    def location(self) -> Location:
        """location: NAME ":" "[" _ints? "]" ";"   _ints: signed_int (";" signed_int)* ";"?"""
        name = self.name()
        self.take(":")
        values: list[int] = []
        if self.peek() == "[]":  # lark's lexer reads '[' ']' here: the state takes no '[]'
            self.i += 1
        else:
            self.take("[")
            while self.peek() != "]":
                values.append(self.signed_int())
                if self.peek() == ";":
                    self.i += 1
                elif self.peek() != "]":
                    raise Declined("expected ';' or ']'")
            self.i += 1
        self.take(";")
        return Location(sys.intern(name[1]), tuple(values), span=_span(name))

    def signed_int(self) -> int:
        """signed_int: SIGN? INT"""
        if self.peek() == "-":
            self.i += 1
            return -int(self.take(INT)[1])
        return int(self.take(INT)[1])

    def rules(self) -> list[Rule]:
        """rules: "rules" _count? "{" rule* "}" """
        return self.block(self.rule)

    def rule(self) -> Rule:
        """rule: INT ":" NAME "->" NAME "when" expr "do" "{" _actions? "}" ";"?
        _actions: action (_act_sep action)* _act_sep?   _act_sep: ";" | "," | "&&" """
        rid = self.take(INT)
        self.take(":")
        src = self.name()
        self.take("->")
        dst = self.name()
        self.word("when")
        guard = self.expr()
        self.word("do")
        self.take("{")
        actions: list = []
        while self.peek() != "}":
            actions.extend(self.action())
            if self.peek() in (";", ",", "&&"):
                self.i += 1
            elif self.peek() != "}":
                raise Declined("expected a separator")
        self.i += 1
        if self.peek() == ";":
            self.i += 1
        guard, updates = merge_unchanged(int(rid[1]), as_formula(guard), actions)
        return Rule(int(rid[1]), sys.intern(src[1]), sys.intern(dst[1]), guard, updates, span=_span(rid),
                    source_span=_span(src), target_span=_span(dst))

    def action(self) -> list:
        """action: NAME "'" ("==" | "=" | ":=") sum | "unchanged" "(" _names ")" | "reset" "(" _names ")" """
        if self.at_word("unchanged") or self.at_word("reset"):
            reset = self.tokens[self.i][1] == "reset"
            self.i += 1
            self.take("(")
            named = [(sys.intern(t[1]), _span(t)) for t in self.names()]
            self.take(")")
            if reset:
                return [Update(n, IntConst(0, span=s), span=s) for n, s in named]
            return [Unchanged(Update(n, Name(n, span=s), span=s)) for n, s in named]
        var = self.name()
        self.take("'")
        if self.peek() not in ("==", "=", ":="):
            raise Declined("expected '=='")
        self.i += 1
        value = self.sum()
        return [Update(sys.intern(var[1]), term(value), span=_joined(_span(var), value.span))]

    def specifications(self) -> list[Property]:
        """specifications: "specifications" _count? "{" spec* "}" """
        return self.block(self.spec)

    def spec(self) -> Property:
        """spec: NAME (":" | "=") expr ";" """
        name = self.name()
        if self.peek() not in (":", "="):
            raise Declined("expected ':'")
        self.i += 1
        formula = self.statement()
        return Property(name[1], as_formula(formula), span=_span(name))

    # ---------------------------------------------------------------------- expr.lark

    def expr(self) -> Expr:
        """?implies: or_expr | implies "->" or_expr (left-associative)"""
        result = self.or_expr()
        while self.peek() == "->":
            self.i += 1
            right = self.or_expr()
            result = Implies(as_formula(result), as_formula(right), span=_joined(result.span, right.span))
        return result

    def or_expr(self) -> Expr:
        """?or_expr: and_expr ("||" and_expr)*"""
        return self.chain("||", self.and_expr, disj)

    def and_expr(self) -> Expr:
        """?and_expr: unary ("&&" unary)*"""
        return self.chain("&&", self.unary, conj)

    def chain(self, op: str, operand, join) -> Expr:
        """A flat chain ``a op b op …`` joined by ``join`` (one operand: itself, as lark inlines it)."""
        items = [operand()]
        while self.peek() == op:
            self.i += 1
            items.append(operand())
        if len(items) == 1:
            return items[0]
        return join(*map(as_formula, items), span=_joined(items[0].span, items[-1].span))

    def unary(self) -> Expr:
        """?unary: cmp | NOT unary | ALWAYS unary | EVENTUALLY unary"""
        kind = self.peek()
        if kind in ("!", "[]", "<>"):
            op = self.tokens[self.i]
            self.i += 1
            arg = self.unary()
            node = {"!": Not, "[]": Always, "<>": Eventually}[kind]
            return node(as_formula(arg), span=_joined(_span(op), arg.span))
        left = self.sum()
        if self.peek() not in _CMP:
            return left
        op = self.tokens[self.i][1]
        self.i += 1
        right = self.sum()
        return Compare(op, term(left), term(right), span=_joined(left.span, right.span))

    def sum(self) -> Expr:
        """?sum: product (SUM_OP product)*"""
        first = self.product()
        rest = []
        last = first
        while self.peek() in ("+", "-"):
            op = self.tokens[self.i][1]
            self.i += 1
            last = self.product()
            rest.append((op, term(last)))
        if not rest:
            return first
        return summation(term(first), rest, _joined(first.span, last.span))

    def product(self) -> Expr:
        """?product: neg (MUL_OP neg)* ('/' by a positive constant: .ta files write thresholds so)"""
        first = self.neg()
        if self.peek() not in ("*", "/", "%"):
            return first
        result = term(first)
        while self.peek() in ("*", "/", "%"):
            op = self.tokens[self.i][1]
            self.i += 1
            arg = self.neg()
            span = _joined(result.span, arg.span)
            if op == "/":
                result = Div(result, divisor(term(arg)), span=span)
            elif op == "%":
                raise Declined("'%' (an error lark words)")
            else:
                result = Mul(result, term(arg), span=span)
        return result

    def neg(self) -> Expr:
        """?neg: atom | SIGN neg | "(" SIGN ")" neg"""
        kind = self.peek()
        if kind == "-":
            sign = self.tokens[self.i]
            self.i += 1
        elif kind == "(" and self.tokens[self.i + 1][0] == "-" and self.tokens[self.i + 2][0] == ")":
            sign = self.tokens[self.i + 1]
            self.i += 3
        else:
            return self.atom()
        arg = self.neg()
        return Neg(term(arg), span=_joined(_span(sign), arg.span))

    def atom(self) -> Expr:
        """?atom: INT | NAME | TRUE | FALSE | "(" expr ")" """
        token = self.tokens[self.i]
        kind = token[0]
        if kind == INT:
            self.i += 1
            return IntConst(int(token[1]), span=_span(token))
        if kind == NAME:
            self.i += 1
            if token[1] in ("true", "false"):
                return BoolConst(token[1] == "true", span=_span(token))
            if token[1] in KEYWORDS:
                raise Declined("a keyword where a name is written")
            return Name(sys.intern(token[1]), span=_span(token))
        if kind == "(":
            self.i += 1
            inner = self.expr()
            self.take(")")
            return inner
        raise Declined("not an expression")


def read_plain_ta(text: str) -> ThresholdAutomaton:
    """The automaton of ``text``, as the grammar reader builds it; :class:`Declined` for any text
    this reader is not sure of (an error among it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, DEEPEST))
    try:
        return _Reader(text).read()
    except (SortError, ValueError, RecursionError, IndexError) as e:  # an error lark words; int() of a huge literal
        raise Declined(type(e).__name__) from None
    finally:
        sys.setrecursionlimit(limit)


# Python frames the reader may need: about ten per level of an expression (expr, or, and, unary,
# sum, product, neg, atom and the chains), for as many levels as the validator admits
# (``MAX_NESTING`` in ir/ta/validate.py; generated files nest a hundred parentheses deep). Python's
# own calls take no C stack, so the limit is only Python's count.
DEEPEST = 12 * MAX_NESTING + 500
