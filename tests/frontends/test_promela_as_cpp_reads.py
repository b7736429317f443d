"""Reading Parametric Promela (the trust-round4 reproducers A1, B1, B2, D1, D2, D3): a file
means what cpp and SPIN make of it. Each test edits the small
tests/data/promela/echo.pml the way its finding's reproducer edits ByMC's bcast-byz.pml, so the
tests run without the shared folder; each fails on the main branch before the fix."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from conftest import DATA, GUARD_S, check_results, write
from tactl.ir.errors import InputError
from tactl.ir.rta.printer import print_rta
from tactl.ir.promela.reader import parse_promela
from tactl.passes.pml_to_rta.translation import translate_promela

ECHO = DATA / "promela" / "echo.pml"
BASE = ECHO.read_text()
ECHO_GUARD = "next_nrcvd >= T + 1"


def edited(*pairs: tuple[str, str], head: str = "") -> str:
    """echo.pml with each (old, new) replaced once, and ``head`` after the header comment."""
    text = BASE
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text.replace("#define IT", head + "#define IT", 1)


def reading(text: str) -> str:
    """The receive automaton tactl reads from ``text`` (as echo.pml, so names agree)."""
    return print_rta(translate_promela(parse_promela(text, str(ECHO))).rta)


def verdicts(tmp_path: Path, text: str) -> dict:
    """The results on ``text`` as a .pml file, by property name."""
    return check_results(write(tmp_path, "echo.pml", text), timeout_s=GUARD_S)


# --------------------------------------------------------------- A1: macros are token substitution

def test_a1_a_macro_is_its_text_not_its_value(tmp_path):
    # '#define ONE 2 - 1': 'T + 2 - ONE' is 'T + 2 - 2 - 1' (T - 1), as cpp and ByMC read it;
    # main evaluated ONE to 1 and read T + 1, where unforg holds
    macro = edited((ECHO_GUARD, "next_nrcvd >= T + 2 - ONE"), head="#define ONE 2 - 1\n")
    by_hand = edited((ECHO_GUARD, "next_nrcvd >= T + 2 - 2 - 1"))
    assert reading(macro) == reading(by_hand)
    assert reading(macro) != reading(BASE)
    result = verdicts(tmp_path, macro)["unforg"]
    assert result.verdict == "violated", result.verdict
    assert result.counterexample is not None and result.counterexample.replayed


def test_a1_every_place_a_macro_is_written_is_substituted_as_text():
    # copy count, resilience condition, receive bound, guard, proposition and ltl formula: the
    # macro's text at the use, with the precedence of its surroundings
    pairs = [("active[N - F]", "active[N - FF]"), ("assume(N > 3 * T);", "assume(N > 3 * TT - T);"),
             ("<= nsnt + F)", "<= nsnt + FF)"), ("next_nrcvd >= N - T ->", "next_nrcvd >= N - TMINUS ->"),
             ("some(Proc:pc == AC)", "some(Proc:pc == ACC)"),
             ("[]((prec_init && prec_unforg) -> []!ex_acc)", "[](PRE -> []!ex_acc)")]
    head = ("#define FF F + 0\n#define TT T + T\n#define TMINUS T - 0\n#define ACC AC\n"
            "#define PRE (prec_init && prec_unforg)\n")
    macro = edited(*pairs, head=head)
    by_hand = edited(("active[N - F]", "active[N - F + 0]"), ("assume(N > 3 * T);", "assume(N > 3 * T + T - T);"),
                     ("<= nsnt + F)", "<= nsnt + F + 0)"), ("next_nrcvd >= N - T ->", "next_nrcvd >= N - T - 0 ->"),
                     ("some(Proc:pc == AC)", "some(Proc:pc == 3)"),
                     ("[]((prec_init && prec_unforg) -> []!ex_acc)", "[]((prec_init && prec_unforg) -> []!ex_acc)"))
    assert reading(macro) == reading(by_hand)


# ------------------------------------------------------- B1: a macro means nothing before its define

def test_b1_a_use_before_the_define_is_an_undeclared_name(cli, tmp_path):
    text = edited((ECHO_GUARD, "next_nrcvd >= T + K")) + "#define K 5\n"
    path = tmp_path / "echo.pml"
    path.write_text(text)
    out = cli("check", path)
    line = next(i for i, t in enumerate(text.split("\n"), 1) if "T + K" in t)
    col = text.split("\n")[line - 1].index("K)") + 1
    assert out.code == 2, out.err
    assert f"{path}:{line}:{col}: unknown name 'K'" in out.err, out.err
    assert f"'#define K' comes only at line {text.count(chr(10))}" in out.err and "^" in out.err
    assert "Traceback" not in out.err


# ------------------------------------------------------------------------ B2: declared type widths

def test_b2_a_value_outside_the_declared_width_is_refused_where_it_is_assigned(cli, tmp_path):
    # 'bit pc' holds 0..1; SE = 2 and AC = 3 do not fit (SPIN would truncate them)
    text = edited(("byte pc = 0, next_pc = 0;", "bit pc = 0, next_pc = 0;"))
    path = tmp_path / "echo.pml"
    path.write_text(text)
    out = cli("check", path)
    assert out.code == 2, out.err
    line = next(i for i, t in enumerate(text.split("\n"), 1) if "next_pc = AC" in t)
    col = text.split("\n")[line - 1].index("next_pc = AC") + 1
    assert f"{path}:{line}:{col}: 'next_pc' is declared bit (0..1) but gets the value 3" in out.err, out.err


@pytest.mark.parametrize("old,new,says", [
    ("byte pc = 0, next_pc = 0;", "byte pc = 256, next_pc = 0;", "'pc' is declared byte (0..255) but gets the value 256"),
    (":: pc = RI;", ":: pc = 300;", "'pc' is declared byte (0..255) but gets the value 300"),
    ("int nrcvd = 0, next_nrcvd = 0;", "byte nrcvd = 0, next_nrcvd = 0;", "'nrcvd' is a receive count"),
    ("int nsnt = 0;", "short nsnt = 0;", "'nsnt' is a shared counter"),
])
def test_b2_every_width_is_honoured(old, new, says):
    text = edited((old, new))
    with pytest.raises(InputError) as e:
        reading(text)
    d = e.value.first
    assert says in d.message and d.span is not None
    assert new.split()[0] in text.split("\n")[d.span.line - 1] or "pc = 300" in text.split("\n")[d.span.line - 1]


def test_b2_values_that_fit_are_read_as_before():
    assert reading(edited(("byte pc = 0, next_pc = 0;", "short pc = 0, next_pc = 0;"))) == reading(BASE)


# ----------------------------------------------------------------------- D1, D2: legal cpp defines

def test_d1_a_negative_define_is_read_as_its_text(cli, tmp_path):
    # '#define M -1' and 'T - M': 'T - -1', i.e. the file's T + 1 (main: an internal error)
    text = edited((ECHO_GUARD, "next_nrcvd >= T - M"), head="#define M -1\n")
    assert reading(text) == reading(BASE)
    path = tmp_path / "echo.pml"
    path.write_text(text)
    out = cli("check", path)
    assert out.code == 0 and "1 hold" in out.out, out.err


def test_d2_a_define_without_a_value_deletes_the_name():
    text = edited((ECHO_GUARD, "next_nrcvd >= T EMPTY + 1"), head="#define EMPTY\n")
    assert reading(text) == reading(BASE)


def test_d2_errors_after_an_empty_define_point_at_their_own_line():
    text = edited(("int nsnt = 0;", "int nsnt = 0 $;"), head="#define EMPTY\n")
    with pytest.raises(InputError) as e:
        reading(text)
    line = next(i for i, t in enumerate(text.split("\n"), 1) if "$" in t)
    assert (e.value.first.span.line, e.value.first.span.col) == (line, text.split("\n")[line - 1].index("$") + 1)


def test_a_position_after_an_expansion_is_the_files_column():
    # the expansion is longer than the name: what follows it keeps its column in the file
    text = edited((ECHO_GUARD, "next_nrcvd >= T + LONGER $"), head="#define LONGER 1 + 0 + 0 + 0\n")
    with pytest.raises(InputError) as e:
        reading(text)
    line = next(i for i, t in enumerate(text.split("\n"), 1) if "$" in t)
    assert (e.value.first.span.line, e.value.first.span.col) == (line, text.split("\n")[line - 1].index("$") + 1)


# ------------------------------------------------------------------ D3: a bound on the paths

def test_d3_too_many_paths_stop_at_once_with_the_position(cli, tmp_path):
    # 14 two-way 'if's over locals: 2^14 paths per location; main ran out of memory (2^24: 3.9 GB)
    decls = "    byte " + ", ".join(f"b{i} = 0" for i in range(14)) + ";\n"
    ifs = "".join(f"        if :: b{i} = 0; :: b{i} = 1; fi;\n" for i in range(14))
    text = edited(("    int nrcvd = 0, next_nrcvd = 0;\n", "    int nrcvd = 0, next_nrcvd = 0;\n" + decls),
                  ("        pc = next_pc;\n", ifs + "        pc = next_pc;\n"))
    path = tmp_path / "echo.pml"
    path.write_text(text)
    start = time.process_time()  # CPU time: the bound is on work done, which load does not stretch
    out = cli("check", path)
    assert time.process_time() - start < 20
    assert out.code == 2, out.err
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): too many control states \(> 3000\)", out.err)
    assert m, out.err
    assert text.split("\n")[int(m.group(1)) - 1].strip().startswith("if :: b"), out.err
