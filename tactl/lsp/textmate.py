"""The TextMate grammars of ``editors/vscode/syntaxes/``, written from the readers' own grammars.

The keywords of each language are the words its lark grammar spells (``ir/alg/alg.lark``,
``ir/rta/rta.lark``, ``ir/ta/ta.lark`` and ``eta.lark``, all after ``ir/expr.lark``; the Promela
grammar in ``ir/promela/reader.py`` and the directives ``ir/promela/cpp.py`` keeps): its quoted
words, and the words a keyword terminal's regular expression starts with (``/rounds\\b/``,
``/(at[ \\t]+least|…)\\b/``). A keyword added to a grammar is highlighted once the files are
written again (``python -m tactl.lsp.textmate editors/vscode/syntaxes``); a test fails while
they are stale.

The patterns stay in what Oniguruma (VS Code's engine) and Python's ``re`` read alike (no
possessive quantifiers, no ``\\h``, no named groups), so the tests tokenise the corpus with the
very patterns an editor uses. Every character a file may hold is matched by some pattern before
the last one, which marks anything else ``invalid.illegal``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from tactl.ir.promela import cpp
from tactl.ir.promela import reader as promela_reader
from tactl.ir.ta.grammar import ETA_GRAMMAR, grammar_text


@dataclass(frozen=True)
class Language:
    """One file type: its editor language id, file extensions, lark grammar text, comment
    style (``#`` or C's) and the operator characters it reads beyond the ASCII ones."""

    id: str
    title: str
    extensions: tuple[str, ...]
    grammar: str
    hash_comments: bool
    extra_operators: str = ""
    directives: tuple[str, ...] = ()


# The .alg grammar's Unicode spellings (ir/alg/alg.lark): ≥ ≤ ≠ ¬ ∧ ∨ − · × ⌈ ⌉ ⌊ ⌋ ⊥ ∅ ∪ ∩ ∖ ⊆ ∈ ∉ → □ ◇
ALG_OPERATORS = "≥≤≠¬∧∨−·×⌈⌉⌊⌋⊥∅∪∩∖⊆∈∉→□◇"
IDENTIFIER_TERMINALS = {"NAME", "INT", "HYPOTHESIS", "COMMENT", "LABEL", "QNAME", "ATNAME", "STRING",
                        "LTL_BODY", "_NL"}


def _lark(package: str, name: str, extension: str | None = None) -> str:
    text = grammar_text(package, name)
    if extension is not None:
        text += "\n" + grammar_text(package, extension).split("\n", 1)[1]
    return text


def languages() -> tuple[Language, ...]:
    promela = promela_reader.GRAMMAR
    return (
        Language("tactl-alg", "tactl pseudocode", (".alg",), _lark("tactl.ir.alg", "alg.lark"), True,
                 ALG_OPERATORS),
        Language("tactl-rta", "tactl receive threshold automaton", (".rta",),
                 _lark("tactl.ir.rta", "rta.lark"), False),
        Language("tactl-ta", "threshold automaton (ByMC)", (".ta",), _lark("tactl.ir.ta", "ta.lark"), False),
        Language("tactl-eta", "extended threshold automaton (TACO)", (".eta",),
                 _lark("tactl.ir.ta", "ta.lark", ETA_GRAMMAR), False),
        Language("tactl-pml", "Parametric Promela (ByMC)", (".pml",), promela, False,
                 directives=tuple(cpp.SUPPORTED_DIRECTIVES)),
    )


# ------------------------------------------------------------------------------- keywords

_COMMENT = re.compile(r"(?m)(^|[ \t])//[^\n]*")
_QUOTED = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"')
_TERMINAL_REGEX = re.compile(r"(?m)^([A-Z_][A-Z0-9_]*)(?:\.-?\d+)?\s*:\s*(.*)$")
_REGEX_LITERAL = re.compile(r"/((?:[^/\\\n]|\\.)+)/")
_PHRASE = re.compile(r"[A-Za-z]+(?:\[ \\t\]\+[A-Za-z]+)*")


def _alternatives(regex: str) -> list[str]:
    """The top-level alternatives of a keyword regex, its outer group opened."""
    regex = re.sub(r"\\b$", "", regex)
    if regex.startswith("("):
        depth = 0
        for i, c in enumerate(regex):
            depth += c == "("
            depth -= c == ")"
            if depth == 0:
                regex = regex[1:i]
                break
    return regex.split("|")


def keywords(grammar: str) -> list[str]:
    """Every keyword ``grammar`` (lark) spells: its quoted words, and the leading words (a
    phrase like ``at least``) of each alternative of a terminal defined by regular expressions."""
    text = _COMMENT.sub(r"\1", grammar)
    found = set(_QUOTED.findall(text))
    for name, body in _TERMINAL_REGEX.findall(text):
        if name in IDENTIFIER_TERMINALS:
            continue
        for literal in _REGEX_LITERAL.findall(body):
            for alternative in _alternatives(literal):
                m = _PHRASE.match(alternative)
                if m:
                    found.add(m.group().replace("[ \\t]+", " "))
    return sorted(found)


# -------------------------------------------------------------------------------- grammar


def _keyword_pattern(words: list[str]) -> str:
    ordered = sorted(words, key=lambda w: (-len(w), w))
    return r"\b(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered) + r")\b"


def textmate(language: Language) -> dict:
    """The TextMate grammar of ``language`` (a JSON document)."""
    suffix = language.id
    comments: list[dict] = [{"name": f"comment.line.number-sign.{suffix}", "match": "#.*$"}] \
        if language.hash_comments else [
            {"name": f"comment.block.{suffix}", "begin": r"/\*", "end": r"\*/"},
            {"name": f"comment.line.double-slash.{suffix}", "match": "//.*$"}]
    patterns: list[dict] = [*comments]
    if language.directives:
        patterns.append({"name": f"keyword.control.directive.{suffix}",
                         "match": r"^\s*#\s*(?:" + "|".join(language.directives) + r")\b"})
        patterns.append({"name": f"string.quoted.double.{suffix}", "match": r'"[^"\n]*"'})
    operators = re.escape("+-*/%<>=!&|'^~@?:") + "".join(re.escape(c) for c in language.extra_operators)
    patterns += [
        {"name": f"keyword.other.{suffix}", "match": _keyword_pattern(keywords(language.grammar))},
        # `3t` in pseudocode is 3 * t: a number may end where a name starts
        {"name": f"constant.numeric.{suffix}", "match": r"\b[0-9]+"},
        {"name": f"variable.other.{suffix}", "match": r"[A-Za-z_][A-Za-z0-9_]*"},
        {"name": f"keyword.operator.{suffix}", "match": "(?:->|<=|>=|==|!=|=!|:=|&&|\\|\\||\\[\\]|<>|\\.\\.|[" + operators + "])"},
        {"name": f"punctuation.{suffix}", "match": r"[{}()\[\];,.\\]"},
        {"name": f"invalid.illegal.{suffix}", "match": r"\S"},
    ]
    return {"name": language.title, "scopeName": f"source.{suffix}",
            "fileTypes": [e.lstrip(".") for e in language.extensions], "patterns": patterns}


def rendered(language: Language) -> str:
    return json.dumps(textmate(language), indent=2, ensure_ascii=False) + "\n"


def write(folder: Path) -> list[Path]:
    """Write every grammar into ``folder`` (``editors/vscode/syntaxes``) as ``ID.tmLanguage.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for language in languages():
        path = folder / f"{language.id}.tmLanguage.json"
        path.write_text(rendered(language), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    import argparse  # lazy: only the generator's command line parses arguments

    parser = argparse.ArgumentParser(prog="python -m tactl.lsp.textmate",
                                     description="Write the TextMate grammars generated from the lark grammars.")
    parser.add_argument("folder", nargs="?", default="editors/vscode/syntaxes",
                        help="where to write the *.tmLanguage.json files (default: %(default)s)")
    for written_path in write(Path(parser.parse_args().folder)):
        print(f"wrote {written_path}")
