"""The simulator checks an accelerated step of factor δ without δ single steps:
it evaluates the guard only at step 0 and around the change points of its comparisons. This
must accept and refuse exactly the schedules that firing one process at a time does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tactl.ir.ta.reader import read_ta
from tactl.engines.simulate import Configuration, ReplayFailure, _fire, fire_many


@st.composite
def batch(draw):
    def atom() -> str:
        lhs = draw(st.sampled_from(["x", "y", "x + y", "2 * x", "x - y", "3 * y - x"]))
        op = draw(st.sampled_from([">=", "<", ">", "<=", "==", "!="]))
        return f"{lhs} {op} {draw(st.integers(-2, 3))} * n + {draw(st.integers(-5, 40))}"

    guard = atom()
    for _ in range(draw(st.integers(0, 3))):
        guard = f"({guard}) {draw(st.sampled_from(['&&', '||']))} !({atom()})"
    incx, incy = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    text = ("skel B { shared x, y; parameters n; assumptions (1) { n >= 0; }\n"
            "locations (2) { A: [0]; B: [1]; } inits (1) { x == 0; }\n"
            f"rules (1) {{ 0: A -> B when ({guard}) do {{ x' == x + {incx}; y' == y + {incy}; }}; }}\n}}")
    ta = read_ta(text, "b.ta").ta
    params = {"n": draw(st.integers(0, 10))}
    start = Configuration.of({"A": draw(st.integers(0, 60)), "B": 0},
                             {"x": draw(st.integers(0, 30)), "y": draw(st.integers(0, 30))})
    return ta, params, start, draw(st.integers(1, 60))


def outcome(fire):
    try:
        return fire()
    except ReplayFailure:
        return "refused"


@settings(max_examples=400, deadline=None)
@given(batch())
def test_batch_replay_agrees_with_single_steps(case):
    ta, params, start, factor = case

    def one_at_a_time():
        config = start
        for _ in range(factor):
            config = _fire(ta, params, config, 0, 1)
        return config

    assert outcome(lambda: fire_many(ta, params, start, 0, factor, 1)) == outcome(one_at_a_time)


def test_lassos_with_a_loop_of_several_steps_are_replayed_as_spin_and_nusmv_report_them():
    """``replay_run(..., cycle=...)``: the run is schedule·cycle^ω; the cycle must come back to
    where it began, and the negated specification is read on the infinite lasso."""
    from tactl.ir.expr import Always, And, Compare, Eventually, IntConst, Name, Not
    from tactl.ir.boolean import nnf
    from tactl.ir.ta.reader import read_ta
    from tactl.engines.simulate import Configuration, Step, replay_run

    ta = read_ta("""skel T { parameters n; assumptions (1) { n >= 1; } locations (2) { A: []; B: []; }
    inits (2) { A == n; B == 0; }
    rules (2) { 0: A -> B when (true) do { }; 1: B -> A when (true) do { }; }
    specifications (1) { p: <>(A == 0); } }""").ta
    init = Configuration.of({"A": 1, "B": 0}, {})
    cycle = [Step(0, 1), Step(1, 1)]

    def a_is(k):
        return Compare("==", Name("A"), IntConst(k))

    # A alternates 1, 0, 1, …: []<>(A == 0) and []<>(A == 1) hold, <>[](A == 1) does not
    assert replay_run(ta, And((Always(Eventually(a_is(0))), Always(Eventually(a_is(1))))), True,
                      {"n": 1}, init, [], cycle=cycle).ok
    assert not replay_run(ta, nnf(Not(Always(Eventually(a_is(0))))), True, {"n": 1}, init, [],
                          cycle=cycle).ok
    back = replay_run(ta, Always(Eventually(a_is(0))), True, {"n": 1}, init, [], cycle=cycle[:1])
    assert not back.ok and "does not return" in back.message
