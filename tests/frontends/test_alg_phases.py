"""Phases of several rounds and coordinators in pseudocode (docs/alg.md, "Phases and coordinators").

The corpus's phase king, phase queen and synchronous RB are compared with their hand-written
``.rta`` in tests/frontends/test_alg_corpus.py; here: the phase structure the engine infers, where the
coordinator is chosen, a weakened variant of each that ``tactl check`` refutes with a replayed
counterexample in pseudocode lines, and every new error at its position with exit 2.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import CORPUS
from tactl.driver.inputs import load_automaton
from tactl.engines.lockstep import check_explicit
from tactl.engines.lockstep_diameter import phase_length
from tactl.ir.expr import to_text
from tactl.ir.alg.reader import parse_alg
from tactl.passes.rta_to_sync.sync_ta import build
from tactl.passes.alg_to_rta.extract import parse_algorithm

SMALL = ("--param", "n=4", "--param", "t=1", "--param", "f=1")


HEAD = """algorithm Phases
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
timing sync
messages (M, {0, 1}), (K, {0, 1}) from coordinator
variables
  v: {0, 1} = input
"""


def _rta(text: str):
    return parse_algorithm(parse_alg(text, "x.alg")).rta


def _corpus(name: str) -> str:
    return (CORPUS / name / f"{name}.alg").read_text()


@pytest.mark.parametrize("name, phase", [("phase_king", 3), ("phase_queen", 2), ("rb_sync", 1)])
def test_the_engine_infers_the_phase_length_of_the_generated_automaton(name, phase):
    assert phase_length(build(_rta(_corpus(name)))) == phase


def test_the_coordinator_is_chosen_at_the_end_of_the_round_before_its_round():
    """Phase king reads `coordinator` in round 3: only round-3 locations split into twins, each
    twin of a king sends K, and the flag is forgotten at the phase's end (round 1 starts are the
    two initial locations, as the hand-written V0/V1)."""
    rta = _rta(_corpus("phase_king"))
    assert rta.coordinator == ("K0", "K1")
    assert set(rta.initial) == {"v0", "v1"}
    kings = {loc.name for loc in rta.locations if loc.name.startswith("coord_")}
    assert kings == {"coord_v0", "coord_v0_strong", "coord_v1", "coord_v1_strong"}
    for r in rta.rules:
        assert bool(set(r.sends) & {"K0", "K1"}) == (r.source in kings), r
    # the twins are entered from round 2's locations, with the same guard as their non-king twin
    into = {(r.source, r.target.removeprefix("coord_"), str(r.guard)) for r in rta.rules
            if r.target in kings}
    plain = {(r.source, r.target, str(r.guard)) for r in rta.rules if "r3_" in r.target
             or r.target.endswith("strong") and not r.target.startswith("coord_")}
    renamed = {(s, t.replace("r3_", ""), g) for s, t, g in plain}
    assert into == renamed
    # no king message is counted as a kind (one sender), and a weak receiver reads one of them
    assert {m.name for m in rta.messages if m.kind is None} == {"K0", "K1"}
    # a receiver gets one king message at most, so "no K1" is the whole guard of keeping v = 0
    weak = {r.target: to_text(r.guard) for r in rta.rules if r.source == "r3_v0"}
    assert weak == {"v0": "received(K1) < 1", "v1": "received(K1) >= 1"}


def test_a_single_round_chooses_the_coordinator_among_the_initial_locations():
    text = HEAD + """round:
  send (M, v) to all
  if coordinator:
    send (K, v) to all
  elif received (K, w) from coordinator for some w:
    v := w
"""
    rta = _rta(text)
    assert set(rta.initial) == {"v0", "v1", "coord_v0", "coord_v1"}
    assert {r.target for r in rta.rules} <= {"v0", "v1", "coord_v0", "coord_v1"}
    assert phase_length(build(rta)) == 1


def test_next_round_jumps_to_the_end_of_its_round_only():
    text = """algorithm Skip
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
timing sync
messages (M, {0, 1}), ECHO
variables
  v: {0, 1} = input
round 1:
  if v == 1:
    next round
  send (M, v) to all
round 2:
  send ECHO to all
"""
    rta = _rta(text)
    sends = {(r.source, r.sends) for r in rta.rules}
    assert ("v1", ()) in sends and ("v0", ("M0",)) in sends
    assert all(r.sends == ("ECHO",) for r in rta.rules if r.source.startswith("r2"))
    assert phase_length(build(rta)) == 2


# ---- weakened variants: violated, with a replayed counterexample in pseudocode lines ----------

def _weaken(tmp_path, name: str, old: str, new: str):
    text = _corpus(name)
    assert old in text
    path = tmp_path / f"{name}_weak.alg"
    path.write_text(text.replace(old, new))
    return path


def _pseudocode_lines(out: str) -> list[str]:
    return re.findall(r'line \d+ "[^"]*"', out)


def test_phase_king_adopting_a_single_proposal_violates_validity(cli, tmp_path):
    path = _weaken(tmp_path, "phase_king",
                   "if received (P, w) from more than t processes for some w:",
                   "if received (P, w) from at least 1 processes for some w:")
    r = cli("check", path, "-p", "validity0", *SMALL, "--no-progress")
    assert r.code == 1, r.out + r.err
    assert "validity0" in r.out and "VIOLATED" in r.out
    assert "replayed by the lock-step simulator" in r.out
    lines = _pseudocode_lines(r.out)
    assert 'line 47 "if received (P, w) from at least 1 processes for some w:"' in lines
    assert 'line 48 "v := w"' in lines


def test_phase_queen_with_n_greater_than_3t_violates_validity(cli, tmp_path):
    path = _weaken(tmp_path, "phase_queen", "resilience n > 4t", "resilience n > 3t")
    r = cli("check", path, "-p", "validity0", *SMALL, "--no-progress")
    assert r.code == 1, r.out + r.err
    assert "VIOLATED" in r.out and "replayed by the lock-step simulator" in r.out
    lines = _pseudocode_lines(r.out)
    # a weak process takes the faulty queen's value
    assert 'line 49 "if received (Q, w) from coordinator for some w:"' in lines
    assert 'line 50 "v := w"' in lines


def test_rb_sync_relaying_on_t_echoes_violates_unforgeability(cli, tmp_path):
    path = _weaken(tmp_path, "rb_sync", "from t + 1 distinct", "from t distinct")
    r = cli("check", path, "-p", "unforgeability", "--no-progress")
    assert r.code == 1, r.out + r.err
    assert "VIOLATED" in r.out and "replayed by the lock-step simulator" in r.out
    lines = _pseudocode_lines(r.out)
    assert 'line 28 "if received ECHO from t distinct processes:"' in lines
    assert 'line 31 "accept := true"' in lines


def test_phase_king_validity_holds_at_small_parameters(cli):
    """The default suite's check of the corpus file (the full check is the slow
    corpus test)."""
    r = cli("check", CORPUS / "phase_king" / "phase_king.alg", "-p", "validity0", "-p",
            "validity1", *SMALL, "--no-progress")
    assert r.code == 0, r.out + r.err
    assert r.out.count("HOLDS") == 2 and "phases of 3" in r.out


# ---- bad input: file:line:col and exit 2 -------------------------------------------------------

BAD = {
    "rounds out of order": (
        "round 1:\n  send (M, v) to all\nround 3:\n  skip\n", 11, 1, "round 2 is expected"),
    "round: mixed with round K:": (
        "round 1:\n  send (M, v) to all\nround:\n  skip\n", 11, 1, "mixed"),
    "statement outside the rounds": (
        "v := 0\nround 1:\n  send (M, v) to all\n", 9, 1, "outside the numbered rounds"),
    "numbered round nested": (
        "round 1:\n  if v == 0:\n    round 2:\n      skip\n", 11, 5, "top level"),
    "coordinator read in two rounds": (
        "round 1:\n  if coordinator:\n    send (K, v) to all\nround 2:\n  if coordinator: skip\n",
        13, 6, "read in round 1 and in round 2"),
    "coordinator message sent by anyone": (
        "round 1:\n  send (K, v) to all\n", 10, 3, "only the coordinator sends it"),
    "coordinator sends nothing on a path": (
        "round 1:\n  if coordinator:\n    if v == 1:\n      send (K, v) to all\n", 9, 1,
        "on every path of its round"),
    "received a plain message from coordinator": (
        "round 1:\n  if received (M, 1) from coordinator: v := 1\n", 10, 6,
        "not a coordinator message"),
    "a coordinator message counted over processes": (
        "round 1:\n  if received (K, 1) from t + 1 processes: v := 1\n", 10, 6,
        "sent by the coordinator only"),
    "coordinator as a variable": (
        "round 1:\n  send (M, v) to all\n", 0, 0, "reserved"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_phase_error_is_reported_at_its_position_with_exit_2(cli, tmp_path, case):
    body, line, col, message = BAD[case]
    text = HEAD + body
    if case == "coordinator as a variable":
        text = text.replace("  v: {0, 1} = input\n", "  v: {0, 1} = input\n  coordinator: bool\n")
        line, col = 9, 3
    path = tmp_path / "bad.alg"
    path.write_text(text)
    r = cli("parse", path)
    assert r.code == 2, r.out + r.err
    assert f"bad.alg:{line}:{col}:" in r.err, r.err
    assert message in r.err
    assert "Traceback" not in r.err


def test_numbered_rounds_in_an_asynchronous_algorithm_are_refused(cli, tmp_path):
    path = tmp_path / "async.alg"
    path.write_text(HEAD.replace("timing sync", "timing async") + "round 1:\n  skip\n")
    r = cli("parse", path)
    assert r.code == 2 and "async.alg:9:1:" in r.err and "need 'timing sync'" in r.err


def test_an_asynchronous_coordinator_from_pseudocode_is_checked(cli, tmp_path):
    """The front end chooses the coordinator among the initial locations of an asynchronous
    algorithm, and the translation's one-round coordinator semantics (passes/rta_to_ta/coordinator.py)
    reads it: with a correct coordinator everyone adopts its one value; a faulty one (cf = 1)
    equivocates, and the counterexample is printed in pseudocode lines."""
    text = HEAD.replace("timing sync", "timing async") + (
        "if coordinator:\n  send (K, v) to all\n"
        "wait until received (K, w) from coordinator for some w\nv := w\n"
        "properties\n"
        "  same assuming correct coordinator: always (no (done and v == 0) or no (done and v == 1))\n"
        "  same_any: always (no (done and v == 0) or no (done and v == 1))\n")
    rta = _rta(text)
    assert rta.coordinator == ("K0", "K1")
    assert {"v0", "v1", "coord_v0", "coord_v1"} <= set(rta.initial)  # chosen at the start
    path = tmp_path / "acoord.alg"
    path.write_text(text)
    r = cli("check", path, "--property", "same")
    assert r.code == 0 and "HOLDS" in r.out, r.out + r.err
    r = cli("check", path, "--property", "same_any")
    assert r.code == 1 and "VIOLATED" in r.out and "replayed" in r.out, r.out + r.err
    assert 'line 12 "v := w"' in r.out or "line 11" in r.out, r.out
    # the non-coordinators' first step skips every statement: said so, not left blank
    assert not any(line.rstrip().endswith("):") for line in r.out.splitlines()
                   if line.strip().startswith("step ")), r.out


# ---- differential: the explicit lock-step engine on the .alg and on the hand-written .rta ----

def _explicit(path, params: dict[str, int]) -> dict[str, str]:
    rta = load_automaton(path).receive
    return {r.name: r.verdict for r in check_explicit(rta, (), params)}


@pytest.mark.parametrize("name, n", [("phase_king", 4), ("phase_queen", 5), ("rb_sync", 4)])
def test_explicit_rounds_give_the_alg_and_the_hand_written_rta_the_same_verdicts(name, n):
    """Every round enumerated at n, t = 1, f = 1 (a different engine from the parametric one the
    corpus test uses): the pseudocode and the hand-written automaton agree property by property."""
    spec = json.loads((CORPUS / name / "correspondence.json").read_text())
    params = {"n": n, "t": 1, "f": 1}
    ours = _explicit(CORPUS / name / f"{name}.alg", params)
    theirs = _explicit(CORPUS / name / spec["rta"], params)
    assert set(ours) == set(spec["properties"])
    for mine, hand in spec["properties"].items():
        assert ours[mine] == theirs[hand], (name, mine, ours[mine], theirs[hand])


@pytest.mark.parametrize("messages, body, where, message", [
    ("(M, {0, 1})", "round 1:\n  if coordinator: v := 1\n", "10:6", "no message is declared"),
    ("(M, {0, 1}), (K, {0, 1}) from coordinator from coordinator", "round 1:\n  skip\n", "6:23",
     "written once"),
])
def test_coordinator_declarations_are_checked_at_their_position(cli, tmp_path, messages, body,
                                                                where, message):
    path = tmp_path / "decl.alg"
    path.write_text(HEAD.replace("(M, {0, 1}), (K, {0, 1}) from coordinator", messages) + body)
    r = cli("parse", path)
    assert r.code == 2 and f"decl.alg:{where}:" in r.err and message in r.err, r.err
