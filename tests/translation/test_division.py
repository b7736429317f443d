"""Integer division `e / c` (ByMC's thresholds): reading, printing, floor semantics, the exact
elimination of ``passes/ta_to_ta/lower_division.py`` (proved with z3), and `tactl check` end to end."""

from __future__ import annotations

import json

import pytest
import z3

from conftest import CORPUS, DATA, report_properties
from tactl.engines import explicit
from tactl.ir import InputError, read_ta, read_ta_file
from tactl.ir.evaluate import EvaluationError, evaluate
from tactl.ir.expr import Compare, Div, IntConst, Mul, Name, Neg, Sum, to_text, walk
from tactl.ir.linear import NonLinearError, int_symbols, linearize, normalize, to_z3
from tactl.ir.rta.reader import read_rta
from tactl.ir.ta.json_form import ta_from_json, ta_to_json
from tactl.ir.ta.printer import print_ta
from tactl.ir.ta.validate import validate
from tactl.passes.ta_to_ta.lower_division import DivisionNotSupported, has_division, lower, lower_division

HALVES = DATA / "division" / "halves.ta"


def automaton(guard: str = "true", specs: str = "p: [](b == 0);", assumptions: str = "N > 3 * T;",
              update: str = "x' == x + 1", extra: str = "") -> str:
    return f"""skel D {{
  shared x, y;
  parameters N, T;
  {extra}
  assumptions (1) {{ {assumptions} }}
  locations (2) {{ a: [0]; b: [1]; }}
  inits (4) {{ a == N; b == 0; x == 0; y == 0; }}
  rules (1) {{
    0: a -> b when ({guard}) do {{ {update}; }};
  }}
  specifications (1) {{ {specs} }}
}}
"""


def term(text: str):
    """The left-hand side of ``text >= 0`` read from a specification."""
    ta = read_ta(automaton(specs=f"p: {text} >= 0;")).ta
    return ta.properties[0].formula.left


# ---------------------------------------------------------------------------------- reading


@pytest.mark.parametrize("text, tree", [
    ("N / 2", Div(Name("N"), IntConst(2))),
    ("(N + T) / 2 + 1", Sum((Div(Sum((Name("N"), Name("T")), ("+",)), IntConst(2)), IntConst(1)), ("+",))),
    ("N / 2 * 3", Mul(Div(Name("N"), IntConst(2)), IntConst(3))),  # the precedence of '*', left to right
    ("3 * (N / 2)", Mul(IntConst(3), Div(Name("N"), IntConst(2)))),
    ("3 * N / 2", Div(Mul(IntConst(3), Name("N")), IntConst(2))),
    ("N / 2 / 3", Div(Div(Name("N"), IntConst(2)), IntConst(3))),
    ("-N / 2", Div(Neg(Name("N")), IntConst(2))),
    ("-(N / 2)", Neg(Div(Name("N"), IntConst(2)))),
    ("N / (1 + 1)", Div(Name("N"), Sum((IntConst(1), IntConst(1)), ("+",)))),
])
def test_division_has_the_precedence_of_times_and_prints_back(text, tree):
    e = term(text)
    assert e == tree
    assert term(to_text(e)) == e  # parse(print(e)) == e


def test_fmt_output_rereads_to_the_same_automaton(cli, tmp_path):
    r = cli("fmt", HALVES)
    assert r.code == 0
    assert "x >= (n + t) / 2 + 1" in r.out  # fmt keeps the user's division
    assert read_ta(r.out).ta == read_ta_file(HALVES).ta
    again = tmp_path / "again.ta"
    again.write_text(r.out)
    assert cli("fmt", again).out == r.out


@pytest.mark.parametrize("divisor, col, message", [
    ("y", 30, "the divisor of '/' must be a positive integer constant, found 'y'"),
    ("0", 30, "division by zero: the divisor of '/' must be a positive integer constant, found '0'"),
    ("-2", 30, "division by negative (-2): the divisor of '/' must be a positive integer constant, "
               "found '-2'"),
    ("(N - N)", 31, "the divisor of '/' must be a positive integer constant, found 'N - N'"),
])
def test_bad_divisors_are_positioned_errors(cli, tmp_path, divisor, col, message):
    text = automaton(guard=f"x >= N / {divisor}")
    path = tmp_path / "bad.ta"
    path.write_text(text)
    r = cli("check", path)
    assert r.code == 2 and r.out == ""
    first, source_line, caret = r.err.splitlines()[:3]
    assert first.startswith(f"{path}:9:{col}: {message}")
    assert source_line == "  " + text.splitlines()[8]
    assert caret.index("^") == 2 + col - 1
    assert "Traceback" not in r.err


def test_a_divisor_folding_to_a_positive_constant_is_accepted():
    ta = read_ta(automaton(guard="x >= N / (3 - 1)")).ta
    assert lower_division(ta).rules[0].guard != ta.rules[0].guard


def test_receive_automata_keep_refusing_division():
    text = (CORPUS / "aba" / "aba.rta").read_text().replace("when (2 * received(ECHO) >= n + t + 1)",
                                                             "when (received(ECHO) >= (n + t) / 2)", 1)
    with pytest.raises(InputError) as info:
        read_rta(text, "aba.rta")
    assert "division is not linear integer arithmetic" in info.value.first.message


def test_product_with_a_division_of_a_variable_is_non_linear():
    with pytest.raises(InputError) as info:
        read_ta(automaton(guard="x >= y * (N / 2)"), "t.ta")
    assert "non-linear term 'y * (N / 2)'" in info.value.first.message


# ------------------------------------------------------------------------------- JSON form


def test_json_form_round_trips_division():
    ta = read_ta_file(HALVES).ta
    doc = ta_to_json(ta)
    guard = json.dumps(doc["rules"][1]["guard"])
    assert '"op": "/"' in guard
    assert ta_from_json(json.loads(json.dumps(doc))) == ta


def test_json_division_by_a_variable_is_refused(cli, tmp_path):
    doc = ta_to_json(read_ta_file(HALVES).ta)
    doc["rules"][1]["guard"]["args"][1]["args"][0]["args"][1] = {"name": "t"}  # (n + t) / t
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    r = cli("check", path)
    assert r.code == 2 and "the divisor of '/' must be a positive integer constant, found 't'" in r.err
    assert "Traceback" not in r.err


# ------------------------------------------------------------------------------ semantics


@pytest.mark.parametrize("dividend, divisor, expected", [(7, 2, 3), (6, 2, 3), (0, 3, 0), (-7, 2, -4),
                                                         (-6, 2, -3), (-1, 5, -1)])
def test_evaluation_rounds_down(dividend, divisor, expected):
    e = Div(Name("e"), IntConst(divisor))
    assert evaluate(e, {"e": dividend}) == expected
    # the explicit engine's compiled closures and z3 agree with it
    assert explicit.compile_expression(e, {"e": 0}, {})((dividend,)) == expected
    assert z3.simplify(z3.substitute(to_z3(e), (z3.Int("e"), z3.IntVal(dividend)))).as_long() == expected


def test_evaluation_refuses_a_divisor_that_is_not_positive():
    with pytest.raises(EvaluationError):
        evaluate(Div(IntConst(1), Name("d")), {"d": 0})


def test_linear_forms_fold_constant_divisions_and_refuse_the_others():
    assert linearize(term("(7 + 0) / 2")).const == 3
    assert linearize(term("-7 / 2")).const == -4
    with pytest.raises(NonLinearError, match="division 'N / 2'"):
        linearize(term("N / 2"))
    with pytest.raises(NonLinearError):
        normalize(Compare(">=", term("N / 2"), IntConst(1)))


def test_z3_division_is_floor_for_every_integer():
    e, q = z3.Int("e"), to_z3(Div(Name("e"), IntConst(3)))
    solver = z3.Solver()
    solver.add(z3.Not(z3.And(3 * q <= e, e <= 3 * q + 2)))
    assert solver.check() == z3.unsat


# ------------------------------------------------------------------------------- lowering


def test_automaton_without_division_comes_back_unchanged():
    ta = read_ta_file(CORPUS / "strb" / "strb.ta").ta
    assert not has_division(ta)
    assert lower_division(ta) is ta


def test_lowering_introduces_one_parameter_per_distinct_dividend():
    text = automaton(guard="x >= (N + T) / 2 + 1 && y < (T + N) / 2 && y >= N / 3",
                     specs="p: [](b <= (N + T) / 2);")
    ta = read_ta(text).ta
    result = lower(ta)
    assert [(q.name, to_text(q.dividend), q.divisor) for q in result.quotients] == [
        ("q_N_plus_T_div2", "N + T", 2), ("q_N_div3", "N", 3)]
    lowered = result.ta
    assert lowered.parameters == ("N", "T", "q_N_plus_T_div2", "q_N_div3")
    assert [to_text(a) for a in lowered.assumptions[1:]] == [
        "2 * q_N_plus_T_div2 <= N + T", "N + T <= 2 * q_N_plus_T_div2 + 1",
        "3 * q_N_div3 <= N", "N <= 3 * q_N_div3 + 2"]
    assert to_text(lowered.rules[0].guard) == "x >= q_N_plus_T_div2 + 1 && y < q_N_plus_T_div2 && y >= q_N_div3"
    assert not has_division(lowered)
    assert not [d for d in validate(lowered) if d.severity.value == "error"]


def test_quotient_constraints_define_floor_for_all_natural_parameters():
    """A real proof: for all N, T >= 0 the two assumptions hold exactly when q = floor(e / c)."""
    for expr in ("(N + T) / 2", "(2 * N + T + 5) / 3", "N / 1", "(N + 3 * T) / 7"):
        lowered = lower(read_ta(automaton(guard=f"x >= {expr}")).ta)
        (q,) = lowered.quotients
        sym = int_symbols()
        defining = z3.And(*(to_z3(c, sym) for c in q.constraints()))
        floor = to_z3(q.dividend, sym) / q.divisor  # z3's integer div: floor for a positive divisor
        natural = z3.And(sym("N") >= 0, sym("T") >= 0)
        solver = z3.Solver()
        solver.add(natural, z3.Not(defining == (sym(q.name) == floor)))
        assert solver.check() == z3.unsat, expr


@pytest.mark.parametrize("spec", [
    "x / 2 >= N", "x / 2 > N", "x / 2 <= N", "x / 2 < N", "x / 2 == N", "x / 2 != N",
    "N >= (x + y) / 3", "N - (x + 1) / 3 < T", "(x - 5) / 4 + T == N", "-(x / 2) + N != 0",
    "2 * N <= (3 * x - y) / 5 + 1",
])
def test_divisions_over_shared_variables_are_rewritten_to_equivalent_comparisons(spec):
    """A real proof: over all integers, the rewritten comparison holds exactly when the original
    (with z3's floor division) does."""
    ta = read_ta(automaton(specs=f"p: []({spec});")).ta
    lowered = lower(ta)
    assert lowered.rewritten_comparisons == 1 and not lowered.quotients
    before = ta.properties[0].formula.arg
    after = lowered.ta.properties[0].formula.arg
    assert not any(isinstance(n, Div) for n in walk(after))
    sym = int_symbols()
    solver = z3.Solver()
    solver.add(to_z3(before, sym) != to_z3(after, sym))
    assert solver.check() == z3.unsat, (spec, to_text(after))


def test_divisions_in_macros_are_lowered_at_their_uses():
    ta = read_ta(automaton(extra="define HALF == (N + T) / 2; define TH == HALF + 1;",
                           guard="x >= TH", specs="p: [](y <= HALF);")).ta
    lowered = lower_division(ta)
    assert [d.name for d in lowered.defines] == []
    assert to_text(lowered.rules[0].guard) == "x >= q_N_plus_T_div2 + 1"
    assert to_text(lowered.properties[0].formula) == "[](y <= q_N_plus_T_div2)"


def test_fresh_names_avoid_every_name_of_the_automaton():
    ta = read_ta(automaton(extra="define q_N_div2 == N;", guard="x >= N / 2")).ta
    lowered = lower_division(ta)
    assert lowered.parameters == ("N", "T", "q_N_div2_2")


@pytest.mark.parametrize("guard, update, assumptions, message", [
    ("2 * (x / 2) >= N", "x' == x + 1", "N > 3 * T;", "has coefficient 2"),
    ("x / 2 >= y / 3", "x' == x + 1", "N > 3 * T;", "2 different divisions"),
    ("true", "x' == x + x / 2", "N > 3 * T;", "outside a comparison"),
    ("x >= (N - 5) / 2", "x' == x + 1", "N > 3 * T;", "can be negative under the resilience condition"),
])
def test_divisions_that_cannot_be_eliminated_exactly_are_refused(guard, update, assumptions, message):
    ta = read_ta(automaton(guard=guard, update=update, assumptions=assumptions)).ta
    with pytest.raises(DivisionNotSupported, match=message) as info:
        lower(ta)
    assert isinstance(info.value, ValueError) and info.value.span is not None


def test_a_non_negative_dividend_under_the_resilience_condition_is_accepted():
    ta = read_ta(automaton(guard="x >= (N - 5) / 2", assumptions="N > 3 * T; N >= 5;")).ta
    assert [q.name for q in lower(ta).quotients] == ["q_N_minus_5_div2"]


def test_check_reports_an_unsupported_division_for_every_property(cli, tmp_path):
    path = tmp_path / "coeff.ta"
    path.write_text(automaton(guard="2 * (x / 2) >= N"))
    r = cli("check", path, "--json")
    assert r.code == 3
    (prop,) = json.loads(r.out)["properties"]
    assert prop["verdict"] == "unsupported" and "unsupported division (at 9:21)" in prop["reason"]


# ----------------------------------------------------------------------------- end to end


def verdicts(cli, *args) -> dict[str, dict]:
    r = cli("check", HALVES, "--json", *args)
    assert r.code == 1, r.err
    assert "'q_n_plus_t_div2' is a new parameter for the division '(n + t) / 2'" in r.err
    return report_properties(json.loads(r.out))


def test_check_parametric_and_explicit_agree_on_a_division_guard(cli):
    parametric = verdicts(cli)
    bounded = verdicts(cli, "--engine", "explicit", "--bound", "5")
    for results in (parametric, bounded):
        assert results["majority"]["verdict"] == "holds"
        assert results["rounds_down"]["verdict"] == "violated"
        cex = results["rounds_down"]["counterexample"]
        assert cex["replayed"] is True
        params = cex["parameters"]
        assert (params["n"] + params["t"]) % 2 == 1  # only odd n + t round down below the bound
        assert params["q_n_plus_t_div2"] == (params["n"] + params["t"]) // 2
    assert "not a proof for all n" in bounded["majority"]["scope"]


def test_emit_writes_queries_without_division(cli, tmp_path):
    r = cli("emit", HALVES, "--to", "smtlib", "-o", tmp_path / "out")
    assert r.code == 0, r.err
    queries = sorted((tmp_path / "out").glob("*.smt2"))
    assert len(queries) == 2
    assert all("q_n_plus_t_div2" in q.read_text() and " div " not in q.read_text() for q in queries)
