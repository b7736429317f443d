"""``make bench``: tables of how tactl's passes fare on the benchmark inputs.

This module lists the tables and runs ``python -m tactl.bench [--only TABLE …]``; each table
family is its own module, whose docstring says what it measures:

* ``startup`` — process start against a bare Python (``tactl/bench/startup.py``);
* ``reader`` — read, show and round trip of every input (``tactl/bench/reader_inputs.py``);
* ``checker`` — ``tactl check`` per property, cross-checked by z3 and cvc5 (``tactl/bench/checker.py``);
* ``certify`` — ``tactl check --certify`` against a plain check, per file (``tactl/bench/certify.py``);
* ``translation``, ``alg``, ``kinds`` — receive automata and pseudocode through quantifier
  elimination and its certificates (``tactl/bench/translation.py``);
* ``external`` — SPIN and NuSMV at fixed parameters beside tactl (``tactl/bench/external.py``);
* ``verify`` — ``tactl verify corpus/`` cold and warm (``tactl/bench/verify.py``);
* ``sync`` — the lock-step engine on synchronous automata (``tactl/bench/sync.py``);
* ``random19`` — the random19 automata, with ByMC's recorded figures (``tactl/bench/random19.py``,
  ``tactl/bench/peer_timings.json``);
* ``taco-resets``, ``chc-cross-check`` — TACO's reset benchmarks beside its published figures,
  and the chc engine against the parametric one (``tactl/bench/resets.py``);
* ``tla`` — TACO's TLA+ examples and lmcs20's Tendermint module beside their ``.ta`` twins
  (``tactl/bench/tla.py``);
* ``spin13``, ``promela``, ``promela-sets``, ``large``, ``scaling`` — ``tactl/bench/spin13.py``,
  ``promela.py``, ``promela_sets.py``, ``large.py``, ``reader.py``;
* ``chain`` — CPU against the length of a generated chain of relay stages, safety and liveness,
  tactl and ByMC where built (``tactl/bench/chain.py``);
* ``synt`` — ``tactl synthesize`` on the OPODIS'17 synthesis benchmarks, beside ByMC's recorded
  synthesis and the paper (``tactl/bench/synthesis.py``);
* ``bymc-promela`` — ByMC's cached verdicts on the Parametric Promela sets beside tactl's
  (``tactl/bench/bymc_promela.py``);
* ``peers`` (never in the default set; ``make bench-peers`` builds ByMC first) — tactl and ByMC
  side by side on the same files (``tactl/bench/peers.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tactl.bench import REPO
from tactl.bench.bymc_promela import bymc_promela_table
from tactl.bench.certify import certify_table
from tactl.bench.chain import chain_table
from tactl.bench.checker import checker_table
from tactl.bench.external import external_table
from tactl.bench.large import large_table
from tactl.bench.measure import compile_sources, process_usage, timed_process
from tactl.bench.peers import FILTER_ENV, peers_table
from tactl.bench.promela import promela_table
from tactl.bench.promela_sets import promela_sets_table
from tactl.bench.random19 import RANDOM19_TIMEOUT_S, random19_dir, random19_table
from tactl.bench.reader import print_table
from tactl.bench.reader_inputs import reader_table
from tactl.bench.resets import CROSS_TIMEOUT_S, OWN_RESETS, TACO_TIMEOUT_S, cross_check_table, taco_table
from tactl.bench.spin13 import SPIN13_TIMEOUT_S, spin13_table
from tactl.bench.startup import startup_table
from tactl.bench.sync import sync_table
from tactl.bench.synthesis import SYNT_TIMEOUT_S, synthesis_table
from tactl.bench.tla import TLA_TIMEOUT_S, tla_table
from tactl.bench.translation import alg_table, kinds_table, translation_table
from tactl.bench.verify import verify_table
from tactl.ir import read_ta


@dataclass(frozen=True)
class Table:
    """One table of ``python -m tactl.bench``: ``run(args, workdir)`` prints it and says whether
    it passed; ``default``: part of a plain ``make bench`` run (not the ones that build or
    fetch peers)."""

    name: str
    run: Callable[[argparse.Namespace, Path], bool]
    default: bool = True


def _startup(args: argparse.Namespace, workdir: Path) -> bool:
    # Reported, not a failure of `make bench`: the budget is a goal, and machine-dependent.
    startup_table(args.shared)
    return True


def _scaling(args: argparse.Namespace, workdir: Path) -> bool:
    print_table()
    return True


TABLES: tuple[Table, ...] = (
    Table("startup", _startup),
    Table("reader", lambda a, w: reader_table(a.shared, w)),
    Table("checker", lambda a, w: checker_table(a.shared, w, a.timeout)),
    Table("certify", lambda a, w: certify_table(a.shared, a.timeout)),
    Table("translation", lambda a, w: translation_table()),
    Table("alg", lambda a, w: alg_table(a.timeout)),
    Table("external", lambda a, w: external_table(min(a.timeout, 60.0))),
    Table("kinds", lambda a, w: kinds_table(w, a.timeout)),
    Table("verify", lambda a, w: verify_table(w, a.timeout)),
    Table("sync", lambda a, w: sync_table(min(a.timeout, 120.0))),
    Table("random19", lambda a, w: random19_table(min(a.timeout, RANDOM19_TIMEOUT_S))),
    Table("spin13", lambda a, w: spin13_table(min(a.timeout, SPIN13_TIMEOUT_S))),
    # automata outside the steady-schema fragment: TACO's reset benchmarks, and chc against parametric
    Table("taco-resets", lambda a, w: taco_table(min(a.timeout, TACO_TIMEOUT_S), own=OWN_RESETS)),
    # TLA+ modules (make taco-tla) against their .ta twins
    Table("tla", lambda a, w: tla_table(a.shared, min(a.timeout, TLA_TIMEOUT_S))),
    Table("chc-cross-check", lambda a, w: cross_check_table(a.shared, min(a.timeout, CROSS_TIMEOUT_S))),
    # ByMC's Parametric Promela files through the .pml front end
    Table("promela", lambda a, w: promela_table(a.shared, min(a.timeout, 120.0), timed_process)),
    # ByMC's verdicts on the Promela sets (a cache filled by `python -m tactl.bench.bymc_promela --run`)
    Table("bymc-promela", lambda a, w: bymc_promela_table(limit_s=min(a.timeout, 120.0))),
    # every Promela file of the six sets of fault-tolerant-benchmarks, per property (make ftb-promela)
    Table("promela-sets", lambda a, w: promela_sets_table(min(a.timeout, 120.0), timed_process)),
    # the Promela-generated TAs and the large .alg models, with and without the reductions
    Table("large", lambda a, w: large_table(a.shared, min(a.timeout, RANDOM19_TIMEOUT_S), process_usage)),
    Table("scaling", _scaling),
    # the chain family: CPU against the number of relay stages, safety and liveness, ByMC beside
    Table("chain", lambda a, w: chain_table(a.timeout)),
    # tactl synthesize on the OPODIS'17 files (make opodis17), beside ByMC's recorded synthesis and the paper
    Table("synt", lambda a, w: synthesis_table(min(a.timeout, SYNT_TIMEOUT_S))),
    # ByMC side by side (make bench-peers builds ByMC first); long, so never in the default run
    Table("peers", lambda a, w: peers_table(a.shared, random19_dir(), a.timeout, a.peers_filter), default=False),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tactl.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared",
                        help="the folder holding benchmarks/bymc-isola18 (default: ../shared)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds for each tactl check process's property and each solver run")
    parser.add_argument("--only", choices=[t.name for t in TABLES], action="append",
                        help="print only this table (repeatable; default: all but "
                             + ", ".join(t.name for t in TABLES if not t.default) + ")"
                        if any(not t.default for t in TABLES) else "print only this table (repeatable; default: all)")
    parser.add_argument("--peers-filter", metavar="REGEX", default=None,
                        help="peers table: only the GROUP/FILE:PROPERTY pairs this regular expression "
                             f"finds (e.g. 'isola18/strb', ':unforg$'); default ${FILTER_ENV}, else all")
    args = parser.parse_args(argv)
    wanted = set(args.only or (t.name for t in TABLES if t.default))
    read_ta("skel Warm { }")  # build the parser once, outside the measurements
    compile_sources()  # every table times tactl processes as an installed tactl runs
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for table in TABLES:
            if table.name in wanted:
                failed |= not table.run(args, Path(tmp))
    print(f"\nmachine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
