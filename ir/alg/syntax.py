"""The pseudocode IR (``.alg``): an algorithm as the paper writes it, before any automaton exists.

``ir/alg/reader.py`` builds it from text (grammar ``ir/alg/alg.lark``, reference ``docs/alg.md``);
``passes/alg_to_rta/extract.py`` turns it into a receive threshold automaton by control-state extraction.

Values of process variables are kept as their spelling (``"0"``, ``"1"``, ``"⊥"``, ``"true"``,
``"yes"``): finite domains are compared by equality only, and strings keep ``true`` distinct from
``1`` (Python's ``True == 1`` would merge them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from tactl.ir.errors import Span
from tactl.ir.alg.hypothesis import Hypothesis
from tactl.ir.unknowns import Unknown

BOTTOM = "⊥"
TRUE = "true"
FALSE = "false"
BOOL = (FALSE, TRUE)
COIN_VALUES = ("0", "1")
DECIDED = "decided"  # the variable `decide v` sets; ⊥ until the process decides
DONE = "done"  # the predicate "the process has finished (its round)"
CRASHED = "crashed"  # the predicate "the process has crashed" (crash fault models)
COORDINATOR = "coordinator"  # the built-in Boolean "this process is the phase's coordinator"


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


# ---- terms: arithmetic over parameters and receive counts, and values of variables ----------

@dataclass(frozen=True)
class Num:
    value: int
    span: Span | None = _span()


@dataclass(frozen=True)
class Ref:
    """A name: parameter, variable, placeholder, or a symbolic constant of a domain (``yes``)."""

    name: str
    span: Span | None = _span()


@dataclass(frozen=True)
class UnknownRef:
    """``?a``: an unknown coefficient (ir/unknowns.py), declared by ``unknowns ?a in 0..1``; it
    may stand in thresholds and in the resilience condition only."""

    name: str  # with the prefix: ``?a``
    span: Span | None = _span()


@dataclass(frozen=True)
class Const:
    """A literal value that is not a number: ``⊥``, ``true``, ``false``."""

    value: str
    span: Span | None = _span()


@dataclass(frozen=True)
class Coin:
    """``coin`` / ``coin toss``: a probabilistic choice of 0 or 1; each outcome has a positive
    probability, so a toss repeated forever gives every outcome (docs/alg.md, "Coin and oracle")."""

    span: Span | None = _span()


@dataclass(frozen=True)
class Oracle:
    """``oracle``: a nondeterministic choice of 0 or 1 with no fairness at all (a failure
    detector's output): it may return the variable's current value forever."""

    span: Span | None = _span()


@dataclass(frozen=True)
class NotValue:
    arg: "Term"
    span: Span | None = _span()


@dataclass(frozen=True)
class Count:
    """``received (R, *)`` as a number: how many such messages the process has received."""

    pattern: "Pattern"
    span: Span | None = _span()


@dataclass(frozen=True)
class CountPred:
    """``count (P)`` in a property: how many (modelled) processes satisfy the predicate ``P``."""

    pred: object
    span: Span | None = _span()


@dataclass(frozen=True)
class Arith:
    """``+ - * /`` (binary) and ``neg`` (unary) over terms."""

    op: str
    args: tuple["Term", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Rounding:
    """``⌈x⌉`` (``ceil``) or ``⌊x⌋`` (``floor``)."""

    kind: str
    arg: "Term"
    span: Span | None = _span()


# ---- sets over a finite domain (docs/alg.md, "Sets and quorum choice"; passes/alg_to_rta/sets.py) ----

@dataclass(frozen=True)
class SetLit:
    """``{}`` / ``∅`` / ``{0, w}``: a set of values."""

    elements: tuple["Term", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class SetOp:
    """``A ∪ B`` (``union``), ``A ∩ B`` (``intersect``), ``A \\ B`` (``minus``)."""

    op: str  # "union" | "intersect" | "minus"
    args: tuple["Term", "Term"]
    span: Span | None = _span()


@dataclass(frozen=True)
class SetBuilder:
    """``{w : C(w)}``: every value ``w`` of its domain whose condition holds; the condition is a
    receive condition, so a step forks per value (as ``if`` does)."""

    placeholder: str
    cond: "Cond"
    span: Span | None = _span()


@dataclass(frozen=True)
class Card:
    """``|S|``: the number of elements of a set (a small constant at every location)."""

    arg: "Term"
    span: Span | None = _span()


@dataclass(frozen=True)
class MinMax:
    """``min(S)`` / ``max(S)`` in the order of the set's element domain."""

    kind: str  # "min" | "max"
    arg: "Term"
    span: Span | None = _span()


@dataclass(frozen=True)
class Member:
    """``x ∈ S`` (``x in S``); ``negated``: ``x ∉ S`` (``x not in S``)."""

    elem: "Term"
    set: "Term"
    negated: bool = False
    span: Span | None = _span()


Term = (Num | Ref | UnknownRef | Const | Coin | Oracle | NotValue | Count | CountPred | Arith | Rounding | SetLit
        | SetOp | SetBuilder | Card | MinMax)

WILDCARD = "*"
QUESTION = "?"


@dataclass(frozen=True)
class Pattern:
    """A message as written in code: ``ECHO``; ``(R, v)``; ``(P, w, D)``; ``(P, ?)``; ``(R, *)``.

    ``parts`` is None for a message without payload; a part is a term, ``"*"`` or ``"?"``."""

    name: str
    parts: tuple[Term | str, ...] | None
    span: Span | None = _span()


# ---- conditions --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Compare:
    """A comparison chain ``a < b <= c`` (``ops`` has one operator fewer than ``terms``)."""

    ops: tuple[str, ...]
    terms: tuple[Term, ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Received:
    """``received M from (at least|more than|…) K (distinct) processes``: ``count op amount``."""

    pattern: Pattern
    op: str
    amount: Term
    span: Span | None = _span()
    # `received M from coordinator`: the coordinator's M arrived (count >= 1, at most one)
    from_coordinator: bool = False


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and" | "or"
    args: tuple["Cond", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class NotCond:
    arg: "Cond"
    span: Span | None = _span()


@dataclass(frozen=True)
class SentPred:
    """``sent M`` in a property: the process has sent ``M`` in this round."""

    pattern: Pattern
    span: Span | None = _span()


Cond = Compare | Received | BoolOp | NotCond | SentPred | Member | Term


# ---- statements ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Assign:
    var: str
    value: Term
    span: Span | None = _span()
    var_span: Span | None = _span()


@dataclass(frozen=True)
class Send:
    pattern: Pattern
    span: Span | None = _span()


@dataclass(frozen=True)
class Decide:
    value: Term
    span: Span | None = _span()


@dataclass(frozen=True)
class Wait:
    """``wait until C`` (``for some w``: until ``C`` holds for a value, then ``w`` is that value)."""

    cond: Cond
    placeholder: str | None = None
    span: Span | None = _span()
    placeholder_span: Span | None = _span()
    # `for some nonempty vals ⊆ S`: the placeholder ranges over the (nonempty) subsets of S
    subset_of: "Term | None" = field(default=None, kw_only=True)
    nonempty: bool = field(default=False, kw_only=True)


@dataclass(frozen=True)
class NextRound:
    span: Span | None = _span()


@dataclass(frozen=True)
class Skip:
    span: Span | None = _span()


@dataclass(frozen=True)
class Branch:
    """One arm of an ``if``/``elif``/``upon``: its condition, the placeholder of a ``for some w``
    (or None), and its body."""

    cond: Cond
    placeholder: str | None
    body: tuple["Stmt", ...]
    span: Span | None = _span()
    placeholder_span: Span | None = _span()
    subset_of: "Term | None" = field(default=None, kw_only=True)  # as in Wait
    nonempty: bool = field(default=False, kw_only=True)


@dataclass(frozen=True)
class If:
    branches: tuple[Branch, ...]
    orelse: tuple["Stmt", ...] | None
    upon: bool = False  # written `upon …:` (an event handler)
    span: Span | None = _span()


@dataclass(frozen=True)
class Loop:
    """``loop forever:`` — an event loop: each step runs the body until the state is quiescent."""

    body: tuple["Stmt", ...]
    span: Span | None = _span()


@dataclass(frozen=True)
class Round:
    """``round:`` — one round of a multi-round algorithm; its end carries the variables over.
    ``rounds carrying v:`` (``carrying`` = ("v",)): the round of a repeated algorithm whose
    carried variables are the next round's input; tactl generates the round-rigid obligations
    (``passes/alg_to_rta/rounds.py``)."""

    body: tuple["Stmt", ...]
    carrying: tuple[str, ...] = ()
    span: Span | None = _span()
    carrying_spans: tuple[Span | None, ...] = field(default=(), compare=False, repr=False)
    number: int | None = None  # `round K:` (a phase of several rounds); None for `round:`


@dataclass(frozen=True)
class ForEach:
    """``for each w in S: …`` — the body once per element of the set's value when the loop
    starts, in the order of its element domain (a bounded iteration: S is finite)."""

    var: str
    set: Term
    body: tuple["Stmt", ...]
    span: Span | None = _span()


Stmt = Assign | Send | Decide | Wait | NextRound | Skip | If | Loop | Round | ForEach


# ---- declarations ----------------------------------------------------------------------------

@dataclass(frozen=True)
class MessageShape:
    """``(P, {0, 1}, D)``: a message name and per payload position a domain or a fixed tag."""

    name: str
    parts: tuple[tuple[str, ...], ...]  # per position, its possible values (a tag: one value)
    tags: tuple[bool, ...]  # per position: a fixed tag (D, ?) rather than a domain
    span: Span | None = _span()
    coordinator: bool = False  # declared `from coordinator`: only the phase's coordinator sends it


@dataclass(frozen=True)
class Variable:
    name: str
    domain: tuple[str, ...]
    initial: str | None  # None: an input, chosen non-deterministically from the domain
    span: Span | None = _span()
    # a set-valued variable (`set of {0, 1}`): its element domain; ``domain`` lists its subsets
    # (spelled as passes/alg_to_rta/sets.py encodes them)
    elements: tuple[str, ...] | None = field(default=None, kw_only=True)
    # an input chosen among these values only (`= {input}`: the singletons); None: the domain
    inputs: tuple[str, ...] | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class FormulaNode:
    """A property formula: ``op`` in always/eventually/initially/implies/and/or/not/some/all/no/
    cmp/true/false; ``args`` formulas, or for some/all/no one predicate (a condition over the
    variables of one process), or for cmp one comparison over parameters."""

    op: str
    args: tuple
    span: Span | None = _span()


@dataclass(frozen=True)
class PropertyDecl:
    name: str
    formula: FormulaNode
    hypothesis: Hypothesis | None = None  # `NAME assuming …:` (synchronous algorithms)
    span: Span | None = _span()


@dataclass(frozen=True)
class Algorithm:
    name: str
    parameters: tuple[str, ...]
    resilience: tuple[Compare, ...]
    fault_model: str
    fault_parameters: tuple[str, ...]
    timing: str
    messages: tuple[MessageShape, ...]
    domains: dict[str, tuple[str, ...]]
    variables: tuple[Variable, ...]
    program: tuple[Stmt, ...]
    properties: tuple[PropertyDecl, ...]
    source: str = field(default="", compare=False, repr=False)
    path: str = field(default="<input>", compare=False, repr=False)
    spans: dict[str, Span] = field(default_factory=dict, compare=False, repr=False)
    # `unknowns ?a in 0..1, … where C1, C2`: coefficients to synthesise and constraints among them
    unknowns: tuple[Unknown, ...] = ()
    unknown_constraints: tuple[Compare, ...] = ()

    def variable(self, name: str) -> Variable | None:
        return next((v for v in self.variables if v.name == name), None)

    def line(self, number: int) -> str:
        """The statement starting on line ``number``, as a source map quotes it: without
        indentation or a trailing ``# comment``, continuation lines (``\\``) joined."""
        lines = self.source.split("\n")
        out = []
        while 1 <= number <= len(lines):
            text = lines[number - 1].split("#", 1)[0].strip()
            if text.endswith("\\"):
                out.append(text[:-1].strip())
                number += 1
                continue
            out.append(text)
            break
        return " ".join(x for x in out if x)


def statements(stmts):
    """Every statement of ``stmts`` and of the blocks inside them, in order."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            for b in s.branches:
                yield from statements(b.body)
            if s.orelse:
                yield from statements(s.orelse)
        elif isinstance(s, (Loop, Round, ForEach)):
            yield from statements(s.body)


def children(node) -> tuple:
    """The sub-terms and sub-conditions of a term, condition or message pattern."""
    if isinstance(node, Compare):
        return node.terms
    if isinstance(node, Received):
        return (node.pattern, node.amount)
    if isinstance(node, Pattern):
        return tuple(p for p in node.parts or () if not isinstance(p, str))
    if isinstance(node, (BoolOp, Arith)):
        return node.args
    if isinstance(node, (NotCond, NotValue, Rounding, Card, MinMax)):
        return (node.arg,)
    if isinstance(node, SetLit):
        return node.elements
    if isinstance(node, SetOp):
        return node.args
    if isinstance(node, SetBuilder):
        return (node.cond,)
    if isinstance(node, Member):
        return (node.elem, node.set)
    if isinstance(node, (Count, SentPred)):
        return (node.pattern,)
    return ()


def walk(node):
    """``node`` and everything below it, depth first (no recursion)."""
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(children(x)))


# ---- set values: a set-valued variable's value is kept as one string, as every value is ------

def encode_set(values, elements: tuple[str, ...]) -> str:
    """``{0,1}``: a subset of ``elements`` as one value, its members in the domain's order (so
    that equal sets are equal strings); the empty set is ``{}``."""
    chosen = set(values)
    return "{" + ",".join(e for e in elements if e in chosen) + "}"


def decode_set(value: str) -> tuple[str, ...] | None:
    """The members of an encoded set, or None if ``value`` is not a set."""
    if not (value.startswith("{") and value.endswith("}")):
        return None
    inner = value[1:-1]
    return tuple(inner.split(",")) if inner else ()


def subsets(elements: tuple[str, ...]) -> tuple[str, ...]:
    """Every subset of ``elements``, encoded, smallest first (the domain of a set variable)."""
    return tuple(encode_set(c, elements) for k in range(len(elements) + 1)
                 for c in combinations(elements, k))
