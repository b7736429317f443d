"""The translate pass (receive TA -> TA): Env per fault model, QE, certificates, verdicts.

The automata are built in Python here so that the pass is tested independently of the .rta
reader; the worked examples are those of domain.md §4.
"""

from __future__ import annotations

import os

import pytest

from conftest import CORPUS
from tactl.check import CheckOptions, check_automaton
from tactl.ir.expr import BoolConst, Compare, Expr, Name, to_text
from tactl.ir.linear import normalize
from tactl.ir.rta import FaultModel, Faults, Message, ReceiveRule, ReceiveTA, Timing, received
from tactl.ir.ta import Location
from tactl.ir.ta_reader import parse_ta, read_ta_file
from tactl.passes.certify import certify
from tactl.passes.env import UnsupportedEnvironment, environment
from tactl.passes.eliminate import translate


def expr(text: str) -> Expr:
    """A formula in .ta syntax; `rcv(M)` stands for received(M)."""
    ta = parse_ta("skel X { parameters n, t, f; shared ns_M; locations (1) { A: [0]; } "
                  f"specifications (1) {{ p: {text}; }} }}")
    from tactl.ir.expr import substitute

    names = {f"rcv_{m}": received(m) for m in ("ECHO", "M0", "M1", "P0", "P1", "A", "B", "C")}
    return substitute(ta.properties[0].formula, names)


RC_BYZ = (expr("n > 3 * t"), expr("t >= f"), expr("f >= 0"))


def strb(model=FaultModel.BYZANTINE, timing=Timing.ASYNC, rc=RC_BYZ) -> ReceiveTA:
    return ReceiveTA(
        "STRB", ("n", "t", "f"), rc, Faults(model, ("f",)), timing, (Message("ECHO"),),
        tuple(Location(x) for x in ("V0", "V1", "SE", "AC")), ("V0", "V1"),
        (ReceiveRule(0, "V1", "SE", BoolConst(True), ("ECHO",)),
         ReceiveRule(1, "V0", "SE", expr("rcv_ECHO >= t + 1"), ("ECHO",)),
         ReceiveRule(2, "V0", "AC", expr("rcv_ECHO >= n - t"), ("ECHO",)),
         ReceiveRule(3, "V1", "AC", expr("rcv_ECHO >= n - t"), ("ECHO",)),
         ReceiveRule(4, "SE", "AC", expr("rcv_ECHO >= n - t"), ())),
        (parse_ta("skel X { locations (2) { V1: [0]; AC: [0]; } specifications (1) { "
                  "unforgeability: V1 == 0 -> [](AC == 0); } }").properties[0],))


def same_atom(a: Expr, b: Expr) -> bool:
    assert isinstance(a, Compare) and isinstance(b, Compare)
    return normalize(a) == normalize(b)


def test_strb_worked_example():
    tr = translate(strb())
    guards = {g.rule_id: g.send_guards for g in tr.guards}
    assert guards[0] == (BoolConst(True),)
    (relay,) = guards[1]
    (accept,) = guards[2]
    assert same_atom(relay, expr("ns_ECHO >= t + 1 - f"))
    assert same_atom(accept, expr("ns_ECHO >= n - t - f"))
    # printed with send counters on the left, parameters in declaration order, constant last
    assert to_text(relay) == "ns_ECHO >= t - f + 1" and to_text(accept) == "ns_ECHO >= n - t - f"
    assert all(c.ok for c in certify(strb(), tr))


def test_strb_generated_ta_has_the_hand_written_verdicts():
    generated = translate(strb()).ta
    hand = read_ta_file(CORPUS / "strb" / "strb.ta").ta
    assert generated.inits[0] == parse_ta(
        "skel X { parameters n, f; locations (2) { V0: [0]; V1: [0]; } inits (1) { V0 + V1 == n - f; } }").inits[0]
    for ta in (generated, hand):
        report = check_automaton(ta, "x", CheckOptions(properties=("unforgeability",)))
        assert [r.verdict for r in report.results] == ["holds"]


def test_weakened_resilience_breaks_the_generated_ta():
    weak = strb(rc=(expr("n > 3 * t"), expr("f >= 0")))  # t >= f dropped
    report = check_automaton(translate(weak).ta, "x", CheckOptions())
    (result,) = report.results
    assert result.verdict == "violated" and result.counterexample.replayed


def floodmin_round(timing=Timing.SYNC) -> ReceiveTA:
    return ReceiveTA(
        "FloodMin", ("n", "t", "f"), (expr("n > t"), expr("t >= f"), expr("f >= 0")),
        Faults(FaultModel.CRASH, ("f",)), timing, (Message("M0"), Message("M1")),
        tuple(Location(x) for x in ("I0", "I1", "D0", "D1")), ("I0", "I1"),
        (ReceiveRule(0, "I0", "D0", BoolConst(True), ("M0",)),
         ReceiveRule(1, "I1", "D0", expr("rcv_M0 >= 1"), ("M1",)),
         ReceiveRule(2, "I1", "D1", expr("rcv_M0 < 1"), ("M1",))))


def test_floodmin_worked_example_crash_sync():
    tr = translate(floodmin_round())
    guards = {g.rule_id: g.send_guards for g in tr.guards}
    (some0,) = guards[1]
    (none0,) = guards[2]
    assert same_atom(some0, expr("ns_M0 + nsf_M0 >= 1"))
    assert same_atom(none0, expr("ns_M0 < 1"))
    assert all(c.ok for c in certify(floodmin_round(), tr))
    # crash parts: the crash location, the crash counter and crash-while-sending rules
    assert "CR" in [loc.name for loc in tr.ta.locations]
    assert {"ncrashed", "nsf_M0", "nsf_M1"} <= set(tr.ta.shared)
    crash_rules = [r for r in tr.ta.rules if r.target == "CR"]
    assert len(crash_rules) == 4 + 3  # one per location, one per sending rule


def test_async_upper_bounds_become_true():
    tr = translate(floodmin_round(Timing.ASYNC))
    guards = {g.rule_id: g.send_guards for g in tr.guards}
    assert guards[2] == (BoolConst(True),)  # a process may always have received fewer


@pytest.mark.parametrize("model, bound", [
    (FaultModel.BYZANTINE, "rcv_ECHO <= ns_ECHO + f"),
    (FaultModel.SYMMETRIC, "rcv_ECHO <= ns_ECHO + f"),
    (FaultModel.CRASH, "rcv_ECHO <= ns_ECHO + nsf_ECHO"),
    (FaultModel.CLEAN_CRASH, "rcv_ECHO <= ns_ECHO"),
    (FaultModel.OMISSION, "rcv_ECHO <= ns_ECHO"),
])
def test_env_upper_bound_per_fault_model(model, bound):
    env = environment(strb(model))
    assert expr(bound) in env.constraints
    modelled = "n - f" if model in (FaultModel.BYZANTINE, FaultModel.SYMMETRIC) else "n"
    assert to_text(env.processes) == modelled


def test_sync_adds_lower_bounds_and_refuses_sync_omission():
    env = environment(strb(timing=Timing.SYNC))
    assert expr("ns_ECHO <= rcv_ECHO") in env.constraints
    with pytest.raises(UnsupportedEnvironment, match="omission"):
        environment(strb(FaultModel.OMISSION, Timing.SYNC))


def test_byzantine_kind_bound_counts_a_faulty_sender_once():
    rta = ReceiveTA("K", ("n", "t", "f"), RC_BYZ, Faults(FaultModel.BYZANTINE, ("f",)), Timing.ASYNC,
                    (Message("P0", "P"), Message("P1", "P")), (Location("A"), Location("B")), ("A",),
                    (ReceiveRule(0, "A", "B", expr("rcv_P0 + rcv_P1 >= n - t"), ()),))
    env = environment(rta)
    assert expr("rcv_P0 + rcv_P1 <= ns_P0 + ns_P1 + f") in env.constraints
    (guard,) = translate(rta).guards[0].send_guards
    assert same_atom(guard, expr("ns_P0 + ns_P1 >= n - t - f"))  # not n - t - 2f
    assert all(c.ok for c in certify(rta, translate(rta)))


def test_guard_false_under_the_resilience_condition_removes_the_rule():
    rta = strb()
    rule = ReceiveRule(9, "V0", "AC", expr("rcv_ECHO >= n + 1"), ())  # odd, but not false under RC
    rta = ReceiveTA(rta.name, rta.parameters, rta.assumptions, rta.faults, rta.timing, rta.messages,
                    rta.locations, rta.initial, (*rta.rules, rule))
    tr = translate(rta)
    assert tr.guards[-1].send_guards  # ns_ECHO >= n + 1 - f is satisfiable by the counters: kept
    impossible = ReceiveRule(10, "V0", "AC", expr("rcv_ECHO >= 1 && t > n"), ())
    rta2 = ReceiveTA(rta.name, rta.parameters, rta.assumptions, rta.faults, rta.timing, rta.messages,
                     rta.locations, rta.initial, (*rta.rules, impossible))
    assert translate(rta2).guards[-1].send_guards == ()
    assert all(r.id != 10 for r in translate(rta2).ta.rules)


def test_disjunction_becomes_parallel_rules():
    rta = strb()
    either = ReceiveRule(5, "V0", "AC", expr("rcv_ECHO >= n - t || rcv_ECHO == 0"), ())
    rta = ReceiveTA(rta.name, rta.parameters, rta.assumptions, rta.faults, rta.timing, rta.messages,
                    rta.locations, rta.initial, (either,))
    tr = translate(rta)
    # received == 0 is always possible asynchronously, so it subsumes the threshold disjunct
    assert tr.guards[0].send_guards == (BoolConst(True),)
    sync = ReceiveTA(rta.name, rta.parameters, rta.assumptions, rta.faults, Timing.SYNC,
                     rta.messages, rta.locations, rta.initial, (either,))
    guards = translate(sync).guards[0].send_guards
    assert len(guards) == 2 and len([r for r in translate(sync).ta.rules if r.source == "V0"]) == 2
    assert all(c.ok for c in certify(sync, translate(sync)))


def test_one_byzantine_sender_counts_once_for_any_part_of_a_kind():
    """kind P: A, B, C with only A sent and f <= 1: received(B) >= 1 and received(C) >= 1 at once
    would need the one faulty sender twice (the whole-kind bound alone allowed it)."""
    rta = ReceiveTA("K3", ("n", "t", "f"), (*RC_BYZ, expr("f <= 1")),
                    Faults(FaultModel.BYZANTINE, ("f",)), Timing.ASYNC,
                    (Message("A", "P"), Message("B", "P"), Message("C", "P")),
                    tuple(Location(x) for x in ("SA", "DA", "L0", "L1")), ("SA", "L0"),
                    (ReceiveRule(0, "SA", "DA", BoolConst(True), ("A",)),
                     ReceiveRule(1, "L0", "L1", expr("rcv_B >= 1 && rcv_C >= 1"), ())),
                    parse_ta("skel X { locations (1) { L1: [0]; } specifications (1) { "
                             "s: [](L1 == 0); } }").properties)
    env = environment(rta)
    assert expr("rcv_B + rcv_C <= ns_B + ns_C + f") in env.constraints
    assert expr("rcv_A + rcv_B + rcv_C <= ns_A + ns_B + ns_C + f") in env.constraints
    tr = translate(rta)
    assert all(c.ok for c in certify(rta, tr))
    (result,) = check_automaton(tr.ta, "k3", CheckOptions()).results
    assert result.verdict == "holds"


# ----------------------------------------------------------------- random guards, every model

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def random_guard(draw) -> Expr:
    def atom() -> str:
        left = draw(st.sampled_from(["rcv_A", "rcv_B", "rcv_A + rcv_B", "2 * rcv_A", "rcv_A + 2 * rcv_B"]))
        op = draw(st.sampled_from([">=", "<", ">", "<=", "==", "!="]))
        right = draw(st.sampled_from(["t + 1", "n - t", "1", "0", "2 * t + 1", "n + t + 1", "n - 2 * t"]))
        return f"{left} {op} {right}"

    parts = [atom() for _ in range(draw(st.integers(1, 3)))]
    joiners = [draw(st.sampled_from(["&&", "||"])) for _ in parts[1:]]
    text = parts[0] + "".join(f" {j} {p}" for j, p in zip(joiners, parts[1:]))
    return expr(text)


@given(random_guard(), st.sampled_from(list(FaultModel)), st.sampled_from(list(Timing)),
       st.booleans())
@settings(max_examples=int(os.environ.get("TACTL_RANDOM_EXAMPLES", 120)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_random_guards_are_certified_sound_and_exact_ones_precise(guard, model, timing, kind):
    if model is FaultModel.OMISSION and timing is Timing.SYNC:
        return  # refused on purpose (test_sync_adds_lower_bounds_and_refuses_sync_omission)
    params = ("n", "t", "f", "g") if model is FaultModel.HYBRID else ("n", "t", "f")
    faults = Faults(model, ("f", "g") if model is FaultModel.HYBRID else ("f",))
    rc = (expr("n > 3 * t"), expr("t >= f"), expr("f >= 0"))
    if model is FaultModel.HYBRID:
        rc = (*rc, parse_ta("skel X { parameters g, t; specifications (1) { p: t >= g && g >= 0; } }")
              .properties[0].formula)
    rta = ReceiveTA("R", params, rc, faults, timing,
                    (Message("A", "K" if kind else None), Message("B", "K" if kind else None)),
                    (Location("I"), Location("D")), ("I",),
                    (ReceiveRule(0, "I", "D", guard, ("A",)),))
    tr = translate(rta)
    (cert,) = certify(rta, tr)
    assert cert.sound is True, to_text(guard)
    if tr.guards[0].exact:
        assert cert.precise is True, to_text(guard)
