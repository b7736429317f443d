"""The process model's lean forms: forced receive steps where they are sound
(``passes/emit/forced_receive.py``), the lazy model everywhere else, premises that restrict the
initial locations instead of an ``initialized U`` wrapper, and pan built per property class
(``tactl.engines.pan_profile``). Verdicts are cross-checked against the explicit engine on the
translated TA, in both receive modes; the automaton where forcing would lose a run shows why
the check that refuses it is needed."""

from __future__ import annotations

import pytest

from conftest import CORPUS
from conftest import needs_spin as needs_spin_marker
from tactl.driver.inputs import read_automaton
from tactl.driver.pipeline import translate_loaded
from tactl.engines import spin_process
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.pan_profile import PanProfile
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.rta.reader import RtaReadResult, read_rta
from tactl.passes.emit import promela_process as emit_promela_process, forced_receive
from tactl.passes.emit.promela_process import ProcessModelError, emit_process_model, process_model
from tactl.passes.emit.forced_receive import initial_restriction, receive_mode

needs_spin = needs_spin_marker("the forced receive cross-checks")

STRB = CORPUS / "strb" / "strb.rta"
STRB_WEAK = STRB.read_text().replace("n > 3 * t;", "n >= 3 * t;")  # relay fails at n = 3t

# A process at S that may act on 2 messages (-> A) or wait for 3 (-> B). Lazily it can wait and
# reach B; forced, it must take A on its second message: B is lost. Every guard is upward-closed,
# so the pre-emption check (condition 2) is what refuses forcing here.
PRE_EMPTED = """
rta PreEmpted {
  parameters n, t, f;
  assumptions (3) { n > 3 * t; t >= f; f >= 0; }
  faults byzantine(f);
  timing async;
  messages M;
  locations I, S, A, B;
  initial I;
  rules (3) {
    0: I -> S send M;
    1: S -> A when (received(M) >= 2);
    2: S -> B when (received(M) >= 3);
  }
  specifications (1) {
    never_b: [](B == 0);
  }
}
"""


def _loaded(source):
    if isinstance(source, str):
        return RtaReadResult(read_rta(source).rta, "<text>", source)
    return read_automaton(source)


def spin_and_explicit(source, params, receive, only=None):
    loaded = _loaded(source)
    ta = translate_loaded(loaded).ta
    queries = [temporal_query(ta, p) for p in ta.properties if only is None or p.name in only]
    spin = spin_process.check_properties(loaded.rta, ta, queries, params, timeout_s=240, receive=receive)
    explicit = check_automaton(ta, "x", CheckOptions(engine="explicit", parameters=params,
                                                     properties=tuple(q.property for q in queries)))
    return spin, {r.name: r.verdict for r in explicit.results}


def test_forced_only_where_every_guard_is_upward_closed():
    strb = read_automaton(STRB).rta
    assert receive_mode(strb, {"n": 7, "t": 2, "f": 2})[0] == "forced"
    # the pseudocode's STRB: "upon t + 1 ... (and fewer than n - t)": an upper bound
    alg = read_automaton(CORPUS / "strb" / "strb.alg").rta
    mode, why = receive_mode(alg, {"n": 4, "t": 1, "f": 1})
    assert mode == "lazy" and "not upward-closed" in why
    text, used = process_model(alg, {"n": 4, "t": 1, "f": 1})
    assert used == "lazy" and "Receive steps: LAZY" in text and "not upward-closed" in text
    with pytest.raises(ProcessModelError, match="not sound"):
        emit_process_model(alg, {"n": 4, "t": 1, "f": 1}, receive="forced")
    # asked for, the lazy model is written for an automaton that could be forced
    text, used = process_model(strb, {"n": 4, "t": 1, "f": 1}, receive="lazy")
    assert used == "lazy" and "Receive steps: LAZY" in text
    assert "receive nothing" not in text and "receive one ECHO" in text


def test_pre_empted_rule_falls_back_to_the_lazy_model():
    rta = read_rta(PRE_EMPTED).rta
    mode, why = receive_mode(rta, {"n": 4, "t": 1, "f": 0})
    assert mode == "lazy" and "rule 1 (S -> A) can fire before rule 2 (S -> B)" in why


@needs_spin
def test_forcing_a_pre_empted_rule_would_lose_a_run(monkeypatch):
    """The lazy model (chosen) agrees with the explicit engine: B is reachable. Forced anyway
    (the check bypassed), SPIN would answer "holds": the check is what keeps that answer out."""
    params = {"n": 4, "t": 1, "f": 0}
    spin, explicit = spin_and_explicit(PRE_EMPTED, params, "auto")
    assert explicit == {"never_b": "violated"}
    (r,) = spin
    assert r.details["receive"] == "lazy" and r.verdict == "violated" and r.counterexample.replayed
    monkeypatch.setattr(emit_promela_process, "receive_mode",
                        lambda rta, parameters, requested: ("forced", "check bypassed by the test"))
    (forced,) = spin_and_explicit(PRE_EMPTED, params, "auto")[0]
    assert forced.details["receive"] == "forced" and forced.verdict == "holds"


CASES = [
    (STRB, {"n": 4, "t": 1, "f": 1}, None),
    (STRB_WEAK, {"n": 3, "t": 1, "f": 1}, None),
    (CORPUS / "frb" / "frb.rta", {"n": 2, "t": 1, "f": 1}, None),
    (CORPUS / "aba" / "aba.rta", {"n": 4, "t": 1, "f": 1}, ("unforgeability",)),
    (CORPUS / "bcrb" / "bcrb.rta", {"n": 4, "tb": 1, "tc": 0, "fb": 1, "fc": 0}, None),
]


@needs_spin
@pytest.mark.parametrize("receive", ["forced", "lazy"])
@pytest.mark.parametrize("source, params, only", CASES, ids=["strb", "strb n>=3t", "frb", "aba", "bcrb"])
def test_both_receive_modes_agree_with_the_explicit_engine(source, params, only, receive):
    spin, explicit = spin_and_explicit(source, params, receive, only)
    assert spin
    for r in spin:
        assert r.details["receive"] == receive
        assert r.verdict == explicit[r.name], (r.name, r.verdict, explicit[r.name], r.reason)
        if r.verdict == "violated":
            assert r.counterexample.replayed, r.counterexample.replay.message
        if r.name == "unforgeability":  # a safety property: pan without the nested search
            assert r.details["search"] == "safety"


def test_a_premise_on_empty_initial_locations_restricts_the_initial_choice():
    strb = read_automaton(STRB).rta
    params = {"n": 7, "t": 2, "f": 2}
    unforg = emit_process_model(strb, params, ("unforgeability",))
    assert ":: st[_pid] = L_V0" in unforg and "L_V1\n" not in unforg.split("active")[1].split("end:")[0]
    assert "ltl unforgeability { [](initialized -> (cnt_AC == 0)) }" in unforg
    corr = emit_process_model(strb, params, ("correctness",))
    assert ":: st[_pid] = L_V1" in corr and ":: st[_pid] = L_V0" not in corr
    assert " U " not in corr.split("ltl correctness")[1]
    relay = emit_process_model(strb, params, ("relay",))
    assert ":: st[_pid] = L_V0" in relay and ":: st[_pid] = L_V1" in relay
    assert " U " not in relay.split("ltl relay")[1]
    # several properties in one model: no restriction; a premise is read at the first
    # configuration with every process placed
    every = emit_process_model(strb, params)
    assert "(!initialized U (initialized && (cnt_V1 == 0))) -> [](initialized -> (cnt_AC == 0))" in every


@pytest.mark.parametrize("premise, excluded", [
    ("V1 == 0", {"V1"}), ("0 == V0", {"V0"}), ("V1 == 0 && SE == 0", {"V1"}),
    ("V1 == 1", None), ("V0 + V1 == 0", None), ("V1 == 0 || V0 == 0", None), ("[](V1 == 0)", None)])
def test_which_premises_restrict(premise, excluded):
    text = STRB.read_text().replace("unforgeability: V1 == 0 -> [](AC == 0);",
                                    f"unforgeability: {premise} -> [](AC == 0);")
    rta = read_rta(text).rta
    prop = next(p for p in rta.properties if p.name == "unforgeability")
    found = initial_restriction(prop.formula, rta)
    assert (found.excluded if found else None) == (frozenset(excluded) if excluded else None)


def test_pan_profile_builds_safety_without_the_nested_search():
    safety, liveness = PanProfile(liveness=False), PanProfile(liveness=True)
    assert "-DSAFETY" in safety.cc_flags() and "-DCOLLAPSE" in safety.cc_flags()
    assert "-a" not in safety.pan_argv("./pan", "p", 10)
    assert liveness.pan_argv("./pan", "p", 10)[:3] == ["./pan", "-a", "-f"]
    assert not any(f.startswith("-DSAFETY") for f in liveness.cc_flags())
    assert forced_receive.MODES == ("auto", "forced", "lazy")


def test_cli_receive_option(cli, tmp_path):
    out = tmp_path / "strb.pml"
    r = cli("emit", STRB, "--to", "promela", "--model", "process", "--param", "n=4", "--param", "t=1",
            "--param", "f=1", "--receive", "lazy", "-o", out)
    assert r.code == 0 and "Receive steps: LAZY" in out.read_text()
    r = cli("emit", CORPUS / "strb" / "strb.alg", "--to", "promela", "--model", "process", "--param",
            "n=4", "--param", "t=1", "--param", "f=1", "--receive", "forced", "-o", out)
    assert r.code == 2 and "not upward-closed" in r.err
    r = cli("check", STRB, "--engine", "spin", "--model", "process", "--param", "n=4", "--param",
            "t=1", "--param", "f=1", "--receive", "sometimes")
    assert r.code == 2 and "unknown receive mode 'sometimes'" in r.err


@needs_spin
def test_cli_forced_where_not_sound_is_unsupported(cli):
    r = cli("check", CORPUS / "strb" / "strb.alg", "--engine", "spin", "--model", "process", "-p",
            "unforgeability", "--param", "n=4", "--param", "t=1", "--param", "f=1", "--receive", "forced")
    assert r.code == 3 and "UNSUPPORTED" in r.out and "not upward-closed" in r.out
