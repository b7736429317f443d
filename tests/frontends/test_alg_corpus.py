"""The corpus in pseudocode: every ``corpus/<alg>/<alg>.alg`` against the hand-written ``.rta``.

For each algorithm, ``corpus/<alg>/correspondence.json`` says how the two automata correspond:

    {"rta": "strb.rta",                              # the hand-written receive automaton
     "locations": {"v0": "V0", …},                   # generated location → quotient name
     "rta_locations": {"SR0": "SR", …},              # hand-written location → quotient name
     "messages": {"P0D": "P0", …},                   # generated message type → hand-written
     "properties": {"agreement": "agreement", …},    # .alg property → .rta property (same verdict)
     "differences": {"V0 -> SE": "why the guards differ on purpose", …}}

The test parses and translates the ``.alg``, translates the ``.rta``, and checks (1) the rules
are z3-equivalent group by group (``tests/ta_equivalence.py``), except the groups listed in
``differences`` — which must really differ, so that a stale explanation is noticed — and (2)
every mapped property gets the same verdict from ``tactl check``. An ``.alg`` without a
hand-written counterpart (Bracha's broadcast, the binary-value broadcast) lists its expected
verdicts instead: ``{"verdicts": {"validity": "holds", …}}``.
"""

from __future__ import annotations

import json

import pytest

from conftest import CORPUS, verdicts
from ta_equivalence import compare
from tactl.driver.inputs import load_automaton, read_automaton

ALGS = sorted(p.parent.name + "/" + p.stem for p in CORPUS.glob("*/*.alg"))


def correspondence(alg_path) -> dict:
    f = alg_path.parent / (alg_path.stem + ".correspondence.json")
    if not f.exists():
        f = alg_path.parent / "correspondence.json"
    return json.loads(f.read_text())


def _verdicts(path) -> dict[str, str]:
    loaded = load_automaton(path)  # a synchronous one carries its receive automaton: lock-step
    return verdicts(loaded.ta, str(path), receive_automaton=loaded.receive)


@pytest.mark.parametrize("alg", ALGS)
def test_alg_rules_are_equivalent_to_the_hand_written_rta(alg):
    path = CORPUS / f"{alg}.alg"
    spec = correspondence(path)
    if "rta" not in spec:
        pytest.skip(f"{alg}: no hand-written .rta to compare with (verdicts tested below)")
    generated = load_automaton(path).ta
    hand = load_automaton(path.parent / spec["rta"]).ta
    # the .alg's crash locations keep the state (CR_accept, …); a hand-written .rta has one CR
    crashed = {loc.name: "CR" for loc in read_automaton(path).rta.crash_locations}
    diffs = compare(generated, hand, {**crashed, **spec.get("locations", {})},
                    spec.get("rta_locations", {}), spec.get("messages", {}))
    explained = spec.get("differences", {})
    found = {f"{d.group[0]} -> {d.group[1]}": str(d) for d in diffs}
    unexplained = {k: v for k, v in found.items() if k not in explained}
    assert not unexplained, f"{alg}: rule groups differ without an explanation: {unexplained}"
    stale = sorted(set(explained) - set(found))
    assert not stale, f"{alg}: explained differences that no longer differ: {stale}"


def _verdict_params():
    """Every corpus .alg; one whose correspondence says ``"slow": true`` runs with ``-m slow``:
    DBFT (14 properties; tests/frontends/test_alg_sets.py checks part of it in the default
    suite) and phase king (40 s to several minutes a side: its diameter query's time depends on
    the hash seed and the load; its rule equivalence above and the checks at small parameters in
    tests/frontends/test_alg_phases.py stay in the default suite)."""
    out = []
    for alg in ALGS:
        slow = correspondence(CORPUS / f"{alg}.alg").get("slow", False)
        out.append(pytest.param(alg, id=alg, marks=[pytest.mark.slow] if slow else []))
    return out


@pytest.mark.parametrize("alg", _verdict_params())
def test_alg_properties_get_the_verdicts_of_the_hand_written_rta(alg):
    path = CORPUS / f"{alg}.alg"
    spec = correspondence(path)
    ours = _verdicts(path)
    assert ours, f"{alg}: the .alg states no properties"
    if "rta" in spec:
        theirs = _verdicts(path.parent / spec["rta"])
        mapping = spec["properties"]
        assert mapping, f"{alg}: no property mapped to the .rta"
        for mine, hand in mapping.items():
            assert ours[mine] == theirs[hand], (alg, mine, hand, ours[mine], theirs[hand])
    for name, verdict in spec.get("verdicts", {}).items():
        assert ours[name] == verdict, (alg, name, ours[name], verdict)
