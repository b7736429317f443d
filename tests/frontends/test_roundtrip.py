"""Round trips: ``parse(print(ta)) == ta`` and ``from_json(to_json(ta)) == ta`` for every file we have."""

from __future__ import annotations

import json

import pytest

from conftest import isola18_params, own_ta_files
from tactl.ir import print_ta, read_ta, read_ta_file, ta_from_json, ta_to_json
from tactl.ir.ta.json_form import FORMAT, VERSION
from tactl.ir.errors import InputError
from tactl.bench.synthetic import promela_style_ta


def _check_round_trips(path):
    original = read_ta_file(path).ta
    printed = print_ta(original)
    reread = read_ta(printed, "printed").ta
    assert reread == original
    assert print_ta(reread) == printed  # the canonical form is a fixed point
    doc = json.loads(json.dumps(ta_to_json(original)))
    assert (doc["format"], doc["version"]) == (FORMAT, VERSION)
    assert ta_from_json(doc) == original


@pytest.mark.parametrize("path", isola18_params())
def test_shared_isola18_benchmarks_round_trip(path):
    _check_round_trips(path)


@pytest.mark.parametrize("path", own_ta_files(), ids=lambda p: p.name)
def test_our_files_round_trip(path):
    _check_round_trips(path)


@pytest.mark.parametrize("path", isola18_params())
def test_shared_isola18_facts(path):
    """What every ISOLA'18 file is known to be: monotone, two-or-more initial locations, safety
    properties present (the anchors check them), no warnings."""
    result = read_ta_file(path)
    assert result.warnings == []
    assert result.ta.is_monotone
    assert len(result.ta.initial_locations()) >= 2
    assert result.ta.properties


def test_large_generated_automaton_reads_and_round_trips():
    ta = read_ta(promela_style_ta(n_locations=300, n_rules=800), "generated.ta").ta
    assert len(ta.rules) == 800 and len(ta.shared) == 8 and len(ta.locations) == 300
    assert len(ta.initial_locations()) == 30
    assert read_ta(print_ta(ta)).ta == ta


def test_long_sums_and_conjunctions_stay_flat():
    n = 1000
    locs = [f"l{i}" for i in range(n)]
    text = ("skel P { shared x; parameters N; locations { " + " ".join(f"{l}: [0];" for l in locs)
            + " } inits { " + " + ".join(locs) + " == N; } rules { 0: l0 -> l1 when ("
            + " && ".join(f"x >= {i}" for i in range(n)) + ") do { x' == x + 1; }; } }")
    ta = read_ta(text).ta
    assert len(ta.inits[0].left.args) == n and len(ta.rules[0].guard.args) == n
    assert read_ta(print_ta(ta)).ta == ta


@pytest.mark.parametrize("nested", ["!" * 300 + "(x >= 1)", "-" * 300 + "x >= 1", "x >= 1 -> " * 300 + "x >= 1"])
def test_absurd_nesting_is_an_input_error_not_a_crash(nested):
    with pytest.raises(InputError, match="expression nested more than 200 levels deep"):
        read_ta(f"skel P {{ shared x; locations {{ l: [0]; }} rules {{ 0: l -> l when ({nested}) do {{ }}; }} }}")


def test_json_refuses_other_formats_and_newer_versions():
    doc = ta_to_json(read_ta("skel P { locations { l: [0]; } }").ta)
    with pytest.raises(InputError, match="version 99 is not supported"):
        ta_from_json({**doc, "version": 99})
    with pytest.raises(InputError, match="not a tactl.ta document"):
        ta_from_json({**doc, "format": "other"})
    with pytest.raises(InputError, match=r"malformed tactl.ta JSON at rules\[0\].id: expected an integer, found the string 'zero'"):
        ta_from_json({**doc, "rules": [{"id": "zero", "from": "l", "to": "l", "guard": True, "updates": []}]})
    with pytest.raises(InputError, match=r"malformed tactl.ta JSON at rules\[0\]: missing field 'guard'"):
        ta_from_json({**doc, "rules": [{"id": 0, "from": "l", "to": "l"}]})
