"""The TextMate grammars of editors/vscode/syntaxes/ highlight the corpus: written from the lark
grammars (tactl/lsp/textmate.py) and not stale, every keyword of a language scoped as a keyword,
and every file tokenised without an ``invalid.illegal`` token — by the grammars' own patterns,
run the way a TextMate engine runs them (earliest match first, the first pattern on a tie,
``begin``/``end`` regions across lines)."""

from __future__ import annotations

import json
import shutil
import subprocess
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import CORPUS, DATA, REPO, SHARED_BENCHMARKS
from tactl.lsp.analysis import LANGUAGE_KINDS
from tactl.lsp.textmate import keywords, languages, rendered

SYNTAXES = REPO / "editors" / "vscode" / "syntaxes"
PACKAGE = REPO / "editors" / "vscode" / "package.json"
LANGUAGES = {language.id: language for language in languages()}
PUBLIC_PROMELA = [Path("/tmp/ftb") / d for d in ("fmcad13", "concur14", "cav15/promela", "isola18/promela")]


@dataclass(frozen=True)
class Token:
    text: str
    scope: str | None  # None: between matches (white space)


def tokenise(grammar: dict, text: str) -> list[Token]:
    """The tokens of ``text`` under ``grammar``'s top-level patterns (``match`` and
    ``begin``/``end``), one line at a time as TextMate engines feed them (with the newline)."""
    patterns = [(p, re.compile(p.get("match") or p["begin"])) for p in grammar["patterns"]]
    tokens: list[Token] = []
    inside: dict | None = None  # an open begin/end region
    for line in text.split("\n"):
        line += "\n"
        at = 0
        while at < len(line):
            if inside is not None:
                end = re.compile(inside["end"]).search(line, at)
                stop = end.end() if end else len(line)
                tokens.append(Token(line[at:stop], inside["name"]))
                at, inside = stop, (None if end else inside)
                continue
            best = None
            for pattern, regex in patterns:
                m = regex.search(line, at)
                if m and m.end() > m.start() and (best is None or m.start() < best[1].start()):
                    best = (pattern, m)
            if best is None:
                tokens.append(Token(line[at:], None))
                break
            pattern, m = best
            if m.start() > at:
                tokens.append(Token(line[at:m.start()], None))
            tokens.append(Token(m.group(), pattern["name"]))
            at = m.end()
            if "begin" in pattern:
                inside = pattern
    return tokens


def grammar(language_id: str) -> dict:
    return json.loads((SYNTAXES / f"{language_id}.tmLanguage.json").read_text(encoding="utf-8"))


def files_of(language_id: str) -> list[Path]:
    extensions = LANGUAGES[language_id].extensions
    found = [p for root in (CORPUS, DATA) for p in root.rglob("*") if p.suffix in extensions]
    if language_id == "tactl-pml":
        found += [p for d in PUBLIC_PROMELA if d.is_dir() for p in sorted(d.glob("*.pml"))]
    if language_id == "tactl-ta" and SHARED_BENCHMARKS.is_dir():
        found += sorted(SHARED_BENCHMARKS.rglob("*.ta"))[:200]
    if language_id == "tactl-eta":
        found += sorted(Path("/tmp/eta").glob("*.eta")) if Path("/tmp/eta").is_dir() else []
    return sorted(set(found))


@pytest.mark.parametrize("language_id", sorted(LANGUAGES))
def test_the_grammar_files_are_written_from_the_lark_grammars(language_id):
    """Run ``python -m tactl.lsp.textmate editors/vscode/syntaxes`` after changing a grammar."""
    assert (SYNTAXES / f"{language_id}.tmLanguage.json").read_text(encoding="utf-8") == \
        rendered(LANGUAGES[language_id])


@pytest.mark.parametrize("language_id", sorted(LANGUAGES))
def test_every_keyword_of_the_lark_grammar_is_a_keyword(language_id):
    words = keywords(LANGUAGES[language_id].grammar)
    assert len(words) > 15
    for word in words:
        tokens = [t for t in tokenise(grammar(language_id), f"x {word} (y)") if t.scope]
        assert tokens[1] == Token(word, f"keyword.other.{language_id}"), (word, tokens)


@pytest.mark.parametrize("language_id", sorted(LANGUAGES))
def test_the_grammar_highlights_every_file(language_id):
    files = files_of(language_id)
    assert files, f"no {language_id} file in the corpus or tests/data"
    words = {w for w in keywords(LANGUAGES[language_id].grammar) if " " not in w}
    for path in files:
        tokens = tokenise(grammar(language_id), path.read_text(encoding="utf-8"))
        illegal = [t.text for t in tokens if t.scope and t.scope.startswith("invalid")]
        assert illegal == [], f"{path}: {illegal[:10]}"
        unscoped = [t.text for t in tokens if t.scope is None and t.text.strip()]
        assert unscoped == [], f"{path}: {unscoped[:10]}"
        for t in tokens:
            if t.text in words:
                assert t.scope.startswith(("keyword", "comment", "string")), (path, t)


def test_keyword_phrases_span_white_space():
    tokens = [t for t in tokenise(grammar("tactl-alg"), "upon receiving ECHO from at  least t + 1 processes") if t.scope]
    assert Token("at  least", "keyword.other.tactl-alg") in tokens


def test_a_block_comment_runs_across_lines():
    tokens = [t for t in tokenise(grammar("tactl-ta"), "/* a\n rules */ rules") if t.scope]
    *comment, last = tokens
    assert {t.scope for t in comment} == {"comment.block.tactl-ta"} and comment[-1].text.endswith("*/")
    assert last == Token("rules", "keyword.other.tactl-ta")


def test_the_extension_declares_every_language_the_server_reads():
    package = json.loads(PACKAGE.read_text(encoding="utf-8"))
    declared = {lang["id"]: lang["extensions"] for lang in package["contributes"]["languages"]}
    assert set(declared) == set(LANGUAGES) == set(LANGUAGE_KINDS)
    for language_id, language in LANGUAGES.items():
        assert tuple(declared[language_id]) == language.extensions
    grammars = {g["language"]: g for g in package["contributes"]["grammars"]}
    for language_id in LANGUAGES:
        path = PACKAGE.parent / grammars[language_id]["path"]
        assert json.loads(path.read_text(encoding="utf-8"))["scopeName"] == grammars[language_id]["scopeName"]


NODE_MODULES = PACKAGE.parent / "node_modules"


def scopes_by_character(tokens: list[Token]) -> list[str | None]:
    return [None if c == "\n" else t.scope for t in tokens for c in t.text]


@pytest.mark.skipif(shutil.which("node") is None or not (NODE_MODULES / "vscode-textmate").is_dir(),
                    reason="VS Code's tokeniser is not installed (cd editors/vscode && npm install)")
@pytest.mark.parametrize("language_id", sorted(LANGUAGES))
def test_vscode_reads_the_grammars_as_these_tests_do(language_id):
    """The real engine (vscode-textmate on Oniguruma, editors/vscode/test/scopes.js) gives every
    character of every file the scope the tokeniser above gives it: the patterns mean the same
    in both regular-expression dialects."""
    files = files_of(language_id)
    run = subprocess.run(["node", str(PACKAGE.parent / "test" / "scopes.js"), *map(str, files)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    engine = json.loads(run.stdout)
    for path in files:
        ours = scopes_by_character(tokenise(grammar(language_id), path.read_text(encoding="utf-8")))
        assert engine[str(path)] == ours, path
