"""Findings A3 and A4 of the fourth trust review (reproducers under ``../shared/findings/trust-round4/``
when present): how ``.alg`` programs are *read*.

* A3 — ``received (AUX, vals) from K processes`` and ``received (AUX, *) …`` are the sum of the
  instances' counts, which counts distinct senders only when a correct process sends at most one
  instance per round (the instances form a kind). Otherwise the construct is refused at its
  position (passes/alg_to_rta/kinds.py ``check_sums_count_processes``); DBFT's AUX, a kind, still works
  (tests/frontends/test_alg_sets.py).
* A4 — under crash faults a crashed process keeps its state: ``some P`` sees crashed processes
  (one crash location per valuation of what the properties read), so a *uniform* property that
  the algorithm does not satisfy is VIOLATED, with a replayed counterexample.

Inline copies of the reproducers, so nothing depends on ../shared.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import A4_HEADER, A4_PROPERTIES, report_properties
from conftest import write as _write

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


# A4: deliver on the first DATA and relay in the same step (the loop runs to quiescence)
A4_LOOP = """\
loop forever:
  if v == 1:
    send DATA to all
  upon receiving DATA from at least 1 process:
    v := 1
  upon receiving DATA from at least 1 process:
    delivered := true
"""
# A4b: the relay is a step of its own, so a crash can fall between delivering and relaying
A4B_SPLIT = """\
if v == 1:
  send DATA to all
wait until received DATA from at least 1 process
delivered := true
wait until true
send DATA to all
"""


def _verdicts(result) -> dict[str, dict]:
    return report_properties(_report(result))


@pytest.mark.parametrize("code", [A4_LOOP, A4B_SPLIT], ids=["A4", "A4b"])
def test_a_uniform_property_sees_a_process_that_delivered_and_crashed(cli, tmp_path, code):
    result = cli("check", _write(tmp_path, "a4.alg", A4_HEADER + code + A4_PROPERTIES), "--json")
    assert result.code == 1, result.out + result.err
    props = _verdicts(result)
    assert props["validity"]["verdict"] == "holds"
    uniform = props["uniform_agreement"]
    assert uniform["verdict"] == "violated"
    cex = uniform["counterexample"]
    assert cex["replayed"] is True
    assert cex["parameters"]["n"] <= 5 and cex["parameters"]["f"] <= 2
    # the run ends with a crashed process that kept 'delivered'
    assert cex["configurations"][-1]["locations"]["CR_delivered"] >= 1, cex["configurations"][-1]


def test_the_non_uniform_agreement_still_holds(cli, tmp_path):
    """Only processes that have not crashed (A4: deliver and relay in one step): a process that
    delivered without crashing has relayed in full, so everyone delivers. (In A4b a process may
    deliver, and crash later before relaying: then the premise held and the property fails —
    'not crashed' is a property of the moment, not 'correct for the whole run'.)"""
    text = A4_HEADER + A4_LOOP + A4_PROPERTIES.replace(
        "(some delivered)", "(some (delivered and not crashed))")
    result = cli("check", _write(tmp_path, "a4.alg", text), "--json")
    assert result.code == 0, result.out + result.err
    assert {p["verdict"] for p in _verdicts(result).values()} == {"holds"}


MID_STEP = """\
algorithm MidStep
parameters n, t, f
resilience n > t, t >= f, f >= 0
faults crash(f)
timing async

messages GO

variables
  v: {0, 1} = input
  x: bool = false
  y: bool = false

if v == 1:
  x := true
  send GO to all
  y := true
wait until received GO from at least 1 process
y := true

properties
  # a process that ran its first step has both x and y, unless it crashed between them
  never_x_alone: always (no (x and not y))
  # with the state forgotten (or only the step's ends kept) this would hold: x without y is a
  # state inside the step only
  never_x_alone_crashed: always (no (crashed and x and not y))
  # a process that crashed in the middle of the step still counts; only crashed ones can
  counted: always (count (x) <= count (y))
  bounded: always (count (x) <= count (y) + f)
"""


def test_a_crash_between_two_statements_keeps_the_state_reached_there(cli, tmp_path):
    """``x := true`` then ``send`` then ``y := true``: a process may crash after the send with x
    set and y not, a state neither the step's source nor its target has; the broadcast it made
    reaches some receivers only."""
    path = _write(tmp_path, "mid.alg", MID_STEP)
    result = cli("parse", path, "-o", tmp_path / "mid.rta")
    assert result.code == 0, result.err
    rta = (tmp_path / "mid.rta").read_text()
    declared = re.search(r"crash locations ([^;]*);", rta).group(1).split(", ")
    assert sorted(declared) == ["CR", "CR_x", "CR_x_y", "CR_y"], rta  # one per (x, y) kept
    # the crash after the send, before 'y := true': partial GO, x kept, y not
    assert re.search(r"\d+: v1 -> CR_x send GO;", rta), rta
    result = cli("check", path, "--json")
    props = _verdicts(result)
    assert result.code == 1
    for name in ("never_x_alone", "never_x_alone_crashed", "counted"):
        assert props[name]["verdict"] == "violated", props[name]
        assert props[name]["counterexample"]["replayed"] is True
        assert props[name]["counterexample"]["configurations"][-1]["locations"]["CR_x"] >= 1
    assert props["bounded"]["verdict"] == "holds"


def test_hand_written_rta_keep_the_one_crash_location(cli, tmp_path):
    """A .rta's properties name locations: its crashes go to CR, as before."""
    from conftest import CORPUS
    from tactl.driver.inputs import load_automaton

    ta = load_automaton(CORPUS / "frb" / "frb.rta").ta
    assert [loc.name for loc in ta.locations if loc.name.startswith("CR")] == ["CR"]


def test_crash_sections_round_trip_through_text_and_json(tmp_path):
    from tactl.driver.inputs import read_automaton
    from tactl.ir.rta.json_form import rta_from_json, rta_to_json
    from tactl.ir.rta.printer import print_rta
    from tactl.ir.rta.reader import read_rta

    rta = read_automaton(_write(tmp_path, "mid.alg", MID_STEP)).rta
    assert rta.crash_locations and rta.crash_rules
    assert read_rta(print_rta(rta)).rta == rta
    assert rta_from_json(json.loads(json.dumps(rta_to_json(rta)))) == rta


def test_crash_rules_are_refused_outside_an_asynchronous_crash_model():
    from tactl.ir.errors import InputError
    from tactl.ir.rta.reader import read_rta

    text = """rta R { parameters n, t, f; assumptions { n > 3 * t; } faults byzantine(f);
      timing async; messages M; locations A, B; initial A;
      rules { 0: A -> B when (received(M) >= 1); }
      crash locations CR_x; crash rules { 0: A -> CR_x; } }"""
    with pytest.raises(InputError, match="crash locations and crash rules need"):
        read_rta(text)
    with pytest.raises(InputError, match="a crash rule enters a crash location"):
        read_rta(text.replace("byzantine", "crash").replace("0: A -> CR_x", "0: A -> B"))


def test_frb_is_not_a_uniform_reliable_broadcast(cli, tmp_path):
    """corpus/frb states ISOLA'18's relay over processes that have not crashed (holds); read
    uniformly — a crashed process that accepted counts — it is violated: the broadcaster sends
    and accepts in one step and crashes in it, its broadcast reaching nobody."""
    from conftest import CORPUS

    text = (CORPUS / "frb" / "frb.alg").read_text()
    assert "relay: always ((some (accept and not crashed))" in text
    uniform = text.replace("(some (accept and not crashed))", "(some accept)")
    result = cli("check", _write(tmp_path, "frb.alg", uniform), "--json")
    assert result.code == 1, result.out + result.err
    relay = _verdicts(result)["relay"]
    assert relay["verdict"] == "violated" and relay["counterexample"]["replayed"] is True
    assert relay["counterexample"]["configurations"][-1]["locations"]["CR_accept"] == 1
