"""A replayed run's configurations are recorded sparsely (tactl/engines/recorded_run.py): every
position must read, compare, hash, print and pickle as the whole configuration it stands for,
whatever order its readers come in."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from tactl.engines.recorded_run import RecordedRun
from tactl.engines.simulate import Configuration

COUNTERS = ["a", "b", "c"]
SHARED = ["x", "y"]


@st.composite
def run(draw):
    first = {n: draw(st.integers(0, 3)) for n in COUNTERS + SHARED}
    steps = draw(st.lists(st.dictionaries(st.sampled_from(COUNTERS + SHARED), st.integers(0, 3), max_size=3),
                          max_size=8))
    return first, steps


def whole(first, steps):
    """The plain reading: one whole configuration per position."""
    out, now = [], dict(first)
    for changed in [{}, *steps]:
        now = {**now, **changed}
        out.append(Configuration.of({n: now[n] for n in COUNTERS}, {n: now[n] for n in SHARED}))
    return out


def record(first, steps) -> RecordedRun:
    recorded = RecordedRun({n: first[n] for n in COUNTERS}, {n: first[n] for n in SHARED})
    for changed in steps:
        recorded.append(changed)
    return recorded


@settings(max_examples=300, deadline=None)
@given(run(), st.lists(st.integers(0, 8), max_size=12))
def test_every_position_reads_as_its_whole_configuration(case, reads):
    first, steps = case
    expected = whole(first, steps)
    recorded = record(first, steps)
    assert len(recorded) == len(expected)
    for p in [r % len(expected) for r in reads]:   # any order: forwards, backwards, repeated
        config = Configuration.recorded(recorded, p)
        for name in COUNTERS + SHARED:
            assert config.value(name) == expected[p].value(name)
            assert config.values({"n": 7})[name] == expected[p].env({"n": 7})[name]
        assert dict(config.values({"n": 7})) == expected[p].env({"n": 7})
        assert config == expected[p] and hash(config) == hash(expected[p])
        assert repr(config) == repr(expected[p])
        assert pickle.loads(pickle.dumps(Configuration.recorded(recorded, p))) == expected[p]


@settings(max_examples=300, deadline=None)
@given(run())
def test_changes_are_the_positions_where_a_value_differs_from_the_one_before(case):
    first, steps = case
    expected = whole(first, steps)
    recorded = record(first, steps)
    for size in range(1, len(expected) + 1):
        envs = [c.env({}) for c in expected[:size]]
        plain = {n: [i for i in range(1, size) if envs[i][n] != envs[i - 1][n]] for n in COUNTERS + SHARED}
        assert recorded.changes(size) == {n: ps for n, ps in plain.items() if ps}
    for before in range(len(expected)):
        for after in range(before, len(expected)):
            assert recorded.changed_between(before, after) == (expected[before] != expected[after])
