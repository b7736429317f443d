"""A process that runs checks in-process (the tests, the bench, a program importing tactl) and
then lets the interpreter finish must exit promptly, however deep the z3 terms it still holds
(tactl/util/teardown.py says why z3 could take minutes there).

Each case runs in a process of its own: a check through the in-process entry point
(``tactl.cli.main``), z3 terms nested thousands deep kept alive by a reference cycle (as a
check's leftovers can be), then a normal exit. The child reports the CPU time it used up to its
last line; the parent reads the child's total CPU time from ``wait4``: the difference is the
teardown's CPU time. CPU time, not wall time, so that the machine's load does not matter.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from conftest import CORPUS

# Terms nested this deep: without the exit hook the teardown took 18 s of CPU here (it
# grows with the square of the depth); with it, a few hundredths of a second.
DEPTH = 10_000
# The teardown's CPU time allowed: two orders of magnitude above what it takes, one below the
# quadratic teardown's.
TEARDOWN_CPU_S = 2.0
# A guard, not a measurement: the child takes about 2 s of CPU, which a machine at load 15 on
# two cores stretches to well under a minute of wall time; this only stops a hung child from
# hanging the suite.
HANG_S = 600

CHILD = """
import resource, sys
import z3
from tactl.cli import main
from tactl.util.teardown import own_context

code = main(["check", sys.argv[1]])
context = own_context(z3.Context()) if sys.argv[2] == "private" else z3.main_ctx()

class Leftover:  # a cycle: only the garbage collector frees it, at exit in no particular order
    pass

def deep():
    term, terms = z3.Int("x", context), []
    for i in range(int(sys.argv[3])):
        term = term + i
        terms.append(term)  # every level held, so z3 cannot free the nesting in one pass
    kept = Leftover()
    kept.cycle, kept.terms, kept.context = kept, terms, context
    return kept

held = deep()   # reachable until the module is cleared
deep()          # already garbage
usage = resource.getrusage(resource.RUSAGE_SELF)
print(code, usage.ru_utime + usage.ru_stime, flush=True)
"""


def _run_child(which: str) -> tuple[int, float]:
    """Run the child to its end: its check's exit code and the CPU seconds it reported."""
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(CORPUS / "strb" / "strb.ta"), which,
                              str(DEPTH)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = child.communicate(timeout=HANG_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"the process had not exited {HANG_S} s after it started")
    assert child.returncode == 0, err  # a normal exit, not a crash
    code, before = out.splitlines()[-1].split()  # after the check's own output
    return int(code), float(before)


def _children_cpu() -> float:
    usage = os.times()
    return usage.children_user + usage.children_system


@pytest.mark.parametrize("which", ["main", "private"])
def test_a_process_that_checked_in_process_exits_without_a_long_teardown(which):
    """z3's main context, and a context an engine made for itself (tactl/engines/chc.py)."""
    spent = _children_cpu()
    started = time.monotonic()
    code, before = _run_child(which)
    teardown = _children_cpu() - spent - before  # communicate() reaped it: counted in os.times()
    assert code == 0  # strb's properties hold
    assert teardown < TEARDOWN_CPU_S, (f"the teardown took {teardown:.2f} s of CPU "
                                       f"({time.monotonic() - started:.1f} s wall for the whole child)")
