"""An SMT query as data: declared constants and commented blocks of assertions.

Assertions reuse the expression tree of ``ir.expr`` (Names of sort Int or Bool, linear terms,
comparisons, Boolean connectives), so every encoding is built from the same nodes the TA is made
of, and one printer (``passes/emit/smtlib.py``) turns a query into SMT-LIB2 text for any solver.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.expr import Expr

INT, BOOL = "Int", "Bool"


@dataclass(frozen=True)
class Declaration:
    """A constant of the query and its sort."""
    name: str
    sort: str = INT


@dataclass(frozen=True)
class Block:
    """A group of declarations and assertions under one comment (a segment, a step, …)."""

    title: str
    declarations: tuple[Declaration, ...] = ()
    assertions: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class SmtQuery:
    """One satisfiability question: sat means the property's violation is reachable."""

    title: str
    notes: tuple[str, ...]
    blocks: tuple[Block, ...]
    logic: str = "QF_LIA"

    @property
    def declarations(self) -> tuple[Declaration, ...]:
        return tuple(d for b in self.blocks for d in b.declarations)

    def size(self) -> tuple[int, int]:
        """(number of declared constants, number of assertions)."""
        return len(self.declarations), sum(len(b.assertions) for b in self.blocks)
