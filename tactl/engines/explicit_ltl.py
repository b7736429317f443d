"""The explicit-state engine for temporal properties: LTL formula progression, fixed parameters.

Not a proof for all n — a bounded check and an independent reference for the parameterized
engine. It deliberately shares nothing with the cut-point form (``TemporalQuery.branches``): it
works on the negated specification ``ψ = query.negation`` (NNF, macro-expanded: state formulas,
``&&``, ``||``, ``<>``, ``[]``) and explores the *product* of the counter system with formula
progression, for every parameter valuation up to the bound that satisfies the resilience
condition (semantics: ``tactl.ir.eltl.formula``, decisions 1–6).

* A product state ``(s, O)`` is a configuration and an *obligation*: a set of formulas (after the
  start, only ``<>χ`` and ``[]χ``) that must all hold on the run from ``s`` on. It starts as
  ``(s0, {ψ})`` for every initial configuration ``s0``.
* Progressing a formula through ``s`` gives a set of obligations for the next position (a DNF:
  one of them must hold there): a state formula is ``{∅}`` or ``∅`` by its value in ``s``; ``&&`` is
  the product, ``||`` the union; ``<>χ`` is ``prog(χ) ∪ {{<>χ}}``; ``[]χ`` is ``prog(χ) × {{[]χ}}``.
  Obligation sets are subsets of ψ's finitely many temporal subformulas, and a set that contains
  another one of the same DNF is dropped (it asks for more).
* A step is one process moving along a rule whose source is occupied and whose guard is true —
  self-loops included: a non-updating self-loop leaves ``s`` alone but progresses ``O``.
* Finite-prefix classes (propositional, reachability, nested safety; decision 3): violated iff
  some reachable ``(s, O)`` progresses to the empty obligation (every ``<>`` witnessed). A
  propositional ψ progresses to ``{∅}`` or ``∅`` at the initial configuration itself (decision 4).
* Liveness (decisions 1, 2): violated iff some reachable ``(s, O)`` has a non-updating self-loop
  enabled at ``s`` and every formula of ``O`` holds on ``s^ω`` (where ``<>χ`` and ``[]χ`` are both
  ``χ``). A deadlocked configuration ends no infinite run, so it never counts.
* Liveness on an automaton with cycles through several locations (``ir/eltl/cycles.py``), or
  with resets or decrements (whatever else it has): the loop may pass through several
  configurations, so the whole product is built and searched for a strongly connected component
  that discharges every ``<>`` (``_fair_lasso``), with the justice taken out of ψ and read per
  process (``ir/eltl/justice.py``, which says how when a reset makes a guard false again),
  Emerson–Lei style (``_just_component``). At fixed parameters the product is finite when the
  shared variables stay bounded on the configurations it reaches; otherwise ``max_states`` cuts
  the search and the verdict is unknown.

Every violation is replayed by the simulator (``tactl.engines.simulate.replay_run``), which evaluates ψ
on the run by plain LTL semantics; a violation it cannot confirm is reported unknown.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from tactl.engines.explicit import (
    DEFAULT_BOUND,
    DEFAULT_MAX_STATES,
    MAX_INITIAL,
    ENGINE,
    Interrupt,
    batches,
    compile_expression,
    compile_moves,
    explore_instances,
    initial_states,
    state_index,
    successors,
)
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED, Counterexample, PropertyResult
from tactl.engines.simulate import Configuration, Step, replay_query
from tactl.ir.eltl.cycles import cycle_reason, has_several_location_cycles
from tactl.ir.eltl.formula import TemporalQuery, lasso_reason
from tactl.ir.eltl.justice import FairReading, exits, loop_reading
from tactl.ir.eltl.reset_response import reset_rules
from tactl.ir.ta.validate import strongly_connected
from tactl.ir.expr import Always, And, BoolConst, Eventually, Expr, Or, is_temporal
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.ta.model import ThresholdAutomaton

__all__ = ["check_temporal", "DEFAULT_BOUND", "DEFAULT_MAX_STATES"]

State = tuple[int, ...]
_Pair = tuple[Callable[[State], object], int, frozenset[int]]  # a justice pair: waived, location, exits
Obligation = frozenset[int]          # node ids of formulas that must hold from here on
Dnf = frozenset[Obligation]          # one of these obligations must hold at the next position
TRUE: Dnf = frozenset({frozenset()})
FALSE: Dnf = frozenset()

_STATE, _AND, _OR, _EVENTUALLY, _ALWAYS = range(5)


# ------------------------------------------------------------------------------ the formula


class _Formula:
    """ψ as a table of interned nodes; state formulas compiled to closures over the state tuple."""

    def __init__(self, negation: Expr, index: dict[str, int], params: dict[str, int]) -> None:
        self.kind: list[int] = []
        self.children: list[tuple[int, ...]] = []
        self.test: list[Callable[[State], object] | None] = []
        self._ids: dict[Expr, int] = {}
        self._index, self._params = index, params
        self.root = self._node(negation)

    def _node(self, e: Expr) -> int:
        if e in self._ids:
            return self._ids[e]
        if not is_temporal(e):
            kind, children, test = _STATE, (), compile_expression(e, self._index, self._params)
        elif isinstance(e, (And, Or)):
            kind, children, test = (_AND if isinstance(e, And) else _OR), tuple(self._node(a) for a in e.args), None
        elif isinstance(e, Eventually):
            kind, children, test = _EVENTUALLY, (self._node(e.arg),), None
        elif isinstance(e, Always):
            kind, children, test = _ALWAYS, (self._node(e.arg),), None
        else:
            raise ValueError(f"not in negation normal form: {type(e).__name__} over a temporal operand")
        n = len(self.kind)
        self.kind.append(kind)
        self.children.append(children)
        self.test.append(test)
        self._ids[e] = n
        return n

    def progress(self, n: int, s: State) -> Dnf:
        """The obligations for the next position under which node ``n`` holds at ``s``."""
        kind = self.kind[n]
        if kind == _STATE:
            return TRUE if self.test[n](s) else FALSE  # type: ignore[misc]
        if kind == _AND:
            out = TRUE
            for c in self.children[n]:
                out = _and(out, self.progress(c, s))
                if not out:
                    break
            return out
        if kind == _OR:
            out = FALSE
            for c in self.children[n]:
                out = _or(out, self.progress(c, s))
            return out
        inner = self.progress(self.children[n][0], s)
        if kind == _EVENTUALLY:
            return _or(inner, frozenset({frozenset({n})}))
        return _and(inner, frozenset({frozenset({n})}))

    def progress_all(self, obligation: Obligation, s: State) -> Dnf:
        out = TRUE
        for n in obligation:
            out = _and(out, self.progress(n, s))
            if not out:
                break
        return out

    def on_constant(self, n: int, s: State) -> bool:
        """Whether node ``n`` holds on the constant sequence ``s^ω``."""
        kind = self.kind[n]
        if kind == _STATE:
            return bool(self.test[n](s))  # type: ignore[misc]
        if kind == _AND:
            return all(self.on_constant(c, s) for c in self.children[n])
        if kind == _OR:
            return any(self.on_constant(c, s) for c in self.children[n])
        return self.on_constant(self.children[n][0], s)  # <>χ and []χ: χ, on s^ω


def _minimal(sets: set[Obligation]) -> Dnf:
    """Drop every obligation that contains another one (it asks for more)."""
    if len(sets) <= 1:
        return frozenset(sets)
    ordered = sorted(sets, key=len)
    kept: list[Obligation] = []
    for o in ordered:
        if not any(k <= o for k in kept):
            kept.append(o)
    return frozenset(kept)


def _or(a: Dnf, b: Dnf) -> Dnf:
    if not a:
        return b
    if not b:
        return a
    return _minimal(set(a) | set(b))


def _and(a: Dnf, b: Dnf) -> Dnf:
    if not a or not b:
        return FALSE
    if a == TRUE:
        return b
    if b == TRUE:
        return a
    return _minimal({x | y for x in a for y in b})


# ------------------------------------------------------------------------------ the search


@dataclass
class _Outcome:
    verdict: str
    states: int
    initials: int = 0
    path: list[int] | None = None
    initial: State | None = None
    loop: int | None = None
    reason: str | None = None
    limited: tuple[str, ...] = ()
    cycle: list[int] | None = None  # a loop through several configurations (rules, in order)


def check_temporal(ta: ThresholdAutomaton, query: TemporalQuery, fixed: dict[str, int],
                   bound: int = DEFAULT_BOUND, max_states: int = DEFAULT_MAX_STATES,
                   progress: Callable[[str], None] | None = None) -> PropertyResult:
    """Decide ``query`` for every parameter valuation up to ``bound`` (``fixed`` values kept) that
    satisfies the resilience condition; ``max_states`` bounds the product states of all of them.

    "holds" needs at least one initial configuration explored and every instance explored
    completely; otherwise the verdict is unknown with the reason."""
    start = time.perf_counter()

    def result(verdict: str, **kw: object) -> PropertyResult:
        return PropertyResult(query.property, query.kind, verdict, ENGINE,  # type: ignore[arg-type]
                              time.perf_counter() - start, 0,
                              formula_class=query.formula_class.value, **kw)

    if query.infinite and not reset_rules(ta):
        # without a reset or a decrement the scope stays that of the parametric engines, which
        # this engine cross-checks (with one, the product is searched as it is: see above)
        why = lasso_reason(ta) and cycle_reason(ta)
        if why is not None:
            return result(UNSUPPORTED, reason=why)

    def confirm(params: dict[str, int], init: Configuration, schedule: list[Step], outcome) -> Counterexample:
        return counterexample(ta, query, params, init, schedule, outcome)

    return explore_instances(
        ta, query.property, fixed, bound, max_states, progress, result,
        lambda params, budget: search_one_valuation(ta, query, params, bound, budget), confirm)


def counterexample(ta: ThresholdAutomaton, query: TemporalQuery, params: dict[str, int],
                   init: Configuration, schedule: list[Step], outcome: _Outcome) -> Counterexample:
    """The violation ``outcome`` found (prefix ``schedule`` from ``init``), replayed."""
    cycle = batches(ta, outcome.cycle) if outcome.cycle else None
    check = replay_query(ta, query, params, init, schedule, outcome.loop, cycle)
    return Counterexample(params, init, schedule, check, loop=outcome.loop, cycle=cycle)


def search_one_valuation(ta: ThresholdAutomaton, query: TemporalQuery, params: dict[str, int],
                         bound: int, max_states: int, stop: Callable[[], str | None] | None = None) -> _Outcome:
    """Breadth-first search of the product at one parameter valuation for a violation of
    ``query`` (a lasso's prefix is then shortest, which ``tactl.engines.shortest`` relies on);
    ``stop()``, asked at every product state, says why to give up (else None)."""
    index = state_index(ta)
    # a loop may pass through several configurations: the whole product is searched
    cyclic = query.infinite and (has_several_location_cycles(ta) or lasso_reason(ta) is not None)
    reading = loop_reading(ta, query) if cyclic else FairReading(query.negation)
    formula = _Formula(reading.negation, index, params)
    moves = compile_moves(ta, index, params)
    # self-loops that update nothing: what keeps an infinite run going (decision 1)
    loops = [(i, src, guard) for i, src, _, guard, _ in moves
             if ta.rules[i].is_self_loop and ta.increments(ta.rules[i]) == {}]
    question = ReachQuery(query.property, BoolConst(True), BoolConst(True))
    interrupt = Interrupt(stop)
    initials, complete, limited = initial_states(ta, question, params, index, bound, max_states, interrupt)
    if not complete:
        return _Outcome(UNKNOWN, len(initials), reason=interrupt.why or f"more than "
                        f"{min(MAX_INITIAL, max_states)} initial configurations")
    if not initials and limited:  # the cap at --bound, not the inits, may have emptied the set
        return _Outcome(UNKNOWN, 0, reason=f"no initial configuration with {', '.join(limited)} "
                        f"capped at --bound {bound} (the inits allow larger values)",
                        limited=tuple(limited))

    if cyclic:
        justice = [(compile_expression(p.waived, index, params), index[p.location], frozenset(exits(ta, p.location)))
                   for p in reading.pairs]
        return _fair_lasso(formula, moves, initials, max_states, limited, justice, interrupt)

    def enabled_loop(s: State) -> int | None:
        return next((i for i, src, guard in loops if s[src] >= 1 and guard(s)), None)

    Node = tuple[State, Obligation]
    parent: dict[Node, tuple[Node, int] | None] = {}
    queue: deque[Node] = deque()
    start: Obligation = frozenset({formula.root})
    for s in initials:
        node = (s, start)
        if node not in parent:
            parent[node] = None
            queue.append(node)
    found: Node | None = None
    loop: int | None = None
    while queue:
        if len(parent) > max_states:
            return _Outcome(UNKNOWN, len(parent), len(initials),
                            reason="the state limit (--max-states) was reached", limited=tuple(limited))
        if interrupt():
            return _Outcome(UNKNOWN, len(parent), len(initials), reason=interrupt.why or "",
                            limited=tuple(limited))
        node = queue.popleft()
        s, obligation = node
        if query.infinite:
            loop = enabled_loop(s)
            if loop is not None and all(formula.on_constant(m, s) for m in obligation):
                found = node
                break
            loop = None
        following = formula.progress_all(obligation, s)
        if not following:
            continue  # ψ fails on every run through this product state
        if not query.infinite and frozenset() in following:
            found = node  # every <> witnessed by the prefix ending at s (decision 3)
            break
        for i, t in successors(s, moves):
            for o in following:
                child = (t, o)
                if child not in parent:
                    parent[child] = (node, i)
                    queue.append(child)
    if found is None:
        return _Outcome(HOLDS, len(parent), len(initials), limited=tuple(limited))
    path: list[int] = []
    at = found
    while parent[at] is not None:
        at, rule = parent[at]  # type: ignore[misc]
        path.append(rule)
    return _Outcome(VIOLATED, len(parent), len(initials), list(reversed(path)), at[0], loop,
                    limited=tuple(limited))


# ------------------------------------------------------------------- loops through several configurations


def _fair_lasso(formula: _Formula, moves, initials: list[State], max_states: int,
                limited: list[str], justice: list[_Pair], interrupt: Interrupt | None = None) -> _Outcome:
    """A lasso violating the specification when loops may pass through several configurations
    (``ir/eltl/cycles.py``): the reachable product, then its strongly connected components. A
    component with an edge is a violation when, for every ``<>χ`` of ψ, one of its product
    states no longer owes ``<>χ`` (a generalised Büchi condition: a cycle through those states
    witnesses every pending ``<>`` again and again; every ``[]`` is kept by progression on every
    state of it) and meets each pair of ``justice`` per process (``_just_component``); the loop
    then also takes one edge out of each justice location that needs it. Deadlocked states have
    no edge, so they end no infinite run (decision 1)."""
    Node = tuple[State, Obligation]
    ids: dict[Node, int] = {}
    nodes: list[Node] = []
    edges: list[list[tuple[int, int]]] = []
    parent: list[tuple[int, int] | None] = []
    queue: deque[int] = deque()

    def add(node: Node, came: tuple[int, int] | None) -> int:
        if node not in ids:
            ids[node] = len(nodes)
            nodes.append(node)
            edges.append([])
            parent.append(came)
            queue.append(ids[node])
        return ids[node]

    start: Obligation = frozenset({formula.root})
    for s in initials:
        add((s, start), None)
    while queue:
        if len(nodes) > max_states:
            return _Outcome(UNKNOWN, len(nodes), len(initials),
                            reason="the state limit (--max-states) was reached", limited=tuple(limited))
        if interrupt is not None and interrupt():
            return _Outcome(UNKNOWN, len(nodes), len(initials), reason=interrupt.why or "",
                            limited=tuple(limited))
        u = queue.popleft()
        s, obligation = nodes[u]
        following = formula.progress_all(obligation, s)
        for i, t in (successors(s, moves) if following else ()):
            for o in following:
                edges[u].append((i, add((t, o), (u, i))))
    pending = [n for n, kind in enumerate(formula.kind) if kind == _EVENTUALLY]
    refs = {u: [v for _, v in out] for u, out in enumerate(edges)}
    accepting = []
    for comp in strongly_connected(refs):
        found = _just_component(set(comp), nodes, edges, refs, pending, justice)
        if found is not None:
            accepting.append(found)
    if not accepting:
        return _Outcome(HOLDS, len(nodes), len(initials), limited=tuple(limited))
    members, visits, leaving = min(accepting, key=lambda a: min(a[0]))
    entry = min(members)
    prefix: list[int] = []
    at = entry
    while parent[at] is not None:
        at, rule = parent[at]  # type: ignore[misc]
        prefix.append(rule)
    cycle: list[int] = []
    here = entry
    for goal in visits:
        if goal != here:
            step_rules, here = _walk(edges, members, here, goal)
            cycle.extend(step_rules)
    for source, rule, target in leaving:  # the steps that make the loop just (per process)
        if source != here:
            cycle.extend(_walk(edges, members, here, source)[0])
        cycle.append(rule)
        here = target
    if here != entry or not cycle:
        cycle.extend(_walk(edges, members, here, entry)[0])
    return _Outcome(VIOLATED, len(nodes), len(initials), list(reversed(prefix)), nodes[at][0],
                    limited=tuple(limited), cycle=cycle)


def _just_component(comp: set[int], nodes, edges: list[list[tuple[int, int]]], refs: dict[int, list[int]],
                    pending: list[int], justice: list[_Pair]):
    """A part of the strongly connected component ``comp`` that a just loop may stay in and that
    discharges every pending ``<>``: its members, the node that discharges each ``<>``, and an
    edge leaving each justice location that needs one; or None.

    Emerson–Lei for the per-process justice (``ir/eltl/justice.py``): a pair is met in a
    component where it is waived, or where an edge leaves its location; otherwise only the states
    where its location is empty or the pair is waived may stay (a process that never leaves
    needs its exit disabled at every loop configuration, which matters once a reset can make a
    guard false again), so the others are cut out and the components recomputed."""
    stack = [comp]
    while stack:
        members = stack.pop()
        if len(members) == 1 and next(iter(members)) not in refs[next(iter(members))]:
            continue
        leaving: list[tuple[int, int, int]] = []
        unmet: list[_Pair] = []
        for waived, location, exits in justice:
            if all(waived(nodes[u][0]) for u in members):
                continue
            edge = next(((u, i, v) for u in sorted(members) for i, v in edges[u] if i in exits and v in members), None)
            if edge is not None:
                leaving.append(edge)
            elif any(nodes[u][0][location] and not waived(nodes[u][0]) for u in members):
                unmet.append((waived, location, exits))
        if unmet:
            kept = {u for u in members
                    if not any(nodes[u][0][loc] and not waived(nodes[u][0]) for waived, loc, _ in unmet)}
            inside = {u: [v for v in refs[u] if v in kept] for u in kept}
            stack.extend(set(c) for c in strongly_connected(inside))
            continue
        visits = [min((u for u in members if n not in nodes[u][1]), default=None) for n in pending]
        if None not in visits:
            return members, visits, leaving
    return None


def _walk(edges: list[list[tuple[int, int]]], members: set[int], source: int,
          goal: int) -> tuple[list[int], int]:
    """The rules of a shortest path of at least one edge from ``source`` to ``goal`` inside
    ``members`` (one strongly connected component, so it exists)."""
    back: dict[int, tuple[int, int]] = {}
    queue = deque([source])
    while queue:
        u = queue.popleft()
        for rule, v in edges[u]:
            if v not in members or v in back:
                continue
            back[v] = (u, rule)
            if v == goal:
                rules = []
                while True:  # back along the breadth-first tree, which is rooted at source
                    u, rule = back[v]
                    rules.append(rule)
                    if u == source:
                        return list(reversed(rules)), goal
                    v = u
            queue.append(v)
    raise AssertionError("no path inside a strongly connected component")  # pragma: no cover
