"""What the language server computes, without the protocol (tactl/lsp/analysis.py, symbols.py,
hover.py): the corpus read as the commands read it, every declaration at its name, hovers and
definitions on the corpus and on Promela."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, DATA
from tactl.ir.errors import source_line
from tactl.lsp.analysis import analyse, kind_of, read_document
from tactl.lsp.hover import hover_at
from tactl.lsp.symbols import definition_at, symbols_of, word_at

CORPUS_FILES = sorted(p for p in CORPUS.glob("*/*") if p.suffix in (".alg", ".rta", ".ta"))


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_every_corpus_declaration_is_at_its_name(path: Path):
    text = path.read_text(encoding="utf-8")
    analysis = read_document(str(path), text)
    assert not analysis.failed, [p.rendered for p in analysis.problems]
    symbols = symbols_of(analysis)
    assert symbols and ("parameter" in {s.kind for s in symbols} or path.suffix == ".ta")
    for s in symbols:
        line = source_line(text, s.span.line)
        if s.kind in ("rule", "crash rule"):
            assert line[s.span.col - 1:s.span.end_col - 1] == s.name.split(":")[0]
            assert s.extent.line <= s.extent.end_line
        else:
            assert line[s.span.col - 1:s.span.end_col - 1] == s.name


def test_the_buffer_kind_is_the_extension_else_the_language():
    assert kind_of("/x/a.alg") == "alg-text" and kind_of("/x/a.eta") == "eta-text"
    assert kind_of("untitled-1", "tactl-rta") == "rta-text"
    assert kind_of("notes.txt") is None and read_document("notes.txt", "anything").problems == []


def test_an_rta_guard_hover_is_its_translate_row():
    path = CORPUS / "aba" / "aba.rta"
    text = path.read_text(encoding="utf-8")
    analysis = analyse(str(path), text)
    symbols = symbols_of(analysis)
    line = next(n for n in range(1, 100) if "5: RD -> AC" in source_line(text, n))
    col = source_line(text, line).index("received(READY)") + 1
    shown = hover_at(analysis, symbols, line, col).markdown
    row = next(r for r in analysis.checkable.certificates if r["rule"].startswith("5:"))
    assert f"receive guard: {row['receive_guard']}" in shown and f"send guard:    {row['send_guard']}" in shown
    # on the rule's target, before `when`: the location's declaration
    target = hover_at(analysis, symbols, line, source_line(text, line).index("AC") + 1).markdown
    assert target.startswith("**location** `AC`, declared at line")


def test_a_guard_hover_without_a_translation_says_why():
    path = CORPUS / "strb" / "strb.alg"
    text = path.read_text(encoding="utf-8")
    read = read_document(str(path), text)  # the translation has not run
    line = next(n for n in range(1, 60) if "receiving ECHO from n - t" in source_line(text, n))
    shown = hover_at(read, symbols_of(read), line, 10).markdown
    assert "no send guard to show: the translation has not finished yet" in shown


def test_definitions_in_promela():
    path = DATA / "promela" / "echo.pml"
    text = path.read_text(encoding="utf-8")
    analysis = read_document(str(path), text)
    symbols = symbols_of(analysis)
    kinds = {s.name: s.kind for s in symbols}
    assert kinds["N"] == "parameter" and kinds["nsnt"] == "variable" and kinds["pc"] == "local variable"
    assert kinds["AC"] == "define" and kinds["Proc"] == "proctype" and kinds["unforg"] == "property"
    line = next(n for n in range(1, 80) if "next_nrcvd >= N - T -> next_pc = AC" in source_line(text, n))
    found = definition_at(analysis, symbols, line, source_line(text, line).index("AC") + 2)
    assert (found.name, found.kind, found.span.line) == ("AC", "define", 9)


def test_the_word_under_the_cursor():
    text = "upon receiving ECHO from t + 1\n"
    assert word_at(text, 1, 16)[0] == "ECHO" and word_at(text, 1, 20)[0] == "ECHO"  # at its end
    assert word_at(text, 1, 28) is None and word_at(text, 5, 1) is None  # on "+"; no line 5


def test_the_command_answers_one_hover_and_the_outline(cli, tmp_path):
    strb = CORPUS / "strb" / "strb.alg"
    shown = cli("lsp", "--hover", f"{strb}:17:8")
    assert shown.code == 0 and "send guard:    n - 2 * t >= 2 && ns_ECHO >= t - f + 1" in shown.out
    outline = cli("lsp", "--symbols", CORPUS / "aba" / "aba.rta")
    assert outline.code == 0 and "27:5    rule               0: V1 -> EC" in outline.out.splitlines()
    broken = tmp_path / "b.alg"
    broken.write_text(strb.read_text(encoding="utf-8").replace("to all", "to al"), encoding="utf-8")
    shown = cli("lsp", "--hover", f"{broken}:11:3")
    assert shown.out == "(nothing to show here)\n" and f"{broken}:16:18: unexpected 'al'" in shown.err
    assert shown.code == 2  # a file with errors is bad input, as for every command
    assert cli("lsp", "--symbols", broken).code == 2
    assert cli("lsp", "--hover", "strb.alg:17").code == 2


def test_an_internal_error_is_shown_on_the_buffer_and_the_server_goes_on():
    from tactl.lsp import server as lsp_server  # lazy: the protocol layer, only for this test

    ls = lsp_server.TactlServer()
    uri = (CORPUS / "strb" / "strb.alg").as_uri()
    ls.latest[uri] = 3

    def failing(*args):
        raise ValueError("boom")

    shown = ls._stage(uri, 3, failing, str(CORPUS / "strb" / "strb.alg"), "algorithm A\n", None)
    [problem] = shown.problems
    assert problem.diagnostic.message.startswith("tactl: internal error: ValueError: boom")
    assert ls._stage(uri, 2, failing) is None  # an older version: not even started
