"""The explicit-state engine for nested safety and liveness (``tactl.engines.explicit_ltl``).

Known answers on small hand-written automata, each derived by hand in a comment; the strb model
and its n >= 3t mutant (ByMC tutorial's relay bug); honesty (unsupported, unknown, scope); and a
brute-force oracle that enumerates every run prefix and evaluates the negated specification with
the simulator's LTL evaluator, which the product search must agree with.
"""

from __future__ import annotations

import time

import pytest

from conftest import CORPUS, ISOLA18
from tactl.engines.explicit import initial_states, parameter_instances
from tactl.engines.explicit_ltl import check_temporal
from tactl.engines.result import HOLDS, UNKNOWN, UNSUPPORTED, VIOLATED
from tactl.ir.eltl.formula import FormulaClass, TemporalQuery, temporal_query
from tactl.ir.evaluate import evaluate, holds
from tactl.ir.expr import BoolConst
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.ta.reader import read_ta
from tactl.engines.simulate import Configuration, enabled_loops, lasso_holds, replay_run


def automaton(text: str):
    return read_ta(text, "test.ta").ta


def query(ta, prop: str) -> TemporalQuery:
    q = temporal_query(ta, next(p for p in ta.properties if p.name == prop))
    assert isinstance(q, TemporalQuery), q
    return q


def decide(ta, prop: str, fixed: dict[str, int] | None = None, bound: int = 3, **kw):
    q = query(ta, prop)
    return q, check_temporal(ta, q, fixed or {}, bound=bound, **kw)


def assert_holds(result) -> None:
    assert result.verdict == HOLDS, (result.verdict, result.reason)
    assert "not a proof for all n" in result.scope and result.scope.startswith("only the ")
    assert result.engine == "explicit" and result.details["states"] > 0


def assert_violated(ta, q: TemporalQuery, result) -> None:
    """Violated, replayed by the engine, and replayed again here from the reported run."""
    assert result.verdict == VIOLATED, (result.verdict, result.reason)
    cex = result.counterexample
    assert cex.replayed, cex.replay.message
    assert (cex.loop is not None) == q.infinite
    again = replay_run(ta, q.negation, q.infinite, cex.parameters, cex.initial, cex.schedule, cex.loop)
    assert again.ok, again.message
    assert result.formula_class == q.formula_class.value and result.kind == q.kind


# ------------------------------------------------------------------------- deadlocks, lassos

DEADLOCK = """
skel Deadlock {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (2) { A: [0]; B: [1]; }
  inits (3) { A == n; B == 0; x == 0; }
  rules (2) {
    0: A -> B when (true) do { x' == x + 1; };
    1: A -> A when (true) do { unchanged(x); };
    LOOP_AT_B
  }
  specifications (1) {
    /* whenever B is occupied, A is (again) occupied later */
    live: [](B != 0 -> <>(A != 0));
  }
}
"""


def test_a_deadlock_is_not_a_liveness_counterexample():
    # Negation: <>(B != 0 && [](A == 0)). A lasso end must have an enabled self-loop: with A
    # occupied it is A's loop, but then A != 0; with A empty everyone is in B, which has no
    # self-loop — a deadlock, which ends no infinite run (decision 1). So no lasso satisfies the
    # negation and the property holds (a finite-prefix reading would call it violated: n = 1,
    # one step to B).
    ta = automaton(DEADLOCK.replace("LOOP_AT_B", ""))
    q, result = decide(ta, "live")
    assert q.formula_class is FormulaClass.LIVENESS
    assert_holds(result)
    assert result.formula_class == "liveness" and result.kind == "liveness"


def test_the_same_run_with_a_self_loop_at_the_end_is_a_counterexample():
    # With B -> B the configuration "everyone in B" keeps running: n = 1, one step A -> B, then
    # B's self-loop forever: B != 0 and A == 0 from then on.
    ta = automaton(DEADLOCK.replace("LOOP_AT_B", "2: B -> B when (true) do { unchanged(x); };"))
    q, result = decide(ta, "live")
    assert_violated(ta, q, result)
    cex = result.counterexample
    assert cex.parameters == {"n": 1}
    assert ta.rules[cex.loop].source == "B" and ta.rules[cex.loop].is_self_loop
    assert dict(cex.replay.configurations[-1].counters) == {"A": 0, "B": 1}


GUARDED_LOOP = """
skel GuardedLoop {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (2) { A: [0]; B: [1]; }
  inits (3) { A == n; B == 0; x == 0; }
  rules (2) {
    0: A -> B when (true) do { x' == x + 1; };
    1: B -> B when (x >= THRESHOLD) do { unchanged(x); };
  }
  specifications (1) {
    grows: <>(x >= 3);
  }
}
"""


def test_a_lasso_that_needs_a_guarded_self_loop():
    # Negation: [](x < 3). x counts the processes that moved to B; A has no self-loop, so a run
    # goes on forever only through B's loop, enabled once x >= 2. n = 1: x <= 1, the loop never
    # opens, every run deadlocks: no counterexample. n = 2: both move (x = 2), the loop opens and
    # x stays 2 < 3 forever: violated, and the loop configuration is the one with x = 2.
    ta = automaton(GUARDED_LOOP.replace("THRESHOLD", "2"))
    q, result = decide(ta, "grows")
    assert_violated(ta, q, result)
    cex = result.counterexample
    assert cex.parameters == {"n": 2} and cex.loop == 1
    assert dict(cex.replay.configurations[-1].shared) == {"x": 2}
    # Before the threshold the same configuration shape (someone in B, x < 2) is a deadlock:
    # n = 1 alone holds.
    _, alone = decide(ta, "grows", fixed={"n": 1})
    assert_holds(alone)


def test_a_self_loop_guard_that_never_opens_gives_no_lasso():
    # x <= n always, so x >= n + 1 never holds: no infinite run at all, nothing to violate.
    ta = automaton(GUARDED_LOOP.replace("THRESHOLD", "n + 1"))
    _, result = decide(ta, "grows")
    assert_holds(result)


# --------------------------------------------------------------------- nested safety, cut points

PASS_THROUGH = """
skel PassThrough {
  shared z;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (4) { S: [0]; A: [1]; C: [2]; B: [3]; }
  inits (5) { S == n; A == 0; C == 0; B == 0; z == 0; }
  rules (3) {
    0: S -> A when (true) do { unchanged(z); };
    1: A -> C when (true) do { z' == z + 1; };
    2: C -> B when (z >= n) do { unchanged(z); };
  }
  specifications (6) {
    nested_bad: []((A != 0) -> [](B == 0));
    nested_ok: []((B != 0) -> [](S == 0 && A == 0));
    flat_ok: [](A == 0 || B == 0);
    two_boxes_bad: [](A == 0) || [](B == 0);
    two_boxes_ok: [](A == 0) || [](z <= n);
    prop_ok: B == 0 && z == 0;
  }
}
"""


def test_nested_safety_violated_only_after_a_cut_point():
    # Every process passes A; B opens only once z >= n, i.e. once everyone has left A for good,
    # so A and B are never occupied together (flat_ok holds). Negation of nested_bad:
    # <>(A != 0 && <>(B != 0)) — A occupied at one point, B at a later one: violated (n = 1:
    # S -> A, A -> C, C -> B).
    ta = automaton(PASS_THROUGH)
    q, result = decide(ta, "nested_bad")
    assert q.formula_class is FormulaClass.NESTED_SAFETY and not q.infinite
    assert_violated(ta, q, result)
    assert result.counterexample.loop is None and result.kind == "safety"
    assert [ta.rules[s.rule].id for s in result.counterexample.schedule] == [0, 1, 2]
    _, flat = decide(ta, "flat_ok")
    assert_holds(flat)


def test_nested_safety_that_holds():
    # B != 0 needs z >= n: every process has taken A -> C, and nothing re-enters S or A, so
    # from then on S == A == 0: <>(B != 0 && <>(S != 0 || A != 0)) has no witness.
    ta = automaton(PASS_THROUGH)
    q, result = decide(ta, "nested_ok")
    assert q.formula_class is FormulaClass.NESTED_SAFETY
    assert_holds(result)
    assert result.formula_class == "nested safety"


def test_two_boxes_violated_only_at_different_times():
    # Negation <>(A != 0) && <>(B != 0): two unordered cut points. Never at the same time (see
    # flat_ok), but every run reaching B went through A earlier: violated.
    ta = automaton(PASS_THROUGH)
    q, result = decide(ta, "two_boxes_bad")
    assert_violated(ta, q, result)
    configs = result.counterexample.replay.configurations
    assert not any(dict(c.counters)["A"] and dict(c.counters)["B"] for c in configs)


def test_two_boxes_hold_when_only_one_is_ever_violated():
    # [](A == 0) is violated on every run (every process passes A), but [](z <= n) on none (z
    # counts the processes that took A -> C), so the negation <>(A != 0) && <>(z > n) never
    # gets its second cut point.
    ta = automaton(PASS_THROUGH)
    _, result = decide(ta, "two_boxes_ok")
    assert_holds(result)


def test_propositional_is_evaluated_in_the_initial_configuration():
    # B == 0 && z == 0 holds initially (decision 4), though both change later.
    ta = automaton(PASS_THROUGH)
    q, result = decide(ta, "prop_ok")
    assert q.formula_class is FormulaClass.PROPOSITIONAL
    assert_holds(result)
    ta = automaton(PASS_THROUGH.replace("prop_ok: B == 0 && z == 0", "prop_ok: S == 0"))
    q, result = decide(ta, "prop_ok")
    assert_violated(ta, q, result)
    assert result.counterexample.schedule == []


# ---------------------------------------------------------------------------------- justice

JUSTICE = """
skel Justice {
  shared x;
  parameters n;
  assumptions (1) { n >= 1; }
  locations (3) { I: [0]; A: [1]; B: [2]; }
  inits (4) { I == n; A == 0; B == 0; x == 0; }
  rules (4) {
    0: I -> A when (true) do { x' == x + 1; };
    1: A -> B when (x >= n) do { unchanged(x); };
    2: A -> A when (true) do { unchanged(x); };
    3: B -> B when (true) do { unchanged(x); };
  }
  specifications (2) {
    unfair: <>(B != 0);
    fair: <>[]((x < n || A == 0) && I == 0) -> <>(B != 0);
  }
}
"""


def test_liveness_without_justice_is_violated():
    # Negation [](B == 0): n = 1, I -> A, then A's self-loop forever although A -> B is enabled
    # (no implicit fairness, decision 2).
    ta = automaton(JUSTICE)
    q, result = decide(ta, "unfair")
    assert_violated(ta, q, result)
    assert ta.rules[result.counterexample.loop].source == "A"


def test_liveness_under_justice_holds():
    # Negation <>[](J) && [](B == 0), J evaluated at the loop configuration: I == 0 there, so
    # every process took I -> A and x = n; then x < n fails, so J needs A == 0: everyone is in
    # B, and B != 0 (n >= 1) contradicts [](B == 0).
    ta = automaton(JUSTICE)
    _, result = decide(ta, "fair", bound=4)
    assert_holds(result)


# ---------------------------------------------------------------------------------- strb

STRB = CORPUS / "strb" / "strb.ta"


def test_strb_properties_hold_for_small_parameters():
    # Every valuation with n, t, f <= 7 and n > 3t, t >= f (18 of them), each in well under a
    # second (a few hundred product states).
    ta = automaton(STRB.read_text())
    for prop in ("unforgeability", "correctness", "relay"):
        started = time.process_time()  # CPU time, which load does not stretch
        _, result = decide(ta, prop, bound=7)
        assert_holds(result)
        assert result.details["instances"] == 18
        assert time.process_time() - started < 5, prop


def test_strb_with_n_geq_3t_violates_relay():
    # ByMC's tutorial bug: with n = 3t the f Byzantine ECHOs let one correct process accept
    # (echo >= n - t - f) while the echoes of correct processes stay below t + 1, so under the
    # justice assumption a correct process may sit in V0 forever. Smallest instance:
    # n = 3, t = f = 1, one correct process starts with 1 (V1 -> SE, SE -> AC), the other stays
    # in V0 with its self-loop.
    text = STRB.read_text()
    assert "n > 3 * t;" in text
    ta = automaton(text.replace("n > 3 * t;", "n >= 3 * t;"))
    q, result = decide(ta, "relay", bound=4)
    assert_violated(ta, q, result)
    cex = result.counterexample
    assert cex.parameters["n"] == 3 * cex.parameters["t"]
    assert ta.rules[cex.loop].is_self_loop
    last = dict(cex.replay.configurations[-1].counters)
    assert last["AC"] >= 1 and last["V0"] + last["SE"] >= 1


@pytest.mark.parametrize("rc", ["N > 3 * T;", "N >= 3 * T;"])
def test_isola18_strb_relay(rc):
    path = ISOLA18 / "strb.ta"
    if not path.exists():
        pytest.skip(f"shared ByMC benchmarks not found at {ISOLA18}")
    text = path.read_text()
    assert "N > 3 * T;" in text
    ta = automaton(text.replace("N > 3 * T;", rc))
    q, result = decide(ta, "relay", bound=4)
    # N > 3T: relay holds (the tutorial's intended model); N >= 3T: N = 3, T = F = 1 violates it.
    if rc == "N > 3 * T;":
        assert_holds(result)
    else:
        assert_violated(ta, q, result)


# -------------------------------------------------------------------------------- honesty


def test_liveness_on_a_cycle_through_two_locations_is_decided_unless_the_cycle_updates():
    text = """
    skel Cyclic {
      shared x;
      parameters n;
      assumptions (1) { n >= 1; }
      locations (2) { A: [0]; B: [1]; }
      inits (3) { A == n; B == 0; x == 0; }
      rules (2) {
        0: A -> B when (true) do { unchanged(x); };
        1: B -> A when (true) do { UPDATE };
      }
      specifications (2) {
        live: <>(B != 0);
        safe: [](x == 0);
      }
    }"""
    # Every infinite run goes round A -> B -> A (no self-loop): B is occupied after the first step.
    _, result = decide(automaton(text.replace("UPDATE", "unchanged(x);")), "live")
    assert_holds(result)
    # A cycle that increments: shared variables need not settle, so liveness is refused.
    ta = automaton(text.replace("UPDATE", "x' == x + 1;"))
    _, result = decide(ta, "live")
    assert result.verdict == UNSUPPORTED and "cycle" in result.reason
    # Finite-prefix classes do not need lassos: the cycle is explored like any other graph.
    _, safe = decide(ta, "safe")
    assert safe.verdict == VIOLATED


def test_repeated_resets_replay_one_step_at_a_time():
    # x' == 0 is no increment: the simulator replays batches of increments only, so two
    # firings of the reset in a row must stay two steps. Negation <>(B >= 2 && <>(C != 0)):
    # n = 2, both A -> B, then one B -> C.
    ta = automaton("""
    skel Reset {
      shared x;
      parameters n;
      assumptions (1) { n >= 1; }
      locations (3) { A: [0]; B: [1]; C: [2]; }
      inits (4) { A == n; B == 0; C == 0; x == 0; }
      rules (2) {
        0: A -> B when (true) do { x' == 0; };
        1: B -> C when (true) do { x' == x + 1; };
      }
      specifications (1) { nested: [](B >= 2 -> [](C == 0)); }
    }""")
    q, result = decide(ta, "nested")
    assert_violated(ta, q, result)
    assert [(s.rule, s.factor) for s in result.counterexample.schedule] == [(0, 1), (0, 1), (1, 1)]


def test_nothing_checked_is_unknown():
    ta = automaton(DEADLOCK.replace("LOOP_AT_B", "").replace("B == 0; x == 0;", "B == 0; x == 0; A == n + 1;"))
    _, result = decide(ta, "live")
    assert result.verdict == UNKNOWN and "nothing was checked" in result.reason


def test_state_limit_is_unknown():
    ta = automaton(STRB.read_text())
    _, result = decide(ta, "relay", bound=4, max_states=5)
    assert result.verdict == UNKNOWN and "state limit" in result.reason


def test_progress_names_every_instance():
    ta = automaton(JUSTICE)
    seen: list[str] = []
    q = query(ta, "fair")
    check_temporal(ta, q, {}, bound=3, progress=seen.append)
    assert len(seen) == 3 and all(m.startswith("fair: instance ") for m in seen)


def test_capped_initial_values_are_in_the_scope():
    # x has no initial constraint: any value >= 0 (decision 6), capped at --bound in the search.
    ta = automaton(JUSTICE.replace("x == 0;", ""))
    _, result = decide(ta, "fair", bound=2)
    assert result.verdict in (HOLDS, VIOLATED)
    if result.verdict == HOLDS:
        assert "initial values of x" in result.scope


# ------------------------------------------------------------------- brute-force agreement


def brute_force(ta, q: TemporalQuery, params: dict[str, int], bound: int) -> bool:
    """Whether some run violates: every path of non-self-loop steps from every initial
    configuration (the configuration graph of these automata is acyclic apart from self-loops,
    and LTL without next-time ignores the repetitions self-loops add), each prefix evaluated
    with the simulator's evaluator — as a finite run, or as a lasso when a non-updating
    self-loop is enabled at its end."""
    index = {loc.name: i for i, loc in enumerate(ta.locations)}
    index.update({v: len(ta.locations) + i for i, v in enumerate(ta.shared)})
    question = ReachQuery(q.property, BoolConst(True), BoolConst(True))
    initials, complete, _ = initial_states(ta, question, params, index, bound)
    assert complete
    names = [loc.name for loc in ta.locations] + list(ta.shared)

    def env(s):
        return {**params, **dict(zip(names, s))}

    def config(s):
        return Configuration.of(dict(zip(names[:len(ta.locations)], s)),
                                dict(zip(ta.shared, s[len(ta.locations):])))

    def successors(s):
        for rule in ta.rules:
            e = env(s)
            if rule.is_self_loop or e[rule.source] < 1 or not holds(ta.expand(rule.guard), e):
                continue
            t = dict(e)
            for u in rule.updates:
                t[u.var] = evaluate(ta.expand(u.expr), e)
            t[rule.source] -= 1
            t[rule.target] += 1
            yield tuple(t[n] for n in names)

    def explore(path) -> bool:
        envs = [env(s) for s in path]
        if q.infinite:
            if enabled_loops(ta, params, config(path[-1])) and lasso_holds(q.negation, envs, True):
                return True
        elif lasso_holds(q.negation, envs, False):
            return True
        return any(explore(path + [t]) for t in successors(path[-1]))

    return any(explore([s]) for s in initials)


CASES = [
    (DEADLOCK.replace("LOOP_AT_B", ""), "live"),
    (DEADLOCK.replace("LOOP_AT_B", "2: B -> B when (true) do { unchanged(x); };"), "live"),
    (GUARDED_LOOP.replace("THRESHOLD", "2"), "grows"),
    *[(PASS_THROUGH, p) for p in ("nested_bad", "nested_ok", "flat_ok", "two_boxes_bad", "two_boxes_ok",
                                   "prop_ok")],
    (JUSTICE, "unfair"),
    (JUSTICE, "fair"),
    # negation <>(A != 0 && []<>(B == 0)): a cut point, then a <> under [] seen at the loop
    (JUSTICE.replace("<>(B != 0);", "[](A != 0 -> <>[](B != 0));"), "unfair"),
    # negation <>(I == 0 && <>(A != 0)) && []<>(x < n): nested cuts and a loop-only conjunct
    (JUSTICE.replace("<>(B != 0);", "<>(I == 0 && <>(A != 0)) -> <>[](x >= n);"), "unfair"),
    (JUSTICE.replace("<>(B != 0);", "[](A == 0) || [](B == 0 || x >= n);"), "unfair"),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_agrees_with_brute_force_enumeration(case):
    text, prop = CASES[case]
    ta = automaton(text)
    q = query(ta, prop)
    for params in parameter_instances(ta, {}, 3):
        result = check_temporal(ta, q, dict(params), bound=3)
        assert result.verdict in (HOLDS, VIOLATED), result.reason
        assert (result.verdict == VIOLATED) == brute_force(ta, q, params, 3), params
        if result.verdict == VIOLATED:
            assert_violated(ta, q, result)
