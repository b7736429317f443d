"""The bench's peak-memory figure is the child's own, not the bench's (tactl.bench.measure)."""

from __future__ import annotations

import sys

import pytest

from tactl.bench import measure
from tactl.bench.measure import process_usage

pytestmark = pytest.mark.skipif(not measure.available(), reason="GNU time (/usr/bin/time) is not installed: "
                                "the tables fall back to wait4's figure, which includes the bench's RSS")

GROW = "import sys; b = bytearray({mb} * 2**20); b[::4096] = b'x' * len(b[::4096]); sys.exit({code})"


def test_a_small_child_of_a_large_parent_reports_its_own_peak():
    ballast = bytearray(200 * 2**20)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touched: the bench is now over 200 MB
    code, _, _, usage = process_usage(["true"])
    assert code == 0
    assert usage.ru_maxrss < 50 * 1024, usage  # wait4 alone says over 200 MB here
    del ballast


def test_a_large_child_reports_its_peak_and_its_exit_status():
    code, _, _, usage = process_usage([sys.executable, "-c", GROW.format(mb=120, code=3)])
    assert code == 3  # GNU time passes the status through (and writes a note before the figure)
    assert 120 * 1024 <= usage.ru_maxrss < 400 * 1024, usage
    assert usage.ru_utime + usage.ru_stime > 0
