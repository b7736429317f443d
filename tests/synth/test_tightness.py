"""Tightness (tactl/synth/tightness.py) on Srikanth-Toueg with its resilience condition unknown
(tests/data/synth/strb_resilience.ta: ``n > k * t`` with k in 1..4), whose solutions are k = 3
and 4: k = 3 cannot be weakened by one step (k = 2 lets relay fail at n = 3t), k = 4 can (k = 3
is a weaker solution)."""

from __future__ import annotations

import re

from synth_files import DATA
from tactl.ir.ta.reader import parse_ta
from tactl.synth.cegis import SynthesisOptions, synthesize
from tactl.synth.tightness import KILLED, SOLUTION, neighbours, tightness


STRB_K = DATA / "strb_resilience.ta"


def strb_k():
    return parse_ta(STRB_K.read_text())


def test_the_weakest_resilience_condition_cannot_be_weakened_by_one_step():
    ta = strb_k()
    result = synthesize(ta, SynthesisOptions())
    assert sorted(s.values["k"] for s in result.solutions) == [3, 4]
    by_k = {s.values["k"]: i for i, s in enumerate(result.solutions)}
    found = tightness(ta, result)
    below, above = sorted(found[by_k[3]], key=lambda n: n.value)
    assert (below.unknown, below.value, below.status, below.prop) == ("k", 2, KILLED, "relay")
    params = below.parameters
    assert params["n"] == 3 * params["t"]  # the run just outside: n = 3t
    assert below.region is not None and result.excluded[below.region].property == "relay"
    assert below.automaton is not None and not below.automaton.unknowns
    assert "n > 2 * t" in below.shows
    assert (above.value, above.status, above.weaker) == (4, SOLUTION, False)
    # k = 4: its neighbour k = 3 is a weaker solution
    assert any(n.value == 3 and n.status == SOLUTION and n.weaker for n in found[by_k[4]])


def test_a_neighbour_no_region_covers_is_checked_on_its_own():
    ta = strb_k()
    result = synthesize(ta, SynthesisOptions())
    result.excluded.clear()  # as if the search had stopped before reaching k = 2
    index = next(i for i, s in enumerate(result.solutions) if s.values["k"] == 3)
    killed = [n for n in tightness(ta, result, [index])[index] if n.status == KILLED]
    assert [(n.value, n.region) for n in killed] == [(2, None)]
    assert killed[0].counterexample is not None and killed[0].counterexample.replayed


def test_neighbours_stay_inside_the_space():
    result = synthesize(strb_k(), SynthesisOptions())
    assert [other["k"] for _, other in neighbours(result.space, {"k": 4})] == [3]
    assert [other["k"] for _, other in neighbours(result.space, {"k": 1})] == [2]


def test_the_text_says_it_cannot_be_weakened(cli):
    out = cli("synthesize", STRB_K, "--weakest")
    assert out.code == 0, out.err
    assert "1 of 2 solutions is weakest" in out.out
    block = out.out.split("cannot be weakened by one step:")[1]
    assert re.search(r"k = 2 \(resilience n > 2 \* t.*\): relay violated with n=\d+, t=\d+", block)
