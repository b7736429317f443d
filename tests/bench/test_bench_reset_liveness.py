"""The liveness rows of the taco-resets table (tactl/bench/resets.py): TACO checks no liveness, so
each row says so and sets the verdict beside the explicit engine's at small sizes."""

from __future__ import annotations

import shutil

from conftest import DATA
from tactl.bench.resets import taco_table


def test_liveness_rows_say_taco_has_none_and_agree_with_the_explicit_engine(tmp_path, capsys):
    taco, own = tmp_path / "taco", tmp_path / "resets"
    taco.mkdir()
    own.mkdir()
    shutil.copy(DATA / "chc" / "reset_safe.ta", taco / "mine.eta")
    shutil.copy(DATA / "resets" / "phases.eta", own / "phases.eta")
    assert taco_table(60, directory=taco, own=own) is True
    out = capsys.readouterr().out
    rows = {line.split()[3]: line for line in out.splitlines() if line.startswith("resets/phases.eta")}
    assert "holds" in rows["all_counted"] and "parametric" in rows["all_counted"]
    assert "violated" in rows["two_sent"]
    for row in rows.values():
        assert "no liveness in TACO" in row and row.rstrip().endswith("same: yes")
    assert "liveness: 2 of 2 decided for all sizes or violated" in out
