"""Response properties on an automaton with resets: which rules a violating run fires for ever.

``ir/eltl/reset_response.py`` proves ``<>p`` from the automaton without its reset rules; it says
nothing about ``[](a -> <>p)`` or ``[]<>p``, where the run is violated only from some later
position on, after resets may have fired, and its (B) fails whenever a reset can be enabled
while ``p`` is still false, even where the justice forbids the run from going round for ever
(``tests/data/resets/toggle.eta``). This module reduces those properties to *safety* questions
about the whole automaton, resets included, which the chc engine decides for every parameter
valuation (``tactl/engines/chc.py``; ``tactl/engines/reset_recurrence.py`` asks them).

**The class** (:func:`recurrence_shape`): the negated specification is a conjunction of state
formulas ``I``, justice antecedents ``<>[](J)`` and exactly one of

* ``[](q)`` — the specification ``I && <>[](J) && … -> <>p`` (the *anchor* is position 0);
* ``<>(a && [](q))`` — ``… -> [](a -> <>p)`` (the anchor is a position where ``a`` holds);
* ``<>[](q)`` — ``… -> []<>p`` (the anchor is any position, ``a`` is ``true``),

with ``a`` and ``q = !p`` state formulas.

**The questions.** "After the anchor, ``X`` is unreachable" is the safety property
``I -> [](a && q -> [](!X))`` for an anchor ``a``: no run from an ``I`` configuration reaches a
configuration in ``X`` at or after a position where ``a && q`` holds. For the anchor at position
0, and for ``a = true``, it is ``I -> [](!X)`` (every ``X`` below implies ``q``, so for ``a =
true`` that is the same; at position 0 it asks a little more, that no run from ``I`` reaches
``X`` at all, and keeps the question a plain invariant).
Write ``en(t)`` for "the source of rule ``t`` is occupied and its guard holds", ``q[t]`` for
``q`` evaluated after firing ``t`` (the source's counter one less, the target's one more, the
shared variables updated), and call a rule *on a cycle* when its target leads back to its
source in the rule graph (self-loops included), *idle* when it is a self-loop that changes no
variable, *moving* otherwise. The property holds if, after the anchor,

(S) ``q && J && en(idle)`` is unreachable (``J`` the conjunction of the justice formulas, read
    literally; ``true`` without justice), and
(E) every cycle of the rule graph made of moving rules (a moving self-loop is one) has a rule
    ``t`` *excluded*, that is, with
    (E1) ``q && en(t)`` unreachable, or
    (E2) for some set ``L`` of locations of justice pairs (clauses ``!g || ℓ == 0``,
         ``ir/eltl/justice.py``) whose rules inside ``L`` form no cycle, writing ``g_ℓ`` for
         the disjunction of the ``g`` of ``ℓ``'s pairs: ``q && en(t) && !(Σ_{ℓ∈L} ℓ >= 1 &&
         ⋀_{ℓ∈L} g_ℓ)`` unreachable and, for every rule ``e`` from ``L`` to a location outside
         it, ``q && en(e) && q[e]`` unreachable (most often ``L`` is one location).

**Proof.** Take a violating run ``ρ`` (infinite: tactl adds no stuttering, ``ir/eltl/formula.py``
decision 1). It starts where ``I`` holds, meets the justice, and at some anchor position ``k``
``a`` holds and from ``k`` on ``q`` holds at every configuration; every configuration from ``k``
on is therefore in the reach of the questions above. Let ``T`` be the rules ``ρ`` fires
infinitely often after ``k``; ``T`` is not empty. A rule not on a cycle is fired at most once by
each process (after it, the process never returns to its source), and a run has finitely many
processes, so ``T`` holds only rules on a cycle.

* If ``T`` holds idle rules only, then from some position on only idle rules fire and the
  configuration ``c`` stays the same for ever; an idle rule fires there, so it is enabled, and
  ``q`` holds. Every process stays where it is for ever, so the justice, read per process, asks
  of each pair ``(ℓ, g)`` with ``ℓ`` occupied at ``c`` that ``g`` be false at ``c``, and of every
  other clause of ``J`` that it hold at ``c``: ``J`` holds at ``c``, against (S).
* Otherwise some moving rule ``u`` is in ``T``, and some process ``π`` fires it infinitely
  often. From some position on ``π`` fires only rules it fires infinitely often, and after each
  firing of ``u`` it comes back to ``u``'s source by such rules: they contain a cycle through
  ``u`` made of moving rules (a cycle through several locations has no self-loop; a moving
  self-loop is a cycle of its own). By (E) a rule ``t`` of that cycle is excluded, and it is in
  ``T``. (E1) contradicts that: ``t`` fires at a configuration after ``k`` where ``q`` holds and
  ``t`` is enabled. With (E2): let ``m >= k`` be a position where ``t`` fires: a location of
  ``L`` is occupied there. No rule ``e`` from ``L`` to outside it fires at a position
  ``j >= m``: ``q`` and ``en(e)`` hold at ``j``, so by (E2) ``q[e]`` is false there, which is
  ``q`` false at ``j + 1``, against ``q`` from ``k`` on. So a process in ``L`` at ``m`` stays in
  ``L`` for ever; inside ``L`` it moves finitely often (its rules there form no cycle), so from
  some point on it stays in one location ``ℓ`` of ``L``. At each of the infinitely many later
  positions where ``t`` fires ``g_ℓ`` holds, so the ``g`` of one of ``ℓ``'s pairs holds
  infinitely often. The justice of that process for that pair, ``<>[](!g || it is not in ℓ)``
  (the per-process reading of ``ir/eltl/justice.py``, which keeps the formula's own clause for a
  process that never leaves), asks ``g`` false from some point on: ``ρ`` does not meet it. ∎

Each question is asked of the whole automaton, so a reset's effect is part of it; no bound on
the sizes is involved. A question left undecided, or answered with a reachable configuration,
leaves the property undecided by this argument (a run reaching ``X`` need not violate it):
never a verdict of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.eltl.cycles import cycle_structure
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.eltl.justice import JusticePair, exits, fair_reading
from tactl.ir.eltl.reset_response import conjuncts, enabled, reset_rules
from tactl.ir.expr import (Always, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Name, Not, add, conj,
                           disj, is_temporal, sub, substitute, summation, to_text)
from tactl.ir.ta.model import Property, ThresholdAutomaton
from tactl.ir.ta.validate import strongly_connected


@dataclass(frozen=True)
class RecurrenceShape:
    """The negated specification taken apart (module docstring): ``initial`` (``I``), the
    ``anchor`` state formula ``a`` (None: the anchor is position 0), ``q``, the literal
    justice ``justice`` (``J``, ``true`` without) and its per-process ``pairs``."""

    initial: Expr
    anchor: Expr | None
    q: Expr
    justice: Expr
    pairs: tuple[JusticePair, ...]


@dataclass(frozen=True)
class Question:
    """"After the anchor, ``bad`` is unreachable", as a safety property of the whole automaton;
    ``name`` says which of (S), (E1), (E2) it is and for which rule (file names, reasons)."""

    name: str
    bad: Expr
    query: TemporalQuery


def recurrence_shape(ta: ThresholdAutomaton, query: TemporalQuery) -> RecurrenceShape | str:
    """``query``'s negation taken apart, or why it is outside the class."""
    if not reset_rules(ta):
        return "the automaton has no reset or decrement"
    if not query.infinite:
        return "not a liveness property"
    initial: list[Expr] = []
    found: list[tuple[Expr | None, Expr]] = []  # (anchor, q)
    for part in conjuncts(query.negation):
        if not is_temporal(part):
            initial.append(part)
        elif isinstance(part, Always) and not is_temporal(part.arg):
            found.append((None, part.arg))
        elif isinstance(part, Eventually) and isinstance(part.arg, Always) and part.arg.arg in query.justice:
            continue
        elif isinstance(part, Eventually) and (anchored := _anchored(part.arg)) is not None:
            found.append(anchored)
        else:
            return (f"the negated specification has the part {to_text(part)}, and the argument covers "
                    "`I && <>[](J) && ... -> <>p`, `... -> [](a -> <>p)` and `... -> []<>p` (a, p, I and "
                    "each J state formulas)")
    if len(found) != 1:
        return (f"the argument covers one eventuality p; the negated specification has {len(found)} "
                "parts of the form [](q), <>(a && [](q)) or <>[](q)")
    anchor, q = found[0]
    reading = fair_reading(ta, query.negation, query.justice)
    return RecurrenceShape(conj(*initial), anchor, q, conj(*query.justice), reading.pairs)


def after_anchor(ta: ThresholdAutomaton, shape: RecurrenceShape, name: str, bad: Expr) -> Question:
    """The safety property "after the anchor, ``bad`` is unreachable" (module docstring)."""
    never = Always(Not(bad))
    if shape.anchor is None or shape.anchor == BoolConst(True):
        formula: Expr = never if shape.initial == BoolConst(True) else Implies(shape.initial, never)
    else:
        formula = Always(Implies(conj(shape.anchor, shape.q), never))
        if shape.initial != BoolConst(True):
            formula = Implies(shape.initial, formula)
    query = temporal_query(ta, Property(name, formula))
    if not isinstance(query, TemporalQuery):  # pragma: no cover - built from state formulas only
        raise ValueError(query.reason)
    return Question(name, bad, query)


def idle_rules(ta: ThresholdAutomaton) -> tuple[int, ...]:
    """Self-loops that change no variable: a run firing only them stays where it is."""
    return tuple(i for i, r in enumerate(ta.rules) if r.is_self_loop and all(u.is_identity for u in r.updates))


def moving_rules(ta: ThresholdAutomaton) -> tuple[int, ...]:
    """The rules on a cycle (self-loops included) that are not idle: those a run may fire
    infinitely often while its configuration changes."""
    structure = cycle_structure(ta)
    idle = set(idle_rules(ta))
    return tuple(i for i, r in enumerate(ta.rules)
                 if i not in idle and (r.is_self_loop or structure.is_cycle_rule(ta, i)))


def cycle_left(ta: ThresholdAutomaton, rules: tuple[int, ...]) -> tuple[int, ...]:
    """The rules among ``rules`` on a cycle of the graph they form (self-loops included); empty
    when (E) holds of the rest."""
    succ: dict[str, list[str]] = {loc.name: [] for loc in ta.locations}
    for i in rules:
        succ[ta.rules[i].source].append(ta.rules[i].target)
    component = {loc: n for n, c in enumerate(strongly_connected(succ)) for loc in c}
    return tuple(i for i in rules if component[ta.rules[i].source] == component[ta.rules[i].target])


def idle_question(ta: ThresholdAutomaton, shape: RecurrenceShape) -> Question | None:
    """(S), or None when the automaton has no idle rule."""
    idle = idle_rules(ta)
    if not idle:
        return None
    return after_anchor(ta, shape, "idle", conj(shape.q, shape.justice, enabled(ta, idle)))


def never_fires(ta: ThresholdAutomaton, shape: RecurrenceShape, rules: tuple[int, ...], name: str) -> Question:
    """(E1) for ``rules`` together: none of them is enabled after the anchor while ``q`` holds."""
    return after_anchor(ta, shape, name, conj(shape.q, enabled(ta, rules)))


def waiting_regions(ta: ThresholdAutomaton, shape: RecurrenceShape) -> list[tuple[str, ...]]:
    """The sets ``L`` of locations of justice pairs (E2) tries, smallest first: each location
    alone, then each location with the pair locations it leads to through pair locations, as long
    as the rules inside the set form no cycle (a process then moves inside it finitely often)."""
    owed = dict.fromkeys(p.location for p in shape.pairs)
    regions: list[tuple[str, ...]] = [(loc,) for loc in owed]
    for start in owed:
        region = [start]
        for loc in region:
            region.extend(r.target for i in exits(ta, loc)
                          if (r := ta.rules[i]).target in owed and r.target not in region)
        inside = tuple(i for i, r in enumerate(ta.rules)
                       if r.source in region and r.target in region and not r.is_self_loop)
        found = tuple(sorted(region, key=list(owed).index))
        if len(region) > 1 and not cycle_left(ta, inside) and found not in regions:
            regions.append(found)
    return regions


def owed_step(ta: ThresholdAutomaton, shape: RecurrenceShape, rule: int, region: tuple[str, ...]) -> Question:
    """(E2)'s first half: wherever ``rule`` is enabled after the anchor with ``q``, some location of
    ``region`` is occupied and, at each of them, the exit guard of one of its pairs holds."""
    guards = [disj(*(Not(p.waived) for p in shape.pairs if p.location == loc)) for loc in region]
    occupied = Compare(">=", summation(Name(region[0]), (("+", Name(loc)) for loc in region[1:])), IntConst(1))
    return after_anchor(ta, shape, f"rule{ta.rules[rule].id}-{'-'.join(region)}",
                        conj(shape.q, enabled(ta, (rule,)), Not(conj(occupied, *guards))))


def leaves_to_p(ta: ThresholdAutomaton, shape: RecurrenceShape, region: tuple[str, ...]) -> list[Question]:
    """(E2)'s second half: every rule out of ``region`` fired after the anchor makes ``p`` true."""
    return [after_anchor(ta, shape, f"exit{ta.rules[e].id}",
                         conj(shape.q, enabled(ta, (e,)), after_rule(ta, e, shape.q)))
            for loc in region for e in exits(ta, loc) if ta.rules[e].target not in region]


def after_rule(ta: ThresholdAutomaton, index: int, e: Expr) -> Expr:
    """``e`` evaluated after firing rule ``index``, as a formula over the configuration before."""
    rule = ta.rules[index]
    mapping: dict[str, Expr] = {u.var: ta.expand(u.expr) for u in rule.updates if not u.is_identity}
    if not rule.is_self_loop:
        mapping[rule.source] = sub(Name(rule.source), IntConst(1))
        mapping[rule.target] = add(Name(rule.target), IntConst(1))
    return substitute(ta.expand(e), mapping)


def _anchored(e: Expr) -> tuple[Expr | None, Expr] | None:
    """``(a, q)`` for ``a && [](q)`` or ``[](q)`` (``a`` true), state formulas; else None."""
    parts = conjuncts(e)
    boxes = [p for p in parts if isinstance(p, Always) and not is_temporal(p.arg)]
    rest = [p for p in parts if p not in boxes]
    if len(boxes) != 1 or any(is_temporal(p) for p in rest):
        return None
    return conj(*rest), boxes[0].arg  # type: ignore[attr-defined]

