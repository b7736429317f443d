"""The commands a user runs: show, fmt, dot, --version, --help."""

from __future__ import annotations

import json
import subprocess
import sys
import shutil

import pytest

from conftest import CORPUS, DATA
from tactl import __version__
from tactl.ir import print_ta, read_ta_file, ta_from_json

STRB = CORPUS / "strb" / "strb.ta"


def test_version_and_help(cli):
    r = cli("--version")
    assert (r.code, r.out.strip()) == (0, f"tactl {__version__}")
    r = cli("--help")
    assert r.code == 0
    for command in ("show", "fmt", "dot"):
        assert command in r.out
    for command, phrase in (("show", "safety or liveness"), ("fmt", "--in-place"), ("dot", "Graphviz")):
        r = cli(command, "--help")
        assert r.code == 0 and phrase in r.out


def test_show_summarises_the_automaton(cli):
    r = cli("show", STRB)
    assert r.code == 0 and r.err == ""
    lines = r.out.splitlines()
    assert lines[0] == f"{STRB}: threshold automaton STRB"
    assert "  parameters   n, t, f" in lines
    assert "  resilience   n > 3 * t" in lines
    assert "  locations    4 (2 initial)" in lines
    assert "    V0  [0]  initial" in lines and "    SE  [2]" in lines
    assert "  rules        8, monotone" in lines
    assert "    1  V0 -> SE  echo += 1  when echo >= RELAY - f" in lines
    assert "    4  SE -> AC             when echo >= ACCEPT - f" in lines
    assert "  properties   3 (1 safety, 2 liveness)" in lines
    assert "    unforgeability  safety    V1 == 0 -> [](AC == 0)" in lines


def test_show_prints_warnings_on_stderr_and_still_succeeds(cli):
    r = cli("show", DATA / "dialects" / "random_style.ta")
    assert r.code == 0
    assert r.err.count("warning: rule id") == 3
    assert "  rules        7, monotone" in r.out


def test_show_json_is_the_ir_and_reads_back(cli, tmp_path):
    r = cli("show", STRB, "--json")
    doc = json.loads(r.out)
    assert doc["format"] == "tactl.ta" and doc["rules"][1]["guard"]["op"] == ">="
    assert ta_from_json(doc) == read_ta_file(STRB).ta
    path = tmp_path / "strb.json"
    path.write_text(r.out)
    assert cli("show", path).out.splitlines()[1:] == cli("show", STRB).out.splitlines()[1:]


def test_show_flags_non_monotone_automata(cli, tmp_path):
    path = tmp_path / "dec.ta"
    path.write_text(STRB.read_text().replace("do { echo' == echo + 1; };", "do { echo' == echo - 1; };", 1))
    r = cli("show", path)
    assert r.code == 0
    assert "  rules        8, NOT monotone (1 update(s) do not only increment)" in r.out
    assert f"{path}:40:47: warning: update echo' == echo - 1" in r.err and "outside the monotone class" in r.err


def test_fmt_prints_the_canonical_form(cli):
    r = cli("fmt", STRB)
    assert r.code == 0
    assert r.out == print_ta(read_ta_file(STRB).ta)
    assert r.out.startswith("skel STRB {\n  local v;\n  shared echo;\n")


def test_fmt_writes_atomically_and_never_clobbers_the_input(cli, tmp_path):
    src = tmp_path / "strb.ta"
    src.write_text(STRB.read_text())
    before = src.read_bytes()
    out = tmp_path / "out.ta"
    r = cli("fmt", src, "-o", out)
    assert (r.code, r.err.strip()) == (0, f"wrote {out}")
    assert out.read_text() == print_ta(read_ta_file(STRB).ta)

    r = cli("fmt", src, "-o", tmp_path / "." / "strb.ta")
    assert r.code == 2 and "refusing to overwrite the input file; use --in-place" in r.err
    r = cli("fmt", src, "--in-place")  # the file has comments
    assert r.code == 2 and "has 8 comment(s)" in r.err and "--drop-comments" in r.err
    r = cli("fmt", src, "-o", out, "--in-place")
    assert r.code == 2 and "either -o OUT or --in-place" in r.err
    assert src.read_bytes() == before

    r = cli("fmt", src, "--in-place", "--drop-comments")
    assert r.code == 0 and src.read_text() == out.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_fmt_in_place_without_comments_and_into_missing_directory(cli, tmp_path):
    src = tmp_path / "plain.ta"
    src.write_text("skel P { shared x; locations { l: [0]; } rules { 0: l -> l when (1) do { x' = x + 1 }; } }")
    assert cli("fmt", src, "--in-place").code == 0
    assert "when (true)" in src.read_text() and "x' == x + 1;" in src.read_text()
    r = cli("fmt", src, "-o", tmp_path / "no" / "such" / "out.ta")
    assert r.code == 2 and "does not exist" in r.err


def test_bad_input_writes_no_output(cli, tmp_path):
    src = tmp_path / "bad.ta"
    src.write_text("skel P { locations { l: [0]; } rules { 0: l -> m when (true) do { }; } }")
    out = tmp_path / "out.ta"
    assert cli("fmt", src, "-o", out).code == 2
    assert cli("dot", src, "-o", tmp_path / "out.dot").code == 2
    assert not out.exists() and not (tmp_path / "out.dot").exists()


def test_dot_writes_a_graphviz_picture(cli, tmp_path):
    out = tmp_path / "strb.dot"
    r = cli("dot", STRB, "-o", out, "--hide-self-loops")
    assert r.code == 0
    text = out.read_text()
    assert text.startswith('digraph "STRB" {')
    assert '"V0" [label="V0", penwidth=2];' in text and '"SE" [label="SE"];' in text
    assert '"V0" -> "SE" [label="1: echo >= RELAY - f\\n/ echo += 1"];' in text
    assert '"V0" -> "V0"' not in text  # a stuttering self-loop


def test_dot_to_svg_needs_graphviz(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` program here
    r = cli("dot", STRB, "-o", tmp_path / "x.svg")
    assert r.code == 2 and "Graphviz's 'dot' program is not installed" in r.err
    assert not (tmp_path / "x.svg").exists()
    r = cli("dot", STRB, "-o", tmp_path / "x.jpeg")
    assert r.code == 2 and "unknown picture format '.jpeg'" in r.err


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_dot_to_svg_with_graphviz(cli, tmp_path):
    out = tmp_path / "x.svg"
    assert cli("dot", STRB, "-o", out).code == 0
    assert "<svg" in out.read_text() and "AC" in out.read_text()


def test_internal_errors_are_one_line_unless_debugging(cli, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("tactl.report.summary.summarize", broken)  # the CLI imports it when show runs
    r = cli("show", STRB)
    assert r.code == 4
    assert r.err.strip() == "tactl: internal error: RuntimeError: boom (run with --debug for details)"
    r = cli("--debug", "show", STRB)
    assert r.code == 4 and "Traceback" in r.err and "RuntimeError: boom" in r.err


def _console(*args: str, code: str = "") -> subprocess.CompletedProcess:
    """The console script's entry point (``tactl.cli:run``) in a process of its own."""
    script = f"import sys, tactl.cli\n{code}\nsys.argv = ['tactl', *{list(map(str, args))!r}]\ntactl.cli.run()"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


def test_the_console_script_skips_teardown_but_keeps_exit_status_output_and_atexit():
    """run() ends with os._exit when no other thread or worker process is left (issue 20: the
    interpreter's teardown freed z3 terms for ~30 ms): the exit status, every byte of output and
    the atexit handlers must be what a normal exit gives."""
    strb = CORPUS / "strb" / "strb.ta"
    checked = _console("check", strb, "--json")
    assert checked.returncode == 0, checked.stderr
    assert {p["verdict"] for p in json.loads(checked.stdout)["properties"]} == {"holds"}
    wrong = _console("check", strb, "-p", "nope")
    assert wrong.returncode == 2 and "no property named nope" in wrong.stderr
    said = _console("--version", code="import atexit; atexit.register(lambda: print('atexit ran'))")
    assert said.returncode == 0 and said.stdout.splitlines() == [f"tactl {__version__}", "atexit ran"]
    threaded = _console("--version", code="import threading, time\n"
                        "threading.Thread(target=lambda: (time.sleep(0.5), print('thread done'))).start()")
    assert threaded.returncode == 0 and "thread done" in threaded.stdout  # joined, as normally
