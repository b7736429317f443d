"""The HTML page of ``tactl verify`` says everything ``tactl check`` says about a property: the
sentences under its line (what a HOLDS covers, what its vacuity question found, the reason, the
engine choice, the CHC invariant; ``notes`` in the JSON, one wording: tactl/report/property_json.py)
and, for a counterexample, why it is one (the lasso explanation: "why waiting forever is allowed",
"its receivers counted messages from faulty processes") and what its size is known to be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markupsafe import escape

from conftest import CORPUS, DATA, report_properties


def _weak(directory: Path) -> Path:
    path = directory / "weak.alg"
    path.write_text((CORPUS / "strb" / "strb.alg").read_text(encoding="utf-8")
                    .replace("from n - t distinct", "from t + 1 distinct"), encoding="utf-8")
    return path


def _lockstep(directory: Path) -> Path:
    """The synchronous reliable broadcast with one fault too many: violated in lock-step rounds."""
    path = directory / "rb.rta"
    path.write_text((CORPUS / "rb_sync" / "rb_sync.rta").read_text(encoding="utf-8")
                    .replace("t >= f;", "t + 1 >= f;"), encoding="utf-8")
    return path


def _escaped(text: str) -> str:
    """``text`` as the page's template writes it (Jinja's autoescape)."""
    return str(escape(text))


CASES = {  # an input and check's options: a violated lasso, holds (not vacuous), the chc engine,
    # an unsupported property beside a holds without antecedent, a lock-step violation
    "lasso": (_weak, ()),
    "holds": (CORPUS / "strb" / "strb.ta", ()),
    "chc": (DATA / "chc" / "reset_safe.ta", ("--engine", "chc")),
    "unsupported": (DATA / "check" / "unsupported.ta", ()),
    "lockstep": (_lockstep, ()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_page_says_what_check_says(cli, tmp_path, case):
    path, options = CASES[case]
    path = path if isinstance(path, Path) else path(tmp_path)
    text = cli("check", path, *options, "--no-progress")
    checked = report_properties(json.loads(cli("check", path, *options, "--json").out))
    out = tmp_path / "report"
    r = cli("verify", path, *options, "--no-cache", "--no-progress", "--report-dir", out)
    assert r.code == text.code
    page = (out / "report.html").read_text(encoding="utf-8")
    said = 0
    for name, prop in checked.items():
        for note in prop.get("notes", []):
            assert note in text.out  # the text report prints the same sentences ...
            assert _escaped(note) in page, (name, note)  # ... and so does the page
            said += 1
        cex = prop.get("counterexample") or {}
        for line in [*cex.get("explanation", []), (cex.get("minimal") or {}).get("note"),
                     (cex.get("loop") or {}).get("forever")]:
            if line:
                assert line in text.out and _escaped(line.strip()) in page, (name, line)
                said += 1
        details = prop.get("details") or {}
        for line in [*details.get("pseudocode", []), details.get("minimality")] if details.get("run") else []:
            if line:  # a lock-step run's pseudocode and minimality, under its rounds
                assert line in text.out and _escaped(line) in page, (name, line)
                said += 1
    assert said  # every case has something to say


def test_the_lasso_explanation_is_on_the_page(cli, tmp_path):
    out = tmp_path / "report"
    assert cli("verify", _weak(tmp_path), "--no-cache", "--no-progress", "--report-dir", out, "-p", "relay").code == 1
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "why waiting forever is allowed" in page
    assert "its receivers (sentECHO -&gt; accept) counted messages from faulty processes: 1 (of f = 1)" in page
    assert '<ul class="explanation">' in page
    assert "then forever: the processes at v0 waits: no handler changes anything" in page


def test_the_json_notes_are_the_text_reports_lines(cli):
    r = cli("check", CORPUS / "strb" / "strb.ta", "--json")
    prop = report_properties(json.loads(r.out))["unforgeability"]
    assert prop["notes"][0] == "for all parameter values satisfying the resilience condition"
    assert prop["notes"][1].startswith("antecedent met: a run that starts where `V1 == 0` exists")
