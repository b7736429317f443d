"""The parse pass: pseudocode (``ir.alg.Algorithm``) → receive threshold automaton (``ReceiveTA``).

**Control-state extraction** (domain.md §5). A *location* is a reachable valuation of a
process's finite local state at a *stop point*: the values of its variables, which message types
it has already sent in this round ("send at most once"), and where it stands in the code. The
stop points are the places where a process waits for messages:

* ``wait until C`` (the process stands before it until ``C`` holds);
* the head of ``loop forever:`` (an event loop: the process waits for some handler to fire);
* the end of the program or of the ``round:`` (finished; at a round end the variables carry over
  to the next round, which the one-round automaton does not model);
* in a phase of numbered rounds (``round 1:`` … ``round K:``, synchronous), the start of each
  round: the end of round k is the start of round k + 1 and the end of round K the start of round
  1, the live-variable analysis runs around the phase, and a process that reads ``coordinator``
  learns whether it is the coordinator at the end of the round before (``passes/alg_to_rta/phases.py``);
* the start, unless the program begins with a stop point (then that point is the start).

**One step** (one rule) is: receive some messages, then compute and send without receiving
more — from a stop point to the next stop point. Its guard is the conjunction of the receive
conditions the computation evaluated (true or false); receive counts stay symbolic, local
variables are concrete. Concretely, from a stop point:

* at ``wait until C``: if ``C`` fails, nothing changes (the process keeps waiting); else the code
  after it runs up to the next stop point;
* at a loop head: the loop body runs repeatedly, with the same received messages, until one
  pass changes nothing (*quiescence*: local computation takes no time, so a process that
  receives ``n - t`` ECHOs at once both relays and accepts, as in every hand-made STRB model);
  a body that never becomes quiescent is an error;
* at the end: nothing changes.

A step that changes nothing is the *self-loop* of a waiting or finished location (its guard is
"no receive condition that would change anything holds"; asynchronous translation makes it
``true``). Synchronous algorithms (``timing sync``) run a whole round as one step — every
message of a round arrives before its end — so they have no ``wait``, no event loop and no
self-loops. Paths whose receive conditions contradict each other under the resilience condition
are pruned with z3; paths with the same source, target and sends are one rule whose guard is
their disjunction, simplified (complementary literals merged, implied literals dropped).

**What a location keeps**: only what can still matter (a live-variable analysis over the code):
a variable that will be overwritten before it is read is forgotten (Ben-Or's estimate while it
waits for P messages), as is the "already sent M" flag once no ``send M`` can follow. Variables
that properties mention are kept everywhere; at a round end all variables are kept.

**Names** are made from what the location keeps: ``v1``, ``accept``, ``D0`` (decided 0),
``sentECHO``, and the stop point (``waitR``, ``loop``, ``done``) when several exist — leaving
out the fragments that fragments in the name imply in every location (``accept`` for STRB's
"v = 1, sent ECHO, accept"), so a name never hides a fact it does not imply (``docs/alg.md``).

**Properties** are over process variables; ``some P`` / ``all P`` / ``no P`` become conditions on
the counters of the locations whose kept values satisfy ``P`` (``all`` ranges over the modelled
processes: the correct ones, and for crash models those that have not crashed).

**Source maps**: every location and rule carries an :class:`ir.ta.Origin` — the pseudocode lines
of its stop point, resp. of the conditions and statements its step executed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import product
from typing import Iterable

import sympy

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.expr import (
    Always,
    And,
    BoolConst,
    Compare,
    Eventually,
    Expr,
    Implies,
    IntConst,
    Name,
    Not,
    Or,
    conj,
    disj,
    to_text,
)
from tactl.ir.linear import int_symbols, to_z3
from tactl.util.suggest import did_you_mean
from tactl.ir.rta.model import (
    CRASH_LOCATION,
    CRASH_MODELS,
    fault_arities,
    fault_arity_text,
    FaultModel,
    Faults,
    Message,
    ReceiveRule,
    ReceiveTA,
    Timing,
    received,
)
from tactl.ir.ta.model import Location, Origin, Property

from tactl.passes.alg_to_rta import sets as S
from tactl.passes.alg_to_rta.rounds import RoundsError, expand as expand_rounds
from tactl.passes.alg_to_rta.phases import Layout, PhaseError, layout
from tactl.passes.alg_to_rta.thresholds import NEGATE, ThresholdError, normalize, symbol


@lru_cache(maxsize=1 << 16)
def _normalized(left: sympy.Expr, op: str, right: sympy.Expr, order: tuple[tuple[str, int], ...]) -> Expr:
    """``normalize`` of a receive condition, remembered: a pure function of its arguments, and
    every location of a large ``.alg`` asks the same few comparisons again (DBFT's 66 locations:
    9,051 calls, 19 s of sympy before; issue 21)."""
    return normalize(left, op, right, _is_received, dict(order))


def _is_received(name: str) -> bool:
    return name.startswith("received(")

# Guard rails: an algorithm whose local state space explodes is an input problem, not a hang.
MAX_LOCATIONS = 2000
# A control state of the extraction is a path it follows through a step: a point in the code, a
# valuation and the receive outcomes so far, counted over the whole extraction. Three times the
# corpus's largest (920, dbft: 52 locations), below a minute (dbft's 920 take under a second).
MAX_CONTROL_STATES = 3000


class ParseError(InputError):
    pass


# Names the pseudocode gives a meaning of its own; a user's variable, parameter or placeholder of
# that name would be silently read as the built-in in some place (docs/alg.md, "Reserved names").
BUILT_IN_NAMES = {
    A.DECIDED: "'decided' is the value 'decide v' sets",
    A.DONE: "'done' means the process has finished, in properties",
    A.CRASHED: "'crashed' means the process has crashed, in properties (crash fault models)",
    "bot": "'bot' is ⊥",
    "coin": "'coin' is a coin toss",
    A.TRUE: "'true' is a Boolean value",
    A.FALSE: "'false' is a Boolean value",
    A.COORDINATOR: "'coordinator' says whether the process is the phase's coordinator",
}


@dataclass
class _Fail(Exception):
    message: str
    span: Span | None


def _fail(message: str, span: Span | None = None) -> _Fail:
    return _Fail(message, span)


# ================================================================================ declarations

@dataclass(frozen=True)
class MessageType:
    """One expanded message type: ``(P, 0, D)`` → name ``P0D`` of kind ``P``."""

    name: str
    base: str
    payload: tuple[str, ...]


def _type_name(base: str, payload: tuple[str, ...]) -> str:
    spelled = {"?": "Q", A.BOTTOM: "bot"}
    return base + "".join(spelled.get(p, p) for p in payload)


@dataclass
class _Context:
    alg: A.Algorithm
    parameters: tuple[str, ...]
    types: list[MessageType]
    kinds: dict[str, tuple[str, ...]]
    variables: dict[str, A.Variable]
    symbols: set[str]  # constants of domains and message tags (yes, no, D, …)
    decides: bool
    rc: tuple[Expr, ...]
    # the rounds of a phase and the coordinator (passes/alg_to_rta/phases.py); set by _parse
    layout: Layout = field(default_factory=lambda: Layout((), None, ()))

    def order(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.parameters)}


def _declarations(alg: A.Algorithm) -> _Context:
    params = alg.parameters
    if not params:
        raise _fail("missing 'parameters' line, e.g. 'parameters n, t, f'", Span(1, 1))
    if len(set(params)) != len(params):
        raise _fail("a parameter is declared twice", alg.spans.get("parameters"))
    try:
        model = FaultModel(alg.fault_model)
    except ValueError:
        raise _fail(f"unknown fault model '{alg.fault_model}' (models: "
                    f"{', '.join(m.value for m in FaultModel)})", alg.spans.get("fault model")) from None
    if len(alg.fault_parameters) not in fault_arities(model):
        raise _fail(f"the fault model {model.value} takes {fault_arity_text(model)}",
                    alg.spans.get("fault model"))
    for p in alg.fault_parameters:
        if p not in params:
            raise _fail(f"fault parameter '{p}' is not among the parameters ({', '.join(params)})",
                        alg.spans.get("fault model"))
    if alg.timing not in ("async", "sync"):
        raise _fail(f"unknown timing '{alg.timing}': write 'timing async' or 'timing sync'",
                    alg.spans.get("timing value"))
    types: list[MessageType] = []
    seen_shapes: dict[str, A.MessageShape] = {}
    for shape in alg.messages:
        for payload in product(*shape.parts) if shape.parts else [()]:
            t = MessageType(_type_name(shape.name, payload), shape.name, tuple(payload))
            if any(x.name == t.name for x in types):
                raise _fail(f"message type '{t.name}' is declared twice", shape.span)
            if not t.name.isidentifier():
                raise _fail(f"message type '{t.name}' does not make a name; use names or numbers "
                            "as payload values", shape.span)
            types.append(t)
        seen_shapes[shape.name] = shape
    bases: dict[str, list[str]] = {}
    for t in types:
        bases.setdefault(t.base, []).append(t.name)
    kinds = {b: tuple(ns) for b, ns in bases.items() if len(ns) > 1 or ns[0] != b}
    variables: dict[str, A.Variable] = {}
    for v in alg.variables:
        if v.name in variables:
            raise _fail(f"variable '{v.name}' is declared twice", v.span)
        if v.name in params:
            raise _fail(f"variable '{v.name}' has the name of a parameter", v.span)
        variables[v.name] = v
    placeholders = [(b.placeholder, b.placeholder_span or b.span)
                    for s in _all_statements(alg.program)
                    for b in (s.branches if isinstance(s, A.If) else [s] if isinstance(s, A.Wait)
                              else []) if b.placeholder]
    for name, span, what in [*((p, alg.spans.get(f"parameter {p}"), "parameter") for p in params),
                             *((v.name, v.span, "variable") for v in alg.variables),
                             *((w, span, "placeholder") for w, span in placeholders)]:
        if name in BUILT_IN_NAMES:
            raise _fail(f"'{name}' is reserved: {BUILT_IN_NAMES[name]}; name the {what} "
                        "differently", span)
    symbols = {x for v in alg.variables for x in v.domain if not _is_number(x)}
    symbols |= {x for s in alg.messages for part in s.parts for x in part if not _is_number(x)}
    symbols |= {x for d in alg.domains.values() for x in d if not _is_number(x)}
    clash = symbols & (set(params) | set(variables))
    if clash:
        name = sorted(clash)[0]
        where = next((v.span for v in alg.variables if v.name == name or name in v.domain),
                                None)
        raise _fail(f"'{name}' is both a value of a domain and a parameter or variable name", where)
    decides = any(isinstance(s, A.Decide) for s in _all_statements(alg.program))
    ctx = _Context(alg, params, types, kinds, variables, symbols, decides, ())
    rc = []
    for chain in alg.resilience:
        for e in _chain_exprs(ctx, chain, {}):
            if not isinstance(e, BoolConst):
                rc.append(e)
            elif not e.value:
                raise _fail("this resilience condition is always false", chain.span)
    ctx.rc = tuple(rc)
    return ctx


def _is_number(x: str) -> bool:
    return x.lstrip("-").isdigit()


def _all_statements(stmts: Iterable[A.Stmt]) -> Iterable[A.Stmt]:
    return A.statements(stmts)


# ================================================================================ domains

def _check_domains(ctx: _Context) -> None:
    """Refuse a comparison that a variable's domain decides: ``accept == 1`` for a Boolean,
    ``v == 2`` or ``v != ⊥`` for ``v: {0, 1}``, two variables with disjoint domains, a
    ``received (R, 7)`` whose payload no declared message has. In a property such a comparison
    makes the property vacuous (it HOLDS whatever the algorithm does); in code it is dead (or
    unconditional) code. Placeholders and values unknown here are left to the evaluation."""
    decided = _decided_domain(ctx)
    problems: list[Diagnostic] = []

    def domain(t) -> tuple[tuple[str, ...], str] | None:
        """The values ``t`` can take and what it is (a variable or a constant), or None."""
        if isinstance(t, A.Ref):
            if t.name in ctx.variables:
                return ctx.variables[t.name].domain, "variable"
            if t.name == A.DECIDED and ctx.decides:
                return decided, "variable"
            if t.name in ctx.symbols:
                return (t.name,), "constant"
            return None
        if isinstance(t, A.Num):
            return (str(t.value),), "constant"
        if isinstance(t, A.Const):
            return (t.value,), "constant"
        if isinstance(t, A.NotValue):
            return A.BOOL, "constant"
        return None

    def check(c) -> None:
        for x in _cond_nodes(c):
            if isinstance(x, A.Compare):
                for op, a, b in zip(x.ops, x.terms, x.terms[1:]):
                    if op in ("==", "!="):
                        pair(op, a, b, x.span)
            elif isinstance(x, (A.Received, A.Count)):
                payload(x.pattern)

    def pair(op: str, a, b, span) -> None:
        da, db = domain(a), domain(b)
        if da is None or db is None or "variable" not in (da[1], db[1]):
            return
        if set(da[0]) & set(db[0]):
            return
        where = _join(_span_of(a), _span_of(b)) or span
        verdict = "can never be true" if op == "==" else "is always true"
        ranges = "; ".join(f"'{_term_text(t)}' ranges over {{{', '.join(d[0])}}}"
                           for t, d in ((a, da), (b, db)) if d[1] == "variable")
        problems.append(Diagnostic(Severity.ERROR, f"'{_term_text(a)} {op} {_term_text(b)}' "
                                   f"{verdict}: {ranges}", where))

    def payload(p: A.Pattern) -> None:
        if not p.parts:
            return
        shapes = [s for s in ctx.alg.messages if s.name == p.name and len(s.parts) == len(p.parts)]
        if not shapes:
            return  # unknown messages and wrong arities are reported where they are evaluated
        for i, part in enumerate(p.parts):
            d = None if isinstance(part, str) else domain(part)
            if d is None or d[1] != "constant":
                continue
            values = {v for s in shapes for v in s.parts[i]}
            if not values & set(d[0]):
                problems.append(Diagnostic(
                    Severity.ERROR, f"no declared message ({p.name}, …) has the value "
                    f"'{d[0][0]}' at position {i + 1} (values there: "
                    f"{', '.join(sorted(values))}): this count is always 0",
                    _span_of(part) or p.span))

    for stmt in _all_statements(ctx.alg.program):
        if isinstance(stmt, A.If):
            for b in stmt.branches:
                check(b.cond)
        elif isinstance(stmt, A.Wait):
            check(stmt.cond)
    for prop in ctx.alg.properties:
        stack = [prop.formula]
        while stack:
            f = stack.pop()
            for arg in f.args:
                (stack.append(arg) if isinstance(arg, A.FormulaNode) else check(arg))
    if problems:
        raise ParseError(problems, ctx.alg.path, ctx.alg.source)


def _cond_nodes(c):
    """Every node of a condition or predicate, including the predicates of ``count (P)``."""
    stack = [c]
    while stack:
        for x in A.walk(stack.pop()):
            yield x
            if isinstance(x, A.CountPred):
                stack.append(x.pred)


def _decided_domain(ctx: _Context) -> tuple[str, ...]:
    """The values ``decided`` can take: ⊥ and what the ``decide`` statements decide (every value
    of every domain when one decides a placeholder)."""
    out = [A.BOTTOM]
    for s in _all_statements(ctx.alg.program):
        if not isinstance(s, A.Decide):
            continue
        v = s.value
        if isinstance(v, A.Ref) and v.name in ctx.variables:
            values = ctx.variables[v.name].domain
        elif isinstance(v, A.Num):
            values = (str(v.value),)
        elif isinstance(v, A.Const):
            values = (v.value,)
        elif isinstance(v, A.Ref) and v.name in ctx.symbols:
            values = (v.name,)
        else:  # a placeholder, or a coin: any value a domain or payload has
            values = tuple(x for d in [*(w.domain for w in ctx.alg.variables),
                                       *(p for m in ctx.alg.messages for p in m.parts), A.BOOL]
                           for x in d)
        out.extend(x for x in values if x not in out)
    return tuple(out)


def _join(a: Span | None, b: Span | None) -> Span | None:
    if a is None or b is None:
        return a or b
    return Span(a.line, a.col, b.end_line, b.end_col)


def _term_text(t) -> str:
    if isinstance(t, A.Ref):
        return t.name
    if isinstance(t, A.Num):
        return str(t.value)
    if isinstance(t, A.Const):
        return t.value
    if isinstance(t, A.NotValue):
        return f"not {_term_text(t.arg)}"
    return "…"


# ================================================================================ the code

@dataclass(frozen=True)
class Instr:
    op: str  # assign send decide branch jump wait loop_head loop_back end
    stmt: object = None
    target: int = -1  # branch: where the false case goes; jump/loop_back: where to go
    loop_end: int = -1  # loop_head: index after the loop
    value: str | None = None  # each_item: the element it stands for


def _compile(ctx: _Context) -> tuple[list[Instr], bool]:
    """The program as a flat instruction list; whether it ends a round."""
    code: list[Instr] = []
    state = {"round": False, "loop": False}
    program = list(ctx.alg.program)
    # `upon` handlers written at the top level, outside a loop, form the event loop.
    first_upon = next((i for i, s in enumerate(program) if isinstance(s, A.If) and s.upon), None)
    if first_upon is not None and not any(isinstance(s, A.Loop) for s in program):
        program = program[:first_upon] + [A.Loop(tuple(program[first_upon:]),
                                                  span=program[first_upon].span)]
    next_rounds: list[int] = []
    phase = ctx.layout
    chooses = ctx.alg.timing == "sync" and phase.coordinator_round is not None

    def emit(i: Instr) -> int:
        code.append(i)
        return len(code) - 1

    def round_end(k: int) -> None:
        """The end of round ``k`` of a phase: where its ``next round`` jumps; the coordinator
        is chosen here if round k + 1 reads it; then the stop point at round k + 1's start (the
        last round's end is the phase's end, emitted below: the start of round 1)."""
        for j in next_rounds:
            code[j] = replace(code[j], target=len(code))
        next_rounds.clear()
        if k < len(phase.rounds):
            if chooses and phase.coordinator_round == k + 1:
                emit(Instr("choose", None))
            emit(Instr("boundary", phase.rounds[k]))

    def block(stmts, in_loop: bool) -> None:
        for s in stmts:
            stmt(s, in_loop)

    def stmt(s, in_loop: bool) -> None:
        if isinstance(s, A.Assign):
            emit(Instr("assign", s))
        elif isinstance(s, A.Send):
            emit(Instr("send", s))
        elif isinstance(s, A.Decide):
            emit(Instr("decide", s))
        elif isinstance(s, A.Skip):
            pass
        elif isinstance(s, A.Wait):
            if in_loop:
                raise _fail("'wait until' inside 'loop forever': an event loop does not block; "
                            "write the condition as a handler, 'upon C: …'", s.span)
            if ctx.alg.timing == "sync":
                raise _fail("'wait' in a synchronous algorithm: every message of a round arrives "
                            "by its end, so a round is one step; test the received messages "
                            "directly ('if received M from … processes: …')", s.span)
            emit(Instr("wait", s))
        elif isinstance(s, A.NextRound):
            if not state["round"]:
                raise _fail("'next round' outside a 'round:' block", s.span)
            next_rounds.append(emit(Instr("jump", s)))
        elif isinstance(s, A.If):
            ends: list[int] = []
            for b in s.branches:
                at = emit(Instr("branch", b))
                block(b.body, in_loop)
                ends.append(emit(Instr("jump", None)))
                code[at] = replace(code[at], target=len(code))
            if s.orelse:
                block(s.orelse, in_loop)
            for e in ends:
                code[e] = replace(code[e], target=len(code))
        elif isinstance(s, A.Loop):
            if in_loop or state["loop"]:
                raise _fail("only one 'loop forever' is supported", s.span)
            if ctx.alg.timing == "sync":
                raise _fail("'loop forever' in a synchronous algorithm: write one round as "
                            "'round:' (the rounds themselves are the loop)", s.span)
            state["loop"] = True
            head = emit(Instr("loop_head", s))
            block(s.body, True)
            emit(Instr("loop_back", s, target=head))
            code[head] = replace(code[head], loop_end=len(code))
        elif isinstance(s, A.ForEach):  # unrolled over the element domain (passes/alg_to_rta/sets.py)
            elements = S.check_for_each(ctx, s)
            emit(Instr("each_begin", s))
            for e in elements:
                at = emit(Instr("each_item", s, value=e))
                block(s.body, in_loop)
                code[at] = replace(code[at], target=len(code))
        elif isinstance(s, A.Round) and s.number is not None:  # round K of a phase
            state["round"] = True
            block(s.body, in_loop)
            round_end(s.number)
        elif isinstance(s, A.Round):
            if state["round"]:
                raise _fail("only one 'round:' is supported (tactl models one round)", s.span)
            state["round"] = True
            block(s.body, in_loop)
        else:  # pragma: no cover - the reader builds no other statement
            raise _fail("unsupported statement", getattr(s, "span", None))

    block(program, False)
    if state["loop"] and code and code[-1].op != "loop_back":
        after = next((s for i, s in enumerate(program) if i and isinstance(program[i - 1], A.Loop)),
                     None)
        raise _fail("statements after 'loop forever:' are never reached",
                    getattr(after, "span", None))
    finish = len(code)
    if chooses and phase.coordinator_round == 1:  # chosen at the end of the phase's last round
        emit(Instr("choose", None))
    emit(Instr("end", None))
    for j in next_rounds:
        code[j] = replace(code[j], target=finish)
    return code, state["round"]


# ================================================================================ liveness

SENT = "sent:"  # prefix of the "already sent" flag of a message type, a state component


def _cond_names(c) -> set[str]:
    """The names a term or condition mentions (variables, placeholders, parameters, …)."""
    return {x.name for x in A.walk(c) if isinstance(x, A.Ref)}


def _liveness(ctx: _Context, code: list[Instr], round_end: bool, observed: set[str]) -> list[set[str]]:
    """Per instruction, the state components live before it."""
    variables = set(ctx.variables) | ({A.DECIDED} if ctx.decides else set())
    kept = set(variables)  # what a single round's end keeps (the coordinator is forgotten)
    if ctx.layout.coordinator_round is not None:
        variables.add(A.COORDINATOR)
    phased = ctx.layout.phased
    all_flags = {SENT + t.name for t in ctx.types}

    def sent_flags(pattern: A.Pattern) -> set[str]:
        return {SENT + t.name for t in ctx.types if t.base == pattern.name}

    def succ(i: int) -> list[int]:
        ins = code[i]
        if ins.op in ("jump", "loop_back"):
            return [ins.target]
        if ins.op in ("branch", "each_item"):
            return [i + 1, ins.target]
        if ins.op == "end":  # a phase repeats: its end is the start of round 1
            return [0] if phased else []
        return [i + 1]

    def use_def(i: int) -> tuple[set[str], set[str]]:
        ins = code[i]
        s = ins.stmt
        if ins.op == "assign":
            return _cond_names(s.value) & variables, {s.var}
        if ins.op == "send":
            return (_cond_names(s.pattern) & variables) | sent_flags(s.pattern), set()
        if ins.op == "decide":  # reads 'decided' too: deciding again is refused (irrevocable)
            return (_cond_names(s.value) & variables) | {A.DECIDED}, {A.DECIDED}
        if ins.op in ("branch", "wait"):  # and the set a quorum choice takes subsets of
            return (_cond_names(s.cond) | _cond_names(s.subset_of or A.Const(""))) & variables, set()
        if ins.op == "each_begin":
            return _cond_names(s.set) & variables, set()
        if ins.op == "end" and phased:
            return set(), all_flags
        if ins.op == "end":
            return (set(kept) if round_end else set()), set()
        if ins.op == "boundary":  # the next round starts: nothing sent in it yet
            return set(), all_flags
        if ins.op == "choose":
            return set(), {A.COORDINATOR}
        return set(), set()

    live = [set() for _ in code]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(code))):
            out: set[str] = set()
            for j in succ(i):
                out |= live[j]
            use, defs = use_def(i)
            new = use | (out - defs) | observed
            if new != live[i]:
                live[i] = new
                changed = True
    return live


# ================================================================================ evaluation

@dataclass
class _Thread:
    """One path of symbolic execution within a step."""

    pc: int
    state: dict[str, str | bool]
    bindings: dict[str, str] = field(default_factory=dict)
    literals: dict[str, tuple[Expr, bool]] = field(default_factory=dict)  # atom text → (atom, value)
    sends: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    loop_seen: list[tuple] = field(default_factory=list)
    # Lines of taken branch conditions, (line, end of the branch body): they enter ``lines``
    # only if a statement of the body has an effect — a source map names what a step *did*.
    pending: list[tuple[int, int]] = field(default_factory=list)
    effects: int = 0  # statements that changed the state or sent, so far in this step
    pass_start: int = 0  # ``effects`` when the current pass of the event loop began
    # The choices the step made (the rule's mark in the .rta, ir/rta/model.py CHOICE_MARKS): "coin"
    # once it tossed a coin, "oracle" once an oracle gave a value other than the variable's.
    choice: str | None = None
    # Crash models: the states the step passes through, as (kept values, sends, literals, lines
    # so far) — where a process that crashes between two statements stops (_crash_steps)
    trail: list[tuple[tuple, int, int, int]] = field(default_factory=list)

    def fork(self) -> "_Thread":
        return _Thread(self.pc, dict(self.state), dict(self.bindings), dict(self.literals),
                       list(self.sends), list(self.lines), list(self.loop_seen),
                       list(self.pending), self.effects, self.pass_start, self.choice,
                       list(self.trail))

    def mark(self, kept: tuple[str, ...]) -> None:
        """Record the state between two statements (crash models): what the properties read,
        and how much of the step (sends, receive conditions, lines) lies before this point."""
        point = (tuple(self.state.get(c) for c in kept), len(self.sends), len(self.literals),
                 len(self.lines))
        if not self.trail or self.trail[-1][:2] != point[:2]:
            self.trail.append(point)

    def chose(self, oracle: bool, changed: bool) -> None:
        """Record a coin toss or an oracle's output; an oracle that changed the value makes the
        step optional (never forced), which outweighs a coin."""
        if oracle and changed:
            self.choice = "oracle"
        elif not oracle and self.choice is None:
            self.choice = "coin"

    def line(self, span: Span | None) -> None:
        if span is not None and span.line not in self.lines:
            self.lines.append(span.line)

    def taken(self, span: Span | None, body_end: int) -> None:
        if span is not None:
            self.pending.append((span.line, body_end))

    def effect(self, span: Span | None) -> None:
        """A statement changed the state or sent: record it and the conditions it is under."""
        self.effects += 1
        for line, end in self.pending:
            if self.pc < end and line not in self.lines:
                self.lines.append(line)
        self.line(span)


class _Eval:
    def __init__(self, ctx: _Context) -> None:
        self.ctx = ctx
        # message name -> where the code first counts several of its instances as one sum
        # (``received (AUX, vals)``, ``(AUX, *)``): checked against the kinds once the rules are
        # known (``_sums_count_processes``)
        self.sums: dict[str, Span | None] = {}

    def counted(self, p: A.Pattern, th: _Thread, span: Span | None) -> sympy.Expr:
        """The received count a pattern stands for: the sum of its matching instances."""
        names = self.matching(p, th)
        if len(names) > 1:
            self.sums.setdefault(p.name, span)
        return sum((symbol(received(m).name) for m in names), sympy.Integer(0))

    # ---- values (local) ----
    def value(self, t, th: _Thread) -> str:
        if isinstance(t, A.Num):
            return str(t.value)
        if isinstance(t, A.Const):
            return t.value
        if isinstance(t, A.Ref):
            if t.name in th.bindings:
                return th.bindings[t.name]
            if t.name in self.ctx.variables or t.name in (A.DECIDED, A.COORDINATOR):
                v = th.state.get(t.name)
                if v is None:
                    raise _fail(f"'{t.name}' is read here but has no value on this path",
                                t.span)
                return v  # type: ignore[return-value]
            if t.name in self.ctx.symbols:
                return t.name
            if t.name in self.ctx.parameters:
                raise _fail(f"'{t.name}' is a parameter: a process variable or value must stand "
                            "here (variables range over finite domains)", t.span)
            raise _fail(f"unknown name '{t.name}' (variables: "
                        f"{', '.join(self.ctx.variables) or 'none'})"
                        + did_you_mean(t.name, [*self.ctx.variables, *self.ctx.parameters]), t.span)
        if isinstance(t, A.NotValue):
            v = self.value(t.arg, th)
            if v not in A.BOOL:
                raise _fail("'not' needs a Boolean value", t.span)
            return A.FALSE if v == A.TRUE else A.TRUE
        if S.is_set_term(t):
            return S.value(self, t, th)
        raise _fail("a value (variable, placeholder or constant) must stand here", _span_of(t))

    def is_local(self, t, th: _Thread) -> bool:
        if isinstance(t, A.Ref):
            return (t.name in th.bindings or t.name in self.ctx.variables or t.name == A.DECIDED
                    or t.name in self.ctx.symbols or t.name == A.COORDINATOR)
        return isinstance(t, (A.Const, A.NotValue)) or S.is_set_term(t)

    # ---- arithmetic (symbolic) ----
    def arith(self, t, th: _Thread) -> sympy.Expr:
        if isinstance(t, A.Num):
            return sympy.Integer(t.value)
        if isinstance(t, A.Ref):
            if t.name in self.ctx.parameters:
                return symbol(t.name)
            if self.is_local(t, th):
                raise _fail(f"'{t.name}' is a process variable or value: thresholds are linear "
                            "terms over parameters and received counts", t.span)
            raise _fail(f"unknown name '{t.name}' (parameters: {', '.join(self.ctx.parameters)})"
                        + did_you_mean(t.name, self.ctx.parameters), t.span)
        if isinstance(t, A.Count):
            return self.counted(t.pattern, th, t.span)
        if isinstance(t, A.Arith):
            args = [self.arith(a, th) for a in t.args]
            if t.op == "neg":
                return -args[0]
            if t.op == "+":
                return args[0] + args[1]
            if t.op == "-":
                return args[0] - args[1]
            if t.op == "*":
                return args[0] * args[1]
            if t.op == "/":
                if not args[1].is_number:
                    raise _fail("division by a non-constant: thresholds are linear", t.span)
                if args[1] == 0:
                    raise _fail("division by zero", t.span)
                return args[0] / args[1]
        if isinstance(t, A.Rounding):
            inner = self.arith(t.arg, th)
            return sympy.ceiling(inner) if t.kind == "ceil" else sympy.floor(inner)
        raise _fail("a number, parameter or received count must stand here", _span_of(t))

    def compare(self, left: sympy.Expr, op: str, right: sympy.Expr, span) -> Expr:
        try:
            return _normalized(left, op, right, tuple(self.ctx.order().items()))
        except ThresholdError as e:
            raise _fail(str(e), span) from None

    # ---- message patterns ----
    def matching(self, p: A.Pattern, th: _Thread) -> list[str]:
        candidates = [t for t in self.ctx.types if t.base == p.name]
        if not candidates:
            raise _fail(f"unknown message '{p.name}' (messages: "
                        f"{', '.join(sorted({t.base for t in self.ctx.types})) or 'none'})"
                        + did_you_mean(p.name, {t.base for t in self.ctx.types}), p.span)
        if p.parts is None or p.parts == (A.WILDCARD,):
            return [t.name for t in candidates]
        wanted = [x if isinstance(x, str) else self.value(x, th) for x in p.parts]
        out = [t.name for t in candidates if len(t.payload) == len(wanted) and all(
            w == A.WILDCARD or S.match_payload(w, v) for w, v in zip(wanted, t.payload))]
        return out

    def send_type(self, p: A.Pattern, th: _Thread) -> str:
        if p.parts is not None and A.WILDCARD in p.parts:
            raise _fail("'*' stands for any payload when counting received messages; a send "
                        "names one message", p.span)
        names = self.matching(p, th)
        S.check_send(self, p, th)
        if len(names) != 1:
            shapes = ", ".join(_shape_text(s) for s in self.ctx.alg.messages if s.name == p.name)
            wanted = [x if isinstance(x, str) else self.value(x, th) for x in (p.parts or ())]
            raise _fail(f"payload outside its domain: ({', '.join([p.name, *wanted])}) is not a "
                        f"declared message ({shapes})", p.span)
        return names[0]

    # ---- conditions (symbolic over received counts, concrete over locals) ----
    def cond(self, c, th: _Thread) -> Expr:
        if isinstance(c, A.BoolOp):
            parts = [self.cond(a, th) for a in c.args]
            return conj(*parts) if c.op == "and" else disj(*parts)
        if isinstance(c, A.NotCond):
            return _negate(self.cond(c.arg, th))
        if isinstance(c, A.Member):
            return BoolConst(S.member(self, c, th))
        if isinstance(c, A.Received):
            count = self.counted(c.pattern, th, c.span)
            if count == 0:
                return self.compare(sympy.Integer(0), c.op, self.arith(c.amount, th), c.span)
            return self.compare(count, c.op, self.arith(c.amount, th), c.span)
        if isinstance(c, A.Compare):
            parts = []
            for (op, a, b) in zip(c.ops, c.terms, c.terms[1:]):
                if isinstance(a, A.Card) != isinstance(b, A.Card) and not (
                        self.is_local(a, th) and self.is_local(b, th)) and not isinstance(
                        a if isinstance(b, A.Card) else b, A.Num):
                    # |S| against a linear term over the parameters: a constant in a threshold
                    x, y = (sympy.Integer(int(self.value(u, th))) if isinstance(u, A.Card)
                            else self.arith(u, th) for u in (a, b))
                    parts.append(self.compare(x, op, y, c.span))
                    continue
                if self.is_local(a, th) or self.is_local(b, th):
                    local = S.local_compare(op, a, b, self.value(a, th), self.value(b, th), c.span)
                    if local is not None:
                        parts.append(BoolConst(local))
                        continue
                    if op not in ("==", "!="):
                        raise _fail("process variables are compared with == and != only (their "
                                    "values are finite domains)", c.span)
                    va, vb = self.value(a, th), self.value(b, th)
                    parts.append(BoolConst((va == vb) == (op == "==")))
                else:
                    parts.append(self.compare(self.arith(a, th), op, self.arith(b, th), c.span))
            return conj(*parts)
        if isinstance(c, A.Const) and c.value in A.BOOL:
            return BoolConst(c.value == A.TRUE)
        if isinstance(c, A.Ref) and self.is_local(c, th):
            v = self.value(c, th)
            if v not in A.BOOL:
                raise _fail(f"'{c.name}' is not Boolean: compare it, e.g. '{c.name} == 1'", c.span)
            return BoolConst(v == A.TRUE)
        raise _fail("a condition must stand here (a comparison, 'received M from K processes', "
                    "a Boolean variable, and/or/not)", _span_of(c))


def _shape_text(s: A.MessageShape) -> str:
    if not s.parts:
        return s.name
    parts = ["{" + ", ".join(p) + "}" if not tag else p[0] for p, tag in zip(s.parts, s.tags)]
    return f"({', '.join([s.name, *parts])})"


def _span_of(x) -> Span | None:
    return getattr(x, "span", None)


def _negate(e: Expr) -> Expr:
    if isinstance(e, BoolConst):
        return BoolConst(not e.value)
    if isinstance(e, Compare):
        return Compare(NEGATE[e.op], e.left, e.right)
    if isinstance(e, And):
        return disj(*(_negate(a) for a in e.args))
    if isinstance(e, Or):
        return conj(*(_negate(a) for a in e.args))
    if isinstance(e, Not):
        return e.arg
    return Not(e)


# ================================================================================ z3 oracle

class _Solver:
    """Satisfiability of guards under the resilience condition (received counts ≥ 0)."""

    def __init__(self, ctx: _Context) -> None:
        import z3  # lazy: z3 costs 25 ms at start-up; loaded when a solver question is asked

        self.z3 = z3
        self.sym = int_symbols()
        self.to_z3 = lambda e: to_z3(e, self.sym)
        base = [self.to_z3(e) for e in ctx.rc]
        base += [self.sym(p) >= 0 for p in ctx.parameters]
        base += [self.sym(received(t.name).name) >= 0 for t in ctx.types]
        if len(ctx.layout.coordinator_types) > 1:  # one coordinator: one of its messages at most
            base.append(z3.Sum([self.sym(received(m).name) for m in ctx.layout.coordinator_types])
                        <= 1)
        self.base = base
        self.cache: dict[tuple, bool] = {}
        self.terms: dict[str, object] = {}  # text → z3 formula: paths share their literals
        self.texts: dict[int, tuple[Expr, str]] = {}
        # one solver holds the resilience condition; each query is pushed on it and popped
        self.solver = z3.Solver()
        self.solver.set("timeout", 5000)
        self.solver.add(*base)

    def text(self, e: Expr) -> str:
        """``to_text(e)``, remembered for the large formulas a guard's simplification asks about
        again and again (kept alive with their text, so that an id is never reused)."""
        hit = self.texts.get(id(e))
        if hit is None:
            hit = self.texts[id(e)] = (e, to_text(e))
        return hit[1]

    def sat(self, exprs: Iterable[Expr]) -> bool:
        texts = {}
        for e in exprs:
            texts.setdefault(self.text(e) if not isinstance(e, Compare) else to_text(e), e)
        key = tuple(sorted(texts))
        if key not in self.cache:
            for text, e in texts.items():
                if text not in self.terms:
                    self.terms[text] = self.to_z3(e)
            self.solver.push()
            try:
                self.solver.add(*(self.terms[t] for t in key))
                self.cache[key] = self.solver.check() != self.z3.unsat  # unknown: keep the path
            finally:
                self.solver.pop()
        return self.cache[key]

    def implies(self, premise: list[Expr], conclusion: Expr) -> bool:
        return not self.sat([*premise, _negate(conclusion)])


# ================================================================================ exploration

@dataclass(frozen=True)
class StopPoint:
    index: int  # instruction index
    kind: str  # start | wait | loop | end
    label: str
    span: Span | None


@dataclass
class _Outcome:
    target_pc: int
    state: tuple
    sends: tuple[str, ...]
    literals: dict[str, tuple[Expr, bool]]
    lines: list[int]
    choice: str | None = None  # the rule's mark: "coin", "oracle" (see _Thread.choice)
    trail: tuple[tuple[tuple, int, int, int], ...] = ()  # see _Thread.trail


class _Explorer:
    def __init__(self, ctx: _Context, code: list[Instr], live: list[set[str]], round_end: bool,
                 kept: tuple[str, ...] | None = None):
        self.ctx = ctx
        self.kept = kept  # crash models: the components a crashed process keeps (_crash_view)
        self.code = code
        self.live = live
        self.round_end = round_end
        self.ev = _Eval(ctx)
        self.solver = _Solver(ctx)
        self.components = sorted(set(ctx.variables) | ({A.DECIDED} if ctx.decides else set())
                                 | {SENT + t.name for t in ctx.types}
                                 | ({A.COORDINATOR} if ctx.layout.coordinator_round else set()),
                                 key=self._component_order)
        self.paths = 0

    def _component_order(self, c: str) -> tuple[int, int, str]:
        names = list(self.ctx.variables)
        if c == A.COORDINATOR:  # first in a name: coord_v0 (phase king's KB0)
            return (-1, 0, c)
        if c in names:
            return (0, names.index(c), c)
        if c == A.DECIDED:
            return (1, 0, c)
        return (2, [t.name for t in self.ctx.types].index(c[len(SENT):]), c)

    def key(self, pc: int, state: dict) -> tuple:
        live = self.live[pc]
        return (pc, tuple(state.get(c) if c in live else None for c in self.components))

    def unkey(self, key: tuple) -> dict:
        _, values = key
        return {c: v for c, v in zip(self.components, values) if v is not None}

    def is_stop(self, pc: int) -> bool:
        return self.code[pc].op in ("wait", "loop_head", "end", "boundary")

    def initial(self) -> list[tuple]:
        start = 0
        choices = []
        for v in self.ctx.variables.values():
            choices.append([v.initial] if v.initial is not None else list(v.inputs or v.domain))
        # a coordinator read before any choice point is chosen among the initial locations
        choices.append(list(A.BOOL) if A.COORDINATOR in self.live[start] else [A.FALSE])
        combinations = 1
        for c in choices:
            combinations *= len(c)
        if combinations > MAX_LOCATIONS:
            raise _fail(f"{combinations} initial valuations of the inputs: more than "
                        f"{MAX_LOCATIONS} locations (reduce the inputs or their domains)",
                        next((v.span for v in self.ctx.variables.values() if v.initial is None),
                             None))
        out = []
        for values in product(*choices):
            state: dict = dict(zip([*self.ctx.variables, A.COORDINATOR], values))
            if self.ctx.decides:
                state[A.DECIDED] = A.BOTTOM
            for t in self.ctx.types:
                state[SENT + t.name] = A.FALSE
            k = self.key(start, state)
            if k not in out:
                out.append(k)
        return out

    def step(self, key: tuple) -> list[_Outcome]:
        """Every way one step can go from the location ``key``."""
        pc, _ = key
        state = self.unkey(key)
        th = _Thread(pc, state)
        ins = self.code[pc]
        done: list[_Outcome] = []
        work: list[_Thread] = []
        if ins.op == "end":
            if self.ctx.alg.timing == "sync":
                return []
            return [_Outcome(pc, key[1], (), {}, [])]
        if ins.op == "wait":
            th.line(ins.stmt.span)
            wait: A.Wait = ins.stmt
            if wait.placeholder is None:
                outcomes = self.decide(th, self.ev.cond(wait.cond, th))
            else:  # `wait until C(w) for some w`: w is bound to a value that qualifies
                holds, none = self.some_cases(th, A.Branch(
                    wait.cond, wait.placeholder, (), span=wait.span,
                    placeholder_span=wait.placeholder_span, subset_of=wait.subset_of,
                    nonempty=wait.nonempty))
                outcomes = [(b, True) for b in holds] + [(b, False) for b in none]
            for branch, value in outcomes:
                if value:
                    branch.pc = pc + 1
                    work.append(branch)
                else:
                    done.append(self.finish(branch, pc))
        elif ins.op == "loop_head":
            th.loop_seen = [tuple(sorted(th.state.items()))]
            th.pc = pc + 1
            work.append(th)
        elif ins.op == "boundary":  # the start of a round of the phase
            th.pc = pc + 1
            work.append(th)
        else:  # the start, before any stop point
            work.append(th)
        while work:
            t = work.pop()
            self.paths += 1
            if self.paths > MAX_CONTROL_STATES:
                raise _fail(f"too many control states (> {MAX_CONTROL_STATES}): the steps from "
                            "here branch on too many receive conditions and values to enumerate "
                            "(reduce the handlers, variables or domains)",
                            getattr(ins.stmt, "span", None))
            done.extend(self.run(t, work))
        return done

    def decide(self, th: _Thread, cond: Expr) -> list[tuple[_Thread, bool]]:
        """Fork ``th`` on a symbolic condition: its feasible outcomes. Conjunctions and
        disjunctions are decided atom by atom (short-circuit), so that a path's literals are
        single comparisons — which keeps guards simple and lets complementary paths merge."""
        if isinstance(cond, BoolConst):
            return [(th, cond.value)]
        if isinstance(cond, Not):
            return [(b, not v) for b, v in self.decide(th, cond.arg)]
        if isinstance(cond, (And, Or)):
            stop = isinstance(cond, Or)  # the value that decides the whole: true for ||
            done: list[tuple[_Thread, bool]] = []
            going = [th]
            for arg in cond.args:
                nxt = []
                for t in going:
                    for b, v in self.decide(t, arg):
                        (done.append((b, stop)) if v == stop else nxt.append(b))
                going = nxt
            return done + [(t, not stop) for t in going]
        key = to_text(cond)
        if key in th.literals:
            return [(th, th.literals[key][1])]
        out = []
        for value in (True, False):
            lits = [e if v else _negate(e) for e, v in th.literals.values()]
            lits.append(cond if value else _negate(cond))
            if self.solver.sat(lits):
                b = th.fork()
                b.literals[key] = (cond, value)
                out.append((b, value))
        return out

    def finish(self, th: _Thread, pc: int) -> _Outcome:
        return _Outcome(pc, self.key(pc, th.state)[1], tuple(th.sends), th.literals, th.lines,
                        th.choice, tuple(th.trail))

    def run(self, th: _Thread, work: list[_Thread]) -> list[_Outcome]:
        """Run ``th`` to its next stop point; forks go to ``work``."""
        ev = self.ev
        while True:
            if self.kept is not None:
                th.mark(self.kept)
            ins = self.code[th.pc]
            op = ins.op
            s = ins.stmt
            th.pending = [(l, e) for l, e in th.pending if th.pc < e]
            if op in ("assign", "branch", "send", "decide", "each_begin") and S.unresolved(th, s):
                forks = S.resolve_builders(self, th, s)
                if not forks:
                    return []
                work.extend(forks[1:])
                th = forks[0]
            if op == "assign":
                if s.var not in self.ctx.variables:
                    raise _fail(f"assignment to undeclared variable '{s.var}' (variables: "
                                f"{', '.join(self.ctx.variables) or 'none'})"
                                + did_you_mean(s.var, self.ctx.variables), s.var_span or s.span)
                domain = self.ctx.variables[s.var].domain
                if isinstance(s.value, (A.Coin, A.Oracle)):
                    oracle = isinstance(s.value, A.Oracle)
                    values = list(A.BOOL) if tuple(domain) == A.BOOL else \
                        [v for v in A.COIN_VALUES if v in domain]
                    if not values:
                        raise _fail(f"{'an oracle' if oracle else 'a coin toss'} gives 0 or 1 "
                                    f"(false or true for a Boolean), which '{s.var}' cannot hold",
                                    s.span)
                    for extra in values[1:]:
                        b = th.fork()
                        b.chose(oracle, b.state.get(s.var) != extra)
                        if b.state.get(s.var) != extra:
                            b.effect(s.span)
                        b.state[s.var] = extra
                        b.pc += 1
                        work.append(b)
                    th.chose(oracle, th.state.get(s.var) != values[0])
                    if th.state.get(s.var) != values[0]:
                        th.effect(s.span)
                    th.state[s.var] = values[0]
                else:
                    value = S.canonical(ev.value(s.value, th), self.ctx.variables[s.var])
                    if value not in domain:
                        raise _fail(f"value '{value}' is outside the domain of '{s.var}' "
                                    f"{{{', '.join(domain)}}}", s.span)
                    if th.state.get(s.var) != value:
                        th.effect(s.span)
                    th.state[s.var] = value
                th.pc += 1
            elif op == "send":
                name = ev.send_type(s.pattern, th)
                if name in self.ctx.layout.coordinator_types and \
                        th.state.get(A.COORDINATOR) != A.TRUE:
                    raise _fail(f"'{name}' is a coordinator message: only the coordinator sends "
                                "it — send it under 'if coordinator:'", s.span)
                if th.state.get(SENT + name) != A.TRUE:
                    th.effect(s.span)
                    th.state[SENT + name] = A.TRUE
                    th.sends.append(name)
                th.pc += 1
            elif op == "decide":
                value = ev.value(s.value, th)
                before = th.state.get(A.DECIDED)
                if before not in (None, A.BOTTOM, value):
                    raise _fail(f"a decision is irrevocable: a process that has already decided "
                                f"{before} reaches this 'decide', which decides {value}", s.span)
                if th.state.get(A.DECIDED) != value:
                    th.effect(s.span)
                th.state[A.DECIDED] = value
                th.pc += 1
            elif op == "branch":
                branch: A.Branch = s
                if branch.placeholder is None:
                    here = th.pc
                    forks = self.decide(th, ev.cond(branch.cond, th))
                    first = True
                    for b, value in forks:
                        if value:
                            b.taken(branch.span, ins.target)
                        b.pc = here + 1 if value else ins.target
                        if first:
                            th, first = b, False
                        else:
                            work.append(b)
                    if first:  # no feasible case: the path ends here (cannot happen under RC)
                        return []
                else:
                    th = self._some(th, branch, ins, work)
                    if th is None:
                        return []
            elif op == "jump":
                th.pc = ins.target
            elif op == "each_begin":  # the set's value when the iteration starts
                th.bindings[S.each_key(s)] = A.encode_set(S.members(ev, s.set, th),
                                                          S.elements_of(self.ctx, s.set) or ())
                th.pc += 1
            elif op == "each_item":
                if ins.value in A.decode_set(th.bindings[S.each_key(s)]):
                    th.bindings[s.var] = ins.value
                    th.taken(s.span, ins.target)
                    th.pc += 1
                else:
                    th.pc = ins.target
            elif op == "choose":  # as late as possible: is this process the coordinator?
                b = th.fork()
                b.state[A.COORDINATOR] = A.TRUE
                b.pc += 1
                work.append(b)
                th.state[A.COORDINATOR] = A.FALSE
                th.pc += 1
            elif op == "boundary":  # round k ends where round k + 1 starts: sends reset
                for t in self.ctx.types:
                    th.state[SENT + t.name] = A.FALSE
                return [self.finish(th, th.pc)]
            elif op == "loop_head":  # the code before the loop has run: stop at its head
                return [self.finish(th, th.pc)]
            elif op == "loop_back":
                head = ins.target
                k = tuple(sorted(th.state.items()))
                if th.effects == th.pass_start:  # a pass that changed nothing: quiescent
                    return [self.finish(th, head)]
                th.pass_start = th.effects
                # A pass with effects that ends in a state seen at the head before repeats
                # forever: the same state and received messages give the same pass.
                if k in th.loop_seen:
                    raise _fail("the event loop never becomes quiescent: with the same received "
                                "messages its handlers keep changing the state (a handler must "
                                "not undo another's effect)", s.span)
                th.loop_seen.append(k)
                th.pc = head + 1
            elif op == "end" and self.ctx.alg.timing == "sync":
                # a synchronous round ends where the next one starts: the location is the state
                # at the start of the next round (what lock-step semantics reads), sends reset
                for t in self.ctx.types:
                    th.state[SENT + t.name] = A.FALSE
                return [self.finish(th, 0)]
            elif op in ("wait", "end"):
                return [self.finish(th, th.pc)]
            else:  # pragma: no cover
                raise AssertionError(op)

    def _some(self, th: _Thread, branch: A.Branch, ins: Instr, work: list[_Thread]) -> _Thread | None:
        """``if C(w) for some w``: one case per value of ``w`` whose ``C`` can hold, plus the case
        where ``C`` holds for none. A process for which several values qualify may take any."""
        holds, none = self.some_cases(th, branch)
        for b in holds:
            b.taken(branch.span, ins.target)
            b.pc = th.pc + 1
        for b in none:
            b.pc = ins.target
        cases = holds + none
        if not cases:
            return None
        work.extend(cases[1:])
        return cases[0]

    def some_cases(self, th: _Thread, branch: A.Branch) -> tuple[list[_Thread], list[_Thread]]:
        """The feasible ways ``C(w)`` holds for some value (with ``w`` bound to it) and the ways
        it holds for none — every combination of how each value's condition fails."""
        w = branch.placeholder
        domain = S.subset_domain(self.ev, branch, th) if branch.subset_of is not None \
            else self._placeholder_domain(branch)
        conds = []
        for value in domain:
            b = th.fork()
            b.bindings[w] = value
            conds.append((value, self.ev.cond(branch.cond, b)))
        holds: list[_Thread] = []
        for value, c in conds:
            for b, ok in self.decide(th.fork(), c):
                if ok:
                    b.bindings[w] = value
                    holds.append(b)
        none = [th.fork()]
        for _, c in conds:
            none = [b for t in none for b, ok in self.decide(t, c) if not ok]
        return holds, none

    def _placeholder_domain(self, branch: A.Branch) -> tuple[str, ...]:
        """The values ``w`` ranges over: the payload domain at the positions where it occurs."""
        w = branch.placeholder
        domains: list[tuple[str, ...]] = []

        for x in A.walk(branch.cond):
            if isinstance(x, A.Pattern) and x.parts:
                for i, p in enumerate(x.parts):
                    if isinstance(p, A.Ref) and p.name == w:
                        domains.extend(shape.parts[i] for shape in self.ctx.alg.messages
                                       if shape.name == x.name and len(shape.parts) == len(x.parts)
                                       and not shape.tags[i])
        if not domains and S.set_placeholder_domain(self.ctx, branch.cond, w):
            domains.append(S.set_placeholder_domain(self.ctx, branch.cond, w))
        if not domains:
            raise _fail(f"'for some {w}': '{w}' must stand in a message payload of the "
                        f"condition, e.g. 'received (R, {w}) from … processes for some {w}'",
                        branch.placeholder_span or branch.span)
        if w in self.ctx.variables or w in self.ctx.parameters:
            raise _fail(f"placeholder '{w}' has the name of a variable or parameter",
                        branch.placeholder_span or branch.span)
        out: list[str] = []
        for d in domains:
            out.extend(v for v in d if v not in out)
        return tuple(out)


# ================================================================================ the pass

@dataclass(frozen=True)
class LocationInfo:
    """What ``tactl parse`` prints about a location: its meaning in program terms."""

    name: str
    point: str
    values: tuple[tuple[str, str], ...]  # (variable, value) kept at this location
    sent: tuple[str, ...]
    line: int | None


@dataclass(frozen=True)
class ParseResult:
    rta: ReceiveTA
    locations: tuple[LocationInfo, ...]


def parse_algorithm(alg: A.Algorithm) -> ParseResult:
    """Control-state extraction; every problem is an :class:`InputError` at its position."""
    try:
        return _parse(expand_rounds(alg))
    except PhaseError as e:
        raise ParseError(Diagnostic(Severity.ERROR, e.message, e.span or Span(1, 1)), alg.path,
                         alg.source) from None
    except (_Fail, S.SetFail, RoundsError) as e:
        # A problem of the whole program (its state space) is reported where the code begins.
        span = e.span or next((s.span for s in alg.program if getattr(s, "span", None)), None) \
            or Span(1, 1)
        raise ParseError(Diagnostic(Severity.ERROR, e.message, span), alg.path,
                         alg.source) from None


def _parse(alg: A.Algorithm) -> ParseResult:
    ctx = _declarations(alg)
    _check_domains(ctx)
    types_of: dict[str, tuple[str, ...]] = {}
    for t in ctx.types:
        types_of[t.base] = (*types_of.get(t.base, ()), t.name)
    ctx.layout = layout(alg, types_of)
    code, round_end = _compile(ctx)
    everywhere, initially = _property_variables(ctx)
    live = _liveness(ctx, code, round_end, everywhere)
    start_live = live[0] | initially
    live = [l if i else start_live for i, l in enumerate(live)]
    ex = _Explorer(ctx, code, live, round_end)
    view = _crash_view(ctx, everywhere)
    if view is not None:
        ex.kept = tuple(c for c in ex.components if c in view[0])
    points = _stop_points(ctx, code)

    initial = ex.initial()
    seen: dict[tuple, None] = dict.fromkeys(initial)
    queue = list(initial)
    edges: list[tuple[tuple, tuple, _Outcome]] = []
    while queue:
        key = queue.pop(0)
        for o in ex.step(key):
            target = (o.target_pc, o.state)
            edges.append((key, target, o))
            if target not in seen:
                seen[target] = None
                queue.append(target)
                if len(seen) > MAX_LOCATIONS:
                    raise _fail(f"more than {MAX_LOCATIONS} locations: the local state space is "
                                "too large (reduce variables or domains)")
    keys = list(seen)
    _coordinator_sends(ctx, ex, edges, points)
    names, infos = _names(ctx, ex, points, keys, alg)
    locations = tuple(Location(names[k], origin=_location_origin(alg, infos[k])) for k in keys)
    _sums_count_processes(ctx, ex, edges)
    rules = _rules(ctx, ex, alg, edges, names, points)
    if FaultModel(alg.fault_model) in CRASH_MODELS and alg.timing == "sync":
        crash = _lockstep_crashes(ctx, ex, alg, keys, edges, names, points)
    else:
        crash = _crash_steps(ctx, ex, alg, keys, edges, names, points, view[1]) if view else _Crash(
            (), (), [CrashState(CRASH_LOCATION, {}, False)]
            if FaultModel(alg.fault_model) in CRASH_MODELS else [])
    properties = tuple(_property(ctx, ex, p, keys, names, points, set(initial), crash.states)
                       for p in alg.properties)
    kinds = _kinds(ctx, ex, edges)
    model = FaultModel(alg.fault_model)
    rta = ReceiveTA(
        name=alg.name, parameters=ctx.parameters, assumptions=ctx.rc,
        faults=Faults(model, ctx.alg.fault_parameters), timing=Timing(alg.timing),
        messages=tuple(Message(t.name, t.base if t.base in kinds else None) for t in ctx.types),
        locations=locations, initial=tuple(names[k] for k in initial), rules=rules,
        properties=properties, coordinator=ctx.layout.coordinator_types,
        crash_locations=crash.locations, crash_rules=crash.rules)
    return ParseResult(rta, (*(infos[k] for k in keys), *crash.infos))


def _coordinator_sends(ctx: _Context, ex: _Explorer, edges, points) -> None:
    """In a synchronous algorithm the coordinator sends its message in its round on every path:
    the engines take the locations that send a coordinator message for the coordinator's (one at
    most; passes/rta_to_sync/sync_ta.py ``coordinators``), so a coordinator that sends none would escape
    the one-coordinator constraint and the ``correct coordinator`` hypothesis."""
    if ctx.alg.timing != "sync" or not ctx.layout.coordinator_round:
        return
    at = ex.components.index(A.COORDINATOR)
    for (pc, before), _, o in edges:
        if before[at] == A.TRUE and not set(o.sends) & set(ctx.layout.coordinator_types):
            lines = ", ".join(str(n) for n in o.lines) or "none"
            point = points[pc]
            raise _fail("the coordinator must send a coordinator message "
                        f"({', '.join(ctx.layout.coordinator_types)}) on every path of its round: "
                        f"the path through line(s) {lines} sends none", point.span)


def _kinds(ctx: _Context, ex: _Explorer, edges) -> set[str]:
    """The message names whose instances form a kind: those of which a correct process sends at
    most one instance per round (Ben-Or's ``(R, v)``). A kind tells the Env that a faulty sender
    counts once per receiver among all its instances (domain.md §4) — right when the protocol
    has every process send one of them, wrong when a correct process may send several (the
    binary-value broadcast's ``(B, 0)`` and ``(B, 1)``): then a faulty one may too, and its
    instances stay separate messages."""
    several = _sent_several(ctx, ex, edges)
    base = {t.name: t.base for t in ctx.types}
    coordinator = {b for t, b in base.items() if t in ctx.layout.coordinator_types}
    return {k for k in ctx.kinds if k not in several and k not in coordinator}


def _sums_count_processes(ctx: _Context, ex: _Explorer, edges) -> None:
    """Refuse a sum of instances that does not count distinct senders.

    ``received (AUX, vals) from K processes`` and ``received (AUX, *) …`` are read as the sum of
    the instances' receive counts. A receiver's counts are per instance, so the sum counts a
    sender once per instance it sent: it is the number of distinct senders exactly when no
    process sends two instances — for correct processes, when the instances form a kind (the
    code sends at most one per round, ``_sent_several``); a faulty one is then bounded per kind
    by the Env. When a correct process may send two instances, the sum may count it twice and
    the guard holds with fewer distinct senders than K: a run the program does not have (a
    spurious violation, or a guard that fires too early). No linear form of the per-instance
    counts says "K distinct senders" then (a process that sent both is indistinguishable from
    two that sent one each), so the construct is refused at its position."""
    several = _sent_several(ctx, ex, edges)
    for name, span in ex.ev.sums.items():
        if name in several:
            instances = ", ".join(t.name for t in ctx.types if t.base == name)
            raise _fail(f"this counts the processes that sent some instance of '{name}' as the sum "
                        f"of the instances' counts ({instances}), but a correct process may send "
                        f"several instances of '{name}' in one round, and the sum would count it "
                        "once per instance, not once: tactl cannot count distinct senders here. "
                        f"Count one instance at a time (e.g. 'received ({name}, v) from …'), or send one "
                        "instance per round (then the instances form a kind and the sum is exact)",
                        span)


def _sent_several(ctx: _Context, ex: _Explorer, edges) -> set[str]:
    """The message names of which a correct process may send two instances in one round."""
    base = {t.name: t.base for t in ctx.types}

    def flags(values) -> set[str]:
        return {c[len(SENT):] for c, v in zip(ex.components, values)
                if c.startswith(SENT) and v == A.TRUE}

    several: set[str] = set()
    for (_, before), (_, after), o in edges:
        # what the process has sent in this round once the step is done: the flags it had
        # (kept while another send of the name may follow) and what the step sends
        sent = [base[m] for m in flags(before) | set(o.sends) | flags(after)]
        several |= {b for b in sent if sent.count(b) > 1}
    return several


def _stop_points(ctx: _Context, code: list[Instr]) -> dict[int, StopPoint]:
    points: dict[int, StopPoint] = {}
    used: dict[str, int] = {}

    def unique(label: str) -> str:
        used[label] = used.get(label, 0) + 1
        return label if used[label] == 1 else f"{label}{used[label]}"

    for i, ins in enumerate(code):
        if ins.op == "wait":
            msgs = _messages_in(ins.stmt.cond)
            points[i] = StopPoint(i, "wait", unique("wait" + (msgs[0] if msgs else "")), ins.stmt.span)
        elif ins.op == "loop_head":
            points[i] = StopPoint(i, "loop", unique("loop"), ins.stmt.span)
        elif ins.op == "end":
            points[i] = StopPoint(i, "end", "done", None)
        elif ins.op == "boundary":
            points[i] = StopPoint(i, "round", f"r{ins.stmt.number}", ins.stmt.span)
    if 0 not in points:
        first = ctx.alg.program[0]
        points[0] = StopPoint(0, "start", "start", getattr(first, "span", None))
    return points


def _messages_in(c) -> list[str]:
    """The message names a condition counts, in order."""
    return [x.pattern.name for x in A.walk(c) if isinstance(x, (A.Received, A.Count))]


def _component_text(c: str, value: str) -> str | None:
    """The name fragment of one kept state component, or None when it adds nothing."""
    if c.startswith(SENT):
        return f"sent{c[len(SENT):]}" if value == A.TRUE else None
    if c == A.DECIDED:
        return None if value == A.BOTTOM else "D" + _ident(value)
    if A.decode_set(value) is not None:  # a set: W01 for {0, 1}; the empty set is "not set"
        return (c + "".join(_ident(x) for x in A.decode_set(value))) if value != "{}" else None
    if c == A.COORDINATOR:
        return "coord" if value == A.TRUE else None
    if value == A.TRUE:
        return c
    if value in (A.FALSE, A.BOTTOM):  # "not set": a name mentions what is set
        return None
    return c + _ident(value)


def _ident(value: str) -> str:
    return {A.BOTTOM: "bot", "?": "Q"}.get(value, value).replace("-", "m")


def _names(ctx: _Context, ex: _Explorer, points: dict[int, StopPoint], keys: list[tuple],
           alg: A.Algorithm) -> tuple[dict[tuple, str], dict[tuple, LocationInfo]]:
    """Readable, unique location names: for each location the shortest set of its name fragments
    (in a fixed order) that no other location has as a subset of its own; else all of them."""
    used_points = {k[0] for k in keys}
    main = 0 if 0 in used_points else min(used_points)
    frags: dict[tuple, list[str]] = {}
    infos: dict[tuple, LocationInfo] = {}
    for k in keys:
        pc, values = k
        state = dict(zip(ex.components, values))
        parts = []
        if len(used_points) > 1 and pc != main:
            parts.append(points[pc].label)
        for c in ex.components:
            v = state.get(c)
            if v is not None:
                text = _component_text(c, v)
                if text:
                    parts.append(text)
        frags[k] = parts
        kept = tuple((c, v) for c, v in zip(ex.components, values)
                     if v is not None and not c.startswith(SENT))
        sent = tuple(c[len(SENT):] for c, v in zip(ex.components, values)
                     if c.startswith(SENT) and v == A.TRUE)
        infos[k] = LocationInfo("", _point_text(points[pc], alg), kept, sent,
                                points[pc].span.line if points[pc].span else None)
    # A fragment g implies f when every location with g also has f (accept ⇒ sentECHO in
    # STRB, D0 ⇒ done in Ben-Or). A name leaves out exactly the fragments implied by fragments
    # it keeps, so it never omits a fact it does not imply: "accept", "D0", but the binary-value
    # broadcast's "v0_bin0_bin1_sentBVAL0_sentBVAL1" in full.
    holders: dict[str, set] = {}
    for k, parts in frags.items():
        for f in parts:
            holders.setdefault(f, set()).add(k)
    reserved = set(ctx.parameters) | {t.name for t in ctx.types} | set(ctx.kinds) | {
        "CR", "fair", "ncrashed"}
    names: dict[tuple, str] = {}
    for k, parts in frags.items():
        kept = list(parts)
        for f in reversed(parts):
            if any(g != f and holders[g] <= holders[f] for g in kept):
                kept.remove(f)
        name = "_".join(kept) or points[k[0]].label
        if name in reserved or not name.isidentifier():
            name = "L_" + name
        names[k] = name
    # Distinct locations have distinct fragment sets, and a kept set determines its location's
    # (its closure under implication); keep a fallback all the same.
    if len(set(names.values())) != len(names):
        names = {k: "_".join(p) or points[k[0]].label for k, p in frags.items()}
    infos = {k: replace(i, name=names[k]) for k, i in infos.items()}
    return names, infos


def _point_text(p: StopPoint, alg: A.Algorithm) -> str:
    if p.kind == "end":
        return "finished (end of round)" if any(isinstance(s, A.Round) for s in alg.program) \
            else "finished"
    line = alg.line(p.span.line) if p.span else ""
    if p.kind == "start" and isinstance(alg.program[0], A.Round) and alg.program[0].number:
        return f"at the start of '{line}' (the phase's start)"
    if p.kind == "start":
        return "before the first step"
    if p.kind == "round":
        return f"at the start of '{line}'"
    if p.kind == "loop":
        return "in the event loop"
    return f"waiting at '{line}'"


def _location_origin(alg: A.Algorithm, info: LocationInfo) -> Origin:
    values = ", ".join(f"{c} = {v}" for c, v in info.values)
    sent = ("sent " + ", ".join(info.sent)) if info.sent else ""
    meaning = "; ".join(x for x in (info.point, values, sent) if x)
    return Origin(alg.path, (info.line,) if info.line else (), meaning)


def _rules(ctx: _Context, ex: _Explorer, alg: A.Algorithm, edges, names, points) -> tuple[ReceiveRule, ...]:
    groups: dict[tuple, list[_Outcome]] = {}
    for src, tgt, o in edges:
        # paths with different choices stay apart: their rules differ in fairness; a self-loop
        # is never forced, so its mark would say nothing (passes/rta_to_ta/fairness.py)
        choice = None if names[src] == names[tgt] else o.choice
        groups.setdefault((names[src], names[tgt], o.sends, choice), []).append(o)
    rules = []
    for (src, tgt, sends, choice), outcomes in groups.items():
        guard = _guard(ex.solver, [o.literals for o in outcomes])
        if guard == BoolConst(False):
            continue
        # Lock-step: a rule per disjunct, each guard a conjunction as hand-written automata write
        # them. The same semantics (a rule's processes share one witness of what they received,
        # whichever disjunct it satisfies), but the diameter's ∀-query over conjunctive guards is
        # far easier for z3: phase king's took over 200 s with its 64 rules and 21 s with the 76
        # split ones (same hash seeds).
        parts = guard.args if alg.timing == "sync" and isinstance(guard, Or) else (guard,)
        for part in parts:
            lines: list[int] = []
            for o in outcomes:
                if len(parts) == 1 or ex.solver.sat([part, *_path_literals(o)]):
                    lines.extend(x for x in o.lines if x not in lines)
            lines.sort()
            text = "; ".join(f'line {n} "{alg.line(n)}"' for n in lines)
            if src == tgt and not sends:
                text = _idle_text(src, names, points, alg)
            rules.append(ReceiveRule(len(rules), src, tgt, part, sends, choice=choice,
                                     origin=Origin(alg.path, tuple(lines), text)))
    return tuple(rules)


def _path_literals(o: _Outcome) -> list[Expr]:
    """The receive conditions a path took, as formulas (negated where the path took them false)."""
    return [e if v else _negate(e) for e, v in o.literals.values()]


def _idle_text(location: str, names, points, alg: A.Algorithm) -> str:
    """What the self-loop of a waiting or finished location means."""
    key = next(k for k, n in names.items() if n == location)
    point = points[key[0]]
    if point.kind == "end":
        return "finished: takes no more steps"
    if point.kind == "wait" and point.span:
        return f'waits at line {point.span.line} "{alg.line(point.span.line)}"'
    if point.kind == "loop":
        return "waits: no handler changes anything"
    return "waits"


def _guard(solver: _Solver, paths: list[dict[str, tuple[Expr, bool]]]) -> Expr:
    """The disjunction of the paths' conditions, simplified: complementary literals merged
    (``a∧b ∨ a∧¬b`` → ``a``), subsumed paths dropped, literals implied by the others dropped."""
    atoms: dict[str, Expr] = {}
    cubes: set[frozenset] = set()
    for lits in paths:
        for k, (e, _) in lits.items():
            atoms[k] = e
        cubes.add(frozenset((k, v) for k, (_, v) in lits.items()))
    changed = True
    while changed:
        changed = False
        for a in list(cubes):
            for lit in a:
                other = (a - {lit}) | {(lit[0], not lit[1])}
                if other in cubes:
                    cubes -= {a, other}
                    cubes.add(a - {lit})
                    changed = True
                    break
            if changed:
                break
    cubes = {c for c in cubes if not any(o < c for o in cubes)}
    if frozenset() in cubes:
        return BoolConst(True)

    def lit(k: str, v: bool) -> Expr:
        return atoms[k] if v else _negate(atoms[k])

    order = list(atoms)
    current = [sorted(c, key=lambda kv: order.index(kv[0]))
               for c in sorted(cubes, key=lambda c: sorted((k, v) for k, v in c))]
    whole = disj(*(conj(*(lit(*x) for x in c)) for c in current))
    not_whole = _negate(whole)  # built (and converted) once, asked about for every literal
    # Drop a literal whenever the weakened path still implies the whole guard (under the RC):
    # `a ∧ b ∨ ¬a` becomes `b ∨ ¬a`, and a literal implied by the others disappears.
    for cube in current:
        for item in list(cube):
            rest = [lit(*x) for x in cube if x != item]
            if not solver.sat([*rest, not_whole]):
                cube.remove(item)
    out: list[Expr] = []
    for cube in current:
        e = conj(*(lit(*x) for x in cube))
        if e not in out:
            out.append(e)
    # Drop a path implied by the others (`a ∨ (b ∧ c)` where `b ∧ c` ⇒ `a` under the RC).
    for e in list(out):
        rest = [o for o in out if o is not e]
        if rest and solver.implies([e], disj(*rest)):
            out.remove(e)
    guard = disj(*out)
    if solver.implies([], guard):
        return BoolConst(True)
    return guard


# ================================================================================ crashes

@dataclass(frozen=True)
class CrashState:
    """A crash location and what a process there kept: the values the properties read, and
    whether it had finished (``done``)."""

    name: str
    state: dict
    done: bool


@dataclass(frozen=True)
class _Crash:
    locations: tuple[Location, ...]
    rules: tuple[ReceiveRule, ...]
    states: list[CrashState]  # what properties quantify over besides the locations
    infos: tuple[LocationInfo, ...] = ()


def _crash_view(ctx: _Context, observed: set[str]) -> tuple[set[str], bool] | None:
    """What a crashed process keeps, for an asynchronous crash model whose properties read the
    state: (the components the properties read, whether they read ``done``); None otherwise —
    then the translation's one location CR is exact (nothing a property reads tells crashed
    processes apart)."""
    if FaultModel(ctx.alg.fault_model) not in CRASH_MODELS or ctx.alg.timing != "async":
        return None
    raw: set[str] = set()
    for p in ctx.alg.properties:
        _formula_names(p.formula, False, raw, set())
    done = A.DONE in raw
    return (set(observed), done) if observed or done else None


def _crash_steps(ctx: _Context, ex: _Explorer, alg: A.Algorithm, keys, edges, names, points,
                 reads_done: bool) -> _Crash:
    """Crashed processes keep their state (docs/alg.md, "Fault models").

    A process may crash between two steps, or — crash and hybrid, not clean_crash — between two
    statements of a step, after which the broadcasts the step made so far reached some receivers
    only (``nsf_M``). The crashed process keeps the state it had at that point; the properties
    see it through the values they read, so there is one crash location per such valuation
    (``CR_v1_delivered``), as the literature's crash automata have (FloodMin's c0/c1), and a
    crash rule per (source location, crash location, sends made), guarded by the receive
    conditions the step decided before that point (``_Thread.mark`` records them). Two crash
    points of one path with the same valuation and the same conditions decided keep only the one
    with more sends: its partial sends may reach nobody, so it has every run of the other."""
    kept = ex.kept or ()
    partial = FaultModel(alg.fault_model) in (FaultModel.CRASH, FaultModel.HYBRID)

    def state_of(key) -> tuple:
        pc, values = key
        full = dict(zip(ex.components, values))
        return (tuple(full.get(c) for c in kept), reads_done and points[pc].kind == "end")

    valuations: dict[tuple, None] = {}
    for k in keys:
        valuations.setdefault(state_of(k))
    options: dict[tuple, list[tuple[dict, list[int]]]] = {}  # (src, valuation, sends) -> paths
    if partial:
        for src, tgt, o in edges:
            literals = list(o.literals.items())
            points_of = [((values, False), o.sends[:n], n_lits, o.lines[:n_lines])
                         for values, n, n_lits, n_lines in o.trail]
            points_of.append((state_of(tgt), o.sends, len(literals), o.lines))
            best: dict[tuple, tuple] = {}
            for valuation, sends, n_lits, lines in points_of:
                if valuation == state_of(src) and not sends:
                    continue  # the crash before the step (the location's crash rule)
                key = (valuation, n_lits)
                if key not in best or len(sends) > len(best[key][0]):
                    best[key] = (sends, lines)
            for (valuation, n_lits), (sends, lines) in best.items():
                valuations.setdefault(valuation)
                group = options.setdefault((names[src], valuation, tuple(sorted(sends))), [])
                group.append((dict(literals[:n_lits]), list(lines)))
    crash_names = _crash_names(ctx, ex, kept, list(valuations), set(names.values()))
    locations, infos, states = [], [], []
    for valuation, name in crash_names.items():
        values, done = valuation
        shown = [(c, v) for c, v in zip(kept, values) if v is not None and not c.startswith(SENT)]
        sent = tuple(c[len(SENT):] for c, v in zip(kept, values) if c.startswith(SENT) and v == A.TRUE)
        point = "crashed" + (" after finishing" if done else "")
        info = LocationInfo(name, point, tuple(shown), sent, None)
        infos.append(info)
        locations.append(Location(name, origin=_location_origin(alg, info)))
        states.append(CrashState(name, {c: v for c, v in zip(kept, values) if v is not None}, done))
    rules: list[ReceiveRule] = []
    for k in keys:
        text = f"crashes at {names[k]}, between steps"
        rules.append(ReceiveRule(len(rules), names[k], crash_names[state_of(k)], BoolConst(True),
                                 origin=Origin(alg.path, (), text)))
    for (src, valuation, sends), paths in options.items():
        guard = _guard(ex.solver, [lits for lits, _ in paths])
        if guard == BoolConst(False):
            continue
        lines = sorted({n for _, ls in paths for n in ls})
        done_lines = "; ".join(f'line {n} "{alg.line(n)}"' for n in lines)
        text = (f"{done_lines} — crashing right after it" if lines else "crashes") + \
            ", in the middle of the step" + (
            f" (what it sent of {', '.join(sends)} reaches some receivers only)" if sends else "")
        rules.append(ReceiveRule(len(rules), src, crash_names[valuation], guard, sends,
                                 origin=Origin(alg.path, tuple(lines), text)))
    return _Crash(tuple(locations), tuple(rules), states, tuple(infos))


def _lockstep_crashes(ctx: _Context, ex: _Explorer, alg: A.Algorithm, keys, edges, names,
                      points) -> _Crash:
    """Crashed processes keep their state in lock-step rounds too (docs/alg.md, "Fault models"):
    a process that crashes in a round keeps the state it started the round in (a location).
    passes/rta_to_sync/sync_ta.py gives a crashed process one location; it has to keep what the
    properties' predicates read of it, so the locations are grouped by which of those predicates
    a crashed process there satisfies, and each group is one crash location (crash rules
    ``ℓ -> CRASHED_ℓ``, unguarded: one sending nothing, and under ``crash`` one sending what ℓ
    sends, its round's messages reaching some receivers only — the asynchronous translation's
    reading of the same automaton, as a hand-written one's crash rules). When no predicate tells them apart (``some (not crashed
    and P)`` only) there is one group: the receive automaton has no crash locations, as a
    hand-written one, and a property names crashed processes ``CR`` (passes/rta_to_sync/sync_ta.py counts
    its one ``CRASHED`` there)."""
    preds = [p for prop in alg.properties for p in _crash_read_predicates(prop.formula)]

    def state_of(key) -> tuple[dict, bool]:
        pc, values = key
        return {c: v for c, v in zip(ex.components, values) if v is not None}, points[pc].kind == "end"

    groups: dict[tuple, list] = {}
    for k in keys:
        state, done = state_of(k)
        groups.setdefault(tuple(_pred(ctx, p, state, done, crashed=True) for p in preds), []).append(k)
    if len(groups) == 1:
        state, done = state_of(keys[0])
        return _Crash((), (), [CrashState(CRASH_LOCATION, state, done)])
    taken = set(names.values()) | set(ctx.parameters) | {CRASH_LOCATION}
    partial = FaultModel(alg.fault_model) is FaultModel.CRASH
    sends = {src: tuple(sorted(set(o.sends))) for src, _, o in edges}
    locations, infos, states, rules = [], [], [], []
    for members in groups.values():
        name = f"CRASHED_{names[members[0]]}"
        while name in taken:
            name += "_"
        taken.add(name)
        state, done = state_of(members[0])
        common = [(c, v) for c, v in state.items() if all(state_of(k)[0].get(c) == v for k in members)]
        info = LocationInfo(name, "crashed in a round started at " + ", ".join(names[k] for k in members),
                            tuple((c, v) for c, v in common if not c.startswith(SENT)), (), None)
        infos.append(info)
        locations.append(Location(name, origin=_location_origin(alg, info)))
        states.append(CrashState(name, state, done))
        for k in members:
            for sent in dict.fromkeys(((), *((sends[k],) if partial else ()))):
                rules.append(ReceiveRule(len(rules), names[k], name, BoolConst(True), sent, origin=Origin(
                    alg.path, (), f"crashes in a round started at {names[k]}, keeping its state"
                    + (f" (what it sent of {', '.join(sent)} reaches some receivers only)" if sent else ""))))
    return _Crash(tuple(locations), tuple(rules), states, tuple(infos))


def _crash_read_predicates(f: A.FormulaNode) -> Iterable:
    """The predicates of ``some``/``no``/``all``/``count`` outside ``initially``: those that may
    see a crashed process."""
    if f.op == "initially":
        return
    if f.op in ("some", "all", "no"):
        yield f.args[0]
        return
    if f.op == "cmp":
        yield from (x.pred for x in A.walk(f.args[0]) if isinstance(x, A.CountPred))
        return
    for a in f.args:
        if isinstance(a, A.FormulaNode):
            yield from _crash_read_predicates(a)


def _crash_names(ctx: _Context, ex: _Explorer, kept: tuple[str, ...], valuations: list[tuple],
                 taken: set[str]) -> dict[tuple, str]:
    """``CR_`` and the name fragments of what the crashed process kept (``CR_v1_delivered``,
    ``CR_D0_done``; ``CR`` when nothing it kept is set): a name says what the process kept."""
    taken = taken | set(ctx.parameters) | {t.name for t in ctx.types} | set(ctx.kinds) | {
        "fair", "ncrashed"}
    out: dict[tuple, str] = {}
    for valuation in valuations:
        values, done = valuation
        parts = [t for c, v in zip(kept, values) if v is not None and (t := _component_text(c, v))]
        name = "_".join([CRASH_LOCATION, *parts, *(["done"] if done else [])])
        while name in taken:
            name += "_"
        taken.add(name)
        out[valuation] = name
    return out


# ================================================================================ properties

def _formula_names(f: A.FormulaNode, under_initially: bool, out_all: set, out_init: set) -> None:
    if f.op in ("some", "all", "no"):
        names = _cond_names(f.args[0])
        (out_init if under_initially else out_all).update(names)
        return
    if f.op == "cmp":
        for x in A.walk(f.args[0]):
            if isinstance(x, A.CountPred):
                (out_init if under_initially else out_all).update(_cond_names(x.pred))
        return
    for a in f.args:
        if isinstance(a, A.FormulaNode):
            _formula_names(a, under_initially or f.op == "initially", out_all, out_init)


def _property_variables(ctx: _Context) -> tuple[set[str], set[str]]:
    everywhere: set[str] = set()
    initially: set[str] = set()
    for p in ctx.alg.properties:
        _formula_names(p.formula, False, everywhere, initially)
    known = set(ctx.variables) | ({A.DECIDED} if ctx.decides else set())
    # `sent M` keeps the "already sent" flags of the types M stands for
    flags = {SENT + m for p in ctx.alg.properties for x in _formula_nodes(p.formula)
             if isinstance(x, A.SentPred) for m in _sent_types(ctx, x)}
    return (everywhere & known) | flags, ((initially | everywhere) & known) | flags


def _formula_nodes(f: A.FormulaNode):
    for a in f.args:
        if isinstance(a, A.FormulaNode):
            yield from _formula_nodes(a)
        else:
            yield from A.walk(a)


def _sent_types(ctx: _Context, pred: A.SentPred) -> list[str]:
    return _Eval(ctx).matching(pred.pattern, _Thread(0, {}))


def _property(ctx: _Context, ex: _Explorer, p: A.PropertyDecl, keys, names, points,
              initial: set, crashed: list[CrashState]) -> Property:
    """``some P`` / ``no P`` / ``count (P)`` range over every process, crashed ones with the
    state they kept (``crashed``: the crash locations); ``all P`` over the processes that have
    not crashed — and the crashed ones too when ``P`` names ``crashed`` (``all (crashed or
    done)``). An ``initially`` condition never sees a crashed process (none has crashed yet)."""
    def holds_at(pred, key) -> bool:
        pc, values = key
        if values is None:
            return False
        state = {c: v for c, v in zip(ex.components, values) if v is not None}
        return _pred(ctx, pred, state, points[pc].kind == "end")

    def crashed_holds(pred, c: CrashState) -> bool:
        return _pred(ctx, pred, c.state, c.done, crashed=True)

    def go(f: A.FormulaNode, init: bool) -> Expr:
        op = f.op
        if op in ("some", "all", "no"):
            label = names
            where = [k for k in keys if not init or k in initial]
            crash_model = FaultModel(ctx.alg.fault_model) in CRASH_MODELS
            if A.CRASHED in _cond_names(f.args[0]) and not crash_model:
                raise _fail(f"'{A.CRASHED}' needs a crash fault model (crash, clean_crash, "
                            "hybrid): here no process crashes", f.span)
            sat = [k for k in where if holds_at(f.args[0], k)]
            if not init:
                gone = [(c.name, None) for c in crashed]
                label = {**label, **{k: k[0] for k in gone}}
                sat += [k for k, c in zip(gone, crashed) if crashed_holds(f.args[0], c)]
                if A.CRASHED in _cond_names(f.args[0]):
                    where = [*where, *gone]
            if op == "some":
                return disj(*(Compare("!=", Name(label[k]), IntConst(0)) for k in sat))
            if op == "no":
                return conj(*(Compare("==", Name(label[k]), IntConst(0)) for k in sat))
            return conj(*(Compare("==", Name(label[k]), IntConst(0)) for k in where if k not in sat))
        if op == "cmp":
            def count(c: A.CountPred) -> sympy.Expr:
                where = [k for k in keys if not init or k in initial]
                gone = [] if init else [x.name for x in crashed if crashed_holds(c.pred, x)]
                return sum((*(symbol(names[k]) for k in where if holds_at(c.pred, k)),
                            *map(symbol, gone)), sympy.Integer(0))

            return conj(*_chain_exprs(ctx, f.args[0], {}, count,
                                      {*names.values(), *(x.name for x in crashed)}))
        if op == "true":
            return BoolConst(True)
        if op == "false":
            return BoolConst(False)
        args = [go(a, init or op == "initially") for a in f.args]
        if op == "initially":
            if _temporal(f.args[0]):
                raise _fail("'initially' takes a condition on the initial configuration, "
                            "without always/eventually", f.span)
            return args[0]
        if op == "always":
            return Always(args[0])
        if op == "eventually":
            return Eventually(args[0])
        if op == "not":
            return Not(args[0])
        if op == "and":
            return _flat_unique(conj(*args))
        if op == "or":
            return _flat_unique(disj(*args))
        if op == "implies":
            return Implies(args[0], args[1])
        raise _fail(f"unsupported property operator '{op}'", f.span)

    return Property(p.name, go(p.formula, False), p.hypothesis, origin=Origin(ctx.alg.path, (p.span.line,)
                    if p.span else (), ctx.alg.line(p.span.line) if p.span else ""))


def _flat_unique(e: Expr) -> Expr:
    """``a && b && a`` → ``a && b`` (``no v == 1 and no decided == 1`` may name a location twice)."""
    if isinstance(e, (And, Or)):
        args = list(dict.fromkeys(e.args))
        return (conj if isinstance(e, And) else disj)(*args)
    return e


def _temporal(f: A.FormulaNode) -> bool:
    return f.op in ("always", "eventually") or any(
        isinstance(a, A.FormulaNode) and _temporal(a) for a in f.args)


def _pred(ctx: _Context, pred, state: dict, at_end: bool, crashed: bool = False) -> bool:
    """Whether a process with the kept values ``state`` satisfies ``pred`` (``crashed``: the
    process has crashed, keeping ``state``; in lock-step rounds it keeps nothing, so only
    ``crashed`` itself may be asked there)."""
    known = ", ".join([*ctx.variables, *([A.DECIDED] if ctx.decides else []), A.DONE,
                       *([A.CRASHED] if FaultModel(ctx.alg.fault_model) in CRASH_MODELS else [])])

    def value(t) -> str:
        if isinstance(t, A.Num):
            return str(t.value)
        if isinstance(t, A.Const):
            return t.value
        if isinstance(t, A.Ref):
            if t.name in ctx.variables or (t.name == A.DECIDED and ctx.decides):
                if crashed and t.name not in state:  # lock-step rounds: nothing kept
                    raise _fail(f"a crashed process has no '{t.name}': ask 'crashed' alone "
                                "(e.g. 'no crashed')",
                                t.span)
                return state[t.name]
            if t.name in ctx.symbols:
                return t.name
            if t.name == A.DECIDED:
                raise _fail("'decided' is only defined when the code has 'decide'", t.span)
            raise _fail(f"unknown variable '{t.name}' in a property (a predicate on one "
                        f"process's variables: {known})" + did_you_mean(t.name, known.split(", ")), t.span)
        if S.is_set_term(t):  # |W|, {0, 1}, W ∪ X, min(W): computed from the kept values
            for x in A.walk(t):
                if isinstance(x, A.Ref):
                    value(x)  # unknown names and crashed processes are refused as above
            return _Eval(ctx).value(t, _Thread(0, dict(state)))
        raise _fail("a predicate compares process variables with values", _span_of(t))

    if isinstance(pred, A.Ref):
        if pred.name == A.DONE:
            return at_end
        if pred.name == A.CRASHED and FaultModel(ctx.alg.fault_model) in CRASH_MODELS:
            return crashed
        v = value(pred)
        if v not in A.BOOL:
            raise _fail(f"'{pred.name}' is not Boolean: compare it, e.g. '{pred.name} == 1'",
                        pred.span)
        return v == A.TRUE
    if isinstance(pred, A.Compare):
        ok = True
        for op, a, b in zip(pred.ops, pred.terms, pred.terms[1:]):
            local = S.local_compare(op, a, b, value(a), value(b), pred.span)
            if local is not None:
                ok = ok and local
                continue
            if op not in ("==", "!="):
                raise _fail("process variables are compared with == and != only", pred.span)
            ok = ok and ((value(a) == value(b)) == (op == "=="))
        return ok
    if isinstance(pred, A.Member):
        got = A.decode_set(value(pred.set))
        if got is None:
            raise _fail("'∈' tests membership in a set: this is not a set variable",
                        _span_of(pred.set) or pred.span)
        return (value(pred.elem) in got) != pred.negated
    if isinstance(pred, A.SentPred):
        if crashed and not state:  # lock-step rounds: nothing kept
            raise _fail("a crashed process has no sent messages: ask 'crashed' alone", pred.span)
        return any(state.get(SENT + m) == A.TRUE for m in _sent_types(ctx, pred))
    if isinstance(pred, A.NotCond):
        return not _pred(ctx, pred.arg, state, at_end, crashed)
    if isinstance(pred, A.BoolOp):
        results = (_pred(ctx, a, state, at_end, crashed) for a in pred.args)
        return all(results) if pred.op == "and" else any(results)
    if isinstance(pred, A.Const) and pred.value in A.BOOL:
        return pred.value == A.TRUE
    raise _fail("a predicate on one process's variables must stand here (e.g. 'v == 1', "
                "'accept', 'decided == 0', 'done')", _span_of(pred))


def _chain_exprs(ctx: _Context, chain: A.Compare, bindings, count=None,
                 locations: set[str] = frozenset()) -> list[Expr]:
    """A comparison chain over parameters (the resilience condition, a property's parameter
    condition) and, in properties, ``count (P)`` terms: sums of location counters (``count``)."""
    ev = _Eval(ctx)
    th = _Thread(0, {}, dict(bindings))

    def arith(t) -> sympy.Expr:
        if isinstance(t, A.CountPred):
            if count is None:
                raise _fail("'count (P)' counts processes: it belongs in properties", t.span)
            return count(t)
        if isinstance(t, A.Arith) and any(isinstance(x, A.CountPred) for x in A.walk(t)):
            args = [arith(a) for a in t.args]
            return {"neg": lambda: -args[0], "+": lambda: args[0] + args[1],
                    "-": lambda: args[0] - args[1], "*": lambda: args[0] * args[1],
                    "/": lambda: args[0] / args[1]}[t.op]()
        for n in _cond_names(t):
            if n not in ctx.parameters:
                raise _fail(f"'{n}' is not a parameter (parameters: {', '.join(ctx.parameters)}); "
                            "conditions on processes are written 'some P', 'all P', 'no P', or "
                            "with 'count (P)'", t.span or chain.span)
        return ev.arith(t, th)

    out = []
    for op, a, b in zip(chain.ops, chain.terms, chain.terms[1:]):
        try:
            out.append(normalize(arith(a), op, arith(b), lambda n: n in locations, ctx.order()))
        except ThresholdError as e:
            raise _fail(str(e), chain.span) from None
    return out


def location_table(result: ParseResult) -> str:
    """The table ``tactl parse`` prints: each location's meaning, then each rule's source lines."""
    rta = result.rta
    initial = set(rta.initial)
    rows = [("location", "meaning", "line")]
    for info in result.locations:
        values = ", ".join(f"{c} = {v}" for c, v in info.values)
        sent = ("sent " + ", ".join(info.sent)) if info.sent else ""
        meaning = "; ".join(x for x in (info.point, values, sent) if x)
        mark = " (initial)" if info.name in initial else ""
        rows.append((info.name + mark, meaning, str(info.line or "")))
    width = [max(len(r[i]) for r in rows) for i in range(2)]
    out = [f"{a:<{width[0]}}  {b:<{width[1]}}  {c}".rstrip() for a, b, c in rows]
    out.insert(1, "-" * len(out[0]))
    out.append("")
    out.append("rule  step                         pseudocode executed")
    for r in rta.rules:
        step = f"{r.source} -> {r.target}" + (f" send {', '.join(r.sends)}" if r.sends else "")
        out.append(f"{r.id:<4}  {step:<28} {r.origin.describe() if r.origin else ''}")
    return "\n".join(out)
