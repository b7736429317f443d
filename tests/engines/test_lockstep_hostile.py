"""The synchronous engine against a careless user: lock-step checking does what the user asked.

* ``--param`` restricts the diameter and the bounded checks, and values outside the resilience
  condition hold only vacuously (exit 3), as in the interleaving engines;
* ``--timeout`` is the only wall clock: the check stops by it; without it no query has a
  wall-clock limit (z3's deterministic ``rlimit``), so verdicts do not depend on the load;
* a hypothesis is written (``agreement assuming clean round: …``), never inferred from a name,
  and shown with the verdict in every output;
* an undecided guard-completeness check is never a pass; vacuous holds are ``holds vacuously``.

The reproducers of the third trust review (under ``../shared/findings/trust-round3/`` when present; rows crusader_sync_3t, floodmin.rta,
phase_king.rta, floodmin_hypothesis_by_name) are inline and walked from the findings directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import z3

from conftest import CORPUS, REPO
from conftest import report_verdicts as _verdicts
from cpu_time import cpu_past_deadline
from tactl.util import deadline
from tactl.engines import lockstep, lockstep_diameter, lockstep_encoding
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, VIOLATED
from tactl.driver.inputs import read_automaton
from tactl.ir.rta.json_form import rta_from_json, rta_to_json
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta
from tactl.ir.alg.hypothesis import CLEAN_ROUND, CORRECT_COORDINATOR, FEW_CRASHES, Hypothesis
from tactl.passes.rta_to_sync.sync_ta import build

FINDINGS = REPO.parent / "shared" / "findings" / "trust-round3"
FLOODMIN_RTA = CORPUS / "floodmin" / "floodmin.rta"
PHASE_KING = CORPUS / "phase_king" / "phase_king.rta"

# trust-round3/floodmin_hypothesis_by_name.alg: one formula, two names (agreement among the
# processes that have not crashed: a crashed process keeps its input, docs/alg.md)
BY_NAME = """\
algorithm FloodMin
parameters n, t, f
resilience n > t, t >= f, f >= 0
faults crash(f)
timing sync

messages (V, {0, 1})

variables
  best: {0, 1} = input

round:
  send (V, best) to all
  if received (V, 0) from at least 1 process:
    best := 0

properties
  validity0: initially (no best == 0) -> always (no best == 0)
  foo: always (no (not crashed and best == 0) or no (not crashed and best == 1))
  agreement: always (no (not crashed and best == 0) or no (not crashed and best == 1))
"""
HYPOTHESISED = BY_NAME.replace("  foo:", "  foo assuming clean round:").replace(
    "  agreement:", "  agreement assuming clean round:")

# trust-round3/crusader_sync_3t.alg (n >= 3t: agreement is violated, at n = 3 with --param)
CRUSADER = """\
algorithm SyncCrusader
parameters n, t, f
resilience n >= 3t, t >= f, f >= 0
faults byzantine(f)
timing sync

messages (EST, {0, 1}), (ECHO, {0, 1, ⊥})

variables
  v: {0, 1} = input
  phase: {1, 2, 3} = 1
  e: {0, 1, ⊥} = ⊥
  out: {0, 1, ⊥} = ⊥

round:
  if phase == 1:
    send (EST, v) to all
    if received (EST, w) from n - t processes for some w:
      e := w
    else:
      e := ⊥
    phase := 2
  elif phase == 2:
    send (ECHO, e) to all
    if received (ECHO, w) from n - t processes for some w:
      out := w
    phase := 3

properties
  agreement: always not (some out == 0 and some out == 1)
  validity0: initially (all v == 0) -> always (no out == 1)
"""

# a coordinator location nobody ever reaches: the correct-coordinator hypothesis is never met
NEVER_COORDINATOR = """\
rta Never {
  parameters n, t, f;
  assumptions (3) { n > 3 * t; t >= f; f >= 0; }
  faults byzantine(f);
  timing sync;
  messages M, Q;
  coordinator Q;
  locations A, K;
  initial A;
  rules (2) {
    0: A -> A send M;
    1: K -> K send Q;
  }
  specifications (1) {
    agreement assuming correct coordinator: [](K == 0);
  }
}
"""


def _json(cli, *args):
    r = cli("check", *args, "--json")
    return r.code, json.loads(r.out)


# ------------------------------------------------------------------------------- --param


def check_crusader_param(cli, path: Path) -> None:
    code, doc = _json(cli, path, "--param", "n=3", "--param", "t=1", "--param", "f=1")
    agreement = next(p for p in doc["properties"] if p["name"] == "agreement")
    assert code == 1 and agreement["verdict"] == VIOLATED
    assert agreement["details"]["run"]["parameters"] == {"n": 3, "t": 1, "f": 1}
    for p in doc["properties"]:
        if p["verdict"] == HOLDS:
            assert "n=3, t=1, f=1 (--param)" in p["scope"], p


def test_param_restricts_the_lockstep_checks(cli, tmp_path):
    path = tmp_path / "crusader_sync_3t.alg"
    path.write_text(CRUSADER)
    check_crusader_param(cli, path)


def check_floodmin_outside_rc(cli, path: Path) -> None:
    code, doc = _json(cli, path, "--param", "n=1", "--param", "t=5")
    assert code == 3 and doc["initial_configurations"] == "none"
    assert set(_verdicts(doc).values()) == {HOLDS_VACUOUSLY}
    assert all("--param satisfy the resilience condition" in p["reason"] for p in doc["properties"])


def test_param_outside_the_resilience_condition_holds_only_vacuously(cli):
    check_floodmin_outside_rc(cli, FLOODMIN_RTA)


def test_param_inside_the_rc_decides_those_values(cli):
    code, doc = _json(cli, FLOODMIN_RTA, "--param", "n=4", "--param", "t=2")
    assert code == 0 and set(_verdicts(doc).values()) == {HOLDS}
    assert all("n=4, t=2 (--param)" in p["scope"] for p in doc["properties"])


# ------------------------------------------------------------------------------- limits


def check_phase_king_timeout(cli, path: Path, seconds: float = 5.0) -> None:
    """Phase king's lock-step queries take minutes: the deadline stops them, and what runs after
    it (the cancelled query, the report) takes well under a second of CPU. CPU, not wall time:
    at load 14 on two cores the same work takes seven times as long by the clock."""
    (code, doc), after = cpu_past_deadline(seconds, lambda: _json(cli, path, "--timeout", str(seconds)))
    assert after < 1.0, f"{after:.2f} s of CPU after the deadline"
    assert code == 3 and set(_verdicts(doc).values()) == {UNKNOWN}
    assert all("timeout" in p["reason"] for p in doc["properties"])


def test_timeout_stops_the_lockstep_check(cli):
    check_phase_king_timeout(cli, PHASE_KING)


def test_no_wall_clock_limit_without_timeout(monkeypatch):
    """Without --timeout every lock-step query (completeness, diameter, bounded checks) has z3's
    deterministic resource limit and no wall-clock limit: the verdict cannot depend on load."""
    settings: list[dict] = []
    original = z3.Solver.set

    def record(self, *args, **kwargs):
        settings.append(dict(zip(args[::2], args[1::2])) | kwargs)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(z3.Solver, "set", record)
    lockstep_diameter._DIAMETERS.clear()
    assert not deadline.active()
    results, _ = lockstep.check_rta(read_automaton(FLOODMIN_RTA).rta)
    assert {r.verdict for r in results} == {HOLDS}
    assert settings and not any("timeout" in s for s in settings)
    assert all(s.get("rlimit") == lockstep_encoding.RLIMIT for s in settings)


def test_undecided_guard_completeness_is_never_a_pass(monkeypatch):
    automaton = read_automaton(FLOODMIN_RTA).rta
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    with pytest.raises(lockstep.GuardsUndecided, match="guard completeness"):
        lockstep.check_complete(build(automaton))
    results, _ = lockstep.check_rta(automaton)
    assert {r.verdict for r in results} == {UNKNOWN}
    assert all("guard completeness" in r.reason for r in results)


# ------------------------------------------------------------------------------- hypotheses


def check_hypothesis_by_name(cli, path: Path, tmp_path: Path) -> None:
    """The finding's file: the same formula named ``foo`` and, renamed, ``agreement``."""
    renamed = tmp_path / "renamed.alg"
    renamed.write_text(path.read_text().replace("  foo:", "  agreement:"))
    _, doc = _json(cli, path)
    _, renamed_doc = _json(cli, renamed)
    assert _verdicts(doc)["foo"] == _verdicts(renamed_doc)["agreement"] == VIOLATED


def test_a_property_name_implies_no_hypothesis(cli, tmp_path):
    path = tmp_path / "by_name.alg"
    path.write_text(BY_NAME)
    code, doc = _json(cli, path)
    verdicts = _verdicts(doc)
    assert code == 1 and verdicts["foo"] == verdicts["agreement"] == VIOLATED
    assert not any("hypothesis" in p for p in doc["properties"])
    path.write_text(HYPOTHESISED)
    code, doc = _json(cli, path)
    assert code == 0 and _verdicts(doc) == {"validity0": HOLDS, "foo": HOLDS, "agreement": HOLDS}
    for p in doc["properties"][1:]:
        assert p["hypothesis"] == CLEAN_ROUND and "assuming clean round" in p["scope"]


def test_the_hypothesis_is_shown_with_the_verdict_everywhere(cli, tmp_path):
    path = tmp_path / "floodmin.rta"
    path.write_text(FLOODMIN_RTA.read_text())
    r = cli("check", path)
    line = next(l for l in r.out.splitlines() if l.strip().startswith("agreement"))
    assert "HOLDS" in line and "assuming clean round" in line and line.rstrip().endswith("not vacuous")
    report = tmp_path / "report"
    r = cli("verify", path, "--no-cache", "--report-dir", report)
    assert r.code == 0, r.err
    row = next(l for l in r.out.splitlines() if " agreement " in l)
    assert "HOLDS assuming clean round" in row
    doc = json.loads((report / "report.json").read_text())
    props = {p["name"]: p for a in doc["algorithms"] for p in a["properties"]}
    assert props["agreement"]["hypothesis"] == CLEAN_ROUND and "hypothesis" not in props["validity0"]
    html = (report / "report.html").read_text()
    assert '<span class="note">assuming clean round</span>' in html


@pytest.mark.parametrize("written, expected", [
    ("clean round", Hypothesis(CLEAN_ROUND)),
    ("round with at most 1 crash", Hypothesis(FEW_CRASHES, 1)),
    ("round with at most 2 crashes", Hypothesis(FEW_CRASHES, 2)),
    ("correct coordinator", Hypothesis(CORRECT_COORDINATOR)),
])
def test_hypotheses_round_trip(written, expected):
    text = (FLOODMIN_RTA.read_text() if expected.kind != CORRECT_COORDINATOR
            else (CORPUS / "phase_queen" / "phase_queen.rta").read_text())
    text = text.replace("assuming clean round", f"assuming {written}").replace(
        "assuming correct coordinator", f"assuming {written}")
    rta = read_rta(text).rta
    agreement = next(p for p in rta.properties if p.name == "agreement")
    assert agreement.hypothesis == expected and expected.text() == written
    printed = print_rta(rta)
    assert f"agreement assuming {written}: " in printed
    assert read_rta(printed).rta == rta
    assert rta_from_json(rta_to_json(rta)) == rta
    assert rta_to_json(rta)["properties"][-1]["hypothesis"] == written


def test_alg_hypotheses_reach_the_receive_automaton():
    from tactl.driver.pipeline import parse_loaded

    k2 = HYPOTHESISED.replace("assuming clean round", "assuming round with at most 1 crash")
    for text, expected in ((HYPOTHESISED, Hypothesis(CLEAN_ROUND)), (k2, Hypothesis(FEW_CRASHES, 1))):
        rta = parse_loaded(text, "h.alg").rta
        assert [p.hypothesis for p in rta.properties] == [None, expected, expected]


@pytest.mark.parametrize("mutate, where, message", [
    (lambda s: s.replace("crash(f)", "byzantine(f)").replace("not crashed and ", ""), ":19:16:",
     "needs crash faults"),
    (lambda s: s.replace("timing sync", "timing async"), ":19:16:", "not supported for an asynchronous"),
    (lambda s: s.replace("assuming clean round", "assuming correct coordinator", 1), ":19:16:",
     "needs coordinator messages"),
    (lambda s: s.replace("assuming clean round", "assuming cleen round", 1), ":19:16:", "unknown hypothesis"),
])
def test_a_hypothesis_the_model_cannot_have_is_bad_input(cli, tmp_path, mutate, where, message):
    path = tmp_path / "bad.alg"
    path.write_text(mutate(HYPOTHESISED))
    r = cli("check", path)
    assert r.code == 2 and f"bad.alg{where}" in r.err and message in r.err, r.err


def test_a_hypothesis_on_an_asynchronous_rta_is_bad_input(cli, tmp_path):
    path = tmp_path / "async.rta"
    path.write_text((CORPUS / "strb" / "strb.rta").read_text().replace(
        "unforgeability:", "unforgeability assuming clean round:"))
    r = cli("check", path)
    assert r.code == 2 and "async.rta:" in r.err and "asynchronous automaton" in r.err


# ------------------------------------------------------------------------------- vacuity


def test_an_unsatisfiable_antecedent_holds_vacuously():
    text = FLOODMIN_RTA.read_text().replace("validity0: V0 == 0 ->", "validity0: V0 + V1 > n ->")
    results, _ = lockstep.check_rta(read_rta(text).rta, ("validity0",))
    assert results[0].verdict == HOLDS_VACUOUSLY
    assert "no initial configuration satisfies the property's antecedent" in results[0].reason


def test_a_hypothesis_never_met_holds_vacuously():
    results, info = lockstep.check_rta(read_rta(NEVER_COORDINATOR).rta)
    assert info["diameter"] is not None
    assert results[0].verdict == HOLDS_VACUOUSLY and "is never met" in results[0].reason


# ------------------------------------------------------------------------------- findings

ROWS = {
    "crusader_sync_3t.alg": lambda cli, path, tmp: check_crusader_param(cli, path),
    "floodmin_hypothesis_by_name.alg": lambda cli, path, tmp: check_hypothesis_by_name(cli, path, tmp),
}
CORPUS_ROWS = {
    "floodmin.rta": lambda cli, tmp: check_floodmin_outside_rc(cli, FLOODMIN_RTA),
    "phase_king.rta": lambda cli, tmp: check_phase_king_timeout(cli, PHASE_KING),
}


def _finding_rows():
    if not FINDINGS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no findings at {FINDINGS}"))]
    return [pytest.param(name, id=name) for name in sorted(ROWS)]


@pytest.mark.parametrize("name", _finding_rows())
def test_findings_rows(cli, tmp_path, name):
    path = FINDINGS / name
    if not path.exists():
        pytest.skip(f"{path} is not in the findings directory")
    ROWS[name](cli, path, tmp_path)


@pytest.mark.parametrize("name", sorted(CORPUS_ROWS))
def test_findings_corpus_rows(cli, tmp_path, name):
    table = FINDINGS.parent / "trust-round3.md"
    if not table.exists():
        pytest.skip(f"no findings table at {table}")
    assert f"(corpus) {name}" in table.read_text()
    CORPUS_ROWS[name](cli, tmp_path)
