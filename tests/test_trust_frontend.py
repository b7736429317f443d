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


# ======================================================= 1. comparisons a domain decides

PROP_TYPE = HEADER + """variables
  v: {0, 1} = input
  accept: bool = false
loop forever:
  if v == 1:
    accept := true
    send ECHO to all
properties
  never_accept: always (no accept == 1)
  never_v2: always (all (v == 0 or v == 1 or v == 2))
  decided_typo: always (no v == true)
"""


def test_out_of_domain_comparisons_in_properties_are_refused(cli, tmp_path):
    """They made the properties HOLD (vacuously); each is reported, at its position."""
    path = write(tmp_path, PROP_TYPE)
    for extra in ([], ["--engine", "explicit", "--param", "n=4", "--param", "t=1",
                       "--param", "f=1"]):
        r = cli("check", path, *extra)
        positioned(r, path, line=14)
        assert "'accept == 1' can never be true: 'accept' ranges over {false, true}" in r.err
        assert re.search(r":15:\d+: 'v == 2' can never be true", r.err), r.err
        assert re.search(r":16:\d+: 'v == true' can never be true", r.err), r.err
        assert "HOLDS" not in r.out


def _with(body: str, props: str = "  p: always (no accept)\n",
          variables: str = "  v: {0, 1} = input\n  accept: bool = false\n") -> str:
    return HEADER + "variables\n" + variables + "loop forever:\n" + body + "properties\n" + props


@pytest.mark.parametrize("label, text, where, message", [
    ("some delivered == 3", _with("  if v == 1:\n    d := v\n    send ECHO to all\n",
                                  "  p: always not (some d == 3)\n",
                                  "  v: {0, 1} = input\n  d: {0, 1, ⊥} = ⊥\n"),
     "d == 3", "'d == 3' can never be true: 'd' ranges over {0, 1, ⊥}"),
    ("no v != ⊥", _with("  if v == 1:\n    send ECHO to all\n", "  p: always (no v != ⊥)\n"),
     "v != ⊥", "'v != ⊥' is always true"),
    ("initially", _with("  if v == 1:\n    send ECHO to all\n",
                        "  p: initially (all v == 7) -> always (no accept)\n"),
     "v == 7", "'v == 7' can never be true"),
    ("count", _with("  if v == 1:\n    send ECHO to all\n",
                    "  p: initially (count (v == 2) > t) -> always (no accept)\n"),
     "v == 2", "'v == 2' can never be true"),
    ("if", _with("  if v == 2:\n    send ECHO to all\n"), "v == 2", "'v == 2' can never be true"),
    ("upon", _with("  upon accept == 1:\n    send ECHO to all\n"), "accept == 1",
     "'accept == 1' can never be true"),
    ("wait until", HEADER + "variables\n  v: {0, 1} = input\nwait until v != true\n"
     "send ECHO to all\nproperties\n  p: always (no v == 1)\n", "v != true",
     "'v != true' is always true"),
    ("two variables", _with("  if v == w:\n    send ECHO to all\n",
                            variables="  v: {0, 1} = input\n  w: {yes, no} = yes\n"
                                      "  accept: bool = false\n"),
     "v == w", "'v == w' can never be true: 'v' ranges over {0, 1}; 'w' ranges over {yes, no}"),
    ("a value of another domain", _with("  if v == yes:\n    send ECHO to all\n",
                                        variables="  v: {0, 1} = input\n  w: {yes, no} = yes\n"
                                                  "  accept: bool = false\n"),
     "v == yes", "'v == yes' can never be true"),
    ("decided", HEADER.replace("messages ECHO", "messages (R, {0, 1})") + "variables\n"
     "  v: {0, 1} = input\nround:\n  send (R, v) to all\n  decide v\nproperties\n"
     "  agreement: always not (some decided == 0 and some decided == 2)\n", "decided == 2",
     "'decided == 2' can never be true: 'decided' ranges over {⊥, 0, 1}"),
    ("received payload", HEADER.replace("messages ECHO", "messages (R, {0, 1})") + "variables\n"
     "  v: {0, 1} = input\n  accept: bool = false\nloop forever:\n  send (R, v) to all\n"
     "  upon received (R, 2) from t + 1 processes:\n    accept := true\nproperties\n"
     "  p: always (no accept)\n", "(R, 2)", "no declared message (R, …) has the value '2'"),
])
def test_out_of_domain_comparisons_are_refused_everywhere(cli, tmp_path, label, text, where,
                                                           message):
    path = write(tmp_path, text)
    r = cli("parse", path)
    line = next(i for i, x in enumerate(text.splitlines(), 1) if where in x)
    positioned(r, path, line=line)
    assert message in r.err, (label, r.err)


def test_comparisons_the_domain_allows_are_kept(cli, tmp_path):
    """The check refuses only what the domain decides: ⊥ of an optional value, the decided
    value of a placeholder, a Boolean against true/false."""
    path = write(tmp_path, _with("  if v == 1 and accept != true:\n    send ECHO to all\n",
                                 "  p: always (no accept == true and no v != 0)\n"))
    assert cli("parse", path).code == 0


# ================================================================ 4. built-in names reserved

CRASHED_VAR = """algorithm CrashVar
parameters n, t, f
resilience n > t, t >= f, f >= 0
faults crash(f)
messages ECHO
variables
  v: {0, 1} = input
  crashed: bool = false
loop forever:
  if v == 1:
    send ECHO to all
  upon receiving ECHO from 1 process:
    crashed := true
properties
  p: f == 0 -> always (no crashed)
"""


def test_a_variable_named_crashed_is_refused(cli, tmp_path):
    """It was kept in the locations, but `no crashed` meant the built-in: p HOLDS although
    processes set the variable."""
    path = write(tmp_path, CRASHED_VAR)
    for command in (["check", path], ["check", path, "--engine", "explicit", "--param", "n=2",
                                      "--param", "t=1", "--param", "f=0"]):
        r = cli(*command)
        positioned(r, path, line=8)
        assert "'crashed' is reserved" in r.err and "HOLDS" not in r.out


@pytest.mark.parametrize("name", ["decided", "done", "crashed", "bot", "coin", "true", "false"])
@pytest.mark.parametrize("where", ["variable", "parameter", "placeholder"])
def test_built_in_names_are_refused_as_user_names(cli, tmp_path, name, where):
    variables = "  v: {0, 1} = input\n  accept: bool = false\n"
    params = "n, t, f"
    body = "  upon received (R, w) from t + 1 processes for some w:\n    accept := true\n"
    if where == "variable":
        variables += f"  {name}: bool = false\n"
    elif where == "parameter":
        params += f", {name}"
    else:
        body = body.replace("w", name)
    text = (HEADER.replace("n, t, f", params).replace("messages ECHO", "messages (R, {0, 1})")
            + "variables\n" + variables + "loop forever:\n  send (R, v) to all\n" + body
            + "properties\n  p: always (no accept)\n")
    path = write(tmp_path, text)
    r = cli("parse", path)
    marker = {"variable": f"  {name}:", "parameter": "parameters", "placeholder": "for some"}[where]
    line = next(i for i, x in enumerate(text.splitlines(), 1) if x.startswith(marker)
                or marker == "for some" and marker in x)
    positioned(r, path, line=line)
    assert f"'{name}' is reserved" in r.err, r.err
