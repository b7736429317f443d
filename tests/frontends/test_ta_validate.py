"""Semantic diagnostics: each with its exact position and wording."""

from __future__ import annotations

import pytest

from tactl.ir import InputError, read_ta
from tactl.ir.errors import Severity

BASE = """skel P {
  local pc;
  shared x, y;
  parameters N, T, F;
  define TH == T + 1;
  assumptions (1) { N > 3 * T; }
  locations (2) { a: [0]; b: [1]; }
  inits (1) { a == N - F; }
  rules (1) {
    0: a -> b when (x >= TH - F) do { x' == x + 1; };
  }
  specifications (1) { p: a == 0 -> [](b == 0); }
}
"""


def errors_of(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(InputError) as info:
        read_ta(text, "t.ta")
    return [(d.span.line, d.span.col, d.message) for d in info.value.diagnostics]


def test_base_is_clean():
    assert read_ta(BASE).warnings == []


@pytest.mark.parametrize("old, new, line, col, message", [
    ("0: a -> b when", "0: a -> c when", 10, 13, "unknown location 'c'"),
    ("0: a -> b when", "0: x -> b when", 10, 8, "'x' is a shared variable, not a location"),
    ("x >= TH - F)", "x >= N * T)", 10, 26, "non-linear term 'N * T'"),
    ("x >= TH - F)", "x >= a)", 10, 26, "the location 'a' cannot appear in a rule guard"),
    ("x >= TH - F)", "x >= z)", 10, 26, "unknown name 'z' in a rule guard"),
    ("x >= TH - F)", "xx >= TH - F)", 10, 21, "unknown name 'xx' in a rule guard; did you mean 'x'?"),
    ("do { x' == x + 1; }", "do { N' == N + 1; }", 10, 39, "only shared variables can be updated; 'N' is a parameter"),
    ("do { x' == x + 1; }", "do { x' == x + 1; x' == x; }", 10, 52, "'x' is updated twice in rule 0"),
    ("N > 3 * T;", "N > 3 * T + x;", 6, 33, "the shared variable 'x' cannot appear in the resilience condition"),
    ("N > 3 * T;", "[](N > 3 * T);", 6, 21, "temporal operator '[]' is only allowed in specifications"),
    ("a == N - F;", "a == N - G;", 8, 24, "unknown name 'G' in the initial constraints"),
    ("define TH == T + 1;", "define TH == TH + 1;", 5, 10, "macro defined in terms of itself: TH -> TH"),
    ("define TH == T + 1;", "define TH == T * N;", 5, 16, "non-linear term 'T * N'"),
    ("shared x, y;", "shared x, y, T;", 4, 17, "'T' is already declared as a shared variable at 3:16"),
    ("locations (2) { a: [0]; b: [1]; }", "locations (2) { a: [0]; b: [1]; x: [2]; }", 7, 35,
     "'x' is already declared as a shared variable at 3:10"),
    ("p: a == 0", "p: a == 0; p: b == 0", 12, 35, "property 'p' is already defined at 12:24"),
])
def test_errors_point_at_the_cause(old, new, line, col, message):
    assert old in BASE
    found = errors_of(BASE.replace(old, new, 1))
    assert any((line, col) == (l, c) and m.startswith(message) for l, c, m in found), found


def test_macro_hiding_a_location_counter_is_reported_where_it_is_used():
    text = BASE.replace("define TH == T + 1;", "define TH == a + 1;")
    assert errors_of(text) == [(10, 26, "macro 'TH' refers to the location 'a', which cannot appear in "
                                        "a rule guard (guards read shared variables and parameters)")]


def test_every_error_is_reported_not_just_the_first():
    text = BASE.replace("0: a -> b when (x >= TH - F)", "0: q -> r when (z >= TH - F)")
    assert [(l, c) for l, c, _ in errors_of(text)] == [(10, 8), (10, 13), (10, 21)]


@pytest.mark.parametrize("update, flagged", [
    ("x' == x + 1", False), ("x' == x", False), ("x' == x + 2", False), ("x' == x + TH - T", False),
    ("x' == x - 1", True), ("x' == 0", True), ("x' == y + 1", True), ("x' == x + N", True),
])
def test_non_monotone_updates_are_warnings_and_mark_the_automaton(update, flagged):
    result = read_ta(BASE.replace("x' == x + 1", update), "t.ta")
    warnings = [w for w in result.warnings if "monotone class" in w.message]
    assert bool(warnings) == flagged
    assert result.ta.is_monotone == (not flagged)
    if flagged:
        assert (warnings[0].severity, warnings[0].span.line, warnings[0].span.col) == (Severity.WARNING, 10, 39)


def test_duplicate_rule_ids_warn_and_keep_both():
    text = BASE.replace("  }\n  specifications", "    0: b -> a when (true) do { };\n  }\n  specifications")
    result = read_ta(text, "t.ta")
    assert len(result.ta.rules) == 2
    (w,) = result.warnings
    assert (w.span.line, w.span.col) == (11, 5)
    assert w.message == "rule id 0 is used again (line 10); both rules are kept and this one is rule #2 of the file"


def test_location_value_count_mismatch_is_a_warning():
    result = read_ta(BASE.replace("b: [1];", "b: [1; 2];"), "t.ta")
    assert [(w.span.line, w.message) for w in result.warnings] == [
        (7, "location 'b' lists 2 value(s) but 1 local variable(s) are declared")]


def test_products_with_synthesis_unknowns_are_accepted():
    text = BASE.replace("parameters N, T, F;", "parameters N, T, F;\n  unknowns k;").replace(
        "define TH == T + 1;", "define TH == k * T + 1;")
    assert read_ta(text).warnings == []
    assert errors_of(text.replace("k * T + 1", "N * T + 1"))[0][2].startswith("non-linear term 'N * T'")
