"""The paths of ``--itf``, ``--sarif`` and ``--junit``: refused before any check when they cannot
be written (exit 2, ``PATH: message``), never the input, and written whole."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from conftest import CORPUS, DATA

WEAK = DATA / "ci" / "strb_weak.alg"


@pytest.mark.parametrize("option", ["--itf", "--sarif"])
def test_check_refuses_a_missing_directory_before_checking(cli, tmp_path, option):
    target = tmp_path / "missing" / "out.json"
    r = cli("check", WEAK, option, target)
    assert r.code == 2
    assert r.out == ""  # nothing was checked
    assert r.err.startswith(f"{target}: {option}: cannot write: the directory '{target.parent}' does not exist")


@pytest.mark.parametrize("option", ["--sarif", "--junit"])
def test_verify_refuses_a_directory_before_checking(cli, tmp_path, option):
    r = cli("verify", WEAK, "--report-dir", tmp_path / "rep", "--no-cache", option, tmp_path)
    assert r.code == 2 and r.out == ""
    assert f"{option}: cannot write: it is a directory" in r.err
    assert not (tmp_path / "rep").exists()


def test_the_input_is_never_overwritten(cli, tmp_path):
    copy = tmp_path / "strb_weak.alg"
    copy.write_text(WEAK.read_text())
    r = cli("check", copy, "--sarif", copy)
    assert r.code == 2 and "--sarif: refusing to overwrite the input file" in r.err
    assert copy.read_text() == WEAK.read_text()
    r = cli("verify", copy, "--report-dir", tmp_path / "rep", "--no-cache", "--junit", copy)
    assert r.code == 2 and "--junit: refusing to overwrite the input file" in r.err
    assert copy.read_text() == WEAK.read_text()


def test_itf_needs_a_file_name_and_an_automaton(cli, tmp_path):
    r = cli("check", WEAK, "--itf", "-")
    assert r.code == 2 and "--itf writes one file per counterexample" in r.err
    r = cli("check", WEAK, "--engine", "source", "--param", "n=4", "--param", "t=1", "--param", "f=1",
            "--sarif", tmp_path / "x.sarif")
    assert r.code == 2 and "--engine source translates nothing" in r.err


def test_an_existing_output_is_replaced_whole(cli, tmp_path):
    out = tmp_path / "old.xml"
    out.write_text("x" * 100_000)  # longer than the new document: no tail of it may remain
    r = cli("verify", CORPUS / "strb" / "strb.alg", "--report-dir", tmp_path / "rep", "--no-cache", "--junit", out)
    assert r.code == 0, r.err
    root = ET.parse(out).getroot()
    assert root.get("tests") == "3" and root.get("failures") == "0"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tactl.")] == []  # no temporary left


def test_a_bad_input_is_an_errored_suite(cli, tmp_path):
    bad = tmp_path / "bad.alg"
    bad.write_text("algorithm X\nparameters n\nthis is not pseudocode\n")
    out = tmp_path / "v.xml"
    r = cli("verify", bad, WEAK, "--report-dir", tmp_path / "rep", "--no-cache", "--junit", out)
    assert r.code == 2
    suites = ET.parse(out).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["bad", "strb_weak"]
    (case,) = suites[0].findall("testcase")
    error = case.find("error")
    assert case.get("name") == "(input)" and error.get("type") == "bad-input"
    assert error.get("message").startswith(f"{bad}:")
