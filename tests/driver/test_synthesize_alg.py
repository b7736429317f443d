"""``tactl synthesize`` on pseudocode with unknowns (corpus/synthesis/): the answers each file's
comment promises — Srikanth and Toueg's thresholds t + 1 and n − t among the solutions, the
resilience condition n > 3t as the weakest with a run at n = 3t for k = 2, one threshold for
crash-fault reliable broadcast, Bracha's READY pair — each solution re-checked.
"""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS
from tactl.driver.inputs import corpus_algorithms, resolve_input

SYNTHESIS = CORPUS / "synthesis"


def synthesize(cli, name: str) -> dict:
    r = cli("synthesize", str(SYNTHESIS / name), "--json", "-q")
    assert r.code == 0, (r.out, r.err)
    doc = json.loads(r.out)
    assert doc["complete"] and not doc["undecided"]
    for s in doc["solutions"]:  # every solution re-checked on the printed automaton
        assert set(s["recheck"].values()) == {"holds"}, s
    return doc


def test_strb_thresholds_give_back_t_plus_1_and_n_minus_t(cli):
    doc = synthesize(cli, "strb-thresholds.alg")
    paper = next(s for s in doc["solutions"] if s["values"] == dict(a1=0, b1=1, c1=1, a2=1, b2=-1, c2=0))
    # the thresholds in order of appearance in the code, instantiated
    assert paper["thresholds"] == {"thresh1": "t + 1", "thresh2": "n - t"}
    # relay at t: f Byzantine ECHOs suffice, so the region of that candidate names unforgeability
    refuted = {e["property"] for e in doc["excluded"]}
    assert "unforgeability" in refuted and "relay" in refuted


def test_strb_resilience_is_n_greater_than_3t_with_a_run_at_n_equal_3t(cli):
    doc = synthesize(cli, "strb-resilience.alg")
    assert sorted(s["values"]["k"] for s in doc["solutions"]) == [3, 4, 5]
    assert all(s["resilience"].startswith("n > ") for s in doc["solutions"])
    k2 = next(e for e in doc["excluded"] if e["candidate"] == {"k": 2})
    parameters = k2["parameters"]
    assert parameters["n"] == 3 * parameters["t"] and parameters["t"] >= 1
    assert k2["counterexample"]


@pytest.mark.parametrize("name, expected", [
    ("frb-threshold.alg", [dict(a=0, c=1)]),
    ("bracha-ready.alg", [dict(a=1, b=1, c=2, d=1)]),
])
def test_crash_and_byzantine_broadcast_thresholds(cli, name, expected):
    doc = synthesize(cli, name)
    assert [s["values"] for s in doc["solutions"]] == expected


def test_verify_corpus_leaves_the_synthesis_examples_out_and_names_find_them():
    assert not [p for p in corpus_algorithms("corpus") if p.parent.name == "synthesis"]
    assert len(corpus_algorithms("synthesis")) == len(list(SYNTHESIS.glob("*.alg"))) >= 4
    assert resolve_input("strb-resilience").name == "strb-resilience.alg"
