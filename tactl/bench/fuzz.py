"""Differential fuzzing of the front ends (``make fuzz``): generated programs, two readings.

Why: the ``.alg`` and ``.pml`` front ends hand every engine the same translated automaton, so a
translation mistake is invisible to any comparison of engines. Here each generated program
(``tactl.bench.fuzz_alg``) and each edit of a public Promela file (``tactl.bench.fuzz_pml``) is
checked twice, per property, at one small valuation:

* ``tactl check FILE --param ...`` — the parametric engine on the translation, restricted to
  the valuation;
* ``tactl check FILE --engine R --param ...`` — the *reference* R: ``source`` (the interpreter
  of the ``.alg`` program as written, or SPIN on the ``.pml`` file itself) when the installed
  tactl has it, else ``explicit`` (state enumeration of the same translation: a stand-in that
  exercises the harness and the engines, not the front end; every report names which it was).

Outcomes per program: *disagreement* (one side HOLDS, the other VIOLATED on some property; the
reference's run is evidence), *refusal* (the parametric side exited 2: the front end refused a
program the generator believes well-formed; each message is listed), *error* (exit 4, a
traceback, or the reference refused), *unknown* (no property decided by both sides: unknown,
unsupported, timeouts), else *agreement*. Every disagreement is saved to ``fuzz-out/`` with both
outputs. Both sides run as subprocesses with a time limit, so a hang or a crash costs one program.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tactl.bench import fuzz_alg, fuzz_pml
from tactl.bench.fuzz_alg import Program

AGREE, DISAGREE, REFUSED, ERROR, UNKNOWN = "agree", "disagree", "refused", "error", "unknown"
OUTCOMES = (AGREE, DISAGREE, REFUSED, ERROR, UNKNOWN)
DECISIVE = {"holds": True, "holds vacuously": True, "violated": False}


@dataclass(frozen=True)
class Side:
    """One ``tactl check`` run: its exit status, verdict per property, and its text."""

    engine: str
    exit_code: int
    verdicts: dict[str, str]
    reasons: dict[str, str]  # why a property is unknown or unsupported
    kinds: dict[str, str]  # safety or liveness, per property
    stdout: str
    stderr: str
    seconds: float

    @property
    def message(self) -> str:
        """The first line that says what is wrong (for refusals and errors)."""
        for line in self.stderr.splitlines():
            if ": " in line and "warning:" not in line and not line.startswith(" "):
                return line
        return (self.stderr.strip().splitlines() or ["(no message)"])[-1]


@dataclass
class Result:
    """What the harness concluded about one program."""

    program: Program
    outcome: str
    parametric: Side
    reference: Side | None
    disagreements: list[tuple[str, str, str]] = field(default_factory=list)  # property, p, r
    agreed: int = 0
    # An edited .pml file that disagrees: whether the unedited file at the same valuation does
    # too (then the edit is not the cause).
    baseline: str = ""


def _tactl() -> list[str]:
    exe = Path(sys.executable).with_name("tactl")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "tactl.cli"]


def run_side(path: Path, params: tuple[tuple[str, int], ...], engine: str | None,
             timeout: float) -> Side:
    """``tactl check`` on one file; a run past ``timeout`` (plus slack) is an unknown (exit 3)."""
    cmd = [*_tactl(), "check", str(path), "--json", "-q", "--timeout", str(int(timeout))]
    if engine:
        cmd += ["--engine", engine]
    for name, value in params:
        cmd += ["--param", f"{name}={value}"]
    # Minimal counterexamples change no verdict and cost most of a violation's time.
    env = dict(os.environ, TACTL_NO_MINIMAL="1")
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30, env=env)
    except subprocess.TimeoutExpired:
        return Side(engine or "parametric", 3, {}, {}, {}, "", f"timed out after {timeout + 30:.0f} s",
                    time.monotonic() - start)
    verdicts: dict[str, str] = {}
    reasons: dict[str, str] = {}
    kinds: dict[str, str] = {}
    try:
        doc = json.loads(proc.stdout)
        verdicts = {p["name"]: p["verdict"] for p in doc.get("properties", [])}
        reasons = {p["name"]: p.get("reason") or "" for p in doc.get("properties", [])
                   if p["verdict"] not in DECISIVE}
        kinds = {p["name"]: p.get("kind", "") for p in doc.get("properties", [])}
    except (json.JSONDecodeError, TypeError, KeyError):
        pass
    return Side(engine or "parametric", proc.returncode, verdicts, reasons, kinds, proc.stdout, proc.stderr,
                time.monotonic() - start)


def compare(program: Program, par: Side, ref: Side | None) -> Result:
    """The outcome of one program from its two sides (see the module docstring)."""
    if par.exit_code == 2:
        return Result(program, REFUSED, par, ref)
    crashed = par.exit_code not in (0, 1, 3) or "Traceback" in par.stderr
    if ref is None or crashed:
        return Result(program, ERROR, par, ref)
    if ref.exit_code == 2:  # the reference does not run this construct (yet): nothing compared
        return Result(program, UNKNOWN, par, ref)
    if ref.exit_code not in (0, 1, 3) or "Traceback" in ref.stderr:
        return Result(program, ERROR, par, ref)
    res = Result(program, UNKNOWN, par, ref)
    for name, pv in par.verdicts.items():
        rv = ref.verdicts.get(name)
        if pv in DECISIVE and rv in DECISIVE:
            if DECISIVE[pv] != DECISIVE[rv]:
                res.disagreements.append((name, pv, rv))
            else:
                res.agreed += 1
    res.outcome = DISAGREE if res.disagreements else AGREE if res.agreed else UNKNOWN
    return res


@dataclass(frozen=True)
class Known:
    """A disagreement already reported (tests/frontends/test_fuzz_frontends.py has its xfail test): a
    program with all of ``tags`` that disagrees only on properties of ``kind`` ("" = any)."""

    tags: frozenset[str]
    kind: str
    finding: str
    properties: frozenset[str] = frozenset()  # only these properties (empty: any)


KNOWN: tuple[Known, ...] = ()  # none open: the interpreter's known finding is fixed


def known(result: Result) -> Known | None:
    """The reported finding that explains every disagreement of ``result``, if one does."""
    kinds = result.parametric.kinds
    for k in KNOWN:
        if k.tags <= result.program.tags and all(
                (not k.kind or kinds.get(p) == k.kind) and (not k.properties or p in k.properties)
                for p, _, _ in result.disagreements):
            return k
    return None


_PROBE = """algorithm Probe
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
messages ECHO
variables
  a: bool = false
upon receiving ECHO from n - t distinct processes:
  a := true
properties
  p: always (no a)
"""


def reference_engine(suffix: str, workdir: Path, wanted: str = "auto") -> str:
    """``source`` if this tactl checks ``suffix`` files with it, else ``explicit``.

    Probed by running it (the two source engines land on different branches, for ``.alg`` and
    ``.pml`` separately): an engine the CLI does not know, or refuses for this suffix, exits 2.
    """
    if wanted != "auto":
        return wanted
    if suffix == ".pml":
        files = fuzz_pml.seed_files()
        if not files:
            return "explicit"
        probe, params = files[0], fuzz_pml.valuation(files[0].read_text()) or ()
    else:
        probe = workdir / "probe.alg"
        probe.write_text(_PROBE)
        params = (("n", 4), ("t", 1), ("f", 1))
    side = run_side(probe, params, "source", 60)
    return "source" if side.exit_code in (0, 1, 3) and side.verdicts else "explicit"


def check_program(program: Program, workdir: Path, reference: str, timeout: float) -> Result:
    path = workdir / f"{program.name}{program.suffix}"
    path.write_text(program.text)
    par = run_side(path, program.params, None, timeout)
    if par.exit_code == 2:
        return compare(program, par, None)
    ref = run_side(path, program.params, reference, timeout)
    return compare(program, par, ref)


def _baseline(source: Path, edited: Program, workdir: Path, reference: str, timeout: float,
              cache: dict[tuple[Path, tuple], str]) -> str:
    """Whether the unedited ``source`` disagrees on the same properties at the same valuation."""
    key = (source, edited.params)
    if key not in cache:
        original = Program(edited.seed, -1, f"orig-{source.stem}", source.read_text(),
                           frozenset(), edited.params, ".pml")
        r = check_program(original, workdir, reference, timeout)
        cache[key] = ("the unedited file disagrees too: " + "; ".join(
            f"{p}: parametric {a}, {reference} {b}" for p, a, b in r.disagreements)
            if r.outcome == DISAGREE else f"the unedited file: {r.outcome}")
    return cache[key]


def save(result: Result, out: Path) -> Path:
    """Keep a disagreement (or error) with both outputs in ``out/<name>/``."""
    folder = out / result.program.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"program{result.program.suffix}").write_text(result.program.text)
    for side in (result.parametric, result.reference):
        if side is not None:
            (folder / f"{side.engine}.json").write_text(side.stdout)
            (folder / f"{side.engine}.stderr").write_text(side.stderr)
    params = " ".join(f"--param {k}={v}" for k, v in result.program.params)
    (folder / "README").write_text(
        f"{result.outcome}: {result.program.name} (constructs: {', '.join(sorted(result.program.tags))})\n"
        + (f"{result.program.note}\n" if result.program.note else "")
        + f"reproduce: tactl check program{result.program.suffix} {params}  (and --engine "
        f"{result.reference.engine if result.reference else '?'})\n"
        + "".join(f"  {p}: parametric {a}, reference {b}\n" for p, a, b in result.disagreements)
        + (f"{result.baseline}\n" if result.baseline else ""))
    return folder


# ------------------------------------------------------------------------------------ the run


def _strip_path(message: str) -> str:
    """A message without its ``file:line:col:`` or ``tactl:`` prefix, to count alike ones together."""
    head, sep, rest = message.partition(": ")
    return rest if sep and (head == "tactl" or head.count(":") >= 1) else message


@dataclass
class Campaign:
    """The results of one fuzzing run and its table per construct."""

    seed: int
    references: dict[str, str]
    results: list[Result] = field(default_factory=list)

    def table(self) -> dict[str, Counter]:
        rows: dict[str, Counter] = {}
        for r in self.results:
            for tag in sorted(r.program.tags) + [f"family:{r.program.family}"]:
                rows.setdefault(tag, Counter())[r.outcome] += 1
        return rows

    def generated(self) -> set[str]:
        return set().union(*(r.program.tags for r in self.results)) if self.results else set()

    def disagreements(self) -> list[Result]:
        return [r for r in self.results if r.outcome == DISAGREE]

    def new_disagreements(self) -> list[Result]:
        """The disagreements no reported finding (:data:`KNOWN`) explains."""
        return [r for r in self.disagreements() if known(r) is None]

    def render(self) -> str:
        refs = ", ".join(f"{k}: {v}" for k, v in self.references.items())
        lines = [f"tactl fuzz, seed {self.seed}: {len(self.results)} programs; "
                 f"reference engine {refs}"]
        if any(v == "explicit" for v in self.references.values()):
            lines.append("  (explicit is a stand-in: it checks the same translation as the "
                         "parametric engine, so it finds engine bugs, not front-end ones)")
        head = f"{'construct':28} {'programs':>8} " + " ".join(f"{o:>8}" for o in OUTCOMES)
        lines += ["", head, "-" * len(head)]
        table = self.table()
        order = [*fuzz_alg.CONSTRUCTS, *fuzz_pml.PML_CONSTRUCTS]
        keys = [k for k in order if k in table] + sorted(k for k in table if k not in order)
        for key in keys:
            c = table[key]
            lines.append(f"{key:28} {sum(c.values()):8} " + " ".join(f"{c[o]:8}" for o in OUTCOMES))
        total = Counter(r.outcome for r in self.results)
        lines.append(f"{'all':28} {len(self.results):8} " + " ".join(f"{total[o]:8}" for o in OUTCOMES))
        missing = [c for c in fuzz_alg.CONSTRUCTS if c not in self.generated()]
        if missing:
            lines.append(f"never generated: {', '.join(missing)}")
        why: Counter = Counter()
        for r in self.results:
            for s in (r.parametric, r.reference) if r.outcome == UNKNOWN else ():
                if s is not None and not s.verdicts:  # the whole file: e.g. an imprecise guard
                    why[f"{s.engine}: {_strip_path(s.message)[:110]}"] += 1
                for p, v in (s.verdicts.items() if s is not None else ()):
                    if v not in DECISIVE:
                        why[f"{s.engine}: {(s.reasons.get(p) or v)[:110]}"] += 1
        if why:
            lines += ["", "why properties were not decided (most frequent):"]
            lines += [f"  {n:4} {w}" for w, n in why.most_common(8)]
        for title, outcome in (("disagreements", DISAGREE), ("refusals", REFUSED),
                               ("errors", ERROR)):
            items = [r for r in self.results if r.outcome == outcome]
            if not items:
                continue
            lines += ["", f"{title} ({len(items)}):"]
            for r in items:
                detail = ("; ".join(f"{p}: parametric {a}, {r.reference.engine} {b}"
                                    for p, a, b in r.disagreements)
                          + (f" (known: {k.finding})" if (k := known(r)) else "")
                          if outcome == DISAGREE
                          else (r.parametric.message if outcome == REFUSED or r.reference is None
                                or r.parametric.exit_code not in (0, 1, 3)
                                else f"{r.reference.engine}: {r.reference.message}"))
                lines.append(f"  {r.program.name}: {detail}")
                if r.program.note:
                    lines.append(f"      ({r.program.note})")
                if r.baseline:
                    lines.append(f"      ({r.baseline})")
        return "\n".join(lines)


def run(seed: int, *, minutes: float | None = None, count: int | None = None,
        workdir: Path, out: Path | None = None, timeout: float = 60, pml_every: int = 4,
        reference: str = "auto", progress=None) -> Campaign:
    """Generate and check programs until ``minutes`` pass or ``count`` programs are done.

    Every ``pml_every``-th program is an edit of a public ``.pml`` file when they are present
    (0: none). Disagreements and errors are saved under ``out`` when given.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    refs = {".alg": reference_engine(".alg", workdir, reference)}
    pml_files = fuzz_pml.seed_files() if pml_every else []
    if pml_files:
        refs[".pml"] = reference_engine(".pml", workdir, reference)
    campaign = Campaign(seed, refs)
    deadline = None if minutes is None else time.monotonic() + 60 * minutes
    i = alg_i = pml_i = 0
    baselines: dict[tuple[Path, tuple], str] = {}
    while (count is None or i < count) and (deadline is None or time.monotonic() < deadline):
        if pml_files and pml_every and i % pml_every == pml_every - 1:
            made = fuzz_pml.generate(seed, pml_i, pml_files)
            pml_i += 1
            if made is None:
                i += 1
                continue
            program = made[0]
        else:
            made = None
            program = fuzz_alg.generate(seed, alg_i)
            alg_i += 1
        result = check_program(program, workdir, refs[program.suffix], timeout)
        if result.outcome == DISAGREE and made is not None:
            result.baseline = _baseline(made[1].source, program, workdir, refs[".pml"], timeout,
                                        baselines)
        campaign.results.append(result)
        if out is not None and result.outcome in (DISAGREE, ERROR):
            save(result, out)
        if progress:
            progress(f"[{i + 1}] {program.name}: {result.outcome}"
                     f" ({result.parametric.seconds:.1f} s"
                     f"{f' + {result.reference.seconds:.1f} s' if result.reference else ''})")
        i += 1
    return campaign


def main(argv: list[str] | None = None) -> int:
    import argparse  # lazy: only the command line needs it
    import tempfile  # lazy: as above

    ap = argparse.ArgumentParser(prog="python -m tactl.bench.fuzz", description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", type=Path, default=Path("fuzz-out"))
    ap.add_argument("--timeout", type=float, default=60, help="seconds per tactl check")
    ap.add_argument("--pml-every", type=int, default=4)
    ap.add_argument("--reference", default="auto", choices=("auto", "source", "explicit"))
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    minutes = args.minutes if args.minutes is not None or args.count is not None else 10
    with tempfile.TemporaryDirectory(prefix="tactl-fuzz-") as tmp:
        campaign = run(seed, minutes=minutes, count=args.count, workdir=Path(tmp), out=args.out,
                       timeout=args.timeout, pml_every=args.pml_every, reference=args.reference,
                       progress=lambda s: print(s, file=sys.stderr, flush=True))
    print(campaign.render())
    if campaign.disagreements():
        print(f"\n{len(campaign.disagreements())} disagreement(s) saved in {args.out}/")
    return 1 if campaign.disagreements() else 0


if __name__ == "__main__":
    sys.exit(main())
