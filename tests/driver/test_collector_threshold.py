"""Importing tactl raises the cyclic collector's young-generation threshold
(tactl/util/collector.py), and leaves a host program's own larger or disabled setting alone."""

from __future__ import annotations

import subprocess
import sys

from tactl.util.collector import YOUNG_THRESHOLD


def _threshold_after_import(before: str) -> list[int]:
    script = f"import gc; {before}; import tactl; print(*gc.get_threshold())"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return [int(x) for x in done.stdout.split()]


def test_importing_tactl_raises_only_the_young_generations_threshold():
    assert _threshold_after_import("gc.set_threshold(700, 10, 10)") == [YOUNG_THRESHOLD, 10, 10]


def test_a_larger_threshold_of_the_host_program_is_kept():
    assert _threshold_after_import(f"gc.set_threshold({YOUNG_THRESHOLD * 2}, 7, 8)") == [YOUNG_THRESHOLD * 2, 7, 8]


def test_automatic_collection_turned_off_stays_off():
    assert _threshold_after_import("gc.set_threshold(0)") == [0, 10, 10]
