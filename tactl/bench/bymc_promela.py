"""ByMC's verdicts on the Parametric Promela files of ``konnov/fault-tolerant-benchmarks``, beside tactl's.

``python -m tactl.bench.bymc_promela --run`` runs ByMC 2.4.4 (``tools/build_bymc.sh``) once per
(file, property) of the sets in :data:`SETS` — ``bymc.native ... --spec P -a FILE.pml`` in a fresh
temporary folder, with the peers table's options (``tactl/bench/peers.py``) and a wall-clock limit —
and records verdict, wall time and a note in a JSON cache outside the checkout
(:func:`cache_path`). ByMC needs minutes of CPU per file, so the cache is filled once, in the
background, and only missing pairs are run again. ``python -m tactl.bench --only bymc-promela`` prints
the table: ByMC's cached verdict, tactl's default verdict (the file's own fairness for liveness,
``tactl/driver/file_reading.py``), and whether they agree.

Why a cache and not a live run: the table is meant to be read next to the "Parametric Promela"
table of ``tactl/bench/promela.py`` (another process may read the same JSON, whose format is
:func:`load_cache`'s), and re-running ByMC on every ``make bench`` would cost hours on a small machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tactl.bench import peers
from tactl.engines import checkers

# (label, folder under the benchmarks repository): the sets whose Promela files ByMC reads
SETS = (("fmcad13", "fmcad13"), ("concur14", "concur14"), ("cav15", "cav15/promela"),
        ("popl17", "popl17-fmsd17/promela"), ("isola18", "isola18/promela"))
FAIRNESS = "fairness"
_LTL = re.compile(r"^\s*ltl\s+(\w+)\s*\{", re.M)


# Differences between ByMC's verdict and tactl's default one, explained with ByMC's run (its
# cex-PROP.trx); shown in the table's note column.
EXPLAINED = {
    "cav15/cbc-cond-consensus2.pml:termination": (
        "ByMC's run is no run of the file: its interval [MAJ, N - T) counts nrcvd00 = 13 of nsnt00 = 14 as "
        "delivered; with all 14 (and 2 of nsnt01) a step at P0 must leave it (`post` does not refine)"),
    "concur14/cond-consensus2.pml:agreement": (
        "ByMC's run is no run of the file: with nsnt00 = 18, nsnt01 = 36 (N=54, T=17) it sends 25 "
        "phase-1 0-votes, which need nrcvd00 > nrcvd01 and nrcvd00 + nrcvd01 >= N - T, i.e. nrcvd00 >= 19 > "
        "nsnt00; its intervals cannot compare two receive counts"),
}


def ftb_root() -> Path:
    """Where ``konnov/fault-tolerant-benchmarks`` is checked out or extracted: ``$TACTL_FTB``, else
    where ``make ftb-promela`` puts its Promela files (``tactl/bench/promela_sets.py``)."""
    from tactl.bench.promela_sets import sets_dir  # lazy: only for the default place

    env = os.environ.get("TACTL_FTB")
    return Path(env) if env else sets_dir()


def cache_path() -> Path:
    """``$TACTL_BYMC_VERDICTS``, else ``bymc-verdicts.json`` in the tools cache."""
    env = os.environ.get("TACTL_BYMC_VERDICTS")
    return Path(env) if env else checkers.cache_dir() / "bymc-verdicts.json"


def inputs(root: Path) -> list[tuple[str, Path]]:
    """(set label, path) of every ``.pml`` of :data:`SETS` under ``root``; absent sets give nothing."""
    return [(label, p) for label, sub in SETS if (root / sub).is_dir() for p in sorted((root / sub).glob("*.pml"))]


def property_names(text: str) -> list[str]:
    """The ``ltl`` blocks' names in file order, once each, without ``fairness…`` (ByMC reads those as
    assumptions; both branches of an ``#ifdef`` name the same properties in these files)."""
    return [n for n in dict.fromkeys(_LTL.findall(text)) if not n.startswith(FAIRNESS)]


def key(label: str, path: Path, prop: str) -> str:
    return f"{label}/{path.name}:{prop}"


@dataclass(frozen=True)
class Entry:
    verdict: str  # peers.HOLDS, VIOLATED, TIMEOUT, UNSUPPORTED, ERROR
    wall_s: float
    note: str = ""


def load_cache(path: Path) -> dict[str, Entry]:
    """``{"entries": {"SET/FILE.pml:PROP": {"verdict", "wall_s", "note"}}, "limit_s": ...}``."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {k: Entry(v["verdict"], float(v["wall_s"]), v.get("note", "")) for k, v in data.get("entries", {}).items()}


def save_cache(path: Path, entries: dict[str, Entry], limit_s: float) -> None:
    """Written whole and renamed into place, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"tool": "ByMC 2.4.4", "options": " ".join(peers.BYMC_ARGS), "limit_s": limit_s,
            "entries": {k: {"verdict": e.verdict, "wall_s": round(e.wall_s, 2), "note": e.note}
                        for k, e in sorted(entries.items())}}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def run_missing(root: Path, cache: Path, limit_s: float, first: tuple[str, ...] = ()) -> int:
    """Run ByMC on every pair the cache lacks (``first``: keys to run before the others); returns
    how many were run. Needs the ByMC binary (``peers.bymc_binary``)."""
    binary = peers.bymc_binary()
    if binary is None:
        print("bymc-promela: no ByMC binary (tools/build_bymc.sh builds it)", file=sys.stderr)
        return 0
    entries = load_cache(cache)
    todo = [(label, p, prop) for label, p in inputs(root) for prop in property_names(p.read_text(errors="replace"))
            if key(label, p, prop) not in entries]
    todo.sort(key=lambda t: key(*t) not in first)
    for n, (label, path, prop) in enumerate(todo, 1):
        run = peers.run_bymc(binary, path, prop, limit_s)
        entries[key(label, path, prop)] = Entry(run.verdict, run.wall_s, run.note)
        save_cache(cache, entries, limit_s)
        print(f"[{n}/{len(todo)}] {key(label, path, prop)}: {run.verdict} {run.wall_s:.1f} s {run.note}", flush=True)
    return len(todo)


# ------------------------------------------------------------------------------------ the table

def tactl_verdicts(path: Path, limit_s: float) -> dict[str, str] | str:
    """tactl's default verdict per property (``tactl check FILE --json``), or why there is none."""
    exe = Path(sys.executable).with_name("tactl")
    try:
        done = subprocess.run([str(exe), "check", str(path), "--json", "--timeout", f"{limit_s:g}"],
                              capture_output=True, text=True, timeout=limit_s * 20)
    except subprocess.TimeoutExpired:
        return "timeout"
    try:
        report = json.loads(done.stdout)
    except ValueError:
        first = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
        return f"not read: {first[:90]}"
    return {p["name"]: p["verdict"] for p in report.get("properties", [])}


def compare(bymc: str, tactl: str) -> str:
    """agree / differ where both decide, else '-'."""
    decided = (peers.HOLDS, peers.VIOLATED)
    t = peers.HOLDS if tactl.startswith(peers.HOLDS) else tactl
    if bymc in decided and t in decided:
        return "agree" if bymc == t else "DIFFER"
    return "-"


def bymc_promela_table(root: Path | None = None, cache: Path | None = None, limit_s: float = 120.0) -> bool:
    """Print one row per (file, property) ByMC's cache has. Absent files or cache are reported, not a
    failure (ByMC is a peer, built on demand); nothing here fails ``make bench``: a difference is
    explained in the table's notes, not an error of either tool."""
    root, cache = root or ftb_root(), cache or cache_path()
    entries = load_cache(cache)
    files = inputs(root)
    if not files or not entries:
        print(f"\nbymc-promela: NOT RUN: no Promela sets under {root} ($TACTL_FTB) or no ByMC verdicts in "
              f"{cache} (python -m tactl.bench.bymc_promela --run fills it)")
        return True
    print(f"\nbymc-promela: ByMC 2.4.4 (cached in {cache}) and tactl per (file, property); "
          "tactl's liveness verdicts are under the file's own fairness formula")
    header = f"{'file:property':<58} {'ByMC':<11} {'wall s':>7} {'tactl':<16} {'':<6}"
    print(header)
    print("-" * len(header))
    counts = {"agree": 0, "DIFFER": 0, "-": 0}
    for label, path in files:
        props = property_names(path.read_text(errors="replace"))
        if not any(key(label, path, p) in entries for p in props):
            continue
        ours = tactl_verdicts(path, limit_s)
        for prop in props:
            e = entries.get(key(label, path, prop))
            if e is None:
                continue
            t = ours.get(prop, "-") if isinstance(ours, dict) else "-"
            c = compare(e.verdict, t)
            counts[c] += 1
            note = ours if isinstance(ours, str) else EXPLAINED.get(key(label, path, prop), e.note)
            print(f"{key(label, path, prop):<58} {e.verdict:<11} {e.wall_s:>7.1f} {t:<16} {c:<6} {note}", flush=True)
    print(f"\nbymc-promela summary: agree {counts['agree']}, differ {counts['DIFFER']}, "
          f"not both decided {counts['-']}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tactl.bench.bymc_promela", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="store_true", help="run ByMC on the pairs the cache lacks")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per (file, property) (default 120)")
    parser.add_argument("--first", action="append", default=[], help="a SET/FILE.pml:PROP key to run first")
    args = parser.parse_args(argv)
    if args.run:
        run_missing(ftb_root(), cache_path(), args.limit, tuple(args.first))
        return 0
    return 0 if bymc_promela_table(limit_s=args.limit) else 1


if __name__ == "__main__":
    sys.exit(main())
