"""A stop signal (SIGINT, SIGTERM) ends check's loop over the properties. The watcher thread of
tactl/util/deadline.py cancels the z3 call in progress, and that call's error ("canceled") can
reach the loop before the interrupt itself does (the interrupt is sent again when it landed
where it must wait). Either way the report is the same: what was decided stays, every
property not decided is UNKNOWN "interrupted", none is missing from the output.
"""

from __future__ import annotations

import signal

import pytest
import z3

from conftest import CORPUS
from tactl.driver.inputs import load_automaton
from tactl.engines import check
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, UNKNOWN
from tactl.util import deadline


@pytest.mark.parametrize("surfaced", ["the cancelled call's error", "the interrupt"])
def test_every_property_not_decided_is_unknown_interrupted(monkeypatch, surfaced):
    ta = load_automaton(CORPUS / "strb" / "strb.ta").ta
    real = check._check_one
    calls = []

    def second_is_stopped(*args, **kwargs):
        calls.append(args[1].property)
        if len(calls) == 2:
            monkeypatch.setattr(deadline, "_stopped_by", signal.SIGINT)  # what _stop records
            raise z3.Z3Exception(b"canceled") if surfaced.startswith("the cancelled") else KeyboardInterrupt()
        return real(*args, **kwargs)

    monkeypatch.setattr(check, "_check_one", second_is_stopped)
    report = check_automaton(ta, "strb.ta", CheckOptions())
    verdicts = {r.name: (r.verdict, r.reason) for r in report.results}
    assert report.interrupted is not None
    assert set(verdicts) == {p.name for p in ta.properties}
    first, *rest = [p.name for p in ta.properties]
    assert verdicts[first][0] == HOLDS
    assert all(verdicts[name][0] == UNKNOWN and verdicts[name][1].startswith("interrupted") for name in rest)
