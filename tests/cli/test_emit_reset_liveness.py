"""``emit --to smtlib`` on liveness of an automaton with resets writes the queries behind check's
proof for all sizes (ir/eltl/reset_response.py): about the automaton without its reset rules."""

from __future__ import annotations

import z3

from conftest import DATA

PHASES = DATA / "resets" / "phases.eta"


def answer(path) -> z3.CheckSatResult:
    solver = z3.Solver()
    solver.from_file(str(path))
    return solver.check()


def test_the_reachability_question_of_the_proof_is_written_and_unsat_where_check_proves(cli, tmp_path):
    r = cli("emit", PHASES, "--to", "smtlib", "-o", tmp_path)
    assert r.code == 0, r.err
    # (the proof from which rules can fire for ever writes its own files: test_emit_reset_recurrence.py)
    assert sorted(p.name for p in tmp_path.iterdir() if ".without-resets." in p.name) == [
        "phases.all_counted.without-resets.reach.smt2", "phases.two_sent.without-resets.reach.smt2"]
    assert "without its reset rules" in r.err
    # all_counted holds for all sizes by this question; two_sent's is sat (it is violated at n = 1)
    assert answer(tmp_path / "phases.all_counted.without-resets.reach.smt2") == z3.unsat
    assert answer(tmp_path / "phases.two_sent.without-resets.reach.smt2") == z3.sat
