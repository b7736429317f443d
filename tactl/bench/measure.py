"""Peak memory of a child process, measured as its own.

``os.wait4``'s ``ru_maxrss`` is not the child's figure: Linux keeps the high-water mark across
``exec``, so a child forked from the bench starts at the bench's RSS (``true`` under a 300 MB
parent reports 313 MB). GNU time (``/usr/bin/time``), itself a small process, forks the command
and reports that child's own peak. Every table that prints a child's peak memory runs it through
:func:`wrapped` and reads it back with :func:`usage`; without GNU time the figure is wait4's, and
the tables say "upper bound" nowhere because Debian installs ``time`` with the build tools.

:func:`process_usage` and :func:`timed_process` run a whole child process this way and time it
(start-up included, as the anchors measure); every table that runs ``tactl`` as a user would
goes through them.
"""

from __future__ import annotations

import compileall
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GNU_TIME = Path("/usr/bin/time")


@dataclass(frozen=True)
class Usage:
    """What the tables read of a child's resource usage (the names of ``resource.struct_rusage``)."""

    ru_maxrss: int     # KiB: the measured command's own peak RSS
    ru_utime: float    # seconds, the command and its children (wait4 on GNU time includes them)
    ru_stime: float


def available() -> bool:
    return GNU_TIME.is_file() and os.access(GNU_TIME, os.X_OK)


def wrapped(args: list[str], rss_file: Path) -> list[str]:
    """``args`` run under GNU time writing the peak RSS (KiB) to ``rss_file``; unchanged without it."""
    return [str(GNU_TIME), "-f", "%M", "-o", str(rss_file), *args] if available() else list(args)


def usage(rusage: os.struct_rusage | object, rss_file: Path) -> Usage:
    """The child's usage: CPU times from wait4, peak RSS from GNU time's file when it wrote one
    (its last word: a failing command adds a "Command exited with non-zero status" line first)."""
    peak = rusage.ru_maxrss  # type: ignore[attr-defined]
    try:
        peak = int(rss_file.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        pass
    return Usage(peak, rusage.ru_utime, rusage.ru_stime)  # type: ignore[attr-defined]


def timed_process(args: list[str]) -> tuple[int, str, float, float]:
    """Exit status, stdout, wall seconds (start-up included) and peak RSS in MB of a child process."""
    code, out, wall, used = process_usage(args)
    return code, out, wall, used.ru_maxrss / 1024


def process_usage(args: list[str], env: dict[str, str] | None = None):
    """Exit status, stdout, wall seconds (start-up included) and the resource usage of a child
    process (:class:`Usage`: its own peak RSS, user and system CPU time)."""
    with tempfile.TemporaryDirectory() as tmp:
        rss = Path(tmp) / "rss"
        start = time.perf_counter()
        proc = subprocess.Popen(wrapped(args, rss), stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env=env)
        out = proc.stdout.read()
        proc.stdout.close()
        _, status, rusage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        return proc.returncode, out, wall, usage(rusage, rss)


def compile_sources() -> None:
    """tactl's modules as bytecode, where Python did not write it, as pip does for an installed
    wheel and the Makefile for the editable install. With ``PYTHONDONTWRITEBYTECODE`` set (as on
    our machines) an editable checkout installed by ``pip install -e`` alone would otherwise
    compile every module again in every ``tactl`` process the tables time: about 0.07 s of CPU
    each, which a user's installed tactl does not spend. Every table run calls it first."""
    import tactl  # lazy: only the folders of the tactl that runs are compiled
    import tactl.ir
    import tactl.passes

    for module in (tactl, tactl.ir, tactl.passes):
        for folder in module.__path__:
            compileall.compile_dir(folder, quiet=1)
