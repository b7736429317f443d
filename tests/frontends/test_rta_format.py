"""The receive threshold automaton format (.rta): reader, canonical printer, JSON form, validation."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, assert_positioned_error
from tactl.ir import InputError, parse_ta, read_ta
from tactl.ir.expr import (
    BoolConst,
    Compare,
    IntConst,
    Mul,
    Name,
    Not,
    conj,
    disj,
    sub,
    summation,
    to_text,
)
from tactl.ir.rta.model import (
    FaultModel,
    Faults,
    Message,
    ReceiveRule,
    ReceiveTA,
    Timing,
    receive_variables,
    received,
)
from tactl.ir.rta.json_form import FORMAT, VERSION, rta_from_json, rta_to_json
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import parse_rta, read_rta, read_rta_file
from tactl.ir.ta.model import Location, Property

RTA_FILES = sorted((DATA / "rta").glob("*.rta"))


# ------------------------------------------------------------------------------------- reading


def test_the_strb_example_reads_into_the_ir():
    result = read_rta_file(DATA / "rta" / "strb.rta")
    rta = result.rta
    assert result.warnings == [] and result.comment_count == 8
    assert (rta.name, rta.parameters) == ("STRB", ("n", "t", "f"))
    assert [to_text(e) for e in rta.assumptions] == ["n > 3 * t", "t >= f", "f >= 0"]
    assert rta.faults == Faults(FaultModel.BYZANTINE, ("f",))
    assert rta.timing is Timing.ASYNC
    assert rta.messages == (Message("ECHO"), Message("READY"), Message("P0D", "P"),
                            Message("P1D", "P"), Message("Pq", "P"))
    assert rta.kinds() == {"P": ("P0D", "P1D", "Pq")}
    assert [loc.name for loc in rta.locations] == ["V0", "V1", "SE", "AC"]
    assert rta.initial == ("V0", "V1")
    assert [(r.id, r.source, r.target, r.sends) for r in rta.rules] == [
        (0, "V1", "SE", ("ECHO",)), (1, "V0", "SE", ("ECHO",)), (2, "SE", "AC", ()),
        (3, "AC", "AC", ()), (4, "V0", "AC", ("ECHO", "READY"))]
    r0, r1, _, r3, r4 = rta.rules
    assert r0.guard == BoolConst(True) and r3.guard == BoolConst(True)
    assert r1.guard == Compare(">=", received("ECHO"), summation(Name("t"), [("+", IntConst(1))]))
    assert r1.guard.left == Name("received(ECHO)")
    assert to_text(r4.guard) == "received(ECHO) >= n - t && received(READY) < 1"
    assert receive_variables(r4.guard) == ["ECHO", "READY"]
    assert [(p.name, to_text(p.formula)) for p in rta.properties] == [
        ("unforgeability", "V1 == 0 -> [](AC == 0)")]
    # positions: the receive variable's span covers `received(ECHO)` exactly
    assert r1.guard.left.span.line == 13
    assert (r1.guard.left.span.col, r1.guard.left.span.end_col) == (23, 37)


def test_expressions_are_those_of_the_ta_reader():
    """The same precedence and the same trees: a formula over names reads equally in both formats."""
    text = "!(a + 2 * b >= c - 1) && (c < 3 || a == b) -> <>[](a != 0)"
    ta_formula = parse_ta(f"skel P {{ specifications {{ p: {text}; }} }}").properties[0].formula
    rta = parse_rta(f"rta P {{ faults crash(f); timing sync; locations a, b, c; initial a; "
                    f"specifications {{ p: {text}; }} }}")
    assert rta.properties[0].formula == ta_formula


def test_receive_variable_allows_spaces_and_prints_canonically():
    rta = parse_rta("rta P { faults crash(f); timing sync; messages M; locations a; initial a; "
                    "rules { 0: a -> a when received ( M ) >= 1; } }")
    assert rta.rules[0].guard.left == received("M")
    assert "when (received(M) >= 1);" in print_rta(rta)


def test_sections_in_any_order_and_repeated_declarations_accumulate():
    rta = read_rta_file(DATA / "rta" / "benor_kinds.rta").rta
    assert rta.faults == Faults(FaultModel.HYBRID, ("fb", "fc"))
    assert [(m.name, m.kind) for m in rta.messages] == [
        ("P0D", "P"), ("P1D", "P"), ("R", None), ("Pq", "P")]
    assert rta.kinds() == {"P": ("P0D", "P1D", "Pq")}
    assert [r.id for r in rta.rules] == [1, 2, 3, 3]


# ----------------------------------------------------------------------------------- round trips


def _check_round_trips(rta: ReceiveTA) -> None:
    printed = print_rta(rta)
    reread = read_rta(printed, "printed").rta
    assert reread == rta
    assert print_rta(reread) == printed  # the canonical form is a fixed point
    doc = json.loads(json.dumps(rta_to_json(rta)))
    assert (doc["format"], doc["version"]) == (FORMAT, VERSION)
    assert rta_from_json(doc) == rta


@pytest.mark.parametrize("path", RTA_FILES, ids=lambda p: p.name)
def test_our_rta_files_round_trip(path):
    _check_round_trips(read_rta_file(path).rta)


def test_canonical_text_of_the_strb_example():
    printed = print_rta(read_rta_file(DATA / "rta" / "strb.rta").rta)
    assert printed == """\
rta STRB {
  parameters n, t, f;
  assumptions (3) {
    n > 3 * t;
    t >= f;
    f >= 0;
  }
  faults byzantine(f);
  timing async;
  messages ECHO, READY;
  kind P: P0D, P1D, Pq;
  locations V0, V1, SE, AC;
  initial V0, V1;

  rules (5) {
    0: V1 -> SE send ECHO;
    1: V0 -> SE when (received(ECHO) >= t + 1) send ECHO;
    2: SE -> AC when (received(ECHO) >= n - t);
    3: AC -> AC;
    4: V0 -> AC when (received(ECHO) >= n - t && received(READY) < 1) send ECHO, READY;
  }

  specifications (1) {
    unforgeability: V1 == 0 -> [](AC == 0);
  }
}
"""


def test_message_order_survives_interleaved_kinds():
    printed = print_rta(read_rta_file(DATA / "rta" / "benor_kinds.rta").rta)
    assert "  kind P: P0D, P1D;\n  messages R;\n  kind P: Pq;\n" in printed


def test_json_refuses_other_formats_newer_versions_and_bad_fields():
    doc = rta_to_json(read_rta_file(DATA / "rta" / "strb.rta").rta)
    with pytest.raises(InputError, match="version 99 is not supported"):
        rta_from_json({**doc, "version": 99})
    with pytest.raises(InputError, match="not a tactl.rta document"):
        rta_from_json({**doc, "format": "tactl.ta"})
    with pytest.raises(InputError, match="malformed tactl.rta JSON: missing field 'timing'"):
        rta_from_json({k: v for k, v in doc.items() if k != "timing"})
    with pytest.raises(InputError, match="malformed tactl.rta JSON at faults.model: expected one of 'byzantine'.* found the string 'byz'"):
        rta_from_json({**doc, "faults": {"model": "byz", "parameters": ["f"]}})
    with pytest.raises(InputError, match=r"malformed tactl.rta JSON at rules\[0\].id: expected an integer, found the string 'x'"):
        rta_from_json({**doc, "rules": [{"id": "x", "from": "V0", "to": "V0", "guard": True,
                                         "sends": []}]})
    assert doc["rules"][1]["guard"] == {
        "op": ">=", "args": [{"name": "received(ECHO)"},
                             {"op": "sum", "args": [{"name": "t"}, 1], "signs": ["+"]}]}


# Hypothesis: random valid automata print and re-read to themselves.

PARAMS = ("n", "t", "f")
MESSAGES = ("A", "B", "C")
LOCS = ("L0", "L1", "L2")


def _linear(variables):
    term = st.builds(lambda k, x: x if k == 1 else Mul(IntConst(k), x), st.integers(1, 4),
                     st.sampled_from(variables).map(Name))
    atom = st.one_of(st.integers(0, 9).map(IntConst), term)
    return st.builds(lambda first, rest: summation(first, rest), atom,
                     st.lists(st.tuples(st.sampled_from("+-"), atom), max_size=2))


def _conditions(variables):
    compare = st.builds(Compare, st.sampled_from(["<", "<=", "==", "!=", ">=", ">"]),
                        _linear(variables), _linear(variables))

    def extend(children):
        lists = st.lists(children, min_size=2, max_size=3)
        return st.one_of(st.builds(Not, children), lists.map(lambda a: conj(*a)),
                         lists.map(lambda a: disj(*a)))

    return st.recursive(st.one_of(compare, st.just(BoolConst(True))), extend, max_leaves=5)


GUARD_VARS = [*PARAMS, *(received(m).name for m in MESSAGES)]


@st.composite
def receive_tas(draw):
    kinds = draw(st.lists(st.sampled_from([None, "K", "P"]), min_size=3, max_size=3))
    rules = tuple(ReceiveRule(draw(st.integers(0, 5)), draw(st.sampled_from(LOCS)),
                              draw(st.sampled_from(LOCS)), draw(_conditions(GUARD_VARS)),
                              tuple(draw(st.lists(st.sampled_from(MESSAGES), unique=True, max_size=3))),
                              draw(st.sampled_from([None, "coin", "oracle"])))
                  for _ in range(draw(st.integers(0, 4))))
    model = draw(st.sampled_from(list(FaultModel)))
    return ReceiveTA(
        name="R", parameters=PARAMS,
        assumptions=tuple(draw(st.lists(_conditions(PARAMS), max_size=2))),
        faults=Faults(model, (), terms=(sub(Name("n"), Name("f")), Name("f"), IntConst(0)))
        if model is FaultModel.BOUND else
        Faults(model, ("f", "t") if model is FaultModel.HYBRID else ("f",)),
        timing=draw(st.sampled_from(list(Timing))),
        messages=tuple(Message(m, k) for m, k in zip(MESSAGES, kinds)),
        locations=tuple(Location(n) for n in LOCS),
        initial=tuple(draw(st.lists(st.sampled_from(LOCS), min_size=1, max_size=2, unique=True))),
        rules=rules,
        properties=tuple(Property(f"p{i}", f) for i, f in
                         enumerate(draw(st.lists(_conditions([*PARAMS, *LOCS]), max_size=2)))))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(receive_tas())
def test_random_automata_round_trip(rta):
    _check_round_trips(rta)


# ------------------------------------------------------------------------------------ validation

BASE = """\
rta T {
  parameters n, t, f;
  assumptions { n > 3 * t; t >= f; }
  faults byzantine(f);
  timing async;
  messages ECHO, READY;
  locations V0, V1, AC;
  initial V0, V1;
  rules {
    0: V0 -> AC when (received(ECHO) >= t + 1) send ECHO;
    1: V1 -> AC send READY;
  }
  specifications { safe: V1 == 0 -> [](AC == 0); }
}
"""


def _error(old: str, new: str) -> str:
    assert old in BASE
    with pytest.raises(InputError) as info:
        read_rta(BASE.replace(old, new, 1), "t.rta")
    return info.value.render()


def test_the_base_example_is_valid():
    assert read_rta(BASE, "t.rta").warnings == []


ERRORS = {
    "unknown fault model": (
        "faults byzantine(f);", "faults byz(f);",
        "t.rta:4:10: unknown fault model 'byz': expected one of byzantine, crash, omission, "
        "symmetric, clean_crash, hybrid, bound", "           ^^^"),
    "unknown timing": (
        "timing async;", "timing asynch;",
        "t.rta:5:10: unknown timing 'asynch': expected async or sync", "           ^^^^^^"),
    "too many fault parameters": (
        "faults byzantine(f);", "faults byzantine(f, t);",
        "t.rta:4:10: fault model 'byzantine' takes 1 parameter (e.g. 'byzantine(f)'), found 2",
        "           ^^^^^^^^^^^^^^"),
    "too few fault parameters for hybrid": (
        "faults byzantine(f);", "faults hybrid(f);",
        "t.rta:4:10: fault model 'hybrid' takes 2 parameters (e.g. 'hybrid(fb, fc)'), found 1",
        "           ^^^^^^^^"),
    "fault parameter not declared": (
        "faults byzantine(f);", "faults byzantine(g);",
        "t.rta:4:20: fault parameter 'g' is not a declared parameter", "                     ^"),
    "missing faults": (
        "  faults byzantine(f);\n", "",
        "t.rta:1:5: missing 'faults' section: declare the fault model, e.g. 'faults byzantine(f);' "
        "(models: byzantine, crash, omission, symmetric, clean_crash, hybrid, bound)", "      ^"),
    "missing timing": (
        "  timing async;\n", "",
        "t.rta:1:5: missing 'timing' section: write 'timing async;' or 'timing sync;'", "      ^"),
    "missing locations": (
        "  locations V0, V1, AC;\n", "",
        "t.rta:1:5: missing 'locations' section: list the control locations, e.g. "
        "'locations V0, V1, AC;'", "      ^"),
    "missing initial": (
        "  initial V0, V1;\n", "",
        "t.rta:1:5: missing 'initial' section: list the initial locations, e.g. 'initial V0, V1;'",
        "      ^"),
    "unknown location in a rule": (
        "1: V1 -> AC", "1: V1 -> ACC",
        "t.rta:11:14: unknown location 'ACC'; did you mean 'AC'?", "               ^^^"),
    "unknown location in initial": (
        "initial V0, V1;", "initial V0, V11;",
        "t.rta:8:15: unknown location 'V11'; did you mean 'V1'?", "                ^^^"),
    "received of an undeclared message": (
        "received(ECHO) >= t + 1", "received(ECHOO) >= t + 1",
        "t.rta:10:23: unknown message 'ECHOO' in 'received(ECHOO)'; did you mean 'ECHO'?",
        "                        ^^^^^^^^^^^^^^^"),
    "send of an undeclared message": (
        "send READY;", "send READI;",
        "t.rta:11:22: unknown message 'READI' in 'send'; did you mean 'READY'?",
        "                       ^^^^^"),
    "received in the assumptions": (
        "t >= f;", "t >= received(ECHO);",
        "t.rta:3:33: 'received(ECHO)' can only appear in a rule guard, not in the resilience "
        "condition (a receive variable is local to one process's step)",
        "                                  ^^^^^^^^^^^^^^"),
    "received in a specification": (
        "V1 == 0 ->", "received(ECHO) == 0 ->",
        "t.rta:13:26: 'received(ECHO)' can only appear in a rule guard, not in a specification "
        "(a receive variable is local to one process's step)",
        "                           ^^^^^^^^^^^^^^"),
    "location counter in a guard": (
        "received(ECHO) >= t + 1", "received(ECHO) >= V1",
        "t.rta:10:41: the location 'V1' cannot appear in a rule guard (guards read parameters and "
        "receive variables only)", "                                          ^^"),
    "unknown name in a guard": (
        "received(ECHO) >= t + 1", "received(ECHO) >= tt + 1",
        "t.rta:10:41: unknown name 'tt' in a rule guard; did you mean 't'?",
        "                                          ^^"),
    "bare message name in a guard": (
        "received(ECHO) >= t + 1", "ECHO >= t + 1",
        "t.rta:10:23: unknown name 'ECHO' in a rule guard; did you mean 'received(ECHO)'?",
        "                        ^^^^"),
    "non-linear guard": (
        "received(ECHO) >= t + 1", "received(ECHO) * t >= n",
        "t.rta:10:23: non-linear term 'received(ECHO) * t': only multiplication by a constant is "
        "allowed (threshold automata use linear integer arithmetic)",
        "                        ^^^^^^^^^^^^^^^^^^"),
    "duplicate message": (
        "messages ECHO, READY;", "messages ECHO, READY, ECHO;",
        "t.rta:6:25: message 'ECHO' is already declared at 6:12", "                          ^^^^"),
    "duplicate location": (
        "locations V0, V1, AC;", "locations V0, V1, AC, V1;",
        "t.rta:7:25: 'V1' is already declared as a location at 7:17", "                          ^^"),
    "duplicate parameter": (
        "parameters n, t, f;", "parameters n, t, f, t;",
        "t.rta:2:23: 't' is already declared as a parameter at 2:17", "                        ^"),
    "location named like a parameter": (
        "locations V0, V1, AC;", "locations V0, V1, AC, n;",
        "t.rta:7:25: 'n' is already declared as a parameter at 2:14", "                          ^"),
    "duplicate property": (
        "safe: V1 == 0 -> [](AC == 0);", "safe: V1 == 0; safe: AC == 0;",
        "t.rta:13:35: property 'safe' is already defined at 13:20", "                                    ^^^^"),
    "temporal operator in a guard": (
        "(received(ECHO) >= t + 1)", "([](received(ECHO) >= t + 1))",
        "t.rta:10:23: temporal operator '[]' is only allowed in specifications, not in a rule guard",
        "                        ^^^^^^^^^^^^^^^^^^^^^^^^^^"),
    "message sent twice": (
        "send ECHO;", "send ECHO, ECHO;",
        "t.rta:10:59: message 'ECHO' is sent twice in rule 0",
        "                                                            ^^^^"),
    "malformed receive variable": (
        "received(ECHO) >= t + 1", "received(ECHO >= t + 1",
        "t.rta:10:23: a receive variable is written 'received(M)' with a declared message type M, "
        "e.g. 'received(ECHO)'", "                        ^^^^^^^^"),
    "syntax error": (
        "send READY;", "send READY",
        "t.rta:11:27: expected ';' after 'READY' (found '}')", "                            ^"),
}


@pytest.mark.parametrize("case", ERRORS, ids=list(ERRORS))
def test_each_error_is_reported_with_its_position_and_a_caret(case):
    old, new, head, caret = ERRORS[case]
    rendered = _error(old, new)
    lines = rendered.split("\n")
    assert lines[0] == head
    assert lines[2] == caret


def test_a_missing_locations_section_is_reported_once_not_at_every_use():
    rendered = _error("  locations V0, V1, AC;\n", "")
    assert rendered.count("t.rta:") == 1


def test_missing_sections_are_reported_together():
    with pytest.raises(InputError) as info:
        read_rta("rta T { parameters n; }", "t.rta")
    assert [d.message.split(":")[0] for d in info.value.diagnostics] == [
        "missing 'faults' section", "missing 'timing' section", "missing 'locations' section",
        "missing 'initial' section"]


def test_a_duplicate_rule_id_is_a_warning():
    result = read_rta(BASE.replace("1: V1 -> AC", "0: V1 -> AC"), "t.rta")
    assert result.render_warnings() == (
        "t.rta:11:5: warning: rule id 0 is used again (line 10); both rules are kept and this one "
        "is rule #2 of the file\n"
        "      0: V1 -> AC send READY;\n"
        "      ^")
    assert [r.id for r in result.rta.rules] == [0, 0]


def test_sort_errors_are_those_of_the_ta_reader():
    with pytest.raises(InputError, match="expected a condition, found the term 'received"):
        read_rta(BASE.replace(">= t + 1)", ")"), "t.rta")


def test_the_ta_reader_is_unaffected_by_the_receive_atom():
    """`received(…)` is not part of the .ta language."""
    with pytest.raises(InputError, match=r"t.ta:1:\d+: "):
        read_ta("skel P { shared x; locations { l: [0]; } rules { 0: l -> l when "
                "(received(x) >= 1) do { }; } }", "t.ta")
    ta = read_ta("skel P { shared received; locations { l: [0]; } rules { 0: l -> l when "
                 "(received >= 1) do { }; } }").ta
    assert to_text(ta.rules[0].guard) == "received >= 1"


# ---------------------------------------------------------------------------------------- fuzzing

_SEEDS = [p.read_text() for p in RTA_FILES] + [BASE]
_PIECES = ["", ";", ",", "{", "}", "(", ")", "received(", "received(ECHO)", "send", "when", "->",
           "[]", "*", "kind", "faults", "hybrid(", "timing", "1", "x", "/*", "\n", "é"]


@st.composite
def _mutated(draw):
    text = draw(st.sampled_from(_SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 30)))
        piece = draw(st.one_of(st.sampled_from(_PIECES), st.text(max_size=4)))
        text = text[:i] + piece + text[j:] if draw(st.booleans()) else text[:i] + piece + text[i:]
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_reader_only_ever_raises_its_own_error(text):
    try:
        result = read_rta(text, "fuzz.rta")
    except InputError as e:
        assert_positioned_error(e, text, "fuzz.rta")
        return
    assert read_rta(print_rta(result.rta)).rta == result.rta
