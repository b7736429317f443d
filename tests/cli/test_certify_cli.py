"""``tactl check --certify`` and ``tactl emit --to smtlib --invariant`` from the command line."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS, DATA, report_properties
from tactl.engines import certify, solvers

STRB = CORPUS / "strb" / "strb.ta"
RESET_SAFE = DATA / "chc" / "reset_safe.ta"

needs_cvc5 = pytest.mark.skipif(solvers.available("cvc5") is None, reason="cvc5 is not installed")


@needs_cvc5
def test_certified_holds_in_the_text_report(cli):
    r = cli("check", STRB, "--certify")
    assert r.code == 0
    assert r.out.count("HOLDS, certified by cvc5 (") == 3


@needs_cvc5
def test_certificate_field_in_json(cli):
    r = cli("check", RESET_SAFE, "--engine", "chc", "--certify", "--json")
    assert r.code == 0
    [prop] = report_properties(json.loads(r.out)).values()
    assert prop["verdict"] == "holds"
    cert = prop["certificate"]
    assert (cert["solver"], cert["queries"], cert["confirmed"]) == ("cvc5", 3, 3)
    assert prop["details"]["invariant_smtlib"].startswith("(")  # the certified SMT-LIB form


def test_without_certify_nothing_is_said_about_certificates(cli):
    text, doc = cli("check", STRB), cli("check", STRB, "--json")
    assert "certified" not in text.out
    assert all("certificate" not in p for p in json.loads(doc.out)["properties"])


@needs_cvc5
def test_an_unconfirmed_holds_is_unknown(cli, monkeypatch):
    monkeypatch.setattr(certify.solvers, "run",
                        lambda solver, path, timeout_s=0: solvers.SolverRun(solver, solvers.SAT, 0.0, "x"))
    r = cli("check", STRB, "--certify", "-p", "unforgeability")
    assert r.code == 3
    assert "UNKNOWN" in r.out and "not certified: cvc5 answered sat on unforgeability" in r.out


def test_certify_without_cvc5_is_a_usage_error(cli, monkeypatch):
    monkeypatch.setattr(certify.solvers, "available", lambda solver: None)
    r = cli("check", STRB, "--certify")
    assert r.code == 2
    assert "pip install cvc5" in r.err


def test_certify_needs_an_engine_with_smt_queries(cli):
    r = cli("check", STRB, "--certify", "--engine", "explicit", "--param", "n=4", "--param", "t=1",
            "--param", "f=1")
    assert r.code == 2 and "--certify re-asks the SMT queries of the parametric, chc and lockstep" in r.err


def test_emit_invariant_writes_three_checks_per_safety_property(cli, tmp_path):
    r = cli("emit", STRB, "--to", "smtlib", "--invariant", "-o", tmp_path)
    assert r.code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"strb.unforgeability.invariant.{q}.smt2" for q in ("consecution", "initiation", "safety")]
    assert "skipped correctness: no inductive invariant" in r.err  # liveness: not the chc engine's
    assert (tmp_path / "strb.unforgeability.invariant.safety.smt2").read_text().startswith("; safety: ")


def test_emit_writes_invariant_checks_for_an_automaton_with_resets(cli, tmp_path):
    r = cli("emit", RESET_SAFE, "--to", "smtlib", "-o", tmp_path)
    assert r.code == 0
    assert "writing the chc engine's inductive-invariant checks instead" in r.err
    assert len(list(tmp_path.iterdir())) == 3


def test_emit_invariant_is_an_smtlib_option(cli, tmp_path):
    r = cli("emit", STRB, "--to", "promela", "--invariant", "-o", tmp_path / "m.pml")
    assert r.code == 2 and "--invariant is an option of --to smtlib" in r.err


@needs_cvc5
def test_verify_certify_in_the_html_and_json_reports(cli, tmp_path):
    r = cli("verify", STRB, "--certify", "--no-cache", "--report-dir", tmp_path, "-q")
    assert r.code == 0
    page = (tmp_path / "report.html").read_text()
    assert page.count("certified by cvc5 (") == 3
    [alg] = json.loads((tmp_path / "report.json").read_text())["algorithms"]
    assert all(p["certificate"]["confirmed"] == p["certificate"]["queries"] >= 1 for p in alg["properties"])
