"""Expression IR: printing/parsing agreement, linear normal forms, z3 conversion."""

from __future__ import annotations

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from tactl.ir.errors import Span
from tactl.ir.expr import (
    Always,
    BoolConst,
    Compare,
    Eventually,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    Sum,
    add,
    conj,
    const,
    disj,
    sub,
    substitute,
    to_text,
)
from tactl.ir.linear import LinearAtom, LinearTerm, NonLinearError, linearize, normalize, to_z3
from tactl.ir.ta.reader import parse_ta


def parse_formula(text: str):
    return parse_ta(f"skel P {{ specifications {{ p: {text}; }} }}").properties[0].formula


def parse_term(text: str):
    return parse_formula(f"{text} == 0").left


# ------------------------------------------------------------------------------ strategies

NAMES = st.sampled_from(["x", "y", "nsnt", "N", "T", "F"])
LITERALS = st.integers(min_value=0, max_value=40).map(IntConst)


def _fold_sum(first, rest):
    result = first
    for op, arg in rest:
        result = (add if op == "+" else sub)(result, arg)
    return result


def terms(linear_only: bool = False):
    def extend(children):
        sums = st.builds(_fold_sum, children,
                         st.lists(st.tuples(st.sampled_from("+-"), children), min_size=1, max_size=3))
        scaled = st.builds(lambda k, t, left: Mul(IntConst(k), t) if left else Mul(t, IntConst(k)),
                           st.integers(0, 7), children, st.booleans())
        options = [st.builds(Neg, children), sums, scaled]
        if not linear_only:
            options.append(st.builds(Mul, children, children))
        return st.one_of(*options)

    return st.recursive(st.one_of(LITERALS, NAMES.map(Name)), extend, max_leaves=8)


COMPARES = st.builds(Compare, st.sampled_from(["<", "<=", "==", "!=", ">=", ">"]), terms(), terms())


def formulas():
    def extend(children):
        lists = st.lists(children, min_size=2, max_size=3)
        return st.one_of(
            st.builds(Not, children), st.builds(Always, children), st.builds(Eventually, children),
            st.builds(Implies, children, children),
            lists.map(lambda xs: conj(*xs)), lists.map(lambda xs: disj(*xs)))

    return st.recursive(st.one_of(COMPARES, st.booleans().map(BoolConst)), extend, max_leaves=6)


# ------------------------------------------------------------------------------ printing


@settings(max_examples=300, deadline=None)
@given(formulas())
def test_printed_formula_reparses_to_the_same_tree(f):
    assert parse_formula(to_text(f)) == f


@settings(max_examples=200, deadline=None)
@given(terms())
def test_printed_term_reparses_to_the_same_tree(t):
    assert parse_term(to_text(t)) == t


@pytest.mark.parametrize("text, expected", [
    ("a - (b - c) >= 0", "a - (b - c) >= 0"),
    ("(a - b) - c >= 0", "a - b - c >= 0"),
    ("a + (b + c) >= 0", "a + (b + c) >= 0"),
    ("2 * (x + y) < N", "2 * (x + y) < N"),
    ("-(x + 1) > -1", "-(x + 1) > -1"),
    ("(a == 0 && b == 0) || c == 0", "(a == 0 && b == 0) || c == 0"),
    ("a == 0 && (b == 0 || c == 0)", "a == 0 && (b == 0 || c == 0)"),
    ("a == 0 -> b == 0 -> c == 0", "(a == 0 -> b == 0) -> c == 0"),  # left-associative (ByMC)
    ("a == 0 -> (b == 0 -> c == 0)", "a == 0 -> (b == 0 -> c == 0)"),
    ("(a == 0 -> b == 0) -> c == 0", "(a == 0 -> b == 0) -> c == 0"),
    ("<>[](x == 0)", "<>[](x == 0)"),
    ("!(x == 0)", "!(x == 0)"),
    ("((((x >= 1))))", "x >= 1"),
])
def test_canonical_text_has_only_needed_and_customary_parentheses(text, expected):
    assert to_text(parse_formula(text)) == expected


def test_spans_locate_nodes_but_do_not_affect_equality():
    f = parse_formula("x >= T + 1")
    assert f.left.span == Span(1, 30, 1, 31)  # "skel P { specifications { p: " is 29 columns
    assert f == Compare(">=", Name("x"), Sum((Name("T"), IntConst(1)), ("+",)))


def test_smart_constructors_keep_the_invariants():
    a, b, c = (Compare("==", Name(n), IntConst(0)) for n in "abc")
    assert conj(conj(a, b), c) == conj(a, conj(b, c))
    assert conj() == BoolConst(True) and disj() == BoolConst(False) and conj(a) == a
    assert const(-3) == Neg(IntConst(3))
    with pytest.raises(ValueError):
        IntConst(-1)
    x, y, z = Name("x"), Name("y"), Name("z")
    assert sub(add(x, y), z) == Sum((x, y, z), ("+", "-"))  # (x + y) - z is x + y - z
    assert add(x, sub(y, z)) == Sum((x, Sum((y, z), ("-",))), ("+",))  # x + (y - z) keeps its group
    with pytest.raises(ValueError):
        Sum((Sum((x, y), ("+",)), z), ("+",))


def test_substitute_expands_macros():
    e = parse_term("2 * THRESH - F")
    assert substitute(e, {"THRESH": parse_term("N + T")}) == parse_term("2 * (N + T) - F")


# --------------------------------------------------------------------------- linear forms


def test_linearize_collects_coefficients():
    t = linearize(parse_term("2 * (x + y) - 3 * x + N - (1 - T) * 1 + 4"))
    assert t == LinearTerm.of({"x": -1, "y": 2, "N": 1, "T": 1}, 3)
    assert str(t) == "N + T - x + 2 * y + 3"


def test_linearize_rejects_products_of_variables_with_their_position():
    with pytest.raises(NonLinearError) as info:
        linearize(parse_term("x + N * T"))
    assert "N * T" in str(info.value)
    assert info.value.span == Span(1, 34, 1, 39)


@pytest.mark.parametrize("text, atom", [
    ("x < 3", LinearAtom((("x", -1),), ">=", -2)),
    ("x <= N", LinearAtom((("N", 1), ("x", -1)), ">=", 0)),
    ("2 * x >= 3", LinearAtom((("x", 1),), ">=", 2)),
    ("2 * x > 3", LinearAtom((("x", 1),), ">=", 2)),
    ("-2 * x >= 3", LinearAtom((("x", -1),), ">=", 2)),  # x <= -3/2 over the integers
    ("2 * x + 4 * y != 6", LinearAtom((("x", 1), ("y", 2)), "!=", 3)),
    ("0 - x == 2", LinearAtom((("x", 1),), "==", -2)),
    ("nsnt >= T + 1 - F", LinearAtom((("F", 1), ("T", -1), ("nsnt", 1)), ">=", 1)),
])
def test_normalize_gives_the_canonical_atom(text, atom):
    assert normalize(parse_formula(text)) == atom


@pytest.mark.parametrize("text, value", [
    ("1 < 2", True), ("x - x > 0", False), ("2 * x == 3", False), ("2 * x != 3", True),
])
def test_normalize_decides_constant_and_unsatisfiable_atoms(text, value):
    assert normalize(parse_formula(text)) is value


def _atom_to_z3(atom, sym):
    lhs = z3.Sum([a * sym(x) for x, a in atom.coeffs])
    return {">=": lhs >= atom.bound, "==": lhs == atom.bound, "!=": lhs != atom.bound}[atom.op]


@settings(max_examples=200, deadline=None)
@given(st.builds(Compare, st.sampled_from(["<", "<=", "==", "!=", ">=", ">"]),
                 terms(linear_only=True), terms(linear_only=True)))
def test_normal_form_is_equivalent_over_the_integers(c):
    table = {}

    def sym(name):
        return table.setdefault(name, z3.Int(name))

    original = to_z3(c, sym)
    atom = normalize(c)
    normal = z3.BoolVal(atom) if isinstance(atom, bool) else _atom_to_z3(atom, sym)
    solver = z3.Solver()
    solver.add(original != normal)
    assert solver.check() == z3.unsat


def test_to_z3_builds_formulas_and_refuses_what_has_no_lia_meaning():
    f = parse_formula("x >= T + 1 - F && !(y == 0) -> x > y")
    s = z3.Solver()
    s.add(z3.Not(to_z3(f) == z3.Implies(
        z3.And(z3.Int("x") >= z3.Int("T") + 1 - z3.Int("F"), z3.Int("y") != 0), z3.Int("x") > z3.Int("y"))))
    assert s.check() == z3.unsat
    with pytest.raises(NonLinearError):
        to_z3(parse_formula("N * T > 0"))
    with pytest.raises(ValueError, match="temporal"):
        to_z3(parse_formula("[](x == 0)"))
