"""The semantic order of ``synthesize --weakest`` (tactl/synth/order.py) on hand-made conditions
and thresholds whose order is known."""

from __future__ import annotations

from tactl.ir.ta.reader import parse_ta
from tactl.synth.order import resilience, threshold_terms, weakest

TEMPLATE = """
thresholdAutomaton T {{
  local pc;
  shared x;
  parameters n, t, f;
  unknowns {unknowns};
  define TH == {threshold};
  assumptions (0) {{
    {rc};
    t >= f;
    f >= 0;
    {ranges}
  }}
  locations (2) {{ A: [0]; B: [1]; }}
  inits (2) {{ A == n - f; B == 0; x == 0; }}
  rules (1) {{ 0: A -> B when (x >= TH - f) do {{ x' == x + 1; }}; }}
  specifications (1) {{ safe: [](B == 0); }}
}}
"""


def automaton(rc: str, threshold: str = "t + c", unknowns: str = "k, c",
              ranges: str = "2 <= k; k <= 5; 0 <= c; c <= 2;"):
    return parse_ta(TEMPLATE.format(rc=rc, threshold=threshold, unknowns=unknowns, ranges=ranges))


def test_a_smaller_factor_of_t_is_a_weaker_condition():
    ta = automaton("n > k * t")
    assert str(resilience(ta, {"k": 3, "c": 1})).count("3") >= 1
    result = weakest(ta, [{"k": 4, "c": 1}, {"k": 3, "c": 1}, {"k": 5, "c": 1}])
    assert result.chosen == (1,)  # n > 3t: every system n > 4t or n > 5t allows, and more
    assert result.classes == 3
    assert result.why == ""


def test_among_equal_conditions_the_least_threshold_wins():
    ta = automaton("n > k * t")
    result = weakest(ta, [{"k": 3, "c": 2}, {"k": 3, "c": 1}, {"k": 4, "c": 0}])
    assert result.chosen == (1,)  # k = 3 beats k = 4; then t + 1 <= t + 2 for every n, t


def test_equivalent_conditions_are_one_class():
    # 2n > 6t and 2n > 6t + 1 hold for the same integers (n > 3t): the thresholds decide
    ta = automaton("2 * n > k * t + c", threshold="t + 2 - c", ranges="5 <= k; k <= 6; 0 <= c; c <= 1;")
    result = weakest(ta, [{"k": 6, "c": 0}, {"k": 6, "c": 1}])
    assert result.classes == 1
    assert result.chosen == (1,)  # t + 1 below t + 2


def test_incomparable_conditions_are_all_reported():
    # n > 3t and n > 2t + 1: (n, t) = (3, 1) satisfies only the second, (1, 0) only the first
    ta = automaton("n > k * t + c", ranges="2 <= k; k <= 3; 0 <= c; c <= 1;", threshold="t + 1")
    result = weakest(ta, [{"k": 3, "c": 0}, {"k": 2, "c": 1}])
    assert result.chosen == (0, 1)
    assert "neither implies the other" in result.why


def test_incomparable_thresholds_are_all_reported():
    # t + 2 and n - 3t... : with the same condition, 2t and t + 3 cross at t = 3
    ta = automaton("n > 3 * t", threshold="k * t + c", ranges="1 <= k; k <= 2; 0 <= c; c <= 3;")
    result = weakest(ta, [{"k": 2, "c": 0}, {"k": 1, "c": 3}, {"k": 2, "c": 1}])
    assert result.chosen == (0, 1)  # 2t + 1 is above 2t; 2t and t + 3 cross
    assert "thresholds are incomparable" in result.why


def test_thresholds_are_the_defines_that_name_an_unknown():
    ta = automaton("n > k * t")
    assert list(threshold_terms(ta)) == ["TH"]
