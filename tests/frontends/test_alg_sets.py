"""Sets over a finite domain and the choice among qualifying quorums in ``.alg`` (passes/alg_to_rta/sets.py,
docs/alg.md "Sets and quorum choice").

The corpus files that use them (floodset, floodmin_k2, dbft) are checked against their
hand-written automata / expected verdicts by tests/frontends/test_alg_corpus.py; here: the semantics of the
constructs on small programs, one weakened variant of each corpus file violated with a replayed
counterexample printed in pseudocode lines, and bad input refused at its position (exit 2).
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import CORPUS
from tactl.ir.alg.reader import parse_alg
from tactl.ir.expr import to_text
from tactl.passes.alg_to_rta.extract import parse_algorithm

HEADER = """algorithm T
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
"""


def _rta(text: str):
    return parse_algorithm(parse_alg(text, "t.alg")).rta


def _first_round(text: str) -> list[dict[str, str]]:
    """The kept values (what `tactl parse` prints as a location's meaning) of the locations one
    round from the initial ones."""
    result = parse_algorithm(parse_alg(text, "t.alg"))
    values = {info.name: dict(info.values) for info in result.locations}
    return [values[r.target] for r in result.rta.rules if r.source in result.rta.initial]


def _guards(rta) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for r in rta.rules:
        out.setdefault((r.source, r.target), []).append(to_text(r.guard))
    return out


# ---- semantics ---------------------------------------------------------------------------------

FLOODSET = HEADER + """timing sync
messages (M, {0, 1})
variables
  W: set of {0, 1} = {input}
round:
  for each w in W:
    send (M, w) to all
  W := W ∪ {w : received (M, w) from at least 1 process}
"""


def test_a_set_variable_is_part_of_the_location_and_starts_as_a_singleton_of_an_input():
    rta = _rta(FLOODSET)
    assert set(rta.initial) == {"W0", "W1"}
    assert {loc.name for loc in rta.locations} == {"W0", "W1", "W01"}
    sends = {r.source: set(r.sends) for r in rta.rules}
    assert sends == {"W0": {"M0"}, "W1": {"M1"}, "W01": {"M0", "M1"}}  # for each w in W
    guards = _guards(rta)
    # the set-builder forks per value, as `if received (M, 1) …` would
    assert guards[("W0", "W01")] == ["received(M1) >= 1"]
    assert guards[("W0", "W0")] == ["received(M1) < 1"]


def test_set_operations_cardinality_membership_min_and_max():
    states = _first_round(HEADER + """timing sync
messages (M, {0, 1, 2})
variables
  W: set of {0, 1, 2} = {0, 2}
  lo: {0, 1, 2} = 1
  hi: {0, 1, 2} = 1
  big: bool = false
  has1: bool = false
round:
  W := (W ∩ {2, 1}) ∪ {w : received (M, w) from at least 1 process}
  if |W| >= 2:
    big := true
  if 1 ∉ W:
    has1 := false
  else:
    has1 := true
  if W != ∅:
    lo := min(W)
    hi := max(W)
properties
  p: always (no |W| == 3 or some 0 in W or some has1)
""")

    def has(**values) -> bool:
        return any(all(s.get(k) == v for k, v in values.items()) for s in states)

    # from W = {0, 2}: W ∩ {2, 1} = {2}; with nothing received W = {2}: not big, lo = hi = 2
    assert has(W="{2}", big="false", has1="false", lo="2", hi="2"), states
    # every value received: W = {0, 1, 2}, big, has1, lo = 0, hi = 2
    assert has(W="{0,1,2}", big="true", has1="true", lo="0", hi="2"), states
    # only 1 received: W = {1, 2}
    assert has(W="{1,2}", big="true", has1="true", lo="1", hi="2"), states
    assert not any(s["W"] == "{0}" for s in states)  # 0 is received or not, 2 stays


def _by_x(text: str) -> dict[str, list[str]]:
    """The guards of the steps that end the wait, by the value of x they set."""
    result = parse_algorithm(parse_alg(text, "t.alg"))
    x = {info.name: dict(info.values).get("x") for info in result.locations}
    out: dict[str, list[str]] = {}
    for r in result.rta.rules:
        if r.source != r.target and r.source.startswith("waitA"):
            out.setdefault(x[r.target], []).append(to_text(r.guard))
    return out


QUORUM = HEADER + """messages (A, {0, 1})
variables
  S: set of {0, 1} = SET
  x: {0, 1, ⊥} = ⊥
send (A, 0) to all
wait until received (A, vals) from n - t distinct processes for some nonempty vals ⊆ S
if vals == {w} for some w:
  x := w
properties
  p: always (no x == 0 or no x == 1)
"""


def test_quorum_choice_counts_the_senders_of_any_value_of_the_chosen_set():
    guards = _by_x(QUORUM.replace("SET", "{0, 1}"))
    assert guards["0"] == ["received(A0) >= n - t"]
    assert guards["1"] == ["received(A1) >= n - t"]
    # vals = {0, 1}: the sum of the instances, as (A, *) counts them
    assert guards["⊥"] == ["received(A0) + received(A1) >= n - t"]
    rta = _rta(QUORUM.replace("SET", "{0, 1}"))
    assert [m.kind for m in rta.messages] == ["A", "A"]  # one A per process: a kind
    # waiting: no subset of S qualifies (the largest does not)
    assert {to_text(r.guard) for r in rta.rules if r.source == r.target == "waitA"} == {
        "received(A0) + received(A1) < n - t"}


def test_a_quorum_choice_is_among_subsets_of_the_current_value_only():
    guards = _by_x(QUORUM.replace("SET", "{1}"))
    assert set(guards) == {"1"}  # {0} and {0, 1} are not subsets of S = {1}
    assert guards["1"] == ["received(A1) >= n - t"]


def test_properties_read_sets():
    rta = _rta(FLOODSET + """properties
  a: always (no W == {1})
  b: always (all 0 in W)
  c: always (no |W| == 2)
  d: always (all 1 not in W)
""")
    props = {p.name: to_text(p.formula) for p in rta.properties}
    assert props["a"] == "[](W1 == 0)"
    assert props["b"] == "[](W1 == 0)"
    assert props["c"] == "[](W01 == 0)"
    assert props["d"] == "[](W1 == 0 && W01 == 0)"


def test_for_each_over_a_literal_and_a_union_in_the_element_order():
    rta = _rta(HEADER + """timing sync
messages (M, {0, 1, 2})
variables
  W: set of {0, 1, 2} = {2}
round:
  for each w in {0} ∪ W:
    send (M, w) to all
""")
    assert [set(r.sends) for r in rta.rules] == [{"M0", "M2"}]


def test_let_vals_be_the_values_received_from_more_than_t_of_them():
    # "upon receiving n - t messages, let vals be the values received from more than t of them"
    states = {}
    result = parse_algorithm(parse_alg(HEADER + """messages (M, {0, 1})
variables
  vals: set of {0, 1} = ∅
send (M, 0) to all
wait until received (M, *) from n - t distinct processes
vals := {w : received (M, w) from more than t processes}
properties
  p: always (no vals == {0, 1})
""", "t.alg"))
    values = {info.name: dict(info.values)["vals"] for info in result.locations}
    for r in result.rta.rules:
        if r.source.startswith("waitM") and r.source != r.target:
            states[values[r.target]] = to_text(r.guard)
    # n - t > 2t messages: more than t of them carry 0 or 1, so vals = {} is pruned (z3), and
    # the literals the others imply are dropped from the guards
    assert states == {
        "{0}": "received(M0) + received(M1) >= n - t && received(M1) <= t",
        "{1}": "received(M0) + received(M1) >= n - t && received(M0) <= t",
        "{0,1}": "received(M0) + received(M1) >= n - t && received(M0) > t && received(M1) > t",
    }, states


def test_a_cardinality_against_a_parameter_term_is_a_threshold():
    rta = _rta(HEADER + """messages (M, {0, 1})
variables
  W: set of {0, 1} = {0, 1}
  x: bool = false
send (M, 0) to all
wait until received (M, *) from n - t processes
if |W| <= t:
  x := true
properties
  p: always (no x)
""")
    guards = {r.target: to_text(r.guard) for r in rta.rules if r.source.startswith("waitM")
              and r.source != r.target}
    assert guards == {"x": "received(M0) + received(M1) >= n - t && t >= 2",
                      "done": "received(M0) + received(M1) >= n - t && t < 2"}, guards


def test_dbft_safety_verdicts_in_the_default_suite(cli):
    """The full set of DBFT's expected verdicts runs with -m slow (tests/frontends/test_alg_corpus.py);
    the decision lock, agreement and validity are checked here on every run."""
    expected = json.loads((CORPUS / "dbft" / "correspondence.json").read_text())["verdicts"]
    wanted = ["lock0", "agreement", "validity1"]
    res = cli("check", "--json", "--no-progress", *(x for p in wanted for x in ("-p", p)),
              CORPUS / "dbft" / "dbft.alg")
    got = {p["name"]: p["verdict"] for p in json.loads(res.out)["properties"]}
    assert got == {p: expected[p] for p in wanted}


# ---- weakened corpus files: violated, with the counterexample in pseudocode lines ---------------

def _violated_lines(tmp_path, cli, corpus_file: str, old: str, new: str, prop: str,
                    simulator: str) -> list[str]:
    """Check ``prop`` of the corpus file with ``old`` replaced by ``new``: it must be VIOLATED
    with a replayed counterexample; the pseudocode lines the counterexample prints. ``--minimize``:
    the tests name lines of the minimal run, which the default minimisation budget
    (tactl/engines/budget.py) may stop short of on a loaded machine."""
    text = (CORPUS / corpus_file).read_text()
    assert old in text, f"{corpus_file} no longer contains {old!r}"
    path = tmp_path / corpus_file.split("/")[-1]
    path.write_text(text.replace(old, new))
    res = cli("check", "--no-progress", "--minimize", "-p", prop, path)
    assert res.code == 1, res.out + res.err
    assert "VIOLATED" in res.out and f"replayed by the {simulator}" in res.out
    return re.findall(r'line \d+ "[^"]*"', res.out.split("in the pseudocode", 1)[1])


def test_floodset_with_a_weakened_threshold_violates_agreement(tmp_path, cli):
    # a received value is adopted only when two processes sent it: after a clean round a
    # process with W = {1} that heard 0 from one process keeps W = {1}
    lines = _violated_lines(tmp_path, cli, "floodset/floodset.alg", "from at least 1 process}",
                            "from at least 2 processes}", "agreement", "lock-step simulator")
    assert 'line 33 "for each w in W:"' in lines
    assert 'line 34 "send (M, w) to all"' in lines


def test_floodmin_k2_with_two_crashes_in_the_round_violates_2_set_agreement(tmp_path, cli):
    lines = _violated_lines(tmp_path, cli, "floodmin/floodmin_k2.alg", "round with at most 1 crash",
                            "round with at most 2 crashes", "k2_agreement", "lock-step simulator")
    assert ('line 35 "best := min({best} ∪ {w : received (M, w) from at least 1 process})"'
            in lines)


def test_dbft_with_resilience_n_greater_than_2t_violates_the_decision_lock(tmp_path, cli):
    lines = _violated_lines(tmp_path, cli, "dbft/dbft.alg", "resilience n > 3t", "resilience n > 2t",
                            "lock0", "simulator")
    assert any(x.startswith('line 52 "if not ended and aux != ⊥ and received (AUX, vals) from '
                            'n - t distinct processes') for x in lines), lines
    assert 'line 58 "decide v"' in lines  # a process decides 0 …
    assert 'line 56 "est := v"' in lines  # … while another ends the round with est = 1


def test_dbft_lock_agrees_with_the_explicit_engine_for_small_parameters(tmp_path, cli):
    """Differential: the explicit engine (one instance, every run) gives the parametric verdicts
    of the decision lock — holds for n = 4, t = f = 1; violated for n = 3, t = f = 1 once the
    resilience condition is weakened to n > 2t."""
    small = ["--engine", "explicit", "--param", "t=1", "--param", "f=1"]
    ok = cli("check", "--no-progress", *small, "--param", "n=4", "-p", "lock0",
             CORPUS / "dbft" / "dbft.alg")
    assert ok.code == 0 and "HOLDS" in ok.out, ok.out + ok.err
    weak = tmp_path / "dbft.alg"
    weak.write_text((CORPUS / "dbft" / "dbft.alg").read_text().replace("resilience n > 3t",
                                                                      "resilience n > 2t"))
    bad = cli("check", "--no-progress", *small, "--param", "n=3", "-p", "lock0", weak)
    assert bad.code == 1 and "VIOLATED" in bad.out and "replayed by the simulator" in bad.out, \
        bad.out + bad.err


# ---- bad input: file:line:col, exit 2 ----------------------------------------------------------

BAD = {
    "union of a non-set": ("""timing sync
messages (M, {0, 1})
variables
  v: {0, 1} = input
round:
  v := v ∪ {1}
""", "6:8", "'v' is not a set"),
    "for each over a non-set": ("""timing sync
messages (M, {0, 1})
variables
  v: {0, 1} = input
round:
  for each w in v:
    send (M, w) to all
""", "6:17", "iterates over a set"),
    "for each containing a wait": ("""messages (M, {0, 1})
variables
  W: set of {0, 1} = {input}
for each w in W:
  wait until received (M, w) from 1 process
""", "5:3", "'wait' inside 'for each'"),
    "membership in a non-set": ("""timing sync
messages (M, {0, 1})
variables
  v: {0, 1} = input
  x: bool = false
round:
  if 0 in v:
    x := true
""", "7:11", "'v' is not a set"),
    "cardinality of a non-set": ("""timing sync
messages (M, {0, 1})
variables
  v: {0, 1} = input
  x: bool = false
round:
  if |v| == 1:
    x := true
""", "7:7", "'v' is not a set"),
    "a set-builder in a wait": ("""messages (M, {0, 1})
variables
  W: set of {0, 1} = ∅
wait until {w : received (M, w) from 1 process} != ∅
""", "4:12", "set-builder"),
    "min of a set that may be empty": ("""timing sync
messages (M, {0, 1})
variables
  W: set of {0, 1} = ∅
  x: {0, 1} = 0
round:
  W := {w : received (M, w) from at least 1 process}
  x := min(W)
""", "8:8", "empty set"),
    "a subset of a non-set": ("""messages (M, {0, 1})
variables
  v: {0, 1} = input
  x: bool = false
wait until received (M, vals) from 1 process for some vals ⊆ v
x := true
""", "5:62", "chooses a subset of a set"),
    "an initial set outside the elements": ("""messages (M, {0, 1})
variables
  W: set of {0, 1} = {2}
send (M, 0) to all
""", "3:22", "not in its element domain"),
    "{input} for a non-set": ("""messages (M, {0, 1})
variables
  v: {0, 1} = {input}
send (M, 0) to all
""", "3:15", "declare 'v' as 'set of"),
    "sending a set": ("""messages (M, {0, 1})
variables
  W: set of {0, 1} = {0, 1}
send (M, W) to all
""", "4:10", "send one message per value"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_set_input_is_refused_at_its_position(case, tmp_path, cli):
    body, where, message = BAD[case]
    path = tmp_path / "bad.alg"
    path.write_text(HEADER + body)
    res = cli("parse", path)
    assert res.code == 2, (case, res.out, res.err)
    first = res.err.splitlines()[0]
    line, col = where.split(":")
    offset = HEADER.count("\n")
    assert first.startswith(f"{path}:{int(line) + offset}:{col}: "), (case, first)
    assert message in first, (case, first)
    assert "Traceback" not in res.err
