"""The reader of the Parametric Promela dialect: ByMC's input language into ``ir.promela``
(``ir/promela/syntax.py``), the subset ByMC's benchmarks use, after the dialect's preprocessor
(``ir/promela/cpp.py``).

Supported: what ``ir/promela/cpp.py`` makes of the preprocessor lines (macros are token
substitution, as cpp's), comments, ``symbolic int N, T;``, global ``int x = 0;``,
``assume(expr);``, ``atomic name = expr;`` with ``all(P:e)``, ``some(P:e)``, ``card(P:e)`` and
``P@end``, ``active[expr] proctype P() { ... }`` with local declarations, ``if``/``do`` with
``::`` options and ``else``, ``atomic { ... }``, labels, assignments, ``x++``/``x--``,
``printf`` (ignored), ``goto label``, ``assume(expr)`` and ``havoc(x)`` inside a process (their meaning
is the translation's: ``passes/pml_to_rta/faults.py``), and ``ltl name { formula }`` with ``[]``, ``<>``, ``->``, ``!``, ``&&``,
``||``, ``and``, ``or``. Anything else is a syntax error at its position (exit 2): the reader
never guesses.

``->`` is a statement separator in a proctype and an implication in an ``ltl`` block, so the
formula of an ``ltl`` block is read by a second parser (the same expression rules plus ``->``),
its positions shifted to the file's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from tactl.ir.promela import syntax as P
from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.promela.cpp import Expansion, expand

_EXPR = r"""
?expr: or_expr
!?or_expr: and_expr | or_expr ("||" | "or") and_expr -> binary
!?and_expr: cmp_expr | and_expr ("&&" | "and") cmp_expr -> binary
!?cmp_expr: add_expr | add_expr ("==" | "!=" | "<=" | ">=" | "<" | ">") add_expr -> binary
!?add_expr: mul_expr | add_expr ("+" | "-") mul_expr -> binary
!?mul_expr: unary | mul_expr ("*" | "/" | "%") unary -> binary
!?unary: atom | ("!" | "-" | "[]" | "<>") unary -> unary
?atom: INT -> int
     | NAME -> name
     | QNAME -> qualified
     | ATNAME -> at_label
     | FUNC "(" expr ")" -> call
     | "(" expr ")"
FUNC.3: /(all|some|card)(?=\s*\()/
QNAME.2: /[A-Za-z_][A-Za-z0-9_]*:[A-Za-z_][A-Za-z0-9_]*/
ATNAME.2: /[A-Za-z_][A-Za-z0-9_]*@[A-Za-z_][A-Za-z0-9_]*/
NAME: /[A-Za-z_][A-Za-z0-9_]*/
INT: /[0-9]+/
COMMENT: /\/\*(.|\n)*?\*\// | /\/\/[^\n]*/
%import common.WS
%ignore WS
%ignore COMMENT
"""

_GRAMMAR = r"""
start: (item | ";")*
?item: symbolic | global_decl | assume | atomic_prop | proctype | ltl
symbolic: "symbolic" TYPE NAME ("," NAME)* ";"
global_decl: TYPE var_init ("," var_init)* ";"
var_init: NAME ("=" expr)?
assume: "assume" "(" expr ")"
atomic_prop: "atomic" NAME "=" expr ";"
proctype: "active" "[" expr "]" "proctype" NAME "(" ")" "{" seq "}" ";"?
ltl: "ltl" NAME LTL_BODY ";"?
LTL_BODY: /\{[^{}]*\}/
TYPE.2: /(int|unsigned|byte|short|bit|bool)\b/
seq: (stmt | ";" | "->")*
?stmt: decl | if_stmt | do_stmt | atomic_stmt | assign | incr | printf | labelled | goto
     | assume_stmt
     | "havoc" "(" NAME ")" -> havoc
     | "assert" "(" expr ")" -> assert_stmt
     | ELSE -> else_stmt
     | "skip" -> skip
     | expr -> condition
decl: TYPE var_init ("," var_init)*
assign: NAME "=" expr
incr: NAME INCOP
INCOP: "++" | "--"
printf: "printf" "(" STRING ("," expr)* ")"
STRING: /"[^"\n]*"/
labelled: LABEL stmt
goto: "goto" NAME
assume_stmt: "assume" "(" expr ")"
LABEL.2: /[A-Za-z_][A-Za-z0-9_]*:(?![A-Za-z_])/
if_stmt: "if" option+ "fi"
do_stmt: "do" option+ "od"
option: "::" seq
atomic_stmt: "atomic" "{" seq "}"
ELSE.2: /else\b/
""" + _EXPR

# The grammar the reader parses with, public for the editors' highlighting (tactl/lsp/textmate.py
# takes the Promela keywords from it).
GRAMMAR = _GRAMMAR

_FORMULA = r"""
start: expr
!?impl: or_expr | or_expr "->" impl -> binary
""" + _EXPR.replace("?expr: or_expr", "?expr: impl")


@lru_cache(maxsize=None)
def _parser() -> Lark:
    # Grammar analysis cached on disk, as for the .ta parser (see ir/ta/grammar.py).
    return Lark(_GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False, cache=True)


@lru_cache(maxsize=None)
def _formula_parser() -> Lark:
    return Lark(_FORMULA, parser="lalr", propagate_positions=True, maybe_placeholders=False, cache=True)


def error(path: str, text: str, message: str, span: Span | None) -> InputError:
    return InputError(Diagnostic(Severity.ERROR, message, span), path, text)


def _syntax(e: UnexpectedInput, path: str, text: str, shift: tuple[int, int] = (0, 0),
            origin=lambda span: span) -> InputError:
    """The parser's complaint at the file's position (``origin``: from the preprocessed text's)."""
    line, col = getattr(e, "line", 1) or 1, getattr(e, "column", 1) or 1
    if isinstance(e, UnexpectedCharacters):
        what = f"unexpected character {text_at(text, e.pos_in_stream)!r}"
    elif isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        what = "unexpected end of input"
        lines = text.split("\n")
        line, col = len(lines), len(lines[-1]) + 1
    else:
        assert isinstance(e, UnexpectedToken)
        what = f"unexpected '{e.token}'"
        if str(e.token) in EXTENDED_KEYWORDS:
            return InputError(Diagnostic(Severity.ERROR, _extended(str(e.token)),
                                         origin(_shift(Span(line, col), shift))), path, None)
    span = origin(_shift(Span(line, col), shift))
    return InputError(Diagnostic(Severity.ERROR, f"{what}: not in the Parametric Promela subset "
                                 "tactl reads (docs/promela.md)", span), path, None)


# Keywords of the extended language ByMC's bcast-byz-full.pml is written in ("The language used
# here is not implemented yet"): typed constants, message types, uninterpreted types, inputs,
# lemmas. Neither ByMC nor tactl reads it; the refusal says so rather than "unexpected token".
EXTENDED_KEYWORDS = ("const", "input", "lemma", "proof")  # (mtype, typedef: plain Promela)


def _extended(word: str) -> str:
    return (f"'{word}' belongs to ByMC's unimplemented extended Promela (const, typedef "
            "uninterpreted, input, next(x), lemma ... proof; see the header of bcast-byz-full.pml: "
            "'The language used here is not implemented yet'), which ByMC does not read either; "
            "tactl reads Parametric Promela as ByMC does (docs/promela.md)")


def text_at(text: str, pos: int | None) -> str:
    return text[pos] if pos is not None and 0 <= pos < len(text) else "?"


def _shift(span: Span, shift: tuple[int, int]) -> Span:
    dl, dc = shift
    return Span(span.line + dl, span.col + (dc if span.line == 1 else 0))


def parse_promela(text: str, path: str = "<input>", defines: tuple[str, ...] = ()) -> P.PromelaModel:
    """The syntax tree of ``text`` as cpp leaves it (``defines``: ``bymc -D``, ``spin -D``);
    raises :class:`InputError` at the first syntax error, at the file's position."""
    expansion = expand(text, path, defines)
    try:
        tree = _parser().parse(expansion.text)
    except UnexpectedInput as e:
        found = _syntax(e, path, expansion.text, origin=expansion.origin).first
        raise InputError(_fixed_size_hint(found, text), path, text) from None
    return _Builder(path, text, expansion).model(tree)


_SYMBOLIC = re.compile(r"^[ \t]*symbolic\b", re.MULTILINE)


def _fixed_size_hint(found: Diagnostic, text: str) -> Diagnostic:
    """Say what a file without ``symbolic`` parameters is, when it is not in the subset.

    ByMC's benchmark folders mix Parametric Promela with ordinary fixed-size SPIN models (e.g.
    spin13's ``bcast-byz-chan.pml``: ``#define N 6``, channels, no ``ltl``) kept for comparison.
    Such a file has no parameter to verify "for all n", so "not in the subset" alone would send
    the user looking for the unsupported construct rather than for the right tool.
    """
    if _SYMBOLIC.search(text):
        return found
    return Diagnostic(found.severity, found.message + "; the file declares no 'symbolic' parameter, so it "
                      "is a fixed-size SPIN model, not Parametric Promela: run SPIN on it directly",
                      found.span)


class _Builder:
    def __init__(self, path: str, text: str, expansion: Expansion) -> None:
        self.path, self.text, self.expansion = path, text, expansion
        self.shift = (0, 0)

    def span(self, node: Tree | Token) -> Span | None:
        if isinstance(node, Token):
            line, col = node.line, node.column
        else:
            meta = node.meta
            if getattr(meta, "empty", True):
                return None
            line, col = meta.line, meta.column
        if line is None:
            return None
        return self.expansion.origin(_shift(Span(line, col), self.shift))

    def model(self, tree: Tree) -> P.PromelaModel:
        symbolic, globals_, assumes, props, procs, ltls = [], [], [], [], [], []
        process_lines: list[tuple[int, int]] = []  # the lines of the proctypes and propositions
        for item in tree.children:
            kind = item.data
            if kind in ("proctype", "atomic_prop") and not getattr(item.meta, "empty", True):
                process_lines.append((item.meta.line, item.meta.end_line))
            if kind == "symbolic":
                symbolic += [(str(t), self.span(t)) for t in item.children[1:]]
            elif kind == "global_decl":
                globals_.append(self.decl(item))
            elif kind == "assume":
                assumes.append(P.Assume(self.expr(item.children[0]), span=self.span(item)))
            elif kind == "atomic_prop":
                props.append(P.AtomicProp(str(item.children[0]), self.expr(item.children[1]),
                                          span=self.span(item)))
            elif kind == "proctype":
                copies, name, body = item.children
                procs.append(P.Proctype(str(name), self.expr(copies), self.seq(body),
                                        span=self.span(item)))
            elif kind == "ltl":
                name, body = item.children
                ltls.append(P.Ltl(str(name), self.formula(body), span=self.span(item)))
        in_process = frozenset(u.name for u in self.expansion.uses
                               if any(a <= u.span.line <= b for a, b in process_lines))
        return P.PromelaModel(self.path, self.text, self.defines(), tuple(symbolic),
                              tuple(globals_), tuple(assumes), tuple(props), tuple(procs),
                              tuple(ltls), in_process)

    def defines(self) -> tuple[P.Define, ...]:
        """The object-like macros, each with its value where its body is one integer literal
        (what names a location: ``#define SE 2``); the text is already substituted."""
        return tuple(P.Define(m.name, P.PInt(value=int(m.body), span=m.span)
                              if re.fullmatch(r"[0-9]+", m.body) else None, m.body, span=m.span)
                     for m in self.expansion.macros if m.params is None)

    def formula(self, body: Token) -> P.PExpr:
        inner = str(body)[1:-1]
        shift = (body.line - 1, body.column)  # the '{' is at column `column`; inner starts after it
        try:
            tree = _formula_parser().parse(inner)
        except UnexpectedInput as e:
            err = _syntax(e, self.path, inner, shift, self.expansion.origin)
            raise InputError(err.first, self.path, self.text) from None
        saved, self.shift = self.shift, shift
        try:
            return self.expr(tree.children[0])
        finally:
            self.shift = saved

    def decl(self, node: Tree) -> P.Decl:
        vars_ = []
        for v in node.children[1:]:
            name = str(v.children[0])
            init = self.expr(v.children[1]) if len(v.children) > 1 else None
            vars_.append((name, init))
        return P.Decl(str(node.children[0]), tuple(vars_), span=self.span(node))

    def seq(self, node: Tree) -> tuple[P.Stmt, ...]:
        return tuple(self.stmt(c) for c in node.children if not isinstance(c, Token))

    def stmt(self, node: Tree | Token) -> P.Stmt:
        if isinstance(node, Token):  # a bare expression atom cannot be a Token here
            raise error(self.path, self.text, f"unexpected '{node}'", self.span(node))
        sp = self.span(node)
        kind = node.data
        if kind == "decl":
            return self.decl(node)
        if kind in ("if_stmt", "do_stmt"):
            opts = tuple(P.Option(self.seq(o.children[0]), span=self.span(o)) for o in node.children)
            return (P.If if kind == "if_stmt" else P.Do)(opts, span=sp)
        if kind == "atomic_stmt":
            return P.Atomic(self.seq(node.children[0]), span=sp)
        if kind == "assign":
            return P.Assign(str(node.children[0]), self.expr(node.children[1]), span=sp)
        if kind == "incr":
            return P.Incr(str(node.children[0]), 1 if str(node.children[1]) == "++" else -1, span=sp)
        if kind == "printf":
            return P.Printf(span=sp)
        if kind == "labelled":
            return P.Labelled(str(node.children[0])[:-1], self.stmt(node.children[1]), span=sp)
        if kind == "else_stmt":
            return P.Else(span=sp)
        if kind == "skip":
            return P.Skip(span=sp)
        if kind == "condition":
            return P.Condition(self.expr(node.children[0]), span=sp)
        if kind == "goto":
            return P.Goto(str(node.children[0]), span=sp)
        if kind == "assume_stmt":
            return P.AssumeStmt(self.expr(node.children[0]), span=sp)
        if kind == "havoc":
            return P.Havoc(str(node.children[0]), span=sp)
        if kind == "assert_stmt":
            return P.AssertStmt(self.expr(node.children[0]), span=sp)
        raise error(self.path, self.text, f"'{kind}' is not supported", sp)

    def expr(self, node: Tree | Token) -> P.PExpr:
        sp = self.span(node)
        kind = node.data if isinstance(node, Tree) else None
        if kind == "int":
            return P.PInt(value=int(node.children[0]), span=sp)
        if kind == "name":
            return P.PName(name=str(node.children[0]), span=sp)
        if kind == "qualified":
            proc, var = str(node.children[0]).split(":")
            return P.PQualified(proc=proc, var=var, span=sp)
        if kind == "at_label":
            proc, label = str(node.children[0]).split("@")
            return P.PAtLabel(proc=proc, label=label, span=sp)
        if kind == "call":
            return P.PCall(func=str(node.children[0]), arg=self.expr(node.children[1]), span=sp)
        if kind == "unary":
            return P.PUnary(op=str(node.children[0]), arg=self.expr(node.children[1]), span=sp)
        if kind == "binary":
            left, op, right = node.children
            op_text = {"or": "||", "and": "&&"}.get(str(op), str(op))
            return P.PBinary(op=op_text, left=self.expr(left), right=self.expr(right),
                             span=self.span(op))
        raise error(self.path, self.text, "not an expression tactl reads", sp)
