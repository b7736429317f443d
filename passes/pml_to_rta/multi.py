"""Parametric Promela beyond one receive variable: the pieces ``passes/pml_to_rta/translation.py`` uses for
ByMC's SPIN'13 files (bcast-byz-init, cond-consensus2, asyn-byzagreement0).

* **Several receive variables.** Each local ``x`` with a receive choice
  ``if :: [G ->] next_x = x + 1; :: next_x = x; fi`` is one message type, paired with the send
  counter of its bound: either the bound ``if :: !(next_x <= nsnt_x + ...) -> next_x = x; ::
  else; fi`` or a bound conjunct of the choice's guard, ``(x < nsnt_x + ...) -> next_x = x + 1``
  (which says the same: ``next_x <= nsnt_x + ...``). The rest of the guard, over location
  variables, says where ``x`` may grow (:class:`ReceiveVar`).
* **Initialisation before** ``end:``. Every process executes the prefix once before its loop (ByMC's
  ``prec_init = all(Proc@end)`` marks the end of it): an ``atomic`` block over shared counters only
  is run concretely, process after process, to its fixpoint (:func:`initial_counters`); a counter
  it sets keeps that value for the whole run when the step never changes it. The increments of
  the initial ``if`` (``pc = V0 -> init0++``) count the processes per initial location.
* **Integer division** by a positive constant, ``(N + T) / 2 + 1``: Promela's ``/`` truncates, which
  is ``floor`` for a dividend proved non-negative; a comparison with one ``floor(a / d)`` term is
  rewritten without it, exactly (:func:`compare_div`).
* **Static propositions**: a proposition over counters fixed after initialisation has one value
  for the whole run; :func:`shannon` moves it out of the temporal operators, to the initial
  configuration, where the counts of the initial locations give it.

Everything else is refused by the caller at its position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.promela import syntax as P
from tactl.passes.pml_to_rta.havoc import find_havocs
from tactl.passes.pml_to_rta.values import refuse
from tactl.ir.boolean import simplify as fold_constants
from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Mul, Not, conj, disj, summation


@dataclass
class ReceiveVar:
    """One receive variable ``x`` (``nrcvd_echo``), its temporary ``next_x`` and its message type,
    the send counter of its bound."""

    rcv: str
    next: str
    choice_if: P.Stmt  # the receive choice: an `if`, or a forced `next_x = x + 1`
    # per option of the choice: its location guard (None: unguarded) and what it adds (0 or 1)
    choices: list[tuple[P.PExpr | None, int]]
    bound: P.PExpr  # B of next_x <= B
    bound_if: P.If | None = None  # None: the bound is a conjunct of the choice's guard
    # what the bound 'if' does past the bound (``next_x = x``, ``goto end``, a reset; its meaning:
    # ``faults.at_bound``)
    exceeded: tuple[P.Stmt, ...] = ()
    counter: str = ""
    lin: dict[str, int] = field(default_factory=dict)
    # ByMC's `havoc(next_x); assume(x <= next_x && next_x <= B)` (passes/pml_to_rta/havoc.py): the
    # ids of its havoc and assume statements; choice_if is the first havoc
    havoc: bool = False
    sites: tuple[int, ...] = ()
    assumes: tuple[int, ...] = ()


def _conjuncts(e: P.PExpr) -> list[P.PExpr]:
    if isinstance(e, P.PBinary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _and(parts: list[P.PExpr]) -> P.PExpr | None:
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = P.PBinary(op="&&", left=out, right=p, span=p.span)
    return out


def _bound_if(s: P.Stmt) -> tuple[str, tuple[P.Stmt, ...], P.PExpr] | None:
    """``if :: !(next_x <= B) -> what past the bound; :: else; fi`` → (next_x, what, B)."""
    if not (isinstance(s, P.If) and len(s.options) == 2):
        return None
    a, b = s.options
    if not (a.body and isinstance(a.body[0], P.Condition) and len(b.body) == 1 and isinstance(b.body[0], P.Else)):
        return None
    c = a.body[0].expr
    if (isinstance(c, P.PUnary) and c.op == "!" and isinstance(c.arg, P.PBinary) and c.arg.op == "<="
            and isinstance(c.arg.left, P.PName)):
        return c.arg.left.name, tuple(a.body[1:]), c.arg.right
    return None


def _restored(nxt: str, exceeded: tuple[P.Stmt, ...]) -> str | None:
    """``x`` when the bound's branch is exactly ``next_x = x`` (forget the receive)."""
    if len(exceeded) == 1 and isinstance(exceeded[0], P.Assign) and exceeded[0].var == nxt \
            and isinstance(exceeded[0].expr, P.PName):
        return exceeded[0].expr.name
    return None


def _forced(s: P.Stmt, locals_) -> ReceiveVar | None:
    """A plain ``next_x = x + 1`` in the step: a receive choice without a "no receive" option
    (``bcast-comm-byz``: every step receives one more message)."""
    if not (isinstance(s, P.Assign) and s.var in locals_ and isinstance(s.expr, P.PBinary) and s.expr.op == "+"):
        return None
    a, b = s.expr.left, s.expr.right
    x, one = (a, b) if isinstance(a, P.PName) else (b, a)
    if not (isinstance(x, P.PName) and isinstance(one, P.PInt) and one.value == 1 and x.name in locals_
            and x.name != s.var):
        return None
    return ReceiveVar(x.name, s.var, s, [(None, 1)], P.PInt(value=0))  # type: ignore[arg-type]


def find_receives(step: tuple[P.Stmt, ...], locals_: dict[str, int], shared: set[str],
                  linear, where, required: bool = True) -> list[ReceiveVar]:
    """The receive variables of the atomic ``step``, in the order of their choices (the havoc
    receives first: ``passes/pml_to_rta/havoc.py``); none is refused at ``where`` if ``required``."""
    havocs = find_havocs(step, locals_, linear, ReceiveVar)
    bounds: dict[str, tuple[P.If, str, P.PExpr]] = {}
    for s in step:
        got = _bound_if(s)
        if got is not None:
            nxt, exceeded, b = got
            if nxt in bounds:
                raise refuse(f"two receive bounds for '{nxt}'", s.span)
            if any(r.next == nxt for r in havocs):
                raise refuse(f"'{nxt}' is received by a havoc and bounded by an 'if'", s.span)
            bounds[nxt] = (s, exceeded, b)  # type: ignore[assignment]
    out: list[ReceiveVar] = list(havocs)
    for s in step:
        forced = _forced(s, locals_)
        if forced is not None and forced.next in bounds:
            bif, exceeded, b = bounds.pop(forced.next)
            forced.bound, forced.bound_if, forced.exceeded = b, bif, exceeded
            out.append(forced)
            continue
        if not isinstance(s, P.If) or _bound_if(s) is not None:
            continue
        targets = set()
        for o in s.options:
            assigned = [t.var for t in o.body if isinstance(t, P.Assign)]
            targets.add(assigned[0] if len(assigned) == 1 else None)
        if len(targets) != 1 or None in targets:
            continue
        nxt = next(iter(targets))
        if nxt not in locals_:
            continue
        rv = _choice(s, nxt, locals_, shared, linear)
        if rv is None:
            continue
        guard_bound, rv_ = rv
        if nxt in bounds:
            if guard_bound is not None:
                raise refuse(f"'{nxt}' is bounded twice (by its receive choice and by a "
                             "bound 'if')", s.span)
            bif, exceeded, b = bounds.pop(nxt)
            x = _restored(nxt, exceeded)
            if x is not None and x != rv_.rcv:
                raise refuse(f"the bound of '{nxt}' restores '{x}', its choice reads "
                             f"'{rv_.rcv}'", bif.span)
            rv_.bound, rv_.bound_if, rv_.exceeded = b, bif, exceeded
        elif guard_bound is None:
            raise refuse(f"no receive bound for '{nxt}': neither 'if :: !({nxt} <= nsnt + F) "
                         f"-> {nxt} = {rv_.rcv}; :: else; fi' nor a guard '({rv_.rcv} < nsnt "
                         f"+ F) -> {nxt} = {rv_.rcv} + 1'", s.span)
        else:
            rv_.bound = guard_bound
        if rv_.rcv not in locals_:
            raise refuse(f"'{rv_.rcv}' is not a local variable of the process", s.span)
        out.append(rv_)
    for nxt, (bif, _, _) in bounds.items():
        raise refuse(f"a receive bound on '{nxt}' without a receive choice 'if :: {nxt} = x + 1; "
                     f":: {nxt} = x; fi' before it", bif.span)
    if not out and required:
        raise refuse("no receive bound 'if :: !(next_nrcvd <= nsnt + F) -> next_nrcvd = "
                     "nrcvd; :: else; fi' in the atomic step: tactl needs it to know the "
                     "receive variable and the fault model", where)
    return out


def _choice(s: P.If, nxt: str, locals_, shared, linear):
    """(the bound conjunct's B or None, the ReceiveVar without its bound) of a receive choice."""
    choices: list[tuple[P.PExpr | None, int]] = []
    rcv: str | None = None
    guard_bounds: list[P.PExpr] = []
    for o in s.options:
        guard, rest = (o.body[0].expr, o.body[1:]) if o.body and isinstance(o.body[0], P.Condition) \
            else (None, o.body)
        if len(rest) != 1 or not isinstance(rest[0], P.Assign):
            return None
        inc = linear(rest[0].expr)
        xs = [k for k in inc if k]
        if len(xs) != 1 or inc[xs[0]] != 1 or inc.get("", 0) not in (0, 1) or xs[0] not in locals_:
            return None
        if rcv is not None and xs[0] != rcv:
            return None
        rcv = xs[0]
        delta = inc.get("", 0)
        location: list[P.PExpr] = []
        before = len(guard_bounds)
        if guard is not None:
            for c in _conjuncts(guard):
                if set(P.variable_names(c)) & shared:
                    if not (delta == 1 and isinstance(c, P.PBinary) and c.op == "<"
                            and isinstance(c.left, P.PName) and c.left.name == rcv):
                        raise refuse(f"a receive choice may compare the shared counters only "
                                     f"as '{rcv} < nsnt + ...' (its bound)", c.span)
                    guard_bounds.append(c.right)
                else:
                    location.append(c)
        if len(guard_bounds) > before + 1:
            raise refuse("a receive option with two bounds on shared counters", o.span)
        choices.append((_and(location), delta))
    if rcv is None:
        return None
    if guard_bounds:
        ones = [g for g, d in choices if d == 1]
        if len(guard_bounds) != len(ones) or any(linear(b) != linear(guard_bounds[0]) for b in guard_bounds):
            raise refuse(f"every receiving option of the choice of '{nxt}' must carry the same "
                         f"bound '{rcv} < nsnt + ...'", s.span)
    if any(d == 0 for _, d in choices) and not any(d == 0 and g is None for g, d in choices):
        raise refuse("the receive choice needs an unguarded 'no receive' option (or none: "
                     "then every step receives)", s.span)
    return (guard_bounds[0] if guard_bounds else None), ReceiveVar(rcv, nxt, s, choices, P.PInt(value=0))


# --------------------------------------------------------------------------- initialisation


def initial_counters(blocks: list[P.Atomic], copies_at_least, evaluate, shared: set[str],
                     limit: int = 8) -> dict[str, int]:
    """The shared counters after every process ran the ``atomic`` initialisation ``blocks`` once.

    Each block may read and increment shared counters only, and must be deterministic (its
    ``if`` options exclusive, ``else`` allowed). Process k runs on the state process k - 1 left;
    the states repeat from some j on (a fixpoint), and ``copies_at_least(j)`` proves there are at
    least j processes, so the state after all of them is that fixpoint whatever their number.
    ``evaluate(expr, env)`` evaluates a condition on concrete counters."""
    state = {c: 0 for c in shared}
    seen = [dict(state)]
    for k in range(limit + 1):
        for b in blocks:
            state = _run(b.body, dict(state), evaluate, shared)
        if state == seen[-1]:
            j = len(seen) - 1
            if not copies_at_least(j):
                raise refuse(f"the initialisation reaches its fixpoint after {j} processes; "
                             f"tactl cannot prove the resilience condition gives that many",
                             blocks[0].span)
            return {c: v for c, v in state.items() if v != 0}
        seen.append(dict(state))
    raise refuse(f"the initialisation changes the shared counters for more than {limit} "
                 "processes (its effect would depend on the number of processes)", blocks[0].span)


def _run(stmts, state: dict[str, int], evaluate, shared) -> dict[str, int]:
    for s in stmts:
        if isinstance(s, (P.Printf, P.Skip)):
            continue
        if isinstance(s, P.Incr) and s.var in shared:
            state[s.var] += s.delta
            continue
        if isinstance(s, P.If):
            enabled = []
            for o in s.options:
                first = o.body[0] if o.body else None
                if isinstance(first, P.Else):
                    continue
                g = evaluate(first.expr, state) if isinstance(first, P.Condition) else True
                if g:
                    enabled.append(o)
            if not enabled:
                enabled = [o for o in s.options if o.body and isinstance(o.body[0], P.Else)]
            if len(enabled) != 1:
                raise refuse("an initialisation 'if' must have exactly one enabled option "
                             "(a nondeterministic one would need a location per choice)", s.span)
            body = enabled[0].body
            rest = body[1:] if body and isinstance(body[0], (P.Condition, P.Else)) else body
            state = _run(rest, state, evaluate, shared)
            continue
        raise refuse("an initialisation 'atomic' before 'end:' may only test and increment "
                     "shared counters", s.span)
    return state


# --------------------------------------------------------------------------------- division


@dataclass(frozen=True)
class FloorTerm:
    """``rest + sign * floor(num / den)``: an arithmetic value with one integer division."""

    rest: Expr
    num: Expr
    den: int
    sign: int = 1


def add_div(op: str, a, b):
    """``a op b`` (op '+' or '-') where a or b is a :class:`FloorTerm`."""
    if isinstance(a, FloorTerm) and isinstance(b, FloorTerm):
        return None
    if isinstance(a, FloorTerm):
        return FloorTerm(summation(a.rest, [(op, b)]), a.num, a.den, a.sign)
    assert isinstance(b, FloorTerm)
    return FloorTerm(summation(a, [(op, b.rest)]), b.num, b.den, b.sign if op == "+" else -b.sign)


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def compare_div(op: str, a, b) -> tuple[Expr, Expr]:
    """``a op b`` with one :class:`FloorTerm` side, without the division, and the dividend that
    must be non-negative for it to be exact (truncation is floor there)."""
    if isinstance(b, FloorTerm):
        a, b, op = b, a, _FLIP[op]
    assert isinstance(a, FloorTerm) and not isinstance(b, FloorTerm)
    # rest + s*floor(x/d) op b  <=>  s*floor(x/d) op q  with q = b - rest
    q: Expr = summation(b, [("-", a.rest)])
    if a.sign < 0:
        q, op = summation(IntConst(0), [("-", q)]), _FLIP[op]
    x, d = a.num, a.den
    dq: Expr = Mul(IntConst(d), q)
    # floor(x/d) >= q <=> x >= d*q;  floor(x/d) <= q <=> x <= d*q + d - 1
    ge = lambda k: Compare(">=", x, summation(dq, [("+", IntConst(k))]) if k else dq)  # noqa: E731
    le = lambda k: Compare("<=", x, summation(dq, [("+", IntConst(k))]))  # noqa: E731
    if op == ">=":
        out: Expr = ge(0)
    elif op == ">":
        out = ge(d)
    elif op == "<=":
        out = le(d - 1)
    elif op == "<":
        out = Compare("<", x, dq)
    elif op == "==":
        out = conj(ge(0), le(d - 1))
    else:
        out = Not(conj(ge(0), le(d - 1)))
    return tidy(out), x


def tidy(e: Expr) -> Expr:
    """A comparison (or a combination of them) with its two sides collected: receive counts on
    the left with a positive coefficient, ``2 * received(M) >= N + T + 1``."""
    from tactl.ir.expr import And, Or  # lazy: only for divisions
    from tactl.ir.linear import linearize, term_expr  # lazy: as above

    if isinstance(e, (And, Or)):
        return type(e)(tuple(tidy(a) for a in e.args))
    if isinstance(e, Not):
        return Not(tidy(e.arg))
    if not isinstance(e, Compare):
        return e
    diff = linearize(e.left) - linearize(e.right)
    op = e.op
    if any(x.startswith("received(") and a < 0 for x, a in diff.coeffs) or \
            not any(x.startswith("received(") for x, _ in diff.coeffs) and diff.coeffs and diff.coeffs[0][1] < 0:
        diff = -diff
        op = _FLIP[op]
    pos = [(x, a) for x, a in diff.coeffs if a > 0]
    neg = [(x, -a) for x, a in diff.coeffs if a < 0]
    return Compare(op, term_expr(pos), term_expr(neg, -diff.const))


def c_division(a: int, b: int) -> int:
    """Promela's (C's) integer division: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


# ------------------------------------------------------------------- static propositions


def shannon(build, static: list[str], value_at_start) -> Expr:
    """The formula ``build(fixed)`` with each proposition of ``static`` (one value for the whole
    run) taken out of the temporal operators: ``phi == (s && phi[s:=true]) || (!s && phi[s:=false])``
    with ``s`` evaluated in the initial configuration (``value_at_start(name)``: an ``Expr``, or a
    bool when decided)."""

    def go(i: int, fixed: dict[str, bool]) -> Expr:
        if i == len(static):
            return build(fixed)
        name = static[i]
        s = value_at_start(name)
        if isinstance(s, bool):
            return go(i + 1, {**fixed, name: s})
        yes, no = go(i + 1, {**fixed, name: True}), go(i + 1, {**fixed, name: False})
        if yes == no:
            return yes
        if no == BoolConst(True):
            from tactl.ir.expr import Implies  # lazy: only for static propositions
            return Implies(s, yes)
        if yes == BoolConst(True):
            from tactl.ir.expr import Implies  # lazy: only for static propositions
            return Implies(Not(s), no)
        if no == BoolConst(False):
            return conj(s, yes)
        if yes == BoolConst(False):
            return conj(Not(s), no)
        return disj(conj(s, yes), conj(Not(s), no))

    return go(0, {})


# ---------------------------------------------------------------------------- send bounds


def sends_per_process(edges, starts, counter: str) -> int | None:
    """The most ``counter`` sends one process makes along the location graph ``edges`` (source,
    target, sends) from ``starts``; None if a cycle through a send makes it unbounded."""
    best: dict[tuple, int] = {s: 0 for s in starts}
    nodes = {s for s, _, _ in edges} | {t for _, t, _ in edges} | set(starts)
    for _ in range(len(nodes) + 1):
        changed = False
        for s, t, sends in edges:
            if s in best:
                v = best[s] + sum(1 for m in sends if m == counter)
                if v > best.get(t, -1):
                    best[t] = v
                    changed = True
        if not changed:
            return max(best.values()) if best else 0
    return None


def simplify(e: Expr) -> Expr:
    """``e`` with its constant parts folded (``<>true`` is true, ``true -> p`` is p, ``1 > 0`` is
    true): what fixed propositions leave behind (``ir/boolean.py``, with ``normalise``)."""
    return fold_constants(e, normalise=True)
