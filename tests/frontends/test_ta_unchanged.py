"""`unchanged(...)` repeating a name, or naming a variable the rule also updates: read as ByMC
reads it (a rule's updates are one conjunction of `x' == e` constraints), with a warning."""

from __future__ import annotations

import itertools
import json

import pytest

from tactl.ir import InputError, read_ta
from tactl.ir.errors import Severity
from tactl.ir.evaluate import evaluate, holds
from tactl.ir.expr import Compare, to_text
from tactl.ir.ta.printer import print_ta


def automaton(actions: str, spec: str = "p: [](b == 0);") -> str:
    return f"""skel U {{
  shared x, y;
  parameters N;
  assumptions (1) {{ N >= 1; }}
  locations (3) {{ a: [0]; c: [1]; b: [2]; }}
  inits (5) {{ a == N; c == 0; b == 0; x == 0; y == 0; }}
  rules (2) {{
    0: a -> c when (true) do {{ y' == y + 1; unchanged(x); }};
    1: c -> b when (y >= 1) do {{ {actions} }};
  }}
  specifications (1) {{ {spec} }}
}}
"""


def col(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based column of the ``occurrence``-th ``needle`` on line 9 (rule 1) of ``text``."""
    line, at = text.splitlines()[8], -1
    for _ in range(occurrence):
        at = line.index(needle, at + 1)
    return at + 1


def warnings_of(text: str) -> list[tuple[int, int, str]]:
    result = read_ta(text, "u.ta")
    assert all(w.severity is Severity.WARNING for w in result.warnings)
    return [(w.span.line, w.span.col, w.message) for w in result.warnings]


def test_a_name_listed_twice_is_kept_once_with_a_warning():
    text = automaton("unchanged(x, y, x);")
    first, again = col(text, "x, y"), col(text, "x);")
    assert warnings_of(text) == [(9, again, f"'x' is listed as unchanged again in rule 1 (first at 9:{first}); "
                                         "ByMC reads a rule's updates as one conjunction, so the "
                                         "repetition changes nothing and is dropped")]
    assert read_ta(text).ta == read_ta(automaton("unchanged(x, y);")).ta


def test_a_name_listed_in_two_unchanged_groups_is_kept_once():
    text = automaton("unchanged(x); unchanged(y); unchanged(x);")
    assert [(line, c) for line, c, _ in warnings_of(text)] == [(9, col(text, "x);", 2))]
    assert read_ta(text).ta == read_ta(automaton("unchanged(x, y);")).ta


def test_an_updated_variable_listed_as_unchanged_gets_bymc_conjunction():
    text = automaton("x' == x + 1; unchanged(x, y);")
    ((line, column, message),) = warnings_of(text)
    assert (line, column) == (9, col(text, "x, y);"))
    assert message.startswith("'x' is both updated (x' == x + 1) and listed as unchanged in rule 1")
    assert "fires only where x == x + 1 holds before the step (never, here)" in message
    rule = read_ta(text).ta.rules[1]
    assert to_text(rule.guard) == "y >= 1 && x == x + 1"
    assert all(u.is_identity for u in rule.updates) and [u.var for u in rule.updates] == ["x", "y"]
    # exactly what the rule written that way means, and that re-reads without warnings
    assert read_ta(text).ta == read_ta(automaton("unchanged(x, y);").replace(
        "when (y >= 1)", "when (y >= 1 && x == x + 1)")).ta


def test_an_assignment_x_equals_x_with_unchanged_is_one_update():
    text = automaton("x' == x; unchanged(x);")
    ((_, _, message),) = warnings_of(text)
    assert "the same update, kept once" in message
    assert read_ta(text).ta == read_ta(automaton("unchanged(x);")).ta


@pytest.mark.parametrize("update", ["x' == x + 1", "x' == 0", "x' == y", "x' == x", "x' == x + y - 1"])
def test_rule_relation_is_the_conjunction_bymc_reads(update):
    """For every pre-state in a box, tactl's rule fires (and leads where it leads) exactly when
    ByMC's conjunction `guard && x' == e && x' == x` has a solution (which is then x' == x)."""
    ta = read_ta(automaton(f"{update}; unchanged(x);")).ta
    rule = ta.rules[1]
    (written,) = [u for u in read_ta(automaton(f"{update};")).ta.rules[1].updates]
    fired = 0
    for x, y, n in itertools.product(range(4), range(4), range(1, 3)):
        env = {"x": x, "y": y, "N": n}
        bymc = y >= 1 and evaluate(written.expr, env) == x  # x' == e and x' == x
        assert holds(rule.guard, env) == bymc, env
        if bymc:
            fired += 1
            post = {u.var: evaluate(u.expr, env) for u in rule.updates}
            assert post["x"] == x
    assert fired == 0 if update == "x' == x + 1" else fired > 0


def test_two_assignments_stay_an_error_even_with_unchanged():
    with pytest.raises(InputError) as info:
        read_ta(automaton("x' == x + 1; x' == x + 2; unchanged(x);"), "u.ta")
    assert any("'x' is updated twice in rule 1" in d.message for d in info.value.diagnostics)


def test_printer_output_rereads_cleanly():
    for actions in ("unchanged(x, y, x);", "x' == x + 1; unchanged(x, y);", "x' == 0; unchanged(y, x);"):
        ta = read_ta(automaton(actions)).ta
        printed = print_ta(ta)
        again = read_ta(printed)
        assert again.ta == ta and again.warnings == []
        assert print_ta(again.ta) == printed


def test_cli_prints_positioned_warnings_and_checks_bymc_semantics(cli, tmp_path):
    path = tmp_path / "u.ta"
    text = automaton("x' == x + 1; unchanged(x);")
    path.write_text(text)
    at = col(text, "x);")
    r = cli("check", path, "--json")
    first, source_line, caret = r.err.splitlines()[:3]
    assert first.startswith(f"{path}:9:{at}: warning: 'x' is both updated (x' == x + 1)")
    assert source_line == "  " + text.splitlines()[8]
    assert caret.index("^") == 2 + at - 1
    # the rule into b never fires (x == x + 1 is false), so b stays empty: with both engines
    assert r.code == 0 and json.loads(r.out)["properties"][0]["verdict"] == "holds"
    r = cli("check", path, "--engine", "explicit", "--bound", "3")
    assert r.code == 0 and "HOLDS" in r.out
    # with a reset, ByMC's conjunction allows the step while x == 0: b is reachable
    path.write_text(automaton("x' == 0; unchanged(x);"))
    r = cli("check", path, "--json")
    assert r.code == 1
    cex = json.loads(r.out)["properties"][0]["counterexample"]
    assert cex["replayed"] is True and cex["configurations"][-1]["shared"]["x"] == 0


def test_show_reads_it_with_exit_0(cli, tmp_path):
    path = tmp_path / "u.ta"
    text = automaton("unchanged(x, x);")
    path.write_text(text)
    r = cli("show", path)
    assert r.code == 0 and f"{path}:9:{col(text, 'x);')}: warning: 'x' is listed as unchanged again" in r.err
    assert "Traceback" not in r.err


def test_the_added_guard_condition_points_at_the_unchanged_name():
    text = automaton("x' == x + 1; unchanged(x);")
    rule = read_ta(text).ta.rules[1]
    condition = rule.guard.args[-1]  # type: ignore[attr-defined]
    assert isinstance(condition, Compare) and condition.span is not None
    assert (condition.span.line, condition.span.col) == (9, col(text, "x);"))
