"""What both readers of ``.ta`` text build with: the sort checks of expressions, ByMC's reading
of ``unchanged(x)`` and the reading's warnings.

The grammar-driven reader (``ir/ta/grammar.py``, lark) and the hand-written one for plain ``.ta``
files (``ir/ta/fast_reader.py``) call the same functions here, so an automaton reads to the same IR
and the same warnings whichever of them read it.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Name, conj, is_arith, to_text
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.ta.model import ThresholdAutomaton, Update
from tactl.ir.ta.validate import divisor_problem


class SortError(Exception):
    """An expression of the wrong sort (a term where a condition belongs, or the reverse) or an
    arithmetic the automata cannot hold, at its position: the .rta reader raises it too."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.span = message, span


def term(e: Expr) -> Expr:
    if not is_arith(e):
        raise SortError(f"expected a number-valued term, found the formula '{to_text(e)}'", e.span)
    return e


def as_formula(e: Expr) -> Expr:
    """A truth value; the literals 1 and 0 are read as true and false (ByMC writes guards `(1)`)."""
    if isinstance(e, IntConst) and e.value in (0, 1):
        return BoolConst(e.value == 1, span=e.span)
    if is_arith(e):
        raise SortError(f"expected a condition, found the term '{to_text(e)}' "
                         "(compare it with something, e.g. '>= 1')", e.span)
    return e


def divisor(e: Expr) -> Expr:
    """``e`` if it folds to a positive integer: a division stays exact linear arithmetic only
    when it divides by a constant (``passes/ta_to_ta/lower_division.py``), and a divisor of 0 or
    less has no floor semantics worth guessing."""
    message = divisor_problem(e)
    if message:
        raise SortError(message, e.span)
    return e


@dataclass(frozen=True, slots=True)
class Unchanged:
    """An update that came from ``unchanged(x)`` (not ``x' == x``): only those get ByMC's
    lenient reading below; two written assignments to one variable stay an error."""

    update: Update


# Warnings found while building the IR (parse_ta collects them; the transformer runs inside the
# parser, so they cannot be returned through it).
reader_warnings: ContextVar[list[Diagnostic] | None] = ContextVar("reader_warnings", default=None)


def warn(message: str, span: Span | None) -> None:
    sink = reader_warnings.get()
    if sink is not None:
        sink.append(Diagnostic(Severity.WARNING, message, span))


def merge_unchanged(rule_id: int, guard: Expr, actions: list) -> tuple[Expr, tuple[Update, ...]]:
    """A rule's guard and updates with ``unchanged(…)`` read as ByMC reads it.

    ByMC (``bymc/src/taIr.ml``: a rule's ``actions`` is a list of ``(variable, expression)``
    pairs; ``bymc/src/taIrBridge.ml``: each becomes the constraint ``x' == e``;
    ``bymc/src/porBounds.ml``, ``does_r_affect_t``: a rule's post-condition is the *conjunction*
    ``list_to_binex AND`` of those constraints) never rejects a repeated variable:

    - ``unchanged(x)`` twice (or ``x' == x`` and ``unchanged(x)``) conjoins ``x' == x`` with
      itself: the same as once. tactl keeps one and warns.
    - ``x' == e`` and ``unchanged(x)`` conjoin ``x' == e && x' == x``: the rule can fire only in
      a configuration where ``x == e`` already holds, and then ``x`` keeps its value (never, for
      ``x' == x + 1``). tactl reads exactly that: the guard gets ``&& x == e`` and the update is
      ``unchanged(x)``; it warns, since the author most likely meant one or the other.

    The result re-prints as a rule with one update per variable, which re-reads to itself.
    """
    if not any(isinstance(a, Unchanged) for a in actions):
        return guard, tuple(actions)
    assigned: dict[str, Update] = {}
    for a in actions:
        if isinstance(a, Update):
            assigned.setdefault(a.var, a)  # a second assignment stays (the validator's error)
    listed: dict[str, Update] = {}
    conditions: list[Expr] = []
    kept: list[Update] = []
    dropped: set[int] = set()  # ids of assignments replaced by an unchanged(x)
    for a in actions:
        if not isinstance(a, Unchanged):
            continue
        u = a.update
        first = listed.get(u.var)
        if first is not None:
            at = f" (first at {first.span.line}:{first.span.col})" if first.span else ""
            warn(f"'{u.var}' is listed as unchanged again in rule {rule_id}{at}; ByMC reads a "
                  "rule's updates as one conjunction, so the repetition changes nothing and is "
                  "dropped", u.span)
            continue
        listed[u.var] = u
        other = assigned.get(u.var)
        if other is not None and id(other) not in dropped:
            dropped.add(id(other))
            if other.is_identity:
                warn(f"'{u.var}' is both listed as unchanged and assigned {u.var}' == "
                      f"{to_text(other.expr)} in rule {rule_id}: the same update, kept once", u.span)
            else:
                condition = Compare("==", Name(u.var, span=u.span), other.expr, span=u.span)
                conditions.append(condition)
                never = " (never, here)" if _never_equal(u.var, other.expr) else ""
                warn(f"'{u.var}' is both updated ({u.var}' == {to_text(other.expr)}) and listed as "
                      f"unchanged in rule {rule_id}; ByMC conjoins a rule's updates, so the rule "
                      f"fires only where {to_text(condition)} holds before the step{never}, and "
                      f"'{u.var}' keeps its value: tactl reads it so (the guard gets "
                      f"'&& {to_text(condition)}')", u.span)
        kept.append(u)
    changes = [a for a in actions if isinstance(a, Update) and id(a) not in dropped]
    new_guard = conj(guard, *conditions, span=guard.span) if conditions else guard
    return new_guard, tuple(changes + kept)


def _never_equal(var: str, e: Expr) -> bool:
    """True if ``var == e`` is false whatever the values (``e`` is ``var`` plus a non-zero
    constant), as far as the linear form of the text as written tells."""
    try:
        diff = linearize(e) - linearize(Name(var))
    except (NonLinearError, TypeError):
        return False
    return diff.is_constant and diff.const != 0


def sections() -> dict[str, list]:
    """An automaton's parts as a reader collects them, section by section (any order, repeated)."""
    return {k: [] for k in ("locals", "shared", "parameters", "unknowns", "define", "assumptions",
                            "locations", "inits", "rules", "properties")}


def automaton(name: str, parts: dict[str, list], declared_at: list[tuple[str, Span]],
              timing: str) -> ThresholdAutomaton:
    """The automaton of the collected :func:`sections`."""
    return ThresholdAutomaton(
        name=name, locals=tuple(parts["locals"]), shared=tuple(parts["shared"]),
        parameters=tuple(parts["parameters"]), unknowns=tuple(parts["unknowns"]),
        defines=tuple(parts["define"]), assumptions=tuple(parts["assumptions"]),
        locations=tuple(parts["locations"]), inits=tuple(parts["inits"]),
        rules=tuple(parts["rules"]), properties=tuple(parts["properties"]),
        timing=timing, declared_at=tuple(declared_at))
