"""The documentation builds and tells the truth: ``mkdocs build --strict`` (no broken link or
anchor, every page of docs/ in the nav) and every example of output in README.md and docs/ is what
tactl prints today (tools/docs_examples.py --check, which also compares docs/reference/cli.md with
the Typer app). A stale page fails with the command that regenerates it: make docs-examples."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import REPO

SCRIPT = REPO / "tools" / "docs_examples.py"


def test_site_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs or mkdocs-material is not installed (pip install -e '.[test]')")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, "mkdocs build --strict failed:\n" + done.stdout + done.stderr
    assert (tmp_path / "site" / "tutorial" / "index.html").is_file()


def test_every_example_is_current():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], cwd=REPO, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, (
        "the documentation's examples are stale: run make docs-examples (tools/docs_examples.py) "
        "and commit the pages it rewrites\n" + done.stderr[-6000:])


def test_readme_is_short_and_names_the_ci_command():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250, "README.md is for a five-minute read: move detail to docs/"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci.split("set -euo pipefail", 1)[1]
    assert "make test" in readme.split("## Tests", 1)[1], "README's test command must be what .ci/run runs"
