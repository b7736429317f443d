"""Spacer's inductive invariant in tactl's expression syntax, for people to read.

The invariant the CHC engine re-checks (tactl/engines/chc_certificate.py) is a z3 term over the
counter system's state (tactl/engines/chc_system.py): the relation Spacer found, conjoined with
the facts every state has by construction (parameters and counters are natural numbers, the
counters add up to the number of processes). The form printed here leaves those facts out (they
say nothing about the algorithm), writes the number of processes as the sum of the counters it
stands for, lets z3's simplifier fold what is cheap to fold, and prints every atom as a linear
comparison over the automaton's own names (``ir/expr.py``'s ``to_text``): a counter ``x <= 0``
is ``x == 0``. It is a reading aid; the certificate is the SMT-LIB form the solvers answered,
which ``--json`` keeps beside it.
"""

from __future__ import annotations

import z3

from tactl.engines.chc_system import PROCESSES, CounterSystem
from tactl.ir.boolean import NEGATED_COMPARISON
from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Not, conj, disj, to_text
from tactl.ir.linear import GE, LinearTerm, normalize, term_expr

_OPS = {z3.Z3_OP_LE: "<=", z3.Z3_OP_GE: ">=", z3.Z3_OP_LT: "<", z3.Z3_OP_GT: ">", z3.Z3_OP_EQ: "=="}


class NotLinear(ValueError):
    """A term outside linear integer arithmetic over the state (the SMT-LIB form is shown)."""


def invariant_text(system: CounterSystem, invariant: z3.BoolRef) -> str:
    """``invariant`` without the facts of :attr:`CounterSystem.known` and
    :attr:`CounterSystem.facts`, in tactl's syntax; its one-line SMT-LIB form when some part of it
    has no such reading."""
    try:
        return to_text(readable(system, invariant))
    except NotLinear:
        return " ".join(invariant.sexpr().split())


def facts_text(system: CounterSystem) -> str:
    """The proved facts of the counter system (tactl/engines/chc_facts.py) in tactl's syntax."""
    if system.facts is None:
        return ""
    try:
        return to_text(readable(system, system.facts, keep_facts=True))
    except NotLinear:
        return " ".join(system.facts.sexpr().split())


def readable(system: CounterSystem, invariant: z3.BoolRef, keep_facts: bool = False) -> Expr:
    """``invariant`` as an expression, without the facts of :attr:`CounterSystem.known` and
    (unless ``keep_facts``) without those of :attr:`CounterSystem.facts`, which
    :func:`facts_text` prints."""
    known = set(_conjuncts(system.known))
    if system.facts is not None and not keep_facts:
        known |= set(_conjuncts(system.facts))
    kept = [c for c in _conjuncts(invariant) if c not in known]
    processes = dict(zip(system.names, system.state))[PROCESSES]
    ctx = processes.ctx  # the system's own context (tactl/engines/chc.py)
    counters = z3.Sum(*(z3.Int(n, ctx) for n in system.locations)) if system.locations else z3.IntVal(0, ctx)
    formula = z3.substitute(z3.And(*kept), (processes, counters)) if kept else z3.BoolVal(True, ctx)
    # the ghost and monitor components (names with '#', tactl/engines/chc_facts.py, chc_monitor.py) count too
    natural = frozenset((*system.parameters, *system.locations, *(n for n in system.names if "#" in n)))
    parts = [_expr(c, natural) for c in _conjuncts(z3.simplify(formula, arith_lhs=True))]
    return conj(*(p for p in parts if p != BoolConst(True)))


def _conjuncts(formula: z3.BoolRef) -> list[z3.BoolRef]:
    if z3.is_and(formula):
        return [c for child in formula.children() for c in _conjuncts(child)]
    return [formula]


def _expr(f: z3.ExprRef, natural: frozenset[str]) -> Expr:
    if z3.is_true(f) or z3.is_false(f):
        return BoolConst(z3.is_true(f))
    if z3.is_and(f):
        return conj(*(_expr(c, natural) for c in f.children()))
    if z3.is_or(f):
        return disj(*(_expr(c, natural) for c in f.children()))
    if z3.is_not(f):
        inner = _expr(f.arg(0), natural)
        if isinstance(inner, Compare):
            return _atom(Compare(NEGATED_COMPARISON[inner.op], inner.left, inner.right), natural)
        return Not(inner)
    if z3.is_app(f) and f.decl().kind() in _OPS and f.arg(0).sort() == z3.IntSort(f.ctx):
        left, right = _term(f.arg(0)), _term(f.arg(1))
        return _atom(Compare(_OPS[f.decl().kind()], term_expr(left.coeffs, left.const),
                             term_expr(right.coeffs, right.const)), natural)
    raise NotLinear(f.sexpr())


def _atom(c: Compare, natural: frozenset[str]) -> Expr:
    """``c`` with the variables of positive coefficient on the left and the rest on the right;
    a natural number at most 0 is written ``x == 0``, one at least 0 is left out (true)."""
    atom = normalize(c)
    if isinstance(atom, bool):
        return BoolConst(atom)
    coeffs, op, bound = atom.coeffs, atom.op, atom.bound
    if op == GE and len(coeffs) == 1 and coeffs[0][1] == 1 and bound == 0 and coeffs[0][0] in natural:
        return BoolConst(True)  # x >= 0 of a natural number: a fact of every state
    if op == GE and len(coeffs) == 1 and coeffs[0][1] == -1 and bound == 0 and coeffs[0][0] in natural:
        return Compare("==", term_expr(((coeffs[0][0], 1),)), IntConst(0))
    if op == GE and all(a < 0 for _, a in coeffs):  # -Σ ≥ b  is  Σ ≤ -b
        coeffs, op, bound = tuple((x, -a) for x, a in coeffs), "<=", -bound
    positive = tuple((x, a) for x, a in coeffs if a > 0)
    negative = tuple((x, -a) for x, a in coeffs if a < 0)
    return Compare(op, term_expr(positive), term_expr(negative, bound))


def _term(t: z3.ExprRef) -> LinearTerm:
    if z3.is_int_value(t):
        return LinearTerm((), t.as_long())
    if z3.is_const(t) and t.sort() == z3.IntSort(t.ctx):
        return LinearTerm(((str(t), 1),), 0)
    if z3.is_add(t):
        total = LinearTerm()
        for child in t.children():
            total = total + _term(child)
        return total
    if z3.is_sub(t):
        first, *rest = (_term(c) for c in t.children())
        for r in rest:
            first = first - r
        return first
    if z3.is_app(t) and t.decl().kind() == z3.Z3_OP_UMINUS:
        return -_term(t.arg(0))
    if z3.is_mul(t):
        product = LinearTerm((), 1)
        for child in (_term(c) for c in t.children()):
            if product.is_constant:
                product = child.scale(product.const)
            elif child.is_constant:
                product = product.scale(child.const)
            else:
                raise NotLinear(t.sexpr())
        return product
    raise NotLinear(t.sexpr())
