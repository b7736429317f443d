"""The Parametric Promela table: per ByMC benchmark file, the size of the automaton
tactl derives next to the one ByMC generates from Promela where that is public, the verdicts and
the check time.

``python -m tactl.bench --only promela``. The ``isola18-promela`` rows are ByMC's ISOLA'18 sources
(``make isola18-promela``; ``$TACTL_ISOLA18_PROMELA``), read without ``-D`` like ByMC, whose
generated TAs of nbacr, cc and c1cs (case 1) give the "ByMC TA" column. Files the front end refuses are listed with the first
line of the refusal (exit 2), never left out.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Callable
from tactl.driver.pipeline import parse_promela_loaded, translate_loaded
from tactl.ir.errors import InputError
from tactl.ir.ta.reader import read_ta_file

SETS = ("fmcad13", "spin13-parameterized")
ISOLA18 = "isola18-promela"  # ByMC's ISOLA'18 sources: `make isola18-promela`, never in ../shared
# the Promela file whose automaton ByMC generated (without -D: the case-1 variants)
GENERATED = {"nbacr": "nbacr.ta", "cc": "cc_case1.ta", "c1cs": "c1cs_case1.ta"}
SHORT = {"holds": "H", "holds vacuously": "HV", "violated": "V", "unknown": "?", "unsupported": "U"}


def bymc_generated_size(shared: Path, stem: str, name: str = ISOLA18) -> str:
    """Rules of the TA ByMC generated from the same Promela file (ISOLA'18 set: ``GENERATED``),
    else '-'."""
    if name != ISOLA18 or stem not in GENERATED:
        return "-"
    path = shared / "benchmarks" / "bymc-isola18-generated" / GENERATED[stem]
    if not path.exists():
        return "-"
    return str(len(read_ta_file(path).ta.rules))


def isola18_promela_dir() -> Path:
    """Where the ISOLA'18 Promela files are: ``$TACTL_ISOLA18_PROMELA``, else the cache
    ``make isola18-promela`` fills."""
    env = os.environ.get("TACTL_ISOLA18_PROMELA")
    return Path(env) if env else Path.home() / ".cache" / "tactl" / "benchmarks" / ISOLA18


Timed = Callable[[list[str]], tuple[int, str, float, float]]


def promela_table(shared: Path, timeout_s: float, timed_process: Timed, sets: tuple[str, ...] = SETS) -> bool:
    """One row per .pml file; False when a supported file's check fails to run. ``timed_process``
    runs a child process: (exit status, stdout, wall seconds, peak MB) — the other tables' one."""
    root = shared / "benchmarks" / "bymc-promela"
    files = [(name, path) for name in sets for path in sorted((root / name).glob("*.pml"))]
    isola = isola18_promela_dir()
    files += [(ISOLA18, path) for path in sorted(isola.glob("*.pml"))]
    width = max([len("Promela file")] + [len(f"{name}/{path.name}") for name, path in files])
    header = (f"{'Promela file':<{width}} {'lines':>5} {'locs':>4} {'rules':>5} {'TA rules':>8} "
              f"{'ByMC TA':>7} {'parse s':>7} {'verdicts':<50} {'check s':>7} {'peak MB':>7}")
    print("\n" + header)
    print("-" * len(header))
    if not root.is_dir():
        print(f"(no ByMC Promela benchmarks at {root})")
    if not any(name == ISOLA18 for name, _ in files):
        print(f"({ISOLA18}: no .pml files in {isola}; make isola18-promela fetches them, or set "
              "TACTL_ISOLA18_PROMELA)")
    ok = True
    for name, path in files:
        text = path.read_text()
        label = f"{name}/{path.name}"
        start = time.perf_counter()
        try:
            loaded = parse_promela_loaded(text, str(path))
            ta = translate_loaded(loaded).ta
        except InputError as e:
            first = e.first
            where = f"{first.span.line}:{first.span.col} " if first.span else ""
            bymc = bymc_generated_size(shared, path.stem, name)
            theirs = f" (ByMC TA {bymc} rules)" if bymc != "-" else ""
            print(f"{label:<{width}} {text.count(chr(10)):>5} refused{theirs}: {where}{first.message[:90]}")
            continue
        parsed = time.perf_counter() - start
        code, out, wall, peak = timed_process([sys.executable, "-m", "tactl.cli", "check", str(path),
                                                 "--json", "--timeout", str(timeout_s)])
        try:
            found = json.loads(out)["properties"]
            verdicts = " ".join(f"{p['name']}:{SHORT.get(p['verdict'], p['verdict'])}" for p in found)
        except (ValueError, KeyError):
            verdicts = f"exit {code}"
        ok &= code in (0, 1, 3)
        print(f"{label:<{width}} {text.count(chr(10)):>5} {len(loaded.rta.locations):>4} "
              f"{len(loaded.rta.rules):>5} {len(ta.rules):>8} {bymc_generated_size(shared, path.stem, name):>7} "
              f"{parsed:>7.2f} {verdicts:<50} {wall:>7.2f} {peak:>7.1f}", flush=True)
    print("verdicts: H holds, HV holds vacuously, V violated (counterexample replayed), ? unknown, U unsupported; "
          "check s, peak MB: a whole `tactl check FILE --json` process, start-up included; "
          "TA rules include the stutter self-loops the translation adds")
    return ok
