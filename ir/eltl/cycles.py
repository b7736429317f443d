"""Liveness of automata whose rule graph has cycles through several locations: the scope and why
a lasso is then still decidable.

``ir/eltl/formula.py`` (decision 1) reads an infinite run as ``π·σ_L^ω`` when every cycle of the
rule graph is a self-loop. An automaton where a process can go round (``AC -> SE -> AC``, a
failure detector that suspects and un-suspects) has runs whose loop passes through several
configurations. This module says when such an automaton is still decided, and how.

**Scope** (:func:`cycle_reason`): every update increments a shared variable by a constant ``>= 0``
(no resets), self-loops update nothing, and no rule whose ends lie in one strongly connected
component of the rule graph (a *cycle rule*) updates a shared variable.

**The argument.** Write ``C_1..C_k`` for the components with two or more locations.

(a) A rule on no cycle moves a process from one component (or acyclic location) to a later one
    in the condensation of the rule graph, so each process takes it at most once: finitely many
    increments happen on any run, and every infinite run has a suffix in which the shared
    variables, and with them every guard, are constant.
(b) A lasso ``π·λ^ω`` in that suffix returns to its configuration after ``λ``. A rule between two
    different components (or into or out of an acyclic location) moves processes downstream only,
    so the flow of ``λ`` balances only if it fires none: along the loop every acyclic location's
    counter and every component's total ``Σ_{ℓ∈C_i} κ[ℓ]`` are constant, and every step of ``λ``
    is a self-loop or a cycle rule that updates nothing.
(c) The negated specification is evaluated on the lasso by plain LTL semantics: unrolling the
    loop, every ``<>`` not under a ``[]`` (a cut point) is witnessed before the loop's first
    configuration ``c1``; a ``[]`` state formula (an invariant) holds at every loop
    configuration; a ``<>`` under a ``[]`` holds at *some* loop configuration. Every loop
    configuration has a step of ``λ`` after it, so it enables a self-loop or a cycle rule.
(d) The justice ``<>[](J)`` is read per process, which is what it means: "a process whose exit
    from ``ℓ`` stays enabled eventually takes it". Along ``λ`` the guards are constant by (a)
    and processes in one location are interchangeable, so letting the process that has waited
    longest in ``ℓ`` be the one that leaves whenever ``λ`` fires a rule out of ``ℓ`` (FIFO) moves
    every process out of ``ℓ`` in turn. A pair ``¬g ∨ ℓ == 0`` of ``J`` is thus met iff ``g`` is
    false on the loop, ``ℓ`` is empty at every loop configuration, or ``λ`` fires a rule out of
    ``ℓ``; ``J`` read literally (``ℓ`` empty at every loop configuration) would exclude the runs
    in which processes keep going round. ``ir/eltl/justice.py`` takes the pairs apart.

The parametric engine's query (``passes/ta_to_smt/cycle_loop.py``) asks for the prefix to ``c1``
as for any lasso and one configuration per ``<>`` under ``[]``, tied to ``c1`` by (b), each
satisfying (c), and the loop's firings meeting (d): a necessary condition of a violating lasso, so *unsat* proves the property; *sat*
proves nothing, and only an explicit lasso (``tactl/engines/explicit_ltl.py``), replayed, makes a
violation.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.ta.model import ThresholdAutomaton
from tactl.ir.ta.validate import strongly_connected


@dataclass(frozen=True)
class CycleStructure:
    """The components of the rule graph (self-loops ignored) with two or more locations."""

    components: tuple[frozenset[str], ...]

    def component_of(self, location: str) -> int | None:
        return next((i for i, c in enumerate(self.components) if location in c), None)

    @property
    def cyclic(self) -> frozenset[str]:
        """Locations on a cycle through several locations."""
        return frozenset().union(*self.components)

    def is_cycle_rule(self, ta: ThresholdAutomaton, index: int) -> bool:
        """Whether rule ``index`` joins two locations of one component (it can fire in a loop)."""
        rule = ta.rules[index]
        where = self.component_of(rule.source)
        return not rule.is_self_loop and where is not None and where == self.component_of(rule.target)

    def loop_rules(self, ta: ThresholdAutomaton) -> tuple[int, ...]:
        """The rules a lasso's loop may fire, by (b): self-loops and cycle rules that update
        nothing."""
        return tuple(i for i, rule in enumerate(ta.rules)
                     if (rule.is_self_loop or self.is_cycle_rule(ta, i)) and ta.increments(rule) == {})


def cycle_structure(ta: ThresholdAutomaton) -> CycleStructure:
    succ: dict[str, list[str]] = {loc.name: [] for loc in ta.locations}
    for rule in ta.rules:
        if not rule.is_self_loop and rule.target not in succ[rule.source]:
            succ[rule.source].append(rule.target)
    return CycleStructure(tuple(frozenset(c) for c in strongly_connected(succ) if len(c) > 1))


def has_several_location_cycles(ta: ThresholdAutomaton) -> bool:
    return bool(cycle_structure(ta).components)


def cycle_reason(ta: ThresholdAutomaton) -> str | None:
    """Why the argument of the module docstring does not cover ``ta``, or None."""
    for rule in ta.rules:
        increments = ta.increments(rule)
        if increments is None or any(d < 0 for d in increments.values()):
            return (f"rule {rule.id} has an update that is not an increment by a constant >= 0 "
                    "(a reset or a decrement), so shared variables need not settle on an infinite "
                    "run; tactl decides liveness of automata with cycles through several locations "
                    "only without such updates")
        if rule.is_self_loop and increments:
            return (f"self-loop rule {rule.id} updates shared variables, so an infinite run need "
                    "not settle in finitely many configurations; tactl decides liveness only for "
                    "automata whose self-loops update nothing")
    structure = cycle_structure(ta)
    for i, rule in enumerate(ta.rules):
        if structure.is_cycle_rule(ta, i) and ta.increments(rule):
            return (f"rule {rule.id} ({rule.source} -> {rule.target}) lies on a cycle through "
                    "several locations and updates shared variables, so a process can increment "
                    "them without end; tactl decides liveness of automata with such cycles only "
                    "when their rules update nothing")
    return None


def can_run_forever(ta: ThresholdAutomaton) -> bool:
    """Whether some rule could keep a run going: a self-loop or a cycle rule that updates
    nothing (else no infinite run exists: tactl adds no stuttering). With a reset or a
    decrement, what a cycle's rules add can be taken away again, so any cycle may repeat."""
    structure = cycle_structure(ta)
    if structure.loop_rules(ta):
        return True
    return bool(ta.non_monotone_updates()) and (bool(structure.components)
                                                or any(r.is_self_loop for r in ta.rules))
