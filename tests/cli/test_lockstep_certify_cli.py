"""``tactl check --certify`` and ``tactl emit --to smtlib`` on a synchronous algorithm: the
lock-step engine's questions in the reports and as files (tactl/engines/lockstep_certificate.py)."""

from __future__ import annotations

import json

import pytest
import z3

from conftest import CORPUS, report_properties
from tactl.engines import solvers

FLOODMIN = CORPUS / "floodmin" / "floodmin.rta"

needs_cvc5 = pytest.mark.skipif(solvers.available("cvc5") is None, reason="cvc5 is not installed")


@needs_cvc5
def test_json_carries_the_lockstep_certificate(cli):
    r = cli("check", FLOODMIN, "--certify", "--json", "-p", "validity0", "-q")
    assert r.code == 0
    [prop] = report_properties(json.loads(r.out)).values()
    assert prop["verdict"] == "holds"
    certificate = prop["certificate"]
    assert certificate["solver"] == "cvc5" and "failure" not in certificate
    assert certificate["queries"] == certificate["confirmed"] == 6  # 2 locations, diameter, 3 lengths
    assert certificate["trusted"].startswith("the encoding of lock-step rounds")  # not an SMT answer


@needs_cvc5
def test_text_report_says_certified(cli):
    r = cli("check", FLOODMIN, "--certify", "-p", "validity1", "-q")
    assert r.code == 0 and "HOLDS, certified by cvc5 (6 queries" in r.out
    assert "taken from tactl, not re-checked: the encoding of lock-step rounds" in r.out


@needs_cvc5
def test_html_report_says_what_is_trusted(cli, tmp_path):
    r = cli("verify", FLOODMIN, "--certify", "--no-cache", "--report-dir", tmp_path, "-q")
    assert r.code == 0
    page = (tmp_path / "report.html").read_text()
    assert "taken from tactl, not re-checked: the encoding of lock-step rounds" in page


def test_emit_smtlib_writes_the_lockstep_questions(cli, tmp_path):
    r = cli("emit", FLOODMIN, "--to", "smtlib", "-p", "validity0", "-o", tmp_path)
    assert r.code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[0] == "floodmin.validity0.lockstep01.guard-completeness-of-V0.smt2"
    assert "floodmin.validity0.lockstep03.diameter-2-rounds.smt2" in names and len(names) == 6
    for path in tmp_path.iterdir():
        s = z3.Solver()
        s.from_file(str(path))
        assert s.check() == z3.unsat, path.name


def test_emit_skips_a_property_that_does_not_hold(cli, tmp_path):
    weak = tmp_path / "weak.rta"
    weak.write_text(FLOODMIN.read_text().replace("agreement assuming clean round", "agreement"))
    r = cli("emit", weak, "--to", "smtlib", "-p", "agreement", "-o", tmp_path / "out")
    assert r.code != 0 and "skipped agreement: no certificate (violated)" in r.err


def test_emit_invariant_refuses_a_synchronous_algorithm(cli, tmp_path):
    r = cli("emit", FLOODMIN, "--to", "smtlib", "--invariant", "-o", tmp_path)
    assert r.code == 2 and "lock-step rounds" in r.err
