"""The HTML report says what was proved (tactl/report/statement.py, tactl/report/html.py): per
property its formula as written (the ``.alg`` line), the checked formula, the justice a liveness
verdict depends on, the hypothesis and the resilience condition; per counterexample its
space–time diagram and the automaton with its rules highlighted; the source. Built from real
``tactl verify`` runs (the driver in-process) of STRB and of a weakened STRB."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

from conftest import CORPUS
from tactl.driver.verify import VerifyOptions, verify
from tactl.report.html import render_html
from tactl.report.verify import run_json

STRB = CORPUS / "strb" / "strb.alg"


def weakened(tmp_path: Path) -> Path:
    """Accept after t + 1 ECHOs instead of n - t: relay is violated by a lasso."""
    path = tmp_path / "strb_weak.alg"
    path.write_text(STRB.read_text(encoding="utf-8").replace("from n - t distinct", "from t + 1 distinct"),
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("statement")
    weak = weakened(tmp)
    options = VerifyOptions(cache_dir=tmp / "cache", report_dir=tmp / "report")
    first = run_json(verify([STRB, weak], options), with_svg=True)
    again = run_json(verify([STRB, weak], options), with_svg=True)  # every verdict from the cache
    return first, again


def text_of(page: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", page).split()))


def test_each_property_states_formula_justice_and_rc(reports):
    report, _ = reports
    page = render_html(report)
    text = text_of(page)
    lines = {line.split(":")[0].strip(): line.strip()
             for line in STRB.read_text(encoding="utf-8").splitlines()
             if re.match(r"\s+(unforgeability|correctness|relay):", line)}
    for alg in report["algorithms"]:
        for prop in alg["properties"]:
            st = prop["statement"]
            assert st["written"] == lines[prop["name"]]  # the pseudocode line, as written
            assert st["resilience"] == "n > 3 * t && t >= f && f >= 0"
            assert st["written"] in text and st["checked"] in text
            if prop["class"] == "liveness":
                assert st["justice"] and all(j in text for j in st["justice"])
                assert "derived from the fault model" in st["justice_origin"]
            else:
                assert st["justice"] == []
    assert text.count("resilience condition n > 3 * t && t >= f && f >= 0") == 6
    assert text.count("What was checked") == 2


def test_the_counterexample_has_its_diagram_and_highlighted_path(reports):
    report, again = reports
    for doc in (report, again):  # a cached verdict keeps its counterexample, and so its pictures
        weak = next(a for a in doc["algorithms"] if a["name"] == "strb_weak")
        relay = next(p for p in weak["properties"] if p["name"] == "relay")
        assert relay["verdict"] == "violated"
        assert relay["spacetime_svg"].startswith("<svg")
        if shutil.which("dot"):
            assert relay["path_svg"].count("#c62828") + relay["path_svg"].count("#C62828") > 0
    page = render_html(report)
    assert page.count('<figure class="spacetime">') == 1
    assert 'class="lane faulty"' in page  # f = 1 in the lasso: the faulty lane is drawn
    if shutil.which("dot"):
        assert page.count('<figure class="path">') == 1
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids))  # two pictures of the same automaton share no id


def test_the_source_is_shown(reports):
    report, _ = reports
    text = text_of(render_html(report))
    assert "upon receiving ECHO from t + 1 distinct processes:" in text
    assert text.count("Source") >= 2


def test_the_violating_configuration_is_marked_in_the_table(tmp_path):
    """A safety violation: the table marks the first configuration where the [] body fails (the
    engine's ``violating_step`` when it sets one), and the diagram draws the same one."""
    weak = tmp_path / "strb_relay_t.alg"
    weak.write_text(STRB.read_text(encoding="utf-8").replace("from t + 1 distinct", "from t distinct", 1),
                    encoding="utf-8")
    report = run_json(verify([weak], VerifyOptions(use_cache=False, report_dir=tmp_path / "r")), with_svg=True)
    prop = next(p for p in report["algorithms"][0]["properties"] if p["name"] == "unforgeability")
    cex = prop["counterexample"]
    accepting = [c["locations"]["accept"] for c in cex["configurations"]]
    first = next(i for i, n in enumerate(accepting) if n > 0)  # unforgeability: nobody accepts
    marked = cex.get("violating_step")
    assert (prop["violating_configuration"] if marked is None else marked) == first
    page = render_html(report)
    assert page.count('<tr class="violation"') == 1
    assert f"violated in configuration {first}" in prop["spacetime_svg"]
