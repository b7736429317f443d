"""Semantic checks of a threshold automaton, reported as positioned diagnostics.

Errors make the file meaningless (an unknown location, a product of two variables, an update of a
parameter); warnings leave it readable but flag what later passes must know: a rule id used twice
(both rules are kept) or an update that is not ``x' == x + c`` with ``c >= 0`` (the automaton is
then outside the monotone class that parameterized checking needs).

Where a name may appear is fixed by what each part means in the counter system: guards and
update right-hand sides read shared variables and parameters; the resilience condition reads
parameters; ``inits`` and specifications may also read location counters. ``unknowns`` (ByMC's
synthesis coefficients) may appear wherever parameters may, and a product with an unknown factor
(``a1 * N``) is accepted because it is linear once the unknowns are fixed.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from .errors import Diagnostic, DiagnosticSink, Span
from .expr import Always, Eventually, Expr, Mul, Name, to_text, walk
from .linear import NonLinearError, linearize
from .ta import Rule, SymbolKind, ThresholdAutomaton, Update

K = SymbolKind
_KIND_NAMES = {K.LOCAL: "local variable", K.SHARED: "shared variable", K.PARAMETER: "parameter",
               K.UNKNOWN: "unknown", K.MACRO: "macro", K.LOCATION: "location"}

GUARD_KINDS = frozenset({K.SHARED, K.PARAMETER, K.UNKNOWN})
RC_KINDS = frozenset({K.PARAMETER, K.UNKNOWN})
INIT_KINDS = frozenset({K.LOCATION, K.SHARED, K.PARAMETER, K.UNKNOWN})
SPEC_KINDS = frozenset({K.LOCATION, K.SHARED, K.PARAMETER, K.UNKNOWN, K.LOCAL})
DEFINE_KINDS = frozenset({K.LOCATION, K.SHARED, K.PARAMETER, K.UNKNOWN, K.MACRO})

_WHY = {
    "a rule guard": "guards read shared variables and parameters",
    "an update": "updates read shared variables and parameters",
    "the resilience condition": "the resilience condition constrains parameters only",
    "the initial constraints": "inits constrain location counters, shared variables and parameters",
    "a specification": "formulas read location counters, shared variables and parameters",
}


def validate(ta: ThresholdAutomaton) -> list[Diagnostic]:
    sink = DiagnosticSink()
    _Checker(ta, sink).run()
    return sink.items


class ExpressionChecks:
    """The walk both validators (.ta and .rta) make over an expression: every name is checked by
    ``name_ref`` against the kinds ``allowed`` in ``context``, temporal operators are refused
    outside specifications, and every product is checked for linearity by ``product``."""

    sink: DiagnosticSink

    def expression(self, e: Expr, allowed, context: str) -> None:
        for node in walk(e):
            if isinstance(node, Name):
                self.name_ref(node, allowed, context)  # type: ignore[attr-defined]
            elif isinstance(node, (Always, Eventually)) and context != "a specification":
                op = "[]" if isinstance(node, Always) else "<>"
                self.sink.error(f"temporal operator '{op}' is only allowed in specifications, "
                                f"not in {context}", node.span)
            elif isinstance(node, Mul):
                self.product(node)  # type: ignore[attr-defined]


class _Checker(ExpressionChecks):
    def __init__(self, ta: ThresholdAutomaton, sink: DiagnosticSink) -> None:
        self.ta, self.sink = ta, sink

    def run(self) -> None:
        self.declarations()
        self.defines()
        for e in self.ta.assumptions:
            self.expression(e, RC_KINDS, "the resilience condition")
        self.locations()
        for e in self.ta.inits:
            self.expression(e, INIT_KINDS, "the initial constraints")
        self.rules()
        self.properties()

    # ---------------------------------------------------------------------------- declarations
    def declarations(self) -> None:
        seen: dict[str, tuple[str, Span | None]] = {}
        kinds = self.ta.symbols

        def claim(name: str, what: str, span: Span | None) -> None:
            if name in seen:
                first_what, first_span = seen[name]
                at = f" at {first_span.line}:{first_span.col}" if first_span else ""
                self.sink.error(f"'{name}' is already declared as a {first_what}{at}", span)
            else:
                seen[name] = (what, span)

        for name, span in self.ta.declared_at:
            claim(name, _KIND_NAMES[kinds[name]], span)
        for d in self.ta.defines:
            claim(d.name, "macro", d.span)
        for loc in self.ta.locations:
            claim(loc.name, "location", loc.span)

    def defines(self) -> None:
        raw = {d.name: d for d in self.ta.defines}
        for d in self.ta.defines:
            self.expression(d.expr, DEFINE_KINDS, "a macro")
            cycle = _macro_cycle(d.name, raw)
            if cycle:
                self.sink.error("macro defined in terms of itself: " + " -> ".join(cycle), d.span)

    # ------------------------------------------------------------------------------- locations
    def locations(self) -> None:
        n_locals = len(self.ta.locals)
        if not self.ta.locations:
            self.sink.warning("the automaton has no locations")
        for loc in self.ta.locations:
            if n_locals and len(loc.values) != n_locals:
                self.sink.warning(f"location '{loc.name}' lists {len(loc.values)} value(s) but "
                                  f"{n_locals} local variable(s) are declared", loc.span)

    # ----------------------------------------------------------------------------------- rules
    def rules(self) -> None:
        first_with_id: dict[int, Rule] = {}
        for index, r in enumerate(self.ta.rules, start=1):
            if r.id in first_with_id:
                first = first_with_id[r.id]
                line = f" (line {first.span.line})" if first.span else ""
                self.sink.warning(f"rule id {r.id} is used again{line}; both rules are kept and "
                                  f"this one is rule #{index} of the file", r.span)
            else:
                first_with_id[r.id] = r
            for loc_name, span in ((r.source, r.source_span), (r.target, r.target_span)):
                self.location_ref(loc_name, span)
            self.expression(r.guard, GUARD_KINDS, "a rule guard")
            self.updates(r)

    def location_ref(self, name: str, span: Span | None) -> None:
        kind = self.ta.symbols.get(name)
        if kind is K.LOCATION:
            return
        if kind is None:
            self.sink.error(f"unknown location '{name}'" + self.suggest(name, {K.LOCATION}), span)
        else:
            self.sink.error(f"'{name}' is a {_KIND_NAMES[kind]}, not a location", span)

    def updates(self, r: Rule) -> None:
        updated: set[str] = set()
        for u in r.updates:
            kind = self.ta.symbols.get(u.var)
            if kind is None:
                self.sink.error(f"unknown variable '{u.var}' in an update"
                                + self.suggest(u.var, {K.SHARED}), u.span)
            elif kind is not K.SHARED:
                self.sink.error(f"only shared variables can be updated; '{u.var}' is a "
                                f"{_KIND_NAMES[kind]}", u.span)
            if u.var in updated:
                self.sink.error(f"'{u.var}' is updated twice in rule {r.id}", u.span)
            updated.add(u.var)
            self.expression(u.expr, GUARD_KINDS, "an update")
            if kind is K.SHARED:
                self.monotone(u)

    def monotone(self, u: Update) -> None:
        try:
            c = Update(u.var, self.ta.expand(u.expr)).increment()
        except NonLinearError:  # reported by expression()
            return
        if c is None or c < 0:
            self.sink.warning(
                f"update {u.var}' == {to_text(u.expr)} is not of the form {u.var}' == {u.var} + c "
                "with a constant c >= 0: shared variables must only grow, so this automaton is "
                "outside the monotone class that parameterized checking handles", u.span)

    # ------------------------------------------------------------------------------ properties
    def properties(self) -> None:
        seen: dict[str, Span | None] = {}
        for p in self.ta.properties:
            if p.name in seen:
                first = seen[p.name]
                at = f" at {first.line}:{first.col}" if first else ""
                self.sink.error(f"property '{p.name}' is already defined{at}", p.span)
            seen.setdefault(p.name, p.span)
            self.expression(p.formula, SPEC_KINDS, "a specification")

    # ----------------------------------------------------------------------------- expressions
    def name_ref(self, n: Name, allowed: frozenset[SymbolKind], context: str) -> None:
        kind = self.ta.symbols.get(n.name)
        if kind is None:
            self.sink.error(f"unknown name '{n.name}' in {context}" + self.suggest(n.name, allowed),
                            n.span)
        elif kind is K.MACRO:
            if allowed == DEFINE_KINDS:
                return  # checked where the macro is used
            body = self.ta.macro_bodies.get(n.name)
            for inner in (walk(body) if body is not None else ()):
                if isinstance(inner, Name):
                    inner_kind = self.ta.symbols.get(inner.name)
                    if inner_kind not in allowed and inner_kind not in (None, K.MACRO):
                        self.sink.error(
                            f"macro '{n.name}' refers to the {_KIND_NAMES[inner_kind]} "
                            f"'{inner.name}', which cannot appear in {context} "
                            f"({_WHY.get(context, '')})", n.span)
                        return
        elif kind not in allowed:
            why = _WHY.get(context)
            self.sink.error(f"the {_KIND_NAMES[kind]} '{n.name}' cannot appear in {context}"
                            + (f" ({why})" if why else ""), n.span)

    def product(self, node: Mul) -> None:
        try:
            left = linearize(self.ta.expand(node.left))
            right = linearize(self.ta.expand(node.right))
        except (NonLinearError, TypeError):
            return  # a nested product is reported on its own
        if left.is_constant or right.is_constant:
            return
        unknowns = set(self.ta.unknowns)
        if set(left.variables()) <= unknowns or set(right.variables()) <= unknowns:
            return  # a synthesis coefficient times a term: linear once the unknowns are fixed
        self.sink.error(str(NonLinearError(node)), node.span)

    def suggest(self, name: str, kinds: Iterable[SymbolKind]) -> str:
        wanted = set(kinds)
        pool = [n for n, k in self.ta.symbols.items() if k in wanted or k is K.MACRO]
        close = difflib.get_close_matches(name, pool, n=1)
        return f"; did you mean '{close[0]}'?" if close else ""


def _macro_cycle(start: str, raw: dict) -> list[str] | None:
    """The shortest chain start -> … -> start through macro bodies, if there is one."""
    frontier: list[list[str]] = [[start]]
    seen: set[str] = set()
    while frontier:
        path = frontier.pop(0)
        body = raw[path[-1]].expr
        for n in walk(body):
            if isinstance(n, Name) and n.name in raw:
                if n.name == start:
                    return path + [start]
                if n.name not in seen:
                    seen.add(n.name)
                    frontier.append(path + [n.name])
    return None
