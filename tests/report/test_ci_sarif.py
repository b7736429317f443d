"""``--sarif`` of check and verify: every document validated against the SARIF 2.1.0 JSON schema
(fetched by ``make sarif-schema``; without it that check skips loudly) and, always, by the
sarif-pydantic models; results located at the line where the property is written, a violation's
run as a code flow over the source lines of its steps with the configurations as states."""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import pytest

from conftest import CORPUS, DATA

WEAK = DATA / "ci" / "strb_weak.alg"
SCHEMA = Path(os.environ.get("TACTL_TOOLS", Path.home() / ".cache" / "tactl")) / "sarif-schema-2.1.0.json"


def validate(document: dict) -> None:
    """The SARIF 2.1.0 schema's verdict (when the schema is here) and the sarif-pydantic models'."""
    sarif_pydantic = pytest.importorskip("sarif_pydantic", reason="a test dependency: pip install -e '.[test]'")
    sarif_pydantic.Sarif.model_validate(document)
    for run in document["runs"]:  # what the models leave loose: the code flows
        for result in run["results"]:
            assert result["message"]["text"] and result["ruleId"] in {r["id"] for r in run["tool"]["driver"]["rules"]}
            for flow in result.get("codeFlows", []):
                for thread in flow["threadFlows"]:
                    assert thread["locations"], "a thread flow has at least one location"
                    for loc in thread["locations"]:
                        assert loc["location"]["physicalLocation"]["artifactLocation"]["uri"]
    if not SCHEMA.is_file():
        message = (f"SARIF schema validation SKIPPED: no schema at {SCHEMA} (run `make sarif-schema` "
                   "online; only the sarif-pydantic check ran)")
        warnings.warn(message)
        print(f"\nWARNING: {message}")
        return
    jsonschema = pytest.importorskip("jsonschema", reason="a test dependency: pip install -e '.[test]'")
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))


def test_the_schema_is_here_or_the_skip_is_loud():
    """Not a silent pass: without the schema this test is reported SKIPPED, with the command."""
    if not SCHEMA.is_file():
        pytest.skip(f"no SARIF 2.1.0 schema at {SCHEMA}: run `make sarif-schema` (online) so that "
                    "the --sarif outputs are validated against it")
    schema = json.loads(SCHEMA.read_text())
    assert "2.1.0" in schema["title"]


def line_of(path: Path, pattern: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if re.search(pattern, line))


def sarif_of(cli, out: Path, code: int, *args) -> dict:
    """``tactl ARGS --sarif OUT`` (exit status ``code``): the document, validated."""
    r = cli(*args, "--sarif", out)
    assert r.code == code, r.err
    document = json.loads(out.read_text())
    validate(document)
    return document


@pytest.fixture
def weak(cli, tmp_path):
    out = tmp_path / "weak.sarif"
    r = cli("check", WEAK, "--json", "--sarif", out)
    assert r.code == 1, r.err
    return json.loads(out.read_text()), {p["name"]: p for p in json.loads(r.out)["properties"]}


def test_check_sarif_is_valid_and_locates_each_violation_at_its_property_line(weak):
    document, report = weak
    validate(document)
    (run,) = document["runs"]
    assert run["tool"]["driver"]["name"] == "tactl"
    assert run["invocations"][0]["exitCode"] == 1
    results = {r["properties"]["property"]: r for r in run["results"]}
    assert set(results) == set(report)
    # the file as code scanning resolves it: relative to the working directory (the checkout)
    uri = WEAK.relative_to(Path.cwd()).as_posix() if WEAK.is_relative_to(Path.cwd()) else WEAK.as_uri()
    for name, result in results.items():
        assert (result["ruleId"], result["level"]) == ("property-violated", "error")
        where = result["locations"][0]["physicalLocation"]
        assert where["artifactLocation"]["uri"] == uri
        line = line_of(WEAK, rf"^\s*{name}:")
        assert where["region"]["startLine"] == line
        text = WEAK.read_text().splitlines()[line - 1]
        start, end = where["region"]["startColumn"], where["region"]["endColumn"]
        assert text[start - 1:end - 1] == name
        params = report[name]["counterexample"]["parameters"]
        assert result["properties"]["parameters"] == params
        assert all(f"{k}={v}" in result["message"]["text"] for k, v in params.items())


def test_the_code_flow_is_the_run_over_the_pseudocode_lines(weak):
    document, report = weak
    results = {r["properties"]["property"]: r for r in document["runs"][0]["results"]}
    for name in ("unforgeability", "relay"):
        cex = report[name]["counterexample"]
        locations = results[name]["codeFlows"][0]["threadFlows"][0]["locations"]
        steps = [loc for loc in locations if loc["location"]["message"]["text"].startswith("step ")
                 and "(continued)" not in loc["location"]["message"]["text"]]
        assert len(steps) == len(cex["schedule"])
        for step, loc in zip(cex["schedule"], steps):
            region = loc["location"]["physicalLocation"]["region"]
            lines = step["source"]["lines"]
            assert region["startLine"] == lines[0]
            assert region.get("endLine", region["startLine"]) <= lines[-1]
        # the states are the printed configurations: the initial one, then one per step
        states = [loc["state"] for loc in locations if "state" in loc]
        assert [{k: int(v["text"]) for k, v in s.items()} for s in states] == \
            [{**c["locations"], **c["shared"]} for c in cex["configurations"]]
        assert [loc["executionOrder"] for loc in locations] == list(range(1, len(locations) + 1))
    relay = results["relay"]["codeFlows"][0]["threadFlows"][0]["locations"]
    assert relay[-1]["location"]["message"]["text"].startswith("then forever")


def the_violation_flow(cli, tmp_path, path: Path, name: str) -> list[dict]:
    """``check PATH -p NAME --sarif``: its one result, at the line where NAME is written; the
    locations of its code flow."""
    document = sarif_of(cli, tmp_path / "one.sarif", 1, "check", path, "-p", name)
    (result,) = document["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == line_of(path, rf"^\s*{name}\s*:")
    return result["codeFlows"][0]["threadFlows"][0]["locations"]


def test_a_ta_file_is_located_at_its_specification_and_rules(cli, tmp_path):
    ta = DATA / "check" / "cycle.ta"
    flow = the_violation_flow(cli, tmp_path, ta, "never_c")
    rule_lines = {line_of(ta, rf"^\s*{k}\s*:") for k in (0, 1, 2)}
    assert {loc["location"]["physicalLocation"]["region"]["startLine"] for loc in flow[1:]} <= rule_lines


def test_undecided_properties_are_notes_and_warnings_and_holds_are_not_results(cli, tmp_path):
    document = sarif_of(cli, tmp_path / "u.sarif", 3, "check", DATA / "check" / "unsupported.ta")
    (result,) = document["runs"][0]["results"]  # `reset` holds: no result
    assert (result["properties"]["property"], result["ruleId"], result["level"]) == \
        ("live", "property-unknown", "warning")
    assert "no proof for all sizes" in result["message"]["text"]
    # the chc engine decides no liveness: there the same property is unsupported
    document = sarif_of(cli, tmp_path / "c.sarif", 3, "check", DATA / "check" / "unsupported.ta", "--engine", "chc")
    (result,) = document["runs"][0]["results"]
    assert (result["properties"]["property"], result["ruleId"], result["level"]) == \
        ("live", "property-unsupported", "note")
    assert "reachability" in result["message"]["text"]
    document = sarif_of(cli, tmp_path / "holds.sarif", 0, "check", CORPUS / "strb" / "strb.alg")
    assert document["runs"][0]["results"] == []


def test_a_promela_property_is_located_at_its_ltl_line(cli, tmp_path):
    pml = DATA / "promela" / "two_phase.pml"
    document = sarif_of(cli, tmp_path / "pml.sarif", 1, "check", pml, "-p", "corr")
    (result,) = document["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == line_of(pml, r"^\s*ltl corr\b")


def test_verify_sarif_is_one_run_over_every_algorithm(cli, tmp_path):
    document = sarif_of(cli, tmp_path / "v.sarif", 1, "verify", WEAK, CORPUS / "strb" / "strb.alg",
                        "--report-dir", tmp_path / "rep", "--no-cache")
    (run,) = document["runs"]
    assert {(res["properties"]["algorithm"], res["properties"]["property"]) for res in run["results"]} == \
        {("strb_weak", "unforgeability"), ("strb_weak", "correctness"), ("strb_weak", "relay")}
    assert all("codeFlows" in res for res in run["results"])


def test_a_lockstep_violation_flows_through_its_rounds_at_the_property(cli, tmp_path):
    alg = DATA / "ci" / "floodmin_weak.alg"
    document = sarif_of(cli, tmp_path / "fm.sarif", 1, "check", alg, "-p", "agreement")
    (result,) = document["runs"][0]["results"]
    line = line_of(alg, r"^\s*agreement assuming clean round:")
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == line
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [loc["location"]["message"]["text"].split(" starts")[0] for loc in flow] == ["round 1", "round 2"]


def test_the_interpreters_runs_flow_over_the_lines_they_execute(cli, tmp_path):
    """verify --engine source builds no automaton: the property's line comes from the program,
    each step of the interpreter's run is located at the lines it executes."""
    document = sarif_of(cli, tmp_path / "src.sarif", 1, "verify", WEAK, "--engine", "source", "--param", "n=4",
                        "--param", "t=1", "--param", "f=1", "--report-dir", tmp_path / "rep", "--no-cache")
    results = {r["properties"]["property"]: r for r in document["runs"][0]["results"]}
    assert set(results) == {"unforgeability", "correctness", "relay"}
    handlers = {line_of(WEAK, r"^\s*if v == 1:"), line_of(WEAK, r"from 1 distinct"),
                line_of(WEAK, r"from n - f \+ 1 distinct")}
    for name, result in results.items():
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == line_of(WEAK, rf"^\s*{name}:")
        flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
        steps = [loc["location"] for loc in flow if loc["location"]["message"]["text"].startswith("step ")
                 and "nothing happens" not in loc["location"]["message"]["text"]]
        assert steps and all(s["physicalLocation"]["region"]["startLine"] in handlers for s in steps)
    assert not (tmp_path / "rep" / "itf").exists()  # the interpreter's runs have no automaton's trace


def test_a_receive_automatons_steps_are_at_its_rules(cli, tmp_path):
    rta = DATA / "ci" / "strb_weak.rta"
    flow = the_violation_flow(cli, tmp_path, rta, "unforgeability")
    steps = [loc["location"] for loc in flow if loc["location"]["message"]["text"].startswith("step ")]
    assert steps
    for step in steps:  # "step 1: 2 processes V0 -> SE by r1: ..." at the rule `1: V0 -> SE when ...`
        move = re.search(r"(\w+) -> (\w+) by", step["message"]["text"])
        line = step["physicalLocation"]["region"]["startLine"]
        assert re.search(rf"^\s*\d+\s*:\s*{move[1]}\s*->\s*{move[2]}\b", rta.read_text().splitlines()[line - 1])
