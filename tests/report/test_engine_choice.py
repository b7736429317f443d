"""Which engine decided a property, when ``tactl check`` chose it itself (tactl/engines/check.py
gives the parametric engine's non-monotone automata to the chc engine): the text report says so
under the property, the JSON carries it as ``details.engine_choice`` beside ``engine``, and the
HTML page of ``tactl verify`` shows it in the property's note."""

from __future__ import annotations

import json

from conftest import DATA, report_properties

SAFE = DATA / "chc" / "reset_safe.ta"
CHOSEN = "checked by the chc engine"


def test_text_says_which_engine_and_why(cli):
    r = cli("check", SAFE, "--no-progress")
    assert r.code == 0
    lines = r.out.splitlines()
    choice = next(i for i, line in enumerate(lines) if CHOSEN in line)
    assert any(line.lstrip().startswith("never_d") for line in lines[:choice])
    assert "rule 1 has the update x' == 0" in lines[choice]


def test_json_names_the_engine_and_the_reason(cli):
    r = cli("check", SAFE, "--json")
    prop = report_properties(json.loads(r.out))["never_d"]
    assert prop["engine"] == "chc" and prop["verdict"] == "holds"
    assert CHOSEN in prop["details"]["engine_choice"]


def test_html_note_carries_the_choice(cli, tmp_path):
    out = tmp_path / "report"
    r = cli("verify", SAFE, "--no-cache", "--no-progress", "--report-dir", out)
    assert r.code == 0, r.out + r.err
    page = (out / "report.html").read_text(encoding="utf-8")
    assert CHOSEN in page and ">chc<" in page


def test_a_property_the_parametric_engine_decides_says_nothing_of_it(cli):
    r = cli("check", DATA.parent.parent / "corpus" / "strb" / "strb.ta", "--json")
    for prop in json.loads(r.out)["properties"]:
        assert "engine_choice" not in prop.get("details", {})
