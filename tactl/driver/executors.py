"""Where the driver's independent property checks run: in this process (``-j 1``), in a local
process pool (``-j N``), or on a Dask distributed scheduler (``--executor dask://HOST:PORT``).

Every executor runs the same task function on the same serialised payloads and yields
``(index, result, seconds)`` as tasks finish, so the verdicts (and the cache entries the driver
writes from them) do not depend on where they were computed. ``started(index)``, when given, is
called as a task starts (the progress display names the task being worked on): exactly in this
process; in a local pool as a worker is free for it (the pool takes tasks in submission order);
never for a Dask cluster, which does not say when a task starts (its tasks show when finished).
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Iterator

from tactl.util import deadline
from tactl.util.deadline import forking_blocked, worker_signals


class ExecutorError(ValueError):
    pass


@dataclass(frozen=True)
class TaskFailed:
    """What an executor yields for a task that returned no result: it raised in its worker, or
    the process running it died (a signal: SIGKILL from the out-of-memory killer, a segfault).
    The driver shows the check as an internal error and the run exits 4 — never a verdict, and
    never a silent exit 0, 1 or 3 with the other checks' verdicts."""

    reason: str


def _failure(error: BaseException, workers=()) -> TaskFailed:
    """The one-line reason of a task's failure (``workers``: the pool's processes, whose exit
    codes name the signal that killed one). A stop signal's consequence is re-raised: an
    interrupted run is reported as interrupted, not as failed tasks."""
    if deadline.interruption(error) is not None or not isinstance(error, Exception):
        raise error
    if isinstance(error, BrokenProcessPool):
        for w in workers:  # the pool is ending them: wait (briefly) for their exit codes
            w.join(timeout=2)
        signals = sorted({-w.exitcode for w in workers if (w.exitcode or 0) < 0})
        if len(signals) > 1 and signal.SIGTERM in signals:
            signals.remove(signal.SIGTERM)  # the pool ends the other workers once one died
        names = ", ".join(_signal_name(n) for n in signals) or "an unknown cause"
        return TaskFailed(f"a worker process of the pool died ({names}"
                          + (": the out-of-memory killer sends SIGKILL" if signal.SIGKILL in signals
                             else "") + ") while this check ran or waited for a worker")
    lines = str(error).strip().splitlines()  # a worker's traceback text: its last line says it
    what = "out of memory" if isinstance(error, MemoryError) else lines[-1][:300] if lines else ""
    return TaskFailed(f"{type(error).__name__} in the worker" + (f": {what}" if what else ""))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


DASK_SCHEME = "dask://"
DASK_DEFAULT_PORT = 8786
_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def dask_address(spec: str) -> str:
    """``dask://HOST[:PORT]`` as the scheduler address Dask takes (``tcp://HOST:PORT``), or
    :class:`ExecutorError` saying what is wrong — before anything tries to connect. HOST is a
    DNS name (labels of 1 to 63 letters, digits and hyphens), an IPv4 address or a bracketed IPv6
    address; PORT is 1 to 65535 (default 8786, Dask's); nothing else (no user, path or query)."""
    def wrong(why: str) -> ExecutorError:
        return ExecutorError(f"--executor '{spec}': {why}; expected dask://HOST:PORT")

    if not spec.startswith(DASK_SCHEME):
        raise wrong("unknown executor (only dask:// is known; the default runs locally)")
    rest = spec[len(DASK_SCHEME):]
    if not rest:
        raise wrong("no host")
    for mark, what in (("@", "a user name"), ("/", "a path"), ("?", "a query"), ("#", "a fragment")):
        if mark in rest:
            raise wrong(f"{what} ('{mark}') is not part of a scheduler address")
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            raise wrong("an IPv6 address opened with '[' is not closed with ']'")
        host, after = rest[1:close], rest[close + 1:]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise wrong(f"'{host}' is not an IPv6 address") from None
        if after and not after.startswith(":"):
            raise wrong(f"unexpected '{after}' after the IPv6 address")
        port_text = after[1:] if after else None
        shown = f"[{host}]"
    else:
        host, colon, port_text = rest.partition(":")  # type: ignore[assignment]
        if not colon:
            port_text = None
        if ":" in (port_text or ""):
            raise wrong("an IPv6 address must be written in brackets, as dask://[::1]:8786")
        if not host:
            raise wrong("no host")
        if len(host) > 253:
            raise wrong(f"the host name is {len(host)} characters long (at most 253)")
        bad = next((label for label in host.rstrip(".").split(".") if not _LABEL.fullmatch(label)), None)
        if bad is not None:
            raise wrong(f"'{host}' is not a host name: " + (
                "an empty label" if not bad else f"the label '{bad[:20]}…' has {len(bad)} characters "
                "(at most 63)" if len(bad) > 63 else f"the label '{bad}' may hold only letters, "
                "digits and inner hyphens"))
        shown = host
    if port_text is None:
        port = DASK_DEFAULT_PORT
    elif not port_text.isascii() or not port_text.isdigit():
        raise wrong(f"the port '{port_text}' is not a number")
    else:
        port = int(port_text)
        if not 1 <= port <= 65535:
            raise wrong(f"the port {port} is not between 1 and 65535")
    return f"tcp://{shown}:{port}"


def _timed(fn: Callable[[Any], Any], payload: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = fn(payload)
    return result, time.perf_counter() - started


Started = Callable[[int], None]


class InProcess:
    def run(self, fn, payloads: list[Any], started: Started | None = None) -> Iterator[tuple[int, Any, float]]:
        for index, payload in enumerate(payloads):
            if started:
                started(index)
            result, seconds = _timed(fn, payload)
            yield index, result, seconds


class LocalPool:
    """A process pool: each check runs in the main thread of a worker process, where the
    ``--timeout`` alarm (SIGALRM) works."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.pool = ProcessPoolExecutor(max_workers=jobs, initializer=worker_signals,
                                        initargs=(os.getpid(),))

    def run(self, fn, payloads: list[Any], started: Started | None = None) -> Iterator[tuple[int, Any, float]]:
        futures: dict[Any, int] = {}
        # the processes, kept as each submit starts them (a pool may start one per submit): a broken
        # pool forgets them, and their exit codes name the signal
        started_workers: dict[int, Any] = {}
        refused: BrokenProcessPool | None = None
        with forking_blocked():  # submit forks the workers
            for i, p in enumerate(payloads):
                try:
                    futures[self.pool.submit(_timed, fn, p)] = i
                except BrokenProcessPool as error:  # a worker died before every task was handed over
                    refused = error
                    break
                started_workers.update(getattr(self.pool, "_processes", None) or {})
        workers = list(started_workers.values())
        begun = min(self.jobs, len(payloads))
        for index in range(begun if started else 0):
            started(index)
        for future in as_completed(futures):
            try:
                result, seconds = future.result()
            except BaseException as error:  # noqa: BLE001 - _failure re-raises interrupts
                result, seconds = _failure(error, workers), 0.0
            yield futures[future], result, seconds  # said finished before the next is started
            if started and begun < len(payloads):  # a worker is free: the next task in order
                started(begun)
                begun += 1
        if refused is not None:  # the tasks never handed over fail as the ones the dead worker ended
            for index in range(len(futures), len(payloads)):
                yield index, _failure(refused, workers), 0.0

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        """Stop now (an interrupt): end the workers, whatever they compute, and reap them."""
        workers = list((getattr(self.pool, "_processes", None) or {}).values())
        for worker in workers:
            worker.terminate()  # SIGTERM: the default action in a worker (worker_signals)
        self.pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.kill()
                worker.join(timeout=5)


def in_subprocess(fn: Callable[[Any], Any], payload: Any) -> Any:
    """``fn(payload)`` in a fresh Python process (``fn`` a module-level function, ``payload`` and
    its result JSON). Dask runs tasks in worker *threads*, where no signal handler can be
    installed (the ``--timeout`` alarm), so the task re-enters a main thread."""
    job = {"function": f"{fn.__module__}:{fn.__qualname__}", "payload": payload}
    done = subprocess.run([sys.executable, "-m", "tactl.driver.executors"], input=json.dumps(job),
                          capture_output=True, text=True, check=False)
    if done.returncode < 0:  # killed: the out-of-memory killer sends SIGKILL
        raise RuntimeError(f"task {job['function']}: its process was killed by "
                           f"{_signal_name(-done.returncode)}")
    if done.returncode != 0:
        raise RuntimeError(f"task {job['function']} failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


class DaskCluster:
    def __init__(self, address: str) -> None:
        try:
            # lazy: dask's distributed takes about a second to import; only --executor dask:// uses it
            from distributed import Client
        except ImportError:
            raise ExecutorError("--executor dask:// needs the 'distributed' package "
                                "(pip install 'dask[distributed]')") from None
        try:
            self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {e}") from None

    def run(self, fn, payloads: list[Any], started: Started | None = None) -> Iterator[tuple[int, Any, float]]:
        # lazy: dask's distributed takes about a second to import; only --executor dask:// uses it
        from distributed import as_completed as dask_completed

        futures = [self.client.submit(_timed, partial(in_subprocess, fn), p, pure=False) for p in payloads]
        self.futures = futures
        index = {f.key: i for i, f in enumerate(futures)}
        for future in dask_completed(futures):
            try:
                result, seconds = future.result()
            except BaseException as error:  # noqa: BLE001 - _failure re-raises interrupts
                # in_subprocess's RuntimeError (the task's process died or raised), KilledWorker
                result, seconds = _failure(error), 0.0
            yield index[future.key], result, seconds

    def close(self) -> None:
        self.client.close()

    def abort(self) -> None:
        """Stop now (an interrupt): cancel what the cluster has not finished."""
        try:
            self.client.cancel(getattr(self, "futures", []), force=True)
        finally:
            self.client.close()


@contextmanager
def executor_for(spec: str | None, jobs: int):
    if spec:
        executor: Any = DaskCluster(dask_address(spec))
    elif jobs > 1:
        executor = LocalPool(jobs)
    else:
        executor = InProcess()
    try:
        yield executor
    except BaseException:  # an interrupt included: stop the workers, do not wait for them
        stop = getattr(executor, "abort", None) or getattr(executor, "close", None)
        if stop:
            stop()
        raise
    close = getattr(executor, "close", None)
    if close:
        close()


if __name__ == "__main__":  # the subprocess of in_subprocess
    import importlib

    job = json.loads(sys.stdin.read())
    module, name = job["function"].split(":")
    sys.stdout.write(json.dumps(getattr(importlib.import_module(module), name)(job["payload"])))
