"""tactl/synth/space.py: the ranges of the unknowns, and the files the loop refuses, with the
position of what is wrong (exit 2, ``file:line:col: message`` and a caret)."""

from __future__ import annotations

import pytest

from conftest import assert_positioned_error
from synth_files import DATA, opodis17_files
from tactl.ir.ta.reader import read_ta_file
from tactl.synth.space import SynthesisInputError, candidate_space


def test_bounds_read_off_the_assumptions():
    space = candidate_space(read_ta_file(DATA / "strb_thresholds.ta").ta)
    assert space.bounds == {"r1": (0, 1), "r0": (0, 2), "a1": (0, 2), "a0": (-1, 1)}
    assert space.size() == 54
    assert len(space.constraints) == 8  # the ranges, not the resilience condition


@pytest.mark.skipif(not opodis17_files(), reason="the OPODIS'17 files are not fetched (make opodis17)")
def test_the_opodis17_example_space():
    path = next(p for p in opodis17_files() if p.name == "table1-2bcast-byz-ta-synt.ta")
    space = candidate_space(read_ta_file(path).ta)
    assert space.bounds == {"a1": (0, 1), "b1": (-4, 4), "c1": (-8, 8), "a2": (0, 1), "b2": (-4, 4), "c2": (-8, 8)}
    assert space.size() == 93_636


@pytest.mark.parametrize("name, message, line, col", [
    ("unbounded", "unknown a1 has no upper bound: add `a1 <= K;` to the assumptions", 6, 12),
    ("product", "'a1 * b1' multiplies unknowns (a1 and b1)", 8, 16),
    ("update", "unknown a1 in an update (x' == x + a1)", 30, 14),
    ("division", "unknown a1 under a division", 8, 17),
])
def test_refused_with_its_position(name, message, line, col, cli):
    path = DATA / "bad" / f"{name}.ta"
    loaded = read_ta_file(path)
    with pytest.raises(SynthesisInputError) as caught:
        candidate_space(loaded.ta, str(path), loaded.source)
    assert_positioned_error(caught.value, loaded.source, str(path))
    span = caught.value.first.span
    assert message in caught.value.first.message and (span.line, span.col) == (line, col)
    result = cli("synthesize", path)
    assert result.code == 2
    assert result.err.startswith(f"{path}:{line}:{col}: ") and "^" in result.err


def test_a_file_without_unknowns_is_a_usage_error(cli):
    result = cli("synthesize", DATA.parent.parent.parent / "corpus" / "strb" / "strb.ta")
    assert result.code == 2
    assert "has no unknowns to synthesise" in result.err
