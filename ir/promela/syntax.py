"""Parametric Promela as ByMC's benchmarks write it: the typed syntax tree.

ByMC (Konnov, Widder et al.) reads Promela with a symbolic extension: ``symbolic int N;``
parameters, ``assume(...)`` resilience conditions, ``active[N - F] proctype P()`` copies, a
``do :: atomic { ... } od`` step, ``atomic name = all(P:pc == AC)`` propositions and ``ltl``
blocks. ``ir/promela/reader.py`` reads the subset its benchmarks use into these dataclasses;
``passes/pml_to_rta/`` turns them into a receive automaton. Every node keeps its source
position (``span``, no part in equality) so that what the translation cannot handle is reported
at ``file:line:col``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.errors import Span


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


# ----------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class PExpr:
    span: Span | None = _span()


@dataclass(frozen=True)
class PInt(PExpr):
    value: int = 0


@dataclass(frozen=True)
class PName(PExpr):
    name: str = ""


@dataclass(frozen=True)
class PQualified(PExpr):
    """``Proc:pc``: a local variable of every process of a proctype (in propositions)."""

    proc: str = ""
    var: str = ""


@dataclass(frozen=True)
class PAtLabel(PExpr):
    """``Proc@end``: every process of the proctype is at the label."""

    proc: str = ""
    label: str = ""


@dataclass(frozen=True)
class PCall(PExpr):
    """``all(e)``, ``some(e)``, ``card(e)`` over processes."""

    func: str = ""
    arg: PExpr = field(default_factory=PExpr)


@dataclass(frozen=True)
class PUnary(PExpr):
    """``!e``, ``-e``, ``[]e``, ``<>e``."""

    op: str = ""
    arg: PExpr = field(default_factory=PExpr)


@dataclass(frozen=True)
class PBinary(PExpr):
    """Arithmetic, comparison, ``&&``, ``||``, ``->`` (only in ``ltl``)."""

    op: str = ""
    left: PExpr = field(default_factory=PExpr)
    right: PExpr = field(default_factory=PExpr)


# ------------------------------------------------------------------------------ statements


@dataclass(frozen=True)
class Stmt:
    span: Span | None = _span()


@dataclass(frozen=True)
class Decl(Stmt):
    """``byte pc = 0, next_pc = 0;`` (locals) or ``int nsnt = 0;`` (globals)."""

    type: str = "int"
    vars: tuple[tuple[str, PExpr | None], ...] = ()


@dataclass(frozen=True)
class Assign(Stmt):
    var: str = ""
    expr: PExpr = field(default_factory=PExpr)


@dataclass(frozen=True)
class Incr(Stmt):
    """``x++`` (delta 1) or ``x--`` (delta -1)."""

    var: str = ""
    delta: int = 1


@dataclass(frozen=True)
class Printf(Stmt):
    """Ignored by the translation: it changes no state."""


@dataclass(frozen=True)
class Skip(Stmt):
    pass


@dataclass(frozen=True)
class Else(Stmt):
    """``else``: enabled when no other option of its ``if`` is."""


@dataclass(frozen=True)
class Condition(Stmt):
    """An expression used as a statement: a guard, blocking while false."""

    expr: PExpr = field(default_factory=PExpr)


@dataclass(frozen=True)
class Goto(Stmt):
    """``goto end``: ByMC's files leave the step this way when a receive exceeds the bound."""

    label: str = ""


@dataclass(frozen=True)
class AssumeStmt(Stmt):
    """``assume(c)`` inside the process: the runs where ``c`` is false at this point are dropped (ByMC)."""

    expr: PExpr = field(default_factory=PExpr)


@dataclass(frozen=True)
class Havoc(Stmt):
    """``havoc(x)``: ``x`` gets any value (ByMC's ``#ifndef SPIN`` receive: ``havoc(next_x);
    assume(x <= next_x && next_x <= nsnt + F)``; its meaning: ``passes/pml_to_rta/multi.py``)."""

    var: str = ""


@dataclass(frozen=True)
class AssertStmt(Stmt):
    """``assert(e)`` inside a process: a safety obligation on every path reaching it."""

    expr: PExpr = field(default_factory=PExpr)


@dataclass(frozen=True)
class Option:
    """``:: s1; s2; ...`` of an ``if`` or ``do``."""

    body: tuple[Stmt, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class If(Stmt):
    options: tuple[Option, ...] = ()


@dataclass(frozen=True)
class Do(Stmt):
    options: tuple[Option, ...] = ()


@dataclass(frozen=True)
class Atomic(Stmt):
    body: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class Labelled(Stmt):
    label: str = ""
    stmt: Stmt = field(default_factory=Stmt)


# ---------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Define:
    """A ``#define`` (object-like). The parser has already substituted its body as text, as cpp
    does; ``value`` (the body as one integer literal, else None) only names locations."""

    name: str
    value: PInt | None
    body: str = ""
    span: Span | None = _span()


@dataclass(frozen=True)
class Assume:
    expr: PExpr
    span: Span | None = _span()


@dataclass(frozen=True)
class AtomicProp:
    """``atomic name = expr;``: a proposition over process counts and globals."""

    name: str
    expr: PExpr
    span: Span | None = _span()


@dataclass(frozen=True)
class Proctype:
    name: str
    copies: PExpr
    body: tuple[Stmt, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Ltl:
    name: str
    formula: PExpr
    span: Span | None = _span()


@dataclass(frozen=True)
class PromelaModel:
    path: str
    text: str
    defines: tuple[Define, ...]
    symbolic: tuple[tuple[str, Span | None], ...]
    globals: tuple[Decl, ...]
    assumes: tuple[Assume, ...]
    props: tuple[AtomicProp, ...]
    proctypes: tuple[Proctype, ...]
    ltls: tuple[Ltl, ...]
    macros_in_process: frozenset[str] = frozenset()  # the macros written in a proctype or proposition

    def line(self, n: int) -> str:
        lines = self.text.split("\n")
        return lines[n - 1].strip() if 0 < n <= len(lines) else ""


# ------------------------------------------------------------------------------------ traversal
# One definition of walking the tree, for every pass that reads it.


def statements(stmts: tuple[Stmt, ...]):
    """Every statement of ``stmts``, nested ones included (options, atomic blocks, labels)."""
    for s in stmts:
        yield s
        if isinstance(s, (If, Do)):
            for o in s.options:
                yield from statements(o.body)
        elif isinstance(s, Atomic):
            yield from statements(s.body)
        elif isinstance(s, Labelled):
            yield from statements((s.stmt,))


def statement_lists(stmts: tuple[Stmt, ...]):
    """Every statement list of ``stmts``: itself, and the bodies of its options, atomic blocks and
    labelled statements, nested ones included."""
    yield stmts
    for s in stmts:
        if isinstance(s, (If, Do)):
            for o in s.options:
                yield from statement_lists(o.body)
        elif isinstance(s, Atomic):
            yield from statement_lists(s.body)
        elif isinstance(s, Labelled):
            yield from statement_lists((s.stmt,))


def subexpressions(e: PExpr):
    """``e`` and its operands, through unary and binary operators."""
    yield e
    if isinstance(e, PUnary):
        yield from subexpressions(e.arg)
    elif isinstance(e, PBinary):
        yield from subexpressions(e.left)
        yield from subexpressions(e.right)


def variable_names(e: PExpr):
    """The variable names in ``e``, calls' arguments included (``Proc:pc`` gives ``pc``)."""
    if isinstance(e, PName):
        yield e.name
    elif isinstance(e, PQualified):
        yield e.var
    elif isinstance(e, PUnary):
        yield from variable_names(e.arg)
    elif isinstance(e, PBinary):
        yield from variable_names(e.left)
        yield from variable_names(e.right)
    elif isinstance(e, PCall):
        yield from variable_names(e.arg)
