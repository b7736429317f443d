"""The round bound (``passes/ta_to_smt/guard_abstraction.py``, ``rounds_bound``) is the least
solution of its equations found by a worklist; the reference here recomputes every rule until
nothing changes (the definition in its docstring). Both must agree, cycles through guards
(None) included, on the corpus, ISOLA'18 when present, the chain family and random automata."""

from __future__ import annotations

import pytest

from tactl.bench.synthetic import chain_ta, promela_style_ta, scaled_ta
from tactl.ir.ta.reader import read_ta
from tactl.passes.ta_to_smt.guard_abstraction import _polarities, abstract_guards, rounds_bound
from tests.conftest import CORPUS, ISOLA18


def reference(ta, ab) -> int | None:
    active = ab.active
    positive = {i: _polarities(ab.guards[i])[0] for i in active}
    raises = {a: [i for i in active if sum(c * ab.increments[i].get(x, 0) for x, c in atom.coeffs) > 0]
              for a, atom in enumerate(ab.atoms)}
    before = {i: [k for k in active if ta.rules[k].target == ta.rules[i].source] for i in active}
    fire = dict.fromkeys(active, 0)
    while True:
        rise = {a: max((fire[i] for i in rs), default=0) for a, rs in raises.items()}
        new = {i: max([1 + rise[a] for a in positive[i]] + [fire[k] for k in before[i]] + [0]) for i in active}
        if new == fire:
            return 1 + max(fire.values(), default=0)
        if max(new.values()) > len(ab.atoms):
            return None
        fire = new


def texts():
    yield from ((p.name, p.read_text()) for p in sorted(CORPUS.glob("*/*.ta")))
    if ISOLA18.is_dir():
        yield from ((p.name, p.read_text()) for p in sorted(ISOLA18.glob("*.ta")))
    yield from ((f"chain{k}", chain_ta(k)) for k in (1, 2, 7, 40))
    yield from ((f"scaled{s}", scaled_ta(30, 60, seed=s)) for s in range(6))
    yield from ((f"promela{s}", promela_style_ta(25, 50, seed=s)) for s in range(6))


@pytest.mark.parametrize("name,text", list(texts()), ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
def test_worklist_finds_the_least_solution(name, text):
    ta = read_ta(text, name).ta
    ab = abstract_guards(ta)
    assert rounds_bound(ta, ab) == reference(ta, ab)


def test_both_outcomes_occur():
    """The comparison above covers a bound and a cycle through a guard (None)."""
    outcomes = {rounds_bound(ta, abstract_guards(ta)) is None
                for ta in (read_ta(t, n).ta for n, t in texts())}
    assert outcomes == {True, False}
