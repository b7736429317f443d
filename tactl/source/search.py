"""Every run of a program at fixed parameters: the reachable global states, then per property a
search for a violating run, which is replayed before it is reported.

* The **state graph** is built breadth first from every initial state (no symmetry reduction:
  plain states; ``max_states`` bounds it, and a property not decided within the bound is
  UNKNOWN). Every state has a stutter self-loop (nothing happens), so every run is infinite.
* A **property** is checked on the product of the graph with the progression of its negation
  (``tactl.source.formula.expand``): a product node whose obligations are met (empty) ends a
  finite violating prefix — the first found breadth first is a shortest one; else a reachable
  strongly connected set of product nodes that fulfils every pending ``eventually`` and is
  **just** is an infinite violating run (a lasso).
* **Justice** on a cycle (docs/alg.md, as the interpreter states it): every
  message from a correct sender (also one that crashed after sending) to a receiver that has not
  crashed is eventually delivered, except an omission-faulty sender's; every process that has not
  crashed and is not Byzantine keeps taking steps while it can. Receipts happen in steps
  (``tactl.source.system``) and sender sets only grow, so on a cycle nothing is received: a just
  cycle is one where each such process either moves and has no message pending that must reach
  it, or does not move and cannot move even after receiving every such message
  (:meth:`System.idle`). Coins are fair: from a state the cycle visits, every outcome of a coin
  toss a process makes there (after the same receipt) is taken (strong fairness, by removing
  states that break it and splitting the rest again, as Emerson–Lei). Oracles and faulty
  processes get no fairness.
* **Replay** (:func:`replay`) re-executes a run from its initial state with the interpreter:
  each step must be one of the state's transitions with the same target, a lasso's loop must end
  where it starts and be just, and the property is evaluated again on the replayed states by
  :func:`tactl.source.formula.holds_on_lasso` (no progression).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from tactl.ir.alg import syntax as A
from tactl.util import deadline

from .formula import Evaluator, eventualities, expand, holds_on_lasso, nnf, resolve_initially
from .system import STUTTER, Global, Label, System, canonical


@dataclass
class Graph:
    states: list[Global] = field(default_factory=list)
    index: dict[Global, int] = field(default_factory=dict)
    edges: list[list[tuple[Label, int]] | None] = field(default_factory=list)
    initial: list[int] = field(default_factory=list)
    truncated: bool = False
    transitions: int = 0
    two_instances: set[str] = field(default_factory=set)
    seconds: float = 0.0
    symmetric: bool = False  # one state per orbit under renaming the correct processes

    def add(self, g: Global) -> tuple[int, bool]:
        found = self.index.get(g)
        if found is not None:
            return found, False
        self.index[g] = len(self.states)
        self.states.append(g)
        self.edges.append(None)
        return len(self.states) - 1, True


def build(system: System, max_states: int, symmetric: bool = True) -> Graph:
    """The reachable states breadth first, up to ``max_states`` (``symmetric``: one per orbit)."""
    started = time.monotonic()
    graph = Graph(symmetric=symmetric)
    seen: dict[Global, Global] = {}

    def norm(g: Global) -> Global:
        if not symmetric:
            return g
        found = seen.get(g)
        if found is None:
            found = seen[g] = canonical(system, g)
        return found

    queue: deque[int] = deque()
    for g in system.initial_states():
        i, new = graph.add(norm(g))
        if new:
            graph.initial.append(i)
            queue.append(i)
    while queue:
        deadline.check()
        i = queue.popleft()
        g = graph.states[i]
        graph.two_instances |= system.two_instances(g)
        out: list[tuple[Label, int]] = []
        for label, h in system.successors(g):
            h = norm(h)
            if h not in graph.index and len(graph.states) >= max_states:
                graph.truncated = True
                out = []
                break
            j, new = graph.add(h)
            if new:
                queue.append(j)
            out.append((label, j))
        if graph.truncated:
            break
        graph.edges[i] = out
        graph.transitions += len(out)
    graph.seconds = time.monotonic() - started
    return graph


# ---- runs --------------------------------------------------------------------------------------

@dataclass
class Run:
    """A violating run: its states, the transitions between them, and where its loop starts
    (None: a finite prefix, whose extension by stuttering or any continuation still violates)."""

    states: list[Global]
    labels: list[Label]
    loop: int | None = None
    replayed: bool = False
    replay_message: str = ""


@dataclass
class Verdict:
    verdict: str  # holds / violated / unknown
    run: Run | None = None
    reason: str = ""
    product_nodes: int = 0


class _Product:
    """The product of the state graph with the progression of one negated property."""

    def __init__(self, graph: Graph, ev: Evaluator, formula: A.FormulaNode) -> None:
        self.graph, self.ev = graph, ev
        self.nodes: list[tuple[int, frozenset]] = []
        self.index: dict[tuple[int, frozenset], int] = {}
        self.parent: list[tuple[int, int] | None] = []  # (node, edge index)
        self.succ: list[list[tuple[int, Label, frozenset, frozenset]] | None] = []
        self.atoms: dict[tuple[int, int], bool] = {}
        self.formula = formula
        self.closure: set[tuple] = set()

    def add(self, key, parent) -> tuple[int, bool]:
        found = self.index.get(key)
        if found is not None:
            return found, False
        self.index[key] = len(self.nodes)
        self.nodes.append(key)
        self.parent.append(parent)
        self.succ.append(None)
        return len(self.nodes) - 1, True

    def holds(self, sid: int):
        def h(atom: A.FormulaNode) -> bool:
            key = (sid, id(atom))
            v = self.atoms.get(key)
            if v is None:
                v = self.ev.state(atom, self.graph.states[sid])
                self.atoms[key] = v
            return v
        return h

    def search(self) -> tuple[int | None, bool]:
        """Breadth first; returns a node whose obligations a state meets (a finite violation),
        and whether every product node reachable was expanded."""
        g = self.graph
        queue: deque[int] = deque()
        for sid in g.initial:
            psi = nnf(resolve_initially(self.formula, self.ev, g.states[sid]), False)
            self.closure |= eventualities(psi)
            if psi == ("false",):
                continue
            gamma = frozenset() if psi == ("true",) else frozenset({psi})
            node, new = self.add((sid, gamma), None)
            if new:
                queue.append(node)
        complete = True
        while queue:
            deadline.check()
            u = queue.popleft()
            sid, gamma = self.nodes[u]
            if not gamma:
                return u, complete
            alts = expand(gamma, self.holds(sid))
            if any(not nxt for nxt, _ in alts):
                return u, complete
            edges = g.edges[sid]
            if edges is None:
                complete = False
                continue
            out = []
            for nxt, ful in alts:
                for k, (label, t) in enumerate([*edges, (STUTTER, sid)]):
                    v, new = self.add((t, nxt), (u, len(out)))
                    out.append((v, label, nxt, ful))
                    if new:
                        queue.append(v)
            self.succ[u] = out
        return None, complete

    def path_to(self, u: int) -> tuple[list[int], list[Label]]:
        nodes, labels = [u], []
        while self.parent[nodes[-1]] is not None:
            p, k = self.parent[nodes[-1]]
            labels.append(self.succ[p][k][1])
            nodes.append(p)
        nodes.reverse()
        labels.reverse()
        return nodes, labels


def check(system: System, graph: Graph, formula: A.FormulaNode) -> Verdict:
    """The verdict of ``formula`` on ``graph``; on a symmetry-reduced graph, verdict "plain"
    means that only the plain graph can decide (a loop through several states may be just)."""
    ev = Evaluator(system)
    product = _Product(graph, ev, formula)
    found, complete = product.search()
    if found is not None:
        nodes, labels = product.path_to(found)
        run = Run([graph.states[product.nodes[u][0]] for u in nodes], labels)
        return Verdict("violated", lift(system, run) if graph.symmetric else run,
                       product_nodes=len(product.nodes))
    lasso = _fair_lasso(system, product, "stutter" if graph.symmetric else "exact")
    if lasso is not None:
        return Verdict("violated", lift(system, lasso) if graph.symmetric else lasso,
                       product_nodes=len(product.nodes))
    if graph.symmetric and _fair_lasso(system, product, "relaxed") is not None:
        return Verdict("plain", product_nodes=len(product.nodes))
    if graph.truncated or not complete:
        return Verdict("unknown", reason="the state space exceeds --max-states "
                       f"({len(graph.states)} states explored): no violation among them",
                       product_nodes=len(product.nodes))
    return Verdict("holds", product_nodes=len(product.nodes))


def lift(system: System, run: Run) -> Run:
    """A run of the program through the orbits a run of the reduced graph visits: from a real
    initial state in the first orbit, each step is a transition of the program into the next
    orbit (one exists: renaming maps transitions to transitions)."""
    x = next(g for g in system.initial_states() if canonical(system, g) == run.states[0])
    states, labels = [x], []
    for i, label in enumerate(run.labels):
        if label.kind == "stutter":
            states.append(x)
            labels.append(label)
            continue
        want = run.states[i + 1]
        x, label = next((h, lab) for lab, h in system.successors(x)
                        if lab.kind == label.kind and canonical(system, h) == want)
        states.append(x)
        labels.append(label)
    if run.loop is not None:  # a loop on one state (the only kind lifted): stutters
        states[-1] = states[run.loop]
    return Run(states, labels, run.loop)


# ---- fair lassos ---------------------------------------------------------------------------------

def _sccs(nodes: set[int], succ) -> list[list[int]]:
    """Tarjan's strongly connected components of the subgraph on ``nodes`` (iterative)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(succ(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in nodes:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def _fair_lasso(system: System, product: _Product, mode: str) -> Run | None:
    """A just, accepting lasso. ``mode``: "exact" (the plain graph), "stutter" (a loop of
    stutters on one state where every live process is idle, even after receiving every message
    that must reach it: exact on a reduced graph too), "relaxed" (a reduced graph: a run of a loop that only
    necessary conditions of justice do not exclude)."""
    expanded = {u for u, s in enumerate(product.succ) if s is not None}
    banned: set[tuple[int, int]] = set()  # coin tosses a just cycle cannot make (u, edge index)
    if mode == "stutter":
        graph = product.graph
        banned = {(u, k) for u in expanded for k, (_, label, _, _) in enumerate(product.succ[u])
                  if label.kind != "stutter"}
        expanded = {u for u in expanded if _all_idle(system, graph.states[product.nodes[u][0]])}

    def succ(u: int):
        return [v for k, (v, *_) in enumerate(product.succ[u]) if (u, k) not in banned]

    todo = [expanded]
    while todo:
        part = todo.pop()
        for comp in _sccs(part, succ):
            cset = set(comp)
            if len(comp) == 1 and comp[0] not in succ(comp[0]):
                continue
            newly = {e for u in comp for e in _tosses_leaving(product, u, cset)} - banned
            if newly:  # a toss with an outcome outside: the cycle must not make it there
                banned |= newly
                todo.append(cset)
                continue
            plan = _requirements(system, product, comp, cset, banned, mode)
            if plan is not None:
                return _lasso(product, comp, cset, plan, banned)
    return None


def _tosses_leaving(product: _Product, u: int, cset: set[int]) -> list[tuple[int, int]]:
    """The edges of the coin tosses at ``u`` some outcome of which leaves ``cset``."""
    tosses: dict[tuple, list[int]] = {}
    for k, (v, label, _, _) in enumerate(product.succ[u]):
        if label.kind == "step" and label.coins and not label.crashed:
            tosses.setdefault((label.process, label.got), []).append(k)
    out = []
    for edges in tosses.values():
        if any(product.succ[u][k][0] not in cset for k in edges):
            out.extend((u, k) for k in edges)
    return out


def _all_idle(system: System, g: Global) -> bool:
    """Whether no live process can move even after receiving every message that must reach it.
    Messages may still be pending: a receipt that enables no step is no transition (the
    receiver's step is where it happens), so their delivery is just and changes nothing a
    property reads (a process that waits for a crashed sender waits forever)."""
    return all(system.idle(g, pid) for pid in system.alive(g))


def _requirements(system: System, product: _Product, comp: list[int], cset: set[int],
                  banned: set[tuple[int, int]], mode: str = "exact"):
    """What a just, accepting cycle in ``comp`` must visit (edges as (u, index)), or None if no
    cycle in it is just and accepting."""
    graph = product.graph
    g0 = graph.states[product.nodes[comp[0]][0]]
    plan: list[tuple[int, int | None]] = []
    def inside(u: int):
        return [(k, e) for k, e in enumerate(product.succ[u]) if e[0] in cset and (u, k) not in banned]

    for f in product.closure:
        edge = next(((u, k) for u in comp for k, (v, _, nxt, ful) in inside(u)
                     if f not in nxt or f in ful), None)
        if edge is None:
            return None
        plan.append(edge)
    if mode == "relaxed":  # necessary conditions of justice that renaming does not change
        moves = any(label.kind == "step" for u in comp for _, (_, label, _, _) in inside(u))
        for u in comp:
            g = graph.states[product.nodes[u][0]]
            if any(not system.idle(g, r) for _, r, _ in system.required(g)):
                return None  # a process a message must reach moves, or could
            if not moves and not _all_idle(system, g):
                return None  # nobody moves on the loop, yet some process could
        return plan
    required = system.required(g0)
    for pid in ([] if mode == "stutter" else system.alive(g0)):
        edge = next(((u, k) for u in comp for k, (v, label, _, _) in inside(u)
                     if label.kind == "step" and label.process == pid), None)
        if edge is not None:
            if any(r == pid for _, r, _ in required):
                return None  # it moves forever and never receives a message it must
            plan.append(edge)
        elif not system.idle(g0, pid):
            return None  # it could move (after its messages arrive) and never does
    for u in comp:  # every outcome of every toss the cycle may make
        for k, (v, label, _, _) in inside(u):
            if label.kind == "step" and label.coins and not label.crashed:
                plan.append((u, k))
    return plan


def _lasso(product: _Product, comp: list[int], cset: set[int], plan, banned) -> Run:
    entry = min(comp, key=lambda u: len(product.path_to(u)[0]))
    nodes, labels = product.path_to(entry)
    loop_at = len(nodes) - 1
    here = entry
    steps: list[tuple[int, Label]] = []
    for u, k in plan:
        for v, label in _inside_path(product, here, u, cset, banned):
            steps.append((v, label))
        here = u
        if k is not None:
            v, label, _, _ = product.succ[u][k]
            steps.append((v, label))
            here = v
    back = _inside_path(product, here, entry, cset, banned)
    steps.extend(back)
    if not steps:  # a one-node cycle: its self-loop
        k = next(k for k, (v, *_) in enumerate(product.succ[entry]) if v == entry
                 and (entry, k) not in banned)
        steps.append((entry, product.succ[entry][k][1]))
    elif steps[-1][0] != entry:
        steps.extend(_inside_path(product, steps[-1][0], entry, cset, banned))
    graph = product.graph
    states = [graph.states[product.nodes[u][0]] for u in nodes]
    labels = list(labels)
    for v, label in steps:
        states.append(graph.states[product.nodes[v][0]])
        labels.append(label)
    # the last state equals the loop's first: the run is states[:-1] with the loop back
    return Run(states, labels, loop_at)


def _inside_path(product: _Product, src: int, dst: int, cset: set[int],
                 banned: set[tuple[int, int]]) -> list[tuple[int, Label]]:
    """A shortest path from ``src`` to ``dst`` inside ``cset``, avoiding banned tosses."""
    if src == dst:
        return []
    prev: dict[int, tuple[int, Label]] = {src: (src, STUTTER)}
    queue = deque([src])
    while queue:
        u = queue.popleft()
        for k, (v, label, _, _) in enumerate(product.succ[u]):
            if v in cset and v not in prev and (u, k) not in banned:
                prev[v] = (u, label)
                if v == dst:
                    queue.clear()
                    break
                queue.append(v)
    path = []
    x = dst
    while x != src:
        u, label = prev[x]
        path.append((x, label))
        x = u
    path.reverse()
    return path


# ---- replay --------------------------------------------------------------------------------------

def replay(system: System, formula: A.FormulaNode, run: Run) -> tuple[bool, str]:
    """Re-execute ``run`` with the interpreter and judge the property on it again."""
    if run.states[0] not in system.initial_states():
        return False, "the run does not start in an initial state"
    for i, label in enumerate(run.labels):
        g, h = run.states[i], run.states[i + 1]
        if label.kind == "stutter":
            if g != h:
                return False, f"step {i + 1}: a stutter changes the state"
            continue
        if not any(l2.kind == label.kind and l2.process == label.process and l2.sender == label.sender
                   and l2.type == label.type and l2.got == label.got and h2 == h
                   for l2, h2 in system.successors(g)):
            return False, f"step {i + 1} ({label.kind}) is not a transition of the program there"
    ev = Evaluator(system)
    if run.loop is None:
        states, loop = run.states, len(run.states) - 1
    else:
        if run.states[-1] != run.states[run.loop]:
            return False, "the loop does not come back to where it starts"
        states, loop = run.states[:-1], run.loop
        problem = _unjust(system, run)
        if problem:
            return False, problem
    if holds_on_lasso(formula, ev, states, loop):
        return False, "the property holds on the replayed run"
    kind = "a lasso: the loop repeats forever, every just requirement met" if run.loop is not None \
        else "a finite run"
    return True, f"replayed by the interpreter step by step ({kind}); the property is false on it"


def _unjust(system: System, run: Run) -> str:
    """Why the loop of ``run`` is not just, or "" (the justice of the module docstring)."""
    loop_states = run.states[run.loop:-1]
    loop_labels = run.labels[run.loop:]
    g0 = loop_states[0]
    for pid in system.alive(g0):
        moves = any(label.kind == "step" and label.process == pid for label in loop_labels)
        if moves and any(r == pid for _, r, _ in system.required(g0)):
            return f"process {pid} moves on the loop and never receives a message that must reach it"
        if not moves and not system.idle(g0, pid):
            return f"process {pid} could move on the loop (after its messages arrive) and never does"
    for i, g in enumerate(loop_states):
        for pid in system.alive(g):
            tosses: dict[frozenset, set] = {}
            for got, o in system.outcomes(g, pid):
                if o.coins and not o.crashed:
                    tosses.setdefault(got, set()).add(o.coins)
            for got, outcomes in tosses.items():
                taken = {label.coins for j, label in enumerate(loop_labels)
                         if loop_states[j] == g and label.kind == "step" and label.process == pid
                         and label.got == got}
                if taken and taken != outcomes:
                    return (f"process {pid} tosses a coin on the loop and an outcome never comes")
    return ""
