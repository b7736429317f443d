"""Multi-round algorithms (``rounds carrying v:``, passes/alg_to_rta/rounds.py, tactl/report/rounds.py):
the generated round-rigid obligations, their verdicts on the Ben-Or corpus, weakened variants
violated with a replayed counterexample in pseudocode lines and the conclusion withheld, what the
reduction does not cover refused at its position, and random19's verdicts (when present)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from conftest import CORPUS, DATA
from conftest import verdicts as checked_verdicts  # the name `verdicts` is a local below
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, VIOLATED, PropertyResult
from tactl.ir.alg.reader import parse_alg
from tactl.passes.alg_to_rta.rounds import structure
from tactl.report.rounds import conclusions, round_structure

ROUNDS = CORPUS / "benor_rounds"
CRASH = ROUNDS / "benor_rounds_crash.alg"
BYZ = ROUNDS / "benor_rounds.alg"
RABC = ROUNDS / "rabc_crash.alg"
OVERWRITTEN = DATA / "rounds" / "coin_overwritten.alg"  # finding A2: `v := 0` after the toss
RANDOM19 = Path(os.environ.get("TACTL_RANDOM19", Path.home() / ".cache/tactl/benchmarks/random19"))
OBLIGATIONS = ["validity_0", "validity_1", "agreement_0", "agreement_1", "round_termination",
               "decide_or_flip", "unanimity_0", "unanimity_1"]
CLAIMS = ["agreement in every round", "validity in every round", "termination with probability 1"]


def _structure(path: Path):
    return structure(parse_alg(path.read_text(), str(path)))


def test_the_obligations_are_generated_per_value_of_the_carried_variable():
    s = _structure(CRASH)
    assert s.carried == "v" and s.values == ("0", "1") and s.decided == ("0", "1")
    assert s.coin_tosses and s.tossed == "tossed"
    assert [o.name for o in s.obligations] == OBLIGATIONS
    text = {o.name: o.text for o in s.obligations}
    assert text["validity_0"] == ("initially (no v == 0) -> always (no decided == 0 and "
                                  "no (done and v == 0))")
    assert text["agreement_1"] == ("always ((some decided == 1) -> always (no (done and v != 1) "
                                   "and no decided == 0))")
    assert text["decide_or_flip"] == ("eventually (all done and (no (done and not tossed and "
                                      "v != 0) or no (done and not tossed and v != 1)))")


def test_the_generated_formulas_are_the_ones_stated_in_their_text(tmp_path):
    """The property trees (what is checked) and the texts (what is shown) say the same: the
    texts, written as user properties of a plain round, give the same .rta specifications."""
    s = _structure(CRASH)
    generated = load_automaton(CRASH).ta
    plain = CRASH.read_text().replace("\n\nrounds carrying v:", "\n  tossed: bool = false\n\nround:")
    plain = plain.replace("v := coin toss", "v := coin toss\n    tossed := true")
    plain += "\nproperties\n" + "".join(f"  {o.name}: {o.text}\n" for o in s.obligations)
    path = tmp_path / "plain.alg"
    path.write_text(plain)
    written = load_automaton(path).ta
    assert {p.name: p.formula for p in generated.properties} == \
        {p.name: p.formula for p in written.properties}


def _check(cli, path, *extra):
    r = cli("check", "-q", path, *extra)
    verdicts = dict(re.findall(r"^  ([a-z_0-9]+)\s+(?:reachability|nested safety|liveness)\s+"
                               r"(HOLDS|VIOLATED|UNKNOWN|UNSUPPORTED)", r.out, re.M))
    return r, verdicts


# rabc_crash's verdicts are also checked by test_alg_corpus (its correspondence): here only with -m slow
@pytest.mark.parametrize("path", [CRASH, BYZ, pytest.param(RABC, marks=pytest.mark.slow)],
                         ids=lambda p: p.stem)
def test_ben_or_over_all_rounds_every_obligation_holds_and_all_is_concluded(cli, path):
    r, verdicts = _check(cli, path)
    assert r.code == 0, r.out + r.err
    assert verdicts == dict.fromkeys(OBLIGATIONS, "HOLDS")
    assert "multi-round conclusion (rounds carrying v;" in r.out
    for claim in CLAIMS:
        assert re.search(rf"^  {claim}: CONCLUDED from ", r.out, re.M), claim
    assert "CONCLUDED from round_termination, decide_or_flip, unanimity_0, unanimity_1" in r.out
    flat = " ".join(r.out.split())  # the argument and the assumptions are wrapped at 100 columns
    assert "round-rigid adversary" in flat and "strong adaptive adversary is not covered" in flat
    assert "scope: all parameter values satisfying the resilience condition" in r.out


def test_weakened_crash_decision_threshold_violates_agreement_with_a_replayed_run(cli, tmp_path):
    """Deciding on one D-message instead of more than t: a process decides w while another
    received no D-message and tosses — agreement_w (the lock) is violated, the run is replayed
    and printed in pseudocode lines, and agreement over all rounds is not concluded."""
    weak = tmp_path / "weak.alg"
    weak.write_text(CRASH.read_text().replace(
        "if received (P, w, D) from more than t processes:",
        "if received (P, w, D) from at least 1 process:"))
    r, verdicts = _check(cli, weak)
    assert r.code == 1
    assert verdicts["agreement_0"] == verdicts["agreement_1"] == "VIOLATED"
    assert verdicts["validity_0"] == verdicts["round_termination"] == "HOLDS"
    assert "replayed by the simulator" in r.out
    # which waiting processes toss, and how many at once, depends on the run the minimisation
    # budget leaves: runs of equal size differ there
    assert re.search(r'step \d+: \d+ process(?:es)? \(waitP_v[01] -> v[01]_tossed\) executes? line \d+ .*; '
                     r'line \d+ "v := coin toss"', r.out)
    assert re.search(r'line \d+ "decide w"', r.out)
    assert "agreement in every round: NOT CONCLUDED: agreement_0 VIOLATED; agreement_1 VIOLATED" \
        in r.out
    assert "validity in every round: CONCLUDED" in r.out


def test_weakened_byzantine_resilience_violates_validity_and_withholds_conclusions(cli, tmp_path):
    """n > 3t instead of n > 5t: one Byzantine process suffices to break validity and the lock."""
    weak = tmp_path / "weak.alg"
    weak.write_text(BYZ.read_text().replace("resilience n > 5t,", "resilience n > 3t,"))
    r, verdicts = _check(cli, weak)
    assert r.code == 1
    assert verdicts["validity_0"] == verdicts["agreement_0"] == "VIOLATED"
    assert "replayed by the simulator" in r.out
    assert re.search(r'line \d+ "send \(R, v\) to all"', r.out)
    assert "agreement in every round: NOT CONCLUDED:" in r.out
    assert "validity in every round: NOT CONCLUDED: validity_0 VIOLATED" in r.out


def test_weakened_rabc_resilience_violates_unanimity_and_withholds_termination(cli, tmp_path):
    """Bracha's Protocol 2 with n > 2t instead of n > 3t: a unanimous round need not decide (a
    process that counts only n - t = 2t (d, v) messages adopts v without deciding) — a liveness
    violation, a replayed lasso in pseudocode lines, and no termination conclusion."""
    weak = tmp_path / "weak.alg"
    weak.write_text(RABC.read_text().replace("resilience n > 3t,", "resilience n > 2t,"))
    r, verdicts = _check(cli, weak)
    assert r.code == 1
    assert verdicts["unanimity_0"] == verdicts["unanimity_1"] == "VIOLATED"
    assert verdicts["agreement_0"] == verdicts["round_termination"] == "HOLDS"
    assert "counterexample lasso" in r.out and "replayed by the simulator" in r.out
    # The lasso passes the third wait in the pseudocode: whether some processes decide there
    # first depends on which run the schedule search keeps (its budget, tactl/engines/budget.py);
    # in every such run the processes that stop have counted only n - t (C, *) messages.
    assert re.search(r'line \d+ "wait until received \(C, \*\) from n - t processes"', r.out)
    assert ("termination with probability 1: NOT CONCLUDED: unanimity_0 VIOLATED; "
            "unanimity_1 VIOLATED") in r.out
    assert "agreement in every round: CONCLUDED" in r.out


def test_the_json_report_carries_the_conclusion(cli):
    r = cli("check", "-q", CRASH, "--json", "--property", "validity_0", "--property", "validity_1")
    data = json.loads(r.out)["multi_round"]
    assert data["carried"] == "v"
    assert [o["name"] for o in data["obligations"]] == OBLIGATIONS
    claims = {c["claim"]: c for c in data["conclusions"]}
    assert claims["validity in every round"]["concluded"] is True
    assert claims["agreement in every round"]["concluded"] is False
    assert "agreement_0 not checked" in claims["agreement in every round"]["missing"]


def _result(name: str, verdict: str) -> PropertyResult:
    return PropertyResult(name, "safety", verdict, "parametric")


def test_a_conclusion_uses_only_plain_holds():
    s = round_structure(CRASH.read_text(), str(CRASH))
    base = {n: HOLDS for n in OBLIGATIONS}
    for name, verdict in [("decide_or_flip", UNKNOWN), ("unanimity_1", HOLDS_VACUOUSLY),
                          ("round_termination", VIOLATED)]:
        got = {c.claim: c for c in conclusions(s, [_result(n, v) for n, v in
                                                  {**base, name: verdict}.items()])}
        term = got["termination with probability 1"]
        assert not term.concluded and term.missing == (f"{name} {verdict.upper()}",)
        assert got["agreement in every round"].concluded
    got = conclusions(s, [_result(n, v) for n, v in base.items()])
    assert all(c.concluded and not c.missing for c in got)


# ------------------------------------------------------- the premises of the argument

def test_an_overwritten_coin_violates_decide_or_flip_and_withholds_termination(cli):
    """Finding A2: `v := 0` right after `v := coin toss`. The ghost flag is cleared by the
    overwrite, so decide_or_flip sees the processes that adopted 1 and those left with 0 and is
    violated with a replayed run; the premise is reported with its line."""
    r, verdicts = _check(cli, OVERWRITTEN)
    assert r.code == 1, r.out + r.err
    assert verdicts["decide_or_flip"] == "VIOLATED"
    assert "replayed by the simulator" in r.out
    assert re.search(r'line \d+ "v := coin toss"; line \d+ "v := 0"', r.out)
    line = next(ln for ln in r.out.splitlines() if ln.startswith("  termination with probability 1:"))
    assert line.startswith("  termination with probability 1: NOT CONCLUDED: decide_or_flip VIOLATED; "
                           "premise not shown: no statement overwrites a tossed value of 'v'")
    assert 'line 35 "v := 0" overwrites the toss at line 34 "v := coin toss"' in line
    assert "agreement in every round: CONCLUDED" in r.out  # safety does not rest on the coin


def test_the_json_report_states_each_premise_and_how_it_was_checked(cli):
    r = cli("check", "-q", OVERWRITTEN, "--json", "-p", "validity_0")
    data = json.loads(r.out)["multi_round"]
    premises = {p["name"]: p for p in data["premises"]}
    assert list(premises) == ["coin_values", "not_overwritten", "not_read", "decidable"]
    assert all(p["checked"] for p in premises.values())
    assert premises["not_overwritten"]["shown"] is False
    assert 'line 35 "v := 0"' in premises["not_overwritten"]["why"]
    assert all(premises[n]["shown"] for n in ("coin_values", "not_read", "decidable"))
    term = {c["claim"]: c for c in data["conclusions"]}["termination with probability 1"]
    assert term["premises"] == list(premises) and term["concluded"] is False
    assert any(m.startswith("premise not shown: no statement overwrites") for m in term["missing"])


@pytest.mark.parametrize("path", [CRASH, BYZ, RABC], ids=lambda p: p.stem)
def test_the_corpus_shows_every_premise(path):
    multi = round_structure(path.read_text(), str(path))
    assert [(p.name, p.shown, p.why) for p in multi.premises] == [
        (n, True, "") for n in ("coin_values", "not_overwritten", "not_read", "decidable")]


@pytest.mark.parametrize("values, decide, tail, premise, why", [
    ("{0, 2}", "decide w", "", "coin_values",
     'the toss at line 17 "v := coin toss" from waitR_v0 gives v = 0, never 2'),
    ("{0, 1}", "decide w", "  wait until received (C, *) from n - t processes\n  v := 1\n",
     "not_overwritten", 'line 19 "v := 1" overwrites a tossed value'),
    ("{0, 1}", "decide w", "  send (C, v) to all\n", "not_read",
     'the step of the toss at line 17 "v := coin toss" from waitR_v0 sends by the outcome (C0 / C1)'),
    ("{0, 1}", "decide w", "  wait until received (R, *) from n - t processes\n", "not_read",
     'is a step after a toss: line 18 "wait until received (R, *) from n - t processes"'),
    ("{0, 1}", "decide 0", "", "decidable", "no location has decided = 1"),
], ids=["coin-gives-one-value", "overwritten-later", "sent-by-outcome", "step-after-toss",
        "value-never-decided"])
def test_a_premise_not_shown_withholds_termination_with_its_evidence(values, decide, tail, premise,
                                                                    why):
    text = _alg(decide=decide).replace("messages (R, {0, 1})", "messages (R, {0, 1}), (C, {0, 1})")
    text = text.replace("{0, 1}", values) + tail  # HEADER, below
    multi = round_structure(text, "a.alg")
    failed = [p for p in multi.premises if not p.shown]
    assert [p.name for p in failed] == [premise]
    assert why in failed[0].why
    holds = [_result(o.name, HOLDS) for o in multi.structure.obligations]
    got = {c.claim: c for c in conclusions(multi, holds)}
    term = got["termination with probability 1"]
    assert not term.concluded
    assert term.missing == (f"premise not shown: {failed[0].statement} ({failed[0].why})",)
    assert got["agreement in every round"].concluded and got["validity in every round"].concluded


# ---------------------------------------------------------------------------- refusals

HEADER = """algorithm A
parameters n, t, f
resilience n > 2t, t >= f, f >= 0, t >= 1
faults crash(f)
{timing}
messages (R, {{0, 1}})
variables
  v: {{0, 1}} = {init}
{extra}
{rounds}
  send (R, v) to all
  wait until received (R, *) from n - t processes
  if received (R, w) from more than n/2 processes for some w:
    v := w
    {decide}
  else:
    v := coin toss
"""


def _alg(**kw) -> str:
    values = {"timing": "timing async", "init": "input", "extra": "", "rounds": "rounds carrying v:",
              "decide": "decide w"}
    values.update(kw)
    return HEADER.format(**values)


@pytest.mark.parametrize("kw, where, message", [
    ({"timing": "timing sync"}, (10, 1), "asynchronous rounds"),
    ({"init": "0"}, (8, 3), "declare it 'v: … = input'"),
    ({"extra": "  x: bool = input"}, (9, 3), "variable 'x' is an input but is not carried"),
    ({"rounds": "rounds carrying u:"}, (10, 17), "'u' is not a declared variable"),
    ({"extra": "  x: bool = false", "rounds": "rounds carrying v, x:"}, (10, 20),
     "takes one variable"),
    ({"decide": "skip"}, (10, 1), "no 'decide' in the round"),
    ({"decide": "decide 2"}, (15, 5), "not a value of the carried variable"),
])
def test_what_the_reduction_does_not_cover_is_refused_at_its_position(cli, tmp_path, kw, where,
                                                                       message):
    path = tmp_path / "a.alg"
    path.write_text(_alg(**kw))
    r = cli("check", path)
    assert r.code == 2
    first = r.err.strip().splitlines()[0]
    assert first.startswith(f"{path}:{where[0]}:{where[1]}: "), r.err
    assert message in first
    assert "Traceback" not in r.err


def test_an_event_loop_a_read_of_decided_or_a_statement_outside_the_round_is_refused(cli, tmp_path):
    looped = _alg().replace("  send (R, v) to all\n", "  loop forever:\n    skip\n", 1)
    outside = _alg().replace("rounds carrying v:", "skip\nrounds carrying v:")
    clash = _alg() + "properties\n  validity_0: always (no decided == 0)\n"
    reads = _alg().replace("  send (R, v) to all\n", "  if decided == ⊥:\n    send (R, v) to all\n", 1)
    for text, line, message in [(looped, 11, "'loop forever' inside"),
                                (reads, 11, "the round reads 'decided'"),
                                (outside, 10, "a statement outside"),
                                (clash, 19, "name of a generated round obligation")]:
        path = tmp_path / "a.alg"
        path.write_text(text)
        r = cli("parse", path)
        assert r.code == 2
        assert re.match(rf"{re.escape(str(path))}:{line}:\d+: .*{re.escape(message)}", r.err), r.err


def test_rounds_and_carrying_are_keywords_only_as_whole_words(tmp_path, cli):
    text = _alg(extra="  roundsx: bool = false\n  carryingx: bool = false")
    path = tmp_path / "a.alg"
    path.write_text(text)
    assert cli("parse", path).code == 0


# ------------------------------------------------------------------ explicit cross-check

def test_the_explicit_engine_agrees_on_the_safety_obligations_for_small_n():
    loaded = load_automaton(CRASH)
    safety = tuple(n for n in OBLIGATIONS if n.startswith(("validity", "agreement")))
    options = CheckOptions(engine="explicit", properties=safety, bound=4,
                           parameters={"n": 3, "t": 1})
    explicit = {r.name: r.verdict for r in check_automaton(loaded.ta, str(CRASH), options).results}
    assert explicit == dict.fromkeys(safety, HOLDS)


def test_the_explicit_engine_finds_the_weakened_lock_violation(tmp_path):
    weak = tmp_path / "weak.alg"
    weak.write_text(CRASH.read_text().replace(
        "if received (P, w, D) from more than t processes:",
        "if received (P, w, D) from at least 1 process:"))
    loaded = load_automaton(weak)
    options = CheckOptions(engine="explicit", properties=("agreement_0",), bound=4,
                           parameters={"n": 3, "t": 1})
    [result] = check_automaton(loaded.ta, str(weak), options).results
    assert result.verdict == VIOLATED and result.counterexample.replayed


# ----------------------------------------------------------------------------- random19

def _correspondence(path: Path) -> dict:
    return json.loads((path.parent / f"{path.stem}.correspondence.json").read_text())


def _verdicts(path: Path, names) -> dict[str, str]:
    return checked_verdicts(path, properties=tuple(names))


def _random19_cases():
    return [pytest.param(path, i, id=f"{path.stem}-{entry['safety'][2:-3]}")
            for path in (CRASH, BYZ, RABC)
            for i, entry in enumerate(_correspondence(path)["random19"])]


@pytest.mark.parametrize("path, index", _random19_cases())
def test_the_verdicts_are_random19s_for_every_corresponding_property(path, index):
    spec = _correspondence(path)["random19"][index]
    safety, liveness = RANDOM19 / spec["safety"], RANDOM19 / spec["liveness"]
    if not (safety.exists() and liveness.exists()):
        pytest.skip(f"{RANDOM19} absent (make random19 fetches the random19 automata)")
    expected = _correspondence(path)["verdicts"]
    mapping = spec["properties"]
    live = {"round_termination", "decide_or_flip"}
    theirs = {**_verdicts(safety, [m for k, m in mapping.items() if k not in live]),
              **_verdicts(liveness, [m for k, m in mapping.items() if k in live])}
    for mine, their in mapping.items():
        assert expected[mine] == theirs[their], (path.stem, mine, their, theirs[their])


def test_verify_states_the_conclusion_in_its_table_and_report(cli, tmp_path):
    out = tmp_path / "report"
    r = cli("verify", CRASH, "--no-cache", "--report-dir", out, "-p", "validity_0",
            "-p", "validity_1")
    assert r.code == 0, r.out + r.err
    assert "benor_rounds_crash: multi-round conclusion (rounds carrying v;" in r.out
    assert "  validity in every round: CONCLUDED" in r.out
    assert "  agreement in every round: NOT CONCLUDED: agreement_0 not checked" in r.out
    [alg] = json.loads((out / "report.json").read_text())["algorithms"]
    claims = {c["claim"]: c["concluded"] for c in alg["multi_round"]["conclusions"]}
    assert claims == {"agreement in every round": False, "validity in every round": True,
                      "termination with probability 1": False}
    assert all(p["shown"] for p in alg["multi_round"]["premises"])
    html = (out / "report.html").read_text()
    assert "<h3>Multi-round conclusion</h3>" in html and "NOT SHOWN" not in html
    assert "no statement overwrites a tossed value of &#39;v&#39; before the round ends" in html


def test_the_coin_flag_takes_a_free_name_and_user_properties_are_kept(tmp_path, cli):
    text = _alg(extra="  tossed: bool = false") + "properties\n  mine: eventually (all done)\n"
    path = tmp_path / "a.alg"
    path.write_text(text)
    s = structure(parse_alg(text, str(path)))
    assert s.tossed == "tossed_1"
    assert any("tossed_1" in o.text for o in s.obligations)
    r = cli("check", "-q", path, "--property", "mine", "--property", "decide_or_flip")
    assert "  mine " in r.out and "  decide_or_flip " in r.out
