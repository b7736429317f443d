"""The .ta reader on the dialects real files are written in (our own examples of each style)."""

from __future__ import annotations

import pytest

from conftest import CORPUS, DATA
from tactl.ir import InputError, parse_ta, read_ta, read_ta_file
from tactl.ir.expr import BoolConst, IntConst, Name, to_text
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.eltl.ltl import PropertyKind, classify
from tactl.ir.ta.model import Update

DIALECTS = DATA / "dialects"


def formula(text: str):
    return parse_ta(f"skel P {{ specifications {{ p: {text}; }} }}").properties[0].formula


def test_our_strb_model_reads_as_written():
    result = read_ta_file(CORPUS / "strb" / "strb.ta")
    ta = result.ta
    assert result.warnings == []
    assert (ta.name, ta.parameters, ta.shared, ta.locals) == ("STRB", ("n", "t", "f"), ("echo",), ("v",))
    assert [to_text(e) for e in ta.assumptions] == ["n > 3 * t", "t >= f", "f >= 0"]
    assert [(loc.name, loc.values) for loc in ta.locations] == [
        ("V0", (0,)), ("V1", (1,)), ("SE", (2,)), ("AC", (3,))]
    assert ta.initial_locations() == ("V0", "V1")
    r1 = ta.rules[1]
    assert (r1.id, r1.source, r1.target, to_text(r1.guard)) == (1, "V0", "SE", "echo >= RELAY - f")
    assert to_text(ta.expand(r1.guard)) == "echo >= t + 1 - f"
    assert ta.increments(r1) == {"echo": 1} and ta.increments(ta.rules[4]) == {}
    assert ta.is_monotone
    assert [(p.name, classify(p.formula)) for p in ta.properties] == [
        ("unforgeability", PropertyKind.SAFETY), ("correctness", PropertyKind.LIVENESS),
        ("relay", PropertyKind.LIVENESS)]


def test_random19_style_many_locals_and_shared_and_repeated_rule_ids():
    result = read_ta_file(DIALECTS / "random_style.ta")
    ta = result.ta
    assert ta.locals == ("pc", "d", "xp")
    assert ta.shared == ("nsntR0", "nsntR1", "nsntP0", "nsntP1", "nsntPq")
    assert ta.location("locD1").values == (3, 1, 1)
    assert [r.id for r in ta.rules] == [1, 1, 2, 2, 3, 4, 4]  # every rule kept, in file order
    dup = [w for w in result.warnings if "used again" in w.message]
    assert [(w.span.line, w.span.col) for w in dup] == [(36, 3), (41, 3), (50, 3)]
    assert to_text(ta.rules[2].guard) == "nsntR0 + nsntR1 >= THRESH_R - F && 2 * (nsntR0 + F) > HALF"
    assert ta.rules[4].updates == (Update("nsntPq", formula("nsntPq + 1 == 0").left),)
    assert ta.rules[6].updates == ()
    kinds = {p.name: classify(p.formula) for p in ta.properties}
    assert kinds == {"validity0": PropertyKind.SAFETY, "agreement": PropertyKind.SAFETY,
                     "termination": PropertyKind.LIVENESS}


def test_synthesis_files_with_unknowns_are_read_but_stay_non_linear():
    ta = read_ta_file(DIALECTS / "synthesis.ta").ta
    assert ta.unknowns == ("a1", "b1", "c1", "a2", "b2", "c2")
    assert to_text(ta.defines[0].expr) == "a1 * N + b1 * T + c1"
    assert to_text(ta.assumptions[5]) == "-16 <= b1" and to_text(ta.assumptions[6]) == "b2 != 0 - 1"
    with pytest.raises(NonLinearError):  # a checker must refuse it until the unknowns are fixed
        linearize(ta.expand(formula("THRESH1 == 0").left))


def test_promela_generated_shape():
    ta = read_ta_file(DIALECTS / "promela_generated.ta").ta
    assert ta.location("locX_1_1").values == (-1, 1, 1)
    assert ta.rules[0].guard == formula("nsnt >= T + 1 + -F")  # `(-)F` is unary minus
    assert ta.rules[1].guard == BoolConst(True)  # `when (1)`
    assert to_text(ta.rules[2].guard) == "!(nsnt < N - T - F) && nsnt >= 0"
    assert ta.rules[3].updates == ()
    assert [p.name for p in ta.properties] == ["unforg"]  # `unforg = formula;`
    assert ta.initial_locations() == ("loc0_0_0", "loc1_0_0")


def test_taco_style():
    ta = read_ta_file(DIALECTS / "taco_style.ta").ta
    assert (ta.name, ta.locals) == ("SRB", ())
    assert [ta.increments(r) for r in ta.rules] == [{"x": 1}, {"x": 1}, {}, {"x": 1}]


def test_old_bymc_style_with_and_separated_actions():
    ta = read_ta_file(DIALECTS / "old_folklore.ta").ta
    assert ta.rules[0].guard == BoolConst(True)
    assert ta.increments(ta.rules[0]) == {"nsnt": 1}
    assert ta.increments(ta.rules[2]) == {"nsntF": 1}


def test_sections_in_any_order_counts_optional_keywords_usable_as_names():
    text = """
    threshAuto p {
      rules { 0: do -> when when (ta >= N) do { ta' == ta + 1; }; }
      specifications { s: [](when == 0); }
      locations { do: []; when: []; }
      shared ta;
      parameters N;
      assume { N >= 1; }
      inits { do == N; when == 0; ta == 0; }
    }"""
    ta = read_ta(text).ta
    assert [loc.name for loc in ta.locations] == ["do", "when"]
    assert ta.rules[0].source == "do" and ta.rules[0].target == "when"
    assert ta.shared == ("ta",) and ta.initial_locations() == ("do",)


def test_reset_and_decrement_are_read_but_flagged_non_monotone():
    text = """skel P { shared x, y; parameters N; locations { a: [0]; }
      rules { 0: a -> a when (true) do { reset(x); y' == y - 1; }; } }"""
    result = read_ta(text)
    assert result.ta.rules[0].updates == (Update("x", IntConst(0)), Update("y", formula("y - 1 == 0").left))
    assert not result.ta.is_monotone
    assert [w.message.split(" is not")[0] for w in result.warnings] == ["update x' == 0", "update y' == y - 1"]


def test_identity_updates_are_unchanged_in_any_spelling():
    a = read_ta("skel P { shared x, y; locations { l: [0]; } rules { 0: l -> l when (true) do { x' == x; y' == y + 1; }; } }")
    b = read_ta("skel P { shared x, y; locations { l: [0]; } rules { 0: l -> l when (true) do { y' = y + 1, unchanged(x) }; } }")
    assert a.ta == b.ta
    assert a.ta.rules[0].updates[0] == Update("y", formula("y + 1 == 0").left)
    assert a.ta.rules[0].updates[1] == Update("x", Name("x"))


def test_integer_one_is_true_only_where_a_condition_is_expected():
    assert read_ta("skel P { locations { l: [0]; } rules { 0: l -> l when (1) do { }; } }").ta.rules[0].guard == BoolConst(True)
    with pytest.raises(InputError, match="expected a condition, found the term '2'"):
        parse_ta("skel P { locations { l: [0]; } rules { 0: l -> l when (2) do { }; } }")
