"""The large-automata table (``python -m tactl.bench --only large``).

Inputs, read where they are and never copied into the repository: the three TAs ByMC generated
from its Promela models (``../shared/benchmarks/bymc-isola18-generated/``: nbacr, cc_case1,
c1cs_case1), the other cases of cc ByMC generated, which TACO publishes (cc_case2/3/4, up to
6,928 rules: ``make taco-generated`` fetches them into the cache, :func:`taco_generated_dir`) and
the one-round DBFT and Tendermint pseudocode models (``../shared/findings/large-alg/``). Per (file, property): the locations and rules, the rules
left after the reductions before encoding (``passes/ta_to_ta/simplify_guards.py``,
``passes/ta_to_ta/shortcuts.py``; every location is kept), then for a separate
``tactl check FILE -p P --json`` process — with the reductions ("after") and with
``TACTL_NO_REDUCTION=1`` ("before", a shorter time limit; ``TACTL_BENCH_LARGE_BEFORE=0`` leaves it
out) — the verdict, the wall time with process start, the CPU time (user + system: on a loaded
machine the wall time is mostly waiting) and the peak RSS. Target: every property decided within
30 s of CPU. A verdict that differs between the two runs (both decided) fails the table.

A HOLDS is cross-checked by a second engine: ``--engine chc`` (Spacer's invariant, re-checked by z3
and cvc5) in a process of its own, its verdict and CPU in the last columns
(``TACTL_BENCH_LARGE_CHC=0`` leaves it out); a chc verdict that contradicts the first run's fails
the table too. A VIOLATED needs no second engine: the simulator replayed its run on the original
automaton (``tactl.engines.reduced``), or it would not be VIOLATED.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tactl.driver.inputs import load_automaton
from tactl.engines import reduced
from tactl.ir.eltl.formula import TemporalQuery, temporal_query

TARGET_S = 30.0
BEFORE_TIMEOUT_S = 60.0  # the unreduced run: enough to show where it was, not to wait for it
GENERATED = ("nbacr.ta", "cc_case1.ta", "c1cs_case1.ta")
TACO_GENERATED = ("cc_case2.ta", "cc_case3.ta", "cc_case4.ta")
LARGE_ALG = ("dbft_round.alg", "tendermint_round.alg")
DECIDED = ("holds", "violated")


def taco_generated_dir() -> Path:
    """``$TACTL_TACO/benchmarks/ByMC/isola18/promela`` (a TACO checkout), else the cache that
    ``make taco-generated`` fills."""
    env = os.environ.get("TACTL_TACO")
    if env:
        return Path(env) / "benchmarks" / "ByMC" / "isola18" / "promela"
    return Path.home() / ".cache" / "tactl" / "benchmarks" / "taco-generated"


def large_inputs(shared: Path) -> tuple[list[Path], list[str]]:
    """The files present, and a line for each one that is absent."""
    wanted = [shared / "benchmarks" / "bymc-isola18-generated" / f for f in GENERATED]
    wanted += [taco_generated_dir() / f for f in TACO_GENERATED]
    wanted += [shared / "findings" / "large-alg" / f for f in LARGE_ALG]
    return [p for p in wanted if p.is_file()], [f"{p} (absent)" for p in wanted if not p.is_file()]


@dataclass
class Run:
    verdict: str
    wall_s: float
    cpu_s: float  # user + system: what the process itself used, whatever the machine's load
    peak_mb: float


@dataclass
class LargeRow:
    name: str
    prop: str
    locations: int
    rules: int
    rules_after: int
    after: Run
    before: Run | None
    second: Run | None = None  # --engine chc on a HOLDS (the cross-check)


def _run(path: Path, prop: str, timeout_s: float, reduce: bool, timed, engine: str | None = None) -> Run:
    exe = Path(sys.executable).with_name("tactl")
    env = dict(os.environ)
    env.pop(reduced.OFF, None)
    if not reduce:
        env[reduced.OFF] = "1"
    code, out, wall, usage = timed([str(exe), "check", str(path), "-p", prop, "--json",
                                    "--timeout", f"{timeout_s:g}", *(("--engine", engine) if engine else ())], env)
    try:
        result = json.loads(out)["properties"][0]
        verdict = result["verdict"]
        if verdict == "unknown" and "timeout" in (result.get("reason") or ""):
            verdict = "timeout"
    except (ValueError, KeyError, IndexError, TypeError):
        verdict = f"exit {code}"
    return Run(verdict, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def measure_large(path: Path, timeout_s: float, before: bool, timed, second: bool = False) -> Iterator[LargeRow]:
    """A row per property of ``path``, each as soon as it is measured; ``second``: a HOLDS is
    decided again by the chc engine."""
    ta = load_automaton(path).ta
    for prop in ta.properties:
        query = temporal_query(ta, prop)
        kept = len(reduced.reduce_for(ta, query, None).kept) if isinstance(query, TemporalQuery) else len(ta.rules)
        after = _run(path, prop.name, timeout_s, True, timed)
        old = _run(path, prop.name, min(timeout_s, BEFORE_TIMEOUT_S), False, timed) if before else None
        chc = _run(path, prop.name, timeout_s, True, timed, "chc") if second and after.verdict == "holds" else None
        yield LargeRow(path.name, prop.name, len(ta.locations), len(ta.rules), kept, after, old, chc)


def large_table(shared: Path, timeout_s: float, timed) -> bool:
    """Print the table; False when a verdict changed with the reduction. ``timed(args, env)``
    runs a process and returns (exit status, stdout, wall s, its ``os.wait4`` resource usage)."""
    files, absent = large_inputs(shared)
    if not files:
        print("\nlarge table skipped: none of its files found: " + "; ".join(absent))
        return True
    before = os.environ.get("TACTL_BENCH_LARGE_BEFORE", "1") != "0"
    second = os.environ.get("TACTL_BENCH_LARGE_CHC", "1") != "0"
    header = (f"{'large':<21} {'property':<19} {'locs':>4} {'rules':>5} {'after':>5} "
              f"{'verdict':<9} {'wall s':>6} {'cpu s':>6} {'MB':>5} | "
              f"{'before (no reduction)':<21} {'wall s':>6} {'cpu s':>6} {'MB':>5} | "
              f"{'chc':<9} {'cpu s':>6}")
    print("\n" + header)
    print("-" * len(header))
    for line in absent:
        print(f"skipped: {line}")
    ok, rows = True, []
    for path in files:
        for r in measure_large(path, timeout_s, before, timed, second):
            rows.append(r)
            old, chc = r.before, r.second
            if old and old.verdict in DECIDED and r.after.verdict in DECIDED and old.verdict != r.after.verdict:
                ok = False
            if chc and chc.verdict in DECIDED and chc.verdict != r.after.verdict:
                ok = False
            b = f"{old.verdict:<21} {old.wall_s:>6.1f} {old.cpu_s:>6.1f} {old.peak_mb:>5.0f}" if old \
                else f"{'-':<21} {'-':>6} {'-':>6} {'-':>5}"
            c = f"{chc.verdict:<9} {chc.cpu_s:>6.1f}" if chc else f"{'-':<9} {'-':>6}"
            print(f"{r.name:<21} {r.prop:<19} {r.locations:>4} {r.rules:>5} {r.rules_after:>5} "
                  f"{r.after.verdict:<9} {r.after.wall_s:>6.1f} {r.after.cpu_s:>6.1f} {r.after.peak_mb:>5.0f} | {b} | {c}",
                  flush=True)
    within = [r for r in rows if r.after.verdict in DECIDED and r.after.cpu_s <= TARGET_S]
    slowest = max(rows, key=lambda r: r.after.cpu_s)
    held = [r for r in rows if r.after.verdict == "holds"]
    crossed = [r for r in held if r.second and r.second.verdict == "holds"]
    print(f"large: {len(within)} of {len(rows)} properties decided within {TARGET_S:g} s cpu "
          f"(slowest {slowest.name} {slowest.prop}: {slowest.after.cpu_s:.1f} s cpu, "
          f"{slowest.after.wall_s:.1f} s wall; load average {os.getloadavg()[0]:.1f})"
          + (f"; chc holds too on {len(crossed)} of {len(held)} HOLDS" if second else "")
          + ("" if ok else "; A VERDICT CHANGED WITH THE REDUCTION OR THE ENGINE"))
    return ok
