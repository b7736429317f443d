"""``deadline.within``: one piece of work (an instance searched for a run of a Promela file under
its own fairness, tactl/driver/file_reading.py) gets at most its own seconds even when the
command runs a ``--timeout`` clock, and the command's clock is the same afterwards."""

from __future__ import annotations

from tactl.util import deadline


def _spin_until_stopped() -> bool:
    try:
        with deadline.interruptible():
            while True:
                deadline.check()
    except deadline.DeadlineExceeded:
        return True


def test_within_ends_the_work_and_restores_the_commands_clock():
    deadline.start(60)
    try:
        before = deadline.remaining()
        with deadline.within(0.1):
            assert deadline.remaining() <= 0.1
            assert _spin_until_stopped()
        assert deadline.seconds() == 60
        assert before - 5 < deadline.remaining() <= before
    finally:
        deadline.cancel()


def test_within_without_a_command_clock_is_its_own_clock():
    assert not deadline.active()
    with deadline.within(0.1):
        assert deadline.active()
        assert _spin_until_stopped()
    assert not deadline.active()


def test_the_earlier_end_wins():
    deadline.start(0.2)
    try:
        with deadline.within(0.5):
            assert deadline.remaining() <= 0.2
    finally:
        deadline.cancel()
