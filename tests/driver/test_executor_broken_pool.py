"""A pool whose worker dies while tasks are still being handed over (tactl/driver/executors.py):
the tasks it never took fail as the ones the dead worker ended, a TaskFailed each, instead of a
BrokenProcessPool escaping the run as an unexplained internal error. Under load a worker can die
(the out-of-memory killer) before the main process has submitted every check."""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool

from tactl.driver.executors import LocalPool, TaskFailed


def test_tasks_a_broken_pool_never_took_are_failures(monkeypatch):
    pool = LocalPool(1)
    real_submit = pool.pool.submit
    handed: list[int] = []

    def submit(*args, **kwargs):
        if handed:  # the first task was taken; then the pool breaks
            raise BrokenProcessPool("A child process terminated abruptly")
        handed.append(1)
        return real_submit(*args, **kwargs)

    monkeypatch.setattr(pool.pool, "submit", submit)
    try:
        got = sorted(pool.run(abs, [-1, -2, -3]), key=lambda r: r[0])
    finally:
        pool.close()
    assert [index for index, _, _ in got] == [0, 1, 2]
    assert got[0][1] == 1  # the task handed over ran
    for _, failed, seconds in got[1:]:
        assert isinstance(failed, TaskFailed) and seconds == 0.0
        assert failed.reason.startswith("a worker process of the pool died")
