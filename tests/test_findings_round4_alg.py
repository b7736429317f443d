"""Findings A3 and A4 of ../shared/findings/trust-round4.md: how ``.alg`` programs are *read*.

* A3 — ``received (AUX, vals) from K processes`` and ``received (AUX, *) …`` are the sum of the
  instances' counts, which counts distinct senders only when a correct process sends at most one
  instance per round (the instances form a kind). Otherwise the construct is refused at its
  position (passes/parse.py ``_sums_count_processes``); DBFT's AUX, a kind, still works
  (tests/test_alg_sets.py).
* A4 — under crash faults a crashed process keeps its state: ``some P`` sees crashed processes
  (one crash location per valuation of what the properties read), so a *uniform* property that
  the algorithm does not satisfy is VIOLATED, with a replayed counterexample.

Inline copies of the reproducers, so nothing depends on ../shared.
"""

from __future__ import annotations

import json
import re

import pytest

POSITION = re.compile(r"\.alg:(\d+):(\d+): ", re.M)

A3_HEADER = """\
algorithm KindTest2
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
timing async

messages (AUX, {0, 1})

variables
  v: {0, 1} = input
  sent1: bool = false
  fin: bool = false
  S: set of {0, 1} = {0, 1}

loop forever:
  if v == 1 and not sent1:
    send (AUX, 0) to all
    send (AUX, 1) to all
    sent1 := true
"""
A3_TAIL = """\
    fin := true

properties
  nofin: initially (count (v == 1) <= t) -> always (no fin)
"""


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def _report(result) -> dict:
    return json.loads(result.out[result.out.index("{"):result.out.rindex("}") + 1])


@pytest.mark.parametrize("condition", [
    "received (AUX, vals) from n - t distinct processes for some nonempty vals ⊆ S",
    "received (AUX, *) from n - t distinct processes",
])
def test_a_sum_over_instances_that_are_no_kind_is_refused_at_its_position(cli, tmp_path, condition):
    text = A3_HEADER + f"  if not fin and {condition}:\n" + A3_TAIL
    path = _write(tmp_path, "a3.alg", text)
    result = cli("check", path)
    assert result.code == 2, result.out + result.err
    assert "Traceback" not in result.err
    match = POSITION.search(result.err)
    assert match and (int(match.group(1)), int(match.group(2))) == (20, 18), result.err
    assert "several instances of 'AUX'" in result.err and "^^^" in result.err


def test_a_sum_over_a_kind_is_still_read_as_the_sum(cli, tmp_path):
    """One instance per process (the `if`/`else` sends AUX0 or AUX1): a kind, the sum counts
    distinct senders, and the program is checked (here: every correct process that sends is
    counted once, so n - t senders need more than t processes with v = 1)."""
    text = A3_HEADER.replace("""    send (AUX, 0) to all
    send (AUX, 1) to all
""", """    send (AUX, 1) to all
""") + "  if not fin and received (AUX, *) from n - t distinct processes:\n" + A3_TAIL
    result = cli("check", _write(tmp_path, "kind.alg", text), "--json")
    assert result.code == 0, result.out + result.err
    assert {p["name"]: p["verdict"] for p in _report(result)["properties"]} == {"nofin": "holds"}
