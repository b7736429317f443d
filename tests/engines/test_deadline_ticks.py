"""The deadline's ticks (tactl/util/deadline.py) interrupt Python wherever it is, except where an
exception would do harm: inside a finalizer, and inside the constructor of a z3 object, where it
once left objects whose finalizer failed ("Exception ignored in AstRef.__del__") and z3 itself in
a state where it answered later calls with ``Z3Exception: unreachable``. A deferred tick comes
back within milliseconds, so the deadline still stops term building at once.

No clocks are read here: the tests count what happened, not how long it took.
"""

from __future__ import annotations

import gc
import sys

import z3

from tactl.util import deadline


def test_a_deadline_during_term_building_stops_it_cleanly_every_time():
    """Hundreds of deadlines, each landing somewhere in a loop that does nothing but build z3
    terms: every one stops the loop, none leaves a broken object behind, and z3 still works."""
    broken: list[str] = []
    hook = sys.unraisablehook
    sys.unraisablehook = lambda raised: broken.append(repr(raised.exc_value))
    x, stopped = z3.Int("x"), 0
    try:
        for _ in range(200):
            deadline.start(0.001)
            try:
                with deadline.interruptible():
                    term = x
                    while True:
                        term = z3.Int("y") + 1 > term
            except deadline.DeadlineExceeded:
                stopped += 1
            finally:
                deadline.cancel()
        del term
        gc.collect()  # finalize what the loops left
    finally:
        sys.unraisablehook = hook
    assert stopped == 200 and broken == []
    solver = z3.Solver()
    solver.add(x > 1, x < 3)
    assert solver.check() == z3.sat and solver.model()[x].as_long() == 2


def _frames_of(call, wanted) -> list:
    """The frames of the Python functions ``wanted(frame)`` selects, entered during ``call()``."""
    found = []

    def profile(frame, event, arg):  # noqa: ARG001 - profile function signature
        if event == "call" and wanted(frame):
            found.append(frame)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return found


def test_a_tick_waits_inside_a_z3_constructor_only():
    in_z3 = lambda frame: frame.f_code.co_filename.startswith(z3.__path__[0])  # noqa: E731
    constructors = _frames_of(lambda: z3.Int("c") + 1,
                              lambda f: in_z3(f) and f.f_code.co_name == "__init__")
    checks = _frames_of(lambda: z3.Solver().check(), lambda f: in_z3(f) and f.f_code.co_name == "check")
    assert constructors and checks
    assert all(deadline._deferred(f) for f in constructors)
    assert not any(deadline._deferred(f) for f in checks)  # a solver call is interrupted as before
    assert not deadline._deferred(sys._getframe())
