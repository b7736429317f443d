"""The file's steps with the receive counts of *static* counters kept, for the file's own fairness.

A static counter is sent by the initialisation only (``bcast-byz-init.pml``'s ``nsnt_init``), so
its receive count ranges over ``0..top`` for the whole run; the receive automaton eliminates it
(``explore.eliminate_static``: each condition becomes its satisfiable cases), which is exact for
the automaton's runs. The file's fairness (``ltl fairness``) need not promise its delivery
(``bcast-byz-init``'s ``in_transit`` speaks of echoes only), so a process may never receive it; the
file's reading must then know, per process, whether it has. Two forms are kept here:

* for the file's justice (``passes/rta_to_ta/file_fairness.py``): stay conditions with the static
  count eliminated by the disjunction over ``0..top`` — an over-approximation (a process may have
  any count there), built without a solver call, as the other stay conditions are;
* for the file's instance (``tactl/engines/file_fairness.py`` ``unfold``): every rule and stay
  with the static count left in its condition, so that a process's state carries it and a step
  that needs the message is taken only by a process that has it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.expr import BoolConst, Expr, IntConst, conj, disj, substitute
from tactl.ir.rta.model import received


@dataclass(frozen=True)
class StaticSteps:
    """The file's steps with the static counters' receive counts in their conditions."""

    counters: tuple[tuple[str, int], ...]  # static counter -> its largest receive count
    rules: tuple[tuple[str, str, Expr, tuple[str, ...]], ...]  # (source, target, condition, sends)
    stays: tuple[tuple[str, Expr], ...]  # location -> the condition of a step that changes nothing

    def to_json(self) -> dict:
        from tactl.ir.ta.json_form import expr_to_json  # lazy: only for the cache

        return {"counters": [list(c) for c in self.counters],
                "rules": [[s, t, expr_to_json(g), list(m)] for s, t, g, m in self.rules],
                "stays": [[k, expr_to_json(v)] for k, v in self.stays]}

    @staticmethod
    def from_json(doc: dict) -> StaticSteps:
        from tactl.ir.ta.json_form import expr_from_json  # lazy: only from the cache

        return StaticSteps(tuple((c, int(k)) for c, k in doc["counters"]),
                           tuple((s, t, expr_from_json(g), tuple(m)) for s, t, g, m in doc["rules"]),
                           tuple((k, expr_from_json(v)) for k, v in doc["stays"]))


def condition(conds: list[list[Expr]]) -> Expr:
    """A disjunction of conjunctions, ``true`` where one of them is empty."""
    return BoolConst(True) if any(not c for c in conds) else disj(*[conj(*c) for c in conds])


def without_static(cond: Expr, static: dict[str, int]) -> Expr:
    """``cond`` with each static counter's receive count eliminated over ``0..top`` (module
    docstring; an unsatisfiable case stays, harmless in a disjunction)."""
    for counter, top in static.items():
        name = received(counter).name
        cond = disj(*(substitute(cond, {name: IntConst(k)}) for k in range(top + 1)))
    return cond


def counted(rta, fairness) -> tuple[str, ...]:
    """The counts a process of the file's instance keeps: every message type of ``rta`` (a
    ``ReceiveTA``), then each static counter of ``fairness`` (a ``FileFairness``)."""
    static = tuple(c for c, _ in fairness.static.counters) if fairness.static is not None else ()
    return (*(m.name for m in rta.messages), *static)
