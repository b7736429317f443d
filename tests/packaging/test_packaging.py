"""The installed tactl is the tested tactl: the wheel ships every subpackage and data file.

`make test` installs the checkout in editable mode, where a package missing from pyproject's list
still imports (from the source tree). A user's `pip install .` does not: a review found
`ModuleNotFoundError: No module named 'tactl.engines'` in every `check`. So this test builds the
wheel, compares its contents with the source tree, installs it into a fresh virtualenv and runs
every command from a directory outside the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import REPO

# The source folders and where pyproject maps them inside the installed namespace.
SOURCE_ROOTS = {"tactl": "tactl", "ir": "tactl/ir", "passes": "tactl/passes",
                "templates": "tactl/templates", "corpus": "tactl/corpus"}
SHIPPED_SUFFIXES = {".py", ".lark", ".j2", ".alg", ".rta", ".ta", ".json", ".md"}


def _source_files() -> dict[str, Path]:
    """Every file the installed package must contain, by its path inside the wheel."""
    out: dict[str, Path] = {}
    for folder, installed in SOURCE_ROOTS.items():
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in SHIPPED_SUFFIXES:
                out[f"{installed}/{path.relative_to(REPO / folder).as_posix()}"] = path
    return out


def test_every_python_package_is_listed_in_pyproject():
    """A folder with an __init__.py that pyproject does not list is missing from the wheel."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {installed.replace("/", ".") + ("." + init.parent.relative_to(REPO / folder).as_posix()
                                             .replace("/", ".") if init.parent != REPO / folder else "")
             for folder, installed in SOURCE_ROOTS.items()
             for init in (REPO / folder).rglob("__init__.py") if "__pycache__" not in init.parts}
    assert found - listed == set(), f"packages missing from pyproject.toml: {sorted(found - listed)}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # A copy of the tree, so the build leaves nothing (build/, *.egg-info) in the checkout: the
    # tracked files, or (an export without .git) everything but virtualenvs, caches and builds.
    source = tmp_path_factory.mktemp("source") / "tactl"
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, timeout=120)
    if listed.returncode == 0 and listed.stdout:
        for name in listed.stdout.decode().split("\0"):
            if name and (REPO / name).is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / name, source / name)
    else:
        shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "build", "dist", "*.egg-info", ".tactl-cache",
            "tactl-report", ".pytest_cache", ".hypothesis"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--disable-pip-version-check", "-w", str(out), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    (found,) = out.glob("tactl-*.whl")
    return found


def test_the_wheel_holds_every_module_template_grammar_and_corpus_file(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = sorted(set(_source_files()) - names)
    assert missing == [], f"not in the wheel: {missing}"
    assert "tactl/engines/parametric.py" in names and "tactl/ir/alg/alg.lark" in names


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel and its dependencies (pip's cache makes it quick)."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                          "--disable-pip-version-check", str(wheel)],
                         capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv / "bin" / "tactl"


def _run(tactl: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(tactl), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def test_the_installed_wheel_runs_every_command_outside_the_checkout(installed, tmp_path):
    work = tmp_path / "elsewhere"
    work.mkdir()
    alg = work / "strb.alg"
    alg.write_text((REPO / "corpus" / "strb" / "strb.alg").read_text(encoding="utf-8"), encoding="utf-8")
    mutant = work / "weak.alg"
    mutant.write_text(alg.read_text(encoding="utf-8").replace("from n - t distinct", "from t + 1 distinct"),
                      encoding="utf-8")

    def ok(*args: str, code: int = 0) -> str:
        result = _run(installed, work, *args)
        assert "Traceback" not in result.stderr and "ModuleNotFoundError" not in result.stderr, result.stderr
        assert result.returncode == code, (args, result.stdout, result.stderr)
        return result.stdout + result.stderr

    assert "tactl" in ok("--version")
    ok("parse", "strb.alg", "-o", "strb.rta")
    ok("translate", "strb.rta", "-o", "strb.ta")
    out = ok("check", "strb.ta")
    assert "unforgeability" in out and "HOLDS" in out
    ok("check", "weak.alg", code=1)  # a violation from the installed engines and simulator
    ok("emit", "strb.ta", "--to", "smtlib", "-o", "smt")
    assert sorted(p.name for p in (work / "smt").iterdir())
    ok("emit", "strb.ta", "--to", "promela", "--param", "n=4", "--param", "t=1", "--param", "f=1",
       "-o", "strb.pml")
    ok("emit", "strb.ta", "--to", "nuxmv", "--bound", "5", "-o", "strb.smv")
    ok("dot", "strb.ta", "-o", "strb.dot")
    ok("show", "strb.ta")
    out = ok("verify", "strb.alg", "--cache-dir", "cache", "--report-dir", "report")
    assert (work / "report" / "report.html").is_file() and (work / "report" / "report.json").is_file()
    # A corpus name: the corpus ships inside the package.
    out = ok("verify", "strb", "--cache-dir", "cache", "--report-dir", "report2")
    assert "relay" in out
    # Every reading command takes a corpus name, and verify takes the whole corpus, from anywhere.
    assert "Bracha" in ok("check", "bracha", "-p", "unforgeability")
    for command in (("show",), ("dot", "-o", "-"), ("parse",), ("translate",), ("fmt",),
                    ("emit", "--to", "smtlib", "-p", "relay", "-o", "smt2")):
        ok(command[0], "strb", *command[1:])
    out = ok("verify", "corpus", "-p", "unforgeability", "--cache-dir", "cache", "--report-dir", "report3")
    assert "bracha" in out and "strb" in out
    refused = _run(installed, work, "check", "brcha")
    assert refused.returncode == 2 and "did you mean 'bracha'?" in refused.stderr
