"""The pseudocode front end: the `.alg` language, the parse pass, source maps, and its errors.

Known answers for control-state extraction (STRB's four locations and their guards, Ben-Or's
placeholders, quiescence, a coin, synchronous rounds), mutants of the pseudocode that must turn
a property violated with the counterexample printed as pseudocode lines and replayed, one test
per class of bad input (``file:line:col``, caret, exit 2, no traceback), source maps through
``.rta`` text, JSON and the TA, and a Hypothesis fuzzer over `.alg` text.
"""

from __future__ import annotations

import json
import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import CORPUS, verdicts
from tactl.engines.check import CheckOptions, check_automaton
from tactl.driver.inputs import load_automaton
from tactl.ir.alg.reader import parse_alg
from tactl.ir.errors import InputError
from tactl.ir.expr import to_text
from tactl.ir.rta.json_form import rta_from_json, rta_to_json
from tactl.ir.rta.printer import print_rta
from tactl.ir.rta.reader import read_rta
from tactl.passes.alg_to_rta.extract import parse_algorithm

STRB = (CORPUS / "strb" / "strb.alg").read_text()

HEADER = """algorithm X
parameters n, t, f
resilience n > 3t, t >= f, f >= 0
faults byzantine(f)
messages ECHO, (R, {0, 1})
variables
  v: {0, 1} = input
"""


def parse(text: str, path: str = "x.alg"):
    return parse_algorithm(parse_alg(text, path))


def rules_by_edge(rta):
    return {(r.source, r.target, r.sends): to_text(r.guard) for r in rta.rules}


# ------------------------------------------------------------------------- known answers

def test_strb_control_states_and_guards():
    rta = parse(STRB).rta
    assert [loc.name for loc in rta.locations] == ["v0", "v1", "accept", "sentECHO"]
    assert rta.initial == ("v0", "v1")
    edges = rules_by_edge(rta)
    assert edges[("v0", "accept", ("ECHO",))] == "received(ECHO) >= n - t"
    assert edges[("v1", "accept", ("ECHO",))] == "received(ECHO) >= n - t"
    assert edges[("sentECHO", "accept", ())] == "received(ECHO) >= n - t"
    assert edges[("v0", "sentECHO", ("ECHO",))] == \
        "received(ECHO) >= t + 1 && received(ECHO) < n - t"
    # waiting and finished locations get self-loops; V1 (which always sends) does not
    loops = {r.source for r in rta.rules if r.is_self_loop}
    assert loops == {"v0", "accept", "sentECHO"}
    specs = {p.name: to_text(p.formula) for p in rta.properties}
    assert specs["unforgeability"] == "v1 == 0 -> [](accept == 0)"
    assert specs["relay"] == "[](accept != 0 -> <>(v0 == 0 && v1 == 0 && sentECHO == 0))"


def test_strb_alg_checks_like_the_rta():
    assert verdicts(CORPUS / "strb" / "strb.alg") == verdicts(CORPUS / "strb" / "strb.rta")


def test_placeholders_coin_and_round_end():
    """Ben-Or: `for some w` forks per payload value, the else case is "for no w", the coin is a
    free choice, dead variables are forgotten while waiting, and the round end keeps v."""
    result = parse((CORPUS / "benor" / "benor.alg").read_text())
    rta = result.rta
    names = [loc.name for loc in rta.locations]
    assert set(names) == {"v0", "v1", "waitR", "waitP", "D0", "D1", "done_v0", "done_v1"}
    edges = rules_by_edge(rta)
    assert edges[("waitR", "waitP", ("P0D",))].endswith("2 * received(R0) > n + t")
    assert "2 * received(R0) <= n + t && 2 * received(R1) <= n + t" in edges[("waitR", "waitP", ("PQ",))]
    # the coin: both estimates after "fewer than t + 1 of each", rules of their own marked coin
    coin = "received(P0D) < t + 1 && received(P1D) < t + 1"
    tosses = {r.target: to_text(r.guard) for r in rta.rules if r.choice == "coin"}
    assert set(tosses) == {"done_v0", "done_v1"} and all(coin in g for g in tosses.values())
    assert [k.name for k in rta.messages] == ["R0", "R1", "P0D", "P1D", "PQ"]
    assert {m.kind for m in rta.messages} == {"R", "P"}


def test_quiescence_error_for_handlers_that_undo_each_other():
    text = HEADER + "loop forever:\n  upon v == 0:\n    v := 1\n  upon v == 1:\n    v := 0\n"
    with pytest.raises(InputError, match="never becomes quiescent"):
        parse(text)


def test_second_send_of_a_type_in_a_round_does_nothing():
    text = HEADER + "round:\n  send ECHO to all\n  send ECHO to all\n  send (R, v) to all\n"
    rta = parse(text).rta
    sends = {r.sends for r in rta.rules if r.sends}
    assert sends == {("ECHO", "R0"), ("ECHO", "R1")}


def test_synchronous_round_is_one_step_from_round_start_to_round_start():
    """A rule is one whole round; the round's end is the next round's start (lock-step
    semantics reads locations at round starts), so keeping best is a self-loop."""
    rta = parse((CORPUS / "floodmin" / "floodmin.alg").read_text()).rta
    assert rta.timing.value == "sync"
    assert {(r.source, r.target) for r in rta.rules} == {
        ("best0", "best0"), ("best1", "best0"), ("best1", "best1")}
    assert {loc.name for loc in rta.locations} == set(rta.initial)


def test_wait_in_a_synchronous_algorithm_is_refused():
    text = HEADER.replace("faults byzantine(f)", "faults crash(f)\ntiming sync") + \
        "round:\n  send ECHO to all\n  wait until received ECHO from 1 process\n"
    with pytest.raises(InputError, match="synchronous"):
        parse(text)


def test_comments_do_not_change_the_automaton():
    commented = "\n".join(line + "   # a comment" if line.strip() and not line.startswith("#")
                          and not line.rstrip().endswith(":") else line
                          for line in STRB.split("\n"))
    assert parse(commented).rta == parse(STRB).rta


def test_unicode_spellings():
    text = STRB.replace("n > 3t", "n > 3·t").replace(">= f", "≥ f").replace(
        "from t + 1 distinct", "from t + 1 distinct").replace("v == 1", "v = 1")
    assert parse(text).rta == parse(STRB).rta


def test_property_quantifiers_map_to_location_sets():
    text = HEADER + ("loop forever:\n  upon receiving ECHO from t + 1 processes:\n    v := 1\n"
                     "properties\n  a: initially (all v == 0) -> always (no v == 1)\n"
                     "  b: eventually (some v == 1)\n  c: f == 0 -> always (all v == 1)\n")
    specs = {p.name: to_text(p.formula) for p in parse(text).rta.properties}
    assert specs == {"a": "v1 == 0 -> [](v1 == 0)", "b": "<>(v1 != 0)",
                     "c": "f == 0 -> [](v0 == 0)"}


def test_a_conjunction_in_an_if_runs_its_body_and_what_follows():
    text = HEADER.replace("messages ECHO, (R, {0, 1})", "messages A, B, C").replace(
        "  v: {0, 1} = input\n", "") + (
        "  x: bool = false\nround:\n  wait until received A from 1 process\n"
        "  if received A from t + 1 processes and received B from t + 1 processes:\n"
        "    x := true\n  send C to all\n")
    rules = rules_by_edge(parse(text).rta)
    assert rules[("waitA", "x", ("C",))] == "received(A) >= t + 1 && received(B) >= t + 1"
    assert ("waitA", "done", ("C",)) in rules and ("waitA", "waitA", ()) in rules


def test_for_no_value_keeps_every_way_each_condition_fails():
    """`else` of `… for some w` with a non-monotone condition: (R0 <= t or R0 > 2t) for each w."""
    text = HEADER + ("  x: bool = false\nround:\n  wait until received (R, *) from 1 process\n"
                     "  if received (R, w) from more than t processes and received (R, w) from "
                     "at most 2t processes for some w:\n    v := w\n  else:\n    x := true\n")
    rta = parse(text).rta
    import z3
    from tactl.ir.linear import int_symbols, to_z3
    sym = int_symbols()
    guard = next(r.guard for r in rta.rules if (r.source, r.target) == ("v0", "v0_x"))
    s = z3.Solver()
    s.add(sym("t") == 1, sym("n") == 4, sym("received(R0)") == 3, sym("received(R1)") == 0)
    s.add(to_z3(guard, sym))
    assert s.check() == z3.sat, to_text(guard)  # R0 = 2t + 1: no w qualifies, so the else runs


def test_code_before_an_event_loop_is_a_step_that_stops_at_the_loop_head():
    text = HEADER.replace("messages ECHO, (R, {0, 1})", "messages A").replace(
        "  v: {0, 1} = input\n", "") + (
        "  x: bool = false\nsend A to all\nloop forever:\n"
        "  upon receiving A from t + 1 processes:\n    x := true\nproperties\n  p: always (no x)\n")
    rules = rules_by_edge(parse(text).rta)
    assert rules[("start", "loop", ("A",))] == "true"
    assert not any(src == "start" and tgt == "x" for src, tgt, _ in rules)
    assert rules[("loop", "x", ())] == "received(A) >= t + 1"


def test_a_name_sent_with_several_payloads_in_a_round_is_no_kind():
    """Ben-Or's (R, v): one per process and round, a kind. The binary-value broadcast's (B, w):
    a correct process may send both values, so a faulty one may too — separate messages."""
    one = HEADER + "round:\n  send (R, v) to all\n"
    both = HEADER + ("loop forever:\n  if v == 1:\n    send (R, 1) to all\n"
                     "  upon receiving (R, 0) from t + 1 processes:\n    send (R, 0) to all\n")
    later = HEADER + ("round:\n  send (R, 0) to all\n  wait until received ECHO from 1 process\n"
                      "  send (R, 1) to all\n")  # the first flag is dead when the second is sent
    assert {m.kind for m in parse(one).rta.messages if m.name.startswith("R")} == {"R"}
    assert {m.kind for m in parse(later).rta.messages if m.name.startswith("R")} == {None}
    assert {m.kind for m in parse(both).rta.messages if m.name.startswith("R")} == {None}


def test_wait_for_some_value_binds_the_placeholder():
    text = HEADER.replace("faults byzantine(f)", "faults crash(f)").replace(
        "messages ECHO, (R, {0, 1})", "messages (P, {0, 1})") + (
        "round:\n  send (P, v) to all\n"
        "  wait until received (P, w) from more than n/2 processes for some w\n  decide w\n")
    rules = rules_by_edge(parse(text).rta)
    assert rules[("waitP_v0", "v0_D1", ())] == "2 * received(P1) > n"
    assert rules[("waitP_v0", "waitP_v0", ())] == "2 * received(P0) <= n && 2 * received(P1) <= n"


def test_counting_processes_in_properties():
    text = HEADER + ("loop forever:\n  upon receiving ECHO from t + 1 processes:\n    v := 1\n"
                     "properties\n  a: initially (count (v == 0) > count (v == 1) + t) -> always (no v == 1)\n"
                     "  b: always (2 count (v == 1) >= n - f)\n")
    specs = {p.name: to_text(p.formula) for p in parse(text).rta.properties}
    assert specs == {"a": "v0 > v1 + t -> [](v1 == 0)", "b": "[](2 * v1 >= n - f)"}


def test_sent_messages_in_properties():
    """Ben-Or's lemma: no two correct processes send (P, 0, D) and (P, 1, D) — the flags of the
    named types are kept everywhere so that the property can see them."""
    text = (CORPUS / "benor" / "benor.alg").read_text()
    text = text[:text.index("properties")] + (
        "properties\n  unique_d: always not (some sent (P, 0, D) and some sent (P, 1, D))\n")
    rta = parse(text).rta
    spec = to_text(rta.properties[0].formula)
    assert "waitP_sentP0D != 0" in spec and "waitP_sentP1D != 0" in spec
    path = CORPUS / "benor" / "benor.alg"
    from tactl.passes.rta_to_ta.eliminate import translate
    ta = translate(rta).ta
    assert [r.verdict for r in check_automaton(ta, str(path), CheckOptions()).results] == ["holds"]


def test_crashed_processes_in_properties():
    text = HEADER.replace("byzantine(f)", "crash(f)") + (
        "loop forever:\n  upon receiving ECHO from 1 process:\n    v := 1\n"
        "properties\n  a: always (no crashed) -> eventually (all v == 1)\n"
        "  b: always (some crashed -> some v == 0)\n")
    specs = {p.name: to_text(p.formula) for p in parse(text).rta.properties}
    # a crashed process keeps its state: one crash location per value of v, which 'some v == 0'
    # sees too ('all' ranges over the processes that have not crashed)
    assert specs == {"a": "[](CR_v0 == 0 && CR_v1 == 0) -> <>(v0 == 0)",
                     "b": "[]((CR_v0 != 0 || CR_v1 != 0) -> (v0 != 0 || CR_v0 != 0))"}
    with pytest.raises(InputError, match="needs a crash fault model"):
        parse(text.replace("crash(f)", "byzantine(f)"))
    both = parse(text.replace("some crashed -> some v == 0", "some (v == 0 and crashed)")).rta
    assert to_text(both.properties[1].formula) == "[](CR_v0 != 0)"
    # properties that read nothing of the state keep the one crash location CR
    plain = parse(text.replace("some crashed -> some v == 0", "some crashed").replace(
        "eventually (all v == 1)", "eventually (no crashed)")).rta
    assert plain.crash_locations == () and "CR != 0" in to_text(plain.properties[1].formula)


# ------------------------------------------------------------------------- source maps

def test_source_maps_in_rta_text_json_and_ta():
    result = parse(STRB, "strb.alg")
    text = print_rta(result.rta, source_map=True)
    assert '/* line 19 "upon receiving ECHO from n - t distinct processes:"; line 20 "accept := true" */' in text
    assert read_rta(text).rta == result.rta  # the comments do not disturb a re-read
    back = rta_from_json(json.loads(json.dumps(rta_to_json(result.rta))))
    assert back == result.rta
    assert [r.origin for r in back.rules] == [r.origin for r in result.rta.rules]
    assert back.locations[0].origin == result.rta.locations[0].origin
    ta = load_automaton(CORPUS / "strb" / "strb.alg").ta
    accept = next(r for r in ta.rules if r.source == "sentECHO" and r.target == "accept")
    assert accept.origin.lines == (19, 20)


def test_parse_command_prints_the_location_table_and_writes_rta(cli, tmp_path):
    out = tmp_path / "strb.rta"
    r = cli("parse", str(CORPUS / "strb" / "strb.alg"), "-o", str(out))
    assert r.code == 0, r.err
    assert re.search(r"sentECHO\s+in the event loop; v = 1, accept = false; sent ECHO\s+14",
                     r.err)
    assert read_rta(out.read_text()).rta == parse(STRB).rta
    r = cli("check", str(out))
    assert r.code == 0 and "3 hold" in r.out


def test_every_command_reads_alg(cli, tmp_path):
    alg = CORPUS / "strb" / "strb.alg"
    r = cli("show", alg)
    assert r.code == 0 and "threshold automaton STRB" in r.out and "sentECHO" in r.out
    r = cli("fmt", alg)
    assert r.code == 0 and r.out.startswith("rta STRB {") and '/* line 19 "upon receiving' in r.out
    r = cli("translate", alg, "-o", tmp_path / "strb.json")
    doc = json.loads((tmp_path / "strb.json").read_text())
    assert r.code == 0 and doc["rules"][0]["origin"]["file"] == str(alg)
    r = cli("dot", alg, "-o", tmp_path / "strb.dot")
    assert r.code == 0 and "sentECHO" in (tmp_path / "strb.dot").read_text()
    r = cli("emit", alg, "--to", "smtlib", "-o", tmp_path / "smt")
    assert r.code == 0 and (tmp_path / "smt" / "strb.unforgeability.smt2").exists()
    r = cli("fmt", alg, "--in-place")
    assert r.code == 2 and "would replace the pseudocode" in r.err


def test_alg_on_stdin(cli, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(STRB.encode())))
    r = cli("check", "-")
    assert r.code == 0, r.err
    assert "3 hold" in r.out


# ------------------------------------------------------------------------- mutants

MUTANTS = [
    # a threshold t + 1 -> t: a single Byzantine ECHO makes a correct process relay
    ("strb", "from t + 1 distinct", "from t distinct", "unforgeability"),
    # the relay's send dropped: n - t ECHOs are never collected without correct senders
    ("strb", "  if v == 1:\n    send ECHO to all\n", "", "correctness"),
    # Ben-Or deciding on one (P, w, D): a Byzantine D message splits the decisions
    ("benor", "from more than (n + t) / 2 processes for some w:", "from at least 1 process for some w:",
     "agreement"),
]


@pytest.mark.parametrize("alg, old, new, prop", MUTANTS)
def test_pseudocode_mutants_are_caught_and_shown_as_pseudocode(cli, tmp_path, alg, old, new, prop):
    text = (CORPUS / alg / f"{alg}.alg").read_text()
    assert old in text
    path = tmp_path / "mutant.alg"
    path.write_text(text.replace(old, new))
    r = cli("check", str(path), "-p", prop)
    assert r.code == 1, r.out + r.err
    assert "VIOLATED" in r.out and "replayed by the simulator" in r.out
    assert "in the pseudocode" in r.out
    assert re.search(r'step 1: \d+ process(es)? \(.*\) executes? line \d+ "', r.out) or \
        re.search(r"then forever: the processes at \w+ ", r.out), r.out
    r = cli("check", str(path), "-p", prop, "--json")
    cex = json.loads(r.out)["properties"][0]["counterexample"]
    assert cex["replayed"] is True
    assert all("source" in step for step in cex["schedule"])


# ------------------------------------------------------------------------- bad input

BAD = [
    ("unsupported construct", "loop forever:\n  v := 1\n  return v\n", "unsupported statement 'return'"),
    ("payload outside its domain", "round:\n  send (R, 2) to all\n", "payload outside its domain"),
    ("unbounded variable", None, "unbounded"),
    ("send inside a loop", "for r in 1 .. t + 1:\n  send ECHO to all\n", "'for' loops are not supported"),
    ("non-linear threshold", "loop forever:\n  upon receiving ECHO from n * t processes:\n    v := 1\n",
     "not linear"),
    ("unknown variable in a property",
     "loop forever:\n  upon receiving ECHO from t + 1 processes:\n    v := 1\nproperties\n  p: always (no accept)\n",
     "unknown variable 'accept' in a property"),
    ("unknown message", "loop forever:\n  upon receiving READY from t + 1 processes:\n    v := 1\n",
     "unknown message 'READY'"),
    ("value outside a domain", "round:\n  v := 2\n", "outside the domain"),
    ("placeholder not in a payload", "round:\n  if received ECHO from 1 process for some w:\n    v := w\n",
     "must stand in a message payload"),
    ("syntax", "loop forever\n  v := 1\n", "unexpected"),
]


@pytest.mark.parametrize("what, code, message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_reported_with_position_and_caret(cli, tmp_path, what, code, message):
    text = HEADER.replace("v: {0, 1} = input", "x: int = 0") + "round:\n  send ECHO to all\n" \
        if code is None else HEADER + code
    path = tmp_path / "bad.alg"
    path.write_text(text)
    r = cli("parse", str(path))
    assert r.code == 2, (what, r.out, r.err)
    first = r.err.splitlines()[0]
    assert re.match(rf"{re.escape(str(path))}:\d+:\d+: ", first), r.err
    assert message in r.err, r.err
    assert "^" in r.err and "Traceback" not in r.err
    # every command that reads .alg reports it the same way
    r = cli("check", str(path))
    assert r.code == 2 and message in r.err and "Traceback" not in r.err


# ------------------------------------------------------------------------- fuzzing

_TOKENS = ["algorithm", "X", "parameters", "n", ",", "t", "f", "resilience", ">", "3t", ">=",
           "faults", "byzantine(f)", "crash(f)", "timing", "sync", "async", "messages", "ECHO",
           "(R, {0, 1})", "(P, ?)", "variables", "v", ":", "{0, 1}", "=", "input", "bool",
           "loop", "forever", "round", "upon", "receiving", "received", "from", "more than",
           "at least", "(n + t)/2", "⌈n/2⌉", "processes", "if", "elif", "else", "send", "to",
           "all", "wait", "until", "for", "some", "w", ":=", "coin", "decide", "properties",
           "always", "eventually", "initially", "no", "some", "->", "and", "or", "not", "(",
           ")", "*", "?", "1", "0", "⊥", "next round", "#", "\n", "\n  ", "\n    ", " "]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_TOKENS), max_size=60), st.integers(0, len(STRB)),
       st.integers(0, 40))
def test_fuzzed_alg_text_gives_only_tactl_errors(tokens, cut, length):
    """Random token soup, and the STRB text with a random slice replaced by it: the reader and
    the pass either succeed or raise InputError — never another exception."""
    soup = " ".join(tokens)
    for text in (soup, STRB[:cut] + soup + STRB[cut + length:], STRB[:cut]):
        try:
            parse(text)
        except InputError as e:
            assert e.render()
