"""``define`` macros: expanded once (a DAG), measured without walking the expansion, bounded.

``define D1 == D0 + D0; define D2 == D1 + D1; …`` doubles the expanded tree
with every line, and a chain of 2,000 defines took 26 s to validate. The validator now refuses a
macro whose expansion exceeds ``MAX_MACRO_NODES`` nodes or ``MAX_NESTING`` levels, at its
``define``, and checks a chain in linear time.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import walked_nodes
from tactl.ir import InputError, read_ta
from tactl.ir.ta import model as ta_module
from tactl.ir.ta import validate as validate_module
from tactl.ir.expr import Name, Sum
from tactl.ir.ta.model import Shape, expanded_shape
from tactl.ir.ta.reader import parse_ta
from tactl.ir.ta.validate import MAX_NESTING


def automaton(defines: list[str], guard: str = "x >= T + 1", init: str = "a == N - F") -> str:
    """A small valid automaton with ``defines`` (line 5 onwards, one per line) and ``guard``."""
    lines = ["skel M {", "  local pc;", "  shared x;", "  parameters N, T, F;"]
    lines += [f"  define {d};" for d in defines]
    lines += ["  assumptions (2) { N > 3 * T; T >= F; }", "  locations (2) { a: [0]; b: [1]; }",
              f"  inits (3) {{ {init}; b == 0; x == 0; }}",
              f"  rules (1) {{ 0: a -> b when ({guard}) do {{ x' == x + 1; }}; }}",
              "  specifications (1) { p: a == 0 -> [](b == 0); }", "}"]
    return "\n".join(lines) + "\n"


def doublings(n: int) -> list[str]:
    return ["D0 == T"] + [f"D{i} == D{i - 1} + D{i - 1}" for i in range(1, n + 1)]


def errors_of(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(InputError) as info:
        read_ta(text, "m.ta")
    return [(d.span.line, d.span.col, d.message) for d in info.value.diagnostics]


# ------------------------------------------------------------------------------ exponential growth

def test_25_doublings_are_refused_through_the_cli_at_the_first_macro_too_large(tmp_path):
    exe = Path(sys.executable).with_name("tactl")
    if not exe.exists():
        pytest.skip("the tactl console script is not installed beside this Python")
    path = tmp_path / "doubling.ta"
    path.write_text(automaton(doublings(25), guard="x >= D25"))
    proc = subprocess.run([exe, "show", path], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    first, source, caret = proc.stderr.splitlines()[:3]
    # D0 == T is one node; D1 == D0 + D0 three; from D2 on, the first argument (a sum) is
    # flattened into the new sum: 6, 12, …, 3 * 2**16 = 196,608 for D17, the first beyond 100,000.
    assert first == (
        f"{path}:22:10: macro 'D17' expands to 196,608 nodes (more than 100,000): a macro is copied "
        "in full wherever it is used, so macros that use others several times grow exponentially; "
        "8 more macro(s) that use it, up to 'D25' (50,331,648 nodes), are refused with it")
    assert source == "    define D17 == D16 + D16;"  # the source line, indented by two
    assert caret == "           ^^^"
    assert len(proc.stderr.splitlines()) == 3  # one error, nothing about D18 … D25 or their uses


def test_the_sizes_are_computed_without_building_the_trees():
    ta = parse_ta(automaton(doublings(200)))  # 2**200 nodes: no walk could finish
    shape = ta.macro_shapes["D200"]
    assert shape.size == ta_module.SIZE_CAP  # counted up to the cap
    assert shape.height == 200
    assert errors_of(automaton(doublings(200)))[0][:2] == (22, 10)  # still D17, at once


def test_doublings_within_the_limit_are_accepted_and_expanded_as_a_dag():
    ta = read_ta(automaton(doublings(15), guard="x >= D15")).ta
    assert ta.macro_shapes["D15"] == Shape(3 * 2**14, 15, Sum)
    body = ta.macro_bodies["D15"]
    assert body.args[-1] is ta.macro_bodies["D14"]  # shared, not copied


# ------------------------------------------------------------------------------------ long chains

def test_a_chain_of_2000_defines_is_a_flat_sum_and_is_accepted():
    # D_i == D_{i-1} + 1: substitution flattens a sum that starts with a sum, so D1999 expands
    # to the flat T + 1 + 1 + … + 1 (2,000 arguments, height 1), not a tree 2,000 levels deep.
    defines = ["D0 == T"] + [f"D{i} == D{i - 1} + 1" for i in range(1, 2000)]
    ta = read_ta(automaton(defines, guard="x >= D1999")).ta
    body = ta.expand(Name("D1999"))
    assert isinstance(body, Sum) and len(body.args) == 2000
    assert ta.macro_shapes["D1999"] == Shape(2001, 1, Sum)


def test_a_chain_nested_to_the_right_is_refused_for_depth():
    # D_i == 1 + D_{i-1}: the earlier macro is a parenthesised group on the right, so each
    # define adds a level; D201 is the first deeper than MAX_NESTING (the readers' limit).
    defines = ["D0 == T"] + [f"D{i} == 1 + D{i - 1}" for i in range(1, 2000)]
    (line, col, message), = errors_of(automaton(defines, guard="x >= D1999"))
    assert (line, col) == (5 + 201, 10)
    assert message.startswith(f"macro 'D201' is nested 201 levels deep once expanded (more than "
                              f"{MAX_NESTING}), too deep for the passes that walk expressions; "
                              "1798 more macro(s) that use it, up to 'D1999' (1999 levels)")


def test_a_chain_of_2000_defines_is_validated_in_linear_work(monkeypatch):
    """No timing: the nodes the reader and validator visit grow 10x for 10x the defines.

    The old cycle check searched the macro graph from every define (quadratic, with a copy of
    the path at each step: cubic), and every use of a macro walked its expanded body.
    """
    def visits(n: int) -> int:
        defines = ["D0 == T"] + [f"D{i} == D{i - 1} + 1" for i in range(1, n)]
        uses = " && ".join(f"x >= D{i}" for i in range(0, n, max(1, n // 20)))
        return walked_nodes(monkeypatch, lambda: read_ta(automaton(defines, guard=uses)))

    small, large = visits(200), visits(2000)
    assert large < 15 * small, (small, large)


def test_too_large_in_total():
    # each D_i == D_{i-1} + 1 has i + 2 nodes, fine alone; together they would hold n²/2 copies
    n = 5000
    defines = ["D0 == T"] + [f"D{i} == D{i - 1} + 1" for i in range(1, n)]
    ((line, col, message),) = errors_of(automaton(defines))
    assert message.startswith("the macros expand to more than 10,000,000 nodes in total with 'D")
    assert line > 5 + 4000


# ----------------------------------------------------------------------------------- macro uses

def test_a_use_nested_deep_enough_is_refused_where_the_macro_is_used():
    deep = "T" + "".join(" + (1" for _ in range(150)) + ")" * 150  # 150 levels
    negs = "-(" * 60 + "M" + ")" * 60
    text = automaton([f"M == {deep}"], guard=f"x >= {negs}")
    ((line, col, message),) = errors_of(text)
    # the comparison, 60 negations, then the macro's 150 levels
    assert line == 9 and message == ("expanding the macros in a rule guard gives an expression nested "
                                     "211 levels deep (more than 200); 'M' alone is 150 levels deep")
    assert text.splitlines()[line - 1][col - 1] == "M"


def test_a_long_sum_as_written_is_not_a_macro_problem(monkeypatch):
    monkeypatch.setattr(validate_module, "MAX_MACRO_NODES", 50)  # instead of a 100,000-term sum
    terms = " + ".join(["a"] * 60)
    ta = read_ta(automaton(["K == T + 1"], init=f"{terms} + K == N - F")).ta
    assert ta.initial_locations() == ("a",)
    big = " + ".join(["K"] * 30)  # but 30 uses of a 3-node macro add 59 (the first is flattened)
    ((_, _, message),) = errors_of(automaton(["K == T + 1"], init=f"{big} == N - F"))
    assert message == ("expanding the macros in the initial constraints adds 59 nodes (more than 50); "
                       "'K' alone is 3 nodes")


def test_macro_referring_to_a_location_through_other_macros():
    text = automaton(["A == a + 1", "B == T + A", "C == B + B"], guard="x >= C")
    assert errors_of(text) == [(11, 36, "macro 'C' refers to the location 'a', which cannot appear in "
                                        "a rule guard (guards read shared variables and parameters)")]


def test_cycles_are_reported_for_every_macro_on_them_and_only_those():
    text = automaton(["A == B + 1", "B == C + 1", "C == A + T", "D == A + 1", "E == E"])
    assert errors_of(text) == [
        (5, 10, "macro defined in terms of itself: A -> B -> C -> A"),
        (6, 10, "macro defined in terms of itself: B -> C -> A -> B"),
        (7, 10, "macro defined in terms of itself: C -> A -> B -> C"),
        (9, 10, "macro defined in terms of itself: E -> E"),
    ]


def test_the_existing_macro_example_still_reads():
    # tests/frontends/test_ta_validate.py's base automaton uses TH == T + 1 in a guard
    ta = read_ta(automaton(["TH == T + 1"], guard="x >= TH - F")).ta
    assert ta.expand(ta.rules[0].guard) == read_ta(automaton([], guard="x >= T + 1 - F")).ta.rules[0].guard


# ------------------------------------------------------------------------ shapes are exact

def _tree_shape(e) -> tuple[int, int]:
    size, height, stack = 0, 0, [(e, 0)]
    while stack:
        node, depth = stack.pop()
        size += 1
        height = max(height, depth)
        stack.extend((c, depth + 1) for c in node.children())
    return size, height


@pytest.mark.parametrize("seed", range(40))
def test_expanded_shapes_match_the_expanded_trees(seed):
    rng = random.Random(seed)
    names = ["T", "N", "x"]
    defines = []
    for i in range(rng.randint(1, 7)):
        pool = names + [f"M{j}" for j in range(i)]
        parts = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
        body = parts[0]
        for p in parts[1:]:
            form = rng.choice(["{a} + {b}", "{a} - {b}", "{b} + ({a})", "2 * {b}", "-({a}) + {b}"])
            body = form.format(a=body, b=p)
        defines.append(f"M{i} == {body}")
    ta = parse_ta(automaton(defines))
    for d in ta.defines:
        tree = ta.macro_bodies[d.name]
        assert (ta.macro_shapes[d.name].size, ta.macro_shapes[d.name].height) == _tree_shape(tree)
    # and an expression using them, with the first macro where a sum would flatten it
    use = parse_ta(automaton(defines, guard=f"x >= {ta.defines[-1].name} + {ta.defines[0].name}"))
    guard = use.rules[0].guard
    shape = expanded_shape(guard, use.macro_shapes)
    assert (shape.size, shape.height) == _tree_shape(use.expand(guard))
