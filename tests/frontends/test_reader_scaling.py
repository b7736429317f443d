"""Reading and showing large automata does work linear in their size.

No wall times here (they depend on the machine): each test counts the operations that used to be
repeated per location or per term — solver calls, scans of the location list, nodes visited,
linear-term coefficients built, name comparisons for "did you mean" — at two sizes, or bounds
them. ``make bench`` (tactl.bench.reader) measures the times at 10k–100k locations and rules.
"""

from __future__ import annotations

import random
import re

import pytest
import z3

from conftest import walked_nodes

from tactl.bench.reader import reader_scaling_rows
from tactl.ir import InputError, read_ta
from tactl.ir.ta import validate as validate_module
from tactl.ir.expr import Name, summation
from tactl.ir.linear import LinearTerm, linearize
from tactl.ir.ta.model import Location, ThresholdAutomaton
from tactl.bench.synthetic import scaled_ta


@pytest.fixture
def solver_calls(monkeypatch):
    """The number of z3 ``check`` calls made so far (z3.Solver.check, counted)."""
    calls = []
    real = z3.Solver.check

    def counting(self, *assumptions):
        calls.append(assumptions)
        return real(self, *assumptions)

    monkeypatch.setattr(z3.Solver, "check", counting)
    return calls


def test_scaled_ta_has_the_sizes_asked_for():
    ta = read_ta(scaled_ta(500, 300)).ta
    assert (len(ta.locations), len(ta.rules)) == (500, 300)
    assert ta.is_monotone


@pytest.mark.parametrize("n", [2_000, 20_000])
def test_initial_locations_ask_the_solver_a_bounded_number_of_questions(n, solver_calls):
    # the old code asked z3 once per location not pinned to 0 (quadratic: each question is as
    # large as the automaton); locations that appear alike are now asked about once
    ta = read_ta(scaled_ta(n, 50)).ta
    pinned = {e.left.name for e in ta.inits if isinstance(e.left, Name) and e.left.name.startswith("l")}
    assert set(ta.initial_locations()) == {loc.name for loc in ta.locations} - pinned
    assert len(solver_calls) <= 3


def _per_location_answer(ta: ThresholdAutomaton) -> tuple[str, ...]:
    """The old definition: one solver question per location not pinned to 0 (small inputs only)."""
    from tactl.ir.linear import int_symbols, to_z3

    pinned = {e.left.name for e in ta.inits if getattr(e, "op", None) == "==" and isinstance(e.left, Name)
              and getattr(e.right, "value", None) == 0 and type(e.right).__name__ == "IntConst"}
    candidates = [loc.name for loc in ta.locations if loc.name not in pinned]
    solver, sym = z3.Solver(), int_symbols()
    for e in (*ta.assumptions, *ta.inits):
        solver.add(to_z3(ta.expand(e), sym))
    for n in (*ta.parameters, *ta.shared, *(loc.name for loc in ta.locations)):
        solver.add(sym(n) >= 0)
    return tuple(n for n in candidates if solver.check(sym(n) > 0) != z3.unsat)


@pytest.mark.parametrize("seed", range(30))
def test_grouping_interchangeable_locations_gives_the_per_location_answer(seed):
    rng = random.Random(seed)
    locs = [f"l{i}" for i in range(rng.randint(1, 7))]

    def term() -> str:
        parts = [f"{rng.choice([1, 1, 2, 3])} * {rng.choice(locs + ['N', 'T', 'F'])}"
                 for _ in range(rng.randint(1, 3))]
        return " + ".join(parts) + (f" - {rng.randint(0, 3)}" if rng.random() < 0.3 else "")

    inits = [f"{term()} {rng.choice(['==', '<=', '>=', '<', '>', '!='])} {term()}"
             for _ in range(rng.randint(0, 4))]
    inits += [f"{loc} == 0" for loc in locs if rng.random() < 0.2]
    if inits and rng.random() < 0.3:
        inits[0] = f"{inits[0]} || {rng.choice(locs)} == 1"
    text = ("skel P {\n  local pc;\n  shared x;\n  parameters N, T, F;\n"
            "  assumptions (2) { N > 3 * T; T >= F; }\n"
            f"  locations ({len(locs)}) {{ {' '.join(f'{loc}: [0];' for loc in locs)} }}\n"
            f"  inits ({len(inits)}) {{ {' '.join(f'{i};' for i in inits)} }}\n  rules (0) {{ }}\n}}\n")
    ta = read_ta(text).ta
    assert ta.initial_locations() == _per_location_answer(ta)


class _CountingTuple(tuple):
    iterations = 0

    def __iter__(self):
        type(self).iterations += 1
        return super().__iter__()


def test_location_lookup_does_not_scan_the_locations():
    locations = _CountingTuple(Location(f"l{i}") for i in range(1000))
    ta = ThresholdAutomaton("P", locations=locations)
    _CountingTuple.iterations = 0
    assert all(ta.location(f"l{i}").name == f"l{i}" for i in range(1000))
    assert ta.location("nowhere") is None
    assert _CountingTuple.iterations <= 1  # building the index once


def _visits(monkeypatch, text: str) -> int:
    """Expression nodes the reader and validator walk, and `show`'s initial locations."""
    return walked_nodes(monkeypatch, lambda: read_ta(text).ta.initial_locations())


def test_reading_and_initial_locations_visit_nodes_linear_in_the_locations(monkeypatch):
    small = _visits(monkeypatch, scaled_ta(2_000, 100))
    large = _visits(monkeypatch, scaled_ta(20_000, 100))
    assert large < 12 * small, (small, large)


def test_linear_form_of_a_long_sum_is_built_once(monkeypatch):
    # summing term by term rebuilt the running total at every step: n²/2 coefficients
    built = []
    real = LinearTerm.of

    def counting(coeffs, const=0):
        built.append(len(coeffs))
        return real(coeffs, const)

    monkeypatch.setattr(LinearTerm, "of", staticmethod(counting))
    n = 5_000
    term = summation(Name("x0"), [("+", Name(f"x{i}")) for i in range(1, n)])
    assert len(linearize(term).coeffs) == n
    assert sum(built) <= 2 * n


def test_did_you_mean_compares_a_bounded_number_of_names(monkeypatch):
    # 300 unknown locations against 20,000 known ones: difflib would compare 6 million pairs
    compared = []
    real = validate_module.difflib.get_close_matches

    def counting(word, possibilities, *args, **kwargs):
        compared.append(len(possibilities))
        return real(word, possibilities, *args, **kwargs)

    monkeypatch.setattr(validate_module.difflib, "get_close_matches", counting)
    monkeypatch.setattr(validate_module, "SUGGESTION_COMPARISONS", 50_000)
    text = re.sub(r"(\d+): l(\d+) ->", r"\1: q\2 ->", scaled_ta(20_000, 300))
    with pytest.raises(InputError) as info:
        read_ta(text, "typos.ta")
    messages = [d.message for d in info.value.diagnostics]
    assert len(messages) == 300 and all(m.startswith("unknown location 'q") for m in messages)
    assert sum(compared) <= 50_000
    assert "did you mean" in messages[0]


def test_reader_scaling_rows_measure_child_processes(tmp_path):
    rows = reader_scaling_rows(sizes=(300,), workdir=tmp_path)
    assert [(r.label, r.locations, r.rules) for r in rows] == [("300 locations", 300, 1000),
                                                               ("300 rules", 1000, 300)]
    for r in rows:
        assert r.kbytes > 0 and 0 < r.read_s < r.show_s and r.peak_mb > 10
