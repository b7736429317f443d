"""One deadline for a whole command (``--timeout S``).

Reading, translating and certifying, building each query, solving, ordering the schedule and
replaying it all count against the same clock. Two mechanisms enforce it together:

* a real-time interval timer (``SIGALRM``) raises :class:`DeadlineExceeded` in Python code,
  wherever it is — a loop in the query builder or the simulator needs no checks of its own —
  but only inside an :func:`interruptible` region, so that the report of what was decided is
  never cut short. Past the deadline the timer keeps firing every 50 ms, and a tick that finds
  Python inside a finalizer (z3's ``__del__``, say), which would swallow the exception, waits
  for the next one (likewise inside a garbage-collector callback), as does a tick inside the
  constructor of a z3 object: an exception between creating it and taking its reference would
  leave an object whose finalizer fails ("Exception ignored in AstRef.__del__") or releases a
  reference it never took;
* solver calls, which run in C where a signal handler cannot interrupt them, get the remaining
  time as their own timeout (:func:`solver_timeout_ms`).

:class:`DeadlineExceeded` derives from ``BaseException`` (like ``KeyboardInterrupt``), so no
``except Exception`` on the way can mistake it for an ordinary failure and carry on. The checkers
turn it into ``unknown`` for the property at hand, never ``holds``.

An interrupt (SIGINT, Ctrl-C) or SIGTERM is different: it stops the command
(:func:`stop_on_signals`). z3 would take SIGINT for itself (its ``ctrl_c`` handler cancels the
query, which then reads as ``unknown``, and the command goes on); instead z3 is told to leave
the signal alone, Python's handler raises :class:`KeyboardInterrupt` (SIGTERM:
:class:`Terminated`), and a watcher thread, woken by the signal through Python's wakeup file
descriptor, cancels the z3 call in progress so that the exception surfaces at once.
"""

from __future__ import annotations

import ctypes
import gc
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

# z3 reads its timeout as an unsigned 32-bit number of milliseconds.
MAX_SOLVER_MS = 2**32 - 2
# --timeout accepts at most this many seconds (about 11.5 days; beyond it, leave it out).
MAX_SECONDS = 1_000_000.0


class DeadlineExceeded(BaseException):
    """The command's ``--timeout`` has passed."""


_deadline: float | None = None
_seconds: float | None = None
_interruptible_depth = 0
REPEAT_S = 0.05
RETRY_S = 0.002  # after a tick that had to wait (below)


def _in_finalizer(frame) -> bool:
    """True inside a finalizer (z3's ``__del__``, say) or a garbage-collector callback (say,
    Hypothesis's, in the tests): an exception raised there is swallowed (and printed)."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        if frame.f_code.co_name == "__del__" or frame.f_code in callbacks:
            return True
        frame = frame.f_back
    return False


_z3_folder: str | None = None


def _in_z3_constructor(frame) -> bool:
    """True while Python runs a constructor of z3's wrapper objects (or what it calls there):
    an ``AstRef`` gets its context and then takes its reference, and an exception in between
    leaves an object whose finalizer fails or releases a reference it never took. A z3 call
    elsewhere (a solver's ``check``) is interrupted as before."""
    global _z3_folder
    if _z3_folder is None:
        z3 = sys.modules.get("z3")
        if z3 is None or not getattr(z3, "__file__", None):
            return False
        _z3_folder = os.path.dirname(z3.__file__) + os.sep
    while frame is not None and frame.f_code.co_filename.startswith(_z3_folder):
        if frame.f_code.co_name == "__init__":
            return True
        frame = frame.f_back
    return False


def _deferred(frame) -> bool:
    """A signal that lands here is acted on at a later tick (see the module's docstring)."""
    return _in_z3_constructor(frame) or _in_finalizer(frame)


def _alarm(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    if _interruptible_depth == 0:
        return
    if _deferred(frame):  # the next tick soon: a constructor or a finalizer takes microseconds
        signal.setitimer(signal.ITIMER_REAL, RETRY_S, REPEAT_S)
        return
    raise DeadlineExceeded()


@contextmanager
def interruptible() -> Iterator[None]:
    """A region of work that the deadline may interrupt (raising :class:`DeadlineExceeded`)."""
    global _interruptible_depth
    _interruptible_depth += 1
    try:
        check()
        yield
    except ctypes.ArgumentError as e:
        # The tick landed while ctypes converted an argument of a z3 call (z3's Python API is
        # ctypes): ctypes wraps whatever the conversion raised in ArgumentError, an Exception.
        if "DeadlineExceeded" in str(e):
            raise DeadlineExceeded() from e
        raise
    finally:
        _interruptible_depth -= 1


def start(seconds: float | None) -> None:
    """Start the command's clock (None: no deadline)."""
    global _deadline, _seconds
    cancel()
    if seconds is None:
        return
    _seconds = seconds
    _deadline = time.monotonic() + seconds
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT_S)


@contextmanager
def clock(seconds: float | None) -> Iterator[None]:
    """The deadline for one piece of work run on its own (a worker's check): started here
    unless the command already runs one, and cancelled at the end only if started here. The
    command's own ``--timeout`` is the one clock; this is how it reaches a worker process."""
    own = seconds is not None and not active()
    if own:
        start(seconds)
    try:
        yield
    finally:
        if own:
            cancel()


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """At most ``seconds`` for one piece of work (one instance searched for a run): its own clock
    where the command runs none (:func:`clock`), else the earlier of its end and the command's,
    the command's restored afterwards (``--timeout`` and its message unchanged)."""
    global _deadline
    if _deadline is None or not hasattr(signal, "setitimer"):
        with clock(seconds):
            yield
        return
    saved = _deadline
    _deadline = min(saved, time.monotonic() + seconds)
    signal.setitimer(signal.ITIMER_REAL, max(_deadline - time.monotonic(), RETRY_S), REPEAT_S)
    try:
        yield
    finally:
        _deadline = saved
        signal.setitimer(signal.ITIMER_REAL, max(saved - time.monotonic(), RETRY_S), REPEAT_S)


def cancel() -> None:
    global _deadline, _seconds
    if _deadline is not None and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    _deadline = _seconds = None


def active() -> bool:
    return _deadline is not None


def seconds() -> float | None:
    """The --timeout the command was given."""
    return _seconds


def timeout_reason() -> str:
    """Why a property is unknown because the deadline passed (every engine says it the same)."""
    return f"timeout: the --timeout of {seconds():g} s passed"


def remaining() -> float | None:
    """Seconds left (never negative), or None without a deadline."""
    return None if _deadline is None else max(0.0, _deadline - time.monotonic())


def check() -> None:
    """Raise :class:`DeadlineExceeded` if the deadline has passed (for code without signals)."""
    left = remaining()
    if left is not None and left <= 0:
        raise DeadlineExceeded()


def solver_timeout_ms(limit_s: float | None = None) -> int | None:
    """Milliseconds a solver call may take: the time left, capped by ``limit_s``; None: no limit."""
    candidates = [s for s in (remaining(), limit_s) if s is not None]
    if not candidates:
        return None
    return max(1, min(MAX_SOLVER_MS, int(min(candidates) * 1000)))


def parse_seconds(text: str) -> float:
    """A ``--timeout`` value: a finite number of seconds in (0, MAX_SECONDS]."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"'{text}' is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"'{text}' is not a positive, finite number of seconds")
    if value > MAX_SECONDS:
        raise ValueError(f"{text} s is more than {MAX_SECONDS:,.0f} s; leave --timeout out to run "
                         "without a time limit")
    return value


# ------------------------------------------------------------------------------- interrupts


class Terminated(KeyboardInterrupt):
    """SIGTERM: handled as an interrupt (the command stops, reports what it decided)."""


_stopped_by: int | None = None


def stopped_by() -> int | None:
    """The signal (SIGINT or SIGTERM) that stopped the command, if one did."""
    return _stopped_by


def interruption(error: BaseException) -> KeyboardInterrupt | None:
    """The interrupt behind ``error``: itself if it is one; after a stop signal arrived, any
    error is its consequence and stands for it — a z3 call the watcher cancelled raises
    ``Z3Exception`` ("push canceled") before the signal handler runs, and ctypes wraps an
    interrupt that lands while it converts an argument in ``ArgumentError``. None: a real error."""
    if isinstance(error, KeyboardInterrupt):
        return error
    if _stopped_by is None:
        return None
    return Terminated() if _stopped_by == signal.SIGTERM else KeyboardInterrupt()


def interrupted_status(signum: int | None = None) -> int:
    """The exit status of a command stopped by ``signum`` (default: the one received): 128 + the
    signal's number, as shells report it (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + (signum or _stopped_by or signal.SIGINT)


_OWED = 0  # written to the watcher's pipe: a stop signal landed where it is deferred, send it again
_pipe: int | None = None  # the write end of the watcher's pipe (also Python's wakeup fd)


def _stop(signum, frame) -> None:
    """SIGINT and SIGTERM: raise in the main thread — but not inside a finalizer, which would
    swallow it, or inside a z3 object's constructor; then the watcher sends the signal again a
    moment later."""
    global _stopped_by
    _stopped_by = _stopped_by or signum
    if _deferred(frame):
        if _pipe is not None:
            try:
                os.write(_pipe, bytes([_OWED, signum]))
            except OSError:
                pass
        return
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


_contexts: list[object] = []  # z3 contexts besides z3's main one whose calls a stop signal cancels


@contextmanager
def cancellable(context: object) -> Iterator[None]:
    """Calls in the z3 ``context`` (a solver's own, not z3's main one) are cancelled by a stop
    signal like calls in the main context."""
    _contexts.append(context)
    try:
        yield
    finally:
        _contexts.remove(context)


def _cancel_solver_calls(read_end: int) -> None:
    """The watcher thread: on SIGINT or SIGTERM, cancel the z3 call in progress (z3's Python API
    releases the interpreter lock during a call, so this thread runs while the main one waits);
    a signal that landed in a finalizer is sent to the main thread again."""
    main = threading.main_thread().ident
    while True:
        try:
            data = os.read(read_end, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        if {signal.SIGINT, signal.SIGTERM} & set(data):
            z3 = sys.modules.get("z3")
            for context in (getattr(getattr(z3, "z3", None), "_main_ctx", None), *_contexts):
                try:
                    if context is not None:
                        context.interrupt()  # type: ignore[attr-defined]
                except Exception:  # noqa: BLE001 - nothing to cancel
                    pass
        if _OWED in data and main is not None:
            owed = data[data.index(_OWED) + 1] if data.index(_OWED) + 1 < len(data) else signal.SIGINT
            time.sleep(REPEAT_S)  # let the finalizer finish
            signal.pthread_kill(main, owed)


def stop_on_signals() -> None:
    """From now on SIGINT and SIGTERM stop this command promptly, even inside a solver call:
    :class:`KeyboardInterrupt` (SIGTERM: :class:`Terminated`) is raised in the main thread.
    Call once, from the main thread, before any solving."""
    global _pipe
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    try:
        import z3  # lazy: z3 is slow to import; only check and verify stop on signals

        z3.set_param("ctrl_c", False)  # z3 must not take SIGINT (it would make it an unknown)
    except ImportError:
        pass
    if _pipe is not None:
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    threading.Thread(target=_cancel_solver_calls, args=(read_end,), name="tactl-signals",
                     daemon=True).start()
    _pipe = write_end


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def forking_blocked():
    """Around the calls that fork the pool's workers: SIGINT and SIGTERM blocked in this thread,
    so a worker starts with them blocked and cannot run the parent's handlers (inherited by
    fork) before :func:`worker_signals` has set its own — a pool ending a just-forked worker
    would print a traceback from inside multiprocessing. The parent's own signals arriving
    meanwhile stay pending and are delivered when the block ends."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def worker_signals(parent: int) -> None:
    """In a worker process of the driver's pool: the parent decides when to stop (it ends its
    workers itself), so SIGINT is ignored, SIGTERM ends the worker at once, and the worker dies
    with its parent (Linux), never running on as an orphan."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # forked with both blocked (forking_blocked): a SIGTERM sent before this point, when the
    # pool ends its workers, is delivered now and ends the worker quietly
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    signal.set_wakeup_fd(-1)  # the parent's watcher pipe is not this process's
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the call
            os._exit(1)
    except (OSError, AttributeError):
        pass
