"""The file's justice (``passes/rta_to_ta/file_fairness.py``) on automata whose rule graph has
cycles through several locations, and why a HOLDS under it is then still a proof.

``J_file`` was argued for runs that end in one configuration: every process eventually stops
changing location, so a process that stays at ``ℓ`` for good is *frozen* there (it last took a
stay, last entered ``ℓ``, or never stepped), and an infinite run needs some process that keeps
taking steps that change nothing (the clause ``moving``: a location with a possible stay is
occupied). On an automaton with a cycle through several locations (NBAC's failure detector that
suspects and un-suspects) a process may instead go round for ever, and the cycle engine
(``ir/eltl/cycles.py``) reads the justice of a lasso per process (``ir/eltl/justice.py``). The
two combine soundly as follows, within the cycle engine's scope (no resets, self-loops and rules
on cycles update nothing).

**Claim.** If a file-fair run violates the specification, the threshold automaton has a lasso
that violates it and meets ``J_file`` in the cycle engine's reading, provided ``moving`` is
replaced by ``progress = moving ∨ ⋁_{ℓ on a cycle through several locations} κ[ℓ] != 0``.

Take the file-fair run; by ``cycles.py`` (a) its shared variables are constant from some point,
so from there it moves in finitely many configurations. Let ``λ`` visit every configuration that
occurs infinitely often and fire every rule that fires infinitely often (they form one strongly
connected part of the transition graph), and let the lasso reach its start as the run does.

* A clause ``κ[ℓ] == 0 ∨ C_ℓ`` (``C_ℓ`` free of counters: ``ℓ``'s stays and entering rules
  feasible with the final counts) is read per process: ``C_ℓ``, or ``ℓ`` empty all along ``λ``,
  or ``λ`` leaves ``ℓ``. If some process is frozen at ``ℓ`` in the run, ``C_ℓ`` holds (the
  argument of ``file_fairness.py``, unchanged: it speaks of that process alone). Otherwise every
  process at ``ℓ`` leaves it again, so either ``ℓ`` is eventually empty or rules out of ``ℓ``
  fire infinitely often, and ``λ`` fires one. The per-process reading asks less than the literal
  one, never more.
* A clause that mentions counters elsewhere (``_later_sends``: ``κ[ℓ] - 1`` later entries) stays
  literal (at every loop configuration). It is built only for a location no rule of a cycle
  enters (a rule on a cycle sends nothing in this scope, so the fewest sends into a location on
  a cycle are 0), i.e. for a location off every cycle, whose counter is constant along ``λ`` and
  whose processes are all frozen (``cycles.py`` (b)): the one-configuration argument applies.
* ``progress`` is literal too. If ``λ`` fires a rule between two locations of a component
  ``C_i`` of the rule graph, ``C_i``'s total is constant along ``λ`` (``cycles.py`` (b)) and at
  least 1, so at every loop configuration some location on a cycle is occupied. If it fires only
  self-loops, the run's suffix changes no location, so some process takes stays for ever:
  ``moving`` holds, as on an automaton without such cycles.
* The ``leaving`` clauses ``κ[ℓ] == 0`` are for locations no rule enters: ``λ`` cannot leave
  them and come back, so both readings are the literal one.

So every file-fair violation has a lasso that the loop query (``passes/ta_to_smt/cycle_loop.py``)
admits, and its *unsat* proves the specification under the file's fairness. The literal
``moving`` alone would be unsound: a run whose processes go round a cycle with no stay on it
takes steps for ever, yet meets no disjunct of ``moving`` (``tests/data/promela/go_round.pml``).
The weakening also admits lassos of no file run (processes frozen on a cycle, none moving), which
only costs proofs; a VIOLATED still needs a run of the file (``tactl/engines/file_fairness.py``).
"""

from __future__ import annotations

from tactl.ir.eltl.cycles import cycle_structure
from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Name, disj
from tactl.ir.ta.model import ThresholdAutomaton


def on_cycles(ta: ThresholdAutomaton) -> frozenset[str]:
    """Locations of ``ta`` on a cycle through several locations (the claim's disjuncts)."""
    return cycle_structure(ta).cyclic


def progress(ta: ThresholdAutomaton, moving: list[Expr]) -> Expr:
    """``moving ∨ ⋁ κ[ℓ] != 0`` over the locations of :func:`on_cycles` (module docstring); the
    plain ``moving`` when ``ta`` has no such cycle."""
    going_round = [Compare("!=", Name(loc), IntConst(0)) for loc in sorted(on_cycles(ta))]
    return disj(*moving, *going_round) if moving or going_round else BoolConst(False)


def covered(ta: ThresholdAutomaton, cyclic: frozenset[str]) -> bool:
    """Whether a file justice built with ``cyclic`` as its going-round locations fits the checked
    ``ta``: every location on a cycle of ``ta`` is among them."""
    return on_cycles(ta) <= cyclic
