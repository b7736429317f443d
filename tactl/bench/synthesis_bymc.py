"""ByMC's own synthesis (``--chain synt``) on the OPODIS'17 files, recorded once for the ``synt`` table.

``python -m tactl.bench.synthesis_bymc --run [--bymc PATH] [--label NAME]`` runs ByMC 2.4.4 once per
file of the OPODIS'17 set (:func:`tactl.bench.opodis17.opodis17_dir`), one at a time, each in a fresh
temporary folder with a wall-clock limit (:func:`tactl.bench.peers.run_limited`: its process group is
killed at the limit), with the options of ByMC's own synthesis script (``syntpa-schema`` and
``script/mod-synt.sh`` of konnov/bymc):

    bymc.native --smt 'lib2|z3|-smt2|-in' --target none --chain synt --spec all
                -O synt.all=1 -O schema.noreachopt=1 -O schema.incremental=0 -l FILE

and writes what it printed, parsed by :func:`parse_synt`, into ``tactl/bench/opodis17_bymc.json``
under ``NAME`` (the build: ``as-built`` for ``tools/build_bymc.sh``, ``synt-patch`` for a build with
``--synt``, see ``docs/bench.md``). Why recorded and not live: the three BOSCO files take ByMC to the
limit, and ``make bench`` must not spend half an hour re-running a peer whose figures do not change.

:func:`parse_synt` is a pure function of ByMC's standard output, unit-tested on a small hand-written
output in ``tests/data/``.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tactl.bench import peers
from tactl.bench.opodis17 import opodis17_files

BYMC_SYNT_ARGS = ("--smt", "lib2|z3|-smt2|-in", "--target", "none", "--chain", "synt", "--spec", "all",
                  "-O", "synt.all=1", "-O", "schema.noreachopt=1", "-O", "schema.incremental=0")
RESULTS = Path(__file__).with_name("opodis17_bymc.json")
SYNT_TIMEOUT_S = 600.0

COMPLETE, NO_SOLUTION, STUCK, TIMEOUT, ERROR = "complete", "no solution", "stuck", "timeout", "error"

_SOLUTION = re.compile(r"^\s*> SOLUTION (\d+): (.*)$", re.M)
_NEXT = re.compile(r"^\s*> Next unknowns to try: ", re.M)
_CEXS = re.compile(r"^\s*> Collected (\d+) counterexamples in total", re.M)
_STUCK = re.compile(r"^\s*> REFINEMENT IS STUCK.*\n\s*> Unknowns vector: (.*)$", re.M)
_PAIR = re.compile(r"(\w+) = (\(?\s*-?\s*\d+\s*\)?)")


def parse_vector(text: str) -> dict[str, int]:
    """``a1 = 0, b1 = -1, c1 = (-4)`` as a dict (ByMC prints an unknowns vector so, after z3's model)."""
    return {name: int(value.strip("() ").replace(" ", "")) for name, value in _PAIR.findall(text)}


@dataclass
class BymcSynthesis:
    """What one ByMC synthesis run said: ``status`` is :data:`COMPLETE` (every candidate excluded or
    reported: the solution set is ByMC's whole answer), :data:`NO_SOLUTION`, :data:`STUCK` (the loop
    stopped because the next candidate equals the last one; ``stuck_at`` is it), :data:`TIMEOUT`
    (``solutions`` are the ones printed before the limit) or :data:`ERROR` (``note`` says why)."""

    status: str
    solutions: list[dict[str, int]] = field(default_factory=list)
    candidates: int = 0          # "> Next unknowns to try" lines: candidates model-checked
    counterexamples: int | None = None
    stuck_at: dict[str, int] | None = None
    note: str = ""
    wall_s: float | None = None
    cpu_s: float | None = None
    peak_mb: float | None = None


def parse_synt(stdout: str, stderr: str = "", timed_out: bool = False) -> BymcSynthesis:
    """ByMC's synthesis outcome from its output (``taSyntPlugin.ml`` prints every line read here)."""
    solutions = [parse_vector(m.group(2)) for m in _SOLUTION.finditer(stdout)]
    candidates = len(_NEXT.findall(stdout))
    cexs = _CEXS.search(stdout)
    count = int(cexs.group(1)) if cexs else None
    stuck = _STUCK.search(stdout)
    if timed_out:
        return BymcSynthesis(TIMEOUT, solutions, candidates, count)
    if stuck:
        return BymcSynthesis(STUCK, solutions, candidates, count, parse_vector(stuck.group(1)),
                             "the solver's next candidate equals the last one tried")
    if "NO SOLUTION EXIST" in stdout:
        return BymcSynthesis(NO_SOLUTION, solutions, candidates, count)
    if re.search(r"> Found \d+ solutions", stdout):
        return BymcSynthesis(COMPLETE, solutions, candidates, count)
    exc = re.search(r"^(?:Exception|Fatal error): (.*)$", stderr, re.M)
    return BymcSynthesis(ERROR, solutions, candidates, count,
                         note=exc.group(1)[:80] if exc else "no end-of-search line in ByMC's output")


def run_synt(binary: Path, path: Path, timeout_s: float) -> tuple[BymcSynthesis, str]:
    """One synthesis run of ``binary`` on ``path``; the parsed outcome and ByMC's standard output."""
    with tempfile.TemporaryDirectory(prefix="bymc-synt-") as tmp:
        done = peers.run_limited([str(binary), *BYMC_SYNT_ARGS, "-l", str(path.resolve())], Path(tmp), timeout_s)
    result = parse_synt(done.stdout, done.stderr, done.timed_out)
    result.wall_s, result.peak_mb = round(done.wall_s, 2), done.peak_mb
    # a killed run's CPU time is unknown: wait4 on the killed GNU time counts none of ByMC's
    result.cpu_s = None if done.timed_out else round(done.cpu_s, 2)
    return result, done.stdout


def load_results(path: Path = RESULTS) -> dict:
    """The recorded runs: ``{"about": {...}, "builds": {label: {"about": {...}, "files": {name: run}}}}``."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"about": {}, "builds": {}}


def _machine() -> str:
    try:
        cores = subprocess.run(["nproc"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        cores = "?"
    return f"{platform.machine()}, {cores} cores, {platform.system()} {platform.release()}"


def record(binary: Path, label: str, files: list[Path], timeout_s: float, out: Path = RESULTS,
           logs: Path | None = None) -> dict:
    """Run ByMC on ``files`` one after the other and store the outcomes under ``label`` in ``out``
    (other labels are kept); ``logs``: a folder to keep each run's standard output in."""
    data = load_results(out)
    data["about"] = {
        "what": "ByMC 2.4.4's own synthesis on opodis17/ta/ of konnov/fault-tolerant-benchmarks, "
                "recorded by python -m tactl.bench.synthesis_bymc --run",
        "command": "bymc.native " + " ".join(f"'{a}'" if "|" in a else a for a in BYMC_SYNT_ARGS) + " -l FILE",
        "limit_s": timeout_s,
        "times": "wall and CPU seconds (user + system, z3 children included) of the whole ByMC process; "
                 "the machine is shared, so wall times are inflated"}
    build_info = binary.parent.parent / "BUILD-INFO"
    entry = {"about": {"binary": str(binary),
                       "build": build_info.read_text().strip() if build_info.is_file() else "unknown",
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "machine": _machine()},
             "files": {}}
    data.setdefault("builds", {})[label] = entry
    for path in files:
        result, stdout = run_synt(binary, path, timeout_s)
        entry["files"][path.name] = asdict(result)
        if logs is not None:
            logs.mkdir(parents=True, exist_ok=True)
            (logs / f"{label}-{path.stem}.out").write_text(stdout)
        print(f"{path.name:<50} {result.status:<12} {len(result.solutions):>4} solutions "
              f"{result.candidates:>5} candidates  {result.cpu_s or 0:>8.1f} CPU s", flush=True)
        out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tactl.bench.synthesis_bymc", description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run ByMC on every file and record the outcomes")
    parser.add_argument("--bymc", type=Path, default=None, help="the bymc.native to run (default: make bench-peers' build)")
    parser.add_argument("--label", default="as-built", help="the name of this build in the results file")
    parser.add_argument("--timeout", type=float, default=SYNT_TIMEOUT_S, help="wall seconds per file")
    parser.add_argument("--only", metavar="REGEX", default=None, help="only the files whose name this finds")
    parser.add_argument("--out", type=Path, default=RESULTS, help="the results file (default: %(default)s)")
    parser.add_argument("--logs", type=Path, default=None, help="a folder to keep ByMC's output in")
    args = parser.parse_args(argv)
    if not args.run:
        print(json.dumps(load_results(args.out), indent=1))
        return 0
    binary = args.bymc or peers.bymc_binary()
    if binary is None:
        print("no ByMC binary (tools/build_bymc.sh builds it; --bymc names another)", file=sys.stderr)
        return 2
    files = [p for p in opodis17_files() if args.only is None or re.search(args.only, p.name)]
    if not files:
        return 2
    record(binary, args.label, files, args.timeout, args.out, args.logs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
