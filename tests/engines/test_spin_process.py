"""SPIN on the Promela *process model* (passes/emit/promela_process.py, tactl/engines/spin_process.py).

The process model runs the receive automaton itself — per-process receive counters under the
fault model's environment, no quantifier elimination — so agreeing with the explicit engine on
the translated TA checks the translation end to end at small instances. Every SPIN counterexample
is mapped back to TA rules and replayed by tactl's simulator.
"""

from __future__ import annotations

import pytest

from conftest import CORPUS
from conftest import needs_spin as needs_spin_marker
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines import spin_process
from tactl.driver.inputs import read_automaton
from tactl.driver.pipeline import translate_loaded
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.rta.reader import read_rta
from tactl.passes.emit.promela_process import emit_process_model

needs_spin = needs_spin_marker("the SPIN process-model cross-checks")

STRB = CORPUS / "strb" / "strb.rta"
STRB_WEAK = STRB.read_text().replace("n > 3 * t;", "n >= 3 * t;")  # relay fails at n = 3t


def verdicts_both_ways(rta_text_or_path, params, only=None):
    loaded = read_automaton(rta_text_or_path) if not isinstance(rta_text_or_path, str) else None
    if loaded is None:
        from tactl.ir.rta.reader import RtaReadResult

        loaded = RtaReadResult(read_rta(rta_text_or_path).rta, "<text>", rta_text_or_path)
    ta = translate_loaded(loaded).ta
    queries = [q for q in (temporal_query(ta, p) for p in ta.properties)
               if isinstance(q, TemporalQuery) and (only is None or q.property in only)]
    spin = spin_process.check_properties(loaded.rta, ta, queries, params, timeout_s=240)
    explicit = check_automaton(ta, "x", CheckOptions(engine="explicit", parameters=params,
                                                     properties=tuple(q.property for q in queries)))
    return spin, {r.name: r.verdict for r in explicit.results}


CASES = [
    (STRB, {"n": 4, "t": 1, "f": 1}, None),
    (STRB_WEAK, {"n": 3, "t": 1, "f": 1}, None),
    (CORPUS / "frb" / "frb.rta", {"n": 2, "t": 1, "f": 1}, None),
    (CORPUS / "nbacg" / "nbacg.rta", {"n": 2, "f": 1}, None),
    (CORPUS / "aba" / "aba.rta", {"n": 4, "t": 1, "f": 1}, ("unforgeability",)),
    (CORPUS / "strb" / "strb.alg", {"n": 4, "t": 1, "f": 1}, ("unforgeability", "correctness")),
    # beyond this point, the properties SPIN decides in seconds at these sizes; the rest (minutes
    # each: aba's liveness, Ben-Or's agreement) are in the slow test below
    (CORPUS / "bcrb" / "bcrb.rta", {"n": 4, "tb": 1, "tc": 0, "fb": 1, "fc": 0}, None),
    (CORPUS / "cc" / "cc.rta", {"n": 3, "t": 1, "f": 1}, ("validity0", "validity1", "agreement")),
    (CORPUS / "benor" / "benor_crash.rta", {"n": 3, "t": 1, "f": 1}, ("validity0", "validity1")),
    (CORPUS / "c1cs" / "c1cs.rta", {"n": 4, "t": 1, "f": 1}, ("one_step0",)),
    (CORPUS / "cf1s" / "cf1s.rta", {"n": 4, "t": 1, "f": 1}, ("one_step0_crash",)),
    (CORPUS / "nbacr" / "nbacr.rta", {"n": 2, "f": 1}, ("validity",)),
    (CORPUS / "bosco" / "bosco.rta", {"n": 4, "t": 1, "f": 1, "h": 1}, ("lemma3_0", "lemma4_1")),
]


@needs_spin
@pytest.mark.parametrize("source, params, only", CASES,
                         ids=["strb", "strb n>=3t", "frb", "nbacg", "aba", "strb.alg", "bcrb", "cc",
                              "benor_crash", "c1cs", "cf1s", "nbacr", "bosco"])
def test_process_model_agrees_with_the_explicit_engine(source, params, only):
    spin, explicit = verdicts_both_ways(source, params, only)
    assert spin, "no property checked"
    for r in spin:
        assert r.verdict == explicit[r.name], (r.name, r.verdict, explicit[r.name], r.reason)
        if r.verdict == "violated":
            assert r.counterexample.replayed, r.counterexample.replay.message


SLOW_CASES = [
    (CORPUS / "aba" / "aba.rta", {"n": 4, "t": 1, "f": 1}, ("correctness", "relay")),
    (CORPUS / "benor" / "benor_crash.rta", {"n": 3, "t": 1, "f": 1},
     ("agreement", "unique_d", "lock0", "lock1")),
]


@needs_spin
@pytest.mark.slow
@pytest.mark.parametrize("source, params, only", SLOW_CASES, ids=["aba liveness", "benor_crash"])
def test_process_model_agrees_on_the_slow_properties(source, params, only):
    """Measured: aba's correctness 5 s and relay 28 s; each Ben-Or (crash) safety property 36 s
    (1.9 M states)."""
    test_process_model_agrees_with_the_explicit_engine(source, params, only)


@needs_spin
def test_strb_at_n_equals_3t_violates_relay_with_a_replayed_lasso():
    spin, _ = verdicts_both_ways(STRB_WEAK, {"n": 3, "t": 1, "f": 1}, ("relay",))
    (relay,) = spin
    assert relay.verdict == "violated"
    cex = relay.counterexample
    assert cex.replayed and (cex.loop is not None or cex.cycle)
    assert relay.details["states"] > 0


def test_process_model_text_is_reproducible_and_readable():
    rta = read_automaton(STRB).rta
    one = emit_process_model(rta, {"n": 7, "t": 2, "f": 2}, partition=True)
    assert one == emit_process_model(rta, {"n": 7, "t": 2, "f": 2}, partition=True)
    assert "#define PROCS 5" in one  # n - f correct processes
    assert "nrcvd_ECHO[_pid] < nsnt_ECHO + P_f" in one  # the Byzantine Env
    assert "/* rule 4: SE -> AC */" in one
    assert "ltl relay {" in one and "[]<>(!in_transit_ECHO)" in one
    every = emit_process_model(rta, {"n": 7, "t": 2, "f": 2}, partition=False)
    # partition: process k never starts in an initial location listed before process k - 1's
    assert "st[_pid - 1] == L_V0) -> st[_pid] = L_V0" in one and "st[_pid - 1] ==" not in every


def test_process_model_of_pseudocode_names_its_lines():
    rta = read_automaton(CORPUS / "strb" / "strb.alg").rta
    text = emit_process_model(rta, {"n": 4, "t": 1, "f": 1})
    assert 'line 19 "upon receiving ECHO from n - t distinct processes:"' in text


def test_cli_process_model_errors(cli, tmp_path):
    r = cli("check", STRB, "--engine", "spin", "--model", "process", "--param", "n=4")
    assert r.code == 2 and "give every parameter a value" in r.err
    r = cli("check", STRB, "--engine", "spin", "--model", "process", "--param", "n=3",
            "--param", "t=1", "--param", "f=1")
    assert r.code == 2 and "violate the resilience condition" in r.err
    r = cli("check", CORPUS / "strb" / "strb.ta", "--engine", "spin", "--model", "process",
            "--param", "n=4", "--param", "t=1", "--param", "f=1")
    assert r.code == 2 and "process model runs a receive automaton" in r.err
    r = cli("emit", STRB, "--to", "promela", "--model", "process", "--param", "n=4", "--param",
            "t=1", "--param", "f=1", "-o", tmp_path / "strb.pml")
    assert r.code == 0 and (tmp_path / "strb.pml").read_text().startswith("/*")


@needs_spin
def test_cli_outside_the_resilience_condition(cli, tmp_path):
    """n = 3t is outside n > 3t: with --allow-outside-rc SPIN finds relay violated."""
    r = cli("check", STRB, "--engine", "spin", "--model", "process", "-p", "relay",
            "--param", "n=3", "--param", "t=1", "--param", "f=1", "--allow-outside-rc")
    assert r.code == 1, r.out + r.err
    assert "VIOLATED" in r.out and "replayed by the simulator" in r.out
