"""The HTML page of ``tactl verify`` (tactl/report/html.py), rendered from a real report.

tests/data/verify_report_sample.json was built from real outputs: ``tactl check --json`` on
corpus/strb/strb.alg (all three properties hold) and on a mutant of it whose thresholds are
too low (``t distinct`` instead of ``t + 1``, and ``t + 1`` instead of ``n - t``: unforgeability
violated by a run, relay by a lasso, both with pseudocode source maps), the translate pass's
certificates, the driver's pass records (tactl.driver.pipeline.Runner with a cache) and ``tactl dot``'s
SVG. The browser's view of the same page is tests/report/test_report_browser.py.
"""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from importlib import resources

import pytest

from conftest import DATA
from tactl.report.html import PALETTE, counter_plot_svg, graphviz_svg, pseudocode_lines, render_html

SAMPLE = DATA / "verify_report_sample.json"
MUTANT_LINE = "upon receiving ECHO from t distinct processes:"  # the mutated threshold (t + 1 in strb.alg)


@pytest.fixture(scope="module")
def report() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def page(report) -> str:
    return render_html(report)


# --------------------------------------------------------------------------- a table reader


class Tables(HTMLParser):
    """The text of every table cell, by the table's class: ``tables["verdicts"]`` is a list of
    rows (header rows too), each a list of cell texts. A table inside a cell (the pseudocode
    listing) adds its text to that cell."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[list[str]]]] = {}
        self.stack: list[dict] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.stack.append({"class": dict(attrs).get("class", ""), "rows": [], "cell": None})
        elif self.stack and tag == "tr" and self.stack[-1]["cell"] is None:
            self.stack[-1]["rows"].append([])
        elif self.stack and tag in ("td", "th") and self.stack[-1]["cell"] is None:
            self.stack[-1]["cell"] = []

    def handle_endtag(self, tag):
        if not self.stack:
            return
        top = self.stack[-1]
        if tag in ("td", "th") and top["cell"] is not None:
            top["rows"][-1].append(" ".join("".join(top["cell"]).split()))
            top["cell"] = None
        elif tag == "table":
            done = self.stack.pop()
            text = " ".join(" ".join(row) for row in done["rows"])
            if self.stack and self.stack[-1]["cell"] is not None:
                self.stack[-1]["cell"].append(" " + text + " ")
            else:
                self.tables.setdefault(done["class"], []).append(done["rows"])

    def handle_data(self, data):
        if self.stack and self.stack[-1]["cell"] is not None:
            self.stack[-1]["cell"].append(data)


def body_rows(table: list[list[str]]) -> list[list[str]]:
    return [row for row in table if row and row[0] not in ("", "step", "property", "pass", "rule")]


# ------------------------------------------------------------------------------ the fixture


def test_the_fixture_is_a_small_real_report(report):
    assert SAMPLE.stat().st_size < 60_000
    first, second = report["algorithms"]
    assert {p["verdict"] for p in first["properties"]} == {"holds"}
    verdicts = {p["name"]: p for p in second["properties"]}
    assert verdicts["unforgeability"]["kind"] == "safety" and verdicts["unforgeability"]["verdict"] == "violated"
    assert verdicts["relay"]["kind"] == "liveness" and verdicts["relay"]["verdict"] == "violated"
    assert verdicts["relay"]["counterexample"]["loop"] is not None
    assert all("source" in s for s in verdicts["unforgeability"]["counterexample"]["schedule"])


# --------------------------------------------------------------------------------- content


def test_header_has_the_run_and_the_overall_counts(page, report):
    assert report["command"] in page and report["started"] in page and report["tactl_version"] in page
    assert ".tactl-cache: 5 hits, 5 misses" in page
    assert "exit status</dt><dd>1 (a property is violated)" in page
    # one id'd summary element per algorithm, linking to its section
    for anchor in ("alg-strb", "alg-strb_mutant"):
        assert f'id="summary-{anchor}"' in page and f'href="#{anchor}"' in page and f'id="{anchor}"' in page
    text = re.sub(r"<[^>]+>", "", page)
    assert "4 hold" in text and "2 violated" in text


def test_verdict_tables_say_violated_with_colour_classes(page):
    [strb, mutant] = Tables(page).tables["verdicts"]
    assert [r[:3] for r in body_rows(strb)] == [["unforgeability", "reachability", "HOLDS"],
                                               ["correctness", "liveness", "HOLDS"],
                                               ["relay", "liveness", "HOLDS"]]
    rows = {r[0]: r for r in body_rows(mutant)}
    assert rows["unforgeability"][2] == "VIOLATED" and rows["relay"][2] == "VIOLATED"
    assert rows["unforgeability"][3:6] == ["parametric", rows["unforgeability"][4], "miss"]
    assert "counterexample" in rows["relay"][6]
    assert '<td class="verdict verdict-violated">VIOLATED</td>' in page
    assert '<td class="verdict verdict-holds">HOLDS</td>' in page


def test_summary_line_of_each_automaton(page):
    assert ("STRB, 4 locations, 9 rules, 1 shared variable, parameters n, t, f with "
            "n &gt; 3 * t &amp;&amp; t &gt;= f &amp;&amp; f &gt;= 0") in page


def test_certificate_table_rows(page, report):
    tables = Tables(page).tables["certificates"]
    assert len(tables) == 2
    for table, alg in zip(tables, report["algorithms"]):
        expected = [[c["rule"], c["receive_guard"], c["send_guard"], "✓", "✓"] for c in alg["certificates"]]
        assert body_rows(table) == expected
    assert body_rows(tables[1])[1] == ["1", "received(ECHO) >= t && received(ECHO) < t + 1",
                                       "ns_ECHO >= t - f", "✓", "✓"]


def test_pass_table(page):
    [strb, mutant] = Tables(page).tables["passes"]
    assert body_rows(strb)[0][:4] == ["parse", "", "1", "hit"]
    assert body_rows(mutant)[3][:4] == ["check", "unforgeability", "1", "miss"]
    assert "the entry was corrupt (its digest does not match its value): rebuilt" in page


def test_counterexample_configurations_and_pseudocode(page, report):
    tables = Tables(page).tables["configurations"]
    assert len(tables) == 2  # unforgeability (a run) and relay (a lasso)
    run = body_rows(tables[0])
    cex = next(p for p in report["algorithms"][1]["properties"] if p["name"] == "unforgeability")["counterexample"]
    assert len(run) == len(cex["configurations"]) == len(cex["schedule"]) + 1
    assert run[0][:2] == ["0", "initial"]
    # every row: step, rule fired (from -> to), factor, pseudocode, the four counters, ns_ECHO
    for n, (row, config) in enumerate(zip(run, cex["configurations"])):
        counters = list(config["locations"].values()) + list(config["shared"].values())
        assert row[-5:] == [str(v) for v in counters]
        if n:
            step = cex["schedule"][n - 1]
            assert row[1] == f"{step['rule']}: {step['from']} → {step['to']}"
            assert row[2] == f"×{step['factor']}"
            assert row[3].startswith(str(step["source"]["lines"][0]))
    assert run[-1] == ["7", "r6: sentECHO → accept", "×2",
                       "19 upon receiving ECHO from t + 1 distinct processes: 20 accept := true",
                       "0", "0", "5", "0", "5"]
    assert MUTANT_LINE in run[1][3]
    assert "mutants/strb_mutant.alg" in tables[0][1][3]  # the pseudocode's file, in the header
    assert "replayed by the simulator: <b class=\"ok\">yes</b>" in page


def test_lasso_loop_in_words(page):
    assert "loop: then r2: v0 → v0 forever (configuration 5 repeats: the lasso&#39;s loop)" in page
    assert "counterexample lasso: prefix schedule, then a loop, with n=13, t=4, f=4" in page
    assert "counterexample run, with n=5, t=0, f=0" in page


def test_plots_have_one_polyline_per_location(page, report):
    plots = re.findall(r'<svg class="plot".*?</svg>', page, re.DOTALL)
    assert len(plots) == 2
    locations = report["algorithms"][1]["automaton"]["locations"]
    for plot in plots:
        assert plot.count("<polyline") == locations == 4
        for name in ("v0", "v1", "accept", "sentECHO"):
            assert f">{name}</text>" in plot


def test_automaton_pictures_are_inline_without_prolog(page):
    assert page.count('<figure class="automaton"><svg') == 2
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page and "Generated by graphviz" not in page
    assert page.count("<!DOCTYPE html>") == 1


def test_warnings_and_outputs(page):
    assert "warning: cache entry 5c1e0a9b7f3d was corrupt" in page
    assert "promela: <code>strb.pml</code>" in page
    assert "No files were written for this algorithm." in page


def test_ids_are_unique(page):
    ids = re.findall(r'\sid="([^"]*)"', page)
    assert len(ids) == len(set(ids)) and "alg-strb-graph0" in ids and "alg-strb_mutant-graph0" in ids


# ------------------------------------------------------------------- escaping, self-contained


def test_user_text_is_escaped(report):
    hostile = copy.deepcopy(report)
    alg = hostile["algorithms"][1]
    alg["name"] = "<i>alg</i>"
    alg["file"] = 'a"b<c>.alg'
    alg["warnings"] = ["<script>alert(1)</script>"]
    prop = alg["properties"][0]
    prop["name"] = "<b>x</b>"
    prop["counterexample"]["schedule"][0]["source"]["text"] = 'line 15 "if x < 1 && <img src=y>:"'
    prop["counterexample"]["configurations"][0]["locations"]["<loc>"] = 0
    page = render_html(hostile)
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "&lt;i&gt;alg&lt;/i&gt;" in page and "<i>alg</i>" not in page
    assert "a&#34;b&lt;c&gt;.alg" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script" not in page
    assert "if x &lt; 1 &amp;&amp; &lt;img src=y&gt;:" in page and "<img" not in page
    assert "&lt;loc&gt;" in page and "<loc>" not in page


def test_self_contained(page):
    lowered = page.lower()
    for forbidden in ("http://", "https://", "<script", "<link", "@import", "url(", "<iframe", "<img"):
        assert forbidden not in lowered, forbidden
    assert not re.search(r"\s(src|href)\s*=\s*(?![\"']?#)", lowered)  # only in-page anchors
    assert "src=" not in lowered


def test_deterministic(report):
    assert render_html(report) == render_html(copy.deepcopy(report))
    assert render_html(report).encode() == render_html(json.loads(SAMPLE.read_text(encoding="utf-8"))).encode()


# ----------------------------------------------------------------------- the Graphviz picture

DOT_SVG = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
           '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"\n "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
           "<!-- Generated by graphviz -->\n"
           '<svg width="10pt" height="10pt" xmlns="http://www.w3.org/2000/svg" '
           'xmlns:xlink="http://www.w3.org/1999/xlink"><g id="graph0"><title>T</title></g></svg>\n')


def test_graphviz_svg_is_stripped_and_prefixed():
    svg, note = graphviz_svg(DOT_SVG, prefix="alg-a-")
    assert note == "" and svg is not None
    assert str(svg) == '<svg width="10pt" height="10pt"><g id="alg-a-graph0"><title>T</title></g></svg>'


def test_graphviz_svg_keeps_references_inside_the_picture():
    text = ('<svg><defs><linearGradient id="g"/></defs><path fill="url(#g)"/><path fill="url(\'#g\')"/>'
            '<a href="#n1"><text>x</text></a><g id="n1"/></svg>')
    svg, note = graphviz_svg(text, prefix="p-")
    assert note == ""
    assert str(svg) == ('<svg><defs><linearGradient id="p-g"/></defs><path fill="url(#p-g)"/>'
                        '<path fill="url(\'#p-g\')"/><a href="#p-n1"><text>x</text></a><g id="p-n1"/></svg>')


@pytest.mark.parametrize("bad, why", [
    ('<svg><path fill="url(https://example.org/x.svg#g)"/></svg>', "outside the page"),
    ('<svg><script>alert(1)</script></svg>', "script"),
    ('<svg><SCRIPT >alert(1)</SCRIPT></svg>', "script"),
    ('<svg onload="alert(1)"></svg>', "event handler"),
    ('<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>', "javascript"),
    ('<svg><image href="https://example.org/x.png"/></svg>', "outside the page"),
    ('<svg><foreignObject><div>x</div></foreignObject></svg>', "foreign"),
    ("<html><body>not a picture</body></html>", "not an SVG"),
])
def test_graphviz_svg_refuses_what_could_run_or_fetch(report, bad, why):
    svg, note = graphviz_svg(bad)
    assert svg is None and why in note
    changed = copy.deepcopy(report)
    changed["algorithms"][0]["svg"] = bad
    page = render_html(changed)
    assert "The picture was left out" in page and "<script" not in page.lower()
    assert "onload" not in page and "javascript:" not in page


def test_no_picture_and_no_certificates_are_said_in_words(report):
    changed = copy.deepcopy(report)
    alg = changed["algorithms"][0]
    alg.update(svg=None, certificates=[], kind="ta", file="corpus/strb/strb.ta")
    page = render_html(changed)
    assert "No picture in this report" in page
    assert "No translation certificates: the input is a threshold automaton" in page
    assert len(Tables(page).tables["certificates"]) == 1


# ------------------------------------------------------------------ counterexample variants


def _cex(report) -> dict:
    return copy.deepcopy(next(p for p in report["algorithms"][1]["properties"] if p["name"] == "relay"))


def test_cycle_steps_are_marked_and_explained(report):
    prop = _cex(report)
    cex = prop["counterexample"]
    cex["loop"] = None
    last = cex["configurations"][-1]
    cex["cycle"] = {"steps": [{"rule": "r9", "from": "v0", "to": "v0", "factor": 1}],
                    "meaning": "after the schedule these steps repeat forever"}
    cex["configurations"].append(copy.deepcopy(last))
    changed = copy.deepcopy(report)
    changed["algorithms"][1]["properties"] = [prop]
    page = render_html(changed)
    rows = body_rows(Tables(page).tables["configurations"][0])
    assert rows[-1][:3] == ["6*", "r9: v0 → v0", "×1"]
    assert "loop: steps marked * repeat forever (configuration 5 comes back after them" in page
    assert '<tr class="cycle">' in page


def test_a_replay_that_stopped_early_says_so(report):
    prop = _cex(report)
    prop["counterexample"]["configurations"] = prop["counterexample"]["configurations"][:3]
    prop["counterexample"]["replayed"] = False
    prop["counterexample"]["replay"] = "step 3: r4 is not enabled"
    changed = copy.deepcopy(report)
    changed["algorithms"][1]["properties"] = [prop]
    page = render_html(changed)
    assert "The replay stopped after step 2." in page
    assert 'replayed by the simulator: <b class="bad">no</b>' in page and "step 3: r4 is not enabled" in page


def test_pseudocode_lines_are_split_into_numbered_lines():
    assert pseudocode_lines('line 15 "if v == 1:"; line 16 "send ECHO to all"') == (
        ("15", "if v == 1:"), ("16", "send ECHO to all"))
    assert pseudocode_lines("waits: no handler changes anything") == (("", "waits: no handler changes anything"),)
    assert pseudocode_lines("") == ()


# ---------------------------------------------------------------------------------- the plot


def _points(svg: str) -> list[list[tuple[float, float]]]:
    return [[tuple(map(float, p.split(","))) for p in m.split()]
            for m in re.findall(r'<polyline points="([^"]*)"', svg)]


def test_counter_plot_draws_each_location_along_the_run():
    configs = [{"locations": {"a": 0, "b": 2}, "shared": {"x": 0}},
               {"locations": {"a": 1, "b": 1}, "shared": {"x": 1}},
               {"locations": {"a": 2, "b": 0}, "shared": {"x": 2}}]
    svg = counter_plot_svg(configs)
    assert svg.startswith('<svg class="plot"') and svg.endswith("</svg>")
    a, b = _points(svg)
    assert [x for x, _ in a] == [x for x, _ in b] and a[0][0] < a[1][0] < a[2][0]  # x = step
    assert a[0][1] > a[1][1] > a[2][1]  # a rises (SVG's y grows downwards)
    assert a[0][1] == b[2][1] and a[2][1] == b[0][1] and a[1][1] == b[1][1]  # same scale
    assert f'stroke="{PALETTE[0]}"' in svg and f'stroke="{PALETTE[1]}"' in svg  # fixed colours
    assert ">a</text>" in svg and ">b</text>" in svg  # the legend
    for tick in ("0", "1", "2"):
        assert f">{tick}</text>" in svg
    assert ">step</text>" in svg
    assert "x" not in re.findall(r">([^<]+)</text>", svg)  # shared variables are not plotted
    assert counter_plot_svg(configs) == svg


def test_counter_plot_edge_cases():
    assert counter_plot_svg([]) == ""
    one = counter_plot_svg([{"locations": {"<l>": 0}, "shared": {}}])
    assert one.count("<polyline") == 1 and "&lt;l&gt;" in one and "<l>" not in one
    many = counter_plot_svg([{"locations": {f"l{i}": i for i in range(12)}, "shared": {}}] * 2)
    assert many.count("<polyline") == 12 and "stroke-dasharray" in many  # past the palette: dashed
    big = counter_plot_svg([{"locations": {"a": 0}}, {"locations": {"a": 1000}}])
    labels = re.findall(r'text-anchor="end">(\d+)</text>', big)
    assert labels[0] == "0" and labels[-1] == "1000" and len(labels) <= 6


def test_the_template_ships_with_the_package():
    assert resources.files("tactl.templates").joinpath("html/report.html.j2").is_file()
