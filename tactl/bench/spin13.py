"""The spin13 table: SPIN on tactl's Promela models of Srikanth–Toueg's broadcast next
to the experts' hand-written models of ByMC's benchmark repository (konnov/fault-tolerant-
benchmarks, ``spin13/fixed-size/``: ``make spin13`` fetches them into the cache; they are never
copied into this repository). Every model is run with the same pan options
(``tactl.engines.pan_profile``), one property at a time, each with its own time budget.

Per (model, n, t, f, property): the hand-written model's states / memory / wall, tactl's process
model's, tactl's counter model's, and the ratios process/hand. The hand files have no ``ltl``
blocks: the formulas of their parameterized sources (``spin13/bcast-byz.pml``,
``bcast-omit.pml``) are appended, with the fairness block as the antecedent of the liveness ones.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tactl.driver.pipeline import translate_loaded
from tactl.engines import checkers, spin, spin_process
from tactl.engines.pan_profile import OPTIMIZE_FROM, PanProfile, run_pan
from tactl.engines.spin import parse_pan
from tactl.ir.eltl.formula import temporal_query
from tactl.ir.rta.reader import RtaReadResult, read_rta

REPO = Path(__file__).resolve().parents[2]
SPIN13_TIMEOUT_S = 120.0  # per property and model

# The omission model of the SPIN'13 experiments: STRB with the thresholds of benign faults (one
# ECHO is evidence: relay on 1, accept on t + 1), n > 2t (tests/engines/test_spin_pattern.py says why).
_OMISSION_EDITS = (("faults byzantine(f);", "faults omission(f);"), ("n > 3 * t;", "n > 2 * t;"),
                   ("received(ECHO) >= t + 1", "received(ECHO) >= 1"),
                   ("received(ECHO) >= n - t", "received(ECHO) >= t + 1"))

_HAND_LTL = {
    "byz": {
        "unforgeability": ("unforg", False, "[]((prec_init && prec_unforg) -> []!ex_acc)"),
        "correctness": ("corr", True, "[]((prec_init && prec_corr) -> <>(ex_acc))"),
        "relay": ("relay", True, "[](ex_acc -> <>all_acc)"),
    },
}
_HAND_LTL["omit"] = _HAND_LTL["byz"]
_HAND_FAIRNESS = {"byz": "[]<>(!in_transit)",
                  "omit": "([]<>(!in_transit) && [](some_ri -> <>no_ri))"}


@dataclass(frozen=True)
class Case:
    model: str                 # "byz" or "omit"
    params: dict[str, int]     # n, t, f

    @property
    def hand_file(self) -> str:
        n, t, f = self.params["n"], self.params["t"], self.params["f"]
        if self.model == "byz":
            return f"bcast-byz-good-F={f},T={t},N={n}.pml"
        return f"bcast-omit-good-To={t},Fo={f},N={n}.pml"


CASES = (
    Case("byz", {"n": 7, "t": 2, "f": 2}),
    Case("omit", {"n": 5, "t": 2, "f": 2}),
    Case("byz", {"n": 5, "t": 1, "f": 1}),
    Case("byz", {"n": 6, "t": 1, "f": 1}),
    Case("byz", {"n": 7, "t": 1, "f": 1}),
)
PROPERTIES = ("unforgeability", "correctness", "relay")


@dataclass
class Figures:
    verdict: str
    states: int | None = None
    memory_mb: float | None = None
    wall_s: float | None = None
    receive: str = ""  # the process model's receive steps: forced or lazy

    def cell(self) -> str:
        if self.states is None:
            return f"{self.verdict:>26}"
        return f"{self.states:>10,} {self.memory_mb or 0:>7.1f} {self.wall_s or 0:>6.1f}"


def spin13_dir() -> Path:
    """Where the spin13 models are: ``$TACTL_SPIN13``, else the cache ``make spin13`` fills."""
    env = os.environ.get("TACTL_SPIN13")
    return Path(env) if env else Path.home() / ".cache" / "tactl" / "benchmarks" / "spin13"


def strb_text(model: str) -> str:
    text = (REPO / "corpus" / "strb" / "strb.rta").read_text()
    if model == "omit":
        for old, new in _OMISSION_EDITS:
            text = text.replace(old, new)
    return text


def run_hand(path: Path, model: str, prop: str, timeout_s: float) -> Figures:
    """The hand-written model with the property's ltl block appended, under tactl's pan options."""
    name, liveness, formula = _HAND_LTL[model][prop]
    if liveness:
        formula = f"({_HAND_FAIRNESS[model]}) -> ({formula})"
    processes = path.read_text().count("proctype ")  # one active[1] proctype per process
    profile = PanProfile(liveness=liveness, optimize=processes >= OPTIMIZE_FROM)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tactl-spin13-") as tmp:
        where = Path(tmp)
        (where / "model.pml").write_text(path.read_text() + f"\nltl {name} {{ {formula} }}\n")
        def run(argv: list[str]) -> subprocess.CompletedProcess:
            left = timeout_s - (time.perf_counter() - started)
            return subprocess.run(argv, cwd=where, capture_output=True, text=True, errors="replace",
                                  timeout=max(left, 0.1))

        try:
            for argv in ([str(checkers.require("spin")), "-a", "model.pml"],
                         [str(checkers.require("cc")), *profile.cc_flags(), "-o", "pan", "pan.c"]):
                if run(argv).returncode != 0:
                    return Figures(f"{Path(argv[0]).name} failed")
            proc = run_pan(run, profile, "./pan", name, 1_000_000)
        except subprocess.TimeoutExpired:
            return Figures("timeout")
    report = parse_pan(proc.stdout)
    verdict = "unknown" if report.errors is None or report.incomplete else \
        ("holds" if report.errors == 0 else "violated")
    return Figures(verdict, report.states_stored, report.memory_mb, time.perf_counter() - started)


def _tactl(results, started: float) -> Figures:
    (r,) = results
    verdict = r.verdict if r.verdict != "unknown" or "timeout" not in (r.reason or "") else "timeout"
    return Figures(verdict, r.details.get("states"), r.details.get("memory_mb"),
                   time.perf_counter() - started, str(r.details.get("receive", "")))


def spin13_table(timeout_s: float = SPIN13_TIMEOUT_S, directory: Path | None = None) -> bool:
    """One row per (model, n, t, f, property); False when the models disagree on a verdict."""
    directory = directory or spin13_dir()
    fixed = directory / "fixed-size"
    if not fixed.is_dir():
        print(f"\nspin13 table skipped: no fixed-size/ in {directory} (make spin13 fetches the "
              "hand-written models, or set TACTL_SPIN13)")
        return True
    if checkers.spin() is None or checkers.c_compiler() is None:
        print("\nspin13 table skipped: SPIN or a C compiler is missing (make tools)")
        return True
    cols = f"{'states':>10} {'MB':>7} {'wall s':>6}"
    header = (f"{'model':<5} {'n,t,f':<6} {'property':<15} | hand {cols} | process {cols} | "
              f"counter {cols} | {'process/hand: states':>20} {'MB':>5} {'wall':>5} | verdicts "
              "hand/process/counter (process receive steps)")
    print("\n" + header)
    print("-" * len(header))
    ok = True
    for case in CASES:
        hand_path = fixed / case.hand_file
        text = strb_text(case.model)
        loaded = RtaReadResult(read_rta(text).rta, f"strb-{case.model}", text)
        ta = translate_loaded(loaded).ta
        for prop in PROPERTIES:
            query = temporal_query(ta, next(p for p in ta.properties if p.name == prop))
            hand = run_hand(hand_path, case.model, prop, timeout_s) if hand_path.exists() \
                else Figures("absent")
            started = time.perf_counter()
            process = _tactl(spin_process.check_properties(loaded.rta, ta, [query], case.params,
                                                           timeout_s=timeout_s), started)
            started = time.perf_counter()
            counter = _tactl(spin.check_properties(ta, [query], case.params, timeout_s=timeout_s),
                             started)
            decided = {f.verdict for f in (hand, process, counter) if f.verdict in ("holds", "violated")}
            ok &= len(decided) <= 1
            both = {hand.verdict, process.verdict} <= {"holds", "violated"}
            ratios = " ".join(
                f"{_ratio(getattr(process, a), getattr(hand, a)) if both else '-':>{w}}"
                for a, w in (("states", 20), ("memory_mb", 5), ("wall_s", 5)))
            values = ",".join(str(v) for v in case.params.values())
            print(f"{case.model:<5} {values:<6} {prop:<15} | {hand.cell():>31} | {process.cell():>34} | "
                  f"{counter.cell():>34} | {ratios} | {hand.verdict}/{process.verdict}/{counter.verdict}"
                  f"{f' ({process.receive})' if process.receive else ''}",
                  flush=True)
    return ok


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or not b:
        return "-"
    return f"{a / b:.2f}"
