"""The certify table (``python -m tactl.bench --only certify``): ``tactl check --certify`` on the
corpus (every ``.ta``, and every ``.alg`` whose plain check takes under :data:`QUICK_S`) and on the
ISOLA'18 automata.

Per file, two ``tactl check FILE --json`` processes, without and with ``--certify``
(tactl/engines/certify.py): the properties, the HOLDS of the plain run, how many of them cvc5
certified and with how many queries, the disagreements (cvc5 answered ``sat`` where z3 said
``unsat``), the HOLDS whose engine records no query (``--certify`` leaves them UNKNOWN), any other
verdict that differs between the two runs (a timeout, cvc5 undecided), and the CPU time (user +
system, cvc5's processes included) and wall time of both processes (start-up included), with
cvc5's own share of the certified one's wall time. The extra time includes deciding the automaton without its
shortcut reduction, which ``--certify`` asks for. The table passes when there is no
disagreement.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tactl.bench import checkable_corpus
from tactl.bench.measure import process_usage
from tactl.engines import solvers

# A file whose plain check takes longer is left out (said in its row): the table is about the
# certificate's cost, not about the slowest automata.
QUICK_S = 60.0


@dataclass
class CertifyRow:
    name: str
    properties: int = 0
    holds: int = 0       # HOLDS of the plain check
    certified: int = 0   # of those, confirmed by cvc5 under --certify
    queries: int = 0     # the queries cvc5 confirmed
    disagreements: list[str] = field(default_factory=list)  # cvc5 answered sat where z3 said unsat
    unrecorded: int = 0  # HOLDS that recorded no query (--certify leaves them UNKNOWN)
    other: list[str] = field(default_factory=list)  # any other verdict that differs (a timeout)
    plain_s: float = 0.0
    certify_s: float = 0.0
    plain_cpu: float = 0.0    # user + system seconds, children included
    certify_cpu: float = 0.0
    cvc5_s: float = 0.0
    failure: str = ""  # a process that gave no report, or why the file was skipped


def certify_inputs(shared: Path) -> list[tuple[str, Path]]:
    found = [(f"corpus/{p.name}", p) for p in checkable_corpus("ta")]
    found += [(f"corpus/{p.name}", p) for p in checkable_corpus("alg")]
    found += [(f"isola18/{p.name}", p) for p in sorted((shared / "benchmarks" / "bymc-isola18").glob("*.ta"))]
    return found


def _check(path: Path, timeout_s: float, *extra: str) -> tuple[dict | None, float, float]:
    """The report of ``tactl check PATH --json``, its wall and its CPU seconds (cvc5's included)."""
    args = [sys.executable, "-m", "tactl.cli", "check", str(path), "--json", "-q",
            "--timeout", f"{timeout_s:g}", *extra]
    code, out, wall, used = process_usage(args)
    cpu = used.ru_utime + used.ru_stime
    try:
        return json.loads(out), wall, cpu
    except json.JSONDecodeError:
        return None, wall, cpu


def certify_row(name: str, path: Path, timeout_s: float) -> CertifyRow:
    plain, plain_s, plain_cpu = _check(path, timeout_s)
    if plain_s > QUICK_S:
        return CertifyRow(name, plain_s=plain_s, plain_cpu=plain_cpu,
                          failure=f"skipped: plain check over {QUICK_S:g} s")
    certified, certify_s, certify_cpu = _check(path, timeout_s, "--certify")
    if plain is None or certified is None:
        return CertifyRow(name, plain_s=plain_s, certify_s=certify_s, failure="no JSON report")
    before = {p["name"]: p for p in plain["properties"]}
    after = {p["name"]: p for p in certified["properties"]}
    row = CertifyRow(name, len(before), sum(p["verdict"] == "holds" for p in before.values()),
                     plain_s=plain_s, certify_s=certify_s, plain_cpu=plain_cpu, certify_cpu=certify_cpu)
    for n, was in before.items():
        now = after.get(n, {"verdict": "missing"})
        cert = now.get("certificate") or {}
        row.cvc5_s += cert.get("time_s", 0.0)
        if now["verdict"] == "holds" and cert.get("queries") and cert["confirmed"] == cert["queries"]:
            row.certified += 1
            row.queries += cert["queries"]
        elif cert and not cert.get("queries"):
            row.unrecorded += 1
        elif "cvc5 answered sat" in cert.get("failure", ""):
            row.disagreements.append(n)
        elif now["verdict"] != was["verdict"]:
            why = cert.get("failure") or now.get("reason") or ""
            row.other.append(f"{n}: {was['verdict']} -> {now['verdict']}" + (f" ({why[:60]})" if why else ""))
    return row


def certify_table(shared: Path, timeout_s: float) -> bool:
    """Print the table; False when cvc5 contradicts z3 on a query or a check gives no report."""
    print("\n## tactl check --certify: every query behind a HOLDS answered again by cvc5\n")
    if solvers.available("cvc5") is None:
        print("cvc5 is not installed (pip install cvc5): table skipped")
        return True
    return print_rows([certify_row(name, path, timeout_s) for name, path in certify_inputs(shared)])


HEADER = ("file", "props", "holds", "certified", "cvc5 queries", "disagreements", "not recorded",
          "other changes", "plain CPU s", "certify CPU s", "extra CPU s", "plain s", "certify s", "cvc5 s")


def print_rows(rows: list[CertifyRow]) -> bool:
    """The rows and their total as a Markdown table; False when cvc5 contradicts z3 on a query
    or a check gives no report."""
    lines = [HEADER]
    for r in rows:
        if r.failure:
            lines.append((r.name, *("-" * 6), r.failure, f"{r.plain_cpu:.2f}", "-", "-",
                          f"{r.plain_s:.2f}", "-", "-"))
            continue
        lines.append((r.name, str(r.properties), str(r.holds), str(r.certified), str(r.queries),
                      ", ".join(r.disagreements) or "0", str(r.unrecorded), "; ".join(r.other) or "-",
                      *_times(r.plain_cpu, r.certify_cpu, r.plain_s, r.certify_s, r.cvc5_s)))
    failed = any(r.failure and not r.failure.startswith("skipped") for r in rows)
    rows = [r for r in rows if not r.failure]
    lines.append(("total", *(str(sum(getattr(r, f) for r in rows))
                             for f in ("properties", "holds", "certified", "queries")),
                  str(sum(len(r.disagreements) for r in rows)), str(sum(r.unrecorded for r in rows)),
                  str(sum(len(r.other) for r in rows)),
                  *_times(*(sum(getattr(r, f) for r in rows)
                            for f in ("plain_cpu", "certify_cpu", "plain_s", "certify_s", "cvc5_s")))))
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    for n, line in enumerate(lines):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return not failed and not any(r.disagreements for r in rows)


def _times(plain_cpu: float, certify_cpu: float, plain_s: float, certify_s: float, cvc5_s: float) -> tuple[str, ...]:
    return (f"{plain_cpu:.2f}", f"{certify_cpu:.2f}", f"{certify_cpu - plain_cpu:+.2f}",
            f"{plain_s:.2f}", f"{certify_s:.2f}", f"{cvc5_s:.2f}")
