"""TACO's extended threshold automata (``.eta``): read by the .ta reader with ``extended=True``
(``ir/ta/eta.lark`` for TACO's extra spellings, ``ir/ta/validate.py`` for its updates), printed
canonically, round-tripped, and read by every command through the ``read-eta`` pass.

TACO's own reset benchmarks are read when a TACO checkout is found (``TACTL_TACO``: its work
tree, or its git directory), and skipped otherwise; they are never copied into this repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import taco_reset_benchmarks
from tactl.ir import print_ta, read_ta, ta_from_json, ta_to_json
from tactl.ir.errors import InputError
from tactl.ir.expr import IntConst
from tactl.ir.ta.model import Update

DATA = Path(__file__).resolve().parents[1] / "data" / "eta"
OURS = sorted(DATA.glob("*.eta"))


def _read(path: Path):
    return read_ta(path.read_text(encoding="utf-8"), str(path), extended=True)


# ------------------------------------------------------------------------------------ reading

def test_resets_read_as_updates_to_zero_without_a_warning():
    result = _read(DATA / "reset.eta")
    assert result.warnings == []
    [restart] = [r for r in result.ta.rules if r.id == 2]
    assert [(u.var, u.expr) for u in restart.updates] == [("x", IntConst(0)), ("y", IntConst(0))]
    assert not result.ta.is_monotone  # the engines still see what resets mean


def test_the_same_text_as_a_ta_file_still_warns_about_each_reset():
    text = (DATA / "reset.eta").read_text(encoding="utf-8")
    warnings = read_ta(text, "reset.ta").warnings
    assert len(warnings) == 2 and all("monotone" in w.message for w in warnings)


def test_taco_spellings_assignments_decrements_and_not_equal():
    ta = _read(DATA / "taco_spellings.eta").ta
    rules = {r.id: r for r in ta.rules}
    assert Update("b", IntConst(0)) not in rules[1].updates
    assert {u.var: u.increment() for u in rules[1].updates if u.var == "b"} == {"b": -2}
    assert rules[0].guard.op == "!="  # `=!` reads as `!=`, and prints so
    assert [p.name for p in ta.properties] == ["never_all", "bounded"]
    assert ta.name == "Spellings"


@pytest.mark.parametrize("text", [
    "TA x { locations { l: [0]; } rules { } }",
    "skel x { shared a; locations { l: [0]; } rules { 0: l -> l when (a =! 1) do { }; } }",
    "skel x { locations { l: [0]; } rules { } spec { s: [](l == 0) } }",
])
def test_taco_only_spellings_stay_refused_in_a_ta_file(text):
    read_ta(text, "x.eta", extended=True)
    with pytest.raises(InputError):
        read_ta(text, "x.ta")


# ------------------------------------------------------------------------------ bad input

BAD = [
    # an update TACO has no meaning for: neither increment, decrement nor reset
    ("skel x { shared a, b; locations { l: [0]; } rules {\n"
     "  0: l -> l when (true) do { a' := b; }; } }", 2, 30, "not an increment"),
    ("skel x { shared a; parameters n; locations { l: [0]; } rules {\n"
     "  0: l -> l when (true) do { a' == a + n; }; } }", 2, 30, "not an increment"),
    ("skel x { shared a; locations { l: [0]; } rules {\n"
     "  0: l -> l when (true) do { a' == 3; }; } }", 2, 30, "a reset (a' == 0)"),
    # syntax: a missing right-hand side, an unknown operator
    ("skel x { shared a; locations { l: [0]; } rules {\n"
     "  0: l -> l when (true) do { a' := ; }; } }", 2, 36, "unexpected ';'"),
    ("skel x { shared a; locations { l: [0]; } rules {\n"
     "  0: l -> l when (a % 2 == 0) do { }; } }", 2, 19, "'%' is not supported"),
]


@pytest.mark.parametrize(("text", "line", "col", "message"), BAD)
def test_bad_input_is_refused_at_its_position(text, line, col, message):
    with pytest.raises(InputError) as caught:
        read_ta(text, "bad.eta", extended=True)
    [first, *_] = caught.value.diagnostics
    assert message in first.message
    assert (first.span.line, first.span.col) == (line, col)


def test_cli_refuses_bad_input_with_file_line_col_and_exit_2(cli, tmp_path):
    path = tmp_path / "bad.eta"
    path.write_text(BAD[0][0], encoding="utf-8")
    r = cli("show", path)
    assert r.code == 2 and r.out == ""
    assert r.err.startswith(f"{path}:2:30: update a' == b is not an increment")


# ------------------------------------------------------------------------- printing, round trip

def _round_trips(text: str, name: str) -> None:
    original = read_ta(text, name, extended=True).ta
    printed = print_ta(original)
    reread = read_ta(printed, "printed.eta", extended=True)
    assert reread.ta == original and reread.warnings == []
    assert print_ta(reread.ta) == printed  # the canonical form is a fixed point
    assert ta_from_json(json.loads(json.dumps(ta_to_json(original)))) == original


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_our_files_round_trip(path):
    _round_trips(path.read_text(encoding="utf-8"), str(path))


def test_every_command_that_reads_a_ta_reads_an_eta(cli, tmp_path):
    path = DATA / "reset.eta"
    shown = cli("show", path)
    assert (shown.code, shown.err) == (0, "")
    doc = json.loads(cli("show", "--json", path).out)
    assert doc["format"] == "tactl.ta" and doc["name"] == "Reset"
    printed = cli("fmt", path).out
    out = tmp_path / "canonical.eta"
    assert cli("fmt", path, "-o", out).code == 0
    assert out.read_text(encoding="utf-8") == printed
    again = cli("fmt", out)
    assert (again.out, again.err) == (printed, "")
    assert cli("dot", path, "-o", tmp_path / "r.dot").code == 0
    checked = cli("check", path, "--no-progress")
    # outside the parametric engine's fragment: check hands the property to the chc engine
    assert checked.code == 1 and "VIOLATED" in checked.out and "warning" not in checked.err
    assert "checked by the chc engine" in checked.out
    report = tmp_path / "report"
    verified = cli("verify", path, "--no-cache", "--no-progress", "--report-dir", report)
    assert "VIOLATED" in verified.out and (report / "report.json").is_file()


def test_unknown_suffix_message_names_eta(cli, tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("skel x { }", encoding="utf-8")
    r = cli("show", path)
    assert r.code == 2 and ".eta files" in r.err


# ------------------------------------------------------------------- TACO's reset benchmarks

_TACO = taco_reset_benchmarks()


@pytest.mark.skipif(not _TACO, reason="no TACO checkout found (set TACTL_TACO)")
def test_taco_has_thirteen_reset_benchmarks():
    assert len(_TACO) == 13


@pytest.mark.parametrize("name", sorted(_TACO) or [pytest.param(
    None, marks=pytest.mark.skip(reason="no TACO checkout found (set TACTL_TACO)"))])
def test_taco_reset_benchmarks_read_without_warnings_and_round_trip(name):
    result = read_ta(_TACO[name], name, extended=True)
    assert result.warnings == []
    assert any(u.expr == IntConst(0) for r in result.ta.rules for u in r.updates)
    _round_trips(_TACO[name], name)
