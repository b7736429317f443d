"""Explained counterexamples (tactl/engines/explain.py): the messages from faulty processes a
step's receivers counted, and why a lasso may wait forever, checked against the replayed run."""

from __future__ import annotations

import json

from conftest import CORPUS

STRB_ALG = (CORPUS / "strb" / "strb.alg").read_text()


def test_byzantine_messages_and_waiting_are_explained(cli, tmp_path):
    weak = tmp_path / "strb_w.alg"
    weak.write_text(STRB_ALG.replace("n > 3t", "n >= 3t"))
    r = cli("check", weak, "-p", "relay", "--json")
    assert r.code == 1, r.err
    cex = json.loads(r.out)["properties"][0]["counterexample"]
    params = cex["parameters"]
    lines = cex["explanation"]
    # every step whose guard needs forged ECHOs says how many: n - t minus the correct ECHOs sent
    for number, step in enumerate(cex["schedule"], 1):
        before = cex["configurations"][number - 1]["shared"]["ns_ECHO"]
        said = [line for line in lines if line.startswith(f"step {number}:")]
        if step["to"].startswith("accept") and step["from"] == "sentECHO":
            forged = params["n"] - params["t"] - before
            assert forged > 0 and said, (step, lines)
            assert f"counted messages from faulty processes: {forged} (of f = {params['f']})" in said[0]
    assert any(line.startswith("why waiting forever is allowed") for line in lines)
    assert any("true only with messages from faulty processes" in line for line in lines)
    assert any(line.strip().startswith("justice there:") and "does not hold" not in line for line in lines)
    text = cli("check", weak, "-p", "relay").out
    assert "why waiting forever is allowed" in text


def test_a_ta_without_receive_automaton_says_nothing_of_faulty_messages(cli, tmp_path):
    weak = tmp_path / "strb_weak.ta"
    weak.write_text((CORPUS / "strb" / "strb.ta").read_text().replace("n > 3 * t;", "n >= 3 * t;"))
    r = cli("check", weak, "-p", "relay", "--json")
    assert r.code == 1
    lines = json.loads(r.out)["properties"][0]["counterexample"]["explanation"]
    assert not any("faulty processes:" in line for line in lines)
    assert any(line.startswith("why waiting forever is allowed") for line in lines)


def test_a_lockstep_run_has_pseudocode_lines(cli, tmp_path):
    weak = tmp_path / "floodmin2.alg"
    weak.write_text((CORPUS / "floodmin" / "floodmin.alg").read_text().replace(
        "from at least 1 process", "from at least 2 processes"))
    r = cli("check", weak, "-p", "agreement")
    assert r.code == 1, r.err
    assert "in the pseudocode (" in r.out and "floodmin2.alg):" in r.out
    assert "round 1: 1 process (r0: best0 -> best0): line 37" in r.out
    doc = json.loads(cli("check", weak, "-p", "agreement", "--json").out)
    details = doc["properties"][0]["details"]
    assert details["pseudocode"][0].startswith("in the pseudocode")
    assert details["minimality"].startswith("fewest rounds")
