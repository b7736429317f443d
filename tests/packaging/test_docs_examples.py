"""tools/docs_examples.py on a page of its own: a stale block is found by --check (exit 1, naming
make docs-examples), rewritten without it, and current afterwards; what varies from run to run
(times) does not make a block stale; a file marker's text is what a later command reads."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO

SCRIPT = REPO / "tools" / "docs_examples.py"

PAGE = """# A page

<!-- file: hello.ta -->
```text
thresholdAutomaton Hello {
  local v; shared x; parameters n;
  assumptions (1) { n > 0; }
  locations (2) { A: [0]; B: [1]; }
  inits (2) { A == n; B == 0; }
  rules (1) { 0: A -> B when (x >= 0) do { x' == x + 1; }; }
  specifications (1) { nob: [](B == 0); }
}
```

<!-- run: tactl check hello.ta -p nob -->
```console
$ tactl check hello.ta -p nob
stale output
```
"""


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--no-cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def test_a_stale_block_is_found_then_rewritten(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(PAGE, encoding="utf-8")
    stale = _run("--check", str(page))
    assert stale.returncode == 1
    assert "run make docs-examples" in stale.stderr
    assert page.read_text(encoding="utf-8") == PAGE  # --check writes nothing

    assert _run(str(page)).returncode == 0
    text = page.read_text(encoding="utf-8")
    assert "stale output" not in text
    assert "hello.ta: Hello, 2 locations" in text and "VIOLATED" in text

    # a different time is no change: the block stays as it is
    timed = re.sub(r"\d+\.\d+ s\b", "12.34 s", text)
    assert timed != text
    page.write_text(timed, encoding="utf-8")
    assert _run("--check", str(page)).returncode == 0


def test_a_run_marker_without_a_block_is_an_error(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# P\n\n<!-- run: tactl --version -->\n\nno block\n", encoding="utf-8")
    done = _run("--check", str(page))
    assert done.returncode == 2
    assert "must be followed by a fenced block" in done.stderr
