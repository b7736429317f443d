"""The region of a counterexample: every candidate under which the same run is a run of the
automaton and violates the same property.

Why it is sound. An unknown never occurs in an update (tactl/synth/space.py refuses it), so the
configurations of a run — location counters and shared variables after each step — are the
same whatever the candidate; only the truth of the comparisons along the way depends on it. Fix
the run (its parameters, initial configuration and steps) and replace every name other than an
unknown by its value at each configuration: every comparison becomes a linear constraint over
the unknowns alone. The run is a run of the automaton instantiated with a candidate ``u`` exactly
when ``u`` satisfies, at the run's parameters and initial configuration, the resilience condition
and the ``inits``, and, before each single-process step, the guard of the rule it fires (an
accelerated step of factor ``k`` is ``k`` single steps, each of which must be enabled: the
simulator's reading, tactl/engines/simulate.py). It violates the property when the negated
specification (the query's negation, what ``replay_query`` evaluates) holds on it, which is
evaluated here *symbolically* by the same lasso semantics as ``lasso_holds``: an atom at a
position is its constraint there, ``[]φ`` at ``i`` the conjunction over the positions reachable
from ``i``, ``<>φ`` the disjunction. For a liveness lasso closed by a self-loop, its guard in the
last configuration is added; for a cycle, the guards of the cycle's steps and the justice pairs as
``_check_justice`` reads them. Every candidate of the region therefore has a run that the
simulator would accept as a violation — the region is under-approximated, never over. The
candidate the run was found for must satisfy its region (asserted: :class:`RegionError` with
``bug``).

Regions are kept small: constants are folded, atoms are normalised (tactl/ir/linear.py
``normalize``) and deduplicated, and of the atoms ``Σ a·u >= b`` with the same left-hand side a
conjunction keeps the tightest, a disjunction the loosest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tactl.engines.result import Counterexample
from tactl.engines.simulate import Configuration, Step
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.eltl.justice import FairReading, loop_reading
from tactl.ir.expr import (Always, And, BoolConst, Compare, Div, Eventually, Expr, Implies, IntConst, Mul, Name,
                           Neg, Not, Or, Sum, conj, const, disj, names, to_text)
from tactl.ir.linear import GE, LinearAtom, LinearTerm, int_symbols, normalize, term_expr, to_z3
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.synth.space import CandidateSpace


class RegionError(Exception):
    """No region beyond the candidate itself (``bug``: the candidate was not in its own region)."""

    def __init__(self, message: str, bug: bool = False) -> None:
        super().__init__(message)
        self.bug = bug


def point_region(candidate: Mapping[str, int]) -> Expr:
    """The candidate alone."""
    return conj(*(Compare("==", Name(u), const(v)) for u, v in candidate.items()))


# ------------------------------------------------------------------ symbolic Boolean values
#
# A formula over the unknowns: a Python bool, a LinearAtom, or an _Op (and/or of a frozenset of
# the others). Hashable, so that equal subformulas are one.


@dataclass(frozen=True)
class _Op:
    kind: str  # "and" | "or"
    args: frozenset


def _tighten(atoms: list[LinearAtom], keep_max: bool) -> list[LinearAtom]:
    """Of the ``>=`` atoms with equal left-hand sides, the tightest (``keep_max``) or loosest."""
    best: dict[tuple, int] = {}
    rest: list[LinearAtom] = []
    for a in atoms:
        if a.op != GE:
            rest.append(a)
            continue
        old = best.get(a.coeffs)
        if old is None or (a.bound > old if keep_max else a.bound < old):
            best[a.coeffs] = a.bound
    return rest + [LinearAtom(c, GE, b) for c, b in best.items()]


def sym_and(parts: Iterable) -> object:
    return _combine("and", parts)


def sym_or(parts: Iterable) -> object:
    return _combine("or", parts)


def _combine(kind: str, parts: Iterable) -> object:
    unit, zero = (True, False) if kind == "and" else (False, True)
    flat: set = set()
    for p in parts:
        if p is zero:
            return zero
        if p is unit:
            continue
        if isinstance(p, _Op) and p.kind == kind:
            flat.update(p.args)
        else:
            flat.add(p)
    atoms = [p for p in flat if isinstance(p, LinearAtom)]
    if len(atoms) > 1:
        flat = {p for p in flat if not isinstance(p, LinearAtom)} | set(_tighten(atoms, kind == "and"))
    if not flat:
        return unit
    if len(flat) == 1:
        return next(iter(flat))
    return _Op(kind, frozenset(flat))


def sym_holds(s: object, values: Mapping[str, int]) -> bool:
    """The truth of ``s`` at a candidate."""
    if isinstance(s, bool):
        return s
    if isinstance(s, LinearAtom):
        v = s.lhs().evaluate(values)
        return v >= s.bound if s.op == GE else (v == s.bound if s.op == "==" else v != s.bound)
    return (all if s.kind == "and" else any)(sym_holds(a, values) for a in s.args)


def sym_expr(s: object) -> Expr:
    """``s`` as an expression over the unknowns (printable, and what ``to_z3`` converts)."""
    if isinstance(s, bool):
        return BoolConst(s)
    if isinstance(s, LinearAtom):
        if s.op == GE and all(a < 0 for _, a in s.coeffs):  # `b2 <= 0` reads better than `-b2 >= 0`
            return Compare("<=", term_expr(tuple((x, -a) for x, a in s.coeffs)), const(-s.bound))
        return Compare(s.op, term_expr(s.coeffs), const(s.bound))
    parts = sorted((sym_expr(a) for a in s.args), key=to_text)
    return (conj if s.kind == "and" else disj)(*parts)


def atoms_of(s: object) -> int:
    """The number of atoms of ``s`` (its size as the report counts it)."""
    if isinstance(s, bool):
        return 0
    if isinstance(s, LinearAtom):
        return 1
    return sum(atoms_of(a) for a in s.args)


# -------------------------------------------------------------------- evaluation at a state


class _Evaluator:
    """State formulas of the automaton evaluated at a configuration with the unknowns left
    symbolic; answers are kept per formula and per value of the names it reads."""

    def __init__(self, unknowns: Iterable[str]) -> None:
        self.unknowns = frozenset(unknowns)
        self.cache: dict[tuple[int, tuple], object] = {}
        self.reads: dict[int, tuple[str, ...]] = {}
        self.keep: list[Expr] = []  # the formulas whose ids key the cache stay alive

    def __call__(self, e: Expr, env: Mapping[str, int]) -> object:
        key_names = self.reads.get(id(e))
        if key_names is None:
            key_names = tuple(sorted({n.name for n in names(e)} - self.unknowns))
            self.reads[id(e)] = key_names
            self.keep.append(e)
        key = (id(e), tuple(env[n] for n in key_names))
        found = self.cache.get(key)
        if found is None:
            found = self.formula(e, env)
            self.cache[key] = found
        return found

    def formula(self, e: Expr, env: Mapping[str, int]) -> object:
        if isinstance(e, BoolConst):
            return e.value
        if isinstance(e, Compare):
            atom = normalize(Compare(e.op, self.term(e.left, env), self.term(e.right, env)))
            return atom
        if isinstance(e, Not):
            return _negate(self.formula(e.arg, env))
        if isinstance(e, And):
            return sym_and(self.formula(a, env) for a in e.args)
        if isinstance(e, Or):
            return sym_or(self.formula(a, env) for a in e.args)
        if isinstance(e, Implies):
            return sym_or((_negate(self.formula(e.left, env)), self.formula(e.right, env)))
        raise RegionError(f"not a state formula: {to_text(e)}")

    def term(self, e: Expr, env: Mapping[str, int]) -> Expr:
        """``e`` with every name but the unknowns replaced by its value (a linear term over the
        unknowns, as an expression: ``normalize`` linearizes it)."""
        lin = self.linear(e, env)
        return term_expr(lin.coeffs, lin.const)

    def linear(self, e: Expr, env: Mapping[str, int]) -> LinearTerm:
        if isinstance(e, IntConst):
            return LinearTerm((), e.value)
        if isinstance(e, Name):
            if e.name in self.unknowns:
                return LinearTerm(((e.name, 1),), 0)
            return LinearTerm((), env[e.name])
        if isinstance(e, Neg):
            return -self.linear(e.arg, env)
        if isinstance(e, Sum):
            total = LinearTerm()
            for sign, arg in e.signed():
                total = total + self.linear(arg, env).scale(sign)
            return total
        if isinstance(e, Mul):
            left, right = self.linear(e.left, env), self.linear(e.right, env)
            if left.is_constant:
                return right.scale(left.const)
            if right.is_constant:
                return left.scale(right.const)
            raise RegionError(f"'{to_text(e)}' is not linear in the unknowns")
        if isinstance(e, Div):
            left, right = self.linear(e.left, env), self.linear(e.right, env)
            if left.is_constant and right.is_constant and right.const > 0:
                return LinearTerm((), left.const // right.const)
            raise RegionError(f"'{to_text(e)}' divides a term with unknowns")
        raise RegionError(f"not an arithmetic term: {to_text(e)}")


def _negate(s: object) -> object:
    if isinstance(s, bool):
        return not s
    if isinstance(s, LinearAtom):
        if s.op == GE:  # not (l >= b)  iff  -l >= 1 - b
            return LinearAtom(tuple((x, -a) for x, a in s.coeffs), GE, 1 - s.bound)
        return LinearAtom(s.coeffs, "!=" if s.op == "==" else "==", s.bound)
    return _combine("or" if s.kind == "and" else "and", (_negate(a) for a in s.args))


# --------------------------------------------------------------------------- the run's region


@dataclass
class _Unit:
    """The run as single-process steps: the configurations (as environments with the
    parameters), and the rule each step fires."""

    envs: list[dict[str, int]]
    rules: list[int]


def _units(ta: ThresholdAutomaton, parameters: Mapping[str, int], start: Configuration,
           steps: list[Step], budget: int) -> _Unit:
    env = {**parameters, **dict(start.shared), **dict(start.counters)}
    envs, rules = [dict(env)], []
    total = sum(s.factor for s in steps)
    if total > budget:
        raise RegionError(f"the run has {total} single-process steps, more than {budget}: its "
                          "region would be costly to build, so the candidate alone is excluded")
    for step in steps:
        rule = ta.rules[step.rule]
        increments = ta.increments(rule)
        if increments is None:
            raise RegionError(f"rule {rule.id} is not an increment of shared variables")
        for _ in range(step.factor):
            rules.append(step.rule)
            env[rule.source] -= 1
            env[rule.target] += 1
            for v, d in increments.items():
                env[v] += d
            envs.append(dict(env))
    return _Unit(envs, rules)


def run_region(ta: ThresholdAutomaton, prop: str, cex: Counterexample, candidate: Mapping[str, int],
               max_unit_steps: int = 200_000, space: CandidateSpace | None = None) -> Expr:
    """The region of ``cex`` (a violation of ``prop`` found for ``candidate``) over the unknowns of
    ``ta`` (the automaton as written, with its unknowns); see the module docstring. With
    ``space``, the parts that say nothing inside it are left out (:func:`within`)."""
    s = region_formula(ta, prop, cex, max_unit_steps)
    if not sym_holds(s, candidate):
        raise RegionError("the candidate is not in the region of its own counterexample "
                          f"({to_text(sym_expr(s))}): a bug in tactl/synth/region.py; the candidate "
                          "alone is excluded", bug=True)
    return sym_expr(within(s, space) if space is not None else s)


def within(s: object, space: CandidateSpace) -> object:
    """``s`` restricted to ``space``: a conjunct that every candidate of the space satisfies, or a
    disjunct that none does, is left out (one small z3 question each). The same candidates of
    the space are in the result as in ``s``; it only reads shorter."""
    if not isinstance(s, _Op):
        return s
    import z3  # lazy: z3 is slow to import; loaded when a region is simplified

    sym = int_symbols()
    solver = z3.Solver()
    solver.add(*(to_z3(c, sym) for c in space.constraints))
    for u, (lo, hi) in space.bounds.items():
        solver.add(sym(u) >= lo, sym(u) <= hi)
    kept = []
    for part in s.args:
        # a conjunct is dropped when its negation is impossible, a disjunct when it is
        question = _negate(part) if s.kind == "and" else part
        if solver.check(to_z3(sym_expr(question), sym)) == z3.unsat:
            continue
        kept.append(part)
    return _combine(s.kind, kept)


def region_formula(ta: ThresholdAutomaton, prop: str, cex: Counterexample,
                   max_unit_steps: int = 200_000) -> object:
    """The region as a symbolic formula (:func:`sym_expr` makes it an expression)."""
    found = next((p for p in ta.properties if p.name == prop), None)
    if found is None:
        raise RegionError(f"no property {prop}")
    query = temporal_query(ta, found)
    if not isinstance(query, TemporalQuery):
        raise RegionError(f"{prop}: {query.reason}")
    parameters = {p: cex.parameters[p] for p in ta.parameters}
    evaluate = _Evaluator(ta.unknowns)
    run = _units(ta, parameters, cex.initial, cex.schedule, max_unit_steps)
    parts: list[object] = []
    start = run.envs[0]
    parts.extend(evaluate(ta.expand(a), start) for a in ta.assumptions if _mentions_others(ta, a))
    parts.extend(evaluate(ta.expand(e), start) for e in ta.inits)
    guards = [ta.expand(r.guard) for r in ta.rules]
    parts.extend(evaluate(guards[rule], env) for rule, env in zip(run.rules, run.envs))
    envs = run.envs
    loop_start = None
    reading = FairReading(query.negation)
    if query.infinite and cex.cycle:
        reading = loop_reading(ta, query)
        loop = _units(ta, parameters, _configuration(ta, envs[-1]), cex.cycle,
                      max_unit_steps - len(run.rules))
        parts.extend(evaluate(guards[rule], env) for rule, env in zip(loop.rules, loop.envs))
        loop_start = len(envs) - 1
        loop_envs = loop.envs[:-1]  # the loop's end is its start
        envs = envs + loop_envs[1:]
        left = {ta.rules[s.rule].source for s in cex.cycle if not ta.rules[s.rule].is_self_loop}
        for pair in reading.pairs:
            if pair.location in left or all(e[pair.location] == 0 for e in loop_envs):
                continue
            parts.append(sym_and(evaluate(pair.waived, e) for e in loop_envs))
    elif query.infinite:
        if cex.loop is None:
            raise RegionError("a liveness counterexample without a loop")
        parts.append(evaluate(guards[cex.loop], envs[-1]))
    parts.append(_temporal(reading.negation, envs, loop_start, evaluate))
    return sym_and(parts)


def _mentions_others(ta: ThresholdAutomaton, e: Expr) -> bool:
    """An assumption that is not a range of the unknowns (those hold for every candidate)."""
    unknowns = set(ta.unknowns)
    return any(n.name not in unknowns for n in names(ta.expand(e)))


def _configuration(ta: ThresholdAutomaton, env: Mapping[str, int]) -> Configuration:
    return Configuration(tuple((loc.name, env[loc.name]) for loc in ta.locations),
                         tuple((v, env[v]) for v in ta.shared))


def _temporal(formula: Expr, envs: list[dict[str, int]], loop_start: int | None, evaluate) -> object:
    """The negated specification (NNF) at position 0 of the lasso ``envs`` (loop from
    ``loop_start``, or the last position alone), with the unknowns symbolic: the semantics of
    ``_lasso_with_loop`` in tactl/engines/simulate.py. Positions where nothing the formula reads
    changes are merged first (no next-time operator can tell them apart)."""
    read = sorted({n.name for n in names(formula)} & set(envs[0]))
    kept, index = [], []
    for i, env in enumerate(envs):
        if not kept or any(env[n] != kept[-1][n] for n in read):
            kept.append(env)
        index.append(len(kept) - 1)
    start = index[loop_start] if loop_start is not None else len(kept) - 1
    size = len(kept)

    def values(e: Expr) -> list:
        if not any(isinstance(n, (Always, Eventually)) for n in _nodes(e)):
            return [evaluate(e, env) for env in kept]
        if isinstance(e, And):
            parts = [values(a) for a in e.args]
            return [sym_and(p[i] for p in parts) for i in range(size)]
        if isinstance(e, Or):
            parts = [values(a) for a in e.args]
            return [sym_or(p[i] for p in parts) for i in range(size)]
        if isinstance(e, (Eventually, Always)):
            inner = values(e.arg)
            combine = sym_and if isinstance(e, Always) else sym_or
            in_loop = combine(inner[start:])
            out = [in_loop] * size
            acc = in_loop
            for i in range(start - 1, -1, -1):
                acc = combine((acc, inner[i]))
                out[i] = acc
            return out
        raise RegionError(f"not in negation normal form: {type(e).__name__}")

    return values(formula)[0]


def _nodes(e: Expr):
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children())
