"""The synchronous table (``--only sync``): the lock-step engine on the corpus's synchronous
automata, with the diameter it finds and the bounded checks up to it.
"""

from __future__ import annotations

from tactl.bench import REPO
from tactl.driver.inputs import read_automaton
from tactl.engines import lockstep

SYNC_INPUTS = ("corpus/floodmin/floodmin.rta", "corpus/floodmin/floodmin.alg",
               "corpus/floodmin/floodmin_k2.rta", "corpus/floodset/floodset.rta",
               "corpus/rb_sync/rb_sync.rta", "corpus/rb_sync/rb_sync.alg",
               "corpus/phase_queen/phase_queen.rta", "corpus/phase_queen/phase_queen.alg",
               "corpus/phase_king/phase_king.rta", "corpus/phase_king/phase_king.alg")


def sync_table(timeout_s: float) -> bool:
    """Synchronous automata in lock-step rounds: the automaton with the fault model's copies,
    the diameter and the time to find it, the bounded checks up to it, the verdicts."""
    header = f"{'input':<30} {'locs':>5} {'rules':>6} {'D':>3} {'diameter s':>10} {'checks s':>9} " \
             f"{'queries':>7}  verdicts"
    print("\n" + header)
    print("-" * len(header))
    ok = True
    for rel in SYNC_INPUTS:
        automaton = read_automaton(REPO / rel).rta
        results, info = lockstep.check_rta(automaton, timeout_s=timeout_s)
        checks = sum(r.time_s for r in results)
        queries = sum(r.queries for r in results)
        verdicts = " ".join(f"{r.name}:{r.verdict}" for r in results)
        ok &= all(r.verdict == "holds" for r in results)
        print(f"{rel[len('corpus/'):]:<30} {info['locations']:>5} {info['rules']:>6} "
              f"{str(info['diameter']):>3} {info['diameter_s']:>10.2f} {checks:>9.2f} {queries:>7}  {verdicts}",
              flush=True)
    return ok
