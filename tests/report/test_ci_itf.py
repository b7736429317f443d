"""``check --itf`` and verify's ``itf/`` traces, read back by itf-py (the Python reader of the
Informal Trace Format of Apalache and Quint): each trace's states are the configurations of the
run ``tactl check --json`` reports, with the parameters; a lasso's ``loop`` is the index of the
state where its repeated part starts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import CORPUS, DATA

itf_py = pytest.importorskip("itf_py", reason="itf-py is a test dependency: pip install -e '.[test]'")

WEAK = DATA / "ci" / "strb_weak.alg"


def read_trace(path: Path):
    return itf_py.trace_from_json(json.loads(path.read_text()))


def expected_states(cex: dict) -> list[dict[str, int]]:
    """The configurations of a ``check --json`` counterexample, each with the parameters."""
    return [{**cex["parameters"], **c["locations"], **c["shared"]} for c in cex["configurations"]]


@pytest.fixture
def weak_run(cli, tmp_path):
    """``check strb_weak.alg --json --itf``: the JSON report by property, and the folder."""
    r = cli("check", WEAK, "--json", "--itf", tmp_path / "cex.itf.json")
    assert r.code == 1, r.err
    report = {p["name"]: p for p in json.loads(r.out)["properties"]}
    return report, tmp_path, r.err


def test_one_trace_per_violated_property_named_after_it(weak_run):
    report, folder, err = weak_run
    assert sorted(p.name for p in folder.iterdir()) == [
        "cex.correctness.itf.json", "cex.relay.itf.json", "cex.unforgeability.itf.json"]
    assert set(report) == {"unforgeability", "correctness", "relay"}
    assert f"wrote {folder / 'cex.relay.itf.json'} (ITF: relay," in err


def test_a_safety_violation_is_a_finite_trace_of_the_printed_run(weak_run):
    report, folder, _ = weak_run
    cex = report["unforgeability"]["counterexample"]
    trace = read_trace(folder / "cex.unforgeability.itf.json")
    assert trace.loop is None
    assert trace.params == list(cex["parameters"])
    assert trace.vars == [*cex["configurations"][0]["locations"], *cex["configurations"][0]["shared"]]
    assert [dict(s.values) for s in trace.states] == expected_states(cex)
    assert [s.meta["index"] for s in trace.states] == list(range(len(trace.states)))
    # each state after the first says which rule reached it, as the schedule does
    assert [s.meta["step"]["rule"] for s in trace.states[1:]] == [step["rule"] for step in cex["schedule"]]
    assert [s.meta["step"]["factor"] for s in trace.states[1:]] == [step["factor"] for step in cex["schedule"]]
    assert trace.meta["property"] == "unforgeability" and trace.meta["verdict"] == "violated"
    assert trace.meta["violation"] == cex["violating_step"]
    assert trace.meta["source"] == str(WEAK) and trace.meta["format"] == "ITF"


@pytest.mark.parametrize("name", ["correctness", "relay"])
def test_a_liveness_violation_is_a_lasso_whose_loop_is_the_self_loop_state(weak_run, name):
    report, folder, _ = weak_run
    cex = report[name]["counterexample"]
    assert cex["loop"] is not None  # a lasso: schedule, then a self-loop forever
    trace = read_trace(folder / f"cex.{name}.itf.json")
    assert [dict(s.values) for s in trace.states] == expected_states(cex)
    assert trace.loop == len(trace.states) - 1 == len(cex["schedule"])
    assert trace.meta["loop_rule"] == cex["loop"]["rule"]


def test_integers_are_bigints(weak_run):
    _, folder, _ = weak_run
    raw = json.loads((folder / "cex.relay.itf.json").read_text())
    state = raw["states"][0]
    assert all(set(state[x]) == {"#bigint"} for x in [*raw["params"], *raw["vars"]])


def test_a_cycle_lasso_loops_back_to_where_its_cycle_starts(cli, tmp_path):
    """SPIN reports a lasso as a cycle of steps back to a configuration: the trace ends before
    the configuration comes back, and ``loop`` points at it."""
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        pytest.skip("SPIN and gcc are needed for a cycle counterexample (make tools installs them)")
    r = cli("check", WEAK, "--engine", "spin", "--param", "n=4", "--param", "t=1", "--param", "f=1",
            "-p", "relay", "--json", "--itf", tmp_path / "spin.json")
    assert r.code == 1, r.err
    cex = json.loads(r.out)["properties"][0]["counterexample"]
    assert cex["cycle"], "SPIN's lasso is a cycle"
    trace = read_trace(tmp_path / "spin.relay.itf.json")
    states = expected_states(cex)
    assert trace.loop == len(cex["schedule"])
    assert states[-1] == states[trace.loop]  # the printed last row is the loop's start again
    assert [dict(s.values) for s in trace.states] == states[:-1]
    assert [s.meta["step"]["in_loop"] for s in trace.states[1:]] == \
        [i >= len(cex["schedule"]) for i in range(len(trace.states) - 1)]


def test_nothing_is_written_when_everything_holds(cli, tmp_path):
    r = cli("check", CORPUS / "strb" / "strb.alg", "--itf", tmp_path / "cex.itf.json")
    assert r.code == 0
    assert list(tmp_path.iterdir()) == []
    assert "--itf: no property is violated" in r.err


def test_verify_writes_a_trace_per_counterexample_linked_from_the_reports(cli, tmp_path):
    report_dir = tmp_path / "report"
    r = cli("verify", WEAK, CORPUS / "strb" / "strb.alg", "--report-dir", report_dir, "--no-cache")
    assert r.code == 1, r.err
    written = sorted(p.name for p in (report_dir / "itf").iterdir())
    assert written == ["strb_weak.correctness.itf.json", "strb_weak.relay.itf.json",
                       "strb_weak.unforgeability.itf.json"]
    document = json.loads((report_dir / "report.json").read_text())
    weak, holding = document["algorithms"]
    html = (report_dir / "report.html").read_text()
    for prop in weak["properties"]:
        link = prop["itf"]
        trace = read_trace(report_dir / link)
        assert [dict(s.values) for s in trace.states] == expected_states(prop["counterexample"])
        assert f'href="{link}"' in html
    assert all("itf" not in prop for prop in holding["properties"])


def test_a_lockstep_violation_is_a_trace_of_round_starts(cli, tmp_path):
    """A synchronous automaton's counterexample: one state per round start, the rules each
    round took in the state's ``#meta``."""
    r = cli("check", DATA / "ci" / "floodmin_weak.alg", "-p", "agreement", "--json", "--itf", tmp_path / "fm.json")
    assert r.code == 1, r.err
    run = json.loads(r.out)["properties"][0]["details"]["run"]
    trace = read_trace(tmp_path / "fm.agreement.itf.json")
    assert trace.loop is None and trace.meta["engine"] == "lockstep"
    assert [dict(s.values) for s in trace.states] == [{**run["parameters"], **c} for c in run["configurations"]]
    assert [s.meta["round"]["rules"] for s in trace.states[1:]] == [r["rules"] for r in run["rounds"][:-1]]


def test_a_run_under_a_promela_files_own_fairness_is_a_trace_of_its_instance(cli, tmp_path):
    """corr of two_phase.pml is violated by a run of the file's instance with receive counts
    (the file's own fairness): the trace's states are that run, its last state the one that
    stays forever, as check prints them."""
    r = cli("check", DATA / "promela" / "two_phase.pml", "-p", "corr", "--json", "--itf", tmp_path / "tp.json")
    assert r.code == 1, r.err
    details = json.loads(r.out)["properties"][0]["details"]
    printed = details["file_run"]
    trace = read_trace(tmp_path / "tp.corr.itf.json")
    meaning = trace.meta["locations"]

    def occupied(state) -> str:
        return ", ".join(f"{k} at {meaning[n]}" for n, k in state.values.items() if n in meaning and k)

    assert printed[0] == f"initially: {occupied(trace.states[0])}"
    assert f"forever after: {occupied(trace.states[-1])}" in printed
    assert trace.loop == len(trace.states) - 1
    assert len(trace.states) == 1 + sum(line.startswith("step ") for line in printed)
    assert {p: trace.states[0].values[p] for p in trace.params} == details["instance"]
