"""The SMT questions a lock-step HOLDS rests on, as obligations ``tactl check --certify`` hands to
a second solver (tactl/engines/certify.py) and ``tactl emit --to smtlib`` writes for a
synchronous algorithm (tactl/driver/emitters.py).

The argument of a lock-step HOLDS (tactl/engines/lockstep.py) and the z3 answers it uses, each
``unsat``:

* **guard completeness** (tactl/engines/lockstep_guards.py): in no populated correct location do
  the receive values Env allows leave every rule disabled, so no run silently loses a process;
  one question per correct location;
* **phases** (φ > 1 only): a phase of φ rounds that starts with only initial locations populated
  ends so; the engine reads φ from the automaton's rules (``phase_length`` in
  tactl/engines/lockstep_diameter.py), and this question lets the second solver confirm what the
  diameter's argument takes from that reading;
* **the diameter**: the ∃∀ query at the D found, everything reachable in D + φ rounds is
  reachable within D (the queries for smaller D answered ``sat`` and prove nothing);
* **the bounded checks**: every path length (and position of the hypothesis's round) up to the
  depth the diameter gives has no violation.

What the argument takes from Python rather than from a solver: the encoding of rounds itself
(tactl/engines/lockstep_encoding.py, built from the automaton as the parametric engine's
queries are), and the fault model's own rules (crashing → crashed), which carry no guard and so
need no completeness question. The questions that only say a HOLDS is not vacuous (an initial
configuration exists, a run meets the hypothesis) are ``sat`` answers and not part of the proof.
"""

from __future__ import annotations

from functools import partial

import z3

from tactl.engines.result import Obligation


def obligation(label: str, solver: z3.Solver, says: str) -> Obligation:
    """The question ``solver`` holds, which z3 answered ``unsat``, as an obligation; its SMT-LIB
    text (large for a diameter query) is written only when asked for."""
    return Obligation(label, build=partial(smtlib, solver, says))


def smtlib(solver: z3.Solver, says: str) -> str:
    """``solver``'s assertions as a standalone SMT-LIB script, headed by what ``unsat`` means."""
    return f"; {says}\n(set-logic ALL)\n" + solver.to_smt2()
