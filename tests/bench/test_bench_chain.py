"""The chain family (tactl.bench.synthetic.chain_ta), its curve (tactl.bench.chain) and its rows in
the peers table, and the CPU figures of the peers table (tactl.bench.peers): a stand-in ByMC, the
real tactl on short chains."""

from __future__ import annotations

import math
import sys

import pytest

from tactl.bench import chain, peers
from tactl.bench.peers import HOLDS, TIMEOUT, VIOLATED, PeerRow, Run, summarize
from tactl.bench.synthetic import chain_ta
from tactl.ir.ta.reader import read_ta
from tests.bench.test_bench_peers import _fake_setup


def test_chain_grows_by_one_location_and_two_rules_per_stage():
    sizes = {}
    for k in (1, 2, 5):
        ta = read_ta(chain_ta(k), f"chain{k}.ta").ta
        assert [p.name for p in ta.properties] == ["unforg", "corr"]
        sizes[k] = (len(ta.locations), len(ta.rules))
    assert sizes[1] == (5, 10)
    assert sizes[5][0] - sizes[2][0] == 3 and sizes[5][1] - sizes[2][1] == 6
    with pytest.raises(ValueError):
        chain_ta(0)


def test_growth_exponent():
    e = chain.growth([(8, 1.0), (16, 2.0), (32, 8.0), (64, 0.0)])
    assert e[0] is None and e[1] == pytest.approx(1.0) and e[2] == pytest.approx(2.0) and e[3] is None


def test_chain_curve_with_a_stand_in_bymc(tmp_path, monkeypatch, capsys):
    _fake_setup(tmp_path, monkeypatch, HOLDS)
    points = chain.measure_chain(120, sizes=(1, 3))
    assert [(p.k, p.prop) for p in points] == [(1, "unforg"), (1, "corr"), (3, "unforg"), (3, "corr")]
    assert all(p.tactl.verdict == HOLDS and p.bymc.verdict == HOLDS for p in points), points
    assert all(p.tactl.cpu_s > 0 for p in points)
    assert chain.print_chain(points)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["k", "tactl", "unforg"] and [ln.split()[0] for ln in lines[1:]] == ["1", "3"]


def test_a_chain_verdict_other_than_holds_fails_the_curve(capsys):
    bad = [chain.ChainPoint(8, p, Run(VIOLATED if p == "corr" else HOLDS, 1.0, cpu_s=0.5), None)
           for p in chain.PROPERTIES]
    assert not chain.print_chain(bad)
    assert "violated" in capsys.readouterr().out


def test_peers_table_runs_the_chain_and_reports_cpu(tmp_path, monkeypatch, capsys):
    shared = _fake_setup(tmp_path, monkeypatch, HOLDS)
    assert peers.peers_table(shared, tmp_path / "no-random19", 60, r"^chain/chain008\.ta:unforg$")
    out = capsys.readouterr().out
    assert "T/B CPU" in out and "chain/chain008.ta" in out
    assert "CPU ratio tactl/ByMC over the pairs both decide: median" in out


# ------------------------------------------------------------------------------------ CPU figures

def _row(name, t, tcpu, b, bcpu):
    return PeerRow("g", f"{name}.ta", "p", Run(t, 9.0, cpu_s=tcpu), Run(b, 1.0, cpu_s=bcpu))


def test_cpu_ratios_median_max_and_pairs_one_tool_decides():
    rows = [_row("a", HOLDS, 1.0, HOLDS, 4.0),       # 0.25
            _row("b", VIOLATED, 3.0, VIOLATED, 1.0),  # 3
            _row("c", HOLDS, 1.0, HOLDS, 2.0),        # 0.5
            _row("d", HOLDS, 1.0, TIMEOUT, 60.0),     # only tactl
            _row("e", TIMEOUT, 60.0, HOLDS, 1.0)]     # only ByMC
    s = summarize(rows, extremes=2)
    assert s.cpu_median == pytest.approx(0.5) and s.cpu_max == pytest.approx(3.0)
    assert s.cpu_geomean == pytest.approx((0.25 * 3 * 0.5) ** (1 / 3))
    assert [r.file for r in s.cpu_worst] == ["b.ta", "c.ta"]
    assert [r.file for r in s.only_one] == ["d.ta", "e.ta"]
    # the wall ratio is a separate figure (every tactl wall here is 9 s)
    assert s.median == pytest.approx(9.0)
    assert _row("f", HOLDS, None, HOLDS, 1.0).cpu_ratio is None
    assert math.isclose(rows[0].cpu_ratio, 0.25)


def test_cpu_time_counts_the_children_a_process_waits_for(tmp_path):
    burn = f"{sys.executable} -c 'import time\nwhile time.process_time() < 0.3: pass'"
    done = peers.run_limited(["sh", "-c", f"{burn}; {burn}"], tmp_path, 120)
    assert not done.timed_out and done.cpu_s >= 0.55, done.cpu_s
