"""Reduction pass: TA → the same TA with every guard replaced by a simpler equivalent one.

Why. ByMC's Promela-generated automata carry the artefacts of its interval abstraction in their
guards: ``(nsnt10 >= 1 || nsnt10 == 0)`` (always true: shared variables are natural numbers),
``nsnt11 >= 0``, ``x >= MAJ && x >= 1`` (``MAJ >= 1`` by the resilience condition). The encoding
reads ``nsnt10 == 0`` as the negation of the rise atom ``nsnt10 >= 1``, which makes that atom
*sensitive* (``sensitive_atoms`` in ``passes/ta_to_smt/guard_abstraction.py``): then every atom
costs a segment and the greedy rounds bound does not apply. On cc_case1 the five sensitive atoms all come from such tautologies.

What. Bottom-up over each guard (macro-expanded): a comparison, a negation or a disjunction that
is valid (unsatisfiable) under the resilience condition, the ``--param`` values and "every
parameter and shared variable is a natural number" becomes ``true`` (``false``); a conjunct
implied by the other conjuncts of its conjunction is dropped; constants are folded. Each step
is asked of z3 (linear integer arithmetic; an answer other than unsat keeps the formula as is).

Soundness (exact). A guard is only ever evaluated on a configuration whose parameters satisfy
the resilience condition (and the ``--param`` values) and whose shared variables are natural
numbers; every rewrite replaces a formula by one with the same value on all such valuations. So
each rule is enabled in exactly the same configurations and has the same updates: the counter
systems, hence all runs and every verdict, are the same. Rules keep their indices, so a
counterexample needs no mapping (it is replayed on the original automaton all the same).
"""

from __future__ import annotations

from dataclasses import replace

from tactl.ir.boolean import simplify
from tactl.ir.expr import And, BoolConst, Compare, Expr, Not, Or, conj, disj, transform, walk
from tactl.ir.linear import NonLinearError, int_symbols, to_z3
from tactl.ir.ta.model import ThresholdAutomaton

TIMEOUT_MS = 1000  # per question; unknown keeps the formula
# A guard larger than this is kept as it is: each of its comparisons and disjunctions would be
# a z3 question (ByMC's generated guards have under 40 nodes; hostile macros have 100,000).
MAX_GUARD_NODES = 400


def simplify_guards(ta: ThresholdAutomaton, parameters: dict[str, int] | None = None) -> ThresholdAutomaton:
    """``ta`` with equivalent, simpler guards (module doc); unchanged when a guard is not linear."""
    import z3  # lazy: z3 is slow to import; only checks simplify guards

    sym = int_symbols()
    solver = z3.Solver()
    solver.set("timeout", TIMEOUT_MS)
    try:
        solver.add(*(to_z3(ta.expand(a), sym) for a in ta.assumptions))
    except (NonLinearError, TypeError, ValueError):
        return ta
    solver.add(*(sym(x) >= 0 for x in (*ta.parameters, *ta.shared)))
    solver.add(*(sym(p) == v for p, v in (parameters or {}).items()))
    cache: dict[Expr, Expr] = {}

    def unsat(*formulas: z3.BoolRef) -> bool:
        solver.push()
        solver.add(*formulas)
        answer = solver.check()
        solver.pop()
        return answer == z3.unsat

    def constant(e: Expr) -> Expr:
        """``true``/``false`` when ``e`` is valid/unsatisfiable, else ``e``."""
        if e not in cache:
            f = to_z3(e, sym)
            cache[e] = BoolConst(True) if unsat(z3.Not(f)) else BoolConst(False) if unsat(f) else e
        return cache[e]

    def without_implied(parts: list[Expr]) -> list[Expr]:
        kept = list(parts)
        for p in list(parts):
            rest = [q for q in kept if q is not p]
            if rest and unsat(*(to_z3(q, sym) for q in rest), z3.Not(to_z3(p, sym))):
                kept = rest
        return kept

    def fold(e: Expr) -> Expr | None:
        if isinstance(e, (Compare, Not, Or)):
            inner = simplify(_rebuild(e, fold))
            return inner if isinstance(inner, BoolConst) else constant(inner)
        if isinstance(e, And):
            parts = [simplify(transform(a, fold)) for a in e.args]
            if BoolConst(False) in parts:
                return BoolConst(False)
            parts = [p for p in parts if p != BoolConst(True)]
            return conj(*without_implied(parts)) if parts else BoolConst(True)
        return None

    # Generated automata repeat guards (cc_case3: 6,928 rules, 301 distinct guards): each
    # distinct guard is simplified once, and equal guards get the same (equivalent) result.
    simpler: dict[Expr, Expr] = {}
    rules = []
    try:
        for rule in ta.rules:
            guard = ta.expand(rule.guard)
            if guard not in simpler:
                # a guard larger than the bound is left as it is (always sound)
                simpler[guard] = guard if sum(1 for _ in walk(guard)) > MAX_GUARD_NODES \
                    else simplify(transform(guard, fold))
            rules.append(replace(rule, guard=simpler[guard]))
    except (NonLinearError, TypeError, ValueError):
        return ta
    return replace(ta, rules=tuple(rules))


def _rebuild(e: Expr, fold) -> Expr:
    """``e`` with its Boolean children folded (a comparison has none)."""
    if isinstance(e, Not):
        return Not(transform(e.arg, fold))
    if isinstance(e, Or):
        return disj(*(transform(a, fold) for a in e.args))
    return e
