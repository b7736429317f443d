"""The verify report as a real browser sees it: headless Chromium (Debian's ``chromium``, which
``make tools`` installs through tools/install_browser.sh) parses the page we write, and we read
back its DOM and a screenshot. This catches what text assertions cannot: markup the HTML parser
repairs or drops (a broken inline SVG, an unclosed table), and a page that renders blank.

Without Chromium the tests skip, loudly: the page is then only checked as text
(tests/report/test_report_html.py).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import DATA
from tactl.report.html import render_html

SAMPLE = DATA / "verify_report_sample.json"
TIMEOUT_S = 60
WIDTH, HEIGHT = 1280, 2000


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("headless Chromium is not installed (make tools installs it): "
                    "the browser test did NOT run")
    return found


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Chromium headless on the rendered fixture. --no-sandbox: Chromium refuses to run as root
    with its sandbox (CI containers are root); a private profile so parallel runs never share
    one; no GPU, no first-run chores."""
    page = tmp_path / "report.html"
    if not page.exists():
        page.write_text(render_html(json.loads(SAMPLE.read_text(encoding="utf-8"))), encoding="utf-8")
    command = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--no-default-browser-check", "--hide-scrollbars",
               f"--user-data-dir={tmp_path / 'profile'}", *args, page.as_uri()]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"chromium did not finish within {TIMEOUT_S} s: {' '.join(command)}")


def test_the_browser_shows_the_report(tmp_path):
    result = _run(tmp_path, "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    text = html.unescape(" ".join(re.sub(r"<[^>]+>", " ", dom).split()))  # the text a reader sees
    for expected in ("tactl verify report", "tactl verify corpus/strb/strb.alg mutants/strb_mutant.alg",
                     "4 hold", "2 violated", "unforgeability VIOLATED", "relay VIOLATED",
                     "upon receiving ECHO from t distinct processes:",
                     "replayed by the simulator: yes",
                     "loop: then r2: v0 → v0 forever (configuration 5 repeats: the lasso's loop)",
                     "received(ECHO) >= t && received(ECHO) < t + 1",
                     "warning: cache entry 5c1e0a9b7f3d was corrupt"):
        assert expected in text, expected
    # The parser kept every picture whole: two automata, two counter plots with a polyline per
    # location, and the verdict colours on their cells.
    assert len(re.findall(r"<svg\b", dom)) == 4
    assert dom.count("<polyline") == 8
    assert 'id="alg-strb-graph0"' in dom and 'id="alg-strb_mutant-graph0"' in dom
    assert dom.count('<td class="verdict verdict-violated">VIOLATED</td>') == 2
    assert "<script" not in dom


def test_the_browser_draws_the_report(tmp_path):
    shot = tmp_path / "report.png"
    result = _run(tmp_path, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}")
    assert result.returncode == 0, result.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (WIDTH, HEIGHT)  # IHDR: the page, at that size
    assert len(data) > 10_000  # a blank page compresses to a few hundred bytes


def test_the_browser_shows_what_was_proved_and_the_diagram(tmp_path):
    """A real `tactl verify` of STRB and of a weakened STRB (accept after t + 1 ECHOs: relay is
    violated by a lasso with a faulty ECHO): the browser keeps the statements, the space-time
    diagram (its lanes and arrows) and the highlighted automaton."""
    # lazy: the driver runs z3 here; the other browser tests render the fixture only
    from conftest import CORPUS
    from tactl.driver.verify import VerifyOptions, verify
    from tactl.report.verify import run_json

    strb = CORPUS / "strb" / "strb.alg"
    weak = tmp_path / "strb_weak.alg"
    weak.write_text(strb.read_text(encoding="utf-8").replace("from n - t distinct", "from t + 1 distinct"),
                    encoding="utf-8")
    run = verify([strb, weak], VerifyOptions(use_cache=False, report_dir=tmp_path / "report"))
    (tmp_path / "report.html").write_text(render_html(run_json(run, with_svg=True)), encoding="utf-8")
    result = _run(tmp_path, "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    text = html.unescape(" ".join(re.sub(r"<[^>]+>", " ", dom).split()))
    for expected in ("What was checked", "as written (line 25) relay: always ((some accept) -> eventually (all accept))",
                     "resilience condition n > 3 * t && t >= f && f >= 0",
                     "derived from the fault model", "1 faulty", "relay: counterexample with n=4, t=1, f=1"):
        assert expected in text, expected
    diagram = dom[dom.index('<figure class="spacetime">'):]
    diagram = diagram[:diagram.index("</figure>")]
    # at least two correct lanes (the accepting process and the waiting ones) and the faulty one;
    # the accepting process counted a faulty ECHO
    assert diagram.count('class="lane"') >= 2 and diagram.count('class="lane faulty"') == 1
    assert diagram.count('class="arrow correct"') >= 1 and diagram.count('class="arrow faulty"') >= 1
    shot = tmp_path / "weak.png"
    result = _run(tmp_path, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}")
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(shot.read_bytes()) > 10_000
