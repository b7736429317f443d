"""Fault models and the coin: an oracle is not forced, a coin is forced by
probability 1; the literature's symmetric and clean-crash models (ByMC's bcast-symm*.pml,
bcast-clean.pml).

Every verdict is computed (parametric engine and the explicit engine at small parameters), every
VIOLATED must carry a counterexample the simulator replayed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import CORPUS, DATA, SHARED_BENCHMARKS, write
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, VIOLATED
from tactl.driver.inputs import load_automaton
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta
from tactl.passes.rta_to_ta.eliminate import translate
from tactl.passes.rta_to_ta.env import environment
from tactl.passes.rta_to_ta.fairness import Fairness, fairness_of, waiting_locations
from tactl.ir.alg.reader import parse_alg
from tactl.ir.expr import to_text
from tactl.passes.alg_to_rta.extract import parse_algorithm

FINDINGS = SHARED_BENCHMARKS.parent / "findings" / "trust-round3"


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


# ================================================================== 5. symmetric faults

STRB_SYMMETRIC = """\
algorithm STRB_SYMM_A
parameters n, t, f
resilience n > 2t, RESILIENCE, f >= 0, t >= 1
faults FAULTS
timing async

messages ECHO

variables
  v: {0, 1} = input
  accept: bool = false

loop forever:
  if v == 1:
    send ECHO to all
  upon receiving ECHO from at least t + 1 distinct processes:
    v := 1
    accept := true

properties
  U: initially (no v == 1) -> always (no accept)
  C: initially (all v == 1) -> eventually (some accept)
  R: always ((some accept) -> eventually (all accept))
"""


def strb_symmetric(resilience: str = "t >= f", faults: str = "symmetric(f)") -> str:
    return STRB_SYMMETRIC.replace("RESILIENCE", resilience).replace("FAULTS", faults)


@pytest.mark.parametrize("faults, params", [
    ("symmetric(f)", "n, t, f"),  # fs: a fresh parameter, 0 <= fs <= f
    ("symmetric(f, g)", "n, t, f, g"),  # fs named
])
@pytest.mark.parametrize("resilience, expected, instances", [
    # ByMC's bcast-symm: T >= Fp: all hold
    ("t >= f", {"U": HOLDS, "C": HOLDS, "R": HOLDS}, [(3, 1, 1), (5, 2, 2)]),
    # bcast-symm-FleTp1: T + 1 >= Fp: t + 1 faulty echoes forge an accept; t correct echoes
    # (n - fp = t) are not enough; relay still holds (all receive the same ns + fs)
    ("t + 1 >= f", {"U": VIOLATED, "C": VIOLATED, "R": HOLDS}, [(3, 1, 2)]),
])
def test_strb_symmetric_verdicts(tmp_path, faults, params, resilience, expected, instances):
    """Fails on main: symmetric(f) was Byzantine, R VIOLATED (one faulty echo reaching one
    correct process); symmetric(f, g) was refused."""
    text = strb_symmetric(resilience, faults).replace("parameters n, t, f", f"parameters {params}")
    path = write(tmp_path, "strb_symm.alg", text)
    assert check(path) == expected
    for n, t, f in instances:  # the explicit engine agrees, fs (g) enumerated up to its bound
        assert check(path, "explicit", n=n, t=t, f=f) == expected, (n, t, f)


def test_symmetric_is_not_byzantine():
    symmetric = parse(strb_symmetric()).rta
    byzantine = parse(strb_symmetric(faults="byzantine(f)")).rta
    from tactl.ir.ta.printer import print_ta

    ta_s, ta_b = translate(symmetric).ta, translate(byzantine).ta
    assert print_ta(ta_s) != print_ta(ta_b)
    assert ta_s.parameters == ("n", "t", "f", "fs") and ta_b.parameters == ("n", "t", "f")
    env = environment(symmetric)
    assert to_text(env.processes) == "n - f"
    assert to_text(env.guaranteed_count("ECHO")) == "ns_ECHO + fs"
    assert {to_text(a) for a in env.assumptions} == {"fs >= 0", "fs <= f"}


def test_symmetric_counts_per_type_and_kind():
    """Several types: one fixed count fs_M per type, a faulty process sends one message of a
    kind (Σ_K fs_M <= fs), a type outside a kind is a kind of its own; sync: exactly ns + fs_M."""
    text = strb_symmetric().replace("messages ECHO", "messages ECHO, (R, {0, 1})") \
        .replace("    send ECHO to all\n", "    send ECHO to all\n    send (R, v) to all\n")
    for timing in ("async", "sync"):
        rta = parse(text) if timing == "async" else parse(
            text.replace("timing async", "timing sync").replace("loop forever:", "round:")
            .replace("  upon receiving ECHO from at least t + 1 distinct processes:",
                     "  if received ECHO from at least t + 1 processes:"))
        rta = rta.rta
        env = environment(rta)
        assert env.parameters == ("fs", "fs_ECHO", "fs_R0", "fs_R1")
        assumptions = {to_text(a) for a in env.assumptions}
        assert {"fs_ECHO <= fs", "fs_R0 + fs_R1 <= fs", "fs <= f"} <= assumptions
        constraints = {to_text(c) for c in env.constraints}
        assert "received(R0) <= ns_R0 + fs_R0" in constraints
        assert ("ns_R0 + fs_R0 <= received(R0)" in constraints) == (timing == "sync")


def test_spin_process_model_refuses_symmetric_and_clean_crash_with_fnc():
    from tactl.passes.emit.promela_process import unsupported_fault_model

    assert unsupported_fault_model(parse(strb_symmetric()).rta)
    assert unsupported_fault_model(parse(STRB_CLEAN.read_text()).rta)
    assert unsupported_fault_model(parse(strb_symmetric(faults="byzantine(f)")).rta) is None


# ================================================================== 5b. clean crash with fnc

STRB_CLEAN = DATA / "strb_clean.alg"


def test_strb_clean_crash_as_bcast_clean():
    """ByMC's bcast-clean (accept on N - Tc, N > Tc + 1, Tc >= Fc >= Fnc >= 0): unforgeability,
    correctness and relay hold — by reasoning: without v = 1 nothing is sent; with all v = 1 at
    most fnc <= tc crash before echoing, so n - tc echoes arrive; one accept means n - tc echoes
    were sent, and every one is delivered to all."""
    expected = {"unforg": HOLDS, "corr": HOLDS, "relay": HOLDS}
    assert check(STRB_CLEAN) == expected
    for fnc in (0, 1):
        assert check(STRB_CLEAN, "explicit", n=3, tc=1, fc=1, fnc=fnc) == expected


def test_fnc_counts_the_crashes_that_lose_a_broadcast(tmp_path):
    """Accept on all n echoes: with fnc = 0 every crash comes after the crashing process's echo,
    so n echoes arrive (corr holds); one crash before its echo (fnc = 1) and they never do.
    Fails on main: clean_crash took one parameter."""
    path = write(tmp_path, "strb_clean_n.alg",
                 STRB_CLEAN.read_text().replace("at least n - tc distinct", "at least n distinct"))
    for engine in ("parametric", "explicit"):
        extra = {"n": 3, "tc": 1, "fc": 1} if engine == "explicit" else {}
        assert check(path, engine, ("corr",), fnc=0, **extra) == {"corr": HOLDS}
        assert check(path, engine, ("corr",), fnc=1, **extra) == {"corr": VIOLATED}
    rta = parse(path.read_text()).rta
    crash_rules = [r for r in translate(rta).ta.rules if r.target == "CR"]
    assert {r.source for r in crash_rules if "nunsent" in to_text(r.guard)} == {"v0", "v1"}


def test_clean_crash_with_one_parameter_keeps_its_meaning():
    rta = parse(STRB_CLEAN.read_text().replace("clean_crash(fc, fnc)", "clean_crash(fc)")).rta
    ta = translate(rta).ta
    assert "nunsent" not in ta.shared and environment(rta).unsent_bound is None


# ================================================================== the findings' rows

def _finding(name: str) -> Path:
    path = FINDINGS / name
    if not path.exists():
        pytest.skip(f"the trust-round3 reproducers are not at {FINDINGS}")
    return path


def test_finding_nbac_vacuity_probe(tmp_path):
    """Row nbac_vacuity_probe.alg: its `coin` is a failure detector; written as the oracle it is,
    termination1 and nontriv are VIOLATED. (Reporting a vacuous HOLDS as vacuous is another
    engineer's part of the issue.)"""
    text = _finding("nbac_vacuity_probe.alg").read_text()
    assert "susp := coin" in text
    path = write(tmp_path, "probe.alg", text.replace("susp := coin", "susp := oracle"))
    verdicts = check(path)
    assert verdicts["termination1"] == VIOLATED and verdicts["nontriv"] == VIOLATED


def test_finding_strb_symmetric():
    """Row strb_symmetric.alg: `tactl check F -p R` was VIOLATED; relay holds for n > 2t."""
    path = _finding("strb_symmetric.alg")
    assert check(path, properties=("R",)) == {"R": HOLDS}
    assert check(path) == {"U": HOLDS, "C": HOLDS, "R": HOLDS}
