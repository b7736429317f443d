"""Evaluating code along one path of a step (:class:`Thread`): local values concretely, receive
conditions and thresholds symbolically (:class:`Evaluator`), message patterns as the sums of the
receive counts of their matching instances.

Thresholds are rational linear terms with ``⌈⌉``/``⌊⌋``; they are built as sympy expressions
and normalised to integer linear comparisons by thresholds.py — sympy, not ir/linear.py, because
ir/linear.py's terms have integer coefficients and no rounding, and "more than (n + t)/2" needs
both (thresholds.py says how each is removed exactly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Span
from tactl.ir.expr import BoolConst, Expr, conj, disj
from tactl.ir.rta.model import received
from tactl.ir.unknowns import is_unknown
from tactl.util.suggest import did_you_mean

from tactl.passes.alg_to_rta import sets as S
from tactl.passes.alg_to_rta.context import Context, cond_names, fail, span_of
from tactl.passes.alg_to_rta.thresholds import ThresholdError, negate, normalize, symbol


@lru_cache(maxsize=1 << 16)
def _normalized(left: sympy.Expr, op: str, right: sympy.Expr, order: tuple[tuple[str, int], ...]) -> Expr:
    """``normalize`` of a receive condition, remembered: a pure function of its arguments, and
    every location of a large ``.alg`` asks the same few comparisons again (DBFT's locations ask
    thousands of times), and sympy's normalisation is slow."""
    return normalize(left, op, right, _is_received, dict(order))


def _is_received(name: str) -> bool:
    return name.startswith("received(")


@dataclass
class Thread:
    """One path of symbolic execution within a step."""

    pc: int
    state: dict[str, str | bool]
    bindings: dict[str, str] = field(default_factory=dict)
    literals: dict[str, tuple[Expr, bool]] = field(default_factory=dict)  # atom text → (atom, value)
    sends: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    loop_seen: list[tuple] = field(default_factory=list)
    # Lines of taken branch conditions, (line, end of the branch body): they enter ``lines``
    # only if a statement of the body has an effect — a source map names what a step *did*.
    pending: list[tuple[int, int]] = field(default_factory=list)
    effects: int = 0  # statements that changed the state or sent, so far in this step
    pass_start: int = 0  # ``effects`` when the current pass of the event loop began
    # The choices the step made (the rule's mark in the .rta, ir/rta/model.py CHOICE_MARKS): "coin"
    # once it tossed a coin, "oracle" once an oracle gave a value other than the variable's.
    choice: str | None = None
    # Crash models: the states the step passes through, as (kept values, sends, literals, lines
    # so far) — where a process that crashes between two statements stops (crash_steps)
    trail: list[tuple[tuple, int, int, int]] = field(default_factory=list)

    def fork(self) -> "Thread":
        return Thread(self.pc, dict(self.state), dict(self.bindings), dict(self.literals),
                      list(self.sends), list(self.lines), list(self.loop_seen),
                      list(self.pending), self.effects, self.pass_start, self.choice,
                      list(self.trail))

    def mark(self, kept: tuple[str, ...]) -> None:
        """Record the state between two statements (crash models): what the properties read,
        and how much of the step (sends, receive conditions, lines) lies before this point."""
        point = (tuple(self.state.get(c) for c in kept), len(self.sends), len(self.literals),
                 len(self.lines))
        if not self.trail or self.trail[-1][:2] != point[:2]:
            self.trail.append(point)

    def chose(self, oracle: bool, changed: bool) -> None:
        """Record a coin toss or an oracle's output; an oracle that changed the value makes the
        step optional (never forced), which outweighs a coin."""
        if oracle and changed:
            self.choice = "oracle"
        elif not oracle and self.choice is None:
            self.choice = "coin"

    def line(self, span: Span | None) -> None:
        if span is not None and span.line not in self.lines:
            self.lines.append(span.line)

    def taken(self, span: Span | None, body_end: int) -> None:
        if span is not None:
            self.pending.append((span.line, body_end))

    def effect(self, span: Span | None) -> None:
        """A statement changed the state or sent: record it and the conditions it is under."""
        self.effects += 1
        for line, end in self.pending:
            if self.pc < end and line not in self.lines:
                self.lines.append(line)
        self.line(span)


class Evaluator:
    def __init__(self, ctx: Context, allow_unknowns: bool = True) -> None:
        self.ctx = ctx
        self.allow_unknowns = allow_unknowns  # False: a property's parameter condition
        # message name -> where the code first counts several of its instances as one sum
        # (``received (AUX, vals)``, ``(AUX, *)``): checked against the kinds once the rules are
        # known (``check_sums_count_processes``)
        self.sums: dict[str, Span | None] = {}

    def counted(self, p: A.Pattern, th: Thread, span: Span | None) -> sympy.Expr:
        """The received count a pattern stands for: the sum of its matching instances."""
        names = self.matching(p, th)
        if len(names) > 1:
            self.sums.setdefault(p.name, span)
        return sum((symbol(received(m).name) for m in names), sympy.Integer(0))

    # ---- values (local) ----
    def value(self, t, th: Thread) -> str:
        if isinstance(t, A.Num):
            return str(t.value)
        if isinstance(t, A.Const):
            return t.value
        if isinstance(t, A.Ref):
            if t.name in th.bindings:
                return th.bindings[t.name]
            if t.name in self.ctx.variables or t.name in (A.DECIDED, A.COORDINATOR):
                v = th.state.get(t.name)
                if v is None:
                    raise fail(f"'{t.name}' is read here but has no value on this path",
                               t.span)
                return v  # type: ignore[return-value]
            if t.name in self.ctx.symbols:
                return t.name
            if t.name in self.ctx.parameters:
                raise fail(f"'{t.name}' is a parameter: a process variable or value must stand "
                           "here (variables range over finite domains)", t.span)
            raise fail(f"unknown name '{t.name}' (variables: "
                       f"{', '.join(self.ctx.variables) or 'none'})"
                       + did_you_mean(t.name, [*self.ctx.variables, *self.ctx.parameters]), t.span)
        if isinstance(t, A.UnknownRef):
            raise fail(f"the unknown '{t.name}' stands here outside a threshold: unknowns are "
                       "coefficients of thresholds ('received M from ?a * n processes') and of "
                       "the resilience condition only, not values of variables or messages",
                       t.span)
        if isinstance(t, A.NotValue):
            v = self.value(t.arg, th)
            if v not in A.BOOL:
                raise fail("'not' needs a Boolean value", t.span)
            return A.FALSE if v == A.TRUE else A.TRUE
        if S.is_set_term(t):
            return S.value(self, t, th)
        raise fail("a value (variable, placeholder or constant) must stand here", span_of(t))

    def is_local(self, t, th: Thread) -> bool:
        if isinstance(t, A.Ref):
            return (t.name in th.bindings or t.name in self.ctx.variables or t.name == A.DECIDED
                    or t.name in self.ctx.symbols or t.name == A.COORDINATOR)
        return isinstance(t, (A.Const, A.NotValue)) or S.is_set_term(t)

    # ---- arithmetic (symbolic) ----
    def arith(self, t, th: Thread) -> sympy.Expr:
        if isinstance(t, A.Num):
            return sympy.Integer(t.value)
        if isinstance(t, A.Ref):
            if t.name in self.ctx.parameters:
                return symbol(t.name)
            if self.is_local(t, th):
                raise fail(f"'{t.name}' is a process variable or value: thresholds are linear "
                           "terms over parameters and received counts", t.span)
            raise fail(f"unknown name '{t.name}' (parameters: {', '.join(self.ctx.parameters)})"
                       + did_you_mean(t.name, self.ctx.parameters), t.span)
        if isinstance(t, A.Count):
            return self.counted(t.pattern, th, t.span)
        if isinstance(t, A.UnknownRef):
            return self.unknown(t)
        if isinstance(t, A.Arith):
            args = [self.arith(a, th) for a in t.args]
            if t.op == "neg":
                return -args[0]
            if t.op == "+":
                return args[0] + args[1]
            if t.op == "-":
                return args[0] - args[1]
            if t.op == "*":
                return args[0] * args[1]
            if t.op == "/":
                if any(is_unknown(x.name) for x in args[1].free_symbols):
                    raise fail("an unknown cannot divide: write the unknown as a coefficient "
                               "(e.g. '?a * n'), so that the threshold is linear once it is "
                               "fixed", span_of(t.args[1]) or t.span)
                if not args[1].is_number:
                    raise fail("division by a non-constant: thresholds are linear", t.span)
                if args[1] == 0:
                    raise fail("division by zero", t.span)
                return args[0] / args[1]
        if isinstance(t, A.Rounding):
            inner = self.arith(t.arg, th)
            return sympy.ceiling(inner) if t.kind == "ceil" else sympy.floor(inner)
        raise fail("a number, parameter or received count must stand here", span_of(t))

    def unknown(self, t: A.UnknownRef) -> sympy.Expr:
        """An unknown coefficient: declared by ``unknowns``, allowed where the caller reads a
        threshold or the resilience condition (``allow_unknowns``)."""
        if t.name not in self.ctx.unknowns:
            declared = ", ".join(self.ctx.unknowns) or "none"
            raise fail(f"the unknown '{t.name}' is not declared: add it to the 'unknowns' line "
                       f"with its range, e.g. 'unknowns {t.name} in 0..3' (declared: {declared})"
                       + did_you_mean(t.name, self.ctx.unknowns), t.span)
        if not self.allow_unknowns:
            raise fail(f"the unknown '{t.name}' stands here outside a threshold: unknowns are "
                       "coefficients of thresholds ('received M from ?a * n processes') and of the "
                       "resilience condition only", t.span)
        return symbol(t.name)

    def compare(self, left: sympy.Expr, op: str, right: sympy.Expr, span) -> Expr:
        try:
            return _normalized(left, op, right, tuple(self.ctx.order().items()))
        except ThresholdError as e:
            raise fail(str(e), span) from None

    # ---- message patterns ----
    def matching(self, p: A.Pattern, th: Thread) -> list[str]:
        candidates = [t for t in self.ctx.types if t.base == p.name]
        if not candidates:
            raise fail(f"unknown message '{p.name}' (messages: "
                       f"{', '.join(sorted({t.base for t in self.ctx.types})) or 'none'})"
                       + did_you_mean(p.name, {t.base for t in self.ctx.types}), p.span)
        if p.parts is None or p.parts == (A.WILDCARD,):
            return [t.name for t in candidates]
        wanted = [x if isinstance(x, str) else self.value(x, th) for x in p.parts]
        out = [t.name for t in candidates if len(t.payload) == len(wanted) and all(
            w == A.WILDCARD or S.match_payload(w, v) for w, v in zip(wanted, t.payload))]
        return out

    def send_type(self, p: A.Pattern, th: Thread) -> str:
        if p.parts is not None and A.WILDCARD in p.parts:
            raise fail("'*' stands for any payload when counting received messages; a send "
                       "names one message", p.span)
        names = self.matching(p, th)
        S.check_send(self, p, th)
        if len(names) != 1:
            shapes = ", ".join(_shape_text(s) for s in self.ctx.alg.messages if s.name == p.name)
            wanted = [x if isinstance(x, str) else self.value(x, th) for x in (p.parts or ())]
            raise fail(f"payload outside its domain: ({', '.join([p.name, *wanted])}) is not a "
                       f"declared message ({shapes})", p.span)
        return names[0]

    # ---- conditions (symbolic over received counts, concrete over locals) ----
    def cond(self, c, th: Thread) -> Expr:
        if isinstance(c, A.BoolOp):
            parts = [self.cond(a, th) for a in c.args]
            return conj(*parts) if c.op == "and" else disj(*parts)
        if isinstance(c, A.NotCond):
            return negate(self.cond(c.arg, th))
        if isinstance(c, A.Member):
            return BoolConst(S.member(self, c, th))
        if isinstance(c, A.Received):
            count = self.counted(c.pattern, th, c.span)
            if count == 0:
                return self.compare(sympy.Integer(0), c.op, self.arith(c.amount, th), c.span)
            return self.compare(count, c.op, self.arith(c.amount, th), c.span)
        if isinstance(c, A.Compare):
            parts = []
            for (op, a, b) in zip(c.ops, c.terms, c.terms[1:]):
                if isinstance(a, A.Card) != isinstance(b, A.Card) and not (
                        self.is_local(a, th) and self.is_local(b, th)) and not isinstance(
                        a if isinstance(b, A.Card) else b, A.Num):
                    # |S| against a linear term over the parameters: a constant in a threshold
                    x, y = (sympy.Integer(int(self.value(u, th))) if isinstance(u, A.Card)
                            else self.arith(u, th) for u in (a, b))
                    parts.append(self.compare(x, op, y, c.span))
                    continue
                if self.is_local(a, th) or self.is_local(b, th):
                    local = S.local_compare(op, a, b, self.value(a, th), self.value(b, th), c.span)
                    if local is not None:
                        parts.append(BoolConst(local))
                        continue
                    if op not in ("==", "!="):
                        raise fail("process variables are compared with == and != only (their "
                                   "values are finite domains)", c.span)
                    va, vb = self.value(a, th), self.value(b, th)
                    parts.append(BoolConst((va == vb) == (op == "==")))
                else:
                    parts.append(self.compare(self.arith(a, th), op, self.arith(b, th), c.span))
            return conj(*parts)
        if isinstance(c, A.Const) and c.value in A.BOOL:
            return BoolConst(c.value == A.TRUE)
        if isinstance(c, A.Ref) and self.is_local(c, th):
            v = self.value(c, th)
            if v not in A.BOOL:
                raise fail(f"'{c.name}' is not Boolean: compare it, e.g. '{c.name} == 1'", c.span)
            return BoolConst(v == A.TRUE)
        raise fail("a condition must stand here (a comparison, 'received M from K processes', "
                   "a Boolean variable, and/or/not)", span_of(c))


def _shape_text(s: A.MessageShape) -> str:
    if not s.parts:
        return s.name
    parts = ["{" + ", ".join(p) + "}" if not tag else p[0] for p, tag in zip(s.parts, s.tags)]
    return f"({', '.join([s.name, *parts])})"


def chain_exprs(ctx: Context, chain: A.Compare, bindings, count=None,
                locations: set[str] = frozenset(), unknowns: bool = False) -> list[Expr]:
    """A comparison chain over parameters (the resilience condition, a property's parameter
    condition) and, in properties, ``count (P)`` terms: sums of location counters (``count``).
    ``unknowns``: the chain may use unknown coefficients (the resilience condition)."""
    ev = Evaluator(ctx, allow_unknowns=unknowns)
    th = Thread(0, {}, dict(bindings))

    def arith(t) -> sympy.Expr:
        if isinstance(t, A.CountPred):
            if count is None:
                raise fail("'count (P)' counts processes: it belongs in properties", t.span)
            return count(t)
        if isinstance(t, A.Arith) and any(isinstance(x, A.CountPred) for x in A.walk(t)):
            args = [arith(a) for a in t.args]
            return {"neg": lambda: -args[0], "+": lambda: args[0] + args[1],
                    "-": lambda: args[0] - args[1], "*": lambda: args[0] * args[1],
                    "/": lambda: args[0] / args[1]}[t.op]()
        for n in cond_names(t):
            if n not in ctx.parameters:
                raise fail(f"'{n}' is not a parameter (parameters: {', '.join(ctx.parameters)}); "
                           "conditions on processes are written 'some P', 'all P', 'no P', or "
                           "with 'count (P)'", t.span or chain.span)
        return ev.arith(t, th)

    out = []
    for op, a, b in zip(chain.ops, chain.terms, chain.terms[1:]):
        try:
            out.append(normalize(arith(a), op, arith(b), lambda n: n in locations, ctx.order()))
        except ThresholdError as e:
            raise fail(str(e), chain.span) from None
    return out
