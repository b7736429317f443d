"""Issue 19 (trust round 3), fault models and the coin: an oracle is not forced, a coin is forced by
probability 1; the literature's symmetric and clean-crash models (ByMC's bcast-symm*.pml,
bcast-clean.pml).

Every verdict is computed (parametric engine and the explicit engine at small parameters), every
VIOLATED must carry a counterexample the simulator replayed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS
from tactl.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, VIOLATED
from tactl.inputs import load_automaton
from tactl.ir.rta_printer import print_rta
from tactl.ir.rta_reader import read_rta
from tactl.passes.fairness import Fairness, fairness_of, waiting_locations
from tactl.ir.alg_reader import parse_alg
from tactl.passes.parse import parse_algorithm

REPO = Path(__file__).resolve().parents[1]
FINDINGS = REPO.parent / "shared" / "findings" / "trust-round3"


def check(path: Path, engine: str = "parametric", properties: tuple[str, ...] = (),
          **params: int) -> dict[str, str]:
    """Verdict per property; every VIOLATED must come with a replayed counterexample."""
    ta = load_automaton(path).ta
    options = CheckOptions(engine=engine, properties=properties, parameters=params or None)
    out = {}
    for r in check_automaton(ta, str(path), options).results:
        if r.verdict == VIOLATED:
            assert r.counterexample is not None and r.counterexample.replayed, (path, r.name)
        out[r.name] = r.verdict
    return out


def parse(text: str):
    return parse_algorithm(parse_alg(text, "x.alg"))


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ================================================================== 4. coin and oracle

NBAC_PROBE = """\
algorithm NBACR_vac
parameters n, f
resilience n > 1, n >= f, f >= 0
faults crash(f)

messages (VOTE, {0, 1})

variables
  v: {0, 1} = input
  susp: bool = false

loop forever:
  send (VOTE, v) to all
  if decided == ⊥ and received (VOTE, 0) from at least 1 process:
    decide 0
  elif decided == ⊥ and received (VOTE, 1) from at least n + 1 processes:
    decide 1
  elif decided == ⊥ and susp:
    decide 0
  if decided == ⊥ and not susp:
    susp := CHOICE

properties
  validity: initially (some v == 0) -> always (no decided == 1)
  nontriv: initially (all v == 1) -> (always (no susp and no crashed) -> eventually (all decided == 1))
  termination1: always (no crashed) -> eventually (no decided == ⊥)
"""


def test_an_oracle_is_not_forced_nbac_probe(tmp_path):
    """Commit is impossible (n + 1 YES votes): with a failure detector that may never suspect,
    no process ever decides — termination1 and nontriv are VIOLATED (fails on main: the oracle
    was a coin, forced by the justice, and both HELD)."""
    path = write(tmp_path, "probe.alg", NBAC_PROBE.replace("CHOICE", "oracle"))
    expected = {"validity": HOLDS, "nontriv": VIOLATED, "termination1": VIOLATED}
    assert check(path) == expected
    assert check(path, "explicit", n=3, f=1) == expected


def test_a_coin_is_forced_nbac_probe(tmp_path):
    """The same step with a coin: a process that keeps tossing gets `true` with probability 1,
    suspects and decides 0: termination1 holds (nontriv's antecedent then never holds)."""
    path = write(tmp_path, "probe.alg", NBAC_PROBE.replace("CHOICE", "coin"))
    verdicts = check(path)
    assert verdicts["termination1"] == HOLDS and verdicts["validity"] == HOLDS


def test_oracle_marks_only_the_rules_where_it_changes_the_value():
    rta = parse(NBAC_PROBE.replace("CHOICE", "oracle")).rta
    marked = {(r.source, r.target) for r in rta.rules if r.choice == "oracle"}
    assert marked == {("v0", "susp_sentVOTE0"), ("v1", "susp_sentVOTE1"),
                      ("sentVOTE0", "susp_sentVOTE0"), ("sentVOTE1", "susp_sentVOTE1")}
    # the outcome that keeps `susp` is an ordinary rule: v0 must still be left (the process steps)
    assert all(r.choice is None for r in rta.rules if r.source == "v0" and r.target == "sentVOTE0")


TOSS = """\
algorithm Toss
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)

variables
  x: bool = false

loop forever:
  if not x:
    x := CHOICE

properties
  heads: eventually (all x)
"""


def test_a_coin_toss_from_a_waiting_location_is_forced(tmp_path):
    """The toss reads no message and its location has a self-loop (the outcome `false`). On main
    that made the `true` outcome optional, the coin unfair: `heads` was VIOLATED. A coin repeated
    forever comes up heads with probability 1: it HOLDS; an oracle may say `false` forever."""
    coin = write(tmp_path, "coin.alg", TOSS.replace("CHOICE", "coin toss"))
    oracle = write(tmp_path, "oracle.alg", TOSS.replace("CHOICE", "oracle"))
    assert check(coin) == {"heads": HOLDS}
    assert check(coin, "explicit", n=4, t=1, f=1) == {"heads": HOLDS}
    assert check(oracle) == {"heads": VIOLATED}
    assert check(oracle, "explicit", n=4, t=1, f=1) == {"heads": VIOLATED}


RTA_MARKS = """\
rta Marks {
  parameters n, t, f;
  assumptions (2) { n > 3 * t; t >= f; }
  faults byzantine(f);
  timing async;
  messages M;
  locations A, B, C;
  initial A;
  rules (4) {
    0: A -> A;
    1: A -> B MARK_B;
    2: B -> C when (received(M) >= 0) MARK_C;
    3: C -> C;
  }
  specifications (1) { p: <>(A == 0 && B == 0); }
}
"""


@pytest.mark.parametrize("mark_b, mark_c, fair_b, fair_c", [
    ("", "", Fairness.OPTIONAL, Fairness.FAIR),  # unmarked: today's meaning
    ("coin", "coin", Fairness.FAIR, Fairness.FAIR),
    ("send M oracle", "oracle", Fairness.OPTIONAL, Fairness.OPTIONAL),
])
def test_rta_marks_coin_and_oracle(mark_b, mark_c, fair_b, fair_c):
    rta = read_rta(RTA_MARKS.replace("MARK_B", mark_b).replace("MARK_C", mark_c)).rta
    assert read_rta(print_rta(rta)).rta == rta  # the marks survive printing
    got = {r.id: fairness_of(r, waiting_locations(rta)) for r in rta.rules}
    assert got[1] == fair_b and got[2] == fair_c


def test_a_location_or_message_may_be_called_coin_or_oracle():
    rta = read_rta(RTA_MARKS.replace("MARK_B", "send coin").replace("MARK_C", "oracle")
                   .replace("messages M;", "messages M, coin;").replace("locations A, B, C;",
                   "locations A, B, C, oracle;")).rta
    assert rta.rules[1].sends == ("coin",) and rta.rules[1].choice is None
    assert rta.rules[2].choice == "oracle"


def test_corpus_oracles_and_coins():
    """nbacr's failure detector is an oracle; Ben-Or's coin is a coin (its rules are marked)."""
    assert "suspected := oracle" in (CORPUS / "nbacr" / "nbacr.alg").read_text()
    for name in ("benor.alg", "benor_crash.alg"):
        rta = parse((CORPUS / "benor" / name).read_text()).rta
        assert {r.choice for r in rta.rules} == {None, "coin"}, name
