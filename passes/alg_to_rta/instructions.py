"""The program as a flat instruction list, what is live before each instruction, and its stop points.

**What a location keeps**: only what can still matter (a live-variable analysis over the code,
:func:`liveness`): a variable that will be overwritten before it is read is forgotten (Ben-Or's
estimate while it waits for P messages), as is the "already sent M" flag once no ``send M`` can
follow. Variables that properties mention are kept everywhere; at a round end all variables are
kept. The **stop points** (:func:`stop_points`) are where a process waits: ``wait until``, the
head of ``loop forever:``, the end, the start of a numbered round, else the start.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Span

from tactl.passes.alg_to_rta import sets as S
from tactl.passes.alg_to_rta.context import Context, cond_names, fail


@dataclass(frozen=True)
class Instr:
    op: str  # assign send decide branch jump wait loop_head loop_back end
    stmt: object = None
    target: int = -1  # branch: where the false case goes; jump/loop_back: where to go
    loop_end: int = -1  # loop_head: index after the loop
    value: str | None = None  # each_item: the element it stands for


def compile_program(ctx: Context) -> tuple[list[Instr], bool]:
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
                raise fail("'wait until' inside 'loop forever': an event loop does not block; "
                           "write the condition as a handler, 'upon C: …'", s.span)
            if ctx.alg.timing == "sync":
                raise fail("'wait' in a synchronous algorithm: every message of a round arrives "
                           "by its end, so a round is one step; test the received messages "
                           "directly ('if received M from … processes: …')", s.span)
            emit(Instr("wait", s))
        elif isinstance(s, A.NextRound):
            if not state["round"]:
                raise fail("'next round' outside a 'round:' block", s.span)
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
                raise fail("only one 'loop forever' is supported", s.span)
            if ctx.alg.timing == "sync":
                raise fail("'loop forever' in a synchronous algorithm: write one round as "
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
                raise fail("only one 'round:' is supported (tactl models one round)", s.span)
            state["round"] = True
            block(s.body, in_loop)
        else:  # pragma: no cover - the reader builds no other statement
            raise fail("unsupported statement", getattr(s, "span", None))

    block(program, False)
    if state["loop"] and code and code[-1].op != "loop_back":
        after = next((s for i, s in enumerate(program) if i and isinstance(program[i - 1], A.Loop)),
                     None)
        raise fail("statements after 'loop forever:' are never reached",
                   getattr(after, "span", None))
    finish = len(code)
    if chooses and phase.coordinator_round == 1:  # chosen at the end of the phase's last round
        emit(Instr("choose", None))
    emit(Instr("end", None))
    for j in next_rounds:
        code[j] = replace(code[j], target=finish)
    return code, state["round"]


SENT = "sent:"  # prefix of the "already sent" flag of a message type, a state component


def liveness(ctx: Context, code: list[Instr], round_end: bool, observed: set[str]) -> list[set[str]]:
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
            return cond_names(s.value) & variables, {s.var}
        if ins.op == "send":
            return (cond_names(s.pattern) & variables) | sent_flags(s.pattern), set()
        if ins.op == "decide":  # reads 'decided' too: deciding again is refused (irrevocable)
            return (cond_names(s.value) & variables) | {A.DECIDED}, {A.DECIDED}
        if ins.op in ("branch", "wait"):  # and the set a quorum choice takes subsets of
            return (cond_names(s.cond) | cond_names(s.subset_of or A.Const(""))) & variables, set()
        if ins.op == "each_begin":
            return cond_names(s.set) & variables, set()
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


@dataclass(frozen=True)
class StopPoint:
    index: int  # instruction index
    kind: str  # start | wait | loop | end
    label: str
    span: Span | None


def stop_points(ctx: Context, code: list[Instr]) -> dict[int, StopPoint]:
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
