"""``<>p`` on an automaton with resets, for all parameters: two questions about its monotone part.

A rule that resets or decrements a shared variable takes the automaton outside the class whose
liveness the parametric engines decide (``ir/eltl/cycles.py``): along a run the guards can fall
back, so an infinite run need not settle. This module reduces one class of liveness properties
to questions about the automaton *without* those rules, which is monotone, so that the existing
engines (``tactl/engines/parametric.py``, ``tactl/engines/cycle_liveness.py``) answer them for
every parameter valuation.

**The class** (:func:`reset_split`): the negated specification is a conjunction of state
formulas ``I`` (the initial condition), justice antecedents ``<>[](J)`` and exactly one
``[](q)`` with ``q`` a state formula: the specification is ``I && <>[](J) && … -> <>p`` with
``q = !p`` (TACO's ``BVTerm: <>(locV0 == 0 && …)`` has neither ``I`` nor justice).

**The argument.** Let ``R`` be the rules with an update that is not an increment by a constant
``>= 0`` (resets, decrements) and ``M`` the automaton without them (same locations, variables,
parameters, resilience condition and initial configurations). Write ``en(R)`` for
``⋁_{r ∈ R} (κ[src(r)] >= 1 && guard(r))``. If

(A) ``M`` satisfies the specification (the same formula, the same justice), and
(B) no run of ``M`` from an initial configuration satisfying ``I`` reaches a configuration where
    ``en(R) && q`` holds (the reachability question ``I -> [](!(en(R) && q))`` on ``M``),

then the automaton satisfies it. Proof: take a run ``ρ`` of the automaton that violates it: it
starts where ``I`` holds, meets the justice, and ``q`` holds at every one of its configurations.
If ``ρ`` fires no rule of ``R``, every step of it is a step of ``M``: ``ρ`` is a run of ``M`` with
the same configurations, on which the formula (state formulas over the same counters and
variables, and the justice, whose per-process reading ``ir/eltl/justice.py`` depends only on
the configurations and on which rules the run fires) is evaluated alike, so it violates the
specification on ``M``, against (A). Otherwise let ``r ∈ R`` be the first such rule ``ρ`` fires,
at configuration ``c``: the prefix of ``ρ`` up to ``c`` fires rules of ``M`` only, so it is a run
of ``M`` from an ``I`` configuration, and at ``c`` the rule ``r`` is enabled and ``q`` holds
(``q`` holds all along ``ρ``): ``en(R) && q`` is reached, against (B). ∎

(B) asks more than the proof uses (that ``q`` held all along the prefix is dropped), which keeps
it a plain reachability question; (A) holds outright when ``M``'s rule graph has no cycle, self-
loops included: each process then takes finitely many steps, so ``M`` has no infinite run
(tactl adds no stuttering, ``ir/eltl/formula.py`` decision 1). Either question left undecided,
or answered with a violation, leaves the property undecided by this argument (a run of ``M``
reaching ``en(R) && q`` may still meet ``p`` after the reset): never a verdict of its own.

On TACO's ``rb-2x_reset.eta`` (``BVTerm``), ``M`` has no cycle (the resets are the only way back
to a round's start) and (B) holds because ``count >= N - F``, the guard of every reset, needs
every correct process to have passed the round's last step, where none is in a location ``p``
asks to be empty.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.eltl.cycles import cycle_structure
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.expr import Always, And, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Name, Not, conj, disj, is_temporal, to_text
from tactl.ir.ta.model import Property, ThresholdAutomaton


@dataclass(frozen=True)
class ResetSplit:
    """The two questions of the module docstring about ``monotone`` (the automaton without the
    rules ``resets``, indices into the original's rules)."""

    monotone: ThresholdAutomaton
    resets: tuple[int, ...]
    liveness: TemporalQuery   # (A): the specification itself, asked of ``monotone``
    safety: TemporalQuery     # (B): I -> [](!(en(R) && q)), asked of ``monotone``
    bad: Expr                 # en(R) && q, what (B) asks to be unreachable
    runs_forever: bool        # whether ``monotone`` has a cycle (else (A) holds: no infinite run)


def reset_rules(ta: ThresholdAutomaton) -> tuple[int, ...]:
    """Indices of the rules with an update that is not an increment by a constant ``>= 0``."""
    return tuple(i for i, rule in enumerate(ta.rules)
                 if (inc := ta.increments(rule)) is None or any(d < 0 for d in inc.values()))


def enabled(ta: ThresholdAutomaton, indices: tuple[int, ...]) -> Expr:
    """``en(R)`` for the rules ``indices``: some rule's source is occupied and its guard holds."""
    return disj(*(conj(*(e for e in (Compare(">=", Name(ta.rules[i].source), IntConst(1)),
                                     ta.expand(ta.rules[i].guard)) if e != BoolConst(True)))
                  for i in indices))


def reset_split(ta: ThresholdAutomaton, query: TemporalQuery) -> ResetSplit | str:
    """The questions (A) and (B) for ``query`` on ``ta``, or why ``query`` is outside the class."""
    resets = reset_rules(ta)
    if not resets:
        return "the automaton has no reset or decrement"
    if not query.infinite:
        return "not a liveness property"
    initial: list[Expr] = []
    boxes: list[Expr] = []
    for part in conjuncts(query.negation):
        if not is_temporal(part):
            initial.append(part)
        elif isinstance(part, Always) and not is_temporal(part.arg):
            boxes.append(part.arg)
        elif not (isinstance(part, Eventually) and isinstance(part.arg, Always) and part.arg.arg in query.justice):
            return (f"the negated specification has the part {to_text(part)}, and the argument covers "
                    "only `I && <>[](J) && ... -> <>p` (p, I and each J state formulas)")
    if len(boxes) != 1:
        return ("the argument covers only `I && <>[](J) && ... -> <>p` with one eventuality p; the "
                f"negated specification has {len(boxes)} parts of the form [](q)")
    keep = [r for i, r in enumerate(ta.rules) if i not in resets]
    monotone = replace(ta, rules=tuple(keep), properties=())
    bad = conj(enabled(ta, resets), boxes[0])
    formula = Always(Not(bad))
    if initial:
        formula = Implies(conj(*initial), formula)
    safety = temporal_query(monotone, Property(query.property, formula))
    if not isinstance(safety, TemporalQuery):  # pragma: no cover - built from state formulas only
        return safety.reason
    structure = cycle_structure(monotone)
    runs_forever = bool(structure.components) or any(r.is_self_loop for r in keep)
    return ResetSplit(monotone, resets, query, safety, bad, runs_forever)


def conjuncts(e: Expr) -> list[Expr]:
    """The top-level conjuncts of ``e`` (none for ``true``)."""
    if isinstance(e, And):
        return [x for a in e.args for x in conjuncts(a)]
    return [] if e == BoolConst(True) else [e]
