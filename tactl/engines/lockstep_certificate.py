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

from functools import cache, partial

import z3

from tactl.engines.result import Obligation

# What a certified lock-step HOLDS still takes from tactl (the certificate's ``trusted``).
TRUSTED = ("the encoding of lock-step rounds, built in Python from the automaton; the fault "
           "model's unguarded rules (crashing to crashed), which need no completeness question")


def obligation(label: str, solver: z3.Solver, says: str) -> Obligation:
    """The question ``solver`` holds, which z3 answered ``unsat``, as an obligation; its SMT-LIB
    text (large for a diameter query) is written only when asked for, and once however many
    HOLDS share the question."""
    return Obligation(label, build=cache(partial(smtlib, solver, f"{label}: {says}")))


def smtlib(solver: z3.Solver, says: str) -> str:
    """``solver``'s assertions as a standalone SMT-LIB script, headed by what ``unsat`` means."""
    plain = z3.Solver()
    memo: dict[int, z3.ExprRef] = {}
    plain.add(*[standard(a, memo) for a in solver.assertions()])
    return f"; {says}\n(set-logic ALL)\n" + plain.to_smt2()


# z3 writes an application with fewer arguments than SMT-LIB allows as it is ("(+ x)", a bare
# "and"), which other solvers refuse: these become their one argument, or their unit.
_UNITS = {z3.Z3_OP_AND: True, z3.Z3_OP_OR: False, z3.Z3_OP_ADD: 0}


def standard(e: z3.ExprRef, memo: dict[int, z3.ExprRef]) -> z3.ExprRef:
    """``e`` with every ``and``, ``or`` and ``+`` of fewer than two arguments replaced by its
    argument or its unit: the same formula, written so that any SMT-LIB solver reads it."""
    key = e.get_id()
    if key in memo:
        return memo[key]
    if z3.is_quantifier(e):
        bound = [z3.Const(e.var_name(i), e.var_sort(i)) for i in range(e.num_vars())]
        body = standard(z3.substitute_vars(e.body(), *reversed(bound)), memo)
        out = (z3.ForAll if e.is_forall() else z3.Exists)(bound, body)
    elif z3.is_app(e) and e.num_args() and not z3.is_const(e):
        args = [standard(a, memo) for a in e.children()]
        kind = e.decl().kind()
        out = args[0] if kind in _UNITS and len(args) == 1 else e.decl()(*args) if kind not in _UNITS \
            else (z3.And if kind == z3.Z3_OP_AND else z3.Or if kind == z3.Z3_OP_OR else z3.Sum)(*args)
    elif z3.is_app(e) and e.decl().kind() in _UNITS:
        unit = _UNITS[e.decl().kind()]
        out = z3.BoolVal(unit) if isinstance(unit, bool) else z3.IntVal(unit)
    else:
        out = e
    memo[key] = out
    return out


def in_rounds(n: int) -> str:
    """``n`` rounds, in words."""
    return f"{n} round{'' if n == 1 else 's'}"
