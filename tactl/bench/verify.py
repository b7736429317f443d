"""The verify table (``--only verify``): ``tactl verify corpus/`` as a user runs it, with an
empty and a filled cache, one and two worker processes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tactl.bench import REPO
from tactl.bench.measure import timed_process

VERIFY_RUNS = (  # (label, cache directory name, extra arguments)
    ("cold, -j 1", "c1", ["-j", "1"]),
    ("warm, -j 1", "c1", ["-j", "1"]),
    ("cold, -j 2", "c2", ["-j", "2"]),
    ("warm, -j 2", "c2", ["-j", "2"]),
)


def verify_table(workdir: Path, timeout_s: float) -> bool:
    """``tactl verify corpus/`` as a user runs it (one process each, start-up included): with an
    empty cache, then again on the filled one, with one and with two worker processes. Peak
    memory is the main process's (pool workers are separate processes)."""
    header = f"{'run':<12} {'algorithms':>10} {'properties':>10} {'hits':>5} {'misses':>6} " \
             f"{'verdicts':<32} {'wall s':>7} {'peak MB':>8}"
    print("\n" + header)
    print("-" * len(header))
    ok = True
    for label, cache, extra in VERIFY_RUNS:
        code, out, wall, peak = timed_process(
            [sys.executable, "-m", "tactl.cli", "verify", str(REPO / "corpus"), "--json", "--no-progress",
             "--cache-dir", str(workdir / cache), "--report-dir", str(workdir / "report"),
             "--timeout", str(timeout_s), *extra])
        try:
            doc = json.loads(out)
        except ValueError:
            print(f"{label:<12} exit {code}: no report")
            ok = False
            continue
        props = [p for a in doc["algorithms"] for p in a["properties"]]
        counts: dict[str, int] = {}
        for p in props:
            counts[p["verdict"]] = counts.get(p["verdict"], 0) + 1
        verdicts = " ".join(f"{v}:{n}" for v, n in sorted(counts.items()))
        ok &= code in (0, 1, 3)
        print(f"{label:<12} {len(doc['algorithms']):>10} {len(props):>10} {doc['cache']['hits']:>5} "
              f"{doc['cache']['misses']:>6} {verdicts:<32} {wall:>7.2f} {peak:>8.1f}", flush=True)
    return ok
