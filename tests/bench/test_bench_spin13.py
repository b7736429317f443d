"""The spin13 bench table (``python -m tactl.bench --only spin13``): skipped with one line without
the hand-written models, and the hand models it runs answer as tactl's models do."""

from __future__ import annotations

import pytest

from conftest import needs_spin
from tactl.bench.spin13 import run_hand, spin13_dir, spin13_table


def test_without_the_models_the_table_is_one_line(tmp_path, capsys):
    assert spin13_table(directory=tmp_path) is True
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"spin13 table skipped: no fixed-size/ in {tmp_path} (make spin13 fetches the "
                   "hand-written models, or set TACTL_SPIN13)"]


@needs_spin("the hand-written spin13 model run")
@pytest.mark.skipif(not (spin13_dir() / "fixed-size").is_dir(),
                    reason="the spin13 models are not fetched (make spin13): the hand model run did NOT run")
@pytest.mark.parametrize("prop", ["unforgeability", "relay"])
def test_a_hand_written_model_runs_with_its_ltl_block(prop):
    figures = run_hand(spin13_dir() / "fixed-size" / "bcast-byz-good-F=1,T=1,N=4.pml", "byz", prop, 120)
    assert figures.verdict == "holds" and figures.states > 0 and figures.memory_mb > 0
