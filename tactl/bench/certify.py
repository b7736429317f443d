"""The certify table (``python -m tactl.bench --only certify``): ``tactl check --certify`` on the
corpus (every ``.ta``, and every ``.alg`` whose plain check takes under :data:`QUICK_S`) and on the
ISOLA'18 automata.

Per file, two ``tactl check FILE --json`` processes, without and with ``--certify``
(tactl/engines/certify.py): the properties, the HOLDS of the plain run, how many HOLDS cvc5
certified and with how many queries, the disagreements (a HOLDS cvc5 did not confirm, which
``--certify`` turns into UNKNOWN, or any other verdict that differs between the two runs), and the
wall time of both processes (start-up included) with cvc5's own share of the certified one. The
extra time includes deciding the automaton without its shortcut reduction, which ``--certify``
asks for. The table passes when there is no disagreement.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tactl.bench import REPO
from tactl.bench.measure import timed_process
from tactl.engines import solvers

# A file whose plain check takes longer is left out (said in its row): the table is about the
# certificate's cost, not about the slowest automata.
QUICK_S = 60.0


@dataclass
class CertifyRow:
    name: str
    properties: int
    holds: int
    certified: int
    queries: int
    disagreements: list[str]
    plain_s: float
    certify_s: float
    cvc5_s: float
    failure: str = ""  # a process that gave no report, or why the file was skipped


def certify_inputs(shared: Path) -> list[tuple[str, Path]]:
    found = [(f"corpus/{p.name}", p) for p in sorted((REPO / "corpus").glob("*/*.ta"))]
    found += [(f"corpus/{p.name}", p) for p in sorted((REPO / "corpus").glob("*/*.alg"))]
    found += [(f"isola18/{p.name}", p) for p in sorted((shared / "benchmarks" / "bymc-isola18").glob("*.ta"))]
    return found


def _check(path: Path, timeout_s: float, *extra: str) -> tuple[dict | None, float]:
    args = [sys.executable, "-m", "tactl.cli", "check", str(path), "--json", "-q",
            "--timeout", f"{timeout_s:g}", *extra]
    code, out, wall, _ = timed_process(args)
    try:
        return json.loads(out), wall
    except json.JSONDecodeError:
        return None, wall


def certify_row(name: str, path: Path, timeout_s: float) -> CertifyRow:
    plain, plain_s = _check(path, timeout_s)
    if plain_s > QUICK_S:
        return CertifyRow(name, 0, 0, 0, 0, [], plain_s, 0.0, 0.0, f"skipped: plain check over {QUICK_S:g} s")
    certified, certify_s = _check(path, timeout_s, "--certify")
    if plain is None or certified is None:
        return CertifyRow(name, 0, 0, 0, 0, [], plain_s, certify_s, 0.0, "no JSON report")
    before = {p["name"]: p for p in plain["properties"]}
    after = {p["name"]: p for p in certified["properties"]}
    certificates = [p["certificate"] for p in after.values() if p.get("certificate")]
    confirmed = [c for c in certificates if c["queries"] and c["confirmed"] == c["queries"]]
    changed = [f"{n}: {before[n]['verdict']} -> {after.get(n, {}).get('verdict', 'missing')}"
               for n in before if before[n]["verdict"] != after.get(n, {}).get("verdict")]
    return CertifyRow(name, len(before), sum(p["verdict"] == "holds" for p in before.values()),
                      len(confirmed), sum(c["queries"] for c in confirmed), changed, plain_s, certify_s,
                      sum(c.get("time_s", 0.0) for c in certificates))


def certify_table(shared: Path, timeout_s: float) -> bool:
    """Print the table; False when a HOLDS is not certified or a verdict changes."""
    print("\n## tactl check --certify: every query behind a HOLDS answered again by cvc5\n")
    if solvers.available("cvc5") is None:
        print("cvc5 is not installed (pip install cvc5): table skipped")
        return True
    rows = [certify_row(name, path, timeout_s) for name, path in certify_inputs(shared)]
    header = ("file", "props", "holds", "certified", "cvc5 queries", "disagreements", "plain s",
              "certify s", "extra s", "cvc5 s")
    lines = [header]
    for r in rows:
        if r.failure:
            lines.append((r.name, "-", "-", "-", "-", r.failure, f"{r.plain_s:.2f}", "-", "-", "-"))
            continue
        lines.append((r.name, str(r.properties), str(r.holds), str(r.certified), str(r.queries),
                      "; ".join(r.disagreements) or "0", f"{r.plain_s:.2f}",
                      f"{r.certify_s:.2f}", f"{r.certify_s - r.plain_s:+.2f}", f"{r.cvc5_s:.2f}"))
    failed = any(r.failure and not r.failure.startswith("skipped") for r in rows)
    rows = [r for r in rows if not r.failure]
    lines.append(("total", str(sum(r.properties for r in rows)), str(sum(r.holds for r in rows)),
                  str(sum(r.certified for r in rows)), str(sum(r.queries for r in rows)),
                  str(sum(len(r.disagreements) for r in rows)),
                  f"{sum(r.plain_s for r in rows):.2f}", f"{sum(r.certify_s for r in rows):.2f}",
                  f"{sum(r.certify_s - r.plain_s for r in rows):+.2f}", f"{sum(r.cvc5_s for r in rows):.2f}"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for n, line in enumerate(lines):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return not failed and not any(r.disagreements for r in rows)
