"""The checker table (``python -m tactl.bench --only checker``): one row per property of the
ISOLA'18 files, our corpus and the checker's test automata (tests/data/check).

Per row: its ELTL class, cut points and steady segments, the verdict and SMT query count of a
separate ``tactl check FILE -p P --json`` process with its wall time (start-up included) and peak
RSS, and whether the z3 and cvc5 command-line solvers (tactl.engines.solvers) agree on the file(s)
``tactl emit --to smtlib`` writes for that property. The ISOLA'18 rows are held against the
targets below.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tactl.bench import REPO
from tactl.engines import solvers
from tactl.bench.measure import timed_process
from tactl.cli import main as tactl_main
from tactl.driver.inputs import load_automaton

CHECK_TARGET_S = 1.0  # ISOLA'18 safety properties: a whole `tactl check` process within a second
ELTL_TARGET_S = 5.0   # the other ISOLA'18 specifications (nested safety, liveness): each within 5 s, start-up included
_SOLVER_ANSWER = {solvers.UNSAT: "holds", solvers.SAT: "violated"}


@dataclass
class CheckRow:
    name: str
    rules: int
    locations: int
    prop: str
    verdict: str
    queries: str
    wall_s: float
    peak_mb: float
    emitted: bool
    z3: solvers.SolverRun | None  # None: not emitted, or a solver is not installed
    cvc5: solvers.SolverRun | None
    formula_class: str = "?"  # reachability | nested safety | liveness | propositional
    cuts: str = "-"           # cut points of the negation (the most of any branch)
    segments: str = "-"       # steady segments of the query (the most of any branch)

    @property
    def agree(self) -> bool:
        return self.z3 is not None and self.z3.decided and self.z3.answer == self.cvc5.answer

    @property
    def contradicts_check(self) -> bool:
        """Both solvers give one answer, and tactl check decided the other."""
        return self.agree and self.verdict in _SOLVER_ANSWER.values() and \
            _SOLVER_ANSWER[self.z3.answer] != self.verdict

    @property
    def agreement(self) -> str:
        if self.z3 is None:
            return "n/a"
        undecided = [r for r in (self.z3, self.cvc5) if not r.decided]
        if undecided:
            return ", ".join(f"{r.solver} {r.answer}" for r in undecided)
        if not self.agree:
            return "DISAGREE"
        return "agree, != check" if self.contradicts_check else "agree"


def check_inputs(shared: Path) -> list[tuple[str, Path]]:
    found = [(f"isola18/{p.name}", p) for p in sorted((shared / "benchmarks" / "bymc-isola18").glob("*.ta"))]
    found += [(f"corpus/{p.name}", p) for p in sorted((REPO / "corpus").rglob("*.ta"))]
    found += [(f"check/{p.name}", p) for p in sorted((REPO / "tests" / "data" / "check").glob("*.ta"))]
    # receive automata: the check process translates and certifies first (included in its time)
    found += [(f"corpus/{p.name}", p) for p in sorted((REPO / "corpus").rglob("*.rta"))]
    return found


def _emit(path: Path, out: Path) -> dict[str, Path]:
    """``tactl emit PATH --to smtlib -o OUT`` in-process; the emitted file of each property."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        tactl_main(["emit", str(path), "--to", "smtlib", "-o", str(out)])
    prefix = f"{path.stem}."
    return {f.name[len(prefix):-len(".smt2")]: f for f in out.glob(f"{prefix}*.smt2")}


def _combined(runs: list[solvers.SolverRun]) -> solvers.SolverRun:
    """One answer for a property emitted as several branch queries: sat if any branch is sat,
    unsat if all are, else the first undecided answer; times add up."""
    answers = [r.answer for r in runs]
    answer = solvers.SAT if solvers.SAT in answers else solvers.UNSAT if all(
        a == solvers.UNSAT for a in answers) else next(a for a in answers if a != solvers.UNSAT)
    return solvers.SolverRun(runs[0].solver, answer, sum(r.seconds for r in runs), runs[0].how,
                             "; ".join(r.message for r in runs if r.message))


def check_processes(path: Path, timeout_s: float, extra: tuple[str, ...] = (),
                    properties: tuple[str, ...] | None = None):
    """Per property of ``path`` (or of ``properties``): a separate ``tactl check FILE -p P
    --json`` process, with the options ``extra``; yields the property, the exit status, the
    process's JSON report (None if unreadable), wall time and peak RSS."""
    exe = Path(sys.executable).with_name("tactl")
    for prop in properties if properties is not None else (p.name for p in load_automaton(path).ta.properties):
        code, out, wall, peak = timed_process([str(exe), "check", str(path), "-p", prop, "--json",
                                               "--timeout", f"{timeout_s:g}", *extra])
        try:
            report = json.loads(out)
        except ValueError:
            report = None
        yield prop, code, report, wall, peak


def measure_checks(label: str, path: Path, workdir: Path, timeout_s: float,
                   cross_check: bool) -> list[CheckRow]:
    """One row per property of one input: a separate ``tactl check -p P --json`` process each."""
    ta = load_automaton(path).ta
    emitted = _emit(path, workdir / label.replace("/", "_"))
    rows = []
    for prop, code, report, wall, peak in check_processes(path, timeout_s):
        try:
            result = report["properties"][0]
            verdict, queries = result["verdict"], str(result.get("queries", "-"))
            details = result.get("details", {})
            cls = result.get("class", result["kind"])
        except (TypeError, KeyError, IndexError):
            verdict, queries, details, cls = f"exit {code}", "-", {}, "?"
        files = [f for name, f in sorted(emitted.items()) if name == prop or name.startswith(prop + ".branch")]
        runs = {s: _combined([solvers.run(s, f, timeout_s) for f in files]) for s in solvers.SOLVERS} \
            if files and cross_check else {}
        rows.append(CheckRow(label, len(ta.rules), len(ta.locations), prop, verdict, queries, wall, peak,
                             bool(files), runs.get("z3"), runs.get("cvc5"), cls,
                             str(details.get("cut_points", "-")), str(details.get("segments", "-"))))
    return rows


def checker_table(shared: Path, workdir: Path, timeout_s: float) -> bool:
    """Print the checker table and its summary; False when solvers disagree, fail, or contradict check."""
    found = {s: solvers.available(s) for s in solvers.SOLVERS}
    print("\nsolvers: " + "; ".join(f"{s} = {how or 'NOT AVAILABLE'}" for s, how in found.items()))
    cross_check = all(found.values())
    header = f"{'input':<28} {'rules':>5} {'locs':>4} {'property':<18} {'class':<13} {'cuts':>4} " \
             f"{'segs':>4} {'verdict':<11} {'SMT q':>5} {'check s':>7} {'peak MB':>7} {'z3 s':>5} " \
             f"{'cvc5 s':>6} z3 vs cvc5"
    print(header)
    print("-" * len(header))
    rows: list[CheckRow] = []
    for label, path in check_inputs(shared):
        file_rows = measure_checks(label, path, workdir, timeout_s, cross_check)
        for r in file_rows:
            times = f"{r.z3.seconds:>5.2f} {r.cvc5.seconds:>6.2f}" if r.z3 else f"{'-':>5} {'-':>6}"
            print(f"{r.name:<28} {r.rules:>5} {r.locations:>4} {r.prop:<18} {r.formula_class:<13} "
                  f"{r.cuts:>4} {r.segments:>4} {r.verdict:<11} {r.queries:>5} "
                  f"{r.wall_s:>7.2f} {r.peak_mb:>7.1f} {times} {r.agreement}")
        rows += file_rows
    emitted = [r for r in rows if r.emitted]
    agree = [r for r in emitted if r.agree]
    if not cross_check:
        print(f"\nz3 vs cvc5: not compared ({' and '.join(s for s, how in found.items() if not how)} "
              f"not installed); {len(emitted)} queries emitted")
    else:
        print(f"\nz3 vs cvc5: {len(agree)} of {len(emitted)} emitted queries agree")
    for r in emitted:
        if r.z3 and not r.agree:
            for run in (r.z3, r.cvc5):
                print(f"  {r.name} {r.prop}: {run.solver} ({run.how}) {run.answer} {run.message}".rstrip())
    contradicted = [r for r in emitted if r.contradicts_check]
    for r in contradicted:
        print(f"  {r.name} {r.prop}: both solvers say {r.z3.answer}, but tactl check says {r.verdict}")
    isola = [r for r in rows if r.name.startswith("isola18/")]
    if isola:
        for cls, target in (("reachability", CHECK_TARGET_S), (None, ELTL_TARGET_S)):
            group = [r for r in isola if (r.formula_class == "reachability") == (cls is not None)]
            if not group:
                continue
            worst = max(group, key=lambda r: r.wall_s)
            undecided = [r for r in group if r.verdict not in ("holds", "violated")]
            verdict = "met" if worst.wall_s <= target and not undecided else "NOT met"
            what = "reachability" if cls else "nested safety and liveness"
            print(f"ISOLA'18 {what}: {len(group) - len(undecided)} of {len(group)} decided, max "
                  f"check wall time {worst.wall_s:.2f} s ({worst.name} {worst.prop}) against the "
                  f"{target:g} s target: {verdict}")
    else:
        print("ISOLA'18: no rows (shared benchmarks not found)")
    return (len(agree) == len(emitted) or not cross_check) and not contradicted
