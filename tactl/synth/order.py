"""``tactl synthesize --weakest``: the solutions with the weakest resilience condition and, among
those, the least thresholds — a semantic order, decided by z3, not by comparing coefficients.

A solution is an assignment of the unknowns. Instantiated, its resilience condition RC(u) is a
linear condition over the parameters, and each threshold (a define whose body names an unknown,
see :func:`threshold_terms`) a linear term over them. With every parameter non-negative:

- RC(u) is *at least as weak as* RC(v) when every valuation satisfying RC(v) satisfies RC(u)
  (``RC(v) ∧ ¬RC(u)`` unsatisfiable): ``n > 3t`` is weaker than ``n > 4t``.
- Among solutions whose conditions are equivalent, u's thresholds are *at most* v's when
  ``T_u ≤ T_v`` for every valuation of that condition, for every threshold.

Both are preorders; the answer is the set of minimal elements (the Pareto front), which may hold
several incomparable solutions — :class:`Weakest` says why they are incomparable. Comparisons
are refuted first on a few sample valuations of the condition (no solver call when one sample
already shows ``T_u > T_v``); only what the samples cannot refute is asked of z3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tactl.ir.evaluate import evaluate
from tactl.ir.expr import Compare, Expr, Not, conj, const, names, substitute, to_text, walk
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.ta.model import ThresholdAutomaton

if TYPE_CHECKING:
    import z3

# How many parameter valuations of a condition are drawn to refute a threshold comparison cheaply.
SAMPLES = 12


def threshold_terms(ta: ThresholdAutomaton) -> dict[str, Expr]:
    """The thresholds of an automaton with unknowns, by name: each define whose expanded body is
    an arithmetic term naming an unknown (ByMC's ``THRESH1 == a1 * N + b1 * T + c1``), and, when
    no define names one, the parameter side of each guard comparison that names one (``rule 3's
    guard``), so that unknowns written straight into guards are ordered too."""
    unknowns = set(ta.unknowns)
    found: dict[str, Expr] = {}
    for d in ta.defines:
        body = ta.macro_bodies.get(d.name, d.expr)
        if _is_term(body) and any(n.name in unknowns for n in names(body)):
            found[d.name] = body
    if found:
        return found
    for r in ta.rules:
        for node in walk(ta.expand(r.guard)):
            if not isinstance(node, Compare):
                continue
            for side in (node.left, node.right):
                side_names = {n.name for n in names(side)}
                if side_names & unknowns and not side_names & set(ta.shared):
                    found.setdefault(f"rule {r.id}'s guard: {to_text(side)}", side)
    return found


def _is_term(e: Expr) -> bool:
    return not any(isinstance(n, (Compare, Not)) for n in walk(e))


def instantiated(e: Expr, values: Mapping[str, int]) -> Expr:
    """``e`` with each unknown replaced by its value (macros must already be expanded)."""
    return substitute(e, {u: const(v) for u, v in values.items()})


def resilience(ta: ThresholdAutomaton, values: Mapping[str, int]) -> Expr:
    """RC(u): the assumptions that name a parameter, instantiated (those over unknowns alone are
    the candidate space, true for every candidate)."""
    params = set(ta.parameters)
    kept = [ta.expand(a) for a in ta.assumptions]
    kept = [a for a in kept if any(n.name in params for n in names(a))]
    return instantiated(conj(*kept), values)


@dataclass(frozen=True)
class Weakest:
    """The minimal solutions (indices into what :func:`weakest` was given, in that order) and
    what the order found: ``classes`` — how many inequivalent resilience conditions the
    solutions have; ``why`` — when several are minimal, why none is below the others."""

    chosen: tuple[int, ...]
    classes: int
    why: str = ""
    conditions: dict[int, str] = field(default_factory=dict)  # chosen index -> RC text


class _Order:
    """The z3 questions of one automaton's order, each asked once."""

    def __init__(self, ta: ThresholdAutomaton) -> None:
        import z3  # lazy: z3 is slow to import; only --weakest and tightness order solutions

        self.z3 = z3
        self.ta = ta
        self.sym = int_symbols()
        self.nonneg = [self.sym(p) >= 0 for p in ta.parameters]
        self._implies: dict[tuple[str, str], bool] = {}
        self._samples: dict[str, list[dict[str, int]]] = {}
        self._le: dict[tuple[str, str, str], bool] = {}

    def _unsat(self, *formulas: "z3.BoolRef") -> bool:
        solver = self.z3.Solver()
        solver.add(*self.nonneg, *formulas)
        return solver.check() == self.z3.unsat

    def implies(self, stronger: Expr, weaker: Expr) -> bool:
        """Every valuation of ``stronger`` satisfies ``weaker``."""
        key = (to_text(stronger), to_text(weaker))
        if key not in self._implies:
            self._implies[key] = key[0] == key[1] or self._unsat(
                to_z3(stronger, self.sym), self.z3.Not(to_z3(weaker, self.sym)))
        return self._implies[key]

    def samples(self, rc: Expr) -> list[dict[str, int]]:
        """A few valuations of ``rc``: the solver's first model, then models that differ from
        all drawn so far in some parameter growing (so that large and small systems are both
        represented)."""
        key = to_text(rc)
        if key in self._samples:
            return self._samples[key]
        z3 = self.z3
        solver = z3.Solver()
        solver.add(*self.nonneg, to_z3(rc, self.sym))
        found: list[dict[str, int]] = []
        params = [self.sym(p) for p in self.ta.parameters]
        while len(found) < SAMPLES and params and solver.check() == z3.sat:
            model = solver.model()
            point = {p: model.eval(self.sym(p), model_completion=True).as_long() for p in self.ta.parameters}
            found.append(point)
            # the next one is larger in some parameter: an unbounded direction is explored
            solver.add(z3.Or(*(x > point[str(x)] for x in params)))
        self._samples[key] = found
        return found

    def at_most(self, rc: Expr, name: str, small: Expr, large: Expr) -> bool:
        """``small <= large`` for every valuation of ``rc``."""
        key = (to_text(rc), to_text(small), to_text(large))
        if key in self._le:
            return self._le[key]
        answer = True
        if key[1] != key[2]:
            for point in self.samples(rc):
                if evaluate(small, point) > evaluate(large, point):
                    answer = False
                    break
            else:
                answer = self._unsat(to_z3(rc, self.sym), to_z3(small, self.sym) > to_z3(large, self.sym))
        self._le[key] = answer
        return answer


def weakest(ta: ThresholdAutomaton, solutions: Sequence[Mapping[str, int]]) -> Weakest:
    """The Pareto-minimal ``solutions`` of ``ta`` (assignments of its unknowns) for the order of
    the module docstring: first the weakest resilience conditions, then the least thresholds."""
    if not solutions:
        return Weakest((), 0)
    order = _Order(ta)
    rcs = [resilience(ta, s) for s in solutions]
    # classes of equivalent conditions (equal texts first, then z3)
    reps: list[int] = []
    cls: list[int] = []
    for i, rc in enumerate(rcs):
        for c, rep in enumerate(reps):
            if order.implies(rc, rcs[rep]) and order.implies(rcs[rep], rc):
                cls.append(c)
                break
        else:
            cls.append(len(reps))
            reps.append(i)
    weakest_classes = [c for c, rep in enumerate(reps)
                       if not any(d != c and order.implies(rcs[rep], rcs[other]) and not order.implies(rcs[other], rcs[rep])
                                  for d, other in enumerate(reps))]
    thresholds = threshold_terms(ta)
    chosen: list[int] = []
    for c in weakest_classes:
        members = [i for i in range(len(solutions)) if cls[i] == c]
        chosen.extend(_least(order, rcs[reps[c]], thresholds, solutions, members))
    chosen.sort()
    why = ""
    if len(weakest_classes) > 1:
        why = (f"{len(weakest_classes)} resilience conditions are weakest and incomparable: "
               "neither implies the other")
    elif len(chosen) > 1:
        why = (f"{len(chosen)} solutions share the weakest resilience condition and their "
               "thresholds are incomparable: each is lower than the others for some parameter "
               "values (or they are equal for every valuation)")
    return Weakest(tuple(chosen), len(reps), why, {i: to_text(rcs[i]) for i in chosen})


def dominates(ta: ThresholdAutomaton, a: Mapping[str, int], b: Mapping[str, int],
              order: _Order | None = None) -> bool:
    """``a`` is strictly below ``b`` in the order of the module docstring: its resilience
    condition is weaker, or equivalent with thresholds no higher for every valuation and lower
    for some."""
    order = order or _Order(ta)
    rc_a, rc_b = resilience(ta, a), resilience(ta, b)
    if not order.implies(rc_b, rc_a):
        return False
    if not order.implies(rc_a, rc_b):
        return True
    terms = threshold_terms(ta)

    def le(x: Mapping[str, int], y: Mapping[str, int]) -> bool:
        return all(order.at_most(rc_a, name, instantiated(t, x), instantiated(t, y)) for name, t in terms.items())

    return le(a, b) and not le(b, a)


def _least(order: _Order, rc: Expr, thresholds: Mapping[str, Expr], solutions: Sequence[Mapping[str, int]],
           members: list[int]) -> list[int]:
    """The members whose threshold vectors no other member's is strictly below, for every
    valuation of ``rc`` (skyline: members sorted by their thresholds' sum at a sample, so that a
    dominating member comes no later than the one it dominates)."""
    if not thresholds:
        return members
    terms = {i: {name: instantiated(t, solutions[i]) for name, t in thresholds.items()} for i in members}
    points = order.samples(rc)
    if points:
        point = points[0]
        members = sorted(members, key=lambda i: sum(evaluate(t, point) for t in terms[i].values()))

    def le(a: int, b: int) -> bool:
        return all(order.at_most(rc, name, terms[a][name], terms[b][name]) for name in thresholds)

    kept: list[int] = []
    for i in members:
        if any(le(k, i) and not le(i, k) for k in kept):
            continue
        kept = [k for k in kept if not (le(i, k) and not le(k, i))]
        kept.append(i)
    return kept

