"""``tactl synthesize --html`` (tactl/report/synthesis_html.py): a self-contained page, parsed by
html.parser, with the solutions, their neighbours one step away and the runs of the regions."""

from __future__ import annotations

from html.parser import HTMLParser

from test_tightness import STRB_K, strb_k
from tactl.report.synthesis_html import render_synthesis_html
from tactl.synth.cegis import SynthesisOptions, synthesize
from tactl.synth.order import weakest
from tactl.synth.tightness import tightness


class Page(HTMLParser):
    """Text per element class, ids, links and every external reference."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.external: list[str] = []
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        href = attrs.get("href") or ""
        if href.startswith("#"):
            self.links.append(href[1:])
        elif href or attrs.get("src"):
            self.external.append(href or attrs["src"])

    def handle_data(self, data):
        self.text.append(data)


def test_the_page_shows_the_solutions_their_neighbours_and_the_runs():
    ta = strb_k()
    result = synthesize(ta, SynthesisOptions(path="strb_k.ta"))
    result.tightness = tightness(ta, result)
    page = Page()
    page.feed(render_synthesis_html(result))
    text = " ".join(" ".join(page.text).split())
    for k in (3, 4):
        assert f"k = {k}" in text
    assert "n > 3 * t && t >= f && f >= 0" in text
    assert "Cannot be weakened by one step:" in text
    assert "relay violated with n=3, t=1, f=1" in text
    assert "script" not in page.tags and not page.external  # self-contained
    assert set(page.links) <= page.ids  # every link lands
    assert {"region-1", "region-2"} <= page.ids
    assert "replayed by the simulator" in text  # the run as the verify page draws it


def test_weakest_shows_only_the_chosen_solution():
    ta = strb_k()
    result = synthesize(ta, SynthesisOptions(path="strb_k.ta"))
    result.weakest = weakest(ta, [s.values for s in result.solutions])
    page = Page()
    page.feed(render_synthesis_html(result))
    text = " ".join(" ".join(page.text).split())
    assert "1 of 2 solutions shown" in text
    assert "<h4>k = 4</h4>" not in render_synthesis_html(result) and "k = 3" in text


def test_the_command_writes_the_page(cli, tmp_path):
    out = cli("synthesize", STRB_K, "--html", tmp_path / "s.html", "--weakest")
    assert out.code == 0, out.err
    page = Page()
    page.feed((tmp_path / "s.html").read_text())
    assert "tactl synthesize report" in " ".join(page.text)


def test_an_unwritable_page_is_refused_before_the_search(cli, tmp_path):
    out = cli("synthesize", STRB_K, "--html", tmp_path / "missing" / "s.html")
    assert out.code == 2 and "does not exist" in out.err
