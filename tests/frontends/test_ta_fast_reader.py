"""The hand-written .ta reader (ir/ta/fast_reader.py) against lark's (ir/ta/grammar.py): whatever
text the hand-written one reads, lark reads to the same automaton, spans and warnings included;
whatever it declines, ``read_ta`` still answers with lark's reading or lark's error message.

Files: every .ta file of this repository, and the ByMC benchmarks when present (TACTL_SHARED).
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from conftest import REPO, SHARED_BENCHMARKS
from tactl.ir.errors import InputError, Span
from tactl.ir.ta.build import reader_warnings
from tactl.ir.ta.fast_reader import Declined, read_plain_ta
from tactl.ir.ta.grammar import parser, run_parser
from tactl.ir.ta.reader import read_ta

FILES = sorted((REPO / "corpus").rglob("*.ta")) + sorted((REPO / "tests" / "data").rglob("*.ta"))
SHARED = sorted(SHARED_BENCHMARKS.rglob("*.ta")) if SHARED_BENCHMARKS.is_dir() else []


def exact(value):
    """``value`` with every field, the spans that equality ignores included."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *((f.name, exact(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, (tuple, list)):
        return tuple(exact(v) for v in value)
    return value


def _collecting(read, text: str):
    """``read(text)`` and the warnings it gave, or the exception it raised."""
    warnings: list = []
    token = reader_warnings.set(warnings)
    try:
        return read(text), [exact(w) for w in warnings]
    except (Declined, InputError) as e:
        return e, None
    finally:
        reader_warnings.reset(token)


def both(text: str):
    fast = _collecting(read_plain_ta, text)
    slow = _collecting(lambda t: run_parser(parser(None), t, "<input>"), text)
    return fast, slow


def agree(text: str) -> str:
    """'read' when both readers built the same automaton, 'declined' when the hand-written one
    declined; fails when it read a text that lark reads otherwise or refuses."""
    (fast, fast_warnings), (slow, slow_warnings) = both(text)
    if isinstance(fast, Declined):
        return "declined"
    assert not isinstance(slow, InputError), f"read a text lark refuses: {slow}"
    assert exact(fast) == exact(slow)
    assert fast_warnings == slow_warnings
    return "read"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_file_of_ours_reads_to_lark_s_automaton(path: Path):
    outcome = agree(path.read_text(encoding="utf-8"))
    if path.name != "unsupported.ta":  # a property named 'reset': a keyword where a name is
        assert outcome == "read"


@pytest.mark.skipif(not SHARED, reason=f"shared benchmarks not found at {SHARED_BENCHMARKS} (set TACTL_SHARED)")
def test_every_shared_benchmark_reads_to_lark_s_automaton():
    outcomes = [agree(p.read_text(encoding="utf-8")) for p in SHARED]
    assert outcomes.count("read") >= len(outcomes) * 9 // 10


SPELLINGS = """thresholdAutomaton T {
  local pc; shared x, y; parameters n, t, f; unknowns u;
  timing async;
  define H = (n + t) / 2;
  assume (1) { n > 3 * t; t >= f; }
  locations { a: []; b: [ -1 ; 2; ]; c: [0]; }
  inits { a == n - f; (b + c) == 0; x == 0; y == 0; }
  rules (3) {
    0: a -> b when (x >= H - f && !(y < 1) || true) do { x' := x + 1, unchanged(y) };
    1: b -> c when ((-)x + 2 * y > (-)1) do { x' = x && y' == y + (-)(1) }
    2: c -> c when (1) do { unchanged(x, y); };
  }
  specifications (2) {
    p: [](a == 0 -> <>(c != 0)) -> (x <= y);
    q = <>[](b == 0) -> [](c == 0 || b >= 1 && a < 2);
  }
}
"""


def test_every_spelling_of_the_grammar_reads_to_lark_s_automaton():
    assert agree(SPELLINGS) == "read"


def test_unchanged_twice_and_assigned_warns_as_lark_does():
    text = SPELLINGS.replace("unchanged(x, y);", "unchanged(x, x); x' == x + 1;")
    assert agree(text) == "read"
    (_, warnings), _ = both(text)
    assert len(warnings) == 2  # the repeated unchanged(x), and x both assigned and unchanged


@pytest.mark.parametrize("change", [
    ("when (1)", "when (%)"),                  # syntax
    ("c: [0];", "c: [0]"),                     # a missing ';'
    ("define H", "/* define H"),               # an unterminated comment
    ("(n + t) / 2", "(n + t) % 2"),           # '%': an error lark words
    ("x' := x + 1", "x' := (x > 1)"),          # a formula where a term belongs
])
def test_what_it_declines_lark_words(change):
    text = SPELLINGS.replace(*change)
    assert agree(text) == "declined"
    with pytest.raises(InputError) as caught:
        read_ta(text, "t.ta")
    assert caught.value.render().startswith("t.ta:")


def test_a_keyword_as_a_name_is_left_to_lark_s_contextual_lexer():
    text = SPELLINGS.replace("q = <>", "reset = <>")
    assert agree(text) == "declined"
    assert [p.name for p in read_ta(text).ta.properties] == ["p", "reset"]


def test_a_mutated_file_is_read_as_lark_reads_it_or_declined():
    """Random edits of a corpus file (characters dropped, operators and keywords inserted, text
    repeated): never an automaton lark would not build."""
    base = (REPO / "corpus" / "strb" / "strb.ta").read_text(encoding="utf-8")
    pieces = list("(){}[];,:='!<>-+*/%&|\n 01x") + [
        "[]", "<>", "->", "&&", "||", "==", "!=", ":=", "true", "when", "do", "unchanged(", "(-)",
        "/*", "*/", "//", "x'"]
    rnd = random.Random(35)
    outcomes = set()
    for _ in range(300):
        text = base
        for _ in range(rnd.randint(1, 3)):
            i = rnd.randrange(len(text))
            kind = rnd.random()
            if kind < 0.3:
                text = text[:i] + text[i + 1:]
            elif kind < 0.7:
                text = text[:i] + rnd.choice(pieces) + text[i:]
            else:
                j = rnd.randrange(len(text))
                text = text[:i] + text[j:j + rnd.randint(1, 8)] + text[i:]
        outcomes.add(agree(text))
    assert outcomes == {"read", "declined"}


def test_positions_are_lark_s():
    ta = read_plain_ta("skel P {\n  local pc;\n  locations { a: [0]; }\n  rules { 0: a -> a when (true) do { }; }\n}")
    rule = ta.rules[0]
    assert (rule.span, rule.source_span, rule.guard.span) == (Span(4, 11, 4, 12), Span(4, 14, 4, 15), Span(4, 27, 4, 31))



def test_a_formula_nested_as_deep_as_the_validator_admits_is_read_without_lark():
    """Generated files nest a hundred parentheses and more (ISOLA'18's c1cs_case1.ta)."""
    deep = "(" * 190 + "x >= 1" + ")" * 190
    text = SPELLINGS.replace("q = <>[](b == 0)", f"q = <>[]{deep}")
    assert agree(text) == "read"
