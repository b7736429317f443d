"""`tactl check` and `tactl emit` from the command line: output, JSON report, exit status."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS, DATA, ISOLA18

STRB = CORPUS / "strb" / "strb.ta"
FALL = DATA / "check" / "fall_guard.ta"


def test_check_text_report(cli):
    r = cli("check", STRB)
    assert r.code == 0  # all three properties hold: one reachability, two liveness under justice
    assert "unforgeability  reachability   HOLDS" in r.out
    assert "correctness     liveness       HOLDS" in r.out
    assert "relay           liveness       HOLDS" in r.out
    assert r.out.count("for all parameter values satisfying the resilience condition") == 3
    assert "3 hold, 0 violated, 0 unknown, 0 unsupported" in r.out


def test_check_one_property_that_holds_exits_0(cli):
    r = cli("check", STRB, "--property", "unforgeability")
    assert r.code == 0 and "1 hold, 0 violated, 0 unknown, 0 unsupported" in r.out


def test_check_violation_prints_a_replayed_counterexample(cli):
    r = cli("check", FALL)
    assert r.code == 1
    assert "at_most_zero  reachability   VIOLATED" in r.out
    assert "replayed by the simulator" in r.out
    assert "r0: A->B" in r.out and "step  rule" in r.out


def test_check_json_report(cli):
    r = cli("check", FALL, "--json")
    assert r.code == 1
    report = json.loads(r.out)
    assert report["file"] == str(FALL) and report["tactl_version"]
    assert report["automaton"] == {"name": "FallGuard", "locations": 2, "rules": 1, "shared": 1,
                                   "parameters": ["n"]}
    by_name = {p["name"]: p for p in report["properties"]}
    assert by_name["at_most_one"]["verdict"] == "holds"
    assert by_name["at_most_one"]["engine"] == "parametric" and by_name["at_most_one"]["queries"] == 1
    cex = by_name["at_most_zero"]["counterexample"]
    assert by_name["at_most_zero"]["verdict"] == "violated"
    assert cex["replayed"] is True
    assert cex["parameters"]["n"] >= 1
    assert cex["schedule"] == [{"rule": "r0", "from": "A", "to": "B", "factor": 1}]
    assert cex["configurations"][-1]["locations"]["B"] == 1


def test_check_explicit_engine_states_its_scope(cli):
    r = cli("check", STRB, "-p", "unforgeability", "--engine", "explicit", "--param", "n=4")
    assert r.code == 0
    assert "HOLDS" in r.out and "not a proof for all n" in r.out and "with n=4" in r.out


def test_check_unsupported_automaton_exits_3(cli):
    r = cli("check", DATA / "check" / "unsupported.ta", "--json")
    assert r.code == 3
    verdicts = {p["name"]: p for p in json.loads(r.out)["properties"]}
    # its liveness is searched at small sizes, but nothing proves it for all of them
    assert verdicts["live"]["verdict"] == "unknown"
    assert "no proof for all sizes" in verdicts["live"]["reason"]
    # the safety property goes to the chc engine, which says why it was chosen
    assert verdicts["reset"]["verdict"] == "holds" and verdicts["reset"]["engine"] == "chc"
    assert "only grow" in verdicts["reset"]["details"]["engine_choice"]


@pytest.mark.parametrize("args, message", [
    (("-p", "nosuch"), "no property named nosuch"),
    (("--engine", "magic"), "unknown engine 'magic'"),
    (("--param", "n"), "--param expects NAME=VALUE"),
    (("--param", "n=-1"), "--param expects NAME=VALUE"),
    (("--param", "z=3"), "--param names z"),
])
def test_check_usage_errors_exit_2(cli, args, message):
    r = cli("check", STRB, *args)
    assert r.code == 2 and message in r.err and "Traceback" not in r.err


def test_check_missing_file_exits_2(cli, tmp_path):
    r = cli("check", tmp_path / "none.ta")
    assert r.code == 2 and "none.ta" in r.err


def test_check_timeout_gives_unknown(cli):
    c1cs = ISOLA18 / "c1cs.ta"
    if not c1cs.exists():
        pytest.skip(f"shared ByMC benchmarks not found at {ISOLA18}")
    r = cli("check", c1cs, "-p", "one_step0", "--timeout", "0.01", "--json")
    assert r.code == 3
    report = json.loads(r.out)
    # 10 ms end the command while reading or while checking: either way nothing holds
    assert report["exit_code"] == 3
    if report["properties"]:
        (prop,) = report["properties"]
        assert prop["verdict"] == "unknown" and ("z3" in prop["reason"] or "timeout" in prop["reason"])
    else:
        assert "timeout" in report["warnings"][0]


# ---------------------------------------------------------------------------------- emit


def test_emit_smtlib_writes_one_file_per_property(cli, tmp_path):
    out = tmp_path / "smt"
    r = cli("emit", STRB, "--to", "smtlib", "-o", out)
    assert r.code == 0
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["strb.correctness.smt2", "strb.relay.smt2", "strb.unforgeability.smt2"]
    text = files[2].read_text()
    assert "(set-logic QF_LIA)" in text and text.rstrip().endswith("(exit)") and "(check-sat)" in text
    assert "; property unforgeability" in text and "; --- segment 0: steady part" in text
    relay = files[1].read_text()
    assert "; --- cut points" in relay and "; --- the loop" in relay and "(liveness)" in relay
    import z3

    for f in files:  # all three hold
        solver = z3.Solver()
        solver.from_string(f.read_text())
        assert solver.check() == z3.unsat, f.name


def test_emit_with_fixed_parameters(cli, tmp_path):
    r = cli("emit", FALL, "--to", "smtlib", "-o", tmp_path, "--param", "n=3", "-p", "at_most_zero")
    assert r.code == 0
    text = (tmp_path / "fall_guard.at_most_zero.smt2").read_text()
    assert "(assert (= p.n 3))" in text  # user names live in the namespace p.


@pytest.mark.parametrize("args, message", [
    (("--to", "promela"), "writes one file: -o X.pml"),
    (("--to", "c"), "unknown target"),
    (("--to", "smtlib", "-p", "nosuch"), "no property named nosuch"),
])
def test_emit_usage_errors(cli, tmp_path, args, message):
    r = cli("emit", STRB, *args, "-o", tmp_path)
    assert r.code == 2 and message in r.err


def test_emit_refuses_a_file_as_output_directory(cli, tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("mine")
    r = cli("emit", STRB, "--to", "smtlib", "-o", target)
    assert r.code == 2 and target.read_text() == "mine"


def test_emit_with_nothing_to_encode_exits_3(cli, tmp_path):
    cyclic = tmp_path / "cyclic.ta"  # liveness on an automaton with a two-location cycle: not encodable
    cyclic.write_text(STRB.read_text().replace("5: V0 -> V0", "5: AC -> V0"))
    r = cli("emit", cyclic, "--to", "smtlib", "-o", tmp_path / "o", "-p", "relay")
    assert r.code == 3 and "nothing written" in r.err and not (tmp_path / "o").exists()
    assert "skipped relay:" in r.err and "cycle" in r.err


def test_counterexample_names_rules_unambiguously_when_ids_repeat(cli):
    r = cli("check", DATA / "dialects" / "random_style.ta", "-p", "validity0", "--json")
    assert r.code == 1
    steps = json.loads(r.out)["properties"][0]["counterexample"]["schedule"]
    names = {s["rule"] for s in steps}
    assert "r1#2" in names  # the second rule of the file, whose id 1 the first rule has too
    assert {"r1", "r2", "r4"}.isdisjoint(names)  # ids 1, 2 and 4 are each used twice there


@pytest.mark.parametrize("command", [("check",), ("emit", "--to", "smtlib", "-o", "unused")])
def test_malformed_input_is_a_positioned_error(cli, tmp_path, command):
    bad = tmp_path / "bad.ta"
    bad.write_text("skel P {\n  locations (1) { A: [0]; }\n  rules (1) { 0: A -> B when (true) do { }; }\n}\n")
    r = cli(command[0], bad, *command[1:])
    assert r.code == 2 and "Traceback" not in r.err
    assert f"{bad}:3:" in r.err and "B" in r.err and "^" in r.err


# ------------------------------------------------------------------ nested safety and liveness


def test_liveness_violation_prints_a_replayed_lasso(cli, tmp_path):
    weak = tmp_path / "strb_weak.ta"
    weak.write_text(STRB.read_text().replace("n > 3 * t;", "n >= 3 * t;"))
    r = cli("check", weak, "-p", "relay")
    assert r.code == 1
    assert "relay  liveness       VIOLATED" in r.out
    assert "counterexample lasso: prefix schedule, then a loop" in r.out and "replayed by the simulator" in r.out
    assert "forever (configuration" in r.out
    r = cli("check", weak, "-p", "relay", "--json")
    prop = json.loads(r.out)["properties"][0]
    assert prop["class"] == "liveness" and prop["kind"] == "liveness" and prop["verdict"] == "violated"
    cex = prop["counterexample"]
    assert cex["replayed"] is True and cex["loop"]["at"] in ("V0", "SE", "AC")
    assert cex["loop"]["rule"].startswith("r")
    assert prop["details"]["cut_points"] == 1 and prop["details"]["segments"] >= 2


def test_explicit_engine_decides_liveness_for_small_parameters(cli):
    r = cli("check", STRB, "--engine", "explicit", "--bound", "5", "--json")
    assert r.code == 0
    props = {p["name"]: p for p in json.loads(r.out)["properties"]}
    assert {n: p["verdict"] for n, p in props.items()} == {
        "unforgeability": "holds", "correctness": "holds", "relay": "holds"}
    assert all("not a proof for all n" in p["scope"] for p in props.values())
    assert props["relay"]["class"] == "liveness"
