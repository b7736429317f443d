"""Every pointer to a file that a docstring, comment or document of the repository gives leads to
a file of the repository: a module, test, grammar, template or document named by path
(``passes/ta_to_ta/lower_division.py``, ``passes/ta_to_ta/lower_division``, ``docs/alg.md``) exists,
and nothing sends the reader to the project documents outside the checkout (``../shared/docs``),
which a user of the repository does not have. Paths to public benchmark inputs under
``../shared/`` stay allowed: tests and the bench read them when present and skip otherwise.
"""

from __future__ import annotations

import re
import subprocess

from conftest import REPO

TOP = ("ir", "passes", "tactl", "docs", "tests", "templates", "corpus", "tools")
_PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(TOP) + r")/[\w/.-]*\w)")
_OUTSIDE_DOCS = re.compile(r"\.\./shared/docs\b|\.\./shared/findings/[\w-]+\.md\b")


def _tracked(*patterns: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", *patterns], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.split()
    return [name for name in listed if (REPO / name).is_file()]


#: Installed, ir/, passes/, templates/ and corpus/ are sub-packages of tactl (pyproject's package-dir).
_INSTALLED = ("tactl/ir", "tactl/passes", "tactl/templates", "tactl/corpus")


def _exists(reference: str) -> bool:
    reference = reference.rstrip(".")
    first = reference.split("/")[1]
    if any(ch in reference for ch in "*<>{}") or not first[:1].islower():
        return True  # a pattern, or prose such as "tactl/ByMC"
    for installed in _INSTALLED:
        if reference == installed or reference.startswith(installed + "/"):
            reference = reference[len("tactl/"):]
    path = REPO / reference
    return path.exists() or path.with_suffix(".py").exists() or (REPO / (reference + ".py")).exists()


def _references(name: str):
    for number, line in enumerate((REPO / name).read_text(encoding="utf-8").splitlines(), 1):
        for match in _PATH.finditer(line):
            yield number, match.group(1)


def test_every_path_a_source_or_document_names_exists():
    files = _tracked("*.py", "*.md", "*.j2", "Makefile", "pyproject.toml")
    broken = [f"{name}:{line}: {ref}" for name in files for line, ref in _references(name)
              if not _exists(ref)]
    assert broken == [], "references to files that are not in the repository:\n" + "\n".join(broken)


def test_nothing_points_at_documents_outside_the_repository():
    files = [name for name in _tracked("*.py", "*.md", "*.j2") if name != "tests/packaging/test_references.py"]
    outside = [f"{name}:{number}: {line.strip()}" for name in files
               for number, line in enumerate((REPO / name).read_text(encoding="utf-8").splitlines(), 1)
               if _OUTSIDE_DOCS.search(line)]
    assert outside == [], "pointers at documents a user of the repository does not have:\n" + "\n".join(outside)


def test_no_source_comment_names_an_issue():
    """Why a line is as it is belongs in the comment; the issue that asked for it is history, which
    git keeps (``git log -S``)."""
    files = _tracked("ir/*.py", "passes/*.py", "tactl/*.py", "templates/*")
    mentions = [f"{name}:{number}: {line.strip()}" for name in files
                for number, line in enumerate((REPO / name).read_text(encoding="utf-8").splitlines(), 1)
                if re.search(r"\b[Ii]ssue #?\d+", line)]
    assert mentions == [], "comments that name an issue instead of a reason:\n" + "\n".join(mentions)


def test_every_package_outside_tactl_says_its_import_name():
    """ir/, passes/ and templates/ sit at the top of the repository but are installed under
    ``tactl``: their ``__init__`` says so, so a reader of ``ir/ta/reader.py`` knows to import
    ``tactl.ir.ta.reader``."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = config["package-dir"]
    silent = []
    for package in config["packages"]:
        top = package.split(".")[:2]
        base = folders.get(".".join(top), "/".join(top))
        folder = REPO / base / "/".join(package.split(".")[2:])
        init = folder / "__init__.py"
        if base.startswith("tactl") or not init.exists():
            continue  # under tactl/ the folder is the import name; corpus/ is data
        if f"Installed as ``{package}``" not in init.read_text(encoding="utf-8"):
            silent.append(f"{init.relative_to(REPO)} (installed as {package})")
    assert silent == [], "packages whose __init__ does not say their import name:\n" + "\n".join(silent)
