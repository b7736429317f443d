"""Reduction pass: (TA, what a property observes) → the TA without its *shortcut* rules.

Why. The automata ByMC generates from Promela (nbacr, cc, c1cs) and large ``.alg`` models
accelerate receive steps: besides ``l0 -> l1`` and ``l1 -> l2`` they have a rule ``l0 -> l2``
whose guard is at least as strong as both together, so one process may jump ahead in one step.
Such a rule adds no reachable configuration that matters: 853 of nbacr's 1,031 rules, 1,689 of
cc_case1's 2,064 and 695 of c1cs_case1's 1,285 are shortcuts, and every steady segment of the
query has a firing count per rule.

A rule ``r: s -> t`` (guard ``g_r``, increments ``u_r``) is a *shortcut via* ``a: s -> m`` and
``b: m -> t`` (``m`` neither ``s`` nor ``t``; ``a``, ``b`` not ``r``, kept, not self-loops) when

1. ``u_a + u_b = u_r``, and
2. under the resilience condition (and the ``--param`` values), for all natural shared values
   ``x``: ``g_r(x)`` implies ``g_a(x)`` and ``g_b(x + u_a)`` (asked of z3, linear arithmetic), and
3. when the property observes intermediate configurations (its negation has invariants, ``[]``):
   ``m`` is not observed, and either ``s`` is not observed and ``u_a`` changes no observed
   variable, or ``t`` is not observed and ``u_b`` changes no observed variable.

Soundness (the reduced automaton has the same verdict). Its rules are a subset of the original
ones, so each of its runs is an original run: a counterexample found on it is one of the
original automaton, and it is replayed there (``tactl.engines.reduced``). Conversely, take any
original run and replace every step of a removed rule ``r`` by the steps of ``a`` then ``b``
(same process): ``a`` is enabled because ``g_r`` held at the configuration (condition 2) and the
process is in ``s``; ``b`` is then enabled because the process is in ``m`` and the shared
variables are ``x + u_a``; the configuration after ``b`` is the one after ``r`` (condition 1).
Rules removed later are replaced by rules present at that time, so repeating this ends in a run
of the reduced automaton (each removal happens at a distinct time; every replacement uses rules
present later). The new run visits every configuration of the old one, in order, plus the
intermediate ones, and ends in the same configuration: a cut point's witness and the loop
configuration σ_L (with its enabled self-loop: self-loops are never removed) stay, so
reachability, nested safety without invariants and the justice at σ_L are preserved as they are.
An invariant (``[]φ`` in the negation) is also evaluated at each intermediate configuration:
by condition 3 that configuration agrees on every observed counter and variable with the one
before the step (``s`` unobserved, ``u_a`` invisible) or after it (``t`` unobserved, ``u_b``
invisible), so φ has there a value φ already has on the original run. Removing rules adds no
cycle, so the lasso semantics' "cycles are self-loops" stays true.

The result keeps every location (counters the ``inits`` constrain stay as they are); a rule is
represented by its original index in ``kept``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from tactl.ir.expr import BoolConst
from tactl.ir.linear import NonLinearError, int_symbols, to_z3
from tactl.ir.ta.model import ThresholdAutomaton


# z3 questions per automaton at most (nbacr asks 853, cc_case1 1,689); past it the remaining
# rules are kept, so that a dense hostile automaton cannot make the reduction the slow part.
MAX_QUESTIONS = 20_000


@dataclass(frozen=True)
class Reduction:
    """``ta`` with only the rules ``kept`` (original indices, in order); ``via`` says for each
    removed rule which two rules (original indices) replace it."""

    original: ThresholdAutomaton
    ta: ThresholdAutomaton
    kept: tuple[int, ...]
    via: dict[int, tuple[int, int]] = field(default_factory=dict)

    @property
    def removed(self) -> int:
        return len(self.original.rules) - len(self.kept)

    def original_rule(self, reduced_index: int) -> int:
        return self.kept[reduced_index]


def identity(ta: ThresholdAutomaton) -> Reduction:
    return Reduction(ta, ta, tuple(range(len(ta.rules))))


def drop_shortcuts(ta: ThresholdAutomaton, observed: frozenset[str] | None = None,
                   parameters: dict[str, int] | None = None) -> Reduction:
    """The automaton without its shortcut rules (module doc). ``observed``: the location and
    shared-variable names of the property's invariants, or None when it has none (then
    intermediate configurations are not observed at all). Automata whose guards are not linear
    or whose updates are not increments are returned unchanged."""
    import z3  # lazy: z3 is slow to import; only checks reduce automata

    increments = [ta.increments(r) for r in ta.rules]
    if any(inc is None for inc in increments) or ta.unknowns:
        return identity(ta)
    incs: list[dict[str, int]] = [{v: d for v, d in inc.items() if d} for inc in increments]  # type: ignore[union-attr]
    sym = int_symbols()
    try:
        guards = [to_z3(ta.expand(r.guard), sym) for r in ta.rules]
        background = [to_z3(ta.expand(a), sym) for a in ta.assumptions]
    except (NonLinearError, TypeError, ValueError):
        return identity(ta)
    solver = z3.Solver()
    solver.set("timeout", 2000)  # per implication; "unknown" keeps the rule
    solver.add(*background)
    solver.add(*(sym(x) >= 0 for x in (*ta.parameters, *ta.shared)))
    solver.add(*(sym(p) == v for p, v in (parameters or {}).items()))

    out: dict[str, list[int]] = defaultdict(list)
    into: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, r in enumerate(ta.rules):
        if not r.is_self_loop:
            out[r.source].append(i)
            into[(r.source, r.target)].append(i)
    watched = observed or frozenset()

    def invisible(inc: dict[str, int]) -> bool:
        return not (set(inc) & watched)

    def allowed(s: str, m: str, t: str, a: int, b: int) -> bool:
        if observed is None:
            return True
        if m in watched:
            return False
        return (s not in watched and invisible(incs[a])) or (t not in watched and invisible(incs[b]))

    def implied(r: int, a: int, b: int) -> bool:
        after_a = guards[b]
        if incs[a]:
            after_a = z3.substitute(after_a, *[(sym(v), sym(v) + d) for v, d in incs[a].items()])
        solver.push()
        solver.add(guards[r], z3.Not(z3.And(guards[a], after_a)))
        answer = solver.check()
        solver.pop()
        return answer == z3.unsat

    # A rule whose guard is false (after ``passes.simplify_guards``) is never enabled: no run
    # has a step of it, so it goes too.
    removed: set[int] = {i for i, r in enumerate(ta.rules) if r.guard == BoolConst(False)}
    via: dict[int, tuple[int, int]] = {}
    asked = 0
    for r, rule in enumerate(ta.rules):
        if rule.is_self_loop or r in removed:
            continue
        if asked >= MAX_QUESTIONS:
            break  # keeping a rule is always sound
        s, t = rule.source, rule.target
        found = None
        for a in out[s]:
            m = ta.rules[a].target
            if a == r or a in removed or m == t:
                continue
            for b in into[(m, t)]:
                if b in removed or b == r or not allowed(s, m, t, a, b):
                    continue
                total = dict(incs[a])
                for v, d in incs[b].items():
                    total[v] = total.get(v, 0) + d
                if total != incs[r]:
                    continue
                asked += 1
                if implied(r, a, b):
                    found = (a, b)
                    break
            if found:
                break
        if found:
            removed.add(r)
            via[r] = found
    kept = tuple(i for i in range(len(ta.rules)) if i not in removed)
    if not removed:
        return identity(ta)
    return Reduction(ta, replace(ta, rules=tuple(ta.rules[i] for i in kept)), kept, via)
