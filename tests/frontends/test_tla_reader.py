"""TLA+ modules of the threshold-automaton fragment (``ir/tla``, ``passes/tla_to_ta``): our own
small modules in both styles (TACO's ``ProcessesLocations`` and a counter system), each bad one
with the position and message it must give (its first line says them), every command through
the ``read-tla`` pass, and — when ``make taco-tla`` has fetched them, or a mirror of the
repositories is found — TACO's eleven ``examples/tla/`` modules and lmcs20's Tendermint module
against their ``.ta`` twins: same verdict per property, same rules up to naming.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ISOLA18, assert_positioned_error, verdicts
from ta_equivalence import compare
from tactl.driver.inputs import load_automaton
from tactl.ir.errors import InputError
from tactl.ir.expr import Always, to_text
from tactl.ir.tla.reader import parse_tla
from tactl.passes.tla_to_ta.reading import read_tla

DATA = Path(__file__).resolve().parents[1] / "data" / "tla"
BAD = sorted((DATA / "bad").glob("*.tla"))
CACHE = Path.home() / ".cache" / "tactl" / "benchmarks"
MIRRORS = {"taco-tla": (os.environ.get("TACTL_TACO", "/work/.mirror/pleich+TACO/repo"), "examples/tla"),
           "lmcs20": ("/work/.mirror/konnov+fault-tolerant-benchmarks/repo", "lmcs20")}


def _read(name: str):
    path = DATA / name
    return read_tla(path.read_text(encoding="utf-8"), str(path))


# ------------------------------------------------------------------------ our own modules

def test_taco_style_module_reads_as_its_automaton():
    ta = _read("rb.tla").ta
    assert [loc.name for loc in ta.locations] == ["V0", "V1", "SE", "AC"]
    assert ta.parameters == ("N", "T", "F") and ta.shared == ("nsnt",)
    assert [to_text(a) for a in ta.assumptions] == ["N > 3 * T", "T >= F", "F >= 0"]
    assert [to_text(i) for i in ta.inits] == ["V0 + V1 == N - F", "SE == 0", "AC == 0", "nsnt == 0"]
    assert [(r.id, r.source, r.target, to_text(r.guard)) for r in ta.rules] == [
        (0, "V1", "SE", "true"), (1, "V0", "SE", "nsnt >= T + 1 - F"), (2, "SE", "AC", "nsnt >= N - T - F")]
    assert to_text(ta.properties[0].formula) == "V1 == 0 -> [](AC == 0)"


def test_a_state_predicate_is_checked_as_an_invariant_and_said_so():
    result = _read("rb.tla")
    [prop] = [p for p in result.ta.properties if p.name == "notAllEarly"]
    assert isinstance(prop.formula, Always)
    assert any("notAllEarly" in w.message and "invariant" in w.message for w in result.warnings)


def test_counter_system_module_reads_as_its_automaton():
    ta = _read("counters.tla").ta
    assert [loc.name for loc in ta.locations] == ["init", "voted", "done0", "done1"]
    assert ta.shared == ("votes_0", "votes_1")
    assert [to_text(i) for i in ta.inits][:2] == ["init == N - F", "voted == 0"]
    moves = sorted((r.source, r.target, to_text(r.guard)) for r in ta.rules)
    # the enabling counters["voted"] > 0 is the rule's source, not a guard; stuttering adds no rule
    assert moves == [("init", "voted", "true"), ("init", "voted", "true"),
                     ("voted", "done0", "votes_0 + F >= N - T"), ("voted", "done1", "votes_1 + F >= N - T")]
    assert [r.origin.text for r in ta.rules][:2] == ['Vote with v = "0"', 'Vote with v = "1"']


@pytest.mark.parametrize("name, expected", [
    ("rb.tla", {"unforg": "holds", "noAccept": "violated", "notAllEarly": "holds"}),
    ("counters.tla", {"Agreement": "holds", "NoDecision": "violated", "NoEarlyDecision": "holds"}),
])
def test_verdicts_of_our_modules(name, expected):
    assert {k: str(v) for k, v in verdicts(DATA / name).items()} == expected


def test_bulleted_lists_follow_tla_column_rule():
    module = parse_tla("VARIABLES x, y\n"
                       "A ==\n"
                       "  /\\ x = 1\n"
                       "  /\\ \\/ y = 1\n"
                       "     \\/ y = 2\n"
                       "  /\\ \\E v \\in {1, 2}: x = v\n"
                       "  /\\ y = 3\n")
    body = module.definitions[0].body
    assert body.op == "and" and len(body.args) == 4  # the quantifier does not swallow the last item
    assert body.args[1].op == "or" and len(body.args[1].args) == 2
    assert body.args[2].op == "exists"


def _expected(path: Path) -> tuple[int, int, str]:
    m = re.match(r"\\\* error: (\d+):(\d+): (.*)", path.read_text(encoding="utf-8").splitlines()[0])
    assert m, f"{path.name}: the first line says '\\* error: LINE:COL: message'"
    return int(m.group(1)), int(m.group(2)), m.group(3)


@pytest.mark.parametrize("path", BAD, ids=[p.name for p in BAD])
def test_outside_the_fragment_is_an_error_at_its_position(path):
    text = path.read_text(encoding="utf-8")
    line, col, message = _expected(path)
    with pytest.raises(InputError) as caught:
        read_tla(text, str(path))
    first = caught.value.first
    assert (first.span.line, first.span.col) == (line, col), caught.value.render()
    assert message in first.message
    assert_positioned_error(caught.value, text, str(path))


def test_deep_nesting_is_an_error_not_a_crash():
    depth = 3000
    text = "---- MODULE deep ----\nVARIABLES x\nA == " + "(" * depth + "x" + ")" * depth + " = 1\n===="
    with pytest.raises(InputError, match="nested too deeply"):
        read_tla(text, "deep.tla")


# ------------------------------------------------------------------------------ commands

def test_check_reads_tla(cli):
    result = cli("check", DATA / "rb.tla")
    assert result.code == 1  # one property violated
    assert "noAccept" in result.out and "VIOLATED" in result.out
    assert "in the TLA+ module (" in result.out and "executes Rule0" in result.out


def test_translate_writes_the_automaton_and_check_gives_the_same_verdicts(cli, tmp_path):
    out = tmp_path / "rb.ta"
    assert cli("translate", DATA / "rb.tla", "-o", out).code == 0
    assert verdicts(out) == verdicts(DATA / "rb.tla")
    printed = cli("translate", DATA / "counters.tla")
    assert printed.code == 0 and printed.out.startswith("skel counters {")


@pytest.mark.parametrize("args, code", [
    (("show",), 0), (("emit", "--to", "smtlib", "-o", "{tmp}"), 0), (("dot", "-o", "{tmp}.dot"), 0),
    (("verify", "--no-cache", "--report-dir", "{tmp}"), 1),  # rb.tla's noAccept is violated
])
def test_other_commands_read_tla(cli, tmp_path, args, code):
    args = tuple(a.replace("{tmp}", str(tmp_path / "out")) for a in args)
    result = cli(*args[:1], DATA / "rb.tla", *args[1:])
    assert result.code == code, result.err


def test_the_language_server_lists_a_modules_rules_and_properties(cli):
    result = cli("lsp", "--symbols", DATA / "rb.tla")
    assert result.code == 0
    assert "rule               0: V1 -> SE" in result.out and "property           noAccept" in result.out


def test_fmt_in_place_keeps_a_module_a_module(cli, tmp_path):
    path = tmp_path / "rb.tla"
    path.write_text((DATA / "rb.tla").read_text(encoding="utf-8"), encoding="utf-8")
    result = cli("fmt", "--in-place", path)
    assert result.code == 2 and "-o X.ta" in result.err
    assert path.read_text(encoding="utf-8") == (DATA / "rb.tla").read_text(encoding="utf-8")


def test_standard_input_is_recognised_by_the_module_header(cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((DATA / "counters.tla").read_bytes())))
    result = cli("check", "-")
    assert result.code == 1 and result.out.startswith("<stdin>: counters, 4 locations")


def test_a_bad_module_exits_2_with_file_line_col_and_caret(cli):
    path = DATA / "bad" / "unconstrained.tla"
    result = cli("check", path)
    assert result.code == 2
    assert f"{path}:8:1: Rule0 leaves y' unconstrained" in result.err
    assert "\n  ^^^^^" in result.err


# ------------------------------------------------------- TACO's examples and lmcs20's Tendermint

def _fetched(folder: str, pattern: str) -> dict[str, str]:
    """name -> text, from the cache ``make taco-tla`` fills, else from a git mirror; {} if neither."""
    cached = CACHE / folder
    if cached.is_dir() and any(cached.glob(pattern)):
        return {p.name: p.read_text(encoding="utf-8") for p in sorted(cached.glob(pattern))}
    root, sub = MIRRORS[folder]
    if not Path(root).is_dir():
        return {}
    listed = subprocess.run(["git", "-C", root, "ls-tree", "--name-only", "HEAD", sub + "/"],
                            capture_output=True, text=True)
    names = [n for n in listed.stdout.split() if Path(n).match(pattern)] if listed.returncode == 0 else []
    return {Path(n).name: subprocess.run(["git", "-C", root, "show", f"HEAD:{n}"], capture_output=True,
                                         text=True, check=True).stdout for n in names}


TACO = _fetched("taco-tla", "*.tla")
LMCS20 = _fetched("lmcs20", "*")
needs_taco = pytest.mark.skipif(not TACO, reason="TACO's examples/tla not found: run make taco-tla")
# TACO's SRB.tla (its documentation's example) has no .ta twin among the ISOLA'18 automata or
# TACO's benchmarks; the other ten are the ISOLA'18 automata.
TWINNED = sorted(n for n in TACO if n != "SRB.tla")


def _expanded(ta):
    """``ta`` with its macros expanded (the ISOLA'18 files name thresholds with ``define``)."""
    return replace(ta, rules=tuple(replace(r, guard=ta.expand(r.guard)) for r in ta.rules), defines=())


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@needs_taco
def test_taco_examples_are_all_there():
    assert len(TACO) == 11


@needs_taco
@pytest.mark.parametrize("name", sorted(TACO))
def test_taco_example_reads(name):
    ta = read_tla(TACO[name], name).ta
    assert ta.locations and ta.rules and ta.properties


@needs_taco
@pytest.mark.skipif(not ISOLA18.is_dir(), reason=f"ISOLA'18 automata not found at {ISOLA18}")
@pytest.mark.parametrize("name", TWINNED)
def test_taco_example_is_its_isola18_twin(name, tmp_path):
    mine = load_automaton(_write(tmp_path, name, TACO[name]))
    twin = load_automaton(ISOLA18 / name.replace(".tla", ".ta"))
    assert sorted(loc.name for loc in mine.ta.locations) == sorted(loc.name for loc in twin.ta.locations)
    assert sorted(mine.ta.shared) == sorted(twin.ta.shared)
    assert compare(mine.ta, _expanded(twin.ta), {}) == []
    ours, theirs = verdicts(mine.ta, name), verdicts(twin.ta, name)
    # bosco's lemma3_2, lemma3_3 are the twin's lemma4_0, lemma4_1
    renamed = {"lemma3_2": "lemma4_0", "lemma3_3": "lemma4_1"} if name == "bosco.tla" else {}
    assert {renamed.get(k, k): v for k, v in ours.items()} == theirs


@pytest.mark.skipif("Tendermint_1round_safety.tla" not in LMCS20, reason="lmcs20 not found: run make taco-tla")
def test_tendermint_counter_system_gives_its_twins_agreement(tmp_path):
    mine = load_automaton(_write(tmp_path, "Tendermint_1round_safety.tla", LMCS20["Tendermint_1round_safety.tla"]))
    twin = load_automaton(_write(tmp_path, "tendermint-1round-safety.ta", LMCS20["tendermint-1round-safety.ta"]))
    assert sorted(loc.name for loc in mine.ta.locations) == [
        "decide0", "decide1", "nodecision", "precommit", "prevote", "propose"]
    ours = verdicts(mine.ta, "tendermint")
    theirs = verdicts(twin.ta, "tendermint", properties=("agreement0", "agreement1"))
    # RoundAgreementInv (decide0 = 0 \/ decide1 = 0, an invariant) is agreement0 /\ agreement1
    assert {str(v) for v in theirs.values()} == {str(ours["RoundAgreementInv"])} == {"holds"}
