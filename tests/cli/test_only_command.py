"""The entry point builds only the command a process runs (tactl/cli/entry.py, ``only_command``):
what the user sees — help, usage errors, suggestions — is the whole app's."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tactl.cli import app
from tactl.cli.entry import only_command


def _names(typer_app) -> list[str]:
    return [c.name or c.callback.__name__ for c in typer_app.registered_commands]


@pytest.mark.parametrize("args, command", [
    (["check", "x.ta"], "check"),
    (["-q", "check", "x.ta"], "check"),
    (["--debug", "run", "x.alg"], "run"),
])
def test_a_command_is_built_alone(args, command):
    one = only_command(app, args)
    assert _names(one) == [command] and one.registered_groups == []
    assert len(app.registered_commands) > 1  # the app itself is left whole


@pytest.mark.parametrize("args", [[], ["--help"], ["--version"], ["chekc", "x.ta"], ["cache", "--help"]])
def test_without_a_single_command_the_whole_app_runs(args):
    assert only_command(app, args) is app


def test_shell_completion_sees_every_command(monkeypatch):
    monkeypatch.setenv("_TACTL_COMPLETE", "bash_complete")
    assert only_command(app, ["check"]) is app


@pytest.mark.parametrize("args", [["check", "--help"], ["run", "--help"], ["check"], ["check", "--engine"]])
def test_what_the_user_sees_is_the_same(args):
    runner = CliRunner()
    whole = runner.invoke(app, args, prog_name="tactl")
    alone = runner.invoke(only_command(app, args), args, prog_name="tactl")
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
    assert whole.output
