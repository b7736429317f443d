"""One-round Tendermint (corpus/tendermint/tendermint.rta): the proposal as an asynchronous
coordinator message (passes/rta_to_ta/coordinator.py).

Agreement holds for all n > 3t and the reachability sanity properties are violated, as in the
LMCS 2020 one-round model (compared when its file is on this machine); weakening a quorum or
the resilience condition breaks agreement with a replayed counterexample; and the translated
TA agrees with the receive-automaton oracle of tests/translation/test_async_coordinator.py at n = 4.
The pseudocode (tendermint.alg) weakened the same way prints its counterexample in its lines, and
agrees with the .rta under the explicit engine at n = 4.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import CORPUS, check_results, reach_questions
from tactl.driver.inputs import load_automaton
from tactl.engines import explicit
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, VIOLATED
from tactl.ir.rta.reader import read_rta
from tactl.ir.eltl.safety import reach_query
from tactl.ir.ta.reader import read_ta
from tactl.passes.rta_to_ta.eliminate import translate
from test_async_coordinator import instances, oracle_violated

TENDERMINT = CORPUS / "tendermint" / "tendermint.rta"
# konnov/fault-tolerant-benchmarks as fetched on the development machine (a bare mirror): read
# in place with git, never copied into the repository
LMCS20 = Path("/work/.mirror/konnov+fault-tolerant-benchmarks/repo")
LMCS20_FILE = "lmcs20/tendermint-1round-safety.ta"
SAFETY = ("agreement0", "agreement1")
SANITY = ("noDecide0", "noDecide1", "noNoDecision", "noPrevote", "noPrecommit")


def verdicts(text: str, properties: tuple[str, ...] = ()) -> dict[str, object]:
    return check_results(translate(read_rta(text).rta).ta, "tendermint", properties=properties)


def test_agreement_holds_and_every_outcome_is_reachable():
    results = verdicts(TENDERMINT.read_text(encoding="utf-8"))
    assert {p: results[p].verdict for p in SAFETY} == dict.fromkeys(SAFETY, HOLDS)
    assert {p: results[p].verdict for p in SANITY} == dict.fromkeys(SANITY, VIOLATED)
    assert all(results[p].counterexample.replayed for p in SANITY)


def test_a_round_need_not_end_without_gossip():
    """roundEnds is violated (NOTES.md): a process decides before it prevotes, on a faulty
    precommit, and the rest wait for votes that never come — the lasso replays."""
    result = verdicts(TENDERMINT.read_text(encoding="utf-8"), ("roundEnds",))["roundEnds"]
    assert result.verdict == VIOLATED and result.counterexample.replayed
    assert result.counterexample.parameters["f"] >= 1


def _lmcs20_text() -> str | None:
    if not LMCS20.is_dir():
        return None
    shown = subprocess.run(["git", "-C", str(LMCS20), "show", f"HEAD:{LMCS20_FILE}"],
                           capture_output=True, text=True, timeout=60)
    return shown.stdout if shown.returncode == 0 else None


def test_same_verdicts_as_the_lmcs20_model():
    text = _lmcs20_text()
    if text is None:
        pytest.skip(f"{LMCS20}:{LMCS20_FILE} is not on this machine")
    theirs = read_ta(text, "tendermint-1round-safety.ta").ta
    report = check_automaton(theirs, "lmcs20", CheckOptions())
    expected = {r.name: r.verdict for r in report.results}
    ours = {name: r.verdict for name, r in verdicts(TENDERMINT.read_text(encoding="utf-8")).items()}
    assert set(expected) == set(SAFETY + SANITY)
    assert {name: ours[name] for name in expected} == expected


@pytest.mark.parametrize("old, new", [
    (">= n - t", ">= t + 1"),            # quorums of t + 1 instead of n - t (2t + 1 at n = 3t + 1)
    ("n > 3 * t;", "n > 2 * t;"),        # resilience n > 2t
])
def test_a_weakened_variant_violates_agreement_with_a_replayed_counterexample(old, new):
    text = TENDERMINT.read_text(encoding="utf-8")
    assert old in text
    results = verdicts(text.replace(old, new), ("agreement0",))
    result = results["agreement0"]
    assert result.verdict == VIOLATED
    cex = result.counterexample
    assert cex.replayed
    # breaking agreement takes an equivocating (faulty) proposer or faulty voters
    assert cex.parameters["f"] >= 1


def test_the_translation_agrees_with_the_receive_automaton_oracle_at_n_4():
    rta = read_rta(TENDERMINT.read_text(encoding="utf-8")
                   .replace("agreement0: [](DECIDE0 != 0 -> [](DECIDE1 == 0));",
                            "agreement0: [](DECIDE0 == 0 || DECIDE1 == 0);")).rta
    ta = translate(rta).ta
    small = [p for p in instances(4) if p["n"] == 4 and p["t"] == 1]
    for prop, question in reach_questions(ta):
        for params in small:
            got = explicit.check(ta, question, params, bound=4, max_states=200_000)
            assert (got.verdict == VIOLATED) == oracle_violated(rta, question, params), (prop.name, params)


# ---- the pseudocode (corpus/tendermint/tendermint.alg; tests/frontends/test_alg_corpus.py compares its
# rules and verdicts with tendermint.rta) ----

TENDERMINT_ALG = CORPUS / "tendermint" / "tendermint.alg"


def _lines_of(text: str, code: str) -> list[int]:
    """The 1-based numbers of the lines whose code (comment stripped) is ``code``: the
    counterexample quotes each as `line N "code"`."""
    return [number for number, line in enumerate(text.splitlines(), 1)
            if line.split("#")[0].strip() == code]


@pytest.mark.parametrize("old, new", [
    ("from n - t processes", "from t + 1 processes"),  # every quorum t + 1 instead of n - t
    ("resilience n > 3t", "resilience n > 2t"),        # resilience n > 2t
])
def test_a_weakened_pseudocode_violates_agreement_in_pseudocode_lines(cli, tmp_path, old, new):
    """Agreement breaks when a quorum or the resilience condition is weakened; `tactl check`
    prints the replayed run as the .alg lines the processes executed: precommits of a value are
    sent, and processes decide at a `decide w` (one in each of the three steps)."""
    text = TENDERMINT_ALG.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "weak.alg"
    path.write_text(text.replace(old, new), encoding="utf-8")
    r = cli("check", path, "--property", "agreement0")
    assert r.code == 1 and "VIOLATED" in r.out and "(replayed by the simulator)" in r.out, r.out + r.err
    assert "in the pseudocode" in r.out
    [precommit] = _lines_of(text, "send (PRECOMMIT, w) to all")
    assert f'line {precommit} "send (PRECOMMIT, w) to all"' in r.out, r.out
    decides = _lines_of(text, "decide w")
    assert len(decides) == 3
    assert any(f'line {d} "decide w"' in r.out for d in decides), r.out
    # breaking agreement takes a faulty process (an equivocating proposer or a double voter)
    assert re.search(r"with n=\d+, t=\d+, f=[1-9]", r.out), r.out


def test_the_pseudocode_and_the_rta_agree_under_the_explicit_engine_at_n_4(tmp_path):
    """A differential check by another engine than the corpus test's parametric one: every
    instance n = 4, t = 1 (f, cf in 0..1) explored on the TA from the .alg and the TA from the
    .rta, for the five sanity properties (reachable on both) and agreement in its plain safety
    form (never both decisions; unreachable on both)."""
    plain = "agreement: always (no decided == 0 or no decided == 1)"
    alg = tmp_path / "tendermint.alg"
    alg.write_text(TENDERMINT_ALG.read_text(encoding="utf-8")
                   .replace("properties\n", f"properties\n  {plain}\n"), encoding="utf-8")
    ours = load_automaton(alg).ta
    theirs = translate(read_rta(TENDERMINT.read_text(encoding="utf-8").replace(
        "specifications (8) {", "specifications (9) {\n    agreement: [](DECIDE0 == 0 || DECIDE1 == 0);"
    )).rta).ta
    expected = {"agreement": HOLDS, **dict.fromkeys(SANITY, VIOLATED)}
    queries = {name: {p.name: reach_query(ta, p) for p in ta.properties if p.name in expected}
               for name, ta in (("alg", ours), ("rta", theirs))}
    assert set(queries["alg"]) == set(queries["rta"]) == set(expected)
    for params in (p for p in instances(4) if p["n"] == 4 and p["t"] == 1):
        for prop, verdict in expected.items():
            got = {name: explicit.check(ta, queries[name][prop], params, bound=4,
                                        max_states=200_000).verdict
                   for name, ta in (("alg", ours), ("rta", theirs))}
            assert got["alg"] == got["rta"] == verdict, (prop, params, got)
