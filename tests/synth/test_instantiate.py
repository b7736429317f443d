"""passes/ta_to_ta/instantiate.py: the unknowns get values everywhere, the ranges go, and the
result prints as a .ta that reads back equal."""

from __future__ import annotations

import itertools

import pytest

from synth_files import DATA, opodis17_files
from tactl.ir.expr import names
from tactl.ir.ta.printer import print_ta
from tactl.ir.ta.reader import read_ta, read_ta_file
from tactl.passes.ta_to_ta.instantiate import InstantiationError, instantiate


def _no_unknown_left(ta, unknowns) -> None:
    assert not ta.unknowns
    assert not {n.name for e in ta.expressions() for n in names(e)} & set(unknowns)


@pytest.mark.parametrize("values", [{"r1": 1, "r0": 1, "a1": 1, "a0": 0},
                                    {"r1": 0, "r0": 2, "a1": 2, "a0": -1}])
def test_round_trip_and_thresholds(values):
    ta = read_ta_file(DATA / "strb_thresholds.ta").ta
    inst = instantiate(ta, values)
    _no_unknown_left(inst, ta.unknowns)
    assert read_ta(print_ta(inst), "x.ta").ta == inst
    # the ranges of the unknowns are gone, the resilience condition stays
    assert len(inst.assumptions) == 3
    if values["r1"] == 1:
        assert "define RELAY == t + 1;" in print_ta(inst)
        assert "define ACCEPT == n - t;" in print_ta(inst)


def test_same_as_the_hand_written_automaton():
    """STRB's thresholds given back are STRB: the same verdict-relevant automaton as corpus/strb."""
    ta = read_ta_file(DATA / "strb_thresholds.ta").ta
    inst = instantiate(ta, {"r1": 1, "r0": 1, "a1": 1, "a0": 0})
    strb = read_ta_file(DATA.parent.parent.parent / "corpus" / "strb" / "strb.ta").ta
    assert inst.rules == strb.rules and inst.assumptions == strb.assumptions
    assert {d.name: d.expr for d in inst.defines} == {d.name: d.expr for d in strb.defines}


def test_resilience_unknown():
    ta = read_ta_file(DATA / "strb_resilience.ta").ta
    inst = instantiate(ta, {"k": 3})
    assert "n > 3 * t;" in print_ta(inst)
    assert read_ta(print_ta(inst), "x.ta").ta == inst


def test_values_must_name_the_unknowns():
    ta = read_ta_file(DATA / "strb_resilience.ta").ta
    with pytest.raises(InstantiationError, match="no value for unknown"):
        instantiate(ta, {})
    with pytest.raises(InstantiationError, match="not unknowns of the automaton: n"):
        instantiate(ta, {"k": 1, "n": 2})


@pytest.mark.skipif(not opodis17_files(), reason="the OPODIS'17 files are not fetched (make opodis17)")
@pytest.mark.parametrize("path", opodis17_files(), ids=lambda p: p.stem)
def test_opodis17_round_trip(path):
    ta = read_ta_file(path).ta
    for values in itertools.islice(itertools.product((-1, 0, 2), repeat=len(ta.unknowns)), 4):
        inst = instantiate(ta, dict(zip(ta.unknowns, values)))
        _no_unknown_left(inst, ta.unknowns)
        assert read_ta(print_ta(inst), path.name).ta == inst
