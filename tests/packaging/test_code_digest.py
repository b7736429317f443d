"""The cache key includes a digest of tactl's own code (tactl/util/code_digest.py): an entry
written by other code is never found, and the same code gives the same key wherever it lives."""

from __future__ import annotations

from tactl.driver import cache as cache_module
from tactl.util import code_digest as cd


def _digest_of(monkeypatch, folders):
    monkeypatch.setattr(cd, "_folders", lambda: folders)
    cd.code_digest.cache_clear()
    try:
        return cd.code_digest()
    finally:
        cd.code_digest.cache_clear()


def _package(root, body="x = 1\n"):
    (root / "passes").mkdir(parents=True)
    (root / "passes" / "front.py").write_text(body)
    (root / "passes" / "grammar.lark").write_text("start: NAME\n")
    (root / "passes" / "notes.md").write_text("not code\n")
    return [("tactl.passes", root / "passes")]


def test_a_changed_source_file_changes_the_digest(monkeypatch, tmp_path):
    before = _digest_of(monkeypatch, _package(tmp_path / "a"))
    assert _digest_of(monkeypatch, _package(tmp_path / "b")) == before  # same code elsewhere
    assert _digest_of(monkeypatch, _package(tmp_path / "c", "x = 2\n")) != before
    folders = _package(tmp_path / "d")
    (tmp_path / "d" / "passes" / "notes.md").write_text("edited, still not code\n")
    assert _digest_of(monkeypatch, folders) == before
    (tmp_path / "d" / "passes" / "grammar.lark").write_text("start: INT\n")
    assert _digest_of(monkeypatch, folders) != before


def test_the_cache_key_follows_the_code(monkeypatch):
    key = cache_module.cache_key("parse-promela", 2, "text", {"defines": []})
    assert cache_module.cache_key("parse-promela", 2, "text", {"defines": []}) == key
    monkeypatch.setattr(cache_module, "code_digest", lambda: "other code")
    assert cache_module.cache_key("parse-promela", 2, "text", {"defines": []}) != key


def test_the_real_package_is_covered():
    names = {name for name, _ in cd._folders()}
    assert {"tactl", "tactl.ir", "tactl.passes", "tactl.templates"} <= names
    assert len(cd.code_digest()) == 64
