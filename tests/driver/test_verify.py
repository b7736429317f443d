"""The driver: passes chained by their declarations, the content-addressed cache (hits, misses
and why, corruption, atomicity under concurrent runs, Ctrl-C), the verify command and its
reports, and the executors (process pool, Dask)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import CORPUS
from tactl.driver.cache import LAYOUT, Cache, _envelope_problem
from tactl.driver.pipeline import NoChain, plan
from tactl.driver.verify import VerifyOptions, resolve, verify

STRB_ALG = (CORPUS / "strb" / "strb.alg").read_text()


def records(run, name=None):
    [a] = run.algorithms
    return {(r.name, r.subject): r for r in a.records if name is None or r.name == name}


def verdicts(run):
    return {(a.name, v.result.name): v.result.verdict for a in run.algorithms for v, _ in a.verdicts}


def entries(cache_dir: Path) -> list[Path]:
    return sorted(p for p in (cache_dir / LAYOUT).glob("*/*.json") if p.parent.name != "lineage")


@pytest.fixture
def strb(tmp_path):
    path = tmp_path / "strb.alg"
    path.write_text(STRB_ALG)
    return path


def opts(tmp_path, **kw):
    return VerifyOptions(cache_dir=tmp_path / "cache", report_dir=tmp_path / "report", **kw)


# ------------------------------------------------------------------------- pass declarations


def test_chains_are_found_from_the_declarations():
    assert [p.name for p in plan("alg-text", "verdict")] == ["parse", "translate", "lower", "check"]
    assert [p.name for p in plan("ta-text", "verdict")] == ["read-ta", "lower", "check"]
    assert [p.name for p in plan("rta-json", "promela")] == ["read-rta-json", "translate", "lower",
                                                             "emit-promela"]
    with pytest.raises(NoChain):
        plan("ta-text", "rta")  # no pass turns a TA back into a receive automaton


# ------------------------------------------------------------------------------ the cache


def test_second_run_hits_everything_and_agrees(tmp_path, strb):
    first = verify([strb], opts(tmp_path))
    second = verify([strb], opts(tmp_path))
    assert {r.cache for r in records(first).values() if r.name != "lower"} == {"miss"}
    assert {r.cache for r in records(second).values() if r.name != "lower"} == {"hit"}
    assert verdicts(first) == verdicts(second) == {("strb", "unforgeability"): "holds",
                                                   ("strb", "correctness"): "holds",
                                                   ("strb", "relay"): "holds"}


def test_a_comment_edit_keeps_every_check_result(tmp_path, strb):
    verify([strb], opts(tmp_path))
    strb.write_text("# a comment the author added\n" + STRB_ALG.replace(
        "upon receiving", "# why this threshold: see the paper\n  upon receiving", 1))
    run = verify([strb], opts(tmp_path))
    recs = records(run)
    # the source map moved (lines shifted): parse and translate run again, every check hits
    assert recs[("parse", "")].cache == "miss" and "input" in recs[("parse", "")].why
    assert recs[("translate", "")].cache == "miss"
    assert {r.cache for (name, _), r in recs.items() if name == "check"} == {"hit"}
    # the report's pseudocode lines are the current file's
    assert run.algorithms[0].loaded.ta.rules[0].origin.lines != ()


def test_a_threshold_edit_reruns_the_passes_downstream_only(tmp_path, strb):
    verify([strb], opts(tmp_path))
    assert "from t + 1 distinct" in STRB_ALG
    strb.write_text(STRB_ALG.replace("from t + 1 distinct", "from t distinct"))
    run = verify([strb], opts(tmp_path))
    recs = records(run)
    assert {r.cache for (name, _), r in recs.items() if name in ("parse", "translate", "check")} == {"miss"}
    assert "changed" in recs[("check", "unforgeability")].why
    assert verdicts(run)[("strb", "unforgeability")] == "violated"
    # and back: the old entries are still there
    strb.write_text(STRB_ALG)
    assert {r.cache for r in records(verify([strb], opts(tmp_path))).values() if r.name != "lower"} == {"hit"}


def test_options_are_part_of_the_key(tmp_path, strb):
    verify([strb], opts(tmp_path))
    run = verify([strb], opts(tmp_path, engine="explicit", parameters={"n": 4, "t": 1, "f": 1}))
    checks = [r for r in records(run).values() if r.name == "check"]
    assert {r.cache for r in checks} == {"miss"}
    assert all("options changed: engine, parameters" in r.why for r in checks)


@pytest.mark.parametrize("damage", ["truncate", "flip a byte"])
def test_a_corrupt_entry_is_reported_deleted_and_rebuilt(tmp_path, strb, damage):
    first = verify([strb], opts(tmp_path))
    for path in entries(tmp_path / "cache"):
        raw = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(raw[: len(raw) // 2])
        else:  # inside the stored value: the envelope still parses, the digest does not match
            i = raw.index(b'"value": "') + 20
            path.write_bytes(raw[:i] + bytes([raw[i] ^ 0x01]) + raw[i + 1:])
    run = verify([strb], opts(tmp_path))
    assert verdicts(run) == verdicts(first)
    cached = [r for r in records(run).values() if r.cache != "not cached"]
    assert cached and all(r.cache == "miss" and "rebuilt" in r.why for r in cached), \
        [(r.name, r.why) for r in cached]
    assert any("deleted, and rebuilt" in w for w in run.warnings)
    assert all(_envelope_problem(p.read_text(), p.stem) is None for p in entries(tmp_path / "cache"))


def test_a_cached_violation_that_no_longer_replays_is_not_used(tmp_path, strb):
    """A well-formed entry (digest matching) whose counterexample does not replay on the current
    automaton: the simulator rejects it, so the property is checked again."""
    strb.write_text(STRB_ALG.replace("from t + 1 distinct", "from t distinct"))
    verify([strb], opts(tmp_path))
    from tactl.driver.cache import digest

    forged = 0
    for path in entries(tmp_path / "cache"):
        doc = json.loads(path.read_text())
        value = json.loads(doc["value"])
        cex = value.get("result", {}).get("counterexample") if isinstance(value, dict) else None
        if cex:
            cex["schedule"] = [[0, 99]]  # 99 processes along rule 0: impossible at n = 4
            doc["value"] = json.dumps(value)
            doc["digest"] = digest(doc["value"])
            path.write_text(json.dumps(doc))
            forged += 1
    assert forged
    run = verify([strb], opts(tmp_path))
    rec = records(run)[("check", "unforgeability")]
    assert rec.cache == "miss" and "no longer replays" in rec.why
    [(v, _)] = [x for x in run.algorithms[0].verdicts if x[0].result.name == "unforgeability"]
    assert v.result.verdict == "violated" and v.result.counterexample.replayed


def test_an_interrupted_write_leaves_no_entry(tmp_path, monkeypatch):
    cache = Cache.open(tmp_path / "c")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cache.put("ab" + "0" * 62, "value")
    monkeypatch.undo()
    assert list((tmp_path / "c").rglob("*.json")) == []
    assert cache.get("ab" + "0" * 62).value is None


def _tactl(*args, cwd=None, **kw):
    return subprocess.Popen([sys.executable, "-m", "tactl.cli", *map(str, args)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_ctrl_c_during_a_run_leaves_only_whole_entries(tmp_path):
    proc = _tactl("verify", CORPUS / "benor", "--cache-dir", tmp_path / "cache", "--report-dir",
                  tmp_path / "r", "--no-progress")
    waited = 0.0
    while not entries(tmp_path / "cache") and proc.poll() is None and waited < 120:
        time.sleep(0.05)  # interrupt once the run is writing entries (in the middle of its work)
        waited += 0.05
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode in (130, 0, 1, 3), err  # 0/1/3 only if it finished before the signal
    if proc.returncode == 130:
        assert "interrupted" in err
    leftovers = [p for p in (tmp_path / "cache").rglob(".tmp-*")]
    assert leftovers == []
    for path in entries(tmp_path / "cache"):
        assert _envelope_problem(path.read_text(), path.stem) is None


def test_concurrent_runs_on_one_cache_never_corrupt_it(tmp_path):
    cache = tmp_path / "cache"
    procs = [_tactl("verify", "strb", "frb", "--cache-dir", cache, "--report-dir", tmp_path / f"r{i}",
                    "--json", "--no-progress") for i in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e for _, e in outs]
    reports = [json.loads(o) for o, _ in outs]
    got = [{(a["name"], p["name"]): p["verdict"] for a in r["algorithms"] for p in a["properties"]}
           for r in reports]
    assert got[0] == got[1] == got[2]
    for path in entries(cache):
        assert _envelope_problem(path.read_text(), path.stem) is None
    again = _tactl("verify", "strb", "frb", "--cache-dir", cache, "--report-dir", tmp_path / "r",
                   "--json", "--no-progress")
    out, err = again.communicate(timeout=300)
    doc = json.loads(out)
    assert doc["cache"]["misses"] == 0 and doc["cache"]["hits"] > 0, err


# ------------------------------------------------------------------------------- the command


def test_verify_command_prints_the_table_and_writes_both_reports(cli, tmp_path):
    r = cli("verify", "strb", "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r", "--explain")
    assert r.code == 0, r.err
    assert r.out.splitlines()[0].split() == ["algorithm", "property", "class", "verdict", "vacuity", "engine",
                                             "time", "cache"]
    assert "strb       relay" in r.out and "HOLDS" in r.out
    # the pass versions move whenever a pass's output changes: match any
    assert re.search(r"parse v\d+: MISS", r.err) and re.search(r"check v\d+ \[relay\]: MISS", r.err), r.err
    doc = json.loads((tmp_path / "r" / "report.json").read_text())
    [alg] = doc["algorithms"]
    assert alg["automaton"]["name"] == "STRB" and len(alg["certificates"]) == 8
    assert {p["name"]: p["verdict"] for p in alg["properties"]} == {
        "unforgeability": "holds", "correctness": "holds", "relay": "holds"}
    assert [p["pass"] for p in alg["passes"]][:3] == ["parse", "translate", "lower"]
    html = (tmp_path / "r" / "report.html").read_text()
    assert "unforgeability" in html and "STRB" in html
    r2 = cli("verify", "strb", "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r", "--json")
    assert json.loads(r2.out)["cache"]["misses"] == 0


def test_a_violation_sets_exit_1_and_its_counterexample_names_pseudocode(cli, tmp_path):
    path = tmp_path / "mutant.alg"
    path.write_text(STRB_ALG.replace("from t + 1 distinct", "from t distinct"))
    r = cli("verify", path, "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r", "--json")
    assert r.code == 1
    [alg] = json.loads(r.out)["algorithms"]
    [bad] = [p for p in alg["properties"] if p["verdict"] == "violated"]
    assert bad["counterexample"]["replayed"] and "source" in bad["counterexample"]["schedule"][0]


def test_unknown_algorithm_lists_the_available_ones(cli, tmp_path):
    r = cli("verify", "nosuch", "--cache-dir", tmp_path / "c")
    assert r.code == 2 and "unknown algorithm 'nosuch'" in r.err
    assert "strb" in r.err and "benor_crash" in r.err and "Traceback" not in r.err


def test_resolve_names_directories_and_files():
    assert resolve(["strb"]) == [CORPUS / "strb" / "strb.alg"]
    assert resolve(["benor_crash"]) == [CORPUS / "benor" / "benor_crash.alg"]
    assert resolve([str(CORPUS / "benor")]) == [CORPUS / "benor" / "benor.alg",
                                               CORPUS / "benor" / "benor_crash.alg"]
    everything = resolve([str(CORPUS)])
    assert CORPUS / "strb" / "strb.alg" in everything and len(everything) == 25
    # every corpus directory now has its pseudocode: the .alg, never its hand-written .rta
    assert CORPUS / "phase_king" / "phase_king.alg" in everything
    assert CORPUS / "floodset" / "floodset.alg" in everything
    assert not any(p.suffix == ".rta" for p in everything)
    assert all(p.suffix in (".alg", ".rta", ".ta") for p in everything)


def test_an_unusable_cache_directory_falls_back_to_no_cache(cli, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    r = cli("verify", "strb", "--cache-dir", blocker / "cache", "--report-dir", tmp_path / "r")
    assert r.code == 0, r.err
    assert "warning: cache directory" in r.err and "running without a cache" in r.err
    assert " off" in r.out or "off\n" in r.out


def test_bad_input_in_one_algorithm_does_not_hide_the_others(cli, tmp_path):
    (tmp_path / "algs").mkdir()
    (tmp_path / "algs" / "good.alg").write_text(STRB_ALG)
    (tmp_path / "algs" / "bad.alg").write_text(STRB_ALG.replace("algorithm STRB", "algorithm STRB )"))
    r = cli("verify", tmp_path / "algs", "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert r.code == 2
    assert "bad.alg:" in r.err and "^" in r.err and "Traceback" not in r.err
    assert "BAD INPUT" in r.out and "good" in r.out and "HOLDS" in r.out
    html = (tmp_path / "r" / "report.html").read_text()
    assert "bad input: nothing was checked" in html and "bad.alg:2:16" in html


def test_emit_writes_the_models_beside_the_report(cli, tmp_path):
    r = cli("verify", "strb", "--emit", "promela,smtlib,nuxmv", "--cache-dir", tmp_path / "c",
            "--report-dir", tmp_path / "r")
    assert r.code == 0, r.err
    assert (tmp_path / "r" / "strb.pml").read_text().startswith("/*")
    assert "MODULE main" in (tmp_path / "r" / "strb.smv").read_text()
    assert sorted(p.name for p in (tmp_path / "r" / "strb.smtlib").iterdir())
    assert "smallest parameter values" in r.err
    bad = cli("verify", "strb", "--emit", "pdf", "--cache-dir", tmp_path / "c")
    assert bad.code == 2 and "unknown target 'pdf'" in bad.err


def test_an_unknown_property_is_a_usage_error(cli, tmp_path):
    r = cli("verify", "strb", "-p", "agreement", "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert r.code == 2 and "no verified algorithm has the property 'agreement'" in r.err


# ----------------------------------------------------------------------------- executors


def _comparable(cache_dir: Path) -> dict[str, object]:
    """Cache entries without what depends on the machine's speed (times)."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if "time" not in k and k != "details"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    out = {}
    for path in entries(cache_dir):
        value = json.loads(json.loads(path.read_text())["value"])
        out[path.stem] = strip(value)
    return out


def test_process_pool_gives_the_same_verdicts_and_entries(tmp_path):
    files = resolve(["strb", "frb", "nbacg"])
    one = verify(files, VerifyOptions(cache_dir=tmp_path / "c1", report_dir=tmp_path / "r"))
    two = verify(files, VerifyOptions(cache_dir=tmp_path / "c2", report_dir=tmp_path / "r", jobs=2))
    assert verdicts(one) == verdicts(two)
    assert _comparable(tmp_path / "c1") == _comparable(tmp_path / "c2")


def test_dask_executor_gives_the_same_verdicts_and_entries(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is a test dependency")
    files = resolve(["strb", "frb"])
    local = verify(files, VerifyOptions(cache_dir=tmp_path / "c1", report_dir=tmp_path / "r"))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address.replace("tcp://", "dask://")
        remote = verify(files, VerifyOptions(cache_dir=tmp_path / "c2", report_dir=tmp_path / "r",
                                             executor=address))
    assert verdicts(local) == verdicts(remote)
    assert _comparable(tmp_path / "c1") == _comparable(tmp_path / "c2")


def test_a_cached_lock_step_violation_is_replayed_before_use(tmp_path):
    """Synchronous automata: the cached run is replayed by the lock-step simulator; a forged
    one is rebuilt, and the HTML report shows the rounds."""
    path = tmp_path / "rb.rta"
    path.write_text((CORPUS / "rb_sync" / "rb_sync.rta").read_text().replace("t >= f;", "t + 1 >= f;"))
    first = verify([path], opts(tmp_path))
    assert verdicts(first)[("rb", "unforgeability")] == "violated"
    second = verify([path], opts(tmp_path))
    assert records(second)[("check", "unforgeability")].cache == "hit"
    from tactl.driver.cache import digest

    for entry in entries(tmp_path / "cache"):
        doc = json.loads(entry.read_text())
        value = json.loads(doc["value"])
        run = value.get("result", {}).get("details", {}).get("run") if isinstance(value, dict) else None
        if run:
            run["steps"][0] = [[0, 99]]  # 99 processes along one rule: not the configuration
            doc["value"] = json.dumps(value)
            doc["digest"] = digest(doc["value"])
            entry.write_text(json.dumps(doc))
    third = verify([path], opts(tmp_path))
    rec = records(third)[("check", "unforgeability")]
    assert rec.cache == "miss" and "no longer replays" in rec.why
    assert verdicts(third)[("rb", "unforgeability")] == "violated"


def test_the_html_report_shows_lock_step_rounds(cli, tmp_path):
    path = tmp_path / "rb.rta"
    path.write_text((CORPUS / "rb_sync" / "rb_sync.rta").read_text().replace("t >= f;", "t + 1 >= f;"))
    r = cli("verify", path, "--cache-dir", tmp_path / "c", "--report-dir", tmp_path / "r")
    assert r.code == 1
    html = (tmp_path / "r" / "report.html").read_text()
    assert "lock-step rounds" in html and "counterexample in lock-step rounds" in html
