"""The receive threshold automaton (RTA): a TA whose guards count *received* messages.

Pseudocode says "received ECHO from t + 1 distinct processes"; an RTA rule says
``received(ECHO) >= t + 1`` and ``send ECHO``. The translate pass (``passes/rta_to_ta/eliminate.py``) turns
it into a TA over the numbers of *sent* messages, using the environment assumption of the
declared fault model and timing (``passes/rta_to_ta/env.py``).

Receive variables live in the one expression tree of ``ir.expr`` as names spelled
``received(M)`` — never a TA identifier, so they cannot clash with parameters or locations, and
every existing function (linear forms, z3, printing) handles them unchanged.

The justice (fairness) of an asynchronous RTA is derived by the translation
(``passes/rta_to_ta/fairness.py``) and named :func:`justice_name` — ``fair`` unless the automaton declares
that name. A specification may use the name as a condition (``<>[](fair) -> …``) to place the
justice itself; everywhere else it is not a name of the automaton.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from tactl.ir.errors import Span
from tactl.ir.expr import Always, And, Eventually, Expr, Implies, Name, Not, Or, names
from tactl.ir.ta.model import Location, Origin, Property
from tactl.ir.unknowns import Unknown


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


class FaultModel(Enum):
    BYZANTINE = "byzantine"
    CRASH = "crash"
    OMISSION = "omission"
    SYMMETRIC = "symmetric"
    CLEAN_CRASH = "clean_crash"
    HYBRID = "hybrid"  # Byzantine and crash faults together
    # "as the bound says": the processes modelled, the receive bound and the guaranteed delivery
    # given as expressions (``Faults.terms``; passes/rta_to_ta/env.py, **Bound**) — ByMC's Promela files
    # whose hybrid fault assumptions no named model states (passes/pml_to_rta/faults.py)
    BOUND = "bound"


# How many fault parameters each model takes, e.g. ``faults byzantine(f);``, ``hybrid(fb, fc)``,
# ``symmetric(fp)`` or ``symmetric(fp, fs)``, ``clean_crash(fc)`` or ``clean_crash(fc, fnc)``
# (passes/rta_to_ta/env.py: the second parameter and what the one-parameter form means).
FAULT_ARITIES = {FaultModel.HYBRID: (2,), FaultModel.SYMMETRIC: (1, 2),
                 FaultModel.CLEAN_CRASH: (1, 2), FaultModel.BOUND: (0,)}
FAULT_EXAMPLES = {FaultModel.HYBRID: "hybrid(fb, fc)", FaultModel.SYMMETRIC: "symmetric(fp, fs)",
                  FaultModel.CLEAN_CRASH: "clean_crash(fc, fnc)",
                  FaultModel.BOUND: "bound(processes: n - fa; receive: fa + fs; deliver: fs - fo)"}
# The three terms of ``faults bound(...)``, in this order (``Faults.terms``).
BOUND_TERMS = ("processes", "receive", "deliver")
FAULT_MODEL_NAMES = ", ".join(m.value for m in FaultModel)  # for messages


def fault_arities(model: FaultModel) -> tuple[int, ...]:
    """The numbers of fault parameters ``model`` accepts."""
    return FAULT_ARITIES.get(model, (1,))


def fault_arity_text(model: FaultModel) -> str:
    """``1``, ``2`` or ``1 or 2`` with an example, for messages."""
    if model is FaultModel.BOUND:
        return f"no parameter names but three terms (e.g. '{FAULT_EXAMPLES[model]}')"
    counts = " or ".join(map(str, fault_arities(model)))
    example = FAULT_EXAMPLES.get(model, f"{model.value}(f)")
    return f"{counts} parameter{'s' if fault_arities(model) != (1,) else ''} (e.g. '{example}')"


# What the translation adds for crash models (passes/rta_to_ta/env.py); specifications may name them.
CRASH_MODELS = (FaultModel.CRASH, FaultModel.CLEAN_CRASH, FaultModel.HYBRID)
CRASH_LOCATION = "CR"  # absorbing location of crashed processes ("CR_" if the RTA has a CR)
CRASH_COUNTER = "ncrashed"  # how many processes have crashed (at most the crash parameter)


# Marks of a rule in the .rta (`... send M coin;`, `... oracle;`): what kind of choice made it.
COIN, ORACLE = "coin", "oracle"
CHOICE_MARKS = (COIN, ORACLE)


# Which of a model's fault parameters count faulty senders (Faults.sender_parameters).
_SENDER_POSITIONS = {FaultModel.BYZANTINE: (0,), FaultModel.SYMMETRIC: (0, 1), FaultModel.HYBRID: (0,)}


class Timing(Enum):
    ASYNC = "async"
    SYNC = "sync"


@dataclass(frozen=True)
class Faults:
    """``faults byzantine(f);``: the model and the parameter(s) counting actual faults."""

    model: FaultModel
    parameters: tuple[str, ...]
    span: Span | None = _span()
    parameter_spans: tuple[Span | None, ...] = field(default=(), compare=False, repr=False,
                                                     kw_only=True)
    # ``bound`` only: the expressions over parameters named by BOUND_TERMS — how many processes
    # the automaton models, B of ``received(M) <= ns_M + B`` and D of the guaranteed ``ns_M + D``
    terms: tuple[Expr, ...] = field(default=(), kw_only=True)

    @property
    def arities(self) -> tuple[int, ...]:
        """How many fault parameters the model takes (one of these)."""
        return fault_arities(self.model)

    def sender_parameters(self) -> tuple[str, ...]:
        """The parameters that count faulty *senders*: processes the automaton does not model
        whose messages a correct receiver may count beyond what correct processes sent (the
        ``+ f`` of the receive bound, passes/rta_to_ta/env.py). Byzantine's f, hybrid's
        Byzantine part, symmetric's fp and fs (fs of the fp faulty processes send); crashed and
        omitting processes send nothing a correct one would not, and ``bound`` names no
        parameter (its terms say how much a receiver counts). One answer for every reader: the
        counterexample's explanation (tactl/engines/explain.py) and its space-time diagram
        (tactl/report/spacetime.py)."""
        return tuple(self.parameters[i] for i in _SENDER_POSITIONS.get(self.model, ())
                     if i < len(self.parameters))


@dataclass(frozen=True)
class Message:
    """A message type; ``kind`` groups types one faulty sender can use only once per receiver."""

    name: str
    kind: str | None = None
    span: Span | None = _span()


@dataclass(frozen=True)
class ReceiveRule:
    """``id: from -> to when (guard over received(M), parameters) send M1, M2;``"""

    id: int
    source: str
    target: str
    guard: Expr
    sends: tuple[str, ...] = ()
    # The rule's mark (CHOICE_MARKS): "coin" — an outcome of a coin toss, forced by probability 1
    # when possible; "oracle" — an outcome an oracle may withhold forever, never forced; None —
    # neither, its fairness follows from its guard and source (passes/rta_to_ta/fairness.py).
    choice: str | None = None
    span: Span | None = _span()
    source_span: Span | None = _span()
    target_span: Span | None = _span()
    send_spans: tuple[Span | None, ...] = field(default=(), compare=False, repr=False, kw_only=True)
    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)

    @property
    def is_self_loop(self) -> bool:
        return self.source == self.target


@dataclass(frozen=True)
class ReceiveTA:
    name: str
    parameters: tuple[str, ...]
    assumptions: tuple[Expr, ...]
    faults: Faults
    timing: Timing
    messages: tuple[Message, ...]
    locations: tuple[Location, ...]
    initial: tuple[str, ...]
    rules: tuple[ReceiveRule, ...]
    properties: tuple[Property, ...] = ()
    span: Span | None = _span()
    # Message types only the coordinator of a round sends (a phase's king or queen): a receiver
    # gets at most one of them per round, from one process (synchronous automata only).
    coordinator: tuple[str, ...] = ()
    # (section, name, span) of each name of `parameters` and `initial` as written, for diagnostics.
    declared_at: tuple[tuple[str, str, Span], ...] = field(default=(), compare=False, repr=False,
                                                           kw_only=True)
    # Crash locations that keep a crashed process's state (crash models, asynchronous): one per
    # valuation of what the properties read (``CR_v1_delivered``), entered only by
    # ``crash_rules`` — ``source -> CR_x when (guard) send M``: a process at ``source`` crashes
    # (at most the crash parameter do) in a state the properties see as ``CR_x``, after sending
    # ``M`` to some receivers only (``nsf_M``). The parse pass of ``.alg`` writes them
    # (passes/alg_to_rta/crashes.py) and the Promela front end (passes/pml_to_rta/crash_copies.py).
    # A crash rule from a crash location into another is a crashed process's own step (a Promela
    # file's crashed process may still change a variable the properties read): it sends nothing,
    # counts no crash and is never forced. Empty, the translation adds the
    # one location ``CR`` that forgets the state, entered from every location (hand-written
    # ``.rta``: their properties name locations, CR among them).
    crash_locations: tuple[Location, ...] = field(default=(), kw_only=True)
    crash_rules: tuple[ReceiveRule, ...] = field(default=(), kw_only=True)
    # `unknowns ?a in 0..1, ?k in 0..5 where ?a + ?k >= 1;`: coefficients to synthesise that
    # guards and the resilience condition may use (ir/unknowns.py), and the `where` constraints
    # among them; the translation carries both into the TA (passes/rta_to_ta/unknowns.py)
    unknowns: tuple[Unknown, ...] = field(default=(), kw_only=True)
    unknown_constraints: tuple[Expr, ...] = field(default=(), kw_only=True)

    def message(self, name: str) -> Message | None:
        return next((m for m in self.messages if m.name == name), None)

    def kinds(self) -> dict[str, tuple[str, ...]]:
        """Kind name → its message types (only kinds with a name)."""
        out: dict[str, list[str]] = {}
        for m in self.messages:
            if m.kind is not None:
                out.setdefault(m.kind, []).append(m.name)
        return {k: tuple(v) for k, v in out.items()}


_RECEIVED = re.compile(r"^received\((\w+)\)$")


def received(message: str) -> Name:
    """The receive variable of ``message`` (how many ``message``s a process has received)."""
    return Name(f"received({message})")


def received_message(name: str) -> str | None:
    """``M`` for the name ``received(M)``, else None."""
    match = _RECEIVED.match(name)
    return match.group(1) if match else None


def receive_variables(e: Expr) -> list[str]:
    """The message types whose receive variables occur in ``e``, in order of first occurrence."""
    seen: dict[str, None] = {}
    for n in names(e):
        m = received_message(n.name)
        if m is not None:
            seen.setdefault(m, None)
    return list(seen)


# The justice of an asynchronous RTA (passes/rta_to_ta/fairness.py): ``fair``, or ``fair_``, ``fair__``, …
# when the automaton declares ``fair`` (its parameters and locations are names of specifications).
JUSTICE_NAME = "fair"
JUSTICE_SPELLING = re.compile(r"^fair_*$")
_FORMULA_NODES = (Not, Always, Eventually, And, Or, Implies)


def justice_name(rta: ReceiveTA) -> str:
    """The name of the derived justice in ``rta``'s specifications: the first of ``fair``,
    ``fair_``, … that is none of its parameters, locations or the names a crash model adds."""
    taken = {*rta.parameters, *(loc.name for loc in (*rta.locations, *rta.crash_locations)),
             CRASH_LOCATION, CRASH_COUNTER}
    name = JUSTICE_NAME
    while name in taken:
        name += "_"
    return name


def condition_names(e: Expr) -> list[Name]:
    """The names that stand where a condition is expected (``<>[](fair)``, ``fair && p``), i.e.
    operands of ``!``, ``[]``, ``<>``, ``&&``, ``||``, ``->`` or the formula itself; the names
    inside comparisons are terms and are not listed."""
    out: list[Name] = []
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, Name):
            out.append(node)
        elif isinstance(node, _FORMULA_NODES):
            stack.extend(reversed(node.children()))
    return out


def mentions(e: Expr, name: str) -> bool:
    """True if the condition ``name`` (e.g. the justice) occurs in ``e``."""
    return any(n.name == name for n in condition_names(e))
