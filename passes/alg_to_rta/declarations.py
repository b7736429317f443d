"""The declarations of an ``.alg`` read into a :class:`Context`, and the checks that need nothing
but them: parameters, fault model, timing, message types (``(P, 0, D)`` → ``P0D``), variables,
reserved names, the resilience condition; and comparisons a variable's domain decides
(:func:`check_domains`), refused before any code runs.
"""

from __future__ import annotations

from itertools import product

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.ir.expr import BoolConst
from tactl.ir.rta.model import FaultModel, fault_arities, fault_arity_text

from tactl.passes.alg_to_rta.context import (Context, MessageType, ParseError, all_statements, cond_names,
                                             fail, span_of)
from tactl.passes.alg_to_rta.evaluate import chain_exprs


# Names the pseudocode gives a meaning of its own; a user's variable, parameter or placeholder of
# that name would be silently read as the built-in in some place (docs/alg.md, "Reserved names").
BUILT_IN_NAMES = {
    A.DECIDED: "'decided' is the value 'decide v' sets",
    A.DONE: "'done' means the process has finished, in properties",
    A.CRASHED: "'crashed' means the process has crashed, in properties (crash fault models)",
    "bot": "'bot' is ⊥",
    "coin": "'coin' is a coin toss",
    A.TRUE: "'true' is a Boolean value",
    A.FALSE: "'false' is a Boolean value",
    A.COORDINATOR: "'coordinator' says whether the process is the phase's coordinator",
}


def _type_name(base: str, payload: tuple[str, ...]) -> str:
    spelled = {"?": "Q", A.BOTTOM: "bot"}
    return base + "".join(spelled.get(p, p) for p in payload)


def read_declarations(alg: A.Algorithm) -> Context:
    params = alg.parameters
    if not params:
        raise fail("missing 'parameters' line, e.g. 'parameters n, t, f'", Span(1, 1))
    if len(set(params)) != len(params):
        raise fail("a parameter is declared twice", alg.spans.get("parameters"))
    try:
        model = FaultModel(alg.fault_model)
    except ValueError:
        raise fail(f"unknown fault model '{alg.fault_model}' (models: "
                   f"{', '.join(m.value for m in FaultModel)})", alg.spans.get("fault model")) from None
    if len(alg.fault_parameters) not in fault_arities(model):
        raise fail(f"the fault model {model.value} takes {fault_arity_text(model)}",
                   alg.spans.get("fault model"))
    for p in alg.fault_parameters:
        if p not in params:
            raise fail(f"fault parameter '{p}' is not among the parameters ({', '.join(params)})",
                       alg.spans.get("fault model"))
    if alg.timing not in ("async", "sync"):
        raise fail(f"unknown timing '{alg.timing}': write 'timing async' or 'timing sync'",
                   alg.spans.get("timing value"))
    types: list[MessageType] = []
    seen_shapes: dict[str, A.MessageShape] = {}
    for shape in alg.messages:
        for payload in product(*shape.parts) if shape.parts else [()]:
            t = MessageType(_type_name(shape.name, payload), shape.name, tuple(payload))
            if any(x.name == t.name for x in types):
                raise fail(f"message type '{t.name}' is declared twice", shape.span)
            if not t.name.isidentifier():
                raise fail(f"message type '{t.name}' does not make a name; use names or numbers "
                           "as payload values", shape.span)
            types.append(t)
        seen_shapes[shape.name] = shape
    bases: dict[str, list[str]] = {}
    for t in types:
        bases.setdefault(t.base, []).append(t.name)
    kinds = {b: tuple(ns) for b, ns in bases.items() if len(ns) > 1 or ns[0] != b}
    variables: dict[str, A.Variable] = {}
    for v in alg.variables:
        if v.name in variables:
            raise fail(f"variable '{v.name}' is declared twice", v.span)
        if v.name in params:
            raise fail(f"variable '{v.name}' has the name of a parameter", v.span)
        variables[v.name] = v
    placeholders = [(b.placeholder, b.placeholder_span or b.span)
                    for s in all_statements(alg.program)
                    for b in (s.branches if isinstance(s, A.If) else [s] if isinstance(s, A.Wait)
                              else []) if b.placeholder]
    for name, span, what in [*((p, alg.spans.get(f"parameter {p}"), "parameter") for p in params),
                             *((v.name, v.span, "variable") for v in alg.variables),
                             *((w, span, "placeholder") for w, span in placeholders)]:
        if name in BUILT_IN_NAMES:
            raise fail(f"'{name}' is reserved: {BUILT_IN_NAMES[name]}; name the {what} "
                       "differently", span)
    symbols = {x for v in alg.variables for x in v.domain if not _is_number(x)}
    symbols |= {x for s in alg.messages for part in s.parts for x in part if not _is_number(x)}
    symbols |= {x for d in alg.domains.values() for x in d if not _is_number(x)}
    clash = symbols & (set(params) | set(variables))
    if clash:
        name = sorted(clash)[0]
        where = next((v.span for v in alg.variables if v.name == name or name in v.domain),
                                None)
        raise fail(f"'{name}' is both a value of a domain and a parameter or variable name", where)
    decides = any(isinstance(s, A.Decide) for s in all_statements(alg.program))
    ctx = Context(alg, params, types, kinds, variables, symbols, decides, (),
                  unknowns={u.name: u for u in alg.unknowns})
    rc = []
    for chain in alg.resilience:
        for e in chain_exprs(ctx, chain, {}, unknowns=True):
            if not isinstance(e, BoolConst):
                rc.append(e)
            elif not e.value:
                raise fail("this resilience condition is always false", chain.span)
    ctx.rc = tuple(rc)
    ctx.unknown_constraints = unknown_constraints(ctx)
    return ctx


def unknown_constraints(ctx: Context) -> tuple:
    """The ``where`` constraints of the ``unknowns`` line: linear comparisons among unknowns
    only (the candidate space); one that no candidate satisfies is refused."""
    out = []
    for chain in ctx.alg.unknown_constraints:
        names = cond_names(chain)
        if names:
            raise fail(f"'{sorted(names)[0]}' in a 'where' constraint: it relates unknowns only "
                       "(a condition on parameters belongs to the resilience condition)", chain.span)
        for e in chain_exprs(ctx, chain, {}, unknowns=True):
            if isinstance(e, BoolConst):
                if not e.value:
                    raise fail("this constraint on the unknowns is always false", chain.span)
                continue
            out.append(e)
    return tuple(out)


def _is_number(x: str) -> bool:
    return x.lstrip("-").isdigit()


def check_domains(ctx: Context) -> None:
    """Refuse a comparison that a variable's domain decides: ``accept == 1`` for a Boolean,
    ``v == 2`` or ``v != ⊥`` for ``v: {0, 1}``, two variables with disjoint domains, a
    ``received (R, 7)`` whose payload no declared message has. In a property such a comparison
    makes the property vacuous (it HOLDS whatever the algorithm does); in code it is dead (or
    unconditional) code. Placeholders and values unknown here are left to the evaluation."""
    decided = _decided_domain(ctx)
    problems: list[Diagnostic] = []

    def domain(t) -> tuple[tuple[str, ...], str] | None:
        """The values ``t`` can take and what it is (a variable or a constant), or None."""
        if isinstance(t, A.Ref):
            if t.name in ctx.variables:
                return ctx.variables[t.name].domain, "variable"
            if t.name == A.DECIDED and ctx.decides:
                return decided, "variable"
            if t.name in ctx.symbols:
                return (t.name,), "constant"
            return None
        if isinstance(t, A.Num):
            return (str(t.value),), "constant"
        if isinstance(t, A.Const):
            return (t.value,), "constant"
        if isinstance(t, A.NotValue):
            return A.BOOL, "constant"
        return None

    def check(c) -> None:
        for x in _cond_nodes(c):
            if isinstance(x, A.Compare):
                for op, a, b in zip(x.ops, x.terms, x.terms[1:]):
                    if op in ("==", "!="):
                        pair(op, a, b, x.span)
            elif isinstance(x, (A.Received, A.Count)):
                payload(x.pattern)

    def pair(op: str, a, b, span) -> None:
        da, db = domain(a), domain(b)
        if da is None or db is None or "variable" not in (da[1], db[1]):
            return
        if set(da[0]) & set(db[0]):
            return
        where = _join(span_of(a), span_of(b)) or span
        verdict = "can never be true" if op == "==" else "is always true"
        ranges = "; ".join(f"'{_term_text(t)}' ranges over {{{', '.join(d[0])}}}"
                           for t, d in ((a, da), (b, db)) if d[1] == "variable")
        problems.append(Diagnostic(Severity.ERROR, f"'{_term_text(a)} {op} {_term_text(b)}' "
                                   f"{verdict}: {ranges}", where))

    def payload(p: A.Pattern) -> None:
        if not p.parts:
            return
        shapes = [s for s in ctx.alg.messages if s.name == p.name and len(s.parts) == len(p.parts)]
        if not shapes:
            return  # unknown messages and wrong arities are reported where they are evaluated
        for i, part in enumerate(p.parts):
            d = None if isinstance(part, str) else domain(part)
            if d is None or d[1] != "constant":
                continue
            values = {v for s in shapes for v in s.parts[i]}
            if not values & set(d[0]):
                problems.append(Diagnostic(
                    Severity.ERROR, f"no declared message ({p.name}, …) has the value "
                    f"'{d[0][0]}' at position {i + 1} (values there: "
                    f"{', '.join(sorted(values))}): this count is always 0",
                    span_of(part) or p.span))

    for stmt in all_statements(ctx.alg.program):
        if isinstance(stmt, A.If):
            for b in stmt.branches:
                check(b.cond)
        elif isinstance(stmt, A.Wait):
            check(stmt.cond)
    for prop in ctx.alg.properties:
        stack = [prop.formula]
        while stack:
            f = stack.pop()
            for arg in f.args:
                (stack.append(arg) if isinstance(arg, A.FormulaNode) else check(arg))
    if problems:
        raise ParseError(problems, ctx.alg.path, ctx.alg.source)


def _cond_nodes(c):
    """Every node of a condition or predicate, including the predicates of ``count (P)``."""
    stack = [c]
    while stack:
        for x in A.walk(stack.pop()):
            yield x
            if isinstance(x, A.CountPred):
                stack.append(x.pred)


def _decided_domain(ctx: Context) -> tuple[str, ...]:
    """The values ``decided`` can take: ⊥ and what the ``decide`` statements decide (every value
    of every domain when one decides a placeholder)."""
    out = [A.BOTTOM]
    for s in all_statements(ctx.alg.program):
        if not isinstance(s, A.Decide):
            continue
        v = s.value
        if isinstance(v, A.Ref) and v.name in ctx.variables:
            values = ctx.variables[v.name].domain
        elif isinstance(v, A.Num):
            values = (str(v.value),)
        elif isinstance(v, A.Const):
            values = (v.value,)
        elif isinstance(v, A.Ref) and v.name in ctx.symbols:
            values = (v.name,)
        else:  # a placeholder, or a coin: any value a domain or payload has
            values = tuple(x for d in [*(w.domain for w in ctx.alg.variables),
                                       *(p for m in ctx.alg.messages for p in m.parts), A.BOOL]
                           for x in d)
        out.extend(x for x in values if x not in out)
    return tuple(out)


def _join(a: Span | None, b: Span | None) -> Span | None:
    if a is None or b is None:
        return a or b
    return Span(a.line, a.col, b.end_line, b.end_col)


def _term_text(t) -> str:
    if isinstance(t, A.Ref):
        return t.name
    if isinstance(t, A.Num):
        return str(t.value)
    if isinstance(t, A.Const):
        return t.value
    if isinstance(t, A.NotValue):
        return f"not {_term_text(t.arg)}"
    return "…"
