"""Reader for ByMC ``.ta`` files: text → :class:`ThresholdAutomaton`, or an :class:`InputError`.

Two stages with one error type. :func:`parse_ta` checks syntax and the sort of each expression
(a term where a number is meant, a formula where a truth value is meant); :func:`read_ta` adds the
semantic checks of :mod:`ir.validate` (unknown names, non-linear terms, non-monotone updates) and
returns the automaton with its warnings. Whatever the input, nothing but ``InputError`` escapes.
"""

from __future__ import annotations

import gc
import re
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

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
    is_arith,
    summation,
    to_text,
)
from tactl.ir.limits import MAX_DIGITS
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.source import label, read_text
from tactl.ir.ta.model import Define, Location, Property, Rule, ThresholdAutomaton, Update
from tactl.ir.ta.validate import MAX_NESTING, divisor_problem, validate


def grammar_text(package: str, name: str) -> str:
    """The shared expression rules (``ir/expr.lark``) followed by the grammar ``name`` of the
    dialect ``package`` (e.g. ``"tactl.ir.ta"``, ``"ta.lark"``), which may ``%extend`` them."""
    shared = resources.files("tactl.ir").joinpath("expr.lark").read_text(encoding="utf-8")
    return shared + "\n" + resources.files(package).joinpath(name).read_text(encoding="utf-8")


# What TACO's extended threshold automata (.eta) add to the .ta grammar (overrides of its rules).
ETA_GRAMMAR = "eta.lark"


@cache
def _parser(extension: str | None = None) -> Lark:
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


class SortError(Exception):
    """An expression of the wrong sort (a term where a condition belongs, or the reverse) or an
    arithmetic the automata cannot hold, at its position: the .rta reader raises it too."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.span = message, span


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


def _term(e: Expr) -> Expr:
    if not is_arith(e):
        raise SortError(f"expected a number-valued term, found the formula '{to_text(e)}'", e.span)
    return e


def as_formula(e: Expr) -> Expr:
    """A truth value; the literals 1 and 0 are read as true and false (ByMC writes guards `(1)`)."""
    if isinstance(e, IntConst) and e.value in (0, 1):
        return BoolConst(e.value == 1, span=e.span)
    if is_arith(e):
        raise SortError(f"expected a condition, found the term '{to_text(e)}' "
                         "(compare it with something, e.g. '>= 1')", e.span)
    return e


def _divisor(e: Expr) -> Expr:
    """``e`` if it folds to a positive integer: a division stays exact linear arithmetic only
    when it divides by a constant (``passes/ta_to_ta/lower_division.py``), and a divisor of 0 or
    less has no floor semantics worth guessing."""
    message = divisor_problem(e)
    if message:
        raise SortError(message, e.span)
    return e



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
        return Neg(_term(ch[-1]), span=span_of(ch))

    def sum(self, ch):
        rest = [(str(op), _term(arg)) for op, arg in zip(ch[1::2], ch[2::2])]
        return summation(_term(ch[0]), rest, span_of(ch))

    # Whether '/' (integer division by a positive constant) is read; the .ta reader admits it
    # (ByMC files write thresholds as `(N + T) / 2`), a format whose passes cannot eliminate it
    # (.rta) keeps refusing it.
    DIVISION = False

    def product(self, ch):
        result = _term(ch[0])
        for op, arg in zip(ch[1::2], ch[2::2]):
            span = span_of([result, arg])
            if op == "/" and self.DIVISION:
                result = Div(result, _divisor(_term(arg)), span=span)
                continue
            if op == "/":
                raise SortError("division is not linear integer arithmetic: multiply the other side "
                                 "instead (write '2 * x >= N + T' for 'x >= (N + T) / 2')", span)
            if op == "%":
                raise SortError("'%' is not supported in threshold automata (linear integer "
                                 "arithmetic)", span)
            result = Mul(result, _term(arg), span=span)
        return result

    def compare(self, ch):
        op = "!=" if ch[1] == "=!" else str(ch[1])  # TACO's other spelling (ir/ta/eta.lark)
        return Compare(op, _term(ch[0]), _term(ch[2]), span=span_of(ch))

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


@dataclass(frozen=True, slots=True)
class _Unchanged:
    """An update that came from ``unchanged(x)`` (not ``x' == x``): only those get ByMC's
    lenient reading below; two written assignments to one variable stay an error."""

    update: Update


# Warnings found while building the IR (parse_ta collects them; the transformer runs inside the
# parser, so they cannot be returned through it).
_reader_warnings: ContextVar[list[Diagnostic] | None] = ContextVar("_reader_warnings", default=None)


def _warn(message: str, span: Span | None) -> None:
    sink = _reader_warnings.get()
    if sink is not None:
        sink.append(Diagnostic(Severity.WARNING, message, span))


def _merge_unchanged(rule_id: int, guard: Expr, actions: list) -> tuple[Expr, tuple[Update, ...]]:
    """A rule's guard and updates with ``unchanged(…)`` read as ByMC reads it.

    ByMC (``bymc/src/taIr.ml``: a rule's ``actions`` is a list of ``(variable, expression)``
    pairs; ``bymc/src/taIrBridge.ml``: each becomes the constraint ``x' == e``;
    ``bymc/src/porBounds.ml``, ``does_r_affect_t``: a rule's post-condition is the *conjunction*
    ``list_to_binex AND`` of those constraints) never rejects a repeated variable:

    - ``unchanged(x)`` twice (or ``x' == x`` and ``unchanged(x)``) conjoins ``x' == x`` with
      itself: the same as once. tactl keeps one and warns.
    - ``x' == e`` and ``unchanged(x)`` conjoin ``x' == e && x' == x``: the rule can fire only in
      a configuration where ``x == e`` already holds, and then ``x`` keeps its value (never, for
      ``x' == x + 1``). tactl reads exactly that: the guard gets ``&& x == e`` and the update is
      ``unchanged(x)``; it warns, since the author most likely meant one or the other.

    The result re-prints as a rule with one update per variable, which re-reads to itself.
    """
    if not any(isinstance(a, _Unchanged) for a in actions):
        return guard, tuple(actions)
    assigned: dict[str, Update] = {}
    for a in actions:
        if isinstance(a, Update):
            assigned.setdefault(a.var, a)  # a second assignment stays (the validator's error)
    listed: dict[str, Update] = {}
    conditions: list[Expr] = []
    kept: list[Update] = []
    dropped: set[int] = set()  # ids of assignments replaced by an unchanged(x)
    for a in actions:
        if not isinstance(a, _Unchanged):
            continue
        u = a.update
        first = listed.get(u.var)
        if first is not None:
            at = f" (first at {first.span.line}:{first.span.col})" if first.span else ""
            _warn(f"'{u.var}' is listed as unchanged again in rule {rule_id}{at}; ByMC reads a "
                  "rule's updates as one conjunction, so the repetition changes nothing and is "
                  "dropped", u.span)
            continue
        listed[u.var] = u
        other = assigned.get(u.var)
        if other is not None and id(other) not in dropped:
            dropped.add(id(other))
            if other.is_identity:
                _warn(f"'{u.var}' is both listed as unchanged and assigned {u.var}' == "
                      f"{to_text(other.expr)} in rule {rule_id}: the same update, kept once", u.span)
            else:
                condition = Compare("==", Name(u.var, span=u.span), other.expr, span=u.span)
                conditions.append(condition)
                never = " (never, here)" if _never_equal(u.var, other.expr) else ""
                _warn(f"'{u.var}' is both updated ({u.var}' == {to_text(other.expr)}) and listed as "
                      f"unchanged in rule {rule_id}; ByMC conjoins a rule's updates, so the rule "
                      f"fires only where {to_text(condition)} holds before the step{never}, and "
                      f"'{u.var}' keeps its value: tactl reads it so (the guard gets "
                      f"'&& {to_text(condition)}')", u.span)
        kept.append(u)
    changes = [a for a in actions if isinstance(a, Update) and id(a) not in dropped]
    new_guard = conj(guard, *conditions, span=guard.span) if conditions else guard
    return new_guard, tuple(changes + kept)


def _never_equal(var: str, e: Expr) -> bool:
    """True if ``var == e`` is false whatever the values (``e`` is ``var`` plus a non-zero
    constant), as far as the linear form of the text as written tells."""
    try:
        diff = linearize(e) - linearize(Name(var))
    except (NonLinearError, TypeError):
        return False
    return diff.is_constant and diff.const != 0


class _Build(ExprBuild):
    """Parse tree → IR nodes, bottom-up, checking expression sorts on the way."""

    DIVISION = True

    def decl(self, ch):
        kind = {"local": "locals", "locals": "locals", "shared": "shared",
                "parameters": "parameters", "unknowns": "unknowns"}[str(ch[0])]
        return ("decl", kind, [(str(t), token_span(t)) for t in ch[1:]])

    def define(self, ch):
        return ("define", Define(str(ch[0]), _term(ch[1]), span=token_span(ch[0])))

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
        return [Update(_text(ch[0]), _term(ch[1]), span=span_of(ch))]

    def unchanged(self, ch):
        return [_Unchanged(Update(name, Name(name, span=span), span=span))
                for name, span in ((_text(t), token_span(t)) for t in ch)]

    def reset(self, ch):
        return [Update(name, IntConst(0, span=span), span=span)
                for name, span in ((_text(t), token_span(t)) for t in ch)]

    def rule(self, ch):
        rid, src, dst, guard, *acts = ch
        guard, updates = _merge_unchanged(int(rid), as_formula(guard), [u for group in acts for u in group])
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
        parts: dict[str, list] = {k: [] for k in (
            "locals", "shared", "parameters", "unknowns", "define", "assumptions",
            "locations", "inits", "rules", "properties")}
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
        return ThresholdAutomaton(
            name=name, locals=tuple(parts["locals"]), shared=tuple(parts["shared"]),
            parameters=tuple(parts["parameters"]), unknowns=tuple(parts["unknowns"]),
            defines=tuple(parts["define"]), assumptions=tuple(parts["assumptions"]),
            locations=tuple(parts["locations"]), inits=tuple(parts["inits"]),
            rules=tuple(parts["rules"]), properties=tuple(parts["properties"]),
            timing=timing, declared_at=tuple(declared_at))


# ------------------------------------------------------------------------------------ entry points


def parse_ta(text: str, path: str = "<input>") -> ThresholdAutomaton:
    """Syntax and expression sorts only; raises :class:`InputError` with a position."""
    return parse_ta_with_warnings(text, path)[0]


def parse_ta_with_warnings(text: str, path: str = "<input>",
                           extended: bool = False) -> tuple[ThresholdAutomaton, list[Diagnostic]]:
    """:func:`parse_ta` and the warnings of reading (e.g. a repeated ``unchanged(x)``);
    ``extended``: the text is TACO's extended format (.eta)."""
    warnings: list[Diagnostic] = []
    token = _reader_warnings.set(warnings)
    try:
        with _collector_paused():
            ta = run_parser(_parser(ETA_GRAMMAR if extended else None), text, path)
    finally:
        _reader_warnings.reset(token)
    check_nesting(ta.expressions(), path, text)
    return ta, warnings


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
