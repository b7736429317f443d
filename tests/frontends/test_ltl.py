"""Safety/liveness classification of specification formulas (decided on the negation normal form)."""

from __future__ import annotations

import pytest

from tactl.ir.expr import to_text
from tactl.ir.boolean import nnf
from tactl.ir.eltl.ltl import PropertyKind, classify
from test_ta_reader import formula

S, L = PropertyKind.SAFETY, PropertyKind.LIVENESS


@pytest.mark.parametrize("text, kind", [
    ("a == 0", S),                                  # a state formula: checked at the start
    ("[](b == 0)", S),
    ("a == 0 -> [](b == 0)", S),                    # ByMC's init -> [](good)
    ("a != 0 || [](b == 0 && c == 0)", S),
    ("[](a == 0) || [](b == 0)", S),
    ("!<>(b != 0)", S),                             # = [](b == 0)
    ("<>(b != 0)", L),
    ("!(a == 0 -> [](b == 0))", L),                 # = a == 0 && <>(b != 0)
    ("<>[](a == 0) -> <>(b != 0)", L),              # fairness -> progress
    ("[](a != 0 -> <>(b == 0))", L),
    ("<>[](a == 0) -> [](b == 0)", L),              # NNF []<>(a != 0) || [](b == 0): not safety
])
def test_classification(text, kind):
    assert classify(formula(text)) is kind


def test_nnf_pushes_negation_to_comparisons():
    assert to_text(nnf(formula("!(a == 0 -> [](b < 1 || !(c >= 2)))"))) == "a == 0 && <>(b >= 1 && c >= 2)"
