"""A CLI that reads well (issue 23, item 6): help at 80 columns with whole option names and no
Python types as metavars, for every command; -q and -v; shell completion; did-you-mean for
commands, properties, algorithms, variables and .alg keywords; ``check DIR`` points to verify;
one word for holds in check's and verify's summaries."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import typer

from conftest import CORPUS, REPO

from tactl.cli import app

PYTHON_TYPES = re.compile(r"<(bool|int|float|str|path|text|list|dict|tuple|int range|float range)"
                          r"[^>]*>|\b(BOOLEAN|TEXT|PATH|FLOAT)\b")


def _commands() -> list[list[str]]:
    """Every command path of the app: [], ['check'], ['cache', 'stats'], …"""
    out: list[list[str]] = []

    def walk(command, path: list[str]) -> None:
        out.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return out


def _options(path: list[str]) -> list[str]:
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return [opt for p in command.params if p.param_type_name == "option" and not p.hidden
            for opt in (*p.opts, *p.secondary_opts)]


@pytest.mark.parametrize("path", _commands(), ids=lambda p: " ".join(p) or "tactl")
def test_help_at_80_columns_shows_whole_option_names_and_no_python_types(cli, monkeypatch, path):
    monkeypatch.setenv("COLUMNS", "80")
    r = cli(*path, "--help")
    assert r.code == 0, r.err
    assert "…" not in r.out.replace("initially …", "")  # a cut name; the check help's own ellipsis aside
    assert not PYTHON_TYPES.search(r.out), PYTHON_TYPES.search(r.out)
    assert max(len(line) for line in r.out.splitlines()) <= 80
    options = _options(path)
    assert options or path == ["cache"]  # the names below are really read
    for option in options:
        assert re.search(rf"(^|[\s,/]){re.escape(option)}([\s,=]|$)", r.out, re.M), (option, r.out)


def test_check_help_head_starts_with_what_it_does_and_the_options_follow_soon(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    lines = cli("check", "--help").out.splitlines()
    assert lines[0] == "Usage: tactl check [OPTIONS] FILE"
    assert lines.index("Options:") < 20  # the engines' details come after the options


def test_quiet_hides_progress_and_wrote_lines_but_not_the_verdicts(cli, tmp_path):
    strb = CORPUS / "strb" / "strb.ta"
    loud, quiet = cli("check", strb), cli("check", strb, "-q")
    untimed = lambda text: re.sub(r"\d+\.\d+ s", "T", text)  # noqa: E731
    assert loud.code == quiet.code == 0 and untimed(loud.out) == untimed(quiet.out)
    assert "tactl: [1/3] checking unforgeability ..." in loud.err and quiet.err == ""
    assert cli("-q", "check", strb).err == ""  # global too
    dot = cli("-q", "dot", strb, "-o", tmp_path / "s.dot")
    assert dot.code == 0 and dot.err == "" and (tmp_path / "s.dot").is_file()
    assert cli("check", strb, "-q", "-v").code == 2  # not both


def test_verbose_adds_the_engines_notes_and_verify_explains_the_cache(cli, tmp_path):
    strb = CORPUS / "strb" / "strb.ta"
    plain, verbose = cli("check", strb, "-p", "relay"), cli("check", strb, "-p", "relay", "-v")
    notes = set(verbose.err.splitlines()) - set(re.sub(r"\d+\.\d+ s", "", plain.err).splitlines())
    assert any("antecedent" in n for n in notes), verbose.err
    v = cli("verify", "strb", "-v", "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert v.code == 0 and "cache" in v.err and "translate" in v.err  # --explain's lines


def test_shell_completion_is_offered_and_completes_commands_and_corpus_names(cli, monkeypatch):
    # Typer asks shellingham which shell runs tactl by walking up the process tree; a suite started
    # in the background (reparented to init) or by a CI runner has no shell above it, and Typer then
    # answers "Shell  not supported." Which shell the user has is shellingham's concern, not ours.
    import shellingham  # lazy: only this test needs it (Typer's dependency)

    monkeypatch.setattr(shellingham, "detect_shell", lambda *a, **k: ("bash", "/bin/bash"))
    r = cli("--show-completion", "bash")
    assert r.code == 0 and "_TACTL_COMPLETE=complete_bash" in r.out
    env = {**os.environ, "_TACTL_COMPLETE": "complete_bash"}

    def complete(words: str) -> list[str]:
        done = subprocess.run([sys.executable, "-c", "from tactl.cli import run; run()"], cwd=REPO,
                              env={**env, "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)},
                              capture_output=True, text=True, timeout=60)
        return done.stdout.split()

    assert complete("tactl chec") == ["check"]
    assert complete("tactl verify phase_") == ["phase_king", "phase_queen"]
    assert "--property" in complete("tactl check --prop")


def test_did_you_mean_for_a_command_a_property_and_an_algorithm(cli):
    assert "Did you mean 'check'" in cli("chek", "x.ta").err
    r = cli("check", CORPUS / "strb" / "strb.alg", "-p", "relya")
    assert r.code == 2 and "did you mean 'relay'?" in r.err
    r = cli("verify", "strbb", "--no-progress")
    assert r.code == 2 and "did you mean 'strb'?" in r.err
    r = cli("check", CORPUS / "strb" / "strb.ta", "--engine", "explict")
    assert r.code == 2 and "did you mean 'explicit'?" in r.err
    r = cli("emit", CORPUS / "strb" / "strb.ta", "--to", "smtlb", "-o", "x")
    assert r.code == 2 and "did you mean 'smtlib'?" in r.err
    assert "Possible options: --progress, --property" in cli("check", CORPUS / "strb" / "strb.ta", "--proprty", "x").err


STRB = (CORPUS / "strb" / "strb.alg").read_text()


@pytest.mark.parametrize("old, new, meant", [
    ("upon receiving ECHO from t + 1", "upon recieving ECHO from t + 1", "'receiving'"),
    ("    send ECHO to all", "    sned ECHO to all", "'send'"),
    ("loop forever:", "lop forever:", "'loop'"),
    ("    v := 1", "    vv := 1", "'v'"),
    ("send ECHO to all", "send ECHOO to all", "'ECHO'"),
    ("eventually (some accept)", "eventually (some acept)", "'accept'"),
])
def test_did_you_mean_in_pseudocode(cli, tmp_path, old, new, meant):
    assert old in STRB
    path = tmp_path / "m.alg"
    path.write_text(STRB.replace(old, new, 1))
    r = cli("parse", path)
    assert r.code == 2 and f"did you mean {meant}?" in r.err, r.err
    assert r.err.startswith(f"{path}:") and "Traceback" not in r.err


def test_alg_syntax_errors_name_what_a_user_writes_not_grammar_terminals(cli, tmp_path):
    path = tmp_path / "m.alg"
    path.write_text(STRB.replace("upon receiving ECHO from t + 1", "upon recieving ECHO from t + 1"))
    err = cli("parse", path).err
    expected = err.split("(expected: ", 1)[1].split("); did you mean")[0]
    assert "a comparison (<, <=, ==, !=, >=, >)" in expected and "':'" in expected
    assert not re.search(r"\b(cmp_op|colon|comma|lpar|rpar|sum_op|mul_op|bot)\b", err), err


def test_check_of_a_directory_says_to_verify_it(cli):
    r = cli("check", CORPUS / "strb")
    assert r.code == 2 and f"'tactl verify {CORPUS / 'strb'}'" in r.err and "(none)" not in r.err


def test_one_word_for_holds_in_check_and_verify(cli, tmp_path):
    check = cli("check", CORPUS / "strb" / "strb.ta", "-q")
    verify = cli("verify", "strb", "-q", "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert check.code == verify.code == 0
    assert "3 hold, 0 violated, 0 unknown, 0 unsupported" in check.out
    assert "3 hold, 0 violated, 0 unknown, 0 unsupported" in verify.out
    assert "holds," not in check.out + verify.out
