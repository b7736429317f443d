"""The simulator reads a formula's truth along a run as runs of equal values, evaluating a
subformula only where a name it reads changes, and looks along a batch only at the comparisons
its rule can move (``tactl/engines/simulate.py``). Both must give exactly what evaluating every
subformula at every position gives: a replay decides whether a violation is reported."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tactl.engines.simulate import (Comparisons, Configuration, _changes_among, lasso_holds,
                                    samples_inside_batch)
from tactl.ir.evaluate import holds
from tactl.ir.expr import (Always, And, Compare, Eventually, IntConst, Name, Not, Or, conj, disj,
                           is_temporal)
from tactl.ir.ta.reader import read_ta

NAMES = ("a", "b", "c", "d")


def state(draw, depth: int = 2):
    if depth == 0 or draw(st.booleans()):
        op = draw(st.sampled_from(["<", "<=", "==", "!=", ">=", ">"]))
        return Compare(op, Name(draw(st.sampled_from(NAMES))), IntConst(draw(st.integers(0, 3))))
    kind = draw(st.sampled_from([conj, disj, Not]))
    if kind is Not:
        return Not(state(draw, depth - 1))
    return kind(*[state(draw, depth - 1) for _ in range(draw(st.integers(2, 4)))])


@st.composite
def formula(draw):
    def temporal(depth: int):
        pick = draw(st.integers(0, 3 if depth else 0))
        if pick == 0:
            return state(draw)
        if pick == 1:
            return Always(temporal(depth - 1))
        if pick == 2:
            return Eventually(temporal(depth - 1))
        return draw(st.sampled_from([conj, disj]))(temporal(depth - 1), temporal(depth - 1))
    return temporal(3)


def naive(formula, envs, start: int) -> bool:
    """Every subformula at every position (the reading of ``lasso_holds``'s docstring)."""
    size = len(envs)

    def values(e):
        if not is_temporal(e):
            return [holds(e, env) for env in envs]
        if isinstance(e, (And, Or)):
            parts = [values(a) for a in e.args]
            combine = all if isinstance(e, And) else any
            return [combine(p[i] for p in parts) for i in range(size)]
        inner = values(e.arg)
        combine = all if isinstance(e, Always) else any
        # from position i the lasso visits i..end, and again and again the loop start..end
        return [combine(inner[min(i, start):]) for i in range(size)]

    return values(formula)[0]


@settings(max_examples=300, deadline=None)
@given(formula(), st.lists(st.tuples(*(st.integers(0, 3) for _ in NAMES)), min_size=1, max_size=12),
       st.data())
def test_runs_agree_with_evaluating_everywhere(f, rows, data):
    envs = [dict(zip(NAMES, row)) for row in rows]
    start = data.draw(st.integers(0, len(envs) - 1))
    expected = naive(f, envs, start)
    assert lasso_holds(f, envs, True, start) == expected
    # told which names each step may move (here: all of them), the reading is the same
    assert lasso_holds(f, envs, True, start, _changes_among(envs, [set(NAMES)] * len(envs))) == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 40), st.integers(1, 40), st.integers(0, 5), st.integers(0, 30))
def test_a_batch_samples_what_every_comparison_would(start_x, factor, bound, start_b):
    ta = read_ta("skel B { shared x; parameters n; assumptions (1) { n >= 0; }\n"
                 "locations (3) { A: [0]; B: [1]; C: [2]; } inits (1) { x == 0; }\n"
                 "rules (1) { 0: A -> B when (true) do { x' == x + 1; }; }\n}", "b.ta").ta
    atoms = [Compare(">=", Name("x"), IntConst(bound)), Compare("<", Name("B"), IntConst(bound + 2)),
             Compare("==", Name("C"), IntConst(1)), Compare(">", Name("n"), IntConst(bound))]
    config = Configuration.of({"A": factor + 3, "B": start_b, "C": 1}, {"x": start_x})
    indexed = samples_inside_batch(ta, {"n": 4}, config, 0, factor, Comparisons.of(atoms))
    assert indexed == samples_inside_batch(ta, {"n": 4}, config, 0, factor, atoms)
    # only the comparisons over x and B can change along the batch
    assert [c for c in Comparisons.of(atoms).touching({"x", "A", "B"})] == atoms[:2]
