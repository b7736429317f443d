"""The "Parametric Promela sets" table: every Promela file of the six sets of ByMC's benchmark
repository, per file and property: read or refused (with the reason), the verdict, its time and
peak memory, and a peer's verdict where one is recorded.

``python -m tactl.bench --only promela-sets``. The files are those ``make ftb-promela`` fetches
into ``~/.cache/tactl/benchmarks/ftb-promela`` (``$TACTL_FTB_PROMELA`` overrides the place), under
their paths in the repository: ``fmcad13``, ``spin13/parameterized``, ``concur14``,
``cav15/promela``, ``popl17-fmsd17/promela``, ``isola18/promela``. Each property is checked by a
``tactl check FILE -p PROPERTY --json --timeout T`` process of its own, so the time and the peak
memory are that property's (start-up included). A refused file is one row with the first line of
the refusal, never left out.

**Peer verdicts.** The last column is a peer's (ByMC's) verdict per (file, property), read by
:func:`peer_verdicts` from the first JSON file present of ``$TACTL_FTB_PEERS``,
``peer-verdicts.json`` in the sets' folder and ``$TACTL_BYMC_VERDICTS`` or ``bymc-verdicts.json``
in the tools cache (``tactl/engines/checkers.py``'s ``cache_dir``). Two shapes are read:
``{"cav15/promela/c1cs.pml": {"one_step0": "holds", ...}}`` (the path under the sets' folder, then
the property), and the per-pair cache a ByMC run fills, ``{"entries": {"cav15/c1cs.pml:one_step0":
{"verdict": "holds", ...}}}`` with the set's short label (:data:`LABELS`). Without either the column
is '-'.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tactl.bench.promela import SHORT, Timed
from tactl.driver.pipeline import parse_promela_loaded, translate_loaded
from tactl.engines import checkers
from tactl.ir.errors import InputError

SETS = ("fmcad13", "spin13/parameterized", "concur14", "cav15/promela", "popl17-fmsd17/promela",
        "isola18/promela")
FOLDER = "ftb-promela"
PEERS_FILE = "peer-verdicts.json"
BYMC_CACHE = "bymc-verdicts.json"
# a ByMC cache's set labels -> the sets' folders
LABELS = {"fmcad13": "fmcad13", "spin13": "spin13/parameterized", "concur14": "concur14",
          "cav15": "cav15/promela", "popl17": "popl17-fmsd17/promela", "isola18": "isola18/promela"}


def sets_dir() -> Path:
    """``$TACTL_FTB_PROMELA``, else the cache ``make ftb-promela`` fills."""
    env = os.environ.get("TACTL_FTB_PROMELA")
    return Path(env) if env else Path.home() / ".cache" / "tactl" / "benchmarks" / FOLDER


def peer_verdicts(root: Path) -> dict[tuple[str, str], str]:
    """(file under ``root``, property) → a peer's verdict from the first JSON file present (module
    docstring); {} without one."""
    candidates = [os.environ.get("TACTL_FTB_PEERS"), root / PEERS_FILE,
                  os.environ.get("TACTL_BYMC_VERDICTS") or checkers.cache_dir() / BYMC_CACHE]
    for candidate in candidates:
        try:
            raw = json.loads(Path(candidate).read_text()) if candidate else None
        except (OSError, ValueError):
            continue
        if isinstance(raw, dict) and isinstance(raw.get("entries"), dict):
            return {_labelled(k): str(v.get("verdict")) for k, v in raw["entries"].items()
                    if isinstance(v, dict) and ":" in k}
        if isinstance(raw, dict):
            return {(f, p): str(v) for f, props in raw.items() if isinstance(props, dict) for p, v in props.items()}
    return {}


def _labelled(key: str) -> tuple[str, str]:
    """``cav15/c1cs.pml:one_step0`` → (``cav15/promela/c1cs.pml``, ``one_step0``)."""
    where, prop = key.rsplit(":", 1)
    label, _, name = where.partition("/")
    return f"{LABELS.get(label, label)}/{name}", prop


@dataclass(frozen=True)
class Row:
    """One line of the table: a property's outcome, or a refused file (``prop`` '-')."""

    file: str
    prop: str
    read: str  # "read", or "refused: line:col reason"
    verdict: str = ""
    seconds: float | None = None
    peak_mb: float | None = None
    peer: str = "-"


def file_rows(root: Path, path: Path, timeout_s: float, timed_process: Timed,
              peers: dict[tuple[str, str], str]) -> list[Row]:
    """The rows of one file: translated in this process (refused: one row), then one ``tactl
    check`` process per property."""
    label = path.relative_to(root).as_posix()
    try:
        loaded = parse_promela_loaded(path.read_text(), str(path))
        translate_loaded(loaded)
    except InputError as e:
        first = e.first
        where = f"{first.span.line}:{first.span.col} " if first.span else ""
        return [Row(label, "-", f"refused: {where}{first.message}")]
    rows = []
    for prop in loaded.rta.properties:
        code, out, wall, peak = timed_process([sys.executable, "-m", "tactl.cli", "check", str(path), "-p",
                                               prop.name, "--json", "-q", "--timeout", str(timeout_s)])
        try:
            verdict = json.loads(out)["properties"][0]["verdict"]
        except (ValueError, KeyError, IndexError):
            verdict = f"exit {code}"
        rows.append(Row(label, prop.name, "read", verdict, wall, peak, peers.get((label, prop.name), "-")))
    return rows


def promela_sets_table(timeout_s: float, timed_process: Timed, root: Path | None = None) -> bool:
    """Print the table; False when a read file's check did not run to a verdict (exit 2 or a crash)."""
    root = root or sets_dir()
    files = [p for s in SETS for p in sorted((root / s).glob("*.pml"))]
    print("\nParametric Promela sets")
    if not files:
        print(f"(no .pml files under {root}; make ftb-promela fetches them, or set TACTL_FTB_PROMELA)")
        return True
    peers = peer_verdicts(root)
    width = max(len(p.relative_to(root).as_posix()) for p in files)
    header = (f"{'file':<{width}} {'property':<24} {'verdict':<16} {'time s':>7} {'peak MB':>7} "
              f"{'peer':<10}")
    print(header)
    print("-" * len(header))
    ok = True
    counts: dict[str, int] = {}
    for path in files:
        for r in file_rows(root, path, timeout_s, timed_process, peers):
            if r.prop == "-":
                counts["refused"] = counts.get("refused", 0) + 1
                print(f"{r.file:<{width}} {r.read}", flush=True)
                continue
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
            ok &= r.verdict in SHORT
            print(f"{r.file:<{width}} {r.prop:<24} {r.verdict:<16} {r.seconds:>7.2f} {r.peak_mb:>7.1f} "
                  f"{r.peer:<10}", flush=True)
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) +
          f"; time s, peak MB: one `tactl check FILE -p PROPERTY --json` process each, start-up "
          f"included, --timeout {timeout_s:g}; peer: ByMC's verdict where a peer file records one "
          "(tactl/bench/promela_sets.py), else '-'")
    return ok
