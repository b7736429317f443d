"""Mutation fuzzing of the reader: whatever the text, the reader returns an automaton or raises
its own InputError with a position inside the text — never any other exception — and anything it
accepts survives the print/re-read round trip."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_positioned_error, isola18_files, own_ta_files
from tactl.ir import InputError, print_ta, read_ta

SEEDS = [p.read_text() for p in own_ta_files() + isola18_files()]

# Fragments that stress the lexer and the grammar's corners, plus arbitrary text.
TOKENS = ["", ";", ",", "{", "}", "(", ")", "[", "]", "[]", "<>", "->", "'", "==", "=", ":=", "!",
          "&&", "||", "*", "/", "%", "-", "(-)", "+", "0", "1", "-1", "999999999999999999999", "x",
          "N", "when", "do", "true", "false", "skel", "rules", "define", "unchanged(", "reset(",
          "/*", "*/", "//", "\n", "\t", "\x00", "é", "∀", "0: a -> b when (true) do { };",
          "N * T", "THRESH1", "locations { l: [0]; }"]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 40)))
        op = draw(st.sampled_from(["delete", "insert", "replace", "duplicate", "truncate"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            piece = draw(st.one_of(st.sampled_from(TOKENS), st.text(max_size=6)))
            text = text[:i] + piece + text[i:]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_reader_only_ever_raises_its_own_error(text):
    try:
        result = read_ta(text, "fuzz.ta")
    except InputError as e:
        assert_positioned_error(e, text, "fuzz.ta")
        return
    assert read_ta(print_ta(result.ta)).ta == result.ta
