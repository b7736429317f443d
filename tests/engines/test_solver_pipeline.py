"""The parametric engine's z3 preprocessing (``PIPELINE`` in tactl/engines/parametric.py):
solve-eqs keeps the definitions ``x = t`` it eliminates, but no longer isolates variables of
other linear equations; the answers must stay those of z3's own solver."""

import z3

from tactl.engines.parametric import PIPELINE, pipeline


def test_solve_eqs_runs_without_its_arithmetic_solver():
    steps = [s for s in PIPELINE if isinstance(s, tuple)]
    assert steps == [("solve-eqs", {"theory_solver": False})]


def _answers(text: str) -> tuple[z3.CheckSatResult, z3.CheckSatResult]:
    ours = pipeline().solver()
    ours.from_string(text)
    plain = z3.Solver()
    plain.from_string(text)
    return ours.check(), plain.check()


def test_definitions_and_general_equations_answer_as_z3_does():
    # k1 = k0 - f (a definition), 2a + 3b = n (a general equation), a flow that must balance
    base = """
    (declare-fun n () Int) (declare-fun f () Int) (declare-fun k0 () Int) (declare-fun k1 () Int)
    (declare-fun a () Int) (declare-fun b () Int)
    (assert (= k1 (- k0 f))) (assert (= (+ (* 2 a) (* 3 b)) n))
    (assert (>= a 0)) (assert (>= b 0)) (assert (>= f 0)) (assert (>= k1 0)) (assert (= k0 n))
    """
    for extra, expected in (("(assert (= f n)) (assert (= n 7))", z3.sat),
                            ("(assert (> f n))", z3.unsat),
                            ("(assert (= n 1))", z3.unsat)):
        ours, plain = _answers(base + extra)
        assert ours == plain == expected


def test_models_satisfy_the_query():
    text = """
    (declare-fun x () Int) (declare-fun y () Int) (declare-fun z () Int)
    (assert (= z (+ x y))) (assert (= (+ (* 3 x) y) 10)) (assert (>= x 1)) (assert (>= y 1))
    """
    solver = pipeline().solver()
    solver.from_string(text)
    assert solver.check() == z3.sat
    m = solver.model()
    x, y, z = (m.eval(z3.Int(v), model_completion=True).as_long() for v in "xyz")
    assert z == x + y and 3 * x + y == 10 and x >= 1 and y >= 1
