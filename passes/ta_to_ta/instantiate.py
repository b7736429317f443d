"""Give a threshold automaton's synthesis unknowns values: the candidate a synthesis loop checks.

ByMC's synthesis files (``unknowns a1, b1;``) leave coefficients of the thresholds open; once
each has a value the automaton is an ordinary one that every engine decides. The unknowns are
replaced by their constants everywhere they may occur (defines, assumptions, inits, guards,
updates, specifications); an assumption that mentions unknowns alone (``0 <= a1; a1 <= 1;``)
describes the range searched, not the algorithm, and is dropped. Every term that named an
unknown is written in its linear normal form (``N - T``, not ``1 * N + -1 * T + 0``) so that the
instantiated file reads as a person would write it; nothing else is rewritten.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from tactl.ir.expr import ARITH_NODES, Compare, Expr, const, names, substitute, transform
from tactl.ir.linear import NonLinearError, linearize, term_expr
from tactl.ir.ta.model import Rule, ThresholdAutomaton, Update


class InstantiationError(ValueError):
    """The values do not name exactly the automaton's unknowns."""


def only_unknowns(ta: ThresholdAutomaton, e: Expr) -> bool:
    """Whether ``e`` (as written, macros not expanded) names unknowns and nothing else but
    macros whose expansions name unknowns alone — the range constraints of a synthesis file."""
    unknowns = set(ta.unknowns)
    seen = False
    for n in names(ta.expand(e)):
        if n.name not in unknowns:
            return False
        seen = True
    return seen


def instantiate(ta: ThresholdAutomaton, values: Mapping[str, int]) -> ThresholdAutomaton:
    """``ta`` with every unknown replaced by its value in ``values``; the result has no unknowns.

    Raises :class:`InstantiationError` when ``values`` misses an unknown or names something else.
    """
    missing = [u for u in ta.unknowns if u not in values]
    extra = sorted(set(values) - set(ta.unknowns))
    if missing or extra:
        raise InstantiationError(
            (f"no value for unknown(s) {', '.join(missing)}" if missing else "")
            + ("; " if missing and extra else "")
            + (f"not unknowns of the automaton: {', '.join(extra)}" if extra else ""))
    if not ta.unknowns:
        return ta
    mapping = {u: const(int(values[u])) for u in ta.unknowns}
    unknown_set = set(ta.unknowns)

    def put(e: Expr) -> Expr:
        return _canonical(e, unknown_set, mapping)

    return replace(
        ta,
        unknowns=(),
        defines=tuple(replace(d, expr=put(d.expr)) for d in ta.defines),
        assumptions=tuple(put(a) for a in ta.assumptions if not only_unknowns(ta, a)),
        inits=tuple(put(e) for e in ta.inits),
        rules=tuple(_rule(r, put) for r in ta.rules),
        properties=tuple(replace(p, formula=put(p.formula)) for p in ta.properties),
        declared_at=tuple((n, s) for n, s in ta.declared_at if n not in unknown_set),
    )


def _rule(r: Rule, put) -> Rule:
    return replace(r, guard=put(r.guard), updates=tuple(Update(u.var, put(u.expr), span=u.span)
                                                        for u in r.updates))


def _canonical(e: Expr, unknowns: set[str], mapping: dict[str, Expr]) -> Expr:
    """``e`` with the unknowns replaced; every arithmetic term that named an unknown is printed
    in its linear normal form (``a1 * N + b1 * T + c1`` at 1, -1, 0 is ``N - T``), as a person
    would write the threshold; a term that is not linear once substituted keeps its shape."""

    def linear(term: Expr) -> Expr:
        if not any(n.name in unknowns for n in names(term)):
            return term
        put = substitute(term, mapping)
        try:
            lin = linearize(put)
        except (NonLinearError, TypeError):
            return put
        return term_expr(lin.coeffs, lin.const)

    def rewrite(node: Expr) -> Expr | None:
        if isinstance(node, Compare):
            return Compare(node.op, linear(node.left), linear(node.right), span=node.span)
        if isinstance(node, ARITH_NODES):
            return linear(node)
        return None

    return transform(e, rewrite)
