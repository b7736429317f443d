"""Coordinator messages in asynchronous automata (passes/rta_to_ta/coordinator.py, ir/rta/coordinator.py).

The encoding is checked three ways on hand-made automata: the TA it gives (parameter cf, its
RC, the initial constraint, the Env in the guards, certificates); differentially, the explicit
engine and the parametric engine on the translated TA against an *oracle* that reads the receive
automaton directly — it places the coordinator as a process of its own (or none, when it is
faulty) and decides each receive guard by enumerating the receive counts the fault model
allows, without quantifier elimination, initial constraints or the invariant; liveness with the
parametric and the explicit engine; the emitted SMT-LIB solved by z3; and end to end through the
CLI (shape errors with positions, exit 2).
"""

from __future__ import annotations

import itertools

import pytest

from conftest import reach_questions
from tactl.engines import explicit, parametric
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.result import HOLDS, UNKNOWN, VIOLATED
from tactl.ir.errors import InputError
from tactl.ir.evaluate import holds
from tactl.ir.expr import to_text
from tactl.ir.rta.model import ReceiveTA, receive_variables, received
from tactl.ir.rta.reader import read_rta
from tactl.ir.eltl.safety import ReachQuery, reach_query
from tactl.passes.rta_to_ta.certify import certify, certify_justice
from tactl.passes.rta_to_ta.eliminate import translate
from tactl.passes.emit.promela_process import unsupported_fault_model
from tactl.passes.rta_to_ta.env import sent

HEAD = """
  parameters n, t, f;
  assumptions (3) { n > 3 * t; t >= f; f >= 0; }
  faults byzantine(f);
  timing async;
"""

# The coordinator's value decides (no quorum): agreement needs a correct coordinator.
FOLLOW = """rta Follow {""" + HEAD + """
  messages K0, K1;
  coordinator K0, K1;
  locations C, W, D0, D1, EQ;
  initial C, W;
  rules (5) {
    0: C -> W send K0;
    1: C -> W send K1;
    2: W -> D0 when (received(K0) >= 1);
    3: W -> D1 when (received(K1) >= 1);
    4: W -> EQ when (received(K0) >= 1 && received(K1) >= 1);
  }
  specifications (6) {
    /* one coordinator message per receiver: nobody sees both values */
    noEquivocationSeen: [](EQ == 0);
    agree: [](D0 == 0 || D1 == 0);
    agree_cc assuming correct coordinator: [](D0 == 0 || D1 == 0);
    noDecide1: [](D1 == 0);
    term: <>(C == 0 && W == 0);
    term_cc assuming correct coordinator: <>(C == 0 && W == 0);
  }
}
"""

# A rotating-coordinator round: estimates (kind E), decide on n - t equal ones, else adopt the
# coordinator's value, else (no coordinator message) keep the estimate.
ROTATE = """rta Rotate {""" + HEAD + """
  kind E: E0, E1;
  messages K0, K1;
  coordinator K0, K1;
  locations C0, C1, V0, V1, W0, W1, D0, D1, A0, A1;
  initial C0, C1, V0, V1;
  rules (12) {
    0: C0 -> V0 send K0;
    1: C1 -> V1 send K1;
    2: V0 -> W0 send E0;
    3: V1 -> W1 send E1;
    4: W0 -> D0 when (received(E0) >= n - t);
    5: W1 -> D1 when (received(E1) >= n - t);
    6: W0 -> A1 when (received(E0) + received(E1) >= n - t && received(E0) < n - t && received(K1) >= 1);
    7: W1 -> A0 when (received(E0) + received(E1) >= n - t && received(E1) < n - t && received(K0) >= 1);
    8: W0 -> A0 when (received(E0) + received(E1) >= n - t && received(E0) < n - t && received(K0) >= 1);
    9: W1 -> A1 when (received(E0) + received(E1) >= n - t && received(E1) < n - t && received(K1) >= 1);
    10: W0 -> A0 when (received(E0) + received(E1) >= n - t && received(K0) + received(K1) == 0);
    11: W1 -> A1 when (received(E0) + received(E1) >= n - t && received(K0) + received(K1) == 0);
  }
  specifications (5) {
    agree: [](D0 == 0 || D1 == 0);
    lock0: [](D0 == 0 || A1 == 0);
    lock0_cc assuming correct coordinator: [](D0 == 0 || A1 == 0);
    validity0: C1 == 0 && V1 == 0 -> [](D1 == 0 && A1 == 0);
    noA1: [](A1 == 0);
  }
}
"""

# One coordinator type and a guard on its absence.
ONE = """rta One {""" + HEAD + """
  messages M, K;
  coordinator K;
  locations Q, S, W, GO, STAY;
  initial Q, S;
  rules (4) {
    0: Q -> W send K;
    1: S -> W send M;
    2: W -> GO when (received(K) >= 1 && received(M) >= n - t);
    3: W -> STAY when (received(K) == 0 && received(M) >= n - t);
  }
  specifications (4) {
    noGo: [](GO == 0);
    noStay: [](STAY == 0);
    notBoth: [](GO == 0 || STAY == 0);
    notBoth_cc assuming correct coordinator: [](GO == 0 || STAY == 0);
  }
}
"""

AUTOMATA = {"follow": FOLLOW, "rotate": ROTATE, "one": ONE}


def rta_of(text: str) -> ReceiveTA:
    return read_rta(text).rta


# ------------------------------------------------------------------------------ the oracle
def _coordinator_sources(rta: ReceiveTA) -> set[str]:
    return {r.source for r in rta.rules if set(r.sends) & set(rta.coordinator)}


def _receivable(rta: ReceiveTA, guard, ns: dict[str, int], params: dict[str, int]) -> bool:
    """Some receive counts the fault model allows satisfy ``guard``: per type at most the
    correct senders' messages plus faulty ones, a faulty sender counted once per kind (at most
    f of them), coordinator types at most what the correct coordinator sent plus cf, and at
    most one coordinator message in all."""
    f, cf = params["f"], params["cf"]
    read = receive_variables(guard)
    coordinator = set(rta.coordinator)
    kind_of = {m.name: (m.kind or m.name) for m in rta.messages}
    ranges = [range(0, ns[m] + (cf if m in coordinator else f) + 1) for m in read]
    for counts in itertools.product(*ranges):
        rcv = dict(zip(read, counts))
        if sum(c for m, c in rcv.items() if m in coordinator) > 1:
            continue
        faulty: dict[str, int] = {}
        for m, c in rcv.items():
            if m not in coordinator:
                faulty[kind_of[m]] = faulty.get(kind_of[m], 0) + max(0, c - ns[m])
        if any(v > f for v in faulty.values()):
            continue
        if holds(guard, {**params, **{received(m).name: c for m, c in rcv.items()}}):
            return True
    return False


def oracle_violated(rta: ReceiveTA, question: ReachQuery, params: dict[str, int]) -> bool:
    """Whether a configuration satisfying ``question.bad`` is reachable at ``params`` (cf
    included): n - f correct processes, one of them the coordinator (in a location that sends
    a coordinator message) unless cf = 1."""
    n, f, cf = params["n"], params["f"], params["cf"]
    locations = [loc.name for loc in rta.locations]
    sources = _coordinator_sources(rta)
    plain = [l for l in rta.initial if l not in sources]
    starts = [l for l in rta.initial if l in sources]
    messages = [m.name for m in rta.messages]
    rest = n - f - (1 - cf)
    if rest < 0:
        return False

    def env(state):
        counts, ns = state
        return {**params, **dict(zip(locations, counts)), **{sent(m): c for m, c in zip(messages, ns)}}

    frontier = []
    coordinator_starts = starts if cf == 0 else [None]
    for where in coordinator_starts:
        for split in itertools.product(range(rest + 1), repeat=len(plain)):
            if sum(split) != rest:
                continue
            counts = dict.fromkeys(locations, 0)
            counts.update(zip(plain, split))
            if where is not None:
                counts[where] += 1
            state = (tuple(counts[l] for l in locations), (0,) * len(messages))
            if holds(question.initial, env(state)):
                frontier.append(state)
    seen = set(frontier)
    while frontier:
        state = frontier.pop()
        if holds(question.bad, env(state)):
            return True
        counts, ns = state
        sent_now = dict(zip(messages, ns))
        for r in rta.rules:
            i = locations.index(r.source)
            if counts[i] == 0 or not _receivable(rta, r.guard, sent_now, params):
                continue
            after = list(counts)
            after[i] -= 1
            after[locations.index(r.target)] += 1
            sends = tuple(c + r.sends.count(m) for m, c in zip(messages, ns))
            nxt = (tuple(after), sends)
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return False


def instances(max_n: int = 5):
    for n, t, f in itertools.product(range(1, max_n + 1), range(0, 2), range(0, 2)):
        if n > 3 * t and t >= f:
            for cf in range(0, min(1, f) + 1):
                yield {"n": n, "t": t, "f": f, "cf": cf}


# ------------------------------------------------------------------------------ the tests
def test_the_translation_adds_cf_its_rc_the_initial_constraint_and_the_env():
    tr = translate(rta_of(FOLLOW))
    ta = tr.ta
    assert ta.parameters == ("n", "t", "f", "cf")
    rc = {to_text(a) for a in ta.assumptions}
    assert {"cf >= 0", "cf <= 1", "cf <= f"} <= rc, rc
    assert "C == 1 - cf" in {to_text(e) for e in ta.inits}
    guards = {g.rule_id: [to_text(x) for x in g.send_guards] for g in tr.guards}
    assert guards[2] == ["ns_K0 >= -cf + 1"]  # + cf, not + f: only the coordinator sends K
    assert all(c.ok for c in certify(rta_of(FOLLOW), tr))
    assert all(c.exact and c.admissible and c.justified for c in certify_justice(rta_of(FOLLOW), tr))


@pytest.mark.parametrize("name", sorted(AUTOMATA))
def test_every_guard_and_justice_atom_is_certified(name):
    rta = rta_of(AUTOMATA[name])
    tr = translate(rta)
    assert all(c.ok for c in certify(rta, tr))
    assert all(c.exact and c.admissible and c.justified for c in certify_justice(rta, tr))


@pytest.mark.parametrize("name", sorted(AUTOMATA))
def test_explicit_and_parametric_agree_with_the_receive_automaton_oracle(name):
    rta = rta_of(AUTOMATA[name])
    ta = translate(rta).ta
    compared = 0
    for prop, question in reach_questions(ta):
        par = parametric.check(ta, question)
        assert par.verdict in (HOLDS, VIOLATED), (prop.name, par.reason)
        if par.verdict == VIOLATED:
            assert par.counterexample.replayed
        some_violation = False
        for params in instances():
            expected = oracle_violated(rta, question, params)
            got = explicit.check(ta, question, params, bound=6, max_states=50_000)
            assert got.verdict in (HOLDS, VIOLATED) or (
                got.verdict == UNKNOWN and "nothing was checked" in got.reason), (prop.name, params, got.reason)
            if got.verdict == UNKNOWN:  # no initial configuration at these parameters
                assert not expected
                continue
            assert (got.verdict == VIOLATED) == expected, (prop.name, params)
            if expected:
                assert got.counterexample.replayed
            some_violation |= expected
            compared += 1
        # holds for all n exactly when no small instance violates it (these automata are small)
        assert (par.verdict == VIOLATED) == some_violation, prop.name
    assert compared > 0


def test_liveness_under_a_correct_coordinator_holds_and_fails_without_one():
    ta = translate(rta_of(FOLLOW)).ta
    report = check_automaton(ta, "follow", CheckOptions(properties=("term", "term_cc")))
    verdicts = {r.name: r.verdict for r in report.results}
    assert verdicts == {"term": VIOLATED, "term_cc": HOLDS}
    (lasso,) = [r for r in report.results if r.name == "term"]
    assert lasso.counterexample.replayed and lasso.counterexample.parameters["cf"] == 1


def test_explicit_liveness_agrees_at_small_parameters():
    ta = translate(rta_of(FOLLOW)).ta
    options = CheckOptions(engine=explicit.ENGINE, properties=("term", "term_cc"),
                           parameters={"n": 4, "t": 1, "f": 1})
    verdicts = {r.name: r.verdict for r in check_automaton(ta, "follow", options).results}
    assert verdicts == {"term": VIOLATED, "term_cc": HOLDS}


def test_emitted_smtlib_gives_the_parametric_verdicts(cli, tmp_path):
    import z3  # lazy: only this test solves the emitted files itself

    source = tmp_path / "follow.rta"
    source.write_text(FOLLOW, encoding="utf-8")
    out = tmp_path / "smt"
    assert cli("emit", source, "--to", "smtlib", "-o", out).code == 0
    ta = translate(rta_of(FOLLOW)).ta
    answers = {}
    for prop in ("agree", "agree_cc", "noEquivocationSeen", "noDecide1"):
        solver = z3.Solver()
        solver.add(z3.parse_smt2_file(str(out / f"follow.{prop}.smt2")))
        answers[prop] = solver.check()
        question = reach_query(ta, next(p for p in ta.properties if p.name == prop))
        expected = parametric.check(ta, question).verdict
        assert answers[prop] == (z3.unsat if expected == HOLDS else z3.sat), prop
    assert answers["agree"] == z3.sat and answers["agree_cc"] == z3.unsat


def test_spin_process_model_refuses_coordinator_messages():
    reason = unsupported_fault_model(rta_of(FOLLOW))
    assert reason is not None and "coordinator" in reason


BAD_SHAPES = [
    # a coordinator location that is not initial
    (FOLLOW.replace("initial C, W;", "initial W;"), "declare C initial"),
    (FOLLOW.replace("3: W -> D1 when (received(K1) >= 1);",
                    "3: D1 -> C when (received(K1) >= 1);"), "enters the coordinator location C"),
    (FOLLOW.replace("1: C -> W send K1;", "1: C -> W;"), "sends no coordinator message"),
    (FOLLOW.replace("faults byzantine(f);", "faults crash(f);"), "byzantine faults only"),
    (FOLLOW.replace("messages K0, K1;", "kind K: K0, K1;"), "is in kind 'K'"),
]


@pytest.mark.parametrize("text, message", BAD_SHAPES)
def test_a_coordinator_of_the_wrong_shape_is_an_input_error(text, message):
    with pytest.raises(InputError) as e:
        read_rta(text)
    assert message in str(e.value)


def test_cli_reports_a_shape_error_with_position(cli, tmp_path):
    bad = tmp_path / "bad.rta"
    bad.write_text(BAD_SHAPES[2][0], encoding="utf-8")
    result = cli("check", str(bad))
    assert result.code == 2
    assert "bad.rta:" in result.err and "sends no coordinator message" in result.err
    assert "^" in result.err and "Traceback" not in result.err
