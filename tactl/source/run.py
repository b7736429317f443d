"""``tactl run``: one random run of an ``.alg`` program, printed as the pseudocode lines the
processes execute — a protocol designer's debugger (as ``quint run``). The run is drawn from the
interpreter's transitions (``tactl.source.system``, without symmetry reduction: process ids stay
what they are) with a seeded generator, so the same seed gives the same run."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tactl.ir.alg import syntax as A

from .check import make_system
from .report import describe_step, process_state
from .system import Global, Label, System


@dataclass
class RandomRun:
    system: System
    seed: int
    states: list[Global] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    stopped: str = ""  # why the run ended


def random_run(alg: A.Algorithm, params: dict[str, int], seed: int, steps: int) -> RandomRun:
    system = make_system(alg, params)
    rng = random.Random(seed)
    initial = system.initial_states()
    g = initial[rng.randrange(len(initial))]
    run = RandomRun(system, seed, [g])
    for _ in range(steps):
        moves = system.successors(g)
        if not moves:
            run.stopped = ("no process can move and no message is on its way" if not g.pending
                           else "no process can move: receiving the messages on their way would "
                                "change nothing")
            break
        # a kind of move first (a step of some process, a crash, a faulty broadcast), then one
        # of its moves: a process with many receipt choices does not crowd out the others
        by_kind: dict[tuple, list] = {}
        for label, h in moves:
            by_kind.setdefault((label.kind, label.process), []).append((label, h))
        keys = sorted(by_kind)
        label, g = rng.choice(by_kind[keys[rng.randrange(len(keys))]])
        run.labels.append(label)
        run.states.append(g)
    else:
        run.stopped = f"{steps} steps (--steps)"
    return run


def run_text(run: RandomRun, path: str) -> str:
    system = run.system
    valuation = ", ".join(f"{k}={v}" for k, v in system.params.items())
    lines = [f"{path}: {system.prog.alg.name} at {valuation}, seed {run.seed} "
             f"({system.faults.words()})", "initially:"]
    g0 = run.states[0]
    lines.extend("  " + process_state(system, g0, i) for i in range(system.n))
    for i, label in enumerate(run.labels):
        lines.append(f"step {i + 1}: {describe_step(system, label, run.states[i])}")
    lines.append(f"stopped: {run.stopped}")
    last = run.states[-1]
    lines.append("final states:")
    lines.extend("  " + process_state(system, last, i) for i in range(system.n))
    if last.pending:
        lines.append("messages on their way: " + ", ".join(
            f"{system.prog.types[t].text} from {s} to {r}" for s, r, t in sorted(last.pending)))
    return "\n".join(lines)
