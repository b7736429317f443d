"""``python -m tactl.bench --only synt``: the OPODIS'17 synthesis benchmarks, tactl beside ByMC and the paper.

Per file of ``opodis17/ta/`` (:mod:`tactl.bench.opodis17`; ``make opodis17`` fetches them): the
unknowns and the size of their candidate space (:func:`space_size`); tactl's answer, from one
``tactl synthesize FILE --json`` process (the number of solutions and the set, shortened to their
thresholds, the excluded regions, the candidates checked, CPU seconds and peak memory); ByMC's
answer, recorded once by :mod:`tactl.bench.synthesis_bymc` (``opodis17_bymc.json``: the build as
``tools/build_bymc.sh`` makes it, and the one with its ``--synt`` change); what the paper reports
(``opodis17_published.json``); and "agree": equal solution sets, or the difference with the run
that settles it (:func:`explain`: the candidate only one tool accepts, instantiated and given to
``tactl check``; a violation comes with its parameters and a replayed counterexample).

The table is built by pure functions (:func:`build_row`, :func:`format_rows`) from the JSON of the
three sources, so that a test builds it from small hand-made JSON.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tactl.bench import peers
from tactl.bench.opodis17 import Published, opodis17_files, published
from tactl.bench.synthesis_bymc import COMPLETE, NO_SOLUTION, TIMEOUT, load_results
from tactl.driver.inputs import load_automaton
from tactl.ir.expr import Compare, Expr, const, names, substitute
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.ta.model import ThresholdAutomaton

SYNT_TIMEOUT_S = 600.0
SHOWN = 3   # solutions shown per cell; the rest are counted
Solution = dict[str, int]


# ------------------------------------------------------------------------------------ the space

def space_size(ta: ThresholdAutomaton) -> tuple[int | None, bool]:
    """The number of candidates: vectors of the unknowns within their bounds that satisfy the
    assumptions over unknowns alone, and whether the count is exact. Bounds (``lo <= x``,
    ``x <= hi``, ``x == c``) and equalities between two unknowns (``a2 == a3``) are counted exactly;
    any other constraint over unknowns makes the figure an upper bound (False). None: an unknown
    has no bound (the automaton is no synthesis input)."""
    unknowns = set(ta.unknowns)
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    parent = {u: u for u in unknowns}

    def find(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    exact = True
    for e in ta.assumptions:
        used = {n.name for n in names(e)}
        if not used or not used <= unknowns:
            continue
        bound = _bound(e)
        if bound is None:
            exact = False
        elif bound[0] == "eq2":
            parent[find(bound[1])] = find(bound[2])
        else:
            kind, x, c = bound
            if kind in ("ge", "eq"):
                lo[x] = max(lo.get(x, c), c)
            if kind in ("le", "eq"):
                hi[x] = min(hi.get(x, c), c)
    groups: dict[str, tuple[int | None, int | None]] = {}
    for u in unknowns:   # a group of equal unknowns ranges over the intersection of their bounds
        glo, ghi = groups.get(find(u), (None, None))
        ulo, uhi = lo.get(u), hi.get(u)
        groups[find(u)] = (ulo if glo is None else glo if ulo is None else max(glo, ulo),
                           uhi if ghi is None else ghi if uhi is None else min(ghi, uhi))
    size = 1
    for glo, ghi in groups.values():
        if glo is None or ghi is None:
            return None, exact
        size *= max(0, ghi - glo + 1)
    return size, exact


def _bound(e: Expr) -> tuple | None:
    """``("ge"|"le"|"eq", x, c)`` for a bound on one unknown, ``("eq2", x, y)`` for ``x == y``, else None."""
    if not isinstance(e, Compare) or e.op not in ("<=", ">=", "<", ">", "=="):
        return None
    try:
        diff = linearize(e.left) - linearize(e.right)   # diff op 0
    except NonLinearError:
        return None
    coeffs = diff.coeff_map
    if len(coeffs) == 2 and e.op == "==" and sorted(coeffs.values()) == [-1, 1] and diff.const == 0:
        x, y = sorted(coeffs)
        return ("eq2", x, y)
    if len(coeffs) != 1:
        return None
    [(x, a)] = coeffs.items()
    if abs(a) != 1:
        return None
    # a*x + k op 0  ->  x op' -k*a  (a = ±1)
    c = -diff.const * a
    op = e.op if a == 1 else {"<=": ">=", ">=": "<=", "<": ">", ">": "<", "==": "=="}[e.op]
    return {"<=": ("le", x, c), "<": ("le", x, c - 1), ">=": ("ge", x, c), ">": ("ge", x, c + 1),
            "==": ("eq", x, c)}[op]


# ------------------------------------------------------------------------------------ showing a solution

def thresholds(ta: ThresholdAutomaton, values: Mapping[str, int]) -> dict[str, str]:
    """Each define that mentions an unknown, with ``values`` put in and simplified (``"T + 1"``)."""
    unknowns = set(ta.unknowns)
    consts = {u: const(v) for u, v in values.items()}
    out = {}
    for d in ta.defines:
        body = ta.expand(d.expr)
        if not {n.name for n in names(body)} & unknowns:
            continue
        try:
            out[d.name] = str(linearize(substitute(body, consts)))
        except (NonLinearError, KeyError):
            out[d.name] = "?"
    return out


def show_solutions(ta: ThresholdAutomaton | None, solutions: list[Solution], shown: int = SHOWN) -> str:
    """The first ``shown`` solutions as their thresholds (``T+1, N-T``), then ``+k more``."""
    if not solutions:
        return "none"
    cells = []
    for s in sorted(solutions, key=lambda s: sorted(s.items()))[:shown]:
        if ta is not None:
            texts = list(thresholds(ta, s).values())
            cells.append(", ".join(t.replace(" ", "") for t in texts) if texts else _vector(s))
        else:
            cells.append(_vector(s))
    more = len(solutions) - shown
    return "; ".join(cells) + (f"; +{more} more" if more > 0 else "")


def _vector(s: Solution) -> str:
    return "(" + ",".join(str(v) for _, v in sorted(s.items())) + ")"


def _key(s: Solution) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(s.items()))


# ------------------------------------------------------------------------------------ tactl's side

@dataclass
class TactlSynthesis:
    """What ``tactl synthesize --json`` answered: ``status`` "complete", "incomplete" (stopped by its
    timeout: the solutions are those found), "error" (``note`` says why) or "not available"."""

    status: str
    solutions: list[Solution] = field(default_factory=list)
    regions: int = 0
    candidates: int = 0
    undecided: int = 0
    cpu_s: float | None = None
    peak_mb: float | None = None
    note: str = ""


def parse_tactl(code: int, stdout: str, timed_out: bool = False) -> TactlSynthesis:
    """The JSON report of ``tactl synthesize FILE --json`` (its shape: ``SynthesisResult.json`` in
    tactl/synth/result.py)."""
    try:
        report = json.loads(stdout)
        solutions = [{k: int(v) for k, v in s["values"].items()} for s in report["solutions"]]
    except (ValueError, TypeError, KeyError, AttributeError):
        return TactlSynthesis("timeout" if timed_out else "error", note=f"exit {code}, no JSON report")
    problems = report.get("problems") or []
    note = "; ".join([*(["stopped: " + report["stopped"]] if report.get("stopped") else []),
                      *(f"PROBLEM: {p}" for p in problems)])
    status = "error" if problems else "complete" if report.get("complete") else "incomplete"
    return TactlSynthesis(status, solutions, len(report.get("excluded", [])),
                          int(report.get("candidates_tried", 0)), len(report.get("undecided", [])), note=note)


def tactl_available() -> bool:
    """Whether this tactl has ``tactl synthesize`` (the ``tactl.synth`` package)."""
    return importlib.util.find_spec("tactl.synth") is not None


def run_tactl(path: Path, timeout_s: float) -> TactlSynthesis:
    """One ``tactl synthesize FILE --json --timeout T`` process, its CPU time and peak memory."""
    exe = Path(sys.executable).with_name("tactl")
    with tempfile.TemporaryDirectory(prefix="tactl-synt-") as tmp:
        done = peers.run_limited([str(exe), "synthesize", str(path.resolve()), "--json", "--timeout", f"{timeout_s:g}"],
                                 Path(tmp), timeout_s + 30)
    result = parse_tactl(done.code, done.stdout, done.timed_out)
    result.cpu_s, result.peak_mb = done.cpu_s, done.peak_mb
    return result


# ------------------------------------------------------------------------------------ agreement

def explain(path: Path, candidate: Solution, timeout_s: float) -> str:
    """Who is right about ``candidate``: the automaton with its values put in (``instantiate`` of
    passes/ta_to_ta/instantiate.py), checked by ``tactl check``; the first violated property with its
    parameters (its counterexample replayed), or "every property holds"."""
    try:
        from tactl.ir.ta.printer import print_ta  # lazy: only when two answers differ
        from tactl.passes.ta_to_ta.instantiate import instantiate  # lazy: from synth-core
    except ImportError:
        return "tactl cannot instantiate a candidate (passes/ta_to_ta/instantiate.py missing)"
    ta = load_automaton(path).ta
    exe = Path(sys.executable).with_name("tactl")
    with tempfile.TemporaryDirectory(prefix="tactl-synt-explain-") as tmp:
        inst = Path(tmp) / path.name
        inst.write_text(print_ta(instantiate(ta, candidate)))
        done = peers.run_limited([str(exe), "check", str(inst), "--json", "--timeout", f"{timeout_s:g}"],
                                 Path(tmp), timeout_s + 30)
    try:
        props = json.loads(done.stdout)["properties"]
    except (ValueError, TypeError, KeyError):
        return f"tactl check: exit {done.code}, no report"
    for p in props:
        if p["verdict"] == "violated":
            params = p.get("counterexample", {}).get("parameters", {})
            replayed = p.get("counterexample", {}).get("replayed")
            at = ", ".join(f"{k}={v}" for k, v in params.items())
            return f"{p['name']} violated at {at}" + (" (replayed)" if replayed else "")
    verdicts = {p["verdict"] for p in props}
    return "every property holds" if verdicts <= {"holds", "holds vacuously"} else \
        "verdicts " + ", ".join(f"{p['name']} {p['verdict']}" for p in props)


def agreement(tactl: TactlSynthesis | None, bymc: dict | None,
              explainer: Callable[[Solution], str] | None = None) -> str:
    """"yes" when both searches finished with the same set; else the first difference, explained by
    ``explainer`` (a candidate to who-is-right text), or why there is nothing to compare."""
    if tactl is None or tactl.status in ("not available", "error", "timeout"):
        return "-"
    if bymc is None or bymc["status"] not in (COMPLETE, NO_SOLUTION, TIMEOUT):
        return f"- (ByMC {bymc['status'] if bymc else 'not run'})"
    ours, theirs = {_key(s) for s in tactl.solutions}, {_key(s) for s in bymc["solutions"]}
    partial = bymc["status"] == TIMEOUT   # then ByMC's solutions so far must be among tactl's
    if partial and (tactl.status != "complete" or not theirs - ours):
        return f"- (ByMC stopped at its limit; its {len(theirs)} solution(s) so far are among tactl's)" \
            if tactl.status == "complete" else "- (ByMC stopped at its limit)"
    if ours == theirs:
        return "yes" if tactl.status == "complete" else "yes so far (tactl incomplete)"
    only_ours, only_theirs = [] if partial else sorted(ours - theirs), sorted(theirs - ours)
    parts = []
    for label, keys in (("tactl only", only_ours), ("ByMC only", only_theirs)):
        if keys:
            first = dict(keys[0])
            why = f": {explainer(first)}" if explainer else ""
            parts.append(f"{label} {len(keys)}, e.g. {_vector(first)}{why}")
    return "NO: " + "; ".join(parts)


# ------------------------------------------------------------------------------------ the table

@dataclass
class SyntRow:
    file: str
    unknowns: int
    space: str
    tactl: TactlSynthesis | None
    tactl_shown: str
    bymc_built: str           # the status of the build as tools/build_bymc.sh makes it
    bymc: dict | None         # the --synt build's run, as recorded
    bymc_shown: str
    paper: Published | None
    agree: str


def build_row(path: Path, ta: ThresholdAutomaton, tactl: TactlSynthesis | None, bymc_runs: Mapping[str, dict],
              paper: Mapping[str, Published], explainer: Callable[[Solution], str] | None = None) -> SyntRow:
    """One row from the three sources (``bymc_runs``: the recorded runs per build label)."""
    size, exact = space_size(ta)
    built = bymc_runs.get("as-built", {}).get("files", {}).get(path.name)
    fixed = bymc_runs.get("synt-patch", {}).get("files", {}).get(path.name)
    bymc_shown = "-" if fixed is None else show_solutions(ta, fixed["solutions"]) if fixed["solutions"] else "none"
    return SyntRow(path.name, len(ta.unknowns), "-" if size is None else f"{size:,}" if exact else f"<={size:,}",
                   tactl, "-" if tactl is None or tactl.status in ("not available", "error")
                   else show_solutions(ta, tactl.solutions),
                   built["status"] if built else "-", fixed, bymc_shown, paper.get(path.name),
                   agreement(tactl, fixed, explainer))


def _num(x: float | None, fmt: str = ".1f") -> str:
    return "-" if x is None else format(x, fmt)


def format_rows(rows: list[SyntRow]) -> list[str]:
    """The table's lines: one block of three lines per file (tactl, ByMC, paper), then agreement."""
    lines = []
    for r in rows:
        t = r.tactl
        lines.append(f"{r.file}  ({r.unknowns} unknowns, {r.space} candidates)")
        if t is None:
            lines.append("  tactl  not run")
        else:
            lines.append(f"  tactl  {t.status:<12} {len(t.solutions):>4} solutions  regions {t.regions}  "
                         f"candidates {t.candidates}  CPU {_num(t.cpu_s)} s  {_num(t.peak_mb, '.0f')} MB"
                         + (f"  undecided {t.undecided}" if t.undecided else "") + (f"  ({t.note})" if t.note else ""))
            lines.append(f"         {r.tactl_shown}")
        b = r.bymc
        built = f"as built: {r.bymc_built}"
        if b is None:
            lines.append(f"  ByMC   {built}; --synt build: not recorded")
        else:
            lines.append(f"  ByMC   {built}; --synt build: {b['status']}, {len(b['solutions'])} solutions, "
                         f"{b['candidates']} candidates, CPU {_num(b.get('cpu_s'))} s")
            lines.append(f"         {r.bymc_shown}")
        p = r.paper
        lines.append(f"  paper  {p.row}: solutions {p.solutions}; time {p.time}" if p else "  paper  -")
        lines.append(f"  agree  {r.agree}")
    return lines


def synthesis_table(timeout_s: float) -> bool:
    """Print the table; False when a tactl run fails or tactl and ByMC disagree."""
    files = opodis17_files()
    if not files:
        return True
    have_tactl = tactl_available()
    bymc_runs = load_results().get("builds", {})
    paper = published()
    print(f"\nsynthesis: the OPODIS'17 files; tactl synthesize ({timeout_s:g} s each"
          + ("" if have_tactl else ": NOT AVAILABLE in this tactl") + "), ByMC as recorded in "
          "tactl/bench/opodis17_bymc.json, the paper as in tactl/bench/opodis17_published.json")
    ok = True
    rows = []
    for path in files:
        ta = load_automaton(path).ta
        tactl = run_tactl(path, timeout_s) if have_tactl else TactlSynthesis("not available")
        row = build_row(path, ta, tactl, bymc_runs, paper, lambda c, p=path: explain(p, c, min(timeout_s, 120.0)))
        rows.append(row)
        print("\n".join(format_rows([row])), flush=True)
        ok &= tactl.status not in ("error", "timeout") and not row.agree.startswith("NO")
    agreeing = sum(r.agree.startswith("yes") for r in rows)
    both = [r for r in rows if r.agree.startswith("yes") and r.tactl and r.tactl.cpu_s and r.bymc
            and r.bymc.get("cpu_s")]
    cpu = (f"; CPU over the {len(both)} files both finished: tactl {sum(r.tactl.cpu_s for r in both):.1f} s, "
           f"ByMC {sum(r.bymc['cpu_s'] for r in both):.1f} s") if both else ""
    print(f"synthesis: {len(rows)} files; tactl and ByMC (its --synt build) agree on {agreeing}{cpu}")
    return ok
