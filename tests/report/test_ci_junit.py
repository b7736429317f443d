"""``verify --junit``: read back by junitparser (and the suite counts by the stdlib's XML
parser): a suite per algorithm, a case per property; VIOLATED a failure with the parameters and
the run, undecided verdicts errors (they make verify exit non-zero), HOLDS a pass."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from conftest import CORPUS, DATA

junitparser = pytest.importorskip("junitparser", reason="a test dependency: pip install -e '.[test]'")

WEAK = DATA / "ci" / "strb_weak.alg"


def line_of(path, name: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if line.strip().startswith(f"{name}:"))


@pytest.fixture
def junit(cli, tmp_path):
    out = tmp_path / "verify.xml"
    r = cli("verify", WEAK, CORPUS / "strb" / "strb.alg", DATA / "check" / "unsupported.ta",
            "--report-dir", tmp_path / "rep", "--no-cache", "--json", "--junit", out)
    assert r.code == 1, r.err
    return out, json.loads(r.out), r.err


def test_a_suite_per_algorithm_and_a_case_per_property(junit):
    out, report, err = junit
    xml = junitparser.JUnitXml.fromfile(str(out))
    suites = {s.name: s for s in xml}
    assert list(suites) == ["strb_weak", "strb", "unsupported"]
    for algorithm in report["algorithms"]:
        suite = suites[algorithm["name"]]
        assert [case.name for case in suite] == [p["name"] for p in algorithm["properties"]]
        assert all(case.classname == algorithm["name"] for case in suite)
        assert suite.tests == len(algorithm["properties"])
        assert suite.time == pytest.approx(sum(p["time_s"] for p in algorithm["properties"]), abs=0.01)
    assert f"wrote {out} (JUnit XML: 3 suites, 8 test cases)" in err
    root = ET.parse(out).getroot()
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "8", "3", "1")


def test_a_violation_is_a_failure_with_its_parameters_and_run(junit):
    out, report, _ = junit
    suites = {s.name: s for s in junitparser.JUnitXml.fromfile(str(out))}
    weak = next(a for a in report["algorithms"] if a["name"] == "strb_weak")
    for prop, case in zip(weak["properties"], suites["strb_weak"]):
        (failure,) = case.result
        assert isinstance(failure, junitparser.Failure) and failure.type == "violated"
        params = prop["counterexample"]["parameters"]
        assert all(f"{k}={v}" in failure.message for k, v in params.items())
        assert "replayed by the simulator" in failure.message
        assert failure.text.startswith("counterexample ")  # the run, as check prints it
        assert case._elem.get("line") == str(line_of(WEAK, prop["name"]))


def test_holds_pass_and_undecided_verdicts_are_errors(junit):
    out, _, _ = junit
    suites = {s.name: s for s in junitparser.JUnitXml.fromfile(str(out))}
    assert all(case.is_passed for case in suites["strb"])
    cases = {case.name: case for case in suites["unsupported"]}
    assert cases["reset"].is_passed
    (error,) = cases["live"].result
    assert isinstance(error, junitparser.Error) and error.type == "unknown"
    assert "UNKNOWN" in error.message
