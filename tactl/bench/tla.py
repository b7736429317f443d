"""The TLA+ table (``python -m tactl.bench --only tla``): every property of TACO's TLA+ examples
(``examples/tla/`` of pleich/TACO) and of lmcs20's Tendermint module, checked from the ``.tla``
file and from its ``.ta`` twin (the ISOLA'18 automaton of the same name; lmcs20's
``tendermint-1round-safety.ta``), one ``tactl check FILE -p P --json`` process each, verdicts
side by side. ``make taco-tla`` fetches the modules into the cache (never into the repository);
without them the table is skipped with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tactl.bench.checker import check_processes
from tactl.bench.random19 import cached_inputs

CACHE = Path.home() / ".cache" / "tactl" / "benchmarks"
TLA_TIMEOUT_S = 120.0  # per property
# A twin's property for the module's, where the names differ: bosco's lemmas are numbered
# differently in the two files; Tendermint's invariant is the twin's two agreement properties.
RENAMED = {("bosco.tla", "lemma3_2"): ("lemma4_0",), ("bosco.tla", "lemma3_3"): ("lemma4_1",),
           ("Tendermint_1round_safety.tla", "RoundAgreementInv"): ("agreement0", "agreement1")}


@dataclass
class TlaRow:
    file: str
    twin: str
    prop: str
    verdict: str
    twin_verdict: str
    wall_s: float

    @property
    def same(self) -> str:
        if self.twin_verdict == "-":
            return "-"
        return "yes" if self.verdict == self.twin_verdict else "NO"


def twin_of(path: Path, shared: Path) -> Path | None:
    """The ``.ta`` twin of a module (None: it has none, e.g. TACO's documentation example SRB)."""
    if path.name == "Tendermint_1round_safety.tla":
        twin = path.with_name("tendermint-1round-safety.ta")
    else:
        twin = shared / "benchmarks" / "bymc-isola18" / path.with_suffix(".ta").name
    return twin if twin.is_file() else None


def _verdict(report: dict | None, code: int) -> str:
    try:
        return report["properties"][0]["verdict"]  # type: ignore[index]
    except (TypeError, KeyError, IndexError):
        return f"exit {code}"


def tla_table(shared: Path, timeout_s: float) -> bool:
    """Print the table; False when a verdict differs from its twin's or a check process failed."""
    paths = cached_inputs(CACHE / "taco-tla", "*.tla", "TLA+ table", "make taco-tla fetches them")
    paths += sorted((CACHE / "lmcs20").glob("*.tla")) if paths else []
    if not paths:
        return True
    print(f"\nTLA+ modules and their .ta twins ({timeout_s:g} s per property)")
    header = f"{'file':<30} {'twin':<28} {'property':<18} {'verdict':<9} {'twin':<9} {'same':<4} {'wall s':>7}"
    print(header)
    print("-" * len(header))
    ok, rows = True, []
    for path in paths:
        twin = twin_of(path, shared)
        for prop, code, report, wall, _ in check_processes(path, timeout_s):
            verdict = _verdict(report, code)
            twin_verdicts = []
            for other in RENAMED.get((path.name, prop), (prop,)) if twin else ():
                [(_, c, r, _, _)] = list(check_processes(twin, timeout_s, properties=(other,)))
                twin_verdicts.append(_verdict(r, c))
            theirs = "-" if not twin_verdicts else twin_verdicts[0] if len(set(twin_verdicts)) == 1 else "/".join(twin_verdicts)
            row = TlaRow(path.name, twin.name if twin else "-", prop, verdict, theirs, wall)
            rows.append(row)
            ok &= not verdict.startswith("exit") and row.same != "NO"
            print(f"{row.file:<30} {row.twin:<28} {prop:<18} {verdict:<9} {theirs:<9} {row.same:<4} {wall:>7.2f}",
                  flush=True)
    compared = [r for r in rows if r.same != "-"]
    print(f"TLA+: {sum(r.same == 'yes' for r in compared)} of {len(compared)} properties with their twin's verdict; "
          f"{len(rows)} properties in {len(paths)} modules")
    return ok
