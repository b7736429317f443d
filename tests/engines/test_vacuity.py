"""Vacuity: every HOLDS says whether its antecedents can happen at all, and a
vacuous pass is the verdict "holds vacuously" (exit 3) in the terminal, the JSON and the HTML."""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS
from tactl.ir.expr import BoolConst, Implies, to_text
from tactl.ir.ta.reader import parse_ta
from tactl.ir.eltl.vacuity import vacuity_question

STRB = (CORPUS / "strb" / "strb.alg").read_text(encoding="utf-8")
# No correct process can receive ECHO from n + 1 processes (n - f send, f <= t forge): accept is
# unreachable, so correctness and relay hold — vacuously for relay, whose antecedent is accept.
UNREACHABLE_ACCEPT = STRB.replace("from n - t distinct processes", "from n + 1 distinct processes")


def formula(text: str):
    return parse_ta(f"skel P {{ specifications {{ p: {text}; }} }}").properties[0].formula


@pytest.mark.parametrize("text, witness", [
    ("a == 0 -> [](b == 0)", "a == 0 -> false"),
    ("[](a != 0 -> <>(b == 0))", "[](a != 0 -> false)"),
    ("<>[](j == 0) -> (a == 0 -> <>(b != 0))", "<>[](j == 0) -> (a == 0 -> false)"),
    ("<>[](j == 0) -> [](a != 0 -> <>(b == 0))", "<>[](j == 0) -> [](a != 0 -> false)"),
])
def test_the_witness_formula_replaces_the_innermost_consequent_by_false(text, witness):
    question = vacuity_question(formula(text))
    assert question is not None and to_text(question.witness) == witness


@pytest.mark.parametrize("text", ["[](a == 0 || b == 0)", "<>(a != 0)", "a == 0"])
def test_a_formula_without_implication_has_no_antecedent(text):
    assert vacuity_question(formula(text)) is None


def test_the_antecedents_are_described_in_order():
    question = vacuity_question(formula("<>[](j == 0) -> [](a != 0 -> <>(b == 0))"))
    assert question.describe() == "a run that is just (eventually forever `j == 0`) and reaches `a != 0`"
    assert isinstance(question.witness, Implies) and question.witness.right.arg.right == BoolConst(False)


def test_every_holds_of_strb_says_it_is_not_vacuous(cli, tmp_path):
    r = cli("check", CORPUS / "strb" / "strb.alg", "--json")
    assert r.code == 0, r.err
    props = json.loads(r.out)["properties"]
    assert [p["verdict"] for p in props] == ["holds"] * 3
    for p in props:
        assert p["vacuity"]["status"] == "not vacuous" and "exists" in p["vacuity"]["witness"], p
    text = cli("check", CORPUS / "strb" / "strb.alg")
    assert text.out.count("not vacuous") == 3 and text.out.count("antecedent met:") == 3


def test_an_invariant_has_no_antecedent(cli):
    r = cli("check", CORPUS / "benor" / "benor.alg", "-p", "agreement", "--json")
    (prop,) = json.loads(r.out)["properties"]
    assert prop["verdict"] == "holds" and prop["vacuity"] == {"status": "no antecedent"}


@pytest.mark.parametrize("engine", [(), ("--engine", "explicit", "--param", "n=4", "--param", "t=1",
                                         "--param", "f=1")])
def test_an_unreachable_antecedent_is_holds_vacuously_exit_3(cli, tmp_path, engine):
    path = tmp_path / "strb_unreachable.alg"
    path.write_text(UNREACHABLE_ACCEPT)
    r = cli("check", path, "-p", "relay", "--json", *engine)
    assert r.code == 3, (r.out, r.err)
    (prop,) = json.loads(r.out)["properties"]
    assert prop["verdict"] == "holds vacuously"
    assert prop["vacuity"]["status"] == "vacuous" and "reaches `accept != 0`" in prop["reason"]
    text = cli("check", path, "-p", "relay", *engine)
    assert text.code == 3 and "HOLDS VACUOUSLY" in text.out and "1 hold vacuously" in text.out
    # the same automaton's unforgeability is a real pass: its antecedent is met by some run
    ok = cli("check", path, "-p", "unforgeability", "--json", *engine)
    assert ok.code == 0 and json.loads(ok.out)["properties"][0]["vacuity"]["status"] == "not vacuous"


def test_no_just_run_makes_liveness_vacuous(cli, tmp_path):
    """A justice that no run satisfies: every process must leave V0 once an ECHO count it can
    never get is ... — stated directly in a .ta with a justice antecedent no run meets."""
    ta = tmp_path / "nojust.ta"
    ta.write_text("""skel Proc {
  local pc;
  shared x;
  parameters n;
  assumptions (1) { n > 0; }
  locations (2) { A: [0]; B: [1]; }
  inits (3) { A == n; B == 0; x == 0; }
  rules (2) {
    0: A -> A when (true) do { unchanged(x); };
    1: B -> B when (true) do { unchanged(x); };
  }
  specifications (2) {
    live: <>[](A == 0) -> <>(B != 0);
    real: <>[](A != 0) -> <>(A != 0);
  }
}
""")
    r = cli("check", ta, "--json")
    assert r.code == 3, r.out
    live, real = json.loads(r.out)["properties"]
    assert live["verdict"] == "holds vacuously" and "is just" in live["reason"]
    assert real["verdict"] == "holds" and real["vacuity"]["status"] == "not vacuous"


def test_verify_shows_vacuity_in_the_table_json_and_html(cli, tmp_path):
    path = tmp_path / "strb_unreachable.alg"
    path.write_text(UNREACHABLE_ACCEPT)
    r = cli("verify", path, "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert r.code == 1, r.err  # correctness: no process ever accepts
    header = r.out.splitlines()[0].split()
    assert "vacuity" in header
    rows = {line.split()[1]: line for line in r.out.splitlines()[2:] if line.startswith("strb_unreachable")}
    assert "HOLDS VACUOUSLY" in rows["relay"] and "vacuous" in rows["relay"]
    assert "not vacuous" in rows["unforgeability"]
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    verdicts = {p["name"]: p for a in report["algorithms"] for p in a["properties"]}
    assert verdicts["relay"]["verdict"] == "holds vacuously"
    assert verdicts["unforgeability"]["vacuity"]["status"] == "not vacuous"
    html = (tmp_path / "r" / "report.html").read_text()
    assert "verdict-holds-vacuously" in html and "antecedent met" in html
    # the cached verdicts keep their vacuity
    again = cli("verify", path, "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert again.code == 1 and "miss" not in again.out
    assert "HOLDS VACUOUSLY" in again.out and "not vacuous" in again.out


# ------------------------------------- one unjustifiable property, not all

CC = """algorithm CC
parameters n, t, f
resilience n > 2t, t >= f, f >= 0
faults crash(f)

messages (A, {0, 1}), (B, {0, 1})

variables
  v: {0, 1} = input
  w: {0, 1} = 0

send (A, v) to all
wait until received (A, *) from at least n - t processes and received (A, 0) != received (A, 1)
if received (A, 0) > received (A, 1):
  w := 0
else:
  w := 1
send (B, w) to all
wait until received (B, 0) from more than n / 2 processes or received (B, 1) from more than n / 2 processes
if received (B, 0) from more than n / 2 processes:
  decide 0
else:
  decide 1

properties
  validity0: initially (no v == 0) -> always (no decided == 0)
  agreement: always not (some decided == 0 and some decided == 1)
  termination: initially (count (v == 0) > count (v == 1) + t) -> eventually (all done)
"""


def test_an_unjustifiable_liveness_property_is_refused_alone(cli, tmp_path):
    """Condition-based consensus (findings: cc_refused_whole.alg): "wait for n - t with a strict
    majority" can be blocked by the messages of crashed senders, so termination's justice is not
    justified. Before, the whole file was refused (exit 3) even with -p on safety properties."""
    path = tmp_path / "cc.alg"
    path.write_text(CC)
    safety = cli("check", path, "-p", "validity0", "-p", "agreement", "--json")
    assert safety.code == 0, (safety.out, safety.err)
    assert [p["verdict"] for p in json.loads(safety.out)["properties"]] == ["holds", "holds"]
    everything = cli("check", path, "--json")
    assert everything.code == 3
    verdicts = {p["name"]: p for p in json.loads(everything.out)["properties"]}
    assert verdicts["validity0"]["verdict"] == verdicts["agreement"]["verdict"] == "holds"
    assert verdicts["termination"]["verdict"] == "unsupported"
    assert "not justified" in verdicts["termination"]["reason"]
    # translate writes the TA without the refused specification, says so, and exits 3
    out = tmp_path / "cc.ta"
    r = cli("translate", path, "-o", out)
    assert r.code == 3 and "termination is left out" in r.err
    text = out.read_text()
    assert "validity0:" in text and "termination:" not in text
    # the driver: the safety verdicts, termination unsupported
    v = cli("verify", path, "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert v.code == 3 and "UNSUPPORTED" in v.out and v.out.count("HOLDS") == 2


# ------------------------------------------ every engine answers the vacuity question alike

ENGINES = [
    ("parametric",),
    ("explicit",),
    ("spin", "--model", "counter"),
    ("spin", "--model", "process"),
    ("nusmv",),
]


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: "-".join(e[::2]))
def test_engines_agree_on_vacuity(cli, tmp_path, engine):
    """The witness formula goes to the engine as the automaton's own specification (the external
    checkers emit specifications by name; SPIN's process model states the receive automaton's),
    so each engine decides W, not the property again: a bug that made every SPIN HOLDS vacuous."""
    from tactl.engines import checkers

    needed = {"spin": checkers.spin, "nusmv": checkers.nusmv}.get(engine[0])
    if needed is not None and needed() is None:
        pytest.skip(f"!!! {engine[0]} is not installed: the vacuity cross-check with it did not run "
                    "(make tools installs it) !!!")
    instance = ("--param", "n=4", "--param", "t=1", "--param", "f=1")
    unreachable = tmp_path / "strb_unreachable.rta"
    unreachable.write_text((CORPUS / "strb" / "strb.rta").read_text().replace(
        "received(ECHO) >= n - t", "received(ECHO) >= n + 1"))
    for path, expected in ((CORPUS / "strb" / "strb.rta", "not vacuous"), (unreachable, "vacuous")):
        r = cli("check", path, "-p", "relay", "--engine", engine[0], *engine[1:], *instance, "--json")
        (prop,) = json.loads(r.out)["properties"]
        status = prop.get("vacuity", {}).get("status")
        assert status == expected, (engine, path.name, prop)
        assert prop["verdict"] == ("holds" if expected == "not vacuous" else "holds vacuously")


def test_a_holds_whose_vacuity_was_not_decided_exits_3():
    """Undecided vacuity (e.g. the timeout passed during the witness question) is not a clean
    pass: the property holds, but whether it says anything is unknown."""
    from tactl.engines.check import CheckReport
    from tactl.engines.result import HOLDS, NOT_VACUOUS, VACUITY_UNKNOWN, PropertyResult
    from tactl.ir.ta.reader import read_ta

    ta = read_ta((CORPUS / "strb" / "strb.ta").read_text(), "strb.ta").ta
    sure = PropertyResult("p", "safety", HOLDS, "parametric", vacuity=NOT_VACUOUS)
    unsure = PropertyResult("q", "safety", HOLDS, "parametric", vacuity=VACUITY_UNKNOWN)
    assert CheckReport("x", ta, [sure]).exit_code == 0
    assert CheckReport("x", ta, [sure, unsure]).exit_code == 3


def test_the_parametric_witness_question_asks_z3_once(monkeypatch):
    """The witness run is replayed but never shown, so the parametric engine does not
    search it for small parameters (on random19 that search cost twice the witness itself). The
    property's own counterexamples still get small parameters."""
    from tactl.engines.check import CheckOptions, check_automaton
    from tactl.engines import parametric
    from tactl.engines.result import HOLDS, NOT_VACUOUS
    from tactl.ir.ta.reader import read_ta

    asked: list[bool] = []
    solve = parametric.solve
    monkeypatch.setattr(parametric, "solve", lambda *a: asked.append(a[-1]) or solve(*a))
    ta = read_ta((CORPUS / "strb" / "strb.ta").read_text(), "strb.ta").ta
    (result,) = check_automaton(ta, "strb.ta", CheckOptions(properties=("relay",))).results
    assert result.verdict == HOLDS and result.vacuity == NOT_VACUOUS
    assert asked == [True, False] and result.queries == 2  # the property unsat, the witness sat once
    weak = read_ta((CORPUS / "strb" / "strb.ta").read_text().replace("n > 3 * t;", "n >= 3 * t;"), "weak.ta").ta
    (broken,) = check_automaton(weak, "weak.ta", CheckOptions(properties=("relay",))).results
    assert broken.verdict == "violated" and broken.queries > 1  # it looked for small parameters
    assert sum(broken.counterexample.parameters.values()) <= 24
