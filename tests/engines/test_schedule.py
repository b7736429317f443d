"""Ordering a steady segment's firing counts into an executable schedule, and SMT-LIB names."""

from __future__ import annotations

import pytest

from tactl.ir.expr import BoolConst, Compare, IntConst, Name
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.ta.reader import read_ta
from tactl.passes.emit.smtlib import symbol, term
from tactl.engines.schedule import order_steady
from tactl.engines.simulate import Configuration, replay

# One process in A; the counts fire A->B once, A->C once and C->A once. Firing A->B first (the
# naive greedy choice) strands the process in B; the only executable order is A->C, C->A, A->B.
TRAP = """
skel Trap {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (3) { A: [0]; B: [1]; C: [2]; }
  inits (4) { A == 1; B == 0; C == 0; x == 0; }
  rules (3) {
    0: A -> B when (true) do { x' == x + 1; };
    1: A -> C when (true) do { unchanged(x); };
    2: C -> A when (true) do { unchanged(x); };
  }
  specifications (1) { p: [](B == 0); }
}
"""


def test_order_avoids_stranding_the_only_process():
    ta = read_ta(TRAP, "trap.ta").ta
    steps = order_steady(ta, {"A": 1, "B": 0, "C": 0}, {0: 1, 1: 1, 2: 1})
    assert steps is not None
    assert [s.rule for s in steps] == [1, 2, 0]
    question = ReachQuery("p", BoolConst(True), Compare(">", Name("B"), IntConst(0)))
    init = Configuration.of({"A": 1, "B": 0, "C": 0}, {"x": 0})
    assert replay(ta, question, {"n": 1}, init, steps).ok


def test_order_refuses_counts_that_no_run_realises():
    ta = read_ta(TRAP, "trap.ta").ta
    # The cycle A -> C -> A with nobody in A or C: flow-balanced, but no process can go round.
    assert order_steady(ta, {"A": 0, "B": 0, "C": 0}, {1: 1, 2: 1}) is None


def test_smtlib_user_names_live_in_their_own_namespace():
    # quoting cannot rescue a builtin (|and| is and), so user names get the prefix p.
    assert symbol("N") == "p.N" and symbol("k3.loc0") == "k3.loc0"
    assert symbol("div") == "p.div" and symbol("and") == "p.and" and symbol("_") == "p._"
    assert symbol("k3.2x") == "k3.2x" and symbol("k3.a b") == "|k3.a b|"
    assert term(Compare("!=", Name("div"), IntConst(1))) == "(not (= p.div 1))"
    with pytest.raises(ValueError, match="no SMT-LIB symbol"):
        symbol("x|(assert false)|")
