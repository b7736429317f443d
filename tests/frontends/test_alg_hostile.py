"""The .alg front end against a careless user: no wrong verdict from a user's own words in an
``.alg``.

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
from conftest import write as write_file
from tactl.ir.alg.reader import _parser, parse_alg
from tactl.ir.errors import InputError
from tactl.passes.alg_to_rta.extract import parse_algorithm

FINDINGS = Path(REPO.parent / "shared" / "findings" / "trust-round3")

HEADER = """algorithm A
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
messages ECHO
"""


def write(tmp_path: Path, text: str, name: str = "x.alg") -> Path:
    return write_file(tmp_path, name, text)


def positioned(r, path: Path, line: int | None = None) -> re.Match:
    """A refusal with exit 2: ``path:line:col: message``, the source line and a caret."""
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
    """Every word a terminal of ir/alg/alg.lark spells (keywords, multi-word quantifiers, ``bot``)."""
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


# ================================================================ 5. decisions are irrevocable

DOUBLE_DECIDE = HEADER.replace("messages ECHO", "messages (R, {0, 1})") + """variables
  v: {0, 1} = input
round:
  send (R, v) to all
  wait until received (R, *) from n - t processes
  if received (R, 0) from at least 1 process:
    decide 0
  decide 1
properties
  agreement: always not (some decided == 0 and some decided == 1)
"""


def test_deciding_again_is_refused_at_the_second_decide(cli, tmp_path):
    """A path decided 0 and then 1; agreement HELD because the later decision overwrote it."""
    path = write(tmp_path, DOUBLE_DECIDE)
    r = cli("check", path)
    positioned(r, path, line=13)
    assert "a decision is irrevocable" in r.err and "HOLDS" not in r.out


def test_deciding_again_in_a_later_step_is_refused(cli, tmp_path):
    text = HEADER + """variables
  v: {0, 1} = input
loop forever:
  upon v == 0:
    decide 0
  upon receiving ECHO from t + 1 processes:
    decide 1
properties
  p: always (no decided == 1)
"""
    path = write(tmp_path, text)
    positioned(cli("parse", path), path, line=12)


def test_deciding_the_same_value_again_is_allowed(cli, tmp_path):
    text = DOUBLE_DECIDE.replace("decide 0", "decide 1").replace(
        "always not (some decided == 0 and some decided == 1)", "always (no decided == 1)")
    path = write(tmp_path, text)
    assert cli("parse", path).code == 0
    r = cli("check", path)
    assert r.code in (0, 1) and set(verdicts(r.out)) == {"agreement"}, r.out + r.err


# ================================================================ 3. parser robustness

STRB_BODY = HEADER + """variables
  v: {0, 1} = input
  accept: bool = false
loop forever:
  if v == 1:
    send ECHO to all
  upon receiving ECHO from t + 1 distinct processes:
    v := 1
    accept := true
properties
  unforgeability: initially (no v == 1) -> always (no accept)
"""


@pytest.mark.parametrize("label, text, line, message", [
    ("tab after spaces", STRB_BODY.replace("    send ECHO", "\tsend ECHO"), 11,
     "inconsistent use of tabs and spaces"),
    ("tab and spaces in one block", STRB_BODY.replace("    accept :=", "\taccept :="), 14,
     "inconsistent use of tabs and spaces"),
    ("inconsistent dedent", STRB_BODY.replace("    v := 1", "      v := 1"), 14,
     "inconsistent dedent: this line is indented to column 5"),
    ("duplicate property", STRB_BODY + "  unforgeability: always (no accept)\n", 17,
     "property 'unforgeability' is declared twice (first at line 16)"),
    ("sum of 20,000 terms", STRB_BODY.replace("t + 1 distinct", " + ".join(["t"] * 20_000)), 12,
     "nested more than 200 levels deep"),
    ("parentheses 3,000 deep", STRB_BODY.replace("t + 1 distinct", "(" * 3000 + "t" + ")" * 3000),
     12, "nested more than 200 levels deep"),
    ("not 3,000 times", STRB_BODY.replace("(no accept)", "(" + "not " * 3000 + "(no accept))"), 16,
     "nested more than 200 levels deep"),
    ("huge integer", STRB_BODY.replace("t + 1 distinct", "t + " + "9" * 5000), 12,
     "integer literal of 5000 digits"),
    ("long name", STRB_BODY.replace("accept", "a" * 300), 8, "is 300 characters long"),
])
def test_hostile_layouts_and_sizes_get_a_position(cli, tmp_path, label, text, line, message):
    path = write(tmp_path, text)
    r = cli("parse", path)
    positioned(r, path, line=line)
    assert message in r.err, (label, r.err)


def test_tabs_alone_are_indentation(cli, tmp_path):
    path = write(tmp_path, STRB_BODY.replace("    ", "\t\t").replace("  ", "\t"))
    assert cli("parse", path).code == 0


def test_many_handlers_give_a_result_in_seconds(cli, tmp_path):
    """30 Booleans set by 30 handlers: a result (it took minutes)."""
    handlers = "".join(f"  upon receiving ECHO from {i} processes:\n    x{i} := true\n"
                       for i in range(30))
    text = (HEADER + "variables\n  v: {0, 1} = input\n"
            + "".join(f"  x{i}: bool = false\n" for i in range(30))
            + "loop forever:\n" + handlers + "  if v == 1:\n    send ECHO to all\n"
            + "properties\n  p: always (no x29)\n")
    start = time.process_time()
    r = cli("parse", write(tmp_path, text))
    assert r.code == 0, r.err
    assert time.process_time() - start < 60  # generous: 2-3 s on an idle laptop


def test_the_control_state_bound_is_reported_at_the_step(cli, tmp_path, monkeypatch):
    """Handlers over independent messages branch 2^k ways per step: refused with the bound,
    at the loop whose step explodes (the bound lowered so that the test is quick)."""
    import tactl.passes.alg_to_rta.extract as parse_pass

    monkeypatch.setattr(parse_pass, "MAX_CONTROL_STATES", 100)
    k = 10
    text = (HEADER.replace("messages ECHO", "messages " + ", ".join(f"M{i}" for i in range(k)))
            + "variables\n  v: {0, 1} = input\n"
            + "".join(f"  x{i}: bool = false\n" for i in range(k)) + "loop forever:\n"
            + "".join(f"  upon receiving M{i} from t + 1 processes:\n    x{i} := true\n"
                      for i in range(k))
            + "properties\n  p: always (no x9)\n")
    path = write(tmp_path, text)
    r = cli("parse", path)
    positioned(r, path, line=8 + k)
    assert "too many control states (> 100)" in r.err


def test_the_corpus_stays_well_under_the_control_state_bound(monkeypatch):
    import tactl.passes.alg_to_rta.extract as parse_pass

    most = 0
    original = parse_pass._Explorer.step

    def counting(self, key):
        nonlocal most
        out = original(self, key)
        most = max(most, self.paths)
        return out

    monkeypatch.setattr(parse_pass._Explorer, "step", counting)
    for path in sorted(CORPUS.glob("*/*.alg")):
        parse_algorithm(parse_alg(path.read_text(), str(path)))
    assert 0 < most <= parse_pass.MAX_CONTROL_STATES / 3, most


# ================================================= the findings table, row by row (my rows)

EXPLICIT = ["--engine", "explicit", "--param", "n=4", "--param", "t=1", "--param", "f=1"]

# file, command, promised: ("violated", properties) / ("refused", line) / ("holds", count) /
# ("result", None) for "a result or a refusal"
ROWS = [
    ("lex_sentvar.alg", ["check"], ("violated", {"p1"})),
    ("lex_sentvar.alg", ["check", *EXPLICIT], ("violated", {"p1"})),
    ("lex_count.alg", ["check"], ("violated", {"p1"})),
    ("lex_bot.alg", ["parse"], ("result", None)),
    ("prop_type.alg", ["check"], ("refused", 15)),
    ("prop_type.alg", ["check", *EXPLICIT], ("refused", 15)),
    ("long_sum.alg", ["parse"], ("refused", None)),
    ("many_vars_30_assign.alg", ["parse"], ("result", None)),
    ("tabmix.alg", ["parse"], ("refused", 11)),
    ("dedent2.alg", ["parse"], ("refused", 14)),
    ("crashed_var.alg", ["check"], ("refused", 9)),
    ("crashed_var.alg", ["check", "--engine", "explicit", "--param", "n=2", "--param", "t=1",
                         "--param", "f=0"], ("refused", 9)),
    ("double_decide.alg", ["check"], ("refused", 15)),
    ("echo_broadcast.alg", ["check"], ("holds", 4)),
]


@pytest.mark.parametrize("name, command, promised", ROWS,
                         ids=[f"{r[0]}-{'-'.join(r[1][:3])}" for r in ROWS])
def test_findings_rows(cli, name, command, promised):
    path = FINDINGS / name
    if not path.is_file():
        pytest.skip(f"the shared findings are not at {FINDINGS}")
    r = cli(command[0], path, *command[1:])
    kind, expected = promised
    if kind == "refused":
        positioned(r, path, line=expected)
    elif kind == "violated":
        assert r.code == 1, r.out + r.err
        assert {p for p, v in verdicts(r.out).items() if v == "VIOLATED"} == expected, r.out
    elif kind == "holds":
        assert r.code == 0 and list(verdicts(r.out).values()) == ["HOLDS"] * expected, r.out
    else:
        assert r.code in (0, 1) or (r.code == 2 and "too many control states" in r.err), r.err
        assert "Traceback" not in r.err
