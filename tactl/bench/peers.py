"""``python -m tactl.bench --only peers`` (``make bench-peers``): tactl side by side with ByMC 2.4.4.

Per (file, property) of the ISOLA'18 automata, the Promela-generated ISOLA'18 ones (both under
``../shared/benchmarks``), random19 (:func:`tactl.bench.random19.random19_dir`) and the generated
chain family (:func:`tactl.bench.synthetic.chain_ta`, group ``chain``): a ``tactl check FILE -p P
--json`` process and a ByMC process (``bymc.native ... --spec P -a FILE`` in a fresh temporary
working directory, where it writes its files), each with the same wall-clock limit (killed with its
process group when it passes), run one after the other in alternating order. The table gives both
verdicts, both wall and CPU times (user + system of the process and the children it waited for:
ByMC's z3 processes, tactl's workers) with process start, and both ratios tactl/ByMC where both
decide; the summary gives the median, geometric mean and maximum of the CPU ratios (the fair figure
on a loaded machine, where wall time is mostly waiting), the median and geometric mean of the wall
ratios, the extremes, how many pairs were decided by both, only tactl, only ByMC, neither, and which
pairs one tool alone decides. A verdict disagreement makes the table fail.

ByMC is built by ``tools/build_bymc.sh`` (``make bench-peers`` runs it); ``$TACTL_BYMC`` names another
binary. Why a separate table: ByMC is the reference parametric checker for threshold automata, and
"how far behind or ahead" is only meaningful measured on one machine in one run.

The parsing and the arithmetic are pure functions (:func:`parse_bymc`, :func:`parse_tactl`,
:func:`summarize`) so that they are unit-tested without ByMC.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tactl.bench.synthetic import CHAIN_SIZES, chain_ta
from tactl.driver.inputs import load_automaton
from tactl.engines import checkers
from tactl.engines.result import HOLDS_VACUOUSLY

HOLDS, VIOLATED, TIMEOUT, UNKNOWN, UNSUPPORTED, ERROR = \
    "holds", "violated", "timeout", "unknown", "unsupported", "error"
DECIDED = (HOLDS, VIOLATED)
BYMC_ARGS = ("--smt", "lib2|z3|-smt2|-in", "-O", "schema.tech=ltl", "--target", "none", "--chain", "post")
FILTER_ENV = "TACTL_PEERS_FILTER"


# ------------------------------------------------------------------------------------ parsing

def parse_bymc(stdout: str, stderr: str, spec: str, timed_out: bool) -> tuple[str, str]:
    """ByMC's verdict on ``spec`` from its output, and a short note when it is not a verdict.

    ByMC prints ``> Spec NAME holds`` or ``> SLPS: counterexample for NAME found`` (the schema
    checker, schemaCheckerPlugin.ml), ``> Skipped NAME (not supported)`` for a formula outside its
    fragment, and on a parse error an ``Exception: ...`` on stderr while still exiting 0. Anything
    else (no line for ``spec``, or both lines) is an error, never a verdict."""
    if timed_out:
        return TIMEOUT, ""
    name = re.escape(spec)
    holds = re.search(rf"> Spec {name} holds\s*$", stdout, re.M) is not None
    violated = re.search(rf"> SLPS: counterexample for {name} found\s*$", stdout, re.M) is not None
    if holds and violated:
        return ERROR, "both 'holds' and a counterexample"
    if holds:
        return HOLDS, ""
    if violated:
        return VIOLATED, ""
    if re.search(rf"> Skipped {name} \(not supported\)", stdout):
        return UNSUPPORTED, "not in ByMC's fragment"
    exc = re.search(r"^Exception: (.*)$", stderr, re.M) or re.search(r"^Fatal error: (.*)$", stderr, re.M)
    if exc:
        msg = exc.group(1)
        if "ParseErr" in msg or "syntax error" in msg:
            return ERROR, "parse error"
        return ERROR, msg[:60]
    return ERROR, f"no verdict for {spec}"


def parse_tactl(code: int, stdout: str, timed_out: bool) -> tuple[str, str]:
    """tactl's verdict from ``tactl check -p P --json``: holds/violated as reported ("holds vacuously",
    proved but with no run meeting the antecedent, is holds with a note); unknown with a timeout
    reason, or a killed process, is a timeout; an unreadable report is an error."""
    if timed_out:
        return TIMEOUT, ""
    try:
        result = json.loads(stdout)["properties"][0]
        verdict = result["verdict"]
    except (ValueError, TypeError, KeyError, IndexError):
        return ERROR, f"exit {code}"
    reason = result.get("reason", "")
    if verdict == HOLDS_VACUOUSLY:
        return HOLDS, f"{HOLDS_VACUOUSLY} ({reason[:50]})" if reason else HOLDS_VACUOUSLY
    if verdict == UNKNOWN and "timeout" in reason:
        return TIMEOUT, ""
    if verdict in DECIDED or verdict in (UNKNOWN, UNSUPPORTED):
        return verdict, "" if verdict in DECIDED else reason[:60]
    return ERROR, f"verdict {verdict!r}"


_LINE_COMMENT = re.compile(r"//[^\n]*")


def strip_line_comments(text: str) -> str:
    """``text`` without ``// ...`` comments (ByMC's lexer reads only ``/* */``); line numbers kept."""
    return _LINE_COMMENT.sub("", text)


# ------------------------------------------------------------------------------------ arithmetic

@dataclass(frozen=True)
class Run:
    verdict: str
    wall_s: float
    peak_mb: float | None = None
    note: str = ""
    cpu_s: float | None = None   # user + system of the process and every child it waited for


    @property
    def decided(self) -> bool:
        return self.verdict in DECIDED


@dataclass(frozen=True)
class PeerRow:
    group: str   # isola18 | generated | random19
    file: str
    prop: str
    tactl: Run
    bymc: Run

    @property
    def label(self) -> str:
        return f"{self.group}/{self.file}:{self.prop}"

    @property
    def ratio(self) -> float | None:
        """tactl wall / ByMC wall, where both decide."""
        if self.tactl.decided and self.bymc.decided and self.bymc.wall_s > 0:
            return self.tactl.wall_s / self.bymc.wall_s
        return None

    @property
    def cpu_ratio(self) -> float | None:
        """tactl CPU / ByMC CPU, where both decide and both CPU times are known. On a loaded machine
        this is the fair figure: wall time there is mostly waiting, and waiting differs by tool
        (ByMC talks to z3 through pipes, two processes to schedule)."""
        t, b = self.tactl.cpu_s, self.bymc.cpu_s
        if self.tactl.decided and self.bymc.decided and t is not None and b:
            return t / b
        return None

    @property
    def disagree(self) -> bool:
        return self.tactl.decided and self.bymc.decided and self.tactl.verdict != self.bymc.verdict


@dataclass
class Summary:
    pairs: int
    both: int
    only_tactl: int
    only_bymc: int
    neither: int
    median: float | None
    geomean: float | None
    worst: list[PeerRow] = field(default_factory=list)   # the highest ratios, highest first
    best: list[PeerRow] = field(default_factory=list)    # the lowest ratios, lowest first
    disagreements: list[PeerRow] = field(default_factory=list)
    cpu_median: float | None = None
    cpu_geomean: float | None = None
    cpu_max: float | None = None
    cpu_worst: list[PeerRow] = field(default_factory=list)   # the highest CPU ratios, highest first
    only_one: list[PeerRow] = field(default_factory=list)    # pairs exactly one tool decides


def _geomean(values: list[float]) -> float | None:
    return math.exp(statistics.fmean(math.log(x) for x in values)) if values else None


def summarize(rows: list[PeerRow], extremes: int = 3) -> Summary:
    """Counts by who decides, and the median and geometric mean of tactl/ByMC (wall and CPU) over
    pairs both decide; the largest CPU ratio; the pairs only one tool decides."""
    both = [r for r in rows if r.ratio is not None]
    ratios = [r.ratio for r in both]
    ranked = sorted(both, key=lambda r: r.ratio)
    by_cpu = sorted((r for r in rows if r.cpu_ratio is not None), key=lambda r: r.cpu_ratio, reverse=True)
    cpu = [r.cpu_ratio for r in by_cpu]
    return Summary(
        pairs=len(rows),
        both=sum(1 for r in rows if r.tactl.decided and r.bymc.decided),
        only_tactl=sum(1 for r in rows if r.tactl.decided and not r.bymc.decided),
        only_bymc=sum(1 for r in rows if r.bymc.decided and not r.tactl.decided),
        neither=sum(1 for r in rows if not r.tactl.decided and not r.bymc.decided),
        median=statistics.median(ratios) if ratios else None,
        geomean=_geomean(ratios),
        worst=ranked[::-1][:extremes],
        best=ranked[:extremes],
        disagreements=[r for r in rows if r.disagree],
        cpu_median=statistics.median(cpu) if cpu else None,
        cpu_geomean=_geomean(cpu),
        cpu_max=cpu[0] if cpu else None,
        cpu_worst=by_cpu[:extremes],
        only_one=[r for r in rows if r.tactl.decided != r.bymc.decided])


# ------------------------------------------------------------------------------------ running

@dataclass(frozen=True)
class Finished:
    code: int
    stdout: str
    stderr: str
    wall_s: float
    peak_mb: float | None
    timed_out: bool
    cpu_s: float = 0.0   # user + system of the child and the children it waited for (wait4)


# GNU time reports its child's peak RSS. Our own wait4 figure would not do: a child spawned from this
# Python process starts its count at the parent's RSS (Linux keeps the high-water mark across exec).
_GNU_TIME = Path("/usr/bin/time")


def run_limited(args: list[str], cwd: Path, timeout_s: float) -> Finished:
    """Run ``args`` in ``cwd`` in its own process group; kill the group at ``timeout_s`` wall seconds.
    Wall time from just before the fork to the exit (process start included); output goes to files
    (ByMC's can be long) so that no pipe blocks the child. Peak RSS through GNU time when it is
    installed (None otherwise, and for a killed run). CPU time from ``wait4``: the child's user +
    system time and that of every descendant it waited for (GNU time waits for the tool, tactl for
    its workers, ByMC for its z3 processes); for a killed run, what the group had used by then
    and was waited for, a lower bound."""
    out_path, err_path, rss_path = cwd / ".peers-stdout", cwd / ".peers-stderr", cwd / ".peers-rss"
    if _GNU_TIME.is_file() and os.access(_GNU_TIME, os.X_OK):
        args = [str(_GNU_TIME), "-f", "%M", "-o", str(rss_path), *args]
    killed = threading.Event()
    with open(out_path, "w") as out, open(err_path, "w") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(args, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True)

        def kill() -> None:
            killed.set()
            _kill_group(proc.pid)

        timer = threading.Timer(timeout_s, kill)
        timer.start()
        try:
            _, status, rusage = os.wait4(proc.pid, 0)
        except BaseException:   # Ctrl-C or SIGTERM (see peers_table): leave no ByMC or z3 behind
            _kill_group(proc.pid)
            raise
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    _kill_group(proc.pid)   # solver children left behind (ByMC's z3 pipes)
    try:
        peak: float | None = int(rss_path.read_text().split()[-1]) / 1024
    except (OSError, ValueError, IndexError):
        peak = None
    return Finished(proc.returncode, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"),
                    wall, peak, killed.is_set(), rusage.ru_utime + rusage.ru_stime)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM as an exception, so that run_limited kills the running tool's process group."""
    raise SystemExit(128 + signum)


def bymc_binary() -> Path | None:
    """``$TACTL_BYMC``, else what tools/build_bymc.sh installs in the tools cache."""
    given = os.environ.get("TACTL_BYMC")
    path = Path(given) if given else checkers.cache_dir() / "bymc" / "bin" / "bymc.native"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def run_tactl(path: Path, prop: str, timeout_s: float) -> Run:
    exe = Path(sys.executable).with_name("tactl")
    with tempfile.TemporaryDirectory(prefix="tactl-peers-") as tmp:
        done = run_limited([str(exe), "check", str(path.resolve()), "-p", prop, "--json",
                            "--timeout", f"{timeout_s:g}"], Path(tmp), timeout_s)
    verdict, note = parse_tactl(done.code, done.stdout, done.timed_out)
    return Run(verdict, done.wall_s, done.peak_mb, note, done.cpu_s)


def run_bymc(binary: Path, path: Path, prop: str, timeout_s: float) -> Run:
    with tempfile.TemporaryDirectory(prefix="bymc-peers-") as tmp:
        done = run_limited([str(binary), *BYMC_ARGS, "--spec", prop, "-a", str(path.resolve())],
                           Path(tmp), timeout_s)
    verdict, note = parse_bymc(done.stdout, done.stderr, prop, done.timed_out)
    return Run(verdict, done.wall_s, done.peak_mb, note, done.cpu_s)


def peer_inputs(shared: Path, random19: Path, chain: Path | None = None) -> list[tuple[str, Path]]:
    """(group, path) of every file the table compares on; absent folders contribute nothing.
    ``chain``: a folder to write the chain family into (:func:`chain_files`), or None for none."""
    groups = (("isola18", shared / "benchmarks" / "bymc-isola18"),
              ("generated", shared / "benchmarks" / "bymc-isola18-generated"),
              ("random19", random19))
    found = [(g, p) for g, d in groups if d.is_dir() for p in sorted(d.glob("*.ta"))]
    return found + ([("chain", p) for p in chain_files(chain)] if chain is not None else [])


def chain_files(folder: Path, sizes: tuple[int, ...] = CHAIN_SIZES) -> list[Path]:
    """The chain family (:func:`tactl.bench.synthetic.chain_ta`) written into ``folder``, shortest first."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in sizes:
        path = folder / f"chain{k:03d}.ta"
        path.write_text(chain_ta(k))
        paths.append(path)
    return paths


def _properties(path: Path) -> tuple[list[str], str] | str:
    """Property names as tactl reads them and the size (locations/rules), or why it cannot be read."""
    try:
        ta = load_automaton(path).ta
        return [p.name for p in ta.properties], f"{len(ta.locations)}/{len(ta.rules)}"
    except Exception as e:  # noqa: BLE001 - a bench row, not a crash: any reader failure is reported
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:80]


def _fmt_run(r: Run) -> str:
    peak = f"{r.peak_mb:>5.0f}" if r.peak_mb is not None else f"{'-':>5}"
    cpu = f"{r.cpu_s:>7.2f}" if r.cpu_s is not None else f"{'-':>7}"
    return f"{r.verdict:<11} {r.wall_s:>7.2f} {cpu} {peak}"


def _fmt_ratio(x: float | None) -> str:
    return f"{x:>7.2f}" if x is not None else f"{'-':>7}"


def print_summary(s: Summary) -> None:
    """The summary lines under the table (what who decides, the wall and CPU ratios)."""
    print(f"\npeers summary over {s.pairs} (file, property) pairs: decided by both {s.both}, only tactl "
          f"{s.only_tactl}, only ByMC {s.only_bymc}, neither {s.neither}")
    if s.cpu_median is not None:
        print(f"  CPU ratio tactl/ByMC over the pairs both decide: median {s.cpu_median:.2f}, "
              f"geometric mean {s.cpu_geomean:.2f}, max {s.cpu_max:.2f}")
        print("  tactl's highest CPU ratios: " + ", ".join(f"{r.label} {r.cpu_ratio:.2f}" for r in s.cpu_worst))
    if s.median is not None:
        print(f"  wall ratio tactl/ByMC over the {s.both} pairs both decide: median {s.median:.2f}, "
              f"geometric mean {s.geomean:.2f}")
        print("  tactl slowest against ByMC (wall): " + ", ".join(f"{r.label} {r.ratio:.2f}" for r in s.worst))
        print("  tactl fastest against ByMC (wall): " + ", ".join(f"{r.label} {r.ratio:.3f}" for r in s.best))
    if s.only_one:
        print("  decided by one tool only: " + ", ".join(
            f"{r.label} ({'tactl' if r.tactl.decided else 'ByMC'} {(r.tactl if r.tactl.decided else r.bymc).verdict}, "
            f"{'ByMC' if r.tactl.decided else 'tactl'} {(r.bymc if r.tactl.decided else r.tactl).verdict})"
            for r in s.only_one))


def peers_table(shared: Path, random19: Path, timeout_s: float, pattern: str | None = None) -> bool:
    """Print the side-by-side table and its summary. False when ByMC (or the z3 it pipes to) is
    missing, nothing matches, tactl fails on a file, or the two disagree on a verdict.
    ``pattern`` (else ``$TACTL_PEERS_FILTER``): a regular expression searched in
    ``GROUP/FILE:PROPERTY`` (e.g. ``isola18/strb``, ``:unforg$``) to run a subset."""
    binary = bymc_binary()
    missing = "no ByMC binary (make bench-peers builds it with tools/build_bymc.sh, or set TACTL_BYMC " \
              "to a bymc.native)" if binary is None else "no z3 executable on PATH (ByMC pipes " \
              "SMT-LIB2 to it; Debian: apt-get install z3)" if shutil.which("z3") is None else ""
    if missing:
        print("\n" + "#" * 90 + f"\n# peers table NOT RUN: {missing}\n" + "#" * 90, file=sys.stderr)
        return False
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    pattern = pattern if pattern is not None else os.environ.get(FILTER_ENV) or None
    wanted = re.compile(pattern) if pattern else None
    print(f"\npeers: tactl vs ByMC ({binary}); limit {timeout_s:g} s wall each, process start included"
          + (f"; filter /{pattern}/" if pattern else ""))
    for group, folder in (("isola18", shared / "benchmarks" / "bymc-isola18"),
                          ("generated", shared / "benchmarks" / "bymc-isola18-generated"), ("random19", random19)):
        if not folder.is_dir():
            hint = "make random19 fetches them, or set TACTL_RANDOM19" if group == "random19" else "--shared"
            print(f"peers: no {group} files: {folder} is absent ({hint})")
    header = f"{'file':<32} {'L/R':>9} {'property':<20} {'tactl':<11} {'wall s':>7} {'CPU s':>7} {'MB':>5} " \
             f"{'ByMC':<11} {'wall s':>7} {'CPU s':>7} {'MB':>5} {'T/B wall':>8} {'T/B CPU':>7}  note"
    print(header)
    print("-" * len(header))
    rows: list[PeerRow] = []
    stripped: list[str] = []
    unreadable: list[str] = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="tactl-peers-inputs-") as tmp:
        for group, path in peer_inputs(shared, random19, Path(tmp) / "chain"):
            props = _properties(path)
            if isinstance(props, str):
                if wanted is None or wanted.search(f"{group}/{path.name}:"):
                    unreadable.append(f"{group}/{path.name} ({props})")
                    print(f"{group + '/' + path.name:<32} {'-':>9} {'-':<20} tactl cannot read it: {props}")
                    ok = False
                continue
            props, size = props
            bymc_path = path
            text = path.read_text(errors="replace")
            for prop in props:
                label = f"{group}/{path.name}:{prop}"
                if wanted is not None and not wanted.search(label):
                    continue
                if "//" in text and bymc_path is path:
                    bymc_path = Path(tmp) / f"{group}-{path.name}"
                    bymc_path.write_text(strip_line_comments(text))
                    stripped.append(f"{group}/{path.name}")
                # Alternate which tool runs first, so that neither always meets a warm or cold cache.
                if len(rows) % 2 == 0:
                    t = run_tactl(path, prop, timeout_s)
                    b = run_bymc(binary, bymc_path, prop, timeout_s)
                else:
                    b = run_bymc(binary, bymc_path, prop, timeout_s)
                    t = run_tactl(path, prop, timeout_s)
                row = PeerRow(group, path.name, prop, t, b)
                rows.append(row)
                ok &= t.verdict != ERROR
                ratio = f"{_fmt_ratio(row.ratio):>8} {_fmt_ratio(row.cpu_ratio)}"
                notes = "; ".join(n for n in (f"tactl: {t.note}" if t.note else "",
                                              f"ByMC: {b.note}" if b.note else "") if n)
                flag = "  <<< VERDICTS DISAGREE" if row.disagree else ""
                print(f"{group + '/' + path.name:<32} {size:>9} {prop[:20]:<20} {_fmt_run(t)} {_fmt_run(b)} {ratio}  "
                      f"{notes}{flag}", flush=True)
    if not rows:
        print(f"peers: no (file, property) pair to compare (filter {pattern!r}; inputs under "
              f"{shared / 'benchmarks'} and the random19 folder)")
        return False
    s = summarize(rows)
    print_summary(s)
    print("  notes: L/R locations/rules; MB peak RSS by GNU time (ByMC's: its own or its largest z3's); wall times "
          "include process start (tactl's Python and z3 import; ByMC's z3 -smt2 pipes); CPU s user + system "
          "of the process and the children it waited for (ByMC's z3 processes included; a killed run's is a "
          "lower bound); chain/chainK.ta: STRB with K relay stages, generated; ByMC runs with "
          + " ".join(BYMC_ARGS) + " --spec P in a fresh temporary folder; same limit for both; a killed "
          "run is a timeout")
    if stripped:
        print("  notes: ByMC cannot read // comments: it was given a copy without them of "
              + ", ".join(stripped))
    if unreadable:
        print("  tactl cannot read: " + "; ".join(unreadable))
    if s.disagreements:
        print("\n" + "!" * 90 + f"\n!!! VERDICT DISAGREEMENT on {len(s.disagreements)} pair(s):\n" + "\n".join(
            f"!!!   {r.label}: tactl {r.tactl.verdict}, ByMC {r.bymc.verdict}" for r in s.disagreements)
            + "\n" + "!" * 90)
        ok = False
    return ok

