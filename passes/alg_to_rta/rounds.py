"""Multi-round algorithms (``rounds carrying v:``): the round-rigid reduction's one-round
obligations, generated from the round structure the pseudocode states once.

Why one round suffices (Bertrand, Konnov, Lazić, Widder, "Verification of Randomized Consensus
Algorithms under Round-Rigid Adversaries", CONCUR 2019): rounds are communication-closed (a process reads only its current round's messages), every
round runs the same body, decided processes keep running it, and the carried variable ``v`` is
the only state that crosses a round boundary. The one-round automaton starts from an arbitrary
split of the processes over the values of ``v`` (``v`` is an input), and these one-round
properties, proved for every such split, carry over to every round by induction:

* ``validity_w``: no process starts the round with ``w`` ⇒ no process decides ``w`` nor ends the
  round with ``v == w``;
* ``agreement_w``: once a process decides ``w`` in the round, every process that ends it holds
  ``v == w`` and none decides another value;
* ``round_termination``: every (correct, non-crashed) process ends the round (liveness, under
  the fault model's justice);
* ``decide_or_flip``: every process ends the round, and the processes that end it without tossing
  the coin all hold the same value (a ghost flag marks the processes whose carried value came
  from the coin and was not overwritten since: random19's ``p-*.ta`` stops them at the coin
  location instead);
* ``unanimity_w``: all processes start the round with ``w`` ⇒ all decide ``w`` in it.

This pass checks that the reduction covers the program (or refuses it at its position) and
returns the algorithm with the ghost flag and the generated properties added (the premises the
termination argument assumes are checked on the extracted automaton: ``passes/alg_to_rta/premises.py``); the parse pass then
extracts the one-round automaton as usual and the normal engines check the obligations.
``tactl.report.rounds`` states the multi-round conclusion from their verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Span

MAX_VALUES = 8  # the obligations are per value of the carried variable


class RoundsError(Exception):
    """The program is outside what the round-rigid reduction covers (``file:line:col``)."""

    def __init__(self, message: str, span: Span | None = None):
        super().__init__(message)
        self.message = message
        self.span = span


@dataclass(frozen=True)
class Obligation:
    """One generated one-round property: its name, its role in the argument (validity,
    agreement, round_termination, decide_or_flip, unanimity), the value it is about (or None),
    and its formula as the user could have written it."""

    name: str
    role: str
    value: str | None
    text: str


@dataclass(frozen=True)
class RoundStructure:
    """What ``rounds carrying v:`` states: the carried variable, its values, the values
    ``decide`` can take, the ghost flag that marks a coin toss, and the obligations."""

    carried: str
    values: tuple[str, ...]
    decided: tuple[str, ...]
    tossed: str
    coin_tosses: bool  # the round assigns the carried variable from a coin
    obligations: tuple[Obligation, ...]
    span: Span | None = None


def rounds_block(alg: A.Algorithm) -> A.Round | None:
    """The ``rounds carrying …:`` block of the program, or None (a plain ``round:`` or none)."""
    return next((s for s in A.statements(alg.program) if isinstance(s, A.Round) and s.carrying),
                None)


def structure(alg: A.Algorithm) -> RoundStructure | None:
    """The round structure of ``alg`` (None without ``rounds carrying``); refuses, with a
    :class:`RoundsError` at its position, what the reduction does not cover."""
    block = rounds_block(alg)
    if block is None:
        return None
    _check_program(alg, block)
    carried = _carried(alg, block)
    decided = _decide_values(alg)
    undecidable = [d for d in decided if d not in carried.domain]
    if undecidable:
        at = next((s.span for s in A.statements(block.body) if isinstance(s, A.Decide)), block.span)
        raise RoundsError(f"'decide' can decide {undecidable[0]}, which is not a value of the "
                          f"carried variable '{carried.name}': the obligations relate a decision "
                          "to the value a process carries into the next round", at)
    used = {v.name for v in alg.variables} | set(alg.parameters) | {
        x for v in alg.variables for x in v.domain} | {x for d in alg.domains.values() for x in d}
    tossed = next(n for n in ("tossed", *(f"tossed_{i}" for i in range(1, len(used) + 2)))
                  if n not in used)
    tosses = any(isinstance(s, A.Assign) and s.var == carried.name and isinstance(s.value, A.Coin)
                 for s in A.statements(block.body))
    obligations = tuple(_obligations(carried, decided, tossed))
    names = {o.name for o in obligations}
    for p in alg.properties:
        if p.name in names:
            raise RoundsError(f"property '{p.name}' has the name of a generated round "
                              "obligation (docs/alg.md, \"Multi-round algorithms\"); rename it",
                              p.span)
    return RoundStructure(carried.name, carried.domain, decided, tossed, tosses, obligations,
                          block.span)


def expand(alg: A.Algorithm) -> A.Algorithm:
    """``alg`` with the ghost flag (set where the carried variable is tossed) and the generated
    obligations as properties; ``alg`` itself without ``rounds carrying``."""
    s = structure(alg)
    if s is None:
        return alg
    ghost = A.Variable(s.tossed, A.BOOL, A.FALSE)
    program = tuple(_with_flag(st, s.carried, s.tossed) for st in alg.program)
    generated = tuple(A.PropertyDecl(o.name, f, span=s.span)
                      for o, f in zip(s.obligations, _formulas(s)))
    return replace(alg, variables=(*alg.variables, ghost), program=program,
                   properties=(*alg.properties, *generated))


# ---- checks ---------------------------------------------------------------------------------

def _check_program(alg: A.Algorithm, block: A.Round) -> None:
    if alg.timing != "async":
        raise RoundsError("'rounds carrying' is the round-rigid reduction of asynchronous "
                          "rounds (CONCUR 2019); a synchronous algorithm's rounds are checked in "
                          "lock step as they are: write one round as 'round:'", block.span)
    if len(alg.program) != 1 or alg.program[0] is not block:
        other = next(s for s in alg.program if s is not block)
        raise RoundsError("a statement outside 'rounds carrying …:': the repeated round is the "
                          "whole algorithm (every round runs the same body)",
                          getattr(other, "span", None))
    if len(block.carrying) != 1:
        raise RoundsError("'rounds carrying' takes one variable, the estimate carried into the "
                          "next round: the generated obligations relate a decision to it",
                          block.carrying_spans[1] if len(block.carrying_spans) > 1 else block.span)
    for s in A.statements(block.body):
        if isinstance(s, A.Loop):
            raise RoundsError("'loop forever' inside 'rounds carrying …:': the round never ends, "
                              "so no value is carried into a next round (the reduction needs "
                              "every round to end; an event loop is one unbounded round)", s.span)
        if isinstance(s, A.Round):
            raise RoundsError("a round inside 'rounds carrying …:' (the block is one round)",
                              s.span)
        for node in _read_by(s):
            if isinstance(node, A.Ref) and node.name == A.DECIDED:
                raise RoundsError("the round reads 'decided': the one-round automaton starts "
                                  "every process undecided, but a process that decided in an "
                                  "earlier round runs the next rounds decided, so it could take "
                                  "other branches than the ones checked (decided processes must "
                                  "run the same round)", node.span or getattr(s, "span", None))
        if isinstance(s, A.Assign) and isinstance(s.value, A.Oracle):
            raise RoundsError("an oracle inside 'rounds carrying …:': the termination argument "
                              "needs every undetermined choice to be a fair coin", s.span)


def _read_by(s):
    """The terms and conditions statement ``s`` itself reads (not those of nested blocks)."""
    if isinstance(s, A.If):
        parts = [b.cond for b in s.branches]
    elif isinstance(s, A.Wait):
        parts = [s.cond]
    elif isinstance(s, (A.Assign, A.Decide)):
        parts = [s.value]
    elif isinstance(s, A.Send):
        parts = [s.pattern]
    else:
        parts = []
    for p in parts:
        yield from A.walk(p)


def _carried(alg: A.Algorithm, block: A.Round) -> A.Variable:
    name = block.carrying[0]
    span = block.carrying_spans[0] if block.carrying_spans else block.span
    var = alg.variable(name)
    if var is None:
        known = ", ".join(v.name for v in alg.variables) or "none declared"
        raise RoundsError(f"'{name}' is not a declared variable (variables: {known})", span)
    if var.initial is not None:
        raise RoundsError(f"the carried variable '{name}' starts every round with the value the "
                          "previous round left, any value of its domain: declare it "
                          f"'{name}: … = input' (the one-round automaton starts from every "
                          "split of the processes over its values)", var.span)
    if len(var.domain) > MAX_VALUES:
        raise RoundsError(f"the carried variable '{name}' has {len(var.domain)} values; the "
                          f"obligations are per value, at most {MAX_VALUES}", var.span)
    for other in alg.variables:
        if other.name != name and other.initial is None:
            raise RoundsError(f"variable '{other.name}' is an input but is not carried: every "
                              "round starts it afresh, so give it a fixed initial value (or "
                              "carry it instead)", other.span)
    return var


def _decide_values(alg: A.Algorithm) -> tuple[str, ...]:
    """The values ``decide`` can take (constants, or any value of a variable or placeholder)."""
    decides = [s for s in A.statements(alg.program) if isinstance(s, A.Decide)]
    if not decides:
        block = rounds_block(alg)
        raise RoundsError("no 'decide' in the round: the round-rigid obligations are about "
                          "decisions (a consensus algorithm decides)", block.span if block else None)
    values: list[str] = []
    domains = [v.domain for v in alg.variables]
    message_values = [x for m in alg.messages for part, tag in zip(m.parts, m.tags) if not tag
                      for x in part]
    for d in decides:
        t = d.value
        if isinstance(t, A.Num):
            found: tuple[str, ...] = (str(t.value),)
        elif isinstance(t, A.Const):
            found = (t.value,)
        elif isinstance(t, A.Ref) and alg.variable(t.name) is not None:
            found = alg.variable(t.name).domain
        elif isinstance(t, A.Ref) and any(t.name in dom for dom in domains):
            found = (t.name,)
        else:  # a placeholder: a payload value
            found = tuple(message_values)
        values.extend(x for x in found if x not in values)
    return tuple(values)


# ---- the coin flag --------------------------------------------------------------------------

def _with_flag(s, carried: str, flag: str):
    """``v := coin`` becomes ``v := coin; tossed := true`` and every other assignment to ``v``
    becomes ``v := …; tossed := false`` (the flag is never read by the code: it only lets
    decide_or_flip tell a tossed value from an adopted one). The flag means "v holds this
    round's coin toss and nothing overwrote it": a value written over a toss (``v := coin toss;
    v := 0``, finding A2) is no coin's, so decide_or_flip must count its process among those
    that hold one value; a flag left set would let a deterministic value pass as a fair coin."""
    if isinstance(s, A.If):
        return replace(s, branches=tuple(replace(b, body=_block(b.body, carried, flag))
                                         for b in s.branches),
                       orelse=_block(s.orelse, carried, flag) if s.orelse is not None else None)
    if isinstance(s, (A.Loop, A.Round, A.ForEach)):
        return replace(s, body=_block(s.body, carried, flag))
    return s


def _block(stmts, carried: str, flag: str):
    out = []
    for s in stmts:
        out.append(_with_flag(s, carried, flag))
        if isinstance(s, A.Assign) and s.var == carried:
            tossed = A.TRUE if isinstance(s.value, A.Coin) else A.FALSE
            out.append(A.Assign(flag, A.Const(tossed), span=s.span, var_span=s.var_span))
    return tuple(out)


# ---- the obligations ------------------------------------------------------------------------

def _obligations(var: A.Variable, decided: tuple[str, ...], flag: str):
    v = var.name
    for w in var.domain:
        if w in decided:
            text = f"initially (no {v} == {w}) -> always (no decided == {w} and no (done and {v} == {w}))"
        else:
            text = f"initially (no {v} == {w}) -> always (no (done and {v} == {w}))"
        yield Obligation(f"validity_{_ident(w)}", "validity", w, text)
    for w in decided:
        others = " and ".join(f"no decided == {u}" for u in decided if u != w)
        text = (f"always ((some decided == {w}) -> always (no (done and {v} != {w})"
                + (f" and {others}" if others else "") + "))")
        yield Obligation(f"agreement_{_ident(w)}", "agreement", w, text)
    yield Obligation("round_termination", "round_termination", None, "eventually (all done)")
    alts = " or ".join(f"no (done and not {flag} and {v} != {w})" for w in var.domain)
    yield Obligation("decide_or_flip", "decide_or_flip", None,
                     f"eventually (all done and ({alts}))")
    for w in decided:
        yield Obligation(f"unanimity_{_ident(w)}", "unanimity", w,
                         f"initially (all {v} == {w}) -> eventually (all (done and decided == {w}))")


def _ident(value: str) -> str:
    return {A.BOTTOM: "bot"}.get(value, value)


def _value(x: str):
    if x.lstrip("-").isdigit():
        return A.Num(int(x))
    if x in (A.BOTTOM, A.TRUE, A.FALSE):
        return A.Const(x)
    return A.Ref(x)


def _eq(name: str, value: str, op: str = "==") -> A.Compare:
    return A.Compare((op,), (A.Ref(name), _value(value)))


def _and(*args) -> A.BoolOp:
    return A.BoolOp("and", tuple(args))


def _f(op: str, *args) -> A.FormulaNode:
    return A.FormulaNode(op, tuple(args))


def _formulas(s: RoundStructure):
    """The obligations' formulas as property trees, in the order of ``s.obligations`` (the same
    formulas as their ``text``)."""
    v, flag, done = s.carried, s.tossed, A.Ref(A.DONE)
    out = []
    for o in s.obligations:
        w = o.value
        if o.role == "validity":
            body = [_f("no", _and(done, _eq(v, w)))]
            if w in s.decided:
                body.insert(0, _f("no", _eq(A.DECIDED, w)))
            out.append(_f("implies", _f("initially", _f("no", _eq(v, w))),
                          _f("always", _f("and", *body) if len(body) > 1 else body[0])))
        elif o.role == "agreement":
            body = [_f("no", _and(done, _eq(v, w, "!=")))]
            body += [_f("no", _eq(A.DECIDED, u)) for u in s.decided if u != w]
            out.append(_f("always", _f("implies", _f("some", _eq(A.DECIDED, w)),
                                       _f("always", _f("and", *body) if len(body) > 1 else body[0]))))
        elif o.role == "round_termination":
            out.append(_f("eventually", _f("all", done)))
        elif o.role == "decide_or_flip":
            alts = [_f("no", _and(done, A.NotCond(A.Ref(flag)), _eq(v, u, "!="))) for u in s.values]
            out.append(_f("eventually", _f("and", _f("all", done),
                                           _f("or", *alts) if len(alts) > 1 else alts[0])))
        else:  # unanimity
            out.append(_f("implies", _f("initially", _f("all", _eq(v, w))),
                          _f("eventually", _f("all", _and(done, _eq(A.DECIDED, w))))))
    return out
