"""The program of an ``.alg`` file as the interpreter runs it: its statements flattened into a
list of instructions with jumps, and its message types.

Flattening is only a way to keep a process's position as one number (a program counter): every
instruction is one statement of the AST (``ir/alg/syntax.py``) with its span, executed by
``tactl.source.step`` exactly as docs/alg.md describes the statement. The stop points of
docs/alg.md "Semantics" are the instructions :class:`Wait`, :class:`LoopHead` and :class:`End`
(and the start, position 0).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from itertools import product

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Span

from .errors import SourceError


@dataclass(frozen=True)
class MsgType:
    """One message type: a name and one value per payload position (``(P, 0, D)``: P, ("0", "D"))."""

    index: int
    name: str
    values: tuple[str, ...]
    coordinator: bool = False

    @property
    def label(self) -> str:
        """``ECHO``, ``R0``, ``P0D``, ``PQ``, ``Bbot``: the name docs/alg.md gives the type."""
        return self.name + "".join({A.QUESTION: "Q", A.BOTTOM: "bot"}.get(v, v) for v in self.values)

    @property
    def text(self) -> str:
        """As the pseudocode writes it: ``ECHO``, ``(R, 0)``."""
        return self.name if not self.values else f"({self.name}, {', '.join(self.values)})"


# ---- instructions: one per statement (and the jumps that structure them) -----------------------

@dataclass
class Instr:
    span: Span | None = field(default=None, kw_only=True)


@dataclass
class Assign(Instr):
    stmt: A.Assign


@dataclass
class Send(Instr):
    stmt: A.Send


@dataclass
class Decide(Instr):
    stmt: A.Decide


@dataclass
class Skip(Instr):
    pass


@dataclass
class Wait(Instr):
    """A stop point: the process continues past it in a step that finds ``cond`` true."""

    stmt: A.Wait


@dataclass
class Arm:
    branch: A.Branch
    target: int = -1


@dataclass
class Branch(Instr):
    """``if``/``elif``/``else`` and ``upon``: the first arm whose condition holds (for some value
    of its placeholder: one fork per value); ``orelse`` when none does."""

    arms: list[Arm]
    orelse: int = -1


@dataclass
class Jump(Instr):
    target: int = -1


@dataclass
class Unbind(Instr):
    """The end of a placeholder's scope (an arm's ``for some w`` or a ``for each w``)."""

    name: str


@dataclass
class LoopHead(Instr):
    """The head of ``loop forever``: a stop point; a step runs passes of the body until one
    changes nothing (docs/alg.md: "the body runs until quiescent")."""

    end: int = -1


@dataclass
class LoopEnd(Instr):
    head: int = -1


@dataclass
class ForEach(Instr):
    """``for each w in S``: S's value is computed here; :class:`ForNext` binds the next element."""

    stmt: A.ForEach


@dataclass
class ForNext(Instr):
    var: str
    end: int = -1


@dataclass
class End(Instr):
    """The end of the program or of the round: the process has finished (``done``)."""


STOPS = (Wait, LoopHead, End)


@dataclass
class Program:
    alg: A.Algorithm
    code: list[Instr]
    types: tuple[MsgType, ...]
    var_names: tuple[str, ...]
    variables: dict[str, A.Variable]
    rounds_carrying: tuple[str, ...] = ()
    tossed: str | None = None  # `rounds carrying v`: the ghost "v's value is a coin outcome"
    # (id(condition), placeholder) -> (its domain, the condition: kept alive so the id stays its)
    placeholder_domains: dict = field(default_factory=dict, repr=False)
    # lock-step phases (`round 1:` … `round K:`): the position of each round's End -> where the
    # next round starts (the last round's -> the first's); `round:` and async: {its End: 0}
    next_start: dict[int, int] = field(default_factory=dict)
    round_spans: dict[int, Span | None] = field(default_factory=dict)  # round start -> its span
    coordinator_rounds: frozenset[int] = frozenset()  # starts of the rounds that read `coordinator`

    def round_start(self, pc: int) -> int:
        """The start of the round that position ``pc`` belongs to (0 without numbered rounds)."""
        return max((s for s in self.round_spans if s <= pc), default=0)

    def types_named(self, name: str) -> tuple[MsgType, ...]:
        return tuple(m for m in self.types if m.name == name)

    def payload_names(self) -> tuple[str, ...]:
        """Message names with several instances (candidates for a kind), coordinator ones excluded."""
        names = []
        for m in self.types:
            if not m.coordinator and m.name not in names and len(self.types_named(m.name)) > 1:
                names.append(m.name)
        return tuple(names)

    def line_text(self, span: Span | None) -> str:
        if span is None:
            return ""
        return self.alg.line(span.line)

    def sends_ahead(self, pc: int) -> bool:
        """Whether a ``send`` is reachable from position ``pc`` (clean crashes: a crash there
        loses a pending broadcast)."""
        seen, todo = set(), [pc]
        while todo:
            i = todo.pop()
            if i in seen or i >= len(self.code):
                continue
            seen.add(i)
            ins = self.code[i]
            if isinstance(ins, Send):
                return True
            todo.extend(successors(self.code, i))
        return False


def successors(code: list[Instr], i: int) -> list[int]:
    """The positions control may go to after instruction ``i`` (for static questions only)."""
    ins = code[i]
    if isinstance(ins, Jump):
        return [ins.target]
    if isinstance(ins, Branch):
        return [a.target for a in ins.arms] + [ins.orelse]
    if isinstance(ins, LoopEnd):
        return [ins.head + 1]
    if isinstance(ins, ForNext):
        return [i + 1, ins.end]
    if isinstance(ins, End):
        return []
    return [i + 1]


def message_types(alg: A.Algorithm) -> tuple[MsgType, ...]:
    out: list[MsgType] = []
    for shape in alg.messages:
        for values in product(*shape.parts) if shape.parts else [()]:
            out.append(MsgType(len(out), shape.name, tuple(values), shape.coordinator))
    return tuple(out)


class _Compiler:
    def __init__(self) -> None:
        self.code: list[Instr] = []
        self.round_ends: list[Jump] = []  # `next round` jumps, patched to the round's end

    def emit(self, ins: Instr) -> int:
        self.code.append(ins)
        return len(self.code) - 1

    def block(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s) -> None:
        span = getattr(s, "span", None)
        if isinstance(s, A.Assign):
            self.emit(Assign(s, span=span))
        elif isinstance(s, A.Send):
            self.emit(Send(s, span=span))
        elif isinstance(s, A.Decide):
            self.emit(Decide(s, span=span))
        elif isinstance(s, A.Skip):
            self.emit(Skip(span=span))
        elif isinstance(s, A.Wait):
            self.emit(Wait(s, span=span))
        elif isinstance(s, A.NextRound):
            j = Jump(span=span)
            self.emit(j)
            self.round_ends.append(j)
        elif isinstance(s, A.If):
            self.if_(s)
        elif isinstance(s, A.Loop):
            head = LoopHead(span=span)
            at = self.emit(head)
            self.block(s.body)
            self.emit(LoopEnd(head=at, span=span))
            head.end = len(self.code)
        elif isinstance(s, A.ForEach):
            self.emit(ForEach(s, span=span))
            nxt = ForNext(s.var, span=span)
            at = self.emit(nxt)
            self.block(s.body)
            self.emit(Jump(target=at, span=span))
            nxt.end = len(self.code)
        elif isinstance(s, A.Round):
            if s.number is not None:  # the reader allows numbered rounds at the top level only
                raise SourceError("a numbered round inside another statement", span)
            self.block(s.body)
        else:  # pragma: no cover - the reader builds no other statement
            raise SourceError(f"the interpreter does not know the statement {type(s).__name__}", span)

    def if_(self, s: A.If) -> None:
        ins = Branch([Arm(b) for b in s.branches], span=s.span)
        self.emit(ins)
        jumps = []
        for arm in ins.arms:
            arm.target = len(self.code)
            self.block(arm.branch.body)
            if arm.branch.placeholder:
                self.emit(Unbind(arm.branch.placeholder, span=arm.branch.span))
            j = Jump(span=arm.branch.span)
            self.emit(j)
            jumps.append(j)
        ins.orelse = len(self.code)
        if s.orelse:
            self.block(s.orelse)
        for j in jumps:
            j.target = len(self.code)


def mentions_coordinator(node: object, coordinator_names: frozenset[str]) -> bool:
    """Whether an AST node reads the built-in ``coordinator``, receives ``from coordinator`` or
    sends a coordinator message (the round in which the phase's coordinator acts)."""
    if isinstance(node, A.Ref) and node.name == A.COORDINATOR:
        return True
    if isinstance(node, A.Received) and node.from_coordinator:
        return True
    if isinstance(node, A.Send) and node.pattern.name in coordinator_names:
        return True
    if isinstance(node, (tuple, list)):
        return any(mentions_coordinator(x, coordinator_names) for x in node)
    if is_dataclass(node) and not isinstance(node, type):
        return any(mentions_coordinator(getattr(node, f.name), coordinator_names)
                   for f in fields(node) if f.name != "span")
    return False


def _event_loop(program: tuple) -> tuple:
    """The program with its top-level handlers as the event loop: docs/alg.md "Statements",
    "handlers written at the top level, without a loop, form the event loop" — from the first
    top-level ``upon`` to the end, run until quiescent in each step, when the program has no
    ``loop forever`` of its own."""
    first = next((i for i, s in enumerate(program) if isinstance(s, A.If) and s.upon), None)
    if first is None or any(isinstance(s, A.Loop) for s in program):
        return program
    return tuple(program[:first]) + (A.Loop(tuple(program[first:]), span=program[first].span),)


def compile_program(alg: A.Algorithm, tossed: str | None = None) -> Program:
    """The instructions of ``alg``. Numbered rounds (a phase) are compiled one after the other,
    each ending with its own :class:`End` (a stop point: the lock-step round ends there), which
    ``next_start`` links to the next round's start, the last to the first (the phase repeats)."""
    c = _Compiler()
    numbered = [s for s in alg.program if isinstance(s, A.Round) and s.number is not None]
    coord_names = frozenset(m.name for m in alg.messages if m.coordinator)
    next_start: dict[int, int] = {}
    round_spans: dict[int, Span | None] = {}
    coordinator_rounds: set[int] = set()
    if numbered:
        if len(numbered) != len(alg.program):
            raise SourceError("a statement outside the numbered rounds",
                              next(getattr(s, "span", None) for s in alg.program if s not in numbered))
        ends = []
        for r in numbered:
            start = len(c.code)
            round_spans[start] = r.span
            if mentions_coordinator(r.body, coord_names):
                coordinator_rounds.add(start)
            c.round_ends = []
            c.block(r.body)
            end = c.emit(End(span=r.span))
            for j in c.round_ends:
                j.target = end
            ends.append(end)
        starts = sorted(round_spans)
        next_start = {end: starts[(i + 1) % len(starts)] for i, end in enumerate(ends)}
    else:
        c.block(_event_loop(alg.program))
        end = c.emit(End(span=None))
        for j in c.round_ends:
            j.target = end
        next_start = {end: 0}
        round_spans = {0: getattr(alg.program[0], "span", None) if alg.program else None}
        if alg.timing == "sync" and coord_names and mentions_coordinator(alg.program, coord_names):
            coordinator_rounds.add(0)
    carrying = next((s.carrying for s in alg.program if isinstance(s, A.Round) and s.carrying), ())
    return Program(alg, c.code, message_types(alg), tuple(v.name for v in alg.variables),
                   {v.name: v for v in alg.variables}, carrying, tossed, next_start=next_start,
                   round_spans=round_spans, coordinator_rounds=frozenset(coordinator_rounds))
