"""One step of one process: its code from one stop point to the next, on the messages it has
received so far (docs/alg.md "Semantics"), with every nondeterministic outcome.

A step starts at a stop point: at ``wait until C`` it runs only if ``C`` holds (for some value of
the placeholder: one outcome per value); at the head of ``loop forever`` it runs passes of the
body until a pass changes nothing (a pass that comes back to a state an earlier pass of the same
step had is a computation that never ends: that outcome is dropped); at the end it does not run.
``x := coin`` / ``x := oracle`` fork over both values, as do the arms of ``if … for some w`` that
qualify for several values, and the subsets of a quorum choice. A ``send`` is recorded where it
stands, at most once per message type (in the round). When ``crash_ok`` is set (crash faults),
the process may crash after any statement, keeping the state it has then, and a ``send`` may be
cut short: the message reaches only a subset of the receivers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import NamedTuple

from tactl.ir.alg import syntax as A

from . import program as P
from .errors import SourceError
from .values import Env, as_set, choices, element_order, scalar, sent_type, value

MAX_OUTCOMES = 10_000  # outcomes of one step: beyond, the program branches beyond what is explored


class Local(NamedTuple):
    """A process's state: position, variables (in declaration order), decided value, the types
    it has sent, placeholders bound across a stop point, and per type the set of its senders."""

    pc: int
    vals: tuple[str, ...]
    decided: str
    sent: frozenset
    binds: tuple
    rcv: tuple


@dataclass(frozen=True)
class Outcome:
    local: Local
    sends: tuple[tuple[int, tuple[int, ...] | None], ...]  # (type, receivers; None: all)
    crashed: bool = False
    lines: tuple[int, ...] = ()  # the lines executed, in order
    events: tuple[str, ...] = ()  # coin/oracle outcomes and choices, in words
    coins: tuple[str, ...] = ()  # coin outcomes only (the fairness of coins reads them)


@dataclass
class _Micro:
    pc: int
    vals: dict
    decided: str
    sent: set
    binds: dict
    iters: list = field(default_factory=list)
    sends: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    events: list = field(default_factory=list)
    coins: list = field(default_factory=list)
    snapshot: tuple | None = None
    seen: frozenset = frozenset()
    pass_start: int = 0  # where the lines of the current pass of an event loop start

    def copy(self) -> "_Micro":
        return _Micro(self.pc, dict(self.vals), self.decided, set(self.sent), dict(self.binds),
                      [list(i) for i in self.iters], list(self.sends), list(self.lines),
                      list(self.events), list(self.coins), self.snapshot, self.seen,
                      self.pass_start)

    def state(self) -> tuple:
        return (tuple(sorted(self.vals.items())), self.decided, frozenset(self.sent))


@dataclass(frozen=True)
class Context:
    """What a step needs besides the process's state."""

    prog: P.Program
    params: dict[str, Fraction]
    receivers: tuple[int, ...]  # the processes a send to all reaches (alive, not Byzantine)
    crash_ok: bool = False
    coordinator: int | None = None  # the coordinator's id, if it is a correct process


def initial_locals(prog: P.Program, n_types: int) -> list[Local]:
    """Every initial state of one process: one per value of each input variable."""
    options: list[list[str]] = []
    for v in prog.alg.variables:
        if v.initial is not None:
            options.append([v.initial])
        else:
            options.append(list(v.inputs if v.inputs is not None else v.domain))
    out = [()]
    for opts in options:
        out = [o + (x,) for o in out for x in opts]
    empty = tuple(frozenset() for _ in range(n_types))
    return [Local(0, vals, A.BOTTOM, frozenset(), (), empty) for vals in out]


def env_of(ctx: Context, pid: int, local: Local, micro: _Micro | None = None) -> Env:
    if micro is None:
        vals = dict(zip(ctx.prog.var_names, local.vals))
        vals[A.DECIDED] = local.decided
        return Env(ctx.prog, ctx.params, vals, dict(local.binds), local.rcv, local.sent,
                   ctx.coordinator == pid)
    vals = dict(micro.vals)
    vals[A.DECIDED] = micro.decided
    return Env(ctx.prog, ctx.params, vals, micro.binds, local.rcv, frozenset(micro.sent),
               ctx.coordinator == pid)


def enabled(ctx: Context, pid: int, local: Local) -> bool:
    return bool(step(ctx, pid, local))


def step(ctx: Context, pid: int, local: Local, rounds: bool = False) -> list[Outcome]:
    """Every outcome of a step of process ``pid`` from ``local`` (empty: it cannot move).
    ``rounds`` (lock-step): a round is a step even when it changes nothing."""
    code = ctx.prog.code
    ins = code[local.pc]
    start = _Micro(local.pc, dict(zip(ctx.prog.var_names, local.vals)), local.decided,
                   set(local.sent), dict(local.binds))
    todo: list[_Micro] = []
    if isinstance(ins, P.End):
        return []
    if isinstance(ins, P.Wait):
        w = ins.stmt
        for binding in choices(env_of(ctx, pid, local, start), w.cond, w.placeholder, w.subset_of,
                               w.nonempty):
            m = start.copy()
            m.binds.update(binding)
            m.lines.append(ins.span.line if ins.span else 0)
            if binding:
                m.events.append(_binding_text(binding))
            m.pc += 1
            todo.append(m)
    elif isinstance(ins, P.LoopHead):
        start.pc += 1
        start.snapshot = start.state()
        start.seen = frozenset({start.snapshot})
        todo.append(start)
    else:
        todo.append(start)
    outcomes: list[Outcome] = []
    while todo:
        m = todo.pop()
        _run(ctx, pid, local, m, todo, outcomes)
        if len(outcomes) > MAX_OUTCOMES:
            raise SourceError(f"a step of this program has more than {MAX_OUTCOMES} outcomes",
                              ins.span)
    return [o for o in outcomes if rounds or o.crashed or o.sends or o.local != local]


def _binding_text(binding: dict) -> str:
    return ", ".join(f"{k} = {_show(v)}" for k, v in binding.items())


def _show(v: object) -> str:
    if isinstance(v, frozenset):
        return "{" + ", ".join(sorted(v)) + "}"
    return scalar(v) if not isinstance(v, str) else v


def _finish(ctx: Context, local: Local, m: _Micro, crashed: bool = False,
            partial: tuple[int, ...] | None = None) -> Outcome:
    vals = tuple(m.vals[name] for name in ctx.prog.var_names)
    binds = tuple(sorted((k, v) for k, v in m.binds.items()))
    sends = [(ti, None) for ti in m.sends]
    if partial is not None:
        sends[-1] = (sends[-1][0], partial)
    return Outcome(Local(m.pc, vals, m.decided, frozenset(m.sent), binds, local.rcv),
                   tuple(sends), crashed, tuple(m.lines), tuple(m.events), tuple(m.coins))


def _run(ctx: Context, pid: int, local: Local, m: _Micro, todo: list, outcomes: list) -> None:
    """Advance ``m`` to its next stop point; forks go to ``todo``, ends to ``outcomes``."""
    code = ctx.prog.code
    while True:
        ins = code[m.pc]
        if isinstance(ins, P.STOPS):
            outcomes.append(_finish(ctx, local, m))
            return
        if ins.span is not None and isinstance(ins, (P.Assign, P.Decide, P.Skip, P.ForEach)):
            m.lines.append(ins.span.line)
        env = env_of(ctx, pid, local, m)
        if isinstance(ins, P.Assign):
            forks = _assign(ctx, env, ins.stmt, m)
            for f in forks[1:]:
                f.pc += 1
                _maybe_crash(ctx, local, f, outcomes)
                todo.append(f)
            m = forks[0]
            m.pc += 1
            _maybe_crash(ctx, local, m, outcomes)
        elif isinstance(ins, P.Send):
            t = sent_type(env, ins.stmt.pattern)
            m.pc += 1
            if t.index not in m.sent:
                if ins.span is not None:
                    m.lines.append(ins.span.line)
                m.sent.add(t.index)
                m.sends.append(t.index)
                if ctx.crash_ok:  # crash in the middle of the send to all (own copy moot)
                    others = tuple(r for r in ctx.receivers if r != pid)
                    for k in range(len(others)):
                        for subset in combinations(others, k):
                            outcomes.append(_finish(ctx, local, m, True, subset))
            _maybe_crash(ctx, local, m, outcomes)
        elif isinstance(ins, P.Decide):
            v = scalar(value(env, ins.stmt.value))
            if m.decided not in (A.BOTTOM, v):
                raise SourceError(f"a decision is irrevocable: this process decided {m.decided} "
                                  f"and reaches 'decide {v}'", ins.span)
            m.decided = v
            m.pc += 1
            _maybe_crash(ctx, local, m, outcomes)
        elif isinstance(ins, P.Skip):
            m.pc += 1
        elif isinstance(ins, P.Branch):
            m = _branch(env, ins, m, todo)
            if m is None:
                return
        elif isinstance(ins, P.Jump):
            m.pc = ins.target
        elif isinstance(ins, P.Unbind):
            m.binds.pop(ins.name, None)
            m.pc += 1
        elif isinstance(ins, P.LoopEnd):
            now = m.state()
            if now == m.snapshot:  # quiescent: the step ends at the loop's head
                del m.lines[m.pass_start:]  # the last pass changed nothing: not shown
                m.pc = ins.head
                outcomes.append(_finish(ctx, local, m))
                return
            if now in m.seen:  # passes that never become quiescent: not a finite step
                return
            m.snapshot, m.seen = now, m.seen | {now}
            m.pass_start = len(m.lines)
            m.pc = ins.head + 1
        elif isinstance(ins, P.ForEach):
            s = as_set(env, ins.stmt.set)
            order = element_order(ctx.prog, ins.stmt.set, s)
            m.iters.append(sorted(s, key=order.index))
            m.pc += 1
        elif isinstance(ins, P.ForNext):
            if m.iters[-1]:
                m.binds[ins.var] = m.iters[-1].pop(0)
                m.pc += 1
            else:
                m.iters.pop()
                m.binds.pop(ins.var, None)
                m.pc = ins.end
        else:  # pragma: no cover
            raise SourceError(f"unknown instruction {type(ins).__name__}", ins.span)


def _maybe_crash(ctx: Context, local: Local, m: _Micro, outcomes: list) -> None:
    if ctx.crash_ok:
        outcomes.append(_finish(ctx, local, m, True))


def _assign(ctx: Context, env: Env, stmt: A.Assign, m: _Micro) -> list[_Micro]:
    forks = _assign_value(ctx, env, stmt, m)
    prog = ctx.prog
    if prog.tossed and prog.rounds_carrying and stmt.var == prog.rounds_carrying[0]:
        for f in forks:  # the ghost: the carried variable's current value is a coin outcome
            f.vals[prog.tossed] = A.TRUE if isinstance(stmt.value, A.Coin) else A.FALSE
    return forks


def _assign_value(ctx: Context, env: Env, stmt: A.Assign, m: _Micro) -> list[_Micro]:
    var = ctx.prog.variables.get(stmt.var)
    if var is None:
        raise SourceError(f"'{stmt.var}' is not a declared variable", stmt.var_span or stmt.span)
    if isinstance(stmt.value, (A.Coin, A.Oracle)):
        options = list(A.BOOL) if var.domain == A.BOOL else [v for v in A.COIN_VALUES]
        out = []
        for i, v in enumerate(options):
            f = m if i == len(options) - 1 else m.copy()
            f.vals[stmt.var] = v
            word = "coin" if isinstance(stmt.value, A.Coin) else "oracle"
            f.events.append(f"{word}: {stmt.var} = {v}")
            if isinstance(stmt.value, A.Coin):
                f.coins.append(v)
            out.append(f)
        return [out[-1]] + out[:-1]
    v = value(env, stmt.value)
    if var.elements is not None:
        if not isinstance(v, frozenset) or not v <= set(var.elements):
            raise SourceError(f"the value assigned to '{var.name}' is not a subset of its element "
                              f"domain {{{', '.join(var.elements)}}}", stmt.span)
        m.vals[stmt.var] = A.encode_set(v, var.elements)
        return [m]
    text = _show(v)
    if text not in var.domain:
        raise SourceError(f"'{var.name}' := {text}: the value is outside its domain "
                          f"{{{', '.join(var.domain)}}}", stmt.span)
    m.vals[stmt.var] = text
    return [m]


def _branch(env: Env, ins: P.Branch, m: _Micro, todo: list) -> _Micro | None:
    for arm in ins.arms:
        b = arm.branch
        found = choices(env, b.cond, b.placeholder, b.subset_of, b.nonempty)
        if found:
            if b.span is not None:
                m.lines.append(b.span.line)
            forks = []
            for i, binding in enumerate(found):
                f = m if i == len(found) - 1 else m.copy()
                f.binds.update(binding)
                if binding:
                    f.events.append(_binding_text(binding))
                f.pc = arm.target
                forks.append(f)
            todo.extend(forks[:-1])
            return forks[-1]
    m.pc = ins.orelse
    return m
