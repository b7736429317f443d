"""The ByMC-on-Promela table (tactl/bench/bymc_promela.py): its cache, the property names it asks
ByMC about, the agree/differ column, and a table printed from a cache of our own (no ByMC needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tactl.bench import bymc_promela as B

TWO_PHASE = Path(__file__).parent.parent / "data" / "promela" / "two_phase.pml"


def test_property_names_skip_fairness_and_repeats():
    text = "ltl fairness { x }\n#ifdef SPIN\n ltl corr { a }\n#else\n ltl corr { b }\n#endif\nltl unforg { c }\n"
    assert B.property_names(text) == ["corr", "unforg"]


def test_compare():
    assert B.compare("violated", "violated") == "agree"
    assert B.compare("holds", "holds vacuously") == "agree"
    assert B.compare("violated", "holds") == "DIFFER"
    assert B.compare("timeout", "holds") == "-"
    assert B.compare("holds", "unknown") == "-"


def test_cache_round_trip(tmp_path):
    cache = tmp_path / "verdicts.json"
    entries = {"cav15/x.pml:corr": B.Entry("violated", 18.84, ""), "cav15/x.pml:unforg": B.Entry("timeout", 120.0)}
    B.save_cache(cache, entries, 120.0)
    assert B.load_cache(cache) == {"cav15/x.pml:corr": B.Entry("violated", 18.84, ""),
                                   "cav15/x.pml:unforg": B.Entry("timeout", 120.0, "")}
    assert B.load_cache(tmp_path / "absent.json") == {}


def test_table_from_a_cache(tmp_path, capsys):
    root = tmp_path / "ftb"
    (root / "concur14").mkdir(parents=True)
    shutil.copy(TWO_PHASE, root / "concur14" / "two_phase.pml")
    cache = tmp_path / "verdicts.json"
    B.save_cache(cache, {"concur14/two_phase.pml:corr": B.Entry("violated", 20.0)}, 120.0)
    assert B.bymc_promela_table(root, cache, 60.0)
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("concur14/two_phase.pml:corr"))
    assert row.split()[1:5] == ["violated", "20.0", "violated", "agree"]
    assert "agree 1, differ 0" in out


def test_table_without_cache_is_reported_not_failed(tmp_path, capsys):
    assert B.bymc_promela_table(tmp_path / "none", tmp_path / "none.json")
    assert "NOT RUN" in capsys.readouterr().out
