"""Turning rule firing counts of a steady segment into an executable schedule.

Within one guard context processes move independently, so a multiset of firings is executable iff
the counters stay non-negative and every fired rule's source is reachable from an occupied
location through fired rules (Esparza 1997). Any first step of an executable multiset leaves an
executable rest, so a greedy choice that keeps that invariant never gets stuck. Rules are tried in
topological order of their source (self-loops before leaving) with the largest factor first, so acyclic automata get one
accelerated step per rule.
"""

from __future__ import annotations

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
    # the order rules are tried in never changes, so it is sorted once and filtered at each step
    order = sorted(remaining, key=lambda i: (rank[ta.rules[i].source], not ta.rules[i].is_self_loop, i))
    while remaining:
        for i in order:
            if i not in remaining:
                continue
            rule = ta.rules[i]
            if kappa[rule.source] < 1:
                continue
            largest = min(remaining[i], kappa[rule.source])
            for factor in dict.fromkeys((largest, 1)):
                k2, r2 = _after(ta, kappa, remaining, i, factor)
                if _executable(ta, k2, r2):
                    kappa, remaining = k2, r2
                    if steps and steps[-1].rule == i:
                        steps[-1] = Step(i, steps[-1].factor + factor)
                    else:
                        steps.append(Step(i, factor))
                    break
            else:
                continue
            break
        else:
            return None  # cannot happen when the invariant held; kept as a guard
    return steps


def _after(ta, kappa, remaining, i, factor):
    rule = ta.rules[i]
    k2 = dict(kappa)
    k2[rule.source] -= factor
    k2[rule.target] += factor
    r2 = dict(remaining)
    r2[i] -= factor
    if not r2[i]:
        del r2[i]
    return k2, r2


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
