"""What every stage of the extraction shares: the declarations read once (:class:`Context`), the
expanded message types, and the one way a stage reports a problem (:func:`fail`, turned into a
positioned :class:`ParseError` by extract.py's ``parse_algorithm``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from tactl.ir.alg import syntax as A
from tactl.ir.errors import InputError, Span
from tactl.ir.expr import Expr
from tactl.ir.unknowns import Unknown

from tactl.passes.alg_to_rta.phases import Layout


class ParseError(InputError):
    pass


@dataclass
class Fail(Exception):
    message: str
    span: Span | None


def fail(message: str, span: Span | None = None) -> Fail:
    return Fail(message, span)


@dataclass(frozen=True)
class MessageType:
    """One expanded message type: ``(P, 0, D)`` → name ``P0D`` of kind ``P``."""

    name: str
    base: str
    payload: tuple[str, ...]


@dataclass
class Context:
    alg: A.Algorithm
    parameters: tuple[str, ...]
    types: list[MessageType]
    kinds: dict[str, tuple[str, ...]]
    variables: dict[str, A.Variable]
    symbols: set[str]  # constants of domains and message tags (yes, no, D, …)
    decides: bool
    rc: tuple[Expr, ...]
    # the rounds of a phase and the coordinator (passes/alg_to_rta/phases.py); set by extract.py
    layout: Layout = field(default_factory=lambda: Layout((), None, ()))
    # `unknowns ?a in 0..1`: the declared unknowns by name (ir/unknowns.py)
    unknowns: dict[str, Unknown] = field(default_factory=dict)
    unknown_constraints: tuple[Expr, ...] = ()  # the `where` constraints among them

    def order(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.parameters)}


def all_statements(stmts: Iterable[A.Stmt]) -> Iterable[A.Stmt]:
    return A.statements(stmts)


def cond_names(c) -> set[str]:
    """The names a term or condition mentions (variables, placeholders, parameters, …)."""
    return {x.name for x in A.walk(c) if isinstance(x, A.Ref)}


def span_of(x) -> Span | None:
    return getattr(x, "span", None)
