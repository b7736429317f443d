"""Two tables of the engine for automata outside the steady-schema fragment (tactl/engines/chc.py):

* ``taco-resets`` — TACO's reset benchmarks (``.eta``, pleich/TACO's
  ``benchmarks/reset-benchmarks``; ``make taco-resets`` fetches them into the cache, never into
  the repository): one ``tactl check FILE -p P --json`` process per property, as a user runs it
  (no ``--engine``: check chooses), with its verdict, the engine that decided it, wall time and
  peak memory, beside TACO's published verdict and best time from ``peer_timings.json`` (their
  machine, stated in the header); TACO checks no liveness, so a liveness row (``BVTerm``, and
  those of our own reset automata in tests/data/resets) is set beside the explicit engine's
  verdict at small sizes instead;
* ``chc-cross-check`` — every safety property of the ISOLA'18 automata and of random19 decided
  by the parametric engine and by ``--engine chc``, verdicts side by side: two engines that share
  no encoding must agree wherever both decide.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from tactl.bench import REPO
from tactl.bench.checker import check_processes
from tactl.bench.random19 import cached_inputs, random19_dir
from tactl.driver.inputs import load_automaton
from tactl.ir.eltl.formula import TemporalQuery, temporal_query

TACO_TIMEOUT_S = 300.0  # per property: rb-reset_V1 is the longest TACO row (145 s on their machine)
CROSS_TIMEOUT_S = 120.0  # per property and engine
# Our own automata with resets and liveness properties (what TACO's files have little of)
OWN_RESETS = REPO / "tests" / "data" / "resets"
# The sizes at which a liveness verdict is cross-checked by the explicit engine
LIVENESS_BOUND = 4
# TACO's "safe?" column against tactl's verdicts
_TACO_VERDICT = {"safe": "holds", "unsafe": "violated"}


def taco_resets_dir() -> Path:
    """``$TACTL_TACO/benchmarks/reset-benchmarks`` (a TACO checkout), else the cache that
    ``make taco-resets`` fills."""
    env = os.environ.get("TACTL_TACO")
    if env:
        return Path(env) / "benchmarks" / "reset-benchmarks"
    return Path.home() / ".cache" / "tactl" / "benchmarks" / "taco-resets"


def taco_published() -> tuple[dict[str, dict], str]:
    """TACO's published row per file and the entry's statement of where it was measured."""
    entry = json.loads(files("tactl.bench").joinpath("peer_timings.json").read_text())["taco_resets"]
    return {row["file"]: row for row in entry["rows"]}, entry["machine"]


@dataclass
class ResetRow:
    name: str
    locations: int
    rules: int
    prop: str
    kind: str
    verdict: str
    engine: str
    wall_s: float
    peak_mb: float
    taco: dict | None  # the published row of the file, None if the table has none

    @property
    def taco_verdict(self) -> str:
        return "-" if self.taco is None or self.kind != "safety" else self.taco["verdict"]

    @property
    def agrees(self) -> str:
        if self.taco_verdict == "-":
            return "-"
        return "yes" if _TACO_VERDICT[self.taco_verdict] == self.verdict else "NO"


def _result(report: dict | None, code: int) -> tuple[str, str, str, str]:
    """Verdict, engine, kind and ELTL class of a one-property ``tactl check --json`` report."""
    try:
        result = report["properties"][0]  # type: ignore[index]
    except (TypeError, KeyError, IndexError):
        return f"exit {code}", "-", "?", "?"
    verdict = result["verdict"]
    if verdict == "unknown" and "timeout" in result.get("reason", ""):
        verdict = "timeout"
    return verdict, result.get("engine", "-"), result.get("kind", "?"), result.get("class", "?")


def taco_table(timeout_s: float, directory: Path | None = None, own: Path | None = None) -> bool:
    """Print the TACO reset-benchmark table; False when a verdict contradicts TACO's, a liveness
    verdict contradicts the explicit engine's at small sizes, or a check process failed. Skipped,
    with the reason, when TACO's files are absent; the ``.eta`` files of ``own`` (our reset
    automata with liveness, :data:`OWN_RESETS`) follow TACO's, without TACO figures."""
    paths = cached_inputs(directory or taco_resets_dir(), "*.eta", "TACO reset benchmarks table",
                          "make taco-resets fetches them, or set TACTL_TACO to a TACO checkout")
    if not paths:
        return True
    published, machine = taco_published()
    print(f"\nTACO reset benchmarks (tactl here, {timeout_s:g} s per property; TACO: published, {machine}; "
          f"liveness: TACO has none, so tactl's verdict is set beside --engine explicit --bound "
          f"{LIVENESS_BOUND} instead)")
    header = f"{'file':<26} {'locs':>4} {'rules':>5} {'property':<12} {'verdict':<11} {'engine':<10} " \
             f"{'wall s':>7} {'peak MB':>7}  {'TACO':<7} {'TACO s':>7} {'best by':<10} same"
    print(header)
    print("-" * len(header))
    ok, rows = True, []
    own_paths = sorted(own.glob("*.eta")) if own is not None and own.is_dir() else []
    for path in [*paths, *own_paths]:
        ta = load_automaton(path).ta
        label = path.name if path in paths else f"{path.parent.name}/{path.name}"
        for prop, code, report, wall, peak in check_processes(path, timeout_s):
            verdict, engine, kind, _ = _result(report, code)
            row = ResetRow(label, len(ta.locations), len(ta.rules), prop, kind, verdict, engine,
                           wall, peak, published.get(path.name) if path in paths else None)
            rows.append(row)
            ok &= not verdict.startswith("exit") and row.agrees != "NO"
            if kind == "liveness":
                small, same = _small_sizes(path, prop, verdict, timeout_s)
                ok &= same != "NO"
                print(f"{label:<26} {row.locations:>4} {row.rules:>5} {prop:<12} {verdict:<11} {engine:<10} "
                      f"{wall:>7.2f} {peak:>7.1f}  no liveness in TACO; explicit <= {LIVENESS_BOUND}: "
                      f"{small}, same: {same}", flush=True)
                continue
            taco_s = f"{row.taco['best_s']:>7.2f}" if row.taco and kind == "safety" else f"{'-':>7}"
            best_by = row.taco["best_by"] if row.taco and kind == "safety" else "-"
            print(f"{label:<26} {row.locations:>4} {row.rules:>5} {prop:<12} {verdict:<11} {engine:<10} "
                  f"{wall:>7.2f} {peak:>7.1f}  {row.taco_verdict:<7} {taco_s} {best_by:<10} {row.agrees}",
                  flush=True)
    compared = [r for r in rows if r.agrees != "-"]
    same = [r for r in compared if r.agrees == "yes"]
    live = [r for r in rows if r.kind == "liveness"]
    decided = [r for r in live if r.verdict in ("holds", "violated", "holds vacuously")]
    print(f"TACO reset benchmarks: {len(same)} of {len(compared)} safety properties with TACO's "
          f"published verdict; {len(rows)} properties in {len(paths)} TACO files and {len(own_paths)} of ours; "
          f"liveness: {len(decided)} of {len(live)} decided for all sizes or violated")
    return ok


def _small_sizes(path: Path, prop: str, verdict: str, timeout_s: float) -> tuple[str, str]:
    """The explicit engine's verdict on ``prop`` at every size up to :data:`LIVENESS_BOUND`, and
    whether it agrees with ``verdict`` ("-" when one of them is not decided)."""
    [(_, code, report, _, _)] = list(check_processes(path, timeout_s, ("--engine", "explicit", "--bound",
                                                                      str(LIVENESS_BOUND)), (prop,)))
    small = _result(report, code)[0]
    if verdict not in ("holds", "violated") or small not in ("holds", "violated"):
        return small, "-"
    return small, "yes" if small == verdict else "NO"


def _safety_properties(path: Path) -> tuple[str, ...]:
    ta = load_automaton(path).ta
    out = []
    for prop in ta.properties:
        query = temporal_query(ta, prop)
        if isinstance(query, TemporalQuery) and query.kind == "safety":
            out.append(prop.name)
    return tuple(out)


def cross_check_inputs(shared: Path) -> list[tuple[str, Path]]:
    isola = shared / "benchmarks" / "bymc-isola18"
    found = [(f"isola18/{p.name}", p) for p in sorted(isola.glob("*.ta"))] if isola.is_dir() else []
    random19 = random19_dir()
    found += [(f"random19/{p.name}", p) for p in sorted(random19.glob("*.ta"))] if random19.is_dir() else []
    return found


def cross_check_table(shared: Path, timeout_s: float) -> bool:
    """Print the chc cross-check table; False when the two engines decide a property differently."""
    inputs = cross_check_inputs(shared)
    if not inputs:
        print(f"\nchc cross-check table skipped: neither {shared / 'benchmarks' / 'bymc-isola18'} nor "
              f"{random19_dir()} holds .ta files (make random19 fetches random19)")
        return True
    print(f"\nchc cross-check: every safety property by the parametric engine and by --engine chc "
          f"({timeout_s:g} s each)")
    header = f"{'input':<30} {'property':<18} {'class':<13} {'parametric':<16} {'s':>6} {'chc':<16} " \
             f"{'s':>6}  agree"
    print(header)
    print("-" * len(header))
    decided = {"holds", "violated", "holds vacuously"}
    ok, pairs, agree, undecided = True, 0, 0, {}
    for label, path in inputs:
        props = _safety_properties(path)
        if not props:
            continue
        ours = {p: (*_result(rep, code), wall) for p, code, rep, wall, _ in check_processes(path, timeout_s, (), props)}
        chc = {p: (*_result(rep, code), wall) for p, code, rep, wall, _ in
               check_processes(path, timeout_s, ("--engine", "chc"), props)}
        for prop in props:
            a, b = ours[prop], chc[prop]
            if a[0] in decided and b[0] in decided:
                pairs += 1
                same = a[0] == b[0]
                agree += same
                mark = "yes" if same else "NO"
                ok &= same
            else:
                mark = "-"
                for engine, verdict in (("parametric", a[0]), ("chc", b[0])):
                    if verdict not in decided:
                        undecided[f"{engine} {verdict}"] = undecided.get(f"{engine} {verdict}", 0) + 1
            ok &= not a[0].startswith("exit") and not b[0].startswith("exit")
            print(f"{label:<30} {prop:<18} {a[3]:<13} {a[0]:<16} {a[4]:>6.2f} {b[0]:<16} {b[4]:>6.2f}  {mark}",
                  flush=True)
    print(f"chc cross-check: {agree} of {pairs} properties decided by both engines agree"
          + "".join(f"; {n} {what}" for what, n in sorted(undecided.items())))
    return ok
