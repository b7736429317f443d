"""The preprocessor conditionals of ByMC's Promela (ir/promela/cpp.py): the kept branch is
exactly cpp's, positions stay the file's, and what it does not read is refused with a position."""

from __future__ import annotations

import re

import pytest

from conftest import GUARD_S, SHARED_BENCHMARKS
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.ir.errors import InputError
from tactl.ir.promela.cpp import preprocess
from tactl.util import deadline

TEXT = """\
#define A 1
#ifdef A
kept_a
#else
dropped_a
#endif
#ifndef B
kept_not_b
  #ifdef B
  dropped_nested
  #else
  kept_nested
  #endif
#endif
#pragma option "piaDom.thresholds=0,T"
/*
#if this is a comment, not a directive
*/
#define FLAG
#ifdef FLAG
kept_flag
#endif
last"""


def test_the_kept_lines_are_cpps_and_keep_their_numbers():
    out = preprocess(TEXT, "t.pml").split("\n")
    assert len(out) == len(TEXT.split("\n"))
    kept = {line.strip() for line in out if line.strip()}
    assert {"kept_a", "kept_not_b", "kept_nested", "kept_flag", "last"} <= kept
    assert not {"dropped_a", "dropped_nested", "#define FLAG", "#define A 1"} & kept  # substituted instead
    assert not any(line.lstrip().startswith(("#ifdef", "#else", "#endif", "#pragma", "#define")) for line in out)
    assert out[TEXT.split("\n").index("kept_a")] == "kept_a"  # same line number


def test_command_line_defines_choose_the_other_branch():
    out = preprocess(TEXT, "t.pml", defines=("B",))
    assert not {"kept_not_b", "kept_nested", "dropped_nested"} & set(out.split("\n"))  # the outer #ifndef B is out
    assert preprocess("#ifdef B\nx\n#else\ny\n#endif", "t.pml", defines=("B",)).split("\n") == ["", "x", "", "", ""]


def test_plain_files_are_left_alone():
    plain = "symbolic int T;\nint x = 0; /* #define */\n"
    assert preprocess(plain, "t.pml") == plain


@pytest.mark.parametrize("text,line,says", [
    ("a\n#if N > 3\nb\n#endif\n", 2, "'#if' is not supported"),
    ("#include \"x.pml\"\n", 1, "'#include' is not supported"),
    ("#ifdef A\na\n", 1, "no '#endif'"),
    ("a\n#endif\n", 2, "without an open"),
    ("#ifdef A\n#else\n#else\n#endif\n", 3, "a second '#else'"),
    ("#ifdef\n#endif\n", 1, "exactly one name"),
])
def test_what_it_does_not_read_is_refused_with_a_position(text, line, says):
    with pytest.raises(InputError) as e:
        preprocess(text, "t.pml")
    first = e.value.first
    assert first.span is not None and first.span.line == line and says in first.message


def test_an_unsupported_directive_in_a_dropped_branch_is_ignored_as_cpp_does():
    assert "x" not in preprocess("#ifdef NO\n#include \"x\"\nx\n#endif\n", "t.pml")


FMCAD13 = SHARED_BENCHMARKS / "bymc-promela" / "fmcad13"


@pytest.mark.skipif(not FMCAD13.is_dir(), reason=f"ByMC Promela benchmarks not found at {FMCAD13}")
@pytest.mark.parametrize("flag,relay", [("", "holds"), ("#define NGE3T\n", "violated")])
def test_the_branch_decides_the_model(tmp_path, flag, relay):
    # bcast-byz with its resilience condition chosen by a conditional, as ISOLA'18's strb.pml
    # writes it: n > 3t keeps relay, n >= 3t starves it (fmcad13's bcast-byz-Nge3T).
    text = (FMCAD13 / "bcast-byz.pml").read_text()
    assert "assume(N > 3 * T);" in text
    text = flag + text.replace("assume(N > 3 * T);", "#ifndef NGE3T\nassume(N > 3 * T);\n#else\n"
                               "assume(N >= 3 * T); /* starvation */\n#endif")
    path = tmp_path / "byz.pml"
    path.write_text(text)
    loaded = load_automaton(path)
    with deadline.clock(GUARD_S):
        result = {r.name: r for r in check_automaton(loaded.ta, str(path), CheckOptions()).results}
    assert result["relay"].verdict == relay
    if relay == "violated":
        assert result["relay"].counterexample is not None and result["relay"].counterexample.replayed


def test_a_refusal_in_the_cli_has_the_files_position(cli, tmp_path):
    path = tmp_path / "bad.pml"
    path.write_text("symbolic int N;\n#if N > 3\n#endif\n")
    out = cli("check", path)
    assert out.code == 2 and re.search(rf"{re.escape(str(path))}:2:1: '#if' is not supported", out.err), out.err
    assert "^" in out.err and "Traceback" not in out.err


def _nge3t_variant(tmp_path):
    text = (FMCAD13 / "bcast-byz.pml").read_text()
    path = tmp_path / "byz.pml"
    path.write_text(text.replace("assume(N > 3 * T);", "#ifndef NGE3T\nassume(N > 3 * T);\n#else\n"
                                 "assume(N >= 3 * T);\n#endif"))
    return path


@pytest.mark.skipif(not FMCAD13.is_dir(), reason=f"ByMC Promela benchmarks not found at {FMCAD13}")
def test_minus_d_chooses_the_branch_in_every_command(cli, tmp_path):
    path = _nge3t_variant(tmp_path)
    assert cli("check", path, "-p", "relay").code == 0
    out = cli("check", path, "-p", "relay", "-D", "NGE3T")
    assert out.code == 1 and "VIOLATED" in out.out, out.err
    plain, defined = tmp_path / "plain.rta", tmp_path / "defined.rta"
    assert cli("parse", path, "-o", plain).code == 0 and cli("parse", path, "-D", "NGE3T", "-o", defined).code == 0
    assert "N > 3 * T" in plain.read_text() and "N >= 3 * T" in defined.read_text()
    for command in (("show",), ("translate",), ("emit", "--to", "smtlib", "-o", tmp_path / "smt")):
        assert cli(*command, path, "-D", "NGE3T").code == 0, command


@pytest.mark.skipif(not FMCAD13.is_dir(), reason=f"ByMC Promela benchmarks not found at {FMCAD13}")
def test_minus_d_is_part_of_the_cache_key(cli, tmp_path):
    # the same text with and without -D is two models: the cached parse of one must never answer
    # for the other
    path, cache = _nge3t_variant(tmp_path), tmp_path / "cache"
    args = ("verify", path, "-p", "relay", "--cache-dir", cache, "--report-dir", tmp_path / "r", "--json")
    first = cli(*args)
    assert first.code == 0, first.err
    second = cli(*args, "-D", "NGE3T")
    assert second.code == 1, second.err
    third = cli(*args)
    assert third.code == 0 and '"hit"' in third.out, third.out


def test_minus_d_is_refused_where_it_means_nothing(cli, tmp_path):
    rta = tmp_path / "x.rta"
    rta.write_text("rta X { parameters n; assumptions (0) { n > 0; } faults byzantine(n); timing async;"
                   " messages M; locations A; initial A; rules (0) { } specifications (0) { } }")
    out = cli("check", rta, "-D", "X")
    assert out.code == 2 and "-D defines names for a Parametric Promela file" in out.err, out.err
    out = cli("check", tmp_path / "y.pml", "-D", "1X")
    assert out.code == 2 and "must be an identifier" in out.err and "Traceback" not in out.err, out.err
