"""The explicit engine's parameter valuations (tactl/engines/explicit.py): enumerated with each
resilience-condition conjunct checked as soon as its parameters have values, they must be
exactly the valuations of the plain product that satisfy the RC, in the same order."""

from __future__ import annotations

import itertools

import pytest

from conftest import DATA, isola18_files, own_ta_files
from tactl.engines.explicit import parameter_instances
from tactl.ir import read_ta
from tactl.ir.evaluate import holds
from tactl.ir.ta.reader import read_ta_file


def _product(ta, fixed: dict[str, int], bound: int) -> list[dict[str, int]]:
    free = [p for p in ta.parameters if p not in fixed]
    rc = [ta.expand(a) for a in ta.assumptions]
    out = []
    for values in itertools.product(range(bound + 1), repeat=len(free)):
        params = {p: fixed.get(p, 0) for p in ta.parameters} | dict(zip(free, values))
        if all(holds(a, params) for a in rc):
            out.append(params)
    return out


# without synthesis unknowns, which have no value to evaluate the RC with (no engine runs them)
FILES = [p for p in own_ta_files() + sorted((DATA / "check").glob("*.ta")) + isola18_files()
         if not read_ta_file(p).ta.unknowns]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("bound", [0, 3, 5])
def test_pruned_enumeration_is_the_product_filtered(path, bound):
    ta = read_ta_file(path).ta
    for fixed in ({}, {ta.parameters[0]: 2} if ta.parameters else {}):
        got = parameter_instances(ta, fixed, bound)
        assert got == _product(ta, fixed, bound)
        assert [list(v) for v in got] == [list(ta.parameters)] * len(got)


def test_a_conjunct_over_late_parameters_prunes_only_there():
    ta = read_ta("""skel P { parameters a, b, c;
      assumptions (3) { c >= a + b; a >= 1; b <= a; }
      locations (1) { L: [0]; } inits (1) { L == a; } rules (0) { } }""", "p.ta").ta
    assert parameter_instances(ta, {}, 3) == _product(ta, {}, 3)
    assert parameter_instances(ta, {}, 3)[0] == {"a": 1, "b": 0, "c": 1}


def test_no_parameters():
    ta = read_ta("skel P { locations (1) { L: [0]; } inits (1) { L == 1; } rules (0) { } }", "p.ta").ta
    assert parameter_instances(ta, {}, 3) == [{}]
