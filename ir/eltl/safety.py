"""Safety properties as reachability questions.

ByMC files state safety as ``init -> [](good)`` or ``[](good)``, sometimes with several
antecedents (``params_ok -> (init -> [](good))``), as ``!init || [](good)``, or with several
boxed conjuncts. Each such property is
violated exactly when a configuration where ``good`` fails is reachable from an initial
configuration where every antecedent holds, so the checker answers one question: is a
configuration satisfying ``bad = !good`` reachable from one satisfying ``initial``?

Anything else is reported unsupported with a reason — a liveness formula (``<>`` after negation
normal form) or a safety formula of another shape — so that no verdict is ever guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.expr import Always, And, BoolConst, Expr, Implies, Not, Or, conj, disj, is_temporal, names
from tactl.ir.eltl.ltl import PropertyKind, classify
from tactl.ir.ta.model import Property, SymbolKind, ThresholdAutomaton


@dataclass(frozen=True)
class ReachQuery:
    """Reach a configuration satisfying ``bad`` from an initial one satisfying ``initial``.

    Both are macro-expanded state formulas over location counters, shared variables and
    parameters; ``initial`` is evaluated in the initial configuration only.
    """

    property: str
    initial: Expr
    bad: Expr


@dataclass(frozen=True)
class Unsupported:
    """Why a property has no reachability question."""
    property: str
    kind: PropertyKind
    reason: str


def reach_query(ta: ThresholdAutomaton, prop: Property) -> ReachQuery | Unsupported:
    """The reachability question behind a safety property, or why there is none."""
    formula = ta.expand(prop.formula)
    kind = classify(formula)
    if kind is PropertyKind.LIVENESS:
        return Unsupported(prop.name, kind, "liveness property (it contains <> once negations are "
                           "pushed inwards): tactl decides safety properties only, so far")
    antecedents: list[Expr] = []
    while True:
        if isinstance(formula, Implies) and not is_temporal(formula.left):
            antecedents.append(formula.left)
            formula = formula.right
            continue
        if isinstance(formula, Or):  # 'a || [](b)' is '!a -> [](b)' (nbacr's validity)
            temporal = [a for a in formula.args if is_temporal(a)]
            if len(temporal) == 1:
                antecedents.append(Not(disj(*(a for a in formula.args if not is_temporal(a)))))
                formula = temporal[0]
                continue
        break
    boxed = formula.args if isinstance(formula, And) else (formula,)
    if not all(isinstance(b, Always) and not is_temporal(b.arg) for b in boxed):
        return Unsupported(prop.name, kind, "safety formula of a shape the checker does not "
                           "handle; supported: '[](good)' and 'init -> [](good)' with state "
                           "formulas init and good")
    good = conj(*(b.arg for b in boxed))  # type: ignore[attr-defined]
    locals_used = sorted({n.name for part in (*antecedents, good) for n in names(part)
                          if ta.symbols.get(n.name) is SymbolKind.LOCAL})
    if locals_used:
        return Unsupported(prop.name, kind, "the formula mentions local variables ("
                           + ", ".join(locals_used) + "); the counter system has only location "
                           "counters, shared variables and parameters")
    initial = conj(*antecedents) if antecedents else BoolConst(True)
    return ReachQuery(prop.name, initial, Not(good))
