"""The parameterized counter system of a threshold automaton as z3 terms, for the CHC engine.

One state is a vector of integers: the parameters (constant along a run), one counter per
location and the shared variables. A rule fires for one process — the counter of its source
loses one, the counter of its target gains one — when its guard holds, and sets every shared
variable its ``do { … }`` block names to the value of the right-hand side in the state before
(so ``x' == 0``, a reset, is as welcome as ``x' == x + 1``); the simulator in
tactl/engines/simulate.py reads rules the same way, which is what lets it replay a run found here.

Parameters, counters and initial shared values are natural numbers; the resilience condition,
the ``inits``, the property's antecedent and any fixed ``--param`` values constrain the
initial state. One more component, :data:`PROCESSES`, holds the number of processes, which no
rule changes: with it, :attr:`CounterSystem.known` states what holds in every reachable state by
construction (counters and parameters are natural numbers, the counters add up to the number of
processes), which the Horn clauses assume so that the solver need not rediscover it.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.linear import to_z3
from tactl.ir.ta.model import ThresholdAutomaton

# The state component that counts processes (a name no declaration can take).
PROCESSES = "processes#"


@dataclass(frozen=True)
class Transition:
    """One rule: ``enabled`` over the current state, ``after`` the next state's terms."""

    rule: int
    enabled: z3.BoolRef
    after: tuple[z3.ArithRef, ...]


@dataclass(frozen=True)
class CounterSystem:
    names: tuple[str, ...]  # parameters, locations, shared variables, then PROCESSES
    state: tuple[z3.ArithRef, ...]  # one z3.Int per name, in that order
    initial: z3.BoolRef
    known: z3.BoolRef  # true in every reachable state, whatever the rules
    transitions: tuple[Transition, ...]
    bad: z3.BoolRef
    parameters: tuple[str, ...]
    locations: tuple[str, ...]
    shared: tuple[str, ...]
    # proved of every reachable state but not assumed of the initial ones (tactl/engines/chc_facts.py)
    facts: z3.BoolRef | None = None
    # a nested safety monitor's flags with the formula that sets each (tactl/engines/chc_monitor.py)
    monitor: tuple[tuple[z3.ArithRef, z3.BoolRef], ...] = ()

    @property
    def assumed(self) -> z3.BoolRef:
        """What the Horn clauses assume of every state: :attr:`known` and the proved facts."""
        return self.known if self.facts is None else z3.And(self.known, self.facts)

    def rename(self, formula: z3.ExprRef, other: tuple[z3.ArithRef, ...]) -> z3.ExprRef:
        """``formula`` over the state variables ``other`` instead of :attr:`state`."""
        return z3.substitute(formula, *zip(self.state, other))


def counter_system(ta: ThresholdAutomaton, question: ReachQuery, parameters: dict[str, int] | None,
                   ctx: z3.Context | None = None) -> CounterSystem:
    """The counter system of ``ta`` and the reachability ``question`` (macro-expanded formulas),
    its terms in the z3 context ``ctx`` (default: z3's main one)."""
    locations = tuple(loc.name for loc in ta.locations)
    names = (*ta.parameters, *locations, *ta.shared, PROCESSES)
    table = {n: z3.Int(n, ctx) for n in names}

    def sym(name: str) -> z3.ArithRef:
        if name not in table:
            raise ValueError(f"'{name}' is not a parameter, location or shared variable")
        return table[name]

    def term(e) -> z3.ExprRef:
        return to_z3(ta.expand(e), sym, ctx)

    counters = z3.Sum(*(table[n] for n in locations)) if locations else z3.IntVal(0, ctx)
    known = z3.And(*(table[n] >= 0 for n in (*ta.parameters, *locations)), counters == table[PROCESSES])
    initial = z3.And(*(table[n] >= 0 for n in names), known,
                     *(term(a) for a in ta.assumptions), *(term(e) for e in ta.inits),
                     to_z3(question.initial, sym, ctx),
                     *(table[p] == v for p, v in (parameters or {}).items()))
    transitions = []
    for index, rule in enumerate(ta.rules):
        nxt = dict(table)
        if not rule.is_self_loop:
            nxt[rule.source] = table[rule.source] - 1
            nxt[rule.target] = table[rule.target] + 1
        for u in rule.updates:
            nxt[u.var] = term(u.expr)
        transitions.append(Transition(index, z3.And(table[rule.source] >= 1, term(rule.guard)),
                                      tuple(nxt[n] for n in names)))
    return CounterSystem(names, tuple(table[n] for n in names), initial, known, tuple(transitions),
                         to_z3(question.bad, sym, ctx), tuple(ta.parameters), locations, tuple(ta.shared))
