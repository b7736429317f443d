"""``emit --to smtlib`` on liveness of an automaton with resets writes the questions behind check's
proof from which rules can fire for ever (ir/eltl/reset_recurrence.py): each a safety question
about the whole automaton, as its inductive invariant's three checks, all unsat, for z3 and cvc5."""

from __future__ import annotations

import pytest

from conftest import DATA
from tactl.engines import solvers

RELAY = DATA / "resets" / "relay.eta"


@pytest.mark.skipif(any(solvers.available(s) is None for s in solvers.SOLVERS), reason="needs z3 and cvc5")
def test_the_questions_of_the_proof_are_written_and_unsat_for_both_solvers(cli, tmp_path):
    r = cli("emit", RELAY, "--to", "smtlib", "-o", tmp_path)
    assert r.code == 0, r.err
    names = sorted(p.name for p in tmp_path.iterdir())
    # served: (E2) for the reset R -> I and for W -> D, both through the server's justice, and the
    # server's exit W -> D, which makes p true; again is violated: nothing written for it
    assert names == [f"relay.served.invariant.{q}.{check}.smt2" for q in ("exit2", "rule1-W", "rule2-W")
                     for check in ("consecution", "initiation", "safety")], names
    assert "again: no proof for all sizes to write" in r.err
    for path in tmp_path.iterdir():
        assert [solvers.run(s, path, 60).answer for s in solvers.SOLVERS] == [solvers.UNSAT] * 2, path.name
