"""Eliminate integer division from a threshold automaton, exactly, before any engine sees it.

ByMC files write thresholds with ``/`` (``x >= (N + T) / 2 + 1``); tactl reads it as floor
division by a positive constant (``ir.expr.Div``, where ByMC's own rounding is discussed). The
checkers work in linear integer arithmetic over natural parameters, so this pass rewrites every
division into linear constraints that mean the same — never a rounded approximation:

- A division ``e / c`` whose (macro-expanded) dividend mentions only parameters, unknowns and
  constants becomes a fresh parameter ``q`` with the resilience-condition assumptions
  ``c * q <= e`` and ``e <= c * q + c - 1``: for every valuation of the other parameters they
  have exactly one solution, ``q = floor(e / c)``. Equal dividends (as linear forms: ``(N + T)
  / 2`` and ``(T + N) / 2``) share one ``q``. The engines take every parameter to be a natural
  number, so the pass first proves with z3 that the resilience condition keeps ``e >= 0`` (else
  the valuations with a negative quotient would silently vanish) and refuses the automaton if it
  cannot.
- A division whose dividend mentions shared variables or location counters cannot become a
  parameter; inside a comparison where it is the only division and has coefficient +1 or -1 it
  is rewritten by the floor identities (``D = floor(e / c)``, ``k`` any integer term):
  ``D >= k`` iff ``e >= c * k`` and ``D <= k`` iff ``e <= c * k + c - 1`` (``==``, ``!=``,
  ``<``, ``>`` follow). Anything else raises :class:`DivisionNotSupported`.

An automaton without division comes back as the very same object. The result passes
``ir.validate`` like any automaton read from a file (else :class:`DivisionNotSupported`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tactl.ir.errors import Severity, Span
from tactl.ir.expr import (
    BoolConst,
    Compare,
    Div,
    Expr,
    IntConst,
    Mul,
    Name,
    conj,
    const,
    constant_value,
    disj,
    to_text,
    transform,
    walk,
)
from tactl.ir.linear import LinearTerm, NonLinearError, int_symbols, linearize, term_expr, to_z3
from tactl.ir.names import MAX_LENGTH, identifier_problem
from tactl.ir.ta.model import Rule, SymbolKind, ThresholdAutomaton
from tactl.ir.ta.validate import validate


class DivisionNotSupported(ValueError):
    """A division this pass cannot eliminate exactly; the caller reports the automaton
    unsupported (its message names the division and where it is)."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.span = span


@dataclass(frozen=True)
class Quotient:
    """A fresh parameter ``name`` standing for ``floor(dividend / divisor)``."""

    name: str
    dividend: Expr  # macro-expanded, parameters and constants only
    divisor: int
    span: Span | None = field(default=None, compare=False)

    def constraints(self) -> tuple[Expr, Expr]:
        """``c * q <= e`` and ``e <= c * q + c - 1``: together exactly ``q == floor(e / c)``."""
        q = Name(self.name, span=self.span)
        scaled: Expr = q if self.divisor == 1 else Mul(IntConst(self.divisor), q)
        upper = scaled if self.divisor == 1 else term_expr(((self.name, self.divisor),), self.divisor - 1)
        return (Compare("<=", scaled, self.dividend, span=self.span),
                Compare("<=", self.dividend, upper, span=self.span))


@dataclass(frozen=True)
class Lowered:
    """The linear automaton, and what the lowering introduced (for reports and tests)."""

    ta: ThresholdAutomaton
    quotients: tuple[Quotient, ...] = ()
    rewritten_comparisons: int = 0  # comparisons over counters/shared variables rewritten in place

    @property
    def changed(self) -> bool:
        return bool(self.quotients or self.rewritten_comparisons)


def lower_division(ta: ThresholdAutomaton) -> ThresholdAutomaton:
    """``ta`` without divisions (the same object if it has none); see :func:`lower`."""
    return lower(ta).ta


def has_division(ta: ThresholdAutomaton) -> bool:
    """True if ``/`` occurs anywhere in ``ta`` (macro bodies included)."""
    return any(isinstance(n, Div) for e in ta.expressions() for n in walk(e))


def lower(ta: ThresholdAutomaton) -> Lowered:
    """Eliminate every division of ``ta``; raises :class:`DivisionNotSupported`."""
    if not has_division(ta):
        return Lowered(ta)
    return _Lowering(ta).run()


# The placeholder of the division being rewritten in a comparison: not an identifier, so it
# collides with no name of the automaton.
_PLACEHOLDER = "<division>"


class _Lowering:
    def __init__(self, ta: ThresholdAutomaton) -> None:
        self.ta = ta
        self.parameter_like = {n for n, k in ta.symbols.items()
                               if k in (SymbolKind.PARAMETER, SymbolKind.UNKNOWN)}
        self.taken = set(ta.symbols)
        self.quotients: dict[object, Quotient] = {}
        self.rewritten = 0
        self.dividing_macros = self._dividing_macros()

    def _dividing_macros(self) -> set[str]:
        """Macros whose expansion contains a division (from the macro graph, no expansion)."""
        raw = {d.name: d.expr for d in self.ta.defines}
        found: set[str] = set()
        for m in self.ta.macro_order:  # a macro after those its body uses
            if any(isinstance(n, Div) for n in walk(raw[m])) or any(r in found for r in self.ta.macro_refs[m]):
                found.add(m)
        return found

    # ------------------------------------------------------------------------------- driver
    def run(self) -> Lowered:
        ta = self.ta
        rules = tuple(self._rule(r) for r in ta.rules)
        assumptions = tuple(self._slot(e, "the resilience condition") for e in ta.assumptions)
        inits = tuple(self._slot(e, "the initial constraints") for e in ta.inits)
        properties = tuple(replace(p, formula=self._slot(p.formula, f"property '{p.name}'"))
                           for p in ta.properties)
        quotients = tuple(self.quotients.values())
        self._check_non_negative(quotients)
        defines = tuple(d for d in ta.defines if d.name not in self.dividing_macros)
        lowered = replace(
            ta,
            parameters=ta.parameters + tuple(q.name for q in quotients),
            defines=defines,
            assumptions=assumptions + tuple(c for q in quotients for c in q.constraints()),
            inits=inits, rules=rules, properties=properties,
            declared_at=ta.declared_at + tuple((q.name, q.span) for q in quotients) if ta.declared_at else (),
        )
        _check_valid(lowered)
        return Lowered(lowered, quotients, self.rewritten)

    def _rule(self, r: Rule) -> Rule:
        guard = self._slot(r.guard, f"the guard of rule {r.id}")
        updates = tuple(replace(u, expr=self._slot(u.expr, f"an update of rule {r.id}"))
                        for u in r.updates)
        if guard is r.guard and all(a is b for a, b in zip(updates, r.updates)):
            return r
        return replace(r, guard=guard, updates=updates)

    def _slot(self, e: Expr, where: str) -> Expr:
        """``e`` itself if its expansion has no division; else the expansion, lowered."""
        uses = any(isinstance(n, Div) or (isinstance(n, Name) and n.name in self.dividing_macros)
                   for n in walk(e))
        if not uses:
            return e
        expanded = self.ta.expand(e)
        with_quotients = transform(expanded, self._quotient)
        return transform(with_quotients, lambda n: self._comparison(n, where))

    # ------------------------------------------------------- divisions of parameters only
    def _quotient(self, node: Expr) -> Expr | None:
        if not isinstance(node, Div):
            return None
        dividend = transform(node.left, self._quotient)  # inner divisions first
        divisor = constant_value(node.right)
        assert divisor is not None and divisor > 0, "the readers admit positive constant divisors only"
        if not all(n.name in self.parameter_like for n in walk(dividend) if isinstance(n, Name)):
            return Div(dividend, node.right, span=node.span)  # over counters: see _comparison
        try:
            key: object = (linearize(dividend), divisor)
        except (NonLinearError, TypeError):  # e.g. a product with a synthesis unknown
            key = (to_text(dividend), divisor)
        q = self.quotients.get(key)
        if q is None:
            q = Quotient(self._fresh_name(dividend, divisor), dividend, divisor, span=node.span)
            self.quotients[key] = q
        return Name(q.name, span=node.span)

    def _fresh_name(self, dividend: Expr, divisor: int) -> str:
        """A readable identifier, e.g. ``q_N_plus_T_div2``, clashing with no name in use."""
        text = to_text(dividend)
        for symbol, word in (("+", "_plus_"), ("-", "_minus_"), ("*", "_times_"), ("/", "_div_")):
            text = text.replace(symbol, word)
        body = re.sub(r"[^A-Za-z0-9_]+", "_", text)
        body = re.sub(r"_+", "_", body).strip("_")[:60].rstrip("_")
        base = f"q_{body}_div{divisor}" if body else f"q_div{divisor}"
        name, n = base, 1
        while name in self.taken or identifier_problem(name):
            n += 1
            name = f"{base[:MAX_LENGTH - 10]}_{n}"
        self.taken.add(name)
        return name

    def _check_non_negative(self, quotients: tuple[Quotient, ...]) -> None:
        """Prove that the resilience condition keeps every dividend ``>= 0`` (parameters are
        natural numbers): the engines take the new parameter ``q`` to be one too."""
        if not quotients:
            return
        import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

        sym = int_symbols()
        solver = z3.SimpleSolver()
        solver.set("timeout", 30_000)
        try:
            for a in self.ta.assumptions:
                solver.add(to_z3(self.ta.expand(a), sym))
            solver.add(*(sym(p) >= 0 for p in self.ta.parameters))
            for q in quotients:
                answer = solver.check(to_z3(q.dividend, sym) < 0)
                if answer == z3.unsat:
                    continue
                example = ""
                if answer == z3.sat:
                    m = solver.model()
                    values = [f"{p}={m.eval(sym(p), model_completion=True)}"
                              for p in self.ta.parameters if any(isinstance(n, Name) and n.name == p
                                                                 for n in walk(q.dividend))]
                    example = f" (e.g. {', '.join(values)})" if values else ""
                raise DivisionNotSupported(
                    f"the dividend of '({to_text(q.dividend)}) / {q.divisor}' can be negative under "
                    f"the resilience condition{example}: tactl replaces the division by a parameter, "
                    "and parameters are natural numbers; add an assumption such as "
                    f"'{to_text(q.dividend)} >= 0'", q.span)
        except (NonLinearError, TypeError) as e:
            raise DivisionNotSupported(f"cannot decide whether the dividends of the divisions are "
                                       f"non-negative: {e}") from None

    # --------------------------------------------------- divisions over counters/shared vars
    def _comparison(self, node: Expr, where: str) -> Expr | None:
        if isinstance(node, Div):  # a division outside any comparison that holds it
            raise DivisionNotSupported(
                f"the division '{to_text(node)}' in {where} divides a term over shared variables or "
                "location counters outside a comparison: tactl eliminates such a division only in a "
                "comparison such as 'x >= (y + 1) / 2'", node.span)
        if not isinstance(node, Compare) or not any(isinstance(n, Div) for n in walk(node)):
            return None
        divisions = {n for n in walk(node) if isinstance(n, Div)}
        if len(divisions) != 1:
            raise DivisionNotSupported(
                f"the comparison '{to_text(node)}' in {where} has {len(divisions)} different "
                "divisions over shared variables or location counters: tactl eliminates one per "
                "comparison", node.span)
        (d,) = divisions
        divisor = constant_value(d.right)
        assert divisor is not None and divisor > 0
        try:
            marked = transform(node, lambda n: Name(_PLACEHOLDER) if isinstance(n, Div) and n == d else None)
            diff = linearize(marked.left) - linearize(marked.right)  # type: ignore[attr-defined]
            dividend = linearize(d.left)
        except (NonLinearError, TypeError) as e:
            raise DivisionNotSupported(f"the comparison '{to_text(node)}' in {where} is not linear "
                                       f"around its division: {e}", node.span) from None
        sign = diff.coeff_map.get(_PLACEHOLDER, 0)
        if sign not in (1, -1):
            raise DivisionNotSupported(
                f"the division '{to_text(d)}' has coefficient {sign} in '{to_text(node)}' ({where}): "
                "tactl eliminates a division over shared variables or location counters exactly only "
                "where it appears once, with coefficient 1 or -1", node.span)
        rest = LinearTerm.of({x: a for x, a in diff.coeffs if x != _PLACEHOLDER}, diff.const)
        self.rewritten += 1
        return _floor_comparison(node.op, sign, rest, dividend, divisor, node.span)


def _floor_comparison(op: str, sign: int, rest: LinearTerm, dividend: LinearTerm, c: int,
                      span: Span | None) -> Expr:
    """``sign * floor(dividend / c) + rest  op  0`` as linear comparisons without division.

    With ``D = floor(e / c)`` and an integer ``k``: ``D >= k`` iff ``e >= c * k``, and ``D <= k``
    iff ``e <= c * k + c - 1``. Every operator is reduced to ``>= 0`` over ``±D + R``.
    """

    def at_least_zero(s: int, r: LinearTerm) -> Expr:  # s * D + r >= 0
        if s == 1:  # D >= -r  iff  e + c * r >= 0
            return _ge_zero(dividend + r.scale(c), span)
        # D <= r  iff  c * r + c - 1 - e >= 0
        return _ge_zero(r.scale(c) - dividend + LinearTerm((), c - 1), span)

    one = LinearTerm((), 1)
    if op == ">=":
        return at_least_zero(sign, rest)
    if op == ">":
        return at_least_zero(sign, rest - one)
    if op == "<=":
        return at_least_zero(-sign, -rest)
    if op == "<":
        return at_least_zero(-sign, -rest - one)
    if op == "==":
        return conj(at_least_zero(sign, rest), at_least_zero(-sign, -rest), span=span)
    if op == "!=":
        return disj(at_least_zero(sign, rest - one), at_least_zero(-sign, -rest - one), span=span)
    raise ValueError(f"not a comparison operator: {op!r}")


def _ge_zero(t: LinearTerm, span: Span | None) -> Expr:
    """``t >= 0`` written ``Σ a·x >= -const``."""
    if t.is_constant:
        return BoolConst(t.const >= 0, span=span)
    return Compare(">=", term_expr(t.coeffs), const(-t.const), span=span)


def _check_valid(ta: ThresholdAutomaton) -> None:
    """The lowered automaton must pass the validation of an automaton read from a file."""
    errors = [d for d in validate(ta) if d.severity is Severity.ERROR]
    if errors:
        raise DivisionNotSupported("the automaton without divisions is not valid ("
                                   + "; ".join(d.message for d in errors[:3]) + ")",
                                   errors[0].span)

