"""The TLA+ bench table (tactl/bench/tla.py): skipped with one line without the fetched modules,
and rows that put a module's verdict beside its .ta twin's (a twin in the shared ISOLA'18 folder,
none for a module without one)."""

from __future__ import annotations

import shutil

from conftest import DATA
from tactl.bench import tla
from tactl.ir.ta.printer import print_ta
from tactl.passes.tla_to_ta.reading import read_tla


def test_without_the_modules_the_table_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tla, "CACHE", tmp_path)
    assert tla.tla_table(tmp_path, 60) is True
    assert capsys.readouterr().out.strip().splitlines() == [
        f"TLA+ table skipped: no .tla files in {tmp_path / 'taco-tla'} (make taco-tla fetches them)"]


def test_rows_compare_with_the_twin(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tla, "CACHE", tmp_path)
    (tmp_path / "taco-tla").mkdir()
    shutil.copy(DATA / "tla" / "rb.tla", tmp_path / "taco-tla" / "rb.tla")
    shutil.copy(DATA / "tla" / "rb.tla", tmp_path / "taco-tla" / "strb.tla")
    isola = tmp_path / "benchmarks" / "bymc-isola18"
    isola.mkdir(parents=True)
    text = (DATA / "tla" / "rb.tla").read_text(encoding="utf-8")
    (isola / "strb.ta").write_text(print_ta(read_tla(text, "rb.tla").ta), encoding="utf-8")  # the same automaton
    assert tla.twin_of(tmp_path / "taco-tla" / "rb.tla", tmp_path) is None
    assert tla.tla_table(tmp_path, 60) is True
    rows = capsys.readouterr().out.splitlines()
    rb = [r.split() for r in rows if r.startswith("rb.tla")]
    assert len(rb) == 3 and all(r[1] == "-" and r[5] == "-" for r in rb)
    strb = {r.split()[2]: r.split()[3:6] for r in rows if r.startswith("strb.tla")}
    assert strb == {"unforg": ["holds", "holds", "yes"], "noAccept": ["violated", "violated", "yes"],
                    "notAllEarly": ["holds", "holds", "yes"]}
    assert "3 of 3 properties with their twin's verdict; 6 properties in 2 modules" in rows[-1]
