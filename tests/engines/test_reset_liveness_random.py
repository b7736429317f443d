"""Seeded random automata with resets: the proof for all sizes of tactl/engines/reset_liveness.py
(ir/eltl/reset_response.py) never contradicts the explicit engine at small sizes, with and
without a justice antecedent, and a violation is the explicit engine's own lasso."""

from __future__ import annotations

import random

import pytest

from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.explicit_ltl import check_temporal
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.ta.reader import read_ta

GUARDS = ("true", "x >= 1", "x >= n", "x < 1", "y >= 1", "x >= n - 1", "y < 1", "x >= 2")
UPDATES = ("", "x' == x + 1;", "y' == y + 1;", "x' == 0;", "y' == 0;", "x' == 0; y' == 0;", "x' == x + 1; y' == 0;")
BOUND, STATES = 4, 50_000


def automaton(seed: int, justice: bool, shape: str = "<>p") -> str:
    """Three to five locations, a few random rules (at least one reset), sometimes a self-loop
    that updates nothing, and `<>p` for a random state formula p (``shape`` "[](a -> <>p)" or
    "[]<>p": that property, with a random state formula a); with ``justice``, the justice
    antecedent a translation would write (every exit taken when its guard stays true)."""
    rnd = random.Random(seed)
    locs = [f"L{i}" for i in range(rnd.randint(3, 5))]
    rules = [(rnd.choice(locs), rnd.choice(locs), rnd.choice(GUARDS), rnd.choice(UPDATES))
             for _ in range(rnd.randint(len(locs), len(locs) + 3))]
    if rnd.random() < 0.5:
        loop = rnd.choice(locs)
        rules.append((loop, loop, rnd.choice(GUARDS), ""))
    if not any("== 0" in u for *_, u in rules):
        rules[0] = (*rules[0][:3], "x' == 0;")
    p = rnd.choice([f"{rnd.choice(locs)} == 0", f"{rnd.choice(locs)} >= 1", "x >= 2", "y >= 1",
                    f"{rnd.choice(locs)} == 0 && {rnd.choice(locs)} == 0", f"{rnd.choice(locs)} == n"])
    spec = f"<>({p})"
    if shape == "[]<>p":
        spec = f"[]<>({p})"
    elif shape == "[](a -> <>p)":
        a = rnd.choice([f"{rnd.choice(locs)} >= 1", "x >= 1", "y >= 1", f"{rnd.choice(locs)} == 0", "x < 1"])
        spec = f"[](({a}) -> <>({p}))"
    clauses = [f"(!({' || '.join(gs)}) || {loc} == 0)" for loc in locs
               if (gs := [g for a, b, g, _ in rules if a == loc and b != loc])]
    if justice and clauses:
        spec = f"<>[]({' && '.join(clauses)}) -> {spec}"
    body = "\n".join(f"    {i}: {a} -> {b} when ({g}) do {{ {u} }};" for i, (a, b, g, u) in enumerate(rules))
    inits = " ".join(f"{loc} == {'n' if loc == 'L0' else '0'};" for loc in locs)
    return (f"skel R {{ shared x, y; parameters n; assumptions (1) {{ n >= 1; }}\n"
            f"  locations ({len(locs)}) {{ {' '.join(f'{loc}: [{i}];' for i, loc in enumerate(locs))} }}\n"
            f"  inits ({len(locs) + 2}) {{ {inits} x == 0; y == 0; }}\n"
            f"  rules ({len(rules)}) {{\n{body}\n  }}\n  specifications (1) {{ live: {spec}; }}\n}}")


@pytest.mark.parametrize("seed", range(12))
def test_the_proof_never_contradicts_the_explicit_engine(seed):
    for justice in (False, True):
        ta = read_ta(automaton(seed, justice), f"random{seed}.eta", extended=True).ta
        result = check_automaton(ta, "r.eta", CheckOptions(bound=BOUND, max_states=STATES)).results[0]
        small = check_temporal(ta, temporal_query(ta, ta.properties[0]), {}, bound=BOUND, max_states=STATES)
        assert result.verdict in ("holds", "violated", "unknown"), result.reason
        if result.verdict == "holds":
            assert small.verdict != "violated", (seed, justice, small.counterexample)
        if result.verdict == "violated":
            assert small.verdict == "violated" and result.counterexample.replayed
        if small.verdict == "violated":
            assert result.verdict == "violated", (seed, justice, result.reason)
