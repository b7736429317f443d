"""Phases of several rounds and coordinators in pseudocode (``.alg``): the static rules.

A synchronous algorithm may write one *phase* as numbered rounds (``round 1: … round 2: …``;
phase king, phase queen); the phase repeats. A message declared ``from coordinator`` is sent
only by the phase's coordinator (king, queen), and the built-in Boolean ``coordinator`` says
whether this process is it (docs/alg.md, "Phases and coordinators").

This module checks what needs no symbolic execution — the round layout, where ``coordinator``
is read, how coordinator messages are received — and says where the parse pass
(``passes/alg_to_rta/instructions.py``, ``choose``) makes the coordinator choice. Every problem is a :class:`PhaseError` with
the position of the construct at fault; the parse pass reports it as ``file:line:col``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Span


class PhaseError(Exception):
    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


@dataclass(frozen=True)
class Layout:
    """The round structure of a program and where its coordinator is chosen.

    ``rounds``: the numbered rounds of a phase in order (empty: the program is not phased — one
    ``round:``, an event loop, or plain code). ``coordinator_round``: the round that reads
    ``coordinator`` (1 for an unphased program that reads it), or None. ``coordinator_types``:
    the expanded message types declared ``from coordinator``."""

    rounds: tuple[A.Round, ...]
    coordinator_round: int | None
    coordinator_types: tuple[str, ...]

    @property
    def phased(self) -> bool:
        return bool(self.rounds)


def _nested(stmts: Iterable[A.Stmt]) -> Iterable[A.Stmt]:
    """Every statement below ``stmts`` (not the top-level ones)."""
    for s in stmts:
        inner: list[A.Stmt] = []
        if isinstance(s, A.If):
            for b in s.branches:
                inner.extend(b.body)
            inner.extend(s.orelse or ())
        elif isinstance(s, (A.Loop, A.Round)):
            inner.extend(s.body)
        for x in inner:
            yield x
            yield from _nested([x])


def _conditions(stmts: Iterable[A.Stmt]) -> Iterable[object]:
    """The conditions and values a program's statements evaluate."""
    for s in [*stmts, *_nested(stmts)]:
        if isinstance(s, A.If):
            yield from (b.cond for b in s.branches)
        elif isinstance(s, A.Wait):
            yield s.cond
        elif isinstance(s, (A.Assign, A.Decide)):
            yield s.value
        elif isinstance(s, A.Send):
            yield s.pattern


def _reads_coordinator(stmts: Iterable[A.Stmt]) -> A.Ref | None:
    for c in _conditions(stmts):
        for x in A.walk(c):
            if isinstance(x, A.Ref) and x.name == A.COORDINATOR:
                return x
    return None


def layout(alg: A.Algorithm, types_of: dict[str, tuple[str, ...]]) -> Layout:
    """The program's rounds and coordinator, checked (``types_of``: message name → its types)."""
    program = alg.program
    numbered = [s for s in program if isinstance(s, A.Round) and s.number is not None]
    for s in _nested(program):
        if isinstance(s, A.Round):
            raise PhaseError("a 'round' block is written at the top level of the program, not "
                             "inside another statement", s.span)
    if numbered:
        if alg.timing != "sync":
            raise PhaseError("numbered rounds ('round K:') need 'timing sync': a phase of several "
                             "rounds is a lock-step structure (an asynchronous algorithm waits "
                             "for messages instead: 'wait until …')", numbered[0].span)
        for s in program:
            if isinstance(s, A.Round) and s.number is None:
                raise PhaseError("'round:' and numbered rounds ('round 1:', 'round 2:', …) are "
                                 "mixed: number every round of the phase", s.span)
            if not isinstance(s, A.Round):
                raise PhaseError("a statement outside the numbered rounds: with 'round 1:', "
                                 "'round 2:', … every statement belongs to a round of the phase",
                                 getattr(s, "span", None))
        for k, s in enumerate(numbered, 1):
            if s.number != k:
                raise PhaseError(f"rounds are numbered 1, 2, … in order: this is round "
                                 f"{s.number}, where round {k} is expected", s.span)
    coordinator_types = tuple(t for shape in alg.messages if shape.coordinator
                              for t in types_of.get(shape.name, ()))
    _check_receives(alg, program)
    if numbered:
        readers = [(s.number, ref) for s in numbered
                   if (ref := _reads_coordinator(s.body)) is not None]
    else:
        ref = _reads_coordinator(program)
        readers = [(1, ref)] if ref is not None else []
    if len(readers) > 1:
        first = readers[0][0]
        raise PhaseError(f"'coordinator' is read in round {first} and in round {readers[1][0]}: "
                         "the coordinator is chosen for one round of the phase, the one in which "
                         "it sends its message (read it there only)", readers[1][1].span)
    if readers and not coordinator_types:
        raise PhaseError("'coordinator' is read, but no message is declared 'from coordinator' "
                         "(e.g. 'messages (M, {0, 1}), (K, {0, 1}) from coordinator'): the "
                         "coordinator is the process that sends them", readers[0][1].span)
    return Layout(tuple(numbered), readers[0][0] if readers else None, coordinator_types)


def _check_receives(alg: A.Algorithm, program) -> None:
    """``received M from coordinator`` needs a coordinator message M, and a coordinator message
    is received from the coordinator (one sender), not counted over processes."""
    shapes = {s.name: s for s in alg.messages}
    for c in _conditions(program):
        for x in A.walk(c):
            if not isinstance(x, A.Received) or x.pattern.name not in shapes:
                continue
            coordinator = shapes[x.pattern.name].coordinator
            if x.from_coordinator and not coordinator:
                raise PhaseError(f"'{x.pattern.name}' is not a coordinator message: declare it "
                                 f"'{x.pattern.name} … from coordinator' in 'messages', or count "
                                 "it over processes ('from K processes')", x.span)
            if coordinator and not x.from_coordinator:
                raise PhaseError(f"'{x.pattern.name}' is sent by the coordinator only: write "
                                 f"'received … from coordinator' (a receiver gets at most one)",
                                 x.span)
