"""Where the driver's independent property checks run: in this process (``-j 1``), in a local
process pool (``-j N``), or on a Dask distributed scheduler (``--executor dask://HOST:PORT``).

Every executor runs the same task function on the same serialised payloads and yields
``(index, result, seconds)`` as tasks finish, so the verdicts (and the cache entries the driver
writes from them) do not depend on where they were computed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from functools import partial
from typing import Any, Callable, Iterator


class ExecutorError(ValueError):
    pass


def _timed(fn: Callable[[Any], Any], payload: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = fn(payload)
    return result, time.perf_counter() - started


class InProcess:
    def run(self, fn, payloads: list[Any]) -> Iterator[tuple[int, Any, float]]:
        for index, payload in enumerate(payloads):
            result, seconds = _timed(fn, payload)
            yield index, result, seconds


class LocalPool:
    """A process pool: each check runs in the main thread of a worker process, where the
    ``--timeout`` alarm (SIGALRM) works."""

    def __init__(self, jobs: int) -> None:
        self.pool = ProcessPoolExecutor(max_workers=jobs)

    def run(self, fn, payloads: list[Any]) -> Iterator[tuple[int, Any, float]]:
        futures = {self.pool.submit(_timed, fn, p): i for i, p in enumerate(payloads)}
        for future in as_completed(futures):
            result, seconds = future.result()
            yield futures[future], result, seconds

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def in_subprocess(fn: Callable[[Any], Any], payload: Any) -> Any:
    """``fn(payload)`` in a fresh Python process (``fn`` a module-level function, ``payload`` and
    its result JSON). Dask runs tasks in worker *threads*, where no signal handler can be
    installed (the ``--timeout`` alarm), so the task re-enters a main thread."""
    job = {"function": f"{fn.__module__}:{fn.__qualname__}", "payload": payload}
    done = subprocess.run([sys.executable, "-m", "tactl.executors"], input=json.dumps(job),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"task {job['function']} failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)


class DaskCluster:
    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError("--executor dask:// needs the 'distributed' package "
                                "(pip install 'dask[distributed]')") from None
        try:
            self.client = Client(address, timeout="10s")
        except (OSError, TimeoutError) as e:
            raise ExecutorError(f"cannot reach the Dask scheduler at {address}: {e}") from None

    def run(self, fn, payloads: list[Any]) -> Iterator[tuple[int, Any, float]]:
        from distributed import as_completed as dask_completed

        futures = [self.client.submit(_timed, partial(in_subprocess, fn), p, pure=False) for p in payloads]
        index = {f.key: i for i, f in enumerate(futures)}
        for future in dask_completed(futures):
            result, seconds = future.result()
            yield index[future.key], result, seconds

    def close(self) -> None:
        self.client.close()


@contextmanager
def executor_for(spec: str | None, jobs: int):
    if spec:
        if not spec.startswith("dask://"):
            raise ExecutorError(f"unknown executor '{spec}'; use dask://HOST:PORT (default: local)")
        executor: Any = DaskCluster("tcp://" + spec[len("dask://"):])
    elif jobs > 1:
        executor = LocalPool(jobs)
    else:
        executor = InProcess()
    try:
        yield executor
    finally:
        close = getattr(executor, "close", None)
        if close:
            close()


if __name__ == "__main__":  # the subprocess of in_subprocess
    import importlib

    job = json.loads(sys.stdin.read())
    module, name = job["function"].split(":")
    sys.stdout.write(json.dumps(getattr(importlib.import_module(module), name)(job["payload"])))
