"""The golden outputs of ``python -m tactl.bench.golden``: what varies from run to run (times,
memory, temporary paths, digests) is masked, and a comparison names every output that differs."""

from __future__ import annotations

import json
from pathlib import Path

from tactl.bench import golden


def test_times_memory_paths_and_digests_are_masked():
    text = "3 hold in 0.42 s (12 ms solving), peak 81.5 MB, cache /tmp/x/abc, key 0123456789abcdef01"
    assert golden.scrub(text, "/tmp/x") == "3 hold in <T> (<T> solving), peak <T>, cache <TMP>/abc, key <HEX>"
    stamped = f"started 2026-11-29T07:11:44Z in {golden.REPO}/corpus/strb/strb.alg"
    assert golden.scrub(stamped) == "started <DATE> in <REPO>/corpus/strb/strb.alg"


def test_json_timing_fields_are_masked_and_the_rest_kept():
    doc = {"verdict": "holds", "solve_seconds": 1.25, "properties": [{"name": "unforg", "time": 3}], "n": 4}
    masked = json.loads(golden._normalise(json.dumps(doc), "/nowhere"))
    assert masked == {"verdict": "holds", "solve_seconds": "<T>", "n": 4,
                      "properties": [{"name": "unforg", "time": "<T>"}]}


def test_every_command_and_corpus_file_is_recorded(tmp_path: Path):
    names = {run.name.split("__")[0] for run in golden.runs(tmp_path)}
    assert {"show", "parse", "translate", "emit-smt", "emit-smv", "check", "check-json", "verify",
            "verify-json"} <= names
    checked = {run.argv[1] for run in golden.runs(tmp_path) if run.argv[0] == "check"}
    corpus = {p.relative_to(golden.REPO).as_posix() for p in (golden.REPO / "corpus").rglob("*")
              if p.suffix in {".alg", ".rta", ".ta"}}
    assert checked == corpus


def test_a_comparison_names_what_differs(tmp_path: Path, capsys):
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir(), new.mkdir()
    (old / "a.txt").write_text("exit 0\n"), (new / "a.txt").write_text("exit 0\n")
    (old / "b.txt").write_text("exit 0\n"), (new / "b.txt").write_text("exit 1\n")
    (old / "c.txt").write_text("exit 0\n")
    assert golden.compare(old, new) == 1
    out = capsys.readouterr().out
    assert "only in old: c.txt" in out and "-exit 0" in out and "+exit 1" in out
    assert out.rstrip().endswith("3 outputs compared, 2 differ")
    (new / "b.txt").write_text("exit 0\n"), (new / "c.txt").write_text("exit 0\n")
    assert golden.compare(old, new) == 0
