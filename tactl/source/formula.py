"""Properties of an ``.alg`` file evaluated on the interpreter's global states.

Predicates (docs/alg.md "Properties", in the interpreter's words): ``some P`` — some process that
is not Byzantine/symmetric-faulty satisfies ``P``, **crashed ones included with the state they had
when they crashed** (a process that delivered and then crashed still makes ``some delivered``
true, as docs/alg.md "Properties" defines it); ``all P`` — every such process that has not
crashed satisfies ``P``; ``no P`` — not ``some P``; ``count (P)`` — how many such processes
(crashed ones included) satisfy ``P``. ``done`` is "at the end of the program or round",
``crashed`` "has crashed", ``sent M`` "has sent M", ``decided`` the value ``decide`` set (⊥ before).

Temporal operators are checked by progression: the negation of the property, in negation normal
form, is progressed through the states of a run (:func:`expand`); a run violates the property when
the obligations become empty (a finite prefix suffices: a safety violation), or when it loops
forever while fulfilling every pending ``eventually`` (a lasso; ``tactl.source.search``).
:func:`holds_on_lasso` evaluates a property on a lasso directly, without progression: the replay's
independent judgement.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.alg import syntax as A

from . import program as P
from .system import Global, System
from .values import Env, truth, value

TEMPORAL = ("always", "eventually", "initially")


# ---- state formulas -----------------------------------------------------------------------------

@dataclass
class Evaluator:
    system: System

    def _env(self, g: Global, pid: int) -> Env:
        local = g.procs[pid]
        prog = self.system.prog
        vals = dict(zip(prog.var_names, local.vals))
        vals[A.DECIDED] = local.decided
        return Env(prog, self.system.fparams, vals, {}, local.rcv, local.sent,
                   g.coordinator == pid, isinstance(prog.code[local.pc], P.End),
                   pid in g.crashed, None)

    def process_holds(self, pred, g: Global, pid: int) -> bool:
        return truth(self._env(g, pid), pred)

    def scope(self, g: Global, alive_only: bool) -> list[int]:
        return [i for i, p in enumerate(g.procs)
                if p is not None and not (alive_only and i in g.crashed)]

    def count(self, pred, g: Global) -> int:
        return sum(self.process_holds(pred, g, i) for i in self.scope(g, False))

    def state(self, node: A.FormulaNode, g: Global) -> bool:
        """A formula without temporal operators, on one global state."""
        op = node.op
        if op == "true":
            return True
        if op == "false":
            return False
        if op == "some":
            return any(self.process_holds(node.args[0], g, i) for i in self.scope(g, False))
        if op == "no":
            return not any(self.process_holds(node.args[0], g, i) for i in self.scope(g, False))
        if op == "all":
            return all(self.process_holds(node.args[0], g, i) for i in self.scope(g, True))
        if op == "cmp":
            env = Env(self.system.prog, self.system.fparams, {}, {}, (),
                      count_pred=lambda pred: self.count(pred, g))
            return truth(env, node.args[0])
        if op == "not":
            return not self.state(node.args[0], g)
        if op == "and":
            return all(self.state(a, g) for a in node.args)
        if op == "or":
            return any(self.state(a, g) for a in node.args)
        if op == "implies":
            return not self.state(node.args[0], g) or self.state(node.args[1], g)
        if op == "round_flag":  # lock step: a past round met the hypothesis (tactl.source.lockstep)
            return bool(g.rounds & node.args[0])
        raise ValueError(f"not a state formula: {op}")


def _temporal(node: A.FormulaNode) -> bool:
    if node.op in TEMPORAL:
        return True
    if node.op in ("not", "and", "or", "implies"):
        return any(_temporal(a) for a in node.args)
    return False


def resolve_initially(node: A.FormulaNode, ev: Evaluator, g0: Global) -> A.FormulaNode:
    """``initially C`` replaced by its truth on the initial state ``g0``."""
    if node.op == "initially":
        return A.FormulaNode("true" if ev.state(_strip_initially(node.args[0]), g0) else "false", ())
    if node.op in ("not", "and", "or", "implies", "always", "eventually"):
        return A.FormulaNode(node.op, tuple(resolve_initially(a, ev, g0) for a in node.args))
    return node


def _strip_initially(node: A.FormulaNode) -> A.FormulaNode:
    if node.op == "initially":
        return _strip_initially(node.args[0])
    if node.op in ("not", "and", "or", "implies"):
        return A.FormulaNode(node.op, tuple(_strip_initially(a) for a in node.args))
    return node


# ---- negation normal form and progression -------------------------------------------------------
# A formula in NNF is a tuple: ("atom", state formula, polarity), ("and", frozenset),
# ("or", frozenset), ("G", f), ("F", f), ("true",), ("false",).

TRUE, FALSE = ("true",), ("false",)


def nnf(node: A.FormulaNode, positive: bool = True) -> tuple:
    """Negation normal form of an ``.alg`` property, in the tuple shape above.

    Deliberately not ``ir/boolean.py``'s ``nnf``: the interpreter is the independent reading of
    the ``.alg`` file that the automata are compared against, so it works on the ``.alg`` formula
    IR and imports no automaton module (``tests/packaging/test_layout.py`` checks this)."""
    op = node.op
    if not _temporal(node):
        if op == "true":
            return TRUE if positive else FALSE
        if op == "false":
            return FALSE if positive else TRUE
        return ("atom", node, positive)
    if op == "not":
        return nnf(node.args[0], not positive)
    if op == "implies":
        a, b = node.args
        return _join("or" if positive else "and", [nnf(a, not positive), nnf(b, positive)])
    if op in ("and", "or"):
        joined = op if positive else ("or" if op == "and" else "and")
        return _join(joined, [nnf(a, positive) for a in node.args])
    if op == "always":
        return ("G" if positive else "F", nnf(node.args[0], positive))
    if op == "eventually":
        return ("F" if positive else "G", nnf(node.args[0], positive))
    raise ValueError(f"unexpected {op} (initially is resolved first)")


def _join(op: str, parts: list[tuple]) -> tuple:
    unit, zero = (TRUE, FALSE) if op == "and" else (FALSE, TRUE)
    flat: set[tuple] = set()
    for p in parts:
        if p == zero:
            return zero
        if p == unit:
            continue
        if p[0] == op:
            flat |= p[1]
        else:
            flat.add(p)
    if not flat:
        return unit
    if len(flat) == 1:
        return next(iter(flat))
    return (op, frozenset(flat))


def eventualities(f: tuple) -> set[tuple]:
    """Every ``F`` subformula (each must be fulfilled on an accepting cycle)."""
    out: set[tuple] = set()
    todo = [f]
    while todo:
        x = todo.pop()
        if x[0] == "F":
            out.add(x)
            todo.append(x[1])
        elif x[0] == "G":
            todo.append(x[1])
        elif x[0] in ("and", "or"):
            todo.extend(x[1])
    return out


def expand(gamma: frozenset, holds) -> list[tuple[frozenset, frozenset]]:
    """Progress the conjunction ``gamma`` through a state (``holds(atom)`` says which state
    formulas are true there): every alternative (obligations for the next state, ``F``
    formulas fulfilled now). No alternative: the state refutes ``gamma``."""
    results: set[tuple[frozenset, frozenset]] = set()
    stack = [(tuple(gamma), frozenset(), frozenset())]
    while stack:
        todo, nxt, ful = stack.pop()
        if not todo:
            results.add((nxt, ful))
            continue
        f, rest = todo[0], todo[1:]
        kind = f[0]
        if kind == "true":
            stack.append((rest, nxt, ful))
        elif kind == "false":
            continue
        elif kind == "atom":
            if holds(f[1]) == f[2]:
                stack.append((rest, nxt, ful))
        elif kind == "and":
            stack.append((tuple(f[1]) + rest, nxt, ful))
        elif kind == "or":
            for g in f[1]:
                stack.append(((g,) + rest, nxt, ful))
        elif kind == "G":
            stack.append(((f[1],) + rest, nxt | {f}, ful))
        elif kind == "F":
            stack.append(((f[1],) + rest, nxt, ful | {f}))
            stack.append((rest, nxt | {f}, ful))
    return sorted(results, key=lambda r: (len(r[0]), repr(r)))


# ---- direct evaluation on a lasso (the replay's judgement) ---------------------------------------

def holds_on_lasso(node: A.FormulaNode, ev: Evaluator, states: list[Global], loop: int) -> bool:
    """Whether ``node`` holds at position 0 of the infinite run ``states[0..loop-1]
    (states[loop..])^ω`` (a finite run repeats its last state: ``loop = len(states) - 1``)."""
    size = len(states)

    def later(i: int) -> range | list[int]:
        return list(range(i, size)) + (list(range(loop, i)) if i > loop else [])

    memo: dict[int, list[bool]] = {}

    def at(f: A.FormulaNode) -> list[bool]:
        key = id(f)
        if key in memo:
            return memo[key]
        op = f.op
        if op == "initially":
            v = ev.state(_strip_initially(f.args[0]), states[0])
            out = [v] * size
        elif not _temporal(f):
            out = [ev.state(f, s) for s in states]
        elif op == "not":
            out = [not x for x in at(f.args[0])]
        elif op == "and":
            parts = [at(a) for a in f.args]
            out = [all(p[i] for p in parts) for i in range(size)]
        elif op == "or":
            parts = [at(a) for a in f.args]
            out = [any(p[i] for p in parts) for i in range(size)]
        elif op == "implies":
            a, b = at(f.args[0]), at(f.args[1])
            out = [not a[i] or b[i] for i in range(size)]
        elif op == "always":
            a = at(f.args[0])
            out = [all(a[j] for j in later(i)) for i in range(size)]
        elif op == "eventually":
            a = at(f.args[0])
            out = [any(a[j] for j in later(i)) for i in range(size)]
        else:  # pragma: no cover
            raise ValueError(op)
        memo[key] = out
        return out

    return at(node)[0]


# ---- classification and vacuity ----------------------------------------------------------------

def is_liveness(node: A.FormulaNode) -> bool:
    """A property whose negation needs an infinite run: ``eventually`` under positive polarity."""
    def go(f: tuple) -> bool:
        if f[0] == "F":
            return True
        if f[0] == "G":
            return go(f[1])
        if f[0] in ("and", "or"):
            return any(go(x) for x in f[1])
        return False

    return go(nnf(_strip_initially_all(node), True))


def _strip_initially_all(node: A.FormulaNode) -> A.FormulaNode:
    if node.op == "initially":
        return _strip_initially(node.args[0])
    if node.op in ("not", "and", "or", "implies", "always", "eventually"):
        return A.FormulaNode(node.op, tuple(_strip_initially_all(a) for a in node.args))
    return node


def antecedent_test(node: A.FormulaNode) -> A.FormulaNode | None:
    """The property with its innermost consequent replaced by ``false`` (docs/alg.md
    "Vacuity"): it holds exactly when no run meets the antecedents. None: no ``->``."""
    if node.op == "implies":
        inner = antecedent_test(node.args[1])
        return A.FormulaNode("implies", (node.args[0], inner or A.FormulaNode("false", ())))
    if node.op in ("always", "eventually"):
        inner = antecedent_test(node.args[0])
        return None if inner is None else A.FormulaNode(node.op, (inner,))
    return None
