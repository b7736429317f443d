"""``ThresholdAutomaton.expand`` expands each expression once (a check asks for the same guards,
resilience condition and inits for every property and side question) and answers exactly as
expanding afresh would."""

from __future__ import annotations

from tactl.ir import read_ta
from tactl.ir.expr import substitute

TEXT = """skel M {
  local pc;
  shared x;
  parameters N, T, F;
  define HALF == N - T;
  define MORE == HALF + 1;
  assumptions (1) { N > 3 * T; }
  locations (2) { a: [0]; b: [1]; }
  inits (3) { a == N - F; b == 0; x == 0; }
  rules (1) { 0: a -> b when (x >= MORE) do { x' == x + 1; }; }
  specifications (1) { p: a == 0 -> [](b == 0); }
}
"""


def test_an_expression_is_expanded_once_and_as_substitution_would():
    ta = read_ta(TEXT, "m.ta").ta
    guard = ta.rules[0].guard
    first = ta.expand(guard)
    assert first == substitute(guard, ta.macro_bodies)
    assert ta.expand(guard) is first


def test_a_kept_answer_for_another_object_with_the_same_id_is_not_used():
    ta = read_ta(TEXT, "m.ta").ta
    guard, other = ta.rules[0].guard, ta.inits[0]
    ta._expanded[id(guard)] = (other, other)  # what a freed expression of the same id left
    assert ta.expand(guard) == substitute(guard, ta.macro_bodies) != other


def test_an_automaton_without_defines_returns_the_expression_itself():
    plain = "".join(line for line in TEXT.splitlines(keepends=True) if "define" not in line)
    ta = read_ta(plain.replace("MORE", "N - T + 1"), "m.ta").ta
    assert not ta.defines
    assert ta.expand(ta.rules[0].guard) is ta.rules[0].guard
