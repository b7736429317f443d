"""Unknowns through the translation (passes/rta_to_ta/unknowns.py): the TA is the one ByMC's
synthesis files write (``unknowns a;``, ranges in ``assumptions``), it re-reads and is accepted
by the synthesis loop's candidate space — and the two readings agree: instantiating the unknowns
of the translated automaton gives the TA of the ``.alg`` whose unknowns were replaced by the same
numbers in its text, for several points of each corpus/synthesis file (compared with
tests/ta_equivalence.py on the locations both can reach, named by their meaning in the program).
"""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest
import z3

from conftest import CORPUS
from ta_equivalence import compare
from tactl.ir.alg.reader import parse_alg
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.ir.ta.printer import print_ta
from tactl.ir.ta.reader import read_ta
from tactl.passes.alg_to_rta.extract import parse_algorithm
from tactl.passes.rta_to_ta.certify import certify
from tactl.passes.rta_to_ta.eliminate import translate
from tactl.passes.ta_to_ta.instantiate import instantiate
from tactl.synth.space import candidate_space

SYNTHESIS = sorted((CORPUS / "synthesis").glob("*.alg"))
# points every file is checked at besides random ones: the answers the files' comments promise
KNOWN = {"strb-thresholds.alg": [dict(a1=0, b1=1, c1=1, a2=1, b2=-1, c2=0),
                                 dict(a1=0, b1=0, c1=0, a2=0, b2=0, c2=0)],
         "strb-resilience.alg": [dict(k=k) for k in range(6)],
         "bracha-ready.alg": [dict(a=1, b=1, c=2, d=1)],
         "frb-threshold.alg": [dict(a=0, c=1)]}
RANDOM_POINTS = 4


def parsed(text: str, path: str = "x.alg"):
    return parse_algorithm(parse_alg(text, path))


def meaning_names(result) -> dict[str, str]:
    """Location name → what it means in the program (the names depend on the other locations)."""
    return {info.name: f"{info.point}|{info.values}|{info.sent}" for info in result.locations}


def instantiated_text(text: str, values: dict[str, int]) -> str:
    """The .alg with each ``?x`` replaced by its number and the ``unknowns`` line removed."""
    text = re.sub(r"^unknowns .*\n", "", text, flags=re.M)
    return re.sub(r"\?([A-Za-z_]\w*)", lambda m: str(values[m.group(1)]) if values[m.group(1)] >= 0
                  else f"({values[m.group(1)]})", text)


def reachable(ta: ThresholdAutomaton) -> ThresholdAutomaton:
    """``ta`` without the rules whose guard the resilience condition makes false and without the
    locations no remaining rule reaches from an initial one (the extraction keeps a path for
    every candidate, so a single candidate may not need it)."""
    sym = int_symbols()
    solver = z3.Solver()
    solver.add(*(to_z3(e, sym) for e in ta.assumptions), *(sym(p) >= 0 for p in ta.parameters),
               *(sym(s) >= 0 for s in ta.shared))
    feasible = [replace(r, guard=ta.expand(r.guard)) for r in ta.rules
                if solver.check(to_z3(ta.expand(r.guard), sym)) != z3.unsat]
    seen = set(ta.initial_locations())
    grew = True
    while grew:
        grew = False
        for r in feasible:
            if r.source in seen and r.target not in seen:
                seen.add(r.target)
                grew = True
    return replace(ta, rules=tuple(r for r in feasible if r.source in seen), defines=())


def points(path, space) -> list[dict[str, int]]:
    rng = random.Random(path.name)
    out = [dict(p) for p in KNOWN.get(path.name, [])]
    for _ in range(RANDOM_POINTS):
        out.append({u: rng.randint(*space.bounds[u]) for u in space.unknowns})
    return out


@pytest.mark.parametrize("path", SYNTHESIS, ids=lambda p: p.name)
def test_translated_ta_is_a_synthesis_file(path):
    result = parsed(path.read_text(), str(path))
    translation = translate(result.rta)
    assert all(c.sound and c.precise for c in certify(result.rta, translation))
    text = print_ta(translation.ta)
    assert re.search(r"^  unknowns \w+(, \w+)*;$", text, flags=re.M)
    ta = read_ta(text, "x.ta").ta
    assert ta == translation.ta
    space = candidate_space(ta)
    assert space.bounds == {u.bare: (u.low, u.high) for u in result.rta.unknowns}


@pytest.mark.parametrize("path", SYNTHESIS, ids=lambda p: p.name)
def test_instantiating_after_translation_agrees_with_instantiating_the_pseudocode(path):
    text = path.read_text()
    result = parsed(text, str(path))
    ta = translate(result.rta).ta
    space = candidate_space(ta)
    for values in points(path, space):
        after = reachable(instantiate(ta, values))
        first = parsed(instantiated_text(text, values))
        before = reachable(translate(first.rta).ta)
        # a location's meaning quotes its line: with the unknowns replaced as in the text
        meanings = {name: instantiated_text(m, values) for name, m in meaning_names(result).items()}
        differences = compare(after, before, meanings, meaning_names(first))
        assert not differences, (values, [str(d) for d in differences])


def test_instantiated_text_replaces_negative_values_in_parentheses():
    text = "unknowns ?a in -2..2\nresilience n > ?a * t\n"
    assert instantiated_text(text, {"a": -2}) == "resilience n > (-2) * t\n"


def test_the_comparison_tells_different_thresholds_apart():
    """The oracle above is not vacuous: the automaton instantiated at one point differs from the
    pseudocode instantiated at another (relay at t + 1 against relay at t + 2)."""
    path = CORPUS / "synthesis" / "strb-thresholds.alg"
    text = path.read_text()
    result = parsed(text, str(path))
    ta = translate(result.rta).ta
    paper = dict(a1=0, b1=1, c1=1, a2=1, b2=-1, c2=0)
    after = reachable(instantiate(ta, paper))
    first = parsed(instantiated_text(text, {**paper, "c1": 2}))
    meanings = {name: instantiated_text(m, paper) for name, m in meaning_names(result).items()}
    # the same locations, whose meaning quotes the other threshold
    other = {name: m.replace("1 * t + 2", "1 * t + 1") for name, m in meaning_names(first).items()}
    assert set(meanings.values()) >= set(other.values())
    assert compare(after, reachable(translate(first.rta).ta), meanings, other)
