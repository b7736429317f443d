"""Turning rule firing counts of a steady segment into an executable schedule.

Within one guard context processes move independently, so a multiset of firings is executable iff
the counters stay non-negative and every fired rule's source is reachable from an occupied
location through fired rules (Esparza 1997). Any first step of an executable multiset leaves an
executable rest, so a greedy choice that keeps that invariant never gets stuck. Rules are tried in
topological order of their source (self-loops before leaving) with the largest factor first, so acyclic automata get one
accelerated step per rule.

The greedy keeps its work per step independent of the automaton's size: the final counters of
the remaining firings never change (a step only moves firings from "remaining" to "done"), so
only reachability is re-examined after a step, and only where the step can have broken it (see
:func:`_stays_executable`); the rules that may go next wait in a heap keyed by their position in
the fixed order, so the first one that works is found without scanning the rules already done.
"""

from __future__ import annotations

import heapq
from collections import defaultdict

from tactl.engines.simulate import Step
from tactl.ir.ta.model import ThresholdAutomaton, topological_rank


def order_steady(ta: ThresholdAutomaton, counters: dict[str, int],
                 counts: dict[int, int]) -> list[Step] | None:
    """An executable order of ``counts`` (rule index → firings) from ``counters``, or None."""
    remaining = {i: c for i, c in counts.items() if c > 0}
    kappa = dict(counters)
    rank = topological_rank(ta)
    steps: list[Step] = []
    if not _executable(ta, kappa, remaining):
        return None
    # the order rules are tried in never changes, so it is sorted once; at each step the first rule
    # in that order whose source holds a process and whose firing keeps the rest executable goes
    order = sorted(remaining, key=lambda i: (rank[ta.rules[i].source], not ta.rules[i].is_self_loop, i))
    graph = _Remaining(ta, remaining)
    by_source: dict[str, list[int]] = defaultdict(list)   # positions in ``order``, per source
    for p, i in enumerate(order):
        by_source[ta.rules[i].source].append(p)
    waiting = [p for p, i in enumerate(order) if kappa[ta.rules[i].source] >= 1]
    queued = set(waiting)  # every remaining rule whose source holds a process is in ``waiting``
    while remaining:
        refused: list[int] = []   # tried at this step and refused: candidates again after it
        while waiting:
            p = heapq.heappop(waiting)
            queued.discard(p)
            i = order[p]
            rule = ta.rules[i]
            if i not in remaining or kappa[rule.source] < 1:
                continue  # done, or queued again when its source fills up
            largest = min(remaining[i], kappa[rule.source])
            factor = next((f for f in dict.fromkeys((largest, 1))
                           if _stays_executable(ta, kappa, remaining, graph, i, f)), None)
            if factor is None:
                refused.append(p)
                continue
            was_empty = kappa[rule.target] == 0
            kappa[rule.source] -= factor
            kappa[rule.target] += factor
            remaining[i] -= factor
            if not remaining[i]:
                del remaining[i]
                graph.drop(i)
            if steps and steps[-1].rule == i:
                steps[-1] = Step(i, steps[-1].factor + factor)
            else:
                steps.append(Step(i, factor))
            again = refused + [p] + (by_source[rule.target] if was_empty else [])
            for q in again:
                if q not in queued and order[q] in remaining:
                    queued.add(q)
                    heapq.heappush(waiting, q)
            break
        else:
            return None  # cannot happen when the invariant held; kept as a guard
    return steps


class _Remaining:
    """The graph of the remaining firings: per location, how many remaining rules leave it, and
    the remaining rules that enter it (self-loops neither leave nor enter)."""

    def __init__(self, ta: ThresholdAutomaton, remaining: dict[int, int]) -> None:
        self.ta = ta
        self.leaving: dict[str, int] = defaultdict(int)
        self.entering: dict[str, set[int]] = defaultdict(set)
        for i in remaining:
            rule = ta.rules[i]
            self.leaving[rule.source] += 1
            if not rule.is_self_loop:
                self.entering[rule.target].add(i)

    def drop(self, i: int) -> None:
        rule = self.ta.rules[i]
        self.leaving[rule.source] -= 1
        self.entering[rule.target].discard(i)


def _stays_executable(ta: ThresholdAutomaton, kappa: dict[str, int], remaining: dict[int, int],
                      graph: _Remaining, i: int, factor: int) -> bool:
    """Whether firing rule ``i`` ``factor`` times from ``kappa`` leaves an executable rest, given
    that ``kappa`` with ``remaining`` is executable (:func:`_executable`).

    The final counters are those of before. Reachability: the step's target is occupied after it,
    so whatever the fired rule's edge reached is reached from there; if the source stays occupied
    nothing else changed. If the source empties, whatever was reached only through it is reached
    again exactly when the source itself is: that matters only while a remaining rule leaves it,
    and is then a backward search from the source to an occupied location."""
    rule = ta.rules[i]
    source, target = rule.source, rule.target
    if source == target or kappa[source] > factor:
        return True
    leaving = graph.leaving[source] - (1 if remaining[i] == factor else 0)
    if leaving == 0:
        return True
    seen, stack = {source}, [source]
    while stack:
        here = stack.pop()
        for j in graph.entering[here]:
            before = ta.rules[j].source
            if before in seen:
                continue
            if before == target or (before != source and kappa[before] > 0):
                return True
            seen.add(before)
            stack.append(before)
    return False


def _executable(ta: ThresholdAutomaton, kappa: dict[str, int], remaining: dict[int, int]) -> bool:
    """Counters end non-negative and every remaining rule's source is reachable (see module doc)."""
    final = dict(kappa)
    for i, c in remaining.items():
        final[ta.rules[i].source] -= c
        final[ta.rules[i].target] += c
    if any(v < 0 for v in final.values()):
        return False
    succ: dict[str, set[str]] = defaultdict(set)
    for i in remaining:
        succ[ta.rules[i].source].add(ta.rules[i].target)
    seen = {loc for loc, v in kappa.items() if v > 0}
    stack = list(seen)
    while stack:
        for nxt in succ[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return all(ta.rules[i].source in seen for i in remaining)
