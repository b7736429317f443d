"""``order_steady`` re-examines only what a step can change (tactl/engines/schedule.py): it must
choose exactly the steps of the plain greedy that re-checks the whole rest after every candidate
step (the reference below), on automata with cycles, self-loops and several rules per location,
and refuse exactly the counts that the plain greedy refuses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tactl.engines.schedule import _executable, order_steady
from tactl.engines.simulate import Step
from tactl.ir.ta.model import topological_rank
from tactl.ir.ta.reader import read_ta

LOCS = ["A", "B", "C", "D", "E"]


def reference(ta, counters, counts):
    """The greedy with a full executability check per candidate step."""
    remaining = {i: c for i, c in counts.items() if c > 0}
    kappa = dict(counters)
    rank = topological_rank(ta)
    if not _executable(ta, kappa, remaining):
        return None
    order = sorted(remaining, key=lambda i: (rank[ta.rules[i].source], not ta.rules[i].is_self_loop, i))
    steps: list[Step] = []
    while remaining:
        for i in order:
            rule = ta.rules[i]
            if i not in remaining or kappa[rule.source] < 1:
                continue
            largest = min(remaining[i], kappa[rule.source])
            for factor in dict.fromkeys((largest, 1)):
                k2, r2 = dict(kappa), dict(remaining)
                k2[rule.source] -= factor
                k2[rule.target] += factor
                r2[i] -= factor
                if not r2[i]:
                    del r2[i]
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
            return None
    return steps


@st.composite
def segment(draw):
    edges = draw(st.lists(st.tuples(st.sampled_from(LOCS), st.sampled_from(LOCS)), min_size=1, max_size=9))
    rules = "\n".join(f"    {i}: {a} -> {b} when (true) do {{ unchanged(x); }};" for i, (a, b) in enumerate(edges))
    text = ("skel S { shared x; parameters n; assumptions (1) { n >= 0; }\n"
            f"  locations ({len(LOCS)}) {{ {' '.join(f'{l}: [{j}];' for j, l in enumerate(LOCS))} }}\n"
            "  inits (1) { x == 0; }\n"
            f"  rules ({len(edges)}) {{\n{rules}\n  }}\n}}\n")
    ta = read_ta(text, "s.ta").ta
    counters = {l: draw(st.integers(0, 3)) for l in LOCS}
    if draw(st.booleans()):   # counts of a real run: mostly executable, with cycles gone round
        kappa, counts = dict(counters), {i: 0 for i in range(len(edges))}
        for i in draw(st.lists(st.integers(0, len(edges) - 1), max_size=14)):
            a, b = edges[i]
            if kappa[a] > 0:
                kappa[a] -= 1
                kappa[b] += 1
                counts[i] += 1
    else:                     # arbitrary counts: often not executable
        counts = {i: draw(st.integers(0, 3)) for i in range(len(edges))}
    return ta, counters, counts


@settings(max_examples=600, deadline=None)
@given(segment())
def test_incremental_greedy_takes_the_reference_steps(case):
    ta, counters, counts = case
    assert order_steady(ta, counters, counts) == reference(ta, counters, counts)


def test_a_source_emptied_early_is_refilled_before_its_last_rule():
    # A -> B twice with one process in A; B -> A brings it back: A must not be emptied for good
    # while A -> B still has a firing left (the backward search finds B occupied).
    text = ("skel R { shared x; parameters n; assumptions (1) { n >= 0; }\n"
            "  locations (2) { A: [0]; B: [1]; } inits (1) { x == 0; }\n"
            "  rules (2) { 0: A -> B when (true) do { unchanged(x); }; 1: B -> A when (true) do { unchanged(x); }; }\n}\n")
    ta = read_ta(text, "r.ta").ta
    steps = order_steady(ta, {"A": 1, "B": 0}, {0: 2, 1: 1})
    assert steps == [Step(0, 1), Step(1, 1), Step(0, 1)]
