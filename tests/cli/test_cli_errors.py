"""Bad input through the real CLI: `file:line:col: message`, the source line, a caret, exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SMALL = """skel P {
  shared x;
  parameters N, T;
  assumptions (1) { N > 3 * T; }
  locations (2) {
    a: [0];
    b: [1];
  }
  inits (2) {
    a == N;
    b == 0;
  }
  rules (1) {
    0: a -> b when (x >= T + 1) do { x' == x + 1; };
  }
  specifications (1) { s: [](b == 0); }
}
"""

CASES = {
    "truncated": (SMALL[: SMALL.index(" + 1) do")], 14, 27,
                  "unexpected end of file: the '(' at 14:20 is never closed"),
    "unknown location": (SMALL.replace("0: a -> b", "0: a -> c"), 14, 13,
                         "unknown location 'c'"),
    "non-linear guard": (SMALL.replace("x >= T + 1", "x >= T * N"), 14, 26,
                         "non-linear term 'T * N': only multiplication by a constant is allowed "
                         "(threshold automata use linear integer arithmetic)"),
    "missing semicolon": (SMALL.replace("    a == N;", "    a == N"), 10, 11,
                          "expected ';' after 'N' (found 'b')"),
    "division": (SMALL.replace("N > 3 * T", "N > T / T"), 4, 29,
                 "the divisor of '/' must be a positive integer constant, found 'T' (tactl "
                 "divides only by constants, which keeps the arithmetic linear)"),
    "unterminated comment": (SMALL.replace("  shared x;", "  /* shared x;"), 2, 3,
                             "unterminated comment: '/*' without a closing '*/'"),
    "stray character": (SMALL.replace("b == 0;", "b == 0; $"), 11, 13, "unexpected character '$'"),
    "term as guard": (SMALL.replace("(x >= T + 1)", "(x + 1)"), 14, 21,
                      "expected a condition, found the term 'x + 1' (compare it with something, e.g. '>= 1')"),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_input_reports_position_source_line_and_caret(cli, tmp_path, case):
    text, line, col, message = CASES[case]
    path = tmp_path / "bad.ta"
    path.write_text(text)
    result = cli("show", path)
    assert result.code == 2
    assert result.out == ""
    first, source_line, caret = result.err.splitlines()[:3]
    assert first == f"{path}:{line}:{col}: {message}"
    if line <= len(text.splitlines()):
        assert source_line == "  " + text.splitlines()[line - 1]
        assert caret.index("^") == 2 + col - 1
    assert "Traceback" not in result.err


def test_missing_file_and_directory_and_non_utf8(cli, tmp_path):
    assert cli("show", tmp_path / "none.ta").err.strip() == f"{tmp_path / 'none.ta'}: cannot read: No such file or directory"
    (tmp_path / "d.ta").mkdir()
    assert cli("show", tmp_path / "d.ta").err.strip() == (
        f"{tmp_path / 'd.ta'}: is a directory, not a file ('tactl verify {tmp_path / 'd.ta'}' "
        "verifies every algorithm in a directory)")
    (tmp_path / "bin.ta").write_bytes(b"skel P {\n  \xff\xfe }")
    r = cli("show", tmp_path / "bin.ta")
    assert (r.code, r.err.strip()) == (2, f"{tmp_path / 'bin.ta'}:2:3: the file is not UTF-8 text")


def test_inputs_are_recognised_by_extension(cli, tmp_path):
    (tmp_path / "x.txt").write_text(SMALL)
    r = cli("show", tmp_path / "x.txt")
    assert r.code == 2 and "unrecognised file type '.txt'" in r.err
    (tmp_path / "x.rta").write_text("")  # read as a receive automaton: an empty one is an error
    r = cli("show", tmp_path / "x.rta")
    assert r.code == 2 and f"{tmp_path / 'x.rta'}:1:1: unexpected end of file" in r.err
    (tmp_path / "x.alg").write_text("")
    r = cli("show", tmp_path / "x.alg")  # read as pseudocode: an empty one is an error
    assert r.code == 2 and f"{tmp_path / 'x.alg'}:1:1: missing 'algorithm NAME' line" in r.err


def test_usage_errors_exit_2(cli):
    assert cli("show").code == 2
    assert cli("frobnicate").code == 2
    assert cli("show", "--no-such-option", "x.ta").code == 2


def test_the_installed_command_never_shows_a_traceback(tmp_path):
    exe = Path(sys.executable).with_name("tactl")
    if not exe.exists():
        pytest.skip("the tactl console script is not installed beside this Python")
    bad = tmp_path / "bad.ta"
    bad.write_text(CASES["unknown location"][0])
    proc = subprocess.run([exe, "show", bad], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{bad}:14:13: unknown location 'c'")
    assert "Traceback" not in proc.stderr
