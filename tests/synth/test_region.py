"""tactl/synth/region.py is sound: under every candidate of a region, the counterexample that
made it is a run of the instantiated automaton that violates the property — the simulator
(tactl/engines/simulate.py ``replay_query``) replays it there. Points of each region are sampled
(z3 models, each new one blocked) on the hand-written files and, when fetched, on OPODIS'17's."""

from __future__ import annotations

import pytest

from synth_files import DATA, opodis17_files
from tactl.engines.simulate import replay_query
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.ta.reader import read_ta_file
from tactl.passes.ta_to_ta.instantiate import instantiate
from tactl.passes.ta_to_ta.lower_division import lower_division
from tactl.synth.cegis import SynthesisOptions, synthesize
from tactl.synth.region import point_region, region_formula, sym_expr, sym_holds
from tactl.synth.result import VIOLATION

SAMPLES = 6  # points per region


def sample(space, region, count: int, seed: int) -> list[dict[str, int]]:
    """Up to ``count`` candidates of ``space`` inside ``region`` (distinct z3 models)."""
    import z3

    sym = int_symbols()
    solver = z3.Solver()
    solver.set("random_seed", seed)
    solver.add(*(to_z3(c, sym) for c in space.constraints), to_z3(region, sym))
    for u, (lo, hi) in space.bounds.items():
        solver.add(sym(u) >= lo, sym(u) <= hi)
    out = []
    while len(out) < count and solver.check() == z3.sat:
        model = solver.model()
        point = {u: model.eval(sym(u), model_completion=True).as_long() for u in space.unknowns}
        out.append(point)
        solver.add(z3.Not(to_z3(point_region(point), sym)))
    return out


def replays_under(ta, excluded, values) -> bool:
    automaton = lower_division(instantiate(ta, values))
    prop = next(p for p in automaton.properties if p.name == excluded.property)
    query = temporal_query(automaton, prop)
    cex = excluded.counterexample
    return replay_query(automaton, query, cex.parameters, cex.initial, cex.schedule, cex.loop, cex.cycle).ok


def _assert_regions_sound(path, limit: int | None = None) -> int:
    ta = read_ta_file(path).ta
    result = synthesize(ta, SynthesisOptions(recheck=False))
    assert not result.problems
    checked = 0
    for i, e in enumerate(result.excluded[:limit]):
        if e.kind != VIOLATION or e.counterexample is None:
            continue
        assert sym_holds(region_formula(ta, e.property, e.counterexample), e.candidate)
        for values in sample(result.space, e.region, SAMPLES, seed=i):
            assert replays_under(ta, e, values), (e.property, e.candidate, values)
            checked += 1
    return checked


@pytest.mark.parametrize("name", ["strb_thresholds", "strb_resilience"])
def test_regions_of_the_hand_written_files(name):
    assert _assert_regions_sound(DATA / f"{name}.ta") > 0


@pytest.mark.skipif(not opodis17_files(), reason="the OPODIS'17 files are not fetched (make opodis17)")
@pytest.mark.parametrize("path", [p for p in opodis17_files() if not p.name.startswith("table3")],
                         ids=lambda p: p.stem)
def test_regions_of_opodis17(path):
    assert _assert_regions_sound(path, limit=15) > 0


def test_a_region_outside_its_run_is_not_taken():
    """Points just outside a region are not all replayable: the region is not the whole space."""
    ta = read_ta_file(DATA / "strb_resilience.ta").ta
    result = synthesize(ta, SynthesisOptions(recheck=False))
    refuted = next(e for e in result.excluded if e.candidate == {"k": 2})
    assert not replays_under(ta, refuted, {"k": 3})
    assert "k" in str(sym_expr(region_formula(ta, refuted.property, refuted.counterexample)))
