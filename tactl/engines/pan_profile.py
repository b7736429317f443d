"""How tactl builds and runs SPIN's ``pan`` on a process model, in one place: the SPIN runner of
the process model (``tactl.engines.spin_process``) and the spin13 bench table, which runs the
experts' hand-written models with exactly the same options so that the figures compare.

* safety (the negated property has no ``[]``): ``-DSAFETY`` — no nested search, a smaller pan;
* liveness: acceptance cycles (``./pan -a``) under weak process fairness (``-f``, which needs
  ``-DNFAIR``: 3 is enough for our few processes);
* both: ``-O0`` for small models, ``-O2`` from ``OPTIMIZE_FROM`` modelled processes on (measured
  on STRB relay: at n = 7, t = 2 — 5 processes, 123 k states — compiling takes 1 s at -O0 and 6 s
  at -O2 for a search of 3.9 s and 2.7 s; at n = 7, t = 1 — 6 processes, 921 k states — the
  search takes 67 s at -O0 and 45 s at -O2, compiling 1.2 s and 8.7 s, on a shared machine),
  and ``-DCOLLAPSE`` (the state vector stored as indices of its components, which repeat a few
  per-process patterns);
* the search depth starts at 10,000 and grows tenfold while pan reports it too small (the
  DFS stack is allocated up front);
* pan's hash table starts small (``-w18``, 2 MB) and doubles as the states grow, so small models
  stay small; ``-DMEMLIM`` bounds the memory of the whole search.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

HASH_BITS = 18
NFAIR = 3
DEFAULT_MEMORY_MB = 8192
OPTIMIZE_FROM = 6  # processes


@dataclass(frozen=True)
class PanProfile:
    liveness: bool
    memory_mb: int = DEFAULT_MEMORY_MB
    vector_size: int = 4096
    optimize: bool = False  # -O2 instead of -O0

    def cc_flags(self) -> list[str]:
        flags = ["-O2" if self.optimize else "-O0", "-w", "-DCOLLAPSE", f"-DVECTORSZ={self.vector_size}",
                 f"-DMEMLIM={self.memory_mb}"]
        flags.append(f"-DNFAIR={NFAIR}" if self.liveness else "-DSAFETY")
        return flags

    def pan_argv(self, executable: str, claim: str, max_depth: int) -> list[str]:
        argv = [executable]
        if self.liveness:
            argv += ["-a", "-f"]
        return argv + ["-N", claim, f"-m{max_depth}", f"-w{HASH_BITS}"]

    @property
    def mode(self) -> str:
        return "liveness" if self.liveness else "safety"


# pan -m: the DFS stack is allocated up front (about 56 bytes a level: 53 MB for a million), so
# the search starts this deep and is repeated ten times deeper while pan says it was too shallow.
FIRST_DEPTH = 10_000


def run_pan(run: Callable[[list[str]], subprocess.CompletedProcess], profile: PanProfile,
            executable: str, claim: str, max_depth: int) -> subprocess.CompletedProcess:
    """pan on ``claim`` (``run`` runs a command in pan's directory, with its own timeout), the
    search depth grown as needed up to ``max_depth``."""
    depth = min(FIRST_DEPTH, max_depth)
    while True:
        proc = run(profile.pan_argv(executable, claim, depth))
        if "max search depth too small" not in proc.stdout or depth >= max_depth:
            return proc
        depth = min(depth * 10, max_depth)
