"""Unknown coefficients (``?a``) in ``.alg`` and ``.rta``: the ``unknowns`` item, thresholds and
resilience conditions that use them, the textual and JSON round trips of the receive automaton,
and every class of bad input refused at its position (files under tests/data/unknowns, each
naming the position and message it must get in its first line).
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import CORPUS, REPO
from tactl.ir.alg.reader import parse_alg
from tactl.ir.expr import to_text
from tactl.ir.rta.json_form import rta_from_json, rta_to_json
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta
from tactl.ir.unknowns import Unknown
from tactl.passes.alg_to_rta.extract import parse_algorithm

SYNTHESIS = sorted((CORPUS / "synthesis").glob("*.alg"))
BAD = sorted((REPO / "tests" / "data" / "unknowns").iterdir())


def rta_of(path):
    return parse_algorithm(parse_alg(path.read_text(), str(path))).rta


def test_unknowns_item_declares_ranges_and_thresholds_use_them():
    rta = rta_of(CORPUS / "synthesis" / "strb-thresholds.alg")
    assert rta.unknowns[:3] == (Unknown("?a1", 0, 1), Unknown("?b1", -2, 2), Unknown("?c1", -2, 2))
    guards = {to_text(r.guard) for r in rta.rules}
    assert "received(ECHO) >= ?a2 * n + ?b2 * t + ?c2" in guards


def test_resilience_condition_with_an_unknown_coefficient():
    rta = rta_of(CORPUS / "synthesis" / "strb-resilience.alg")
    assert rta.unknowns == (Unknown("?k", 0, 5),)
    assert [to_text(e) for e in rta.assumptions] == ["n > ?k * t", "t >= f", "f >= 0"]


def test_rational_threshold_and_where_constraint():
    text = (CORPUS / "strb" / "strb.alg").read_text()
    text = text.replace("faults byzantine(f)", "faults byzantine(f)\n"
                        "unknowns ?a in 0..2, ?b in -1..1 where ?a + ?b >= 1")
    text = text.replace("from n - t distinct", "from more than (?a * n + ?b * t) / 2")
    rta = parse_algorithm(parse_alg(text, "x.alg")).rta
    assert [to_text(e) for e in rta.unknown_constraints] == ["?a >= -?b + 1"]
    assert any(to_text(r.guard) == "2 * received(ECHO) > ?a * n + ?b * t" for r in rta.rules)


@pytest.mark.parametrize("path", SYNTHESIS, ids=lambda p: p.name)
def test_rta_text_and_json_round_trip(path):
    rta = rta_of(path)
    again = read_rta(print_rta(rta), "x.rta").rta
    assert again == rta and again.unknowns == rta.unknowns
    assert again.unknown_constraints == rta.unknown_constraints
    doc = json.loads(json.dumps(rta_to_json(rta)))
    assert rta_from_json(doc) == rta and rta_from_json(doc).unknowns == rta.unknowns


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_unknowns_are_refused_at_their_position(cli, path):
    first = path.read_text().splitlines()[0]
    position, message = re.fullmatch(r"(?:#|//) expect: (\d+:\d+) (.*)", first).groups()
    r = cli("translate", str(path), "-o", "-")
    assert r.code == 2, (r.out, r.err)
    head = r.err.splitlines()[0]
    assert head.startswith(f"{path}:{position}: "), r.err
    assert message.strip() in head
    assert "^" in r.err and "Traceback" not in r.err


def test_an_unknown_declared_but_unused_is_a_warning(cli, tmp_path):
    text = (CORPUS / "synthesis" / "strb-resilience.alg").read_text()
    path = tmp_path / "unused.alg"
    path.write_text(text.replace("unknowns ?k in 0..5", "unknowns ?k in 0..5, ?z in 0..2"))
    r = cli("parse", str(path), "-o", str(tmp_path / "x.rta"))
    assert r.code == 0, r.err
    assert re.search(r"unused\.alg:\d+:\d+: warning: the unknown '\?z' is declared but no", r.err)


def test_check_fmt_and_show_accept_unknowns(cli, tmp_path):
    path = CORPUS / "synthesis" / "strb-thresholds.alg"
    r = cli("check", str(path))
    assert r.code == 3, r.err
    assert r.out.count("UNSUPPORTED") == 3
    assert "the automaton has synthesis unknowns (a1, b1, c1, a2, b2, c2)" in r.out
    rta = tmp_path / "x.rta"
    assert cli("parse", str(path), "-o", str(rta)).code == 0
    r = cli("fmt", str(rta))
    assert r.code == 0 and "unknowns ?a1 in 0..1" in r.out and "?a2 * n" in r.out, r.err
    r = cli("show", str(path))
    assert r.code == 0 and "Traceback" not in r.err, r.err


def test_lsp_hover_on_an_unknown_gives_its_range(cli):
    path = CORPUS / "synthesis" / "strb-resilience.alg"
    line, col = next((i + 1, text.index("?k") + 2) for i, text in
                     enumerate(path.read_text().splitlines()) if text.startswith("resilience"))
    r = cli("lsp", "--hover", f"{path}:{line}:{col}")
    assert r.code == 0, r.err
    assert "unknown, in 0..5" in r.out


def test_check_of_a_synchronous_algorithm_with_unknowns_is_unsupported_alike(cli, tmp_path):
    text = (CORPUS / "rb_sync" / "rb_sync.alg").read_text()
    text = text.replace("\ntiming sync\n", "\ntiming sync\nunknowns ?c in 0..2\n")
    text = text.replace("if received ECHO from t + 1 distinct", "if received ECHO from t + ?c distinct")
    path = tmp_path / "sync.alg"
    path.write_text(text)
    r = cli("check", str(path))
    assert r.code == 3, r.err
    assert "UNSUPPORTED" in r.out and "the automaton has synthesis unknowns (c)" in r.out


def test_a_hand_written_rta_with_unknowns_translates_to_a_synthesis_ta(cli, tmp_path):
    text = (REPO / "tests" / "data" / "unknowns" / "rta_undeclared.rta").read_text()
    path = tmp_path / "ok.rta"
    path.write_text(text.replace("unknowns ?a in 0..1;", "unknowns ?a in 0..1, ?c in -1..1;"))
    r = cli("translate", str(path), "-o", "-")
    assert r.code == 0, r.err
    assert "unknowns a, c;" in r.out and "-1 <= c;" in r.out
    assert "define thresh1 == a * t + c;" in r.out
