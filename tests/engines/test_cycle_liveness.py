"""Liveness of automata with cycles through several locations (ir/eltl/cycles.py): the parametric
engine's loop query against the explicit fair-lasso search, SPIN's counter model and NuSMV at
small sizes, on automata of our own (tests/data/cycles/) and on bcast-byz-init when present."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import DATA, GUARD_S, SHARED_BENCHMARKS, check_results, needs_spin
from tactl.engines import checkers
from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, VIOLATED
from tactl.ir.eltl.cycles import cycle_reason, cycle_structure
from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.expr import BoolConst, to_text
from tactl.ir.ta.reader import read_ta

CYCLES = DATA / "cycles"
SMALL = {"N": 4, "T": 1, "F": 1}

# (file, property) -> (parametric verdict, verdict at every small size), the justice read per
# process on a loop (ir/eltl/justice.py)
EXPECTED = {
    ("circulate.ta", "reach_d"): (VIOLATED, VIOLATED),   # processes go round B -> C for ever
    ("circulate.ta", "settle"): (VIOLATED, VIOLATED),
    ("leave.ta", "term"): (VIOLATED, VIOLATED),          # going round B -> C leaves B and C in turn
    ("leave.ta", "reach_d"): (VIOLATED, VIOLATED),
    ("detour.ta", "reach_d"): (VIOLATED, VIOLATED),      # so does B -> C -> E -> B
    # B occupied from a cut on: the query checks it at the loop's first configuration only, and
    # its model does not replay; no size has a lasso: UNKNOWN, never HOLDS
    ("occupied.ta", "empties"): (UNKNOWN, HOLDS),
}
# SPIN's and NuSMV's counter models state the justice formula as it is written, which on a loop
# through several configurations asks its locations to be empty at every one of them: fewer runs,
# so their "holds" is reported unknown there (tactl/engines/check.py); these are the cases where
# the literal reading would hold while the per-process one is violated
LITERAL = {
    ("leave.ta", "term"): UNKNOWN,
    ("leave.ta", "reach_d"): UNKNOWN,
    ("detour.ta", "reach_d"): UNKNOWN,
}
CASES = sorted(EXPECTED)


def small(file: str) -> dict[str, int]:
    return {"N": 3} if file == "occupied.ta" else SMALL


@pytest.mark.parametrize("file,prop", CASES)
def test_parametric_verdicts(file, prop):
    result = check_results(CYCLES / file, properties=(prop,))[prop]
    assert result.verdict == EXPECTED[file, prop][0], result.reason
    if result.verdict == VIOLATED:
        cex = result.counterexample
        assert cex.replayed and (cex.cycle or cex.loop is not None)
    if result.verdict == UNKNOWN:
        assert "over-approximation" in result.reason and "explicit search" in result.reason


@pytest.mark.parametrize("file,prop", CASES)
def test_explicit_fair_lasso_search_agrees(file, prop):
    result = check_results(CYCLES / file, properties=(prop,), engine="explicit", bound=4)[prop]
    assert result.verdict == EXPECTED[file, prop][1], result.reason
    if result.verdict == VIOLATED:
        assert result.counterexample.replayed and result.counterexample.cycle


@needs_spin("SPIN's counter model on automata with cycles through several locations")
@pytest.mark.parametrize("file,prop", CASES)
def test_spin_counter_model_agrees(file, prop):
    result = check_results(CYCLES / file, properties=(prop,), engine="spin", parameters=small(file))[prop]
    assert result.verdict == LITERAL.get((file, prop), EXPECTED[file, prop][1]), result.reason


@pytest.mark.skipif(checkers.nusmv() is None, reason="NuSMV is not installed: its cross-check did NOT run")
@pytest.mark.parametrize("file,prop", CASES)
def test_nusmv_agrees(file, prop):
    result = check_results(CYCLES / file, properties=(prop,), engine="nusmv", parameters=small(file))[prop]
    assert result.verdict == LITERAL.get((file, prop), EXPECTED[file, prop][1]), result.reason


def test_the_parametric_violation_is_a_loop_through_several_configurations():
    result = check_results(CYCLES / "circulate.ta", properties=("reach_d",))["reach_d"]
    cex = result.counterexample
    assert cex.loop is None and len(cex.cycle) >= 2
    rules = {s.rule for s in cex.cycle}
    assert rules == {1, 2}  # B -> C and C -> B, nothing else, on the loop


# ------------------------------------------------------------------------------ the scope


ROUND = (CYCLES / "round.ta").read_text()
BACK = "2: C -> B when (true) do { unchanged(x); };"


def test_scope_components_and_loop_rules():
    ta = read_ta(ROUND, "round.ta").ta
    assert cycle_reason(ta) is None
    structure = cycle_structure(ta)
    assert structure.components == (frozenset({"B", "C"}),)
    assert structure.loop_rules(ta) == (1, 2)
    assert structure.cyclic == {"B", "C"}


def test_a_cycle_rule_that_increments_is_unsupported_with_its_reason():
    ta = read_ta(ROUND.replace(BACK, BACK.replace("unchanged(x);", "x' == x + 1;")), "round.ta").ta
    why = cycle_reason(ta)
    assert why and "rule 2 (C -> B)" in why and "updates shared variables" in why
    for engine in ("parametric", "explicit"):
        result = check_results(ta, properties=("live",), engine=engine, bound=3)["live"]
        assert result.verdict == UNSUPPORTED and result.reason == why


def test_a_reset_is_outside_the_scope():
    ta = read_ta(ROUND.replace(BACK, BACK.replace("unchanged(x);", "x' == 0;")), "round.eta", extended=True).ta
    assert "not an increment" in cycle_reason(ta)


# ------------------------------------------------------------------- the loop's formulas


@pytest.mark.parametrize("spec,always,witnesses", [
    # []<> q of the consequent negates to <>[] !q: on the whole loop
    ("<>[](A == 0) -> []<>(C != 0)", "A == 0 && C == 0", []),
    # <>[] q negates to []<> !q: at some loop configuration
    ("<>[](A == 0) -> <>[](C == 0)", "A == 0", ["C != 0"]),
    # [](p -> <>q): a cut, an invariant from it, nothing more on the loop than the justice
    ("<>[](A == 0) -> [](B != 0 -> <>(C != 0))", "A == 0", []),
])
def test_loop_parts_of_a_branch(spec, always, witnesses):
    text = ROUND.replace("live: <>[](A == 0) -> <>(C != 0);", f"live: {spec};")
    ta = read_ta(text, "round.ta").ta
    query = temporal_query(ta, ta.properties[0])
    assert isinstance(query, TemporalQuery)
    (branch,) = query.branches
    assert to_text(branch.loop_always) == always
    assert [to_text(w) for w in branch.loop_witnesses if w != BoolConst(True)] == witnesses


# -------------------------------------------------------------- bcast-byz-init, when present


BCAST_INIT = SHARED_BENCHMARKS / "bymc-promela" / "spin13-parameterized" / "bcast-byz-init.pml"


@pytest.mark.skipif(not BCAST_INIT.exists(), reason="bcast-byz-init.pml is not in the shared benchmarks")
def test_bcast_byz_init_is_decided_under_the_derived_justice():
    """The justice tactl derives (``<>[](¬g ∨ κ = 0)`` per rule), read per process on a loop
    (ir/eltl/justice.py): processes that go round AC -> SE -> AC for ever leave both locations in
    turn, so such a run is just and relay is violated, as SPIN finds on the file (below). corr
    holds: once everyone has sent, no just run keeps AC empty."""
    path = BCAST_INIT
    parametric = check_results(path, properties=("relay", "corr"))
    assert {p: r.verdict for p, r in parametric.items()} == {"relay": VIOLATED, "corr": HOLDS}
    relay = parametric["relay"].counterexample
    assert relay.replayed and relay.cycle
    explicit = check_results(path, properties=("relay", "corr"), engine="explicit", bound=6)
    assert {p: r.verdict for p, r in explicit.items()} == {"relay": VIOLATED, "corr": HOLDS}


# ------------------------------------------------- random automata: the loop query is sound


def random_cyclic(seed: int) -> str:
    """A small automaton with cycles through several locations: rules between random locations,
    guards from a few thresholds, increments only on rules outside cycles (the scope), random
    self-loops, a random justice and four properties over it."""
    import random

    rnd = random.Random(seed)
    k = rnd.randint(3, 5)
    locs = [f"L{i}" for i in range(k)]
    guards = ["true", "x >= N - T - F", "x >= T + 1 - F", "x < T + 1"]
    rules = [("L0", "L1", "true", True)]
    for _ in range(rnd.randint(3, 6)):
        a, b = rnd.sample(locs[1:], 2)
        rules.append((a, b, rnd.choice(guards), rnd.random() < 0.3))
    for loc in rnd.sample(locs, rnd.randint(0, 2)):
        rules.append((loc, loc, "true", False))
    text = ["skel R {", "  shared x;", "  parameters N, T, F;",
            "  assumptions (3) { N > 3 * T; T >= F; F >= 0; }",
            f"  locations ({k}) {{ " + " ".join(f"{loc}: [];" for loc in locs) + " }",
            f"  inits ({k + 1}) {{ L0 == N - F; " + " ".join(f"{loc} == 0;" for loc in locs[1:]) + " x == 0; }"]
    body = []
    for n, (a, b, g, inc) in enumerate(rules):
        body.append(f"    {n}: {a} -> {b} when ({g}) do {{ {'x' + chr(39) + ' == x + 1;' if inc else 'unchanged(x);'} }};")
    text.append(f"  rules ({len(rules)}) {{")
    text += body
    text.append("  }")
    waiting = rnd.sample(locs[1:], rnd.randint(0, 2))
    justice = " && ".join(["L0 == 0", *(f"(x < T + 1 || {loc} == 0)" for loc in waiting)])
    i, j = rnd.sample(locs[1:], 2)
    text.append("  specifications (4) {")
    text.append(f"    reach: <>[]({justice}) -> <>({i} != 0);")
    text.append(f"    settle: <>[]({justice}) -> <>[]({i} == 0);")
    text.append(f"    answer: <>[]({justice}) -> []({i} != 0 -> <>({j} != 0));")
    text.append(f"    often: <>[]({justice}) -> []<>({j} != 0);")
    text += ["  }", "}"]
    return "\n".join(text)


def _scoped(text: str):
    """The automaton of ``text`` with the increments of its cycle rules removed (the scope)."""
    ta = read_ta(text, "r.ta").ta
    structure = cycle_structure(ta)
    lines = text.splitlines()
    for index in range(len(ta.rules)):
        if structure.is_cycle_rule(ta, index):
            lines = [line.replace("x' == x + 1;", "unchanged(x);") if line.startswith(f"    {index}: ") else line
                     for line in lines]
    return read_ta("\n".join(lines), "r.ta").ta


@pytest.mark.parametrize("seed", range(24))
def test_random_cyclic_automata_parametric_never_contradicts_explicit(seed):
    ta = _scoped(random_cyclic(seed))
    assert cycle_reason(ta) is None
    parametric = check_results(ta, "r.ta")
    explicit = check_results(ta, "r.ta", engine="explicit", bound=4)
    for name, result in parametric.items():
        other = explicit[name].verdict
        if result.verdict in (HOLDS, HOLDS_VACUOUSLY):
            assert other in (HOLDS, HOLDS_VACUOUSLY), (name, result.verdict, other, explicit[name].counterexample)
        if result.verdict == VIOLATED:
            assert result.counterexample.replayed
        if other == VIOLATED:
            assert result.verdict in (VIOLATED, UNKNOWN), (name, result.verdict)


def test_emit_writes_the_loop_query_that_check_asks():
    import z3

    from tactl.driver.emitters import smtlib_files
    from tactl.driver.inputs import load_automaton

    files = smtlib_files(load_automaton(CYCLES / "round.ta"), (), {})["files"]
    assert sorted(files) == ["Round.live.loop.smt2"]
    for text in files.values():
        assert "sat proves nothing" in text.splitlines()[3]
        solver = z3.Solver()
        solver.from_string(text)
        assert solver.check() == z3.unsat  # live holds for all parameters


@needs_spin("SPIN on bcast-byz-init.pml (the source engine)")
@pytest.mark.skipif(not BCAST_INIT.exists(), reason="bcast-byz-init.pml is not in the shared benchmarks")
def test_bcast_byz_init_under_the_files_own_fairness_spin_finds_both_violated():
    """The other reading, pinned beside ours: SPIN on the file at N=4, T=1, F=1 (its fairness is
    message delivery alone, so an accepted process may go back to SE for ever) violates relay and
    corr; tactl's derived justice asks more of a run than that and no run gives it (above)."""
    from tactl.engines.spin_source import check_source

    report = check_source(str(BCAST_INIT), BCAST_INIT.read_text(), {"N": 4, "T": 1, "F": 1}, timeout_s=GUARD_S)
    assert report.error is None, report.error
    verdicts = {r.name: r.verdict for r in report.results}
    assert verdicts["relay"] == verdicts["corr"] == VIOLATED


# ------------------------------------------------ NBAC's failure detector, when the files are present

FTB = Path(os.environ.get("TACTL_FTB", "/tmp/ftb"))
NBACR = FTB / "isola18" / "promela" / "nbacr.pml"


@pytest.mark.skipif(not NBACR.exists(), reason=f"nbacr.pml not found under {FTB} (TACTL_FTB)")
def test_nbacr_liveness_through_the_failure_detector_cycle():
    """nbacr's some_fail flips at COMMIT and ABORT (cycles through several locations): its three
    liveness properties hold for all parameters (ByMC: termination1 and nontriv hold), and the
    explicit fair-lasso search agrees at every size up to 3."""
    names = ("termination1", "termination2", "nontriv")
    parametric = check_results(NBACR, properties=names)
    assert {p: r.verdict for p, r in parametric.items()} == dict.fromkeys(names, HOLDS)
    assert all(r.details.get("loop") == "several configurations" for r in parametric.values())
    explicit = check_results(NBACR, properties=names, engine="explicit", bound=3)
    assert {p: r.verdict for p, r in explicit.items()} == dict.fromkeys(names, HOLDS)
