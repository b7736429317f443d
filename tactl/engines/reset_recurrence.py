"""The proof of ``ir/eltl/reset_recurrence.py`` for a liveness property of an automaton with resets:
its safety questions about the whole automaton, each answered by the chc engine.

``tactl/engines/reset_liveness.py`` tries it after the proof from the automaton without its
resets (``ir/eltl/reset_response.py``), which covers ``<>p`` only: here ``[](a -> <>p)`` and
``[]<>p`` too, and ``<>p`` where a reset can be enabled while ``p`` is false but the justice
keeps the run from going round for ever. Each HOLDS of the chc engine rests on an inductive
invariant it re-checks (``tactl/engines/chc_certificate.py``); the proof's HOLDS keeps all their
questions as its obligations, named after the question, so that ``--certify`` re-asks them of
cvc5 and ``emit --to smtlib`` writes them (``tactl/driver/emitters.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tactl.engines import chc
from tactl.engines.parametric import verdict_scope
from tactl.engines.result import HOLDS, Obligation, PropertyResult
from tactl.ir.eltl.formula import TemporalQuery
from tactl.ir.eltl.reset_recurrence import (Question, RecurrenceShape, cycle_left, idle_question, leaves_to_p,
                                            moving_rules, never_fires, owed_step, recurrence_shape,
                                            waiting_regions)
from tactl.ir.expr import to_text
from tactl.ir.ta.model import ThresholdAutomaton

ENGINE = chc.ENGINE
# The most questions one proof asks of Spacer: an automaton with many rules on cycles and many
# justice locations could otherwise ask for each pair of them; past this the proof gives up.
MAX_QUESTIONS = 100


class _TooMany(Exception):
    """The proof asked :data:`MAX_QUESTIONS` questions without finishing."""


@dataclass
class _Asked:
    """The chc engine's answers so far: a question is asked once however often the proof needs it."""

    ta: ThresholdAutomaton
    parameters: dict[str, int] | None
    answers: dict[str, PropertyResult] = field(default_factory=dict)
    used: list[tuple[Question, PropertyResult]] = field(default_factory=list)

    def holds(self, *questions: Question) -> bool:
        """Whether every one of ``questions`` holds (asked in order, until one does not); when they
        do, the proof rests on them."""
        for question in questions:
            if question.name not in self.answers:
                if len(self.answers) >= MAX_QUESTIONS:
                    raise _TooMany
                self.answers[question.name] = chc.check(self.ta, question.query, self.parameters)
            if self.answers[question.name].verdict != HOLDS:
                return False
        self.used.extend((q, self.answers[q.name]) for q in questions
                         if all(q.name != other.name for other, _ in self.used))
        return True

    def why_not(self, name: str) -> str:
        found = self.answers[name]
        return found.verdict + (f": {found.reason}" if found.reason else "")


def prove(ta: ThresholdAutomaton, query: TemporalQuery,
          parameters: dict[str, int] | None) -> tuple[PropertyResult | None, str]:
    """HOLDS by the argument of ``ir/eltl/reset_recurrence.py``, or (None, why not)."""
    shape = recurrence_shape(ta, query)
    if isinstance(shape, str):
        return None, shape
    asked = _Asked(ta, parameters)
    try:
        return _prove(ta, query, parameters, shape, asked)
    except _TooMany:
        return None, f"no proof after {MAX_QUESTIONS} safety questions about which rules can fire for ever"


def _prove(ta: ThresholdAutomaton, query: TemporalQuery, parameters: dict[str, int] | None,
           shape: RecurrenceShape, asked: _Asked) -> tuple[PropertyResult | None, str]:
    parts: list[str] = []
    idle = idle_question(ta, shape)
    if idle is not None:
        if not asked.holds(idle):
            return None, (f"a configuration where only self-loops that change nothing fire for ever, with "
                          f"`{to_text(shape.q)}` and the justice, was not shown unreachable "
                          f"({asked.why_not(idle.name)})")
        parts.append("(S) no run stays for ever where a self-loop that changes nothing is enabled, "
                     "p false and the justice met")
    moving = moving_rules(ta)
    if moving:
        together = never_fires(ta, shape, moving, "moving")
        if asked.holds(together):
            parts.append(f"(E1) no rule on a cycle ({_ids(ta, moving)}) is enabled while p is false")
        else:
            left = moving
            for index in moving:
                if index not in left:
                    continue
                why = _rule_excluded(ta, shape, index, asked)
                if why:
                    parts.append(why)
                    left = cycle_left(ta, tuple(i for i in left if i != index))
                    if not left:
                        break
            if left:
                return None, (f"rules {_ids(ta, left)} can fire for ever after {_anchor(shape)}: none of them "
                              f"was shown never enabled while `{to_text(shape.q)}` holds, nor to leave a "
                              "process of a justice pair owed its step"
                              + ("" if shape.pairs else " (the property has no justice)"))
            parts.append("every other cycle passes through one of these rules")
    if not parts:
        parts.append("no rule lies on a cycle, so no run is infinite")
    result = PropertyResult(query.property, query.kind, HOLDS, ENGINE, queries=sum(r.queries for _, r in asked.used),
                            scope=verdict_scope(ta, parameters),
                            reason=(f"from {_anchor(shape)} on, a violating run would fire a rule on a cycle for "
                                    "ever, and none can: " + "; ".join(parts) + " (each a safety question "
                                    "about the whole automaton, resets included, decided by the chc engine)"),
                            obligations=_obligations(asked.used))
    return result, ""


def _rule_excluded(ta: ThresholdAutomaton, shape: RecurrenceShape, index: int, asked: _Asked) -> str:
    """Why rule ``index`` does not fire for ever after the anchor, as a part of the reason; ""
    when that was not shown."""
    rule = ta.rules[index]
    name = f"rule {rule.id} ({rule.source}->{rule.target})"
    if asked.holds(never_fires(ta, shape, (index,), f"rule{rule.id}")):
        return f"(E1) {name} is never enabled while p is false"
    for region in waiting_regions(ta, shape):
        if asked.holds(owed_step(ta, shape, index, region), *leaves_to_p(ta, shape, region)):
            where = region[0] if len(region) == 1 else "{" + ", ".join(region) + "}"
            return (f"(E2) wherever {name} is enabled while p is false, a process in {where} is owed its "
                    f"step (the exit guards of its justice hold), and leaving {where} makes p true")
    return ""


def _anchor(shape: RecurrenceShape) -> str:
    if shape.anchor is None:
        return "the start"
    return "any position" if to_text(shape.anchor) == "true" else f"a position where `{to_text(shape.anchor)}` holds"


def _ids(ta: ThresholdAutomaton, indices: tuple[int, ...]) -> str:
    return ", ".join(str(ta.rules[i].id) for i in indices)


def _obligations(used: list[tuple[Question, PropertyResult]]) -> list[Obligation]:
    """Every question's invariant checks, labelled ``<question>.<check>`` (emitted file names)."""
    return [replace(o, label=f"{question.name}.{o.label}") for question, result in used for o in result.obligations]
