"""Golden outputs of the commands over the corpus: what a refactoring must leave unchanged.

``python -m tactl.bench.golden record DIR`` runs ``show``, ``parse``, ``translate``, ``emit``,
``check`` and ``verify`` on every corpus model (and the public Promela files when
``../shared/benchmarks`` is beside the checkout) in fresh processes, and writes each command's
stdout, stderr and exit status to one file of DIR, with what varies from run to run (times,
memory, temporary paths, digests of the code) replaced by placeholders.
``python -m tactl.bench.golden compare OLD NEW`` prints every file that differs, with a unified
diff, and exits 1 when one does.

Why a script and not a test: the whole record takes minutes (it checks every property of the
corpus), which is a refactoring's cost, not every commit's.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "benchmarks"

#: Algorithms whose whole chain ``verify`` runs (the rest are covered by ``check`` on each file).
VERIFIED = ("strb", "frb", "floodmin", "phase_king", "nbacg")
CHECK_TIMEOUT = "300"


@dataclass(frozen=True)
class Run:
    name: str  # the output file's name
    argv: tuple[str, ...]


def runs(tmp: Path) -> list[Run]:
    found: list[Run] = []
    corpus = sorted(p for p in (REPO / "corpus").rglob("*") if p.suffix in {".alg", ".rta", ".ta"})
    for path in corpus:
        rel = path.relative_to(REPO).as_posix()
        key = rel.replace("/", "__")
        found.append(Run(f"show__{key}", ("show", rel)))
        found.append(Run(f"show-json__{key}", ("show", "--json", rel)))
        if path.suffix == ".alg":
            found.append(Run(f"parse__{key}", ("parse", rel, "-o", "-")))
        if path.suffix in {".alg", ".rta"}:
            found.append(Run(f"translate__{key}", ("translate", rel, "-o", "-")))
        if path.suffix in {".ta", ".rta"}:
            found.append(Run(f"emit-smv__{key}", ("emit", "--to", "nuxmv", rel, "--unbounded", "-o", "-")))
            found.append(Run(f"emit-smv-bound__{key}", ("emit", "--to", "nuxmv", rel, "--bound", "3", "-o", "-")))
            found.append(Run(f"emit-smt__{key}", ("emit", "--to", "smtlib", rel,
                                                  "-o", str(tmp / f"smt-{key}"))))
        found.append(Run(f"check__{key}", ("check", rel, "--no-progress", "--timeout", CHECK_TIMEOUT)))
        found.append(Run(f"check-json__{key}", ("check", rel, "--json", "--no-progress",
                                                "--timeout", CHECK_TIMEOUT)))
    for rel in ("corpus/strb/strb.ta", "corpus/frb/frb.rta"):
        key = rel.replace("/", "__")
        for model in ("counter", "process"):
            found.append(Run(f"emit-pml-{model}__{key}", ("emit", "--to", "promela", rel, "--model", model,
                                                          "--param", "n=4", "--param", "t=1",
                                                          "--param", "f=1", "-o", "-")))
    for name in VERIFIED:
        found.append(Run(f"verify__{name}", ("verify", name, "--no-cache", "--no-progress",
                                             "--report-dir", str(tmp / f"report-{name}"))))
        found.append(Run(f"verify-json__{name}", ("verify", name, "--no-cache", "--json", "--no-progress",
                                                  "--report-dir", str(tmp / f"report-json-{name}"))))
    for path in sorted(SHARED.rglob("*.pml")) if SHARED.is_dir() else []:
        key = path.relative_to(SHARED).as_posix().replace("/", "__")
        found.append(Run(f"parse-pml__{key}", ("parse", str(path), "-o", "-")))
        found.append(Run(f"show-pml__{key}", ("show", str(path))))
    for path in sorted(SHARED.rglob("*.ta")) if SHARED.is_dir() else []:
        key = path.relative_to(SHARED).as_posix().replace("/", "__")
        found.append(Run(f"show-ta__{key}", ("show", str(path))))
        found.append(Run(f"emit-smv-ta__{key}", ("emit", "--to", "nuxmv", str(path), "--unbounded", "-o", "-")))
    return found


_TIME = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s|min|h|MB|MiB|GB|GiB|KB|KiB|kB)\b")
_HEX = re.compile(r"\b[0-9a-f]{12,64}\b")
_STAMP = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?\b")
_TIMED_KEY = re.compile(r"(time|seconds|elapsed|wall|cpu|memory|rss|_s$|_ms$|duration|when|date)", re.I)


def _scrub_json(value: object, tmp: str) -> object:
    if isinstance(value, dict):
        return {k: ("<T>" if _TIMED_KEY.search(k) and isinstance(v, (int, float)) else _scrub_json(v, tmp))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_json(v, tmp) for v in value]
    if isinstance(value, str):
        return scrub(value, tmp)
    return value


def scrub(text: str, tmp: str = "") -> str:
    if tmp:
        text = text.replace(tmp, "<TMP>")
    text = text.replace(str(REPO), "<REPO>")  # records of two checkouts compare equal
    text = _STAMP.sub("<DATE>", text)
    text = _TIME.sub("<T>", text)
    return _HEX.sub("<HEX>", text)


def _normalise(stdout: str, tmp: str) -> str:
    stripped = stdout.strip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError:
            return scrub(stdout, tmp)
        return json.dumps(_scrub_json(doc, tmp), indent=1, sort_keys=True)
    return scrub(stdout, tmp)


def record(out: Path, jobs: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    tactl = [sys.executable, "-m", "tactl.cli"] if not (Path(sys.executable).parent / "tactl").exists() \
        else [str(Path(sys.executable).parent / "tactl")]
    with tempfile.TemporaryDirectory(prefix="tactl-golden-") as tmpdir:
        tmp = Path(tmpdir)
        env = dict(os.environ, COLUMNS="100", NO_COLOR="1", TACTL_CACHE_DIR=str(tmp / "cache"))

        def one(run: Run) -> None:
            done = subprocess.run([*tactl, *run.argv], cwd=REPO, env=env, capture_output=True,
                                  text=True, stdin=subprocess.DEVNULL)
            body = (f"$ tactl {' '.join(run.argv)}\n".replace(tmpdir, "<TMP>")
                    + f"exit {done.returncode}\n--- stdout\n{_normalise(done.stdout, tmpdir)}\n"
                    + f"--- stderr\n{scrub(done.stderr, tmpdir)}\n")
            (out / f"{run.name}.txt").write_text(body, encoding="utf-8")
            print(f"{done.returncode} {run.name}", flush=True)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(one, runs(tmp)))
    return 0


def compare(old: Path, new: Path) -> int:
    names = sorted({p.name for p in old.glob("*.txt")} | {p.name for p in new.glob("*.txt")})
    differ = 0
    for name in names:
        a, b = old / name, new / name
        if not a.exists() or not b.exists():
            print(f"only in {'new' if b.exists() else 'old'}: {name}")
            differ += 1
            continue
        lines_a = a.read_text(encoding="utf-8").splitlines(keepends=True)
        lines_b = b.read_text(encoding="utf-8").splitlines(keepends=True)
        if lines_a != lines_b:
            differ += 1
            sys.stdout.writelines(difflib.unified_diff(lines_a, lines_b, str(a), str(b)))
    print(f"{len(names)} outputs compared, {differ} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tactl.bench.golden", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run every command over the corpus into DIR")
    rec.add_argument("dir", type=Path)
    rec.add_argument("-j", "--jobs", type=int, default=2)
    cmp_ = sub.add_parser("compare", help="diff two recorded directories")
    cmp_.add_argument("old", type=Path)
    cmp_.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    if args.command == "record":
        return record(args.dir, args.jobs)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
