"""Issue 19 (front end): no wrong verdict from a user's own words in an ``.alg``.

Keywords are whole words; comparisons that a variable's domain decides are refused; built-in names
are reserved; decisions are irrevocable; hostile sizes and layouts get ``file:line:col``. Each
reproducer of ``shared/findings/trust-round3.md`` is inlined here (small strings) and, when the
shared findings are present, also walked row by row from its file.

Exit statuses: 0 all hold, 1 violated, 2 bad input, 3 unknown/unsupported, 4 internal error.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from conftest import CORPUS, REPO
from tactl.ir.alg_reader import _parser, parse_alg
from tactl.ir.errors import InputError
from tactl.passes.parse import parse_algorithm

FINDINGS = Path(REPO.parent / "shared" / "findings" / "trust-round3")

HEADER = """algorithm A
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
messages ECHO
"""


def write(tmp_path: Path, text: str, name: str = "x.alg") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def positioned(r, path: Path, line: int | None = None) -> re.Match:
    """A refusal with exit 2: ``path:line:col: message``, a source line and a caret, no traceback."""
    assert r.code == 2, (r.code, r.out, r.err)
    assert "Traceback" not in r.err and "internal error" not in r.err
    m = re.match(rf"{re.escape(str(path))}:(\d+):(\d+): \S", r.err)
    assert m, r.err
    assert "^" in r.err.splitlines()[2], r.err
    if line is not None:
        assert int(m.group(1)) == line, r.err
    return m


def verdicts(out: str) -> dict[str, str]:
    """``{property: HOLDS/VIOLATED/…}`` from ``tactl check``'s table."""
    return dict(re.findall(r"^\s+(\w+)\s+\w+\s+(HOLDS|VIOLATED|UNKNOWN|UNSUPPORTED)\b", out, re.M))


# ================================================================ 2. keywords are whole words

LEX_SENTVAR = HEADER + """variables
  v: {0, 1} = input
  sentECHO: bool = false
loop forever:
  sentECHO := true
  if v == 1:
    send ECHO to all
properties
  p1: initially (no v == 1) -> always (no sentECHO)
  p2: initially (no v == 1) -> always (count (sentECHO) == 0)
"""


def test_a_variable_named_like_sent_is_read_as_the_variable(cli, tmp_path):
    """`no sentECHO` was `no sent ECHO`: HOLDS about the messages, though every process sets the
    variable in its first step."""
    path = write(tmp_path, LEX_SENTVAR)
    r = cli("check", path)
    assert r.code == 1, r.out + r.err
    assert verdicts(r.out) == {"p1": "VIOLATED", "p2": "VIOLATED"}
    r = cli("check", path, "--engine", "explicit", "--param", "n=4", "--param", "t=1",
            "--param", "f=1")
    assert r.code == 1 and verdicts(r.out) == {"p1": "VIOLATED", "p2": "VIOLATED"}, r.out + r.err


def test_bottom_is_a_name(cli, tmp_path):
    path = write(tmp_path, HEADER + """variables
  v: {0, 1} = input
  st: {bottom, top} = top
loop forever:
  if v == 1:
    st := bottom
    send ECHO to all
properties
  p1: always (no st == bottom)
""")
    r = cli("check", path)
    assert r.code == 1 and verdicts(r.out) == {"p1": "VIOLATED"}, r.out + r.err


def _grammar_words() -> list[str]:
    """Every word a terminal of ir/alg.lark spells (keywords, multi-word quantifiers, ``bot``)."""
    words: set[str] = set()
    for terminal in _parser().terminals:
        words |= set(re.findall(r"[A-Za-z]{2,}", terminal.pattern.value))
    return sorted(words - {"Za", "az", "AZ"})


def test_the_grammar_words_are_found():
    words = _grammar_words()
    assert {"sent", "count", "always", "eventually", "implies", "bot", "exactly", "least",
            "send", "some", "no"} <= set(words)


@pytest.mark.parametrize("word", _grammar_words())
@pytest.mark.parametrize("suffix", ["X", "_1", "2"])
def test_no_keyword_matches_inside_a_name(word, suffix):
    """A name that starts with a keyword is one name, in code, assignments and properties."""
    name = word + suffix
    text = HEADER + f"""variables
  v: {{0, 1}} = input
  {name}: bool = false
loop forever:
  if v == 1 and not {name}:
    {name} := true
    send ECHO to all
properties
  p1: always (no {name})
  p2: always (count ({name}) == 0)
  p3: eventually (some ({name} and v == 1))
"""
    result = parse_algorithm(parse_alg(text, "k.alg"))
    names = {info.name for info in result.locations}
    setting = {info.name for info in result.locations if (name, "true") in info.values}
    assert setting, result.locations
    for p in result.rta.properties:
        # each property is about the locations where the variable is set, not about messages
        assert set(re.findall(r"\w+", str(p.formula))) & names == setting, (p.name, str(p.formula))


@pytest.mark.parametrize("word", _grammar_words())
def test_no_keyword_matches_inside_a_parameter_name(word):
    """Where a keyword and a name may both stand — a formula's start, a threshold after
    `from` — a parameter named ``exactlyK`` or ``countN`` is the parameter."""
    name = word + "K"
    text = f"""algorithm A
parameters n, t, f, {name}
resilience n > 3t, t >= f, f >= 0, {name} >= 0
faults byzantine(f)
messages ECHO
variables
  v: {{0, 1}} = input
  accept: bool = false
loop forever:
  if v == 1:
    send ECHO to all
  upon receiving ECHO from {name} processes:
    accept := true
properties
  p1: {name} == 0 -> always (no accept)
"""
    rta = parse_algorithm(parse_alg(text, "k.alg")).rta
    assert any(name in str(r.guard) for r in rta.rules), [str(r.guard) for r in rta.rules]
    assert name in str(rta.properties[0].formula)
