"""The test suite's own layout: tests/ is grouped by concern in folders without ``__init__.py``,
which pytest imports in its default ``prepend`` mode: each test file is a top-level module named
after its file, with its folder put on ``sys.path`` when the file is collected. Two rules follow,
and breaking either fails only sometimes (it depends on which files a run collects, and in which
order), so they are checked here on the sources:

* test file names are unique across the folders (two ``test_x.py`` are two modules ``test_x``);
* a test file imports another test file only from its own folder (another folder is on
  ``sys.path`` only once one of its files was collected); what several folders share lives in
  tests/conftest.py or a helper module beside it (tests/ta_equivalence.py).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from conftest import REPO

TESTS = REPO / "tests"


def collected_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "data" not in p.relative_to(TESTS).parts)


def duplicate_names(files: list[Path], root: Path = TESTS) -> dict[str, list[str]]:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in files:
        by_name[path.name].append(path.relative_to(root).as_posix())
    return {name: paths for name, paths in by_name.items() if len(paths) > 1}


def imports_across_folders(files: list[Path], root: Path = TESTS) -> list[str]:
    """``file:line imports test_x`` for every import of a test module that is not in the
    importing file's folder."""
    folder_of = {p.stem: p.parent for p in files}
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name in folder_of and folder_of[name] != path.parent:
                    found.append(f"{path.relative_to(root).as_posix()}:{node.lineno} imports {name}")
    return found


def test_test_file_names_are_unique_across_folders():
    assert duplicate_names(collected_files()) == {}


def test_test_files_import_test_files_of_their_own_folder_only():
    found = imports_across_folders(collected_files())
    assert found == [], ("move what is shared into tests/conftest.py:\n" + "\n".join(found))


def test_the_checks_find_what_they_look_for(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = tmp_path / "a" / "test_one.py"
    one.write_text("X = 1\n")
    two = tmp_path / "b" / "test_two.py"
    two.write_text("from test_one import X\n")
    again = tmp_path / "b" / "test_one.py"
    again.write_text("")
    assert imports_across_folders([one, two], tmp_path) == ["b/test_two.py:1 imports test_one"]
    assert duplicate_names([one, two, again], tmp_path) == {"test_one.py": ["a/test_one.py", "b/test_one.py"]}
