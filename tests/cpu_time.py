"""Bounds on how long something takes, in CPU time: a loaded machine stretches wall time by
whatever the other processes take (a test suite at load 14 on two cores sees seven times its
idle wall time), but not the CPU time a process spends.

* :func:`children_cpu` around a subprocess: the CPU time of the children reaped meanwhile (a
  child's own reaped children included: a verify's pool workers, a check's solver processes);
* :func:`tree_cpu` of a running process and its descendants (read when a signal is sent: what
  the process spends after it is the CPU time of stopping);
* :func:`cpu_past_deadline` for ``--timeout``: the CPU time a command in this process spends
  after its deadline passed — the work a deadline cannot stop (an uninterruptible step, the
  report). The promise is that this stays under a second; wall time adds the waits for a CPU.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's reaped children so far."""
    times = os.times()
    return times.children_user + times.children_system


def child_cpu(run: Callable[[], T]) -> tuple[T, float]:
    """``run()`` (which starts a subprocess and waits for it) and the CPU seconds its children
    took. Nothing else may reap a child of this process meanwhile (the tests run one at a time)."""
    before = children_cpu()
    result = run()
    return result, children_cpu() - before


def cpu_past_deadline(seconds: float, run: Callable[[], T]) -> tuple[T, float]:
    """``run()``, a command given ``--timeout seconds`` in this process, and the CPU seconds
    this process spent after ``seconds`` of wall time had passed (0 if it ended before).

    A thread takes the reading when the time is up: z3's calls release the interpreter lock, and
    pure Python code yields it within milliseconds. The command's own clock starts a little
    later than this one, so the figure errs on the side of too much."""
    at: list[float] = []
    done = threading.Event()

    def watch() -> None:
        if not done.wait(seconds):
            at.append(time.process_time())

    watcher = threading.Thread(target=watch, name="deadline-watch", daemon=True)
    watcher.start()
    try:
        result = run()
    finally:
        done.set()
        watcher.join()
    return result, (time.process_time() - at[0]) if at else 0.0


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (field 3, the state, first)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree_cpu(pid: int) -> float:
    """CPU seconds the process ``pid`` and its descendants have used so far, the children they
    reaped included (Linux /proc: utime, stime, cutime, cstime)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name))) is not None:
            parents[int(entry.name)] = int(fields[1])
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        fields = _stat_fields(current)
        if fields is not None:
            total += sum(int(f) for f in fields[11:15]) / tick
        todo.extend(child for child, parent in parents.items() if parent == current)
    return total
