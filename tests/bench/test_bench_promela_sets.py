"""The Parametric Promela sets table (``python -m tactl.bench --only promela-sets``): one row per
property of a read file, one per refused file with its reason, a peer's verdict from the JSON
next to the files, and one line without the files."""

from __future__ import annotations

import json

from tactl.bench.promela_sets import PEERS_FILE, peer_verdicts, promela_sets_table

BAD = "symbolic int N;\nactive[N] proctype P() {\n  byte pc = 0;\n  pc = 1;\n}\n"
TOY = """\
symbolic int N, T;
int x;
assume(N > 3 * T);
assume(T >= 1);
atomic all_at_0 = all(Proc:pc == 0);
active[N] proctype Proc() {
  byte pc = 0, next_pc = 0;
  pc = 0;
end:
  do
    :: atomic {
      if
        :: pc == 0 -> x++; next_pc = 1;
        :: pc == 1 && x >= N - T -> next_pc = 2;
      fi;
      pc = next_pc;
    }
  od;
}
ltl stay { [] all_at_0 }
ltl never_two { [] !some_two }
atomic some_two = some(Proc:pc == 2);
"""


def fake_check(calls):
    """A stand-in for the bench's child process: the verdict a property's name asks for."""

    def run(args):
        calls.append(args)
        prop = args[args.index("-p") + 1]
        verdict = {"stay": "violated", "never_two": "holds"}[prop]
        return 0, json.dumps({"properties": [{"name": prop, "verdict": verdict}]}), 1.5, 80.0

    return run


def test_rows_per_property_refusals_and_peer_verdicts(tmp_path, capsys, monkeypatch):
    (tmp_path / "concur14").mkdir()
    (tmp_path / "concur14" / "toy.pml").write_text(TOY)
    (tmp_path / "fmcad13").mkdir()
    (tmp_path / "fmcad13" / "bad.pml").write_text(BAD)
    (tmp_path / PEERS_FILE).write_text(json.dumps({"concur14/toy.pml": {"stay": "violated"}}))
    calls: list = []
    monkeypatch.delenv("TACTL_FTB_PEERS", raising=False)
    assert promela_sets_table(60, fake_check(calls), tmp_path) is True
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith(("concur14/", "fmcad13/"))]
    assert rows[0][:2] == ["fmcad13/bad.pml", "refused:"] and "'end: do :: atomic" in out
    assert rows[1] == ["concur14/toy.pml", "stay", "violated", "1.50", "80.0", "violated"]
    assert rows[2] == ["concur14/toy.pml", "never_two", "holds", "1.50", "80.0", "-"]
    assert [c[c.index("-p") + 1] for c in calls] == ["stay", "never_two"]
    assert all(c[c.index("--timeout") + 1] == "60" for c in calls)
    assert "holds: 1, refused: 1, violated: 1" in out


def test_a_check_without_a_verdict_fails_the_table(tmp_path, capsys):
    (tmp_path / "concur14").mkdir()
    (tmp_path / "concur14" / "toy.pml").write_text(TOY)
    assert promela_sets_table(60, lambda args: (2, "", 0.1, 10.0), tmp_path) is False
    assert "exit 2" in capsys.readouterr().out


def test_without_the_files_the_table_says_how_to_get_them(tmp_path, capsys):
    assert promela_sets_table(60, fake_check([]), tmp_path) is True
    assert "make ftb-promela" in capsys.readouterr().out


def test_peer_verdicts_without_or_with_a_broken_file(tmp_path, monkeypatch):
    monkeypatch.delenv("TACTL_FTB_PEERS", raising=False)
    monkeypatch.setenv("TACTL_BYMC_VERDICTS", str(tmp_path / "none.json"))
    assert peer_verdicts(tmp_path) == {}
    (tmp_path / PEERS_FILE).write_text("{not json")
    assert peer_verdicts(tmp_path) == {}
    other = tmp_path / "elsewhere.json"
    other.write_text(json.dumps({"a.pml": {"p": "holds"}}))
    monkeypatch.setenv("TACTL_FTB_PEERS", str(other))
    assert peer_verdicts(tmp_path) == {("a.pml", "p"): "holds"}


def test_peer_verdicts_from_a_bymc_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("TACTL_FTB_PEERS", raising=False)
    cache = tmp_path / "bymc.json"
    cache.write_text(json.dumps({"entries": {"cav15/c1cs.pml:one_step0": {"verdict": "holds", "wall_s": 3.0},
                                             "popl17/bosco.pml:fast0": {"verdict": "timeout", "wall_s": 900}}}))
    monkeypatch.setenv("TACTL_BYMC_VERDICTS", str(cache))
    assert peer_verdicts(tmp_path) == {("cav15/promela/c1cs.pml", "one_step0"): "holds",
                                       ("popl17-fmsd17/promela/bosco.pml", "fast0"): "timeout"}
