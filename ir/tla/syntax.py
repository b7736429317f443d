"""The syntax tree of a TLA+ module in the fragment tactl reads.

A TLA+ module is a list of units (``CONSTANTS``, ``VARIABLES``, ``ASSUME``, operator definitions
``Name(p) == expr``); an expression is one :class:`Node` kind for every operator, since what an
operator *means* depends on where it stands (a rule's guard, its update, a property) and is
decided by ``passes/tla_to_ta/``, which reports anything outside the fragment at the node's
``span``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.errors import Span


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


@dataclass(frozen=True)
class Node:
    """One expression node.

    ``op`` names the construct: ``int``, ``string``, ``name``, ``bool``, ``at`` (``@`` in an
    EXCEPT), ``primed`` (``x'``), ``call`` (``Op(a, b)``), ``apply`` (``f[e]``), ``and``, ``or``,
    ``implies``, ``not``, ``always``, ``eventually``, ``compare`` (``text`` is the operator:
    ``=``, ``/=``, ``<`` …), ``member`` (``\\in``/``\\notin``), ``sum`` (``text`` holds the
    operators, one per gap), ``product``, ``neg``, ``union``, ``set``, ``set_filter``,
    ``fn_def`` (``[x \\in S |-> e]``), ``fn_set`` (``[S -> T]``), ``except``, ``tuple``,
    ``unchanged``, ``exists``/``forall``, ``let``, ``if``, ``box_action`` (``[][Next]_vars``).
    ``text`` is the name of a ``name``/``call``/``primed``/bound variable, or the literal.
    """

    op: str
    args: tuple["Node", ...] = ()
    text: str = ""
    value: int = 0
    parenthesized: bool = field(default=False, compare=False)
    span: Span | None = _span()
    # a LET's definitions, an EXCEPT's (index, value) pairs
    defs: tuple["Definition", ...] = ()


@dataclass(frozen=True)
class Definition:
    """``name(params) == body`` (a LET definition too)."""

    name: str
    params: tuple[str, ...]
    body: Node
    span: Span | None = _span()


@dataclass(frozen=True)
class Declaration:
    """``CONSTANTS``, ``VARIABLES`` or ``EXTENDS`` and the names it lists, each with its place."""

    keyword: str  # constants | variables | extends
    names: tuple[tuple[str, Span], ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Assumption:
    """``ASSUME expr``."""

    expr: Node
    span: Span | None = _span()


@dataclass(frozen=True)
class Module:
    """A module's units in file order (its name, if the header gives one)."""

    name: str
    declarations: tuple[Declaration, ...]
    assumptions: tuple[Assumption, ...]
    definitions: tuple[Definition, ...]

    def names(self, keyword: str) -> list[tuple[str, Span]]:
        return [n for d in self.declarations if d.keyword == keyword for n in d.names]
