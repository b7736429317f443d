"""The lexicographically smallest parameter valuation of a violation, proved by z3.

After a first ``sat`` answer the parametric engine asks the same solver, parameter by parameter in
the order the automaton declares them (``n`` first), for the least value that still has a
violating run with the earlier ones fixed: a binary search between 0 and the value in hand, whose
every ``unsat`` proves that nothing smaller exists. A query that times out (or that z3 cannot
answer) stops the search: the valuation in hand is kept and said to be *not shown minimal* —
never claimed minimal without the ``unsat`` answers. Why: a reviewer reads a counterexample with
n=3 at a glance, not one with n=21, and small values are in the explicit oracle's reach.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from tactl.passes.emit.smtlib import smt_name

# One minimisation query never gets more than this (ms), so that a hard instance does not spend
# the whole --timeout on readability; the valuation is then "not shown minimal".
QUERY_MS = 20_000
# TACTL_NO_MINIMAL=1 keeps the first small model and the engine's own schedule (the bench's
# "before" column: what minimal counterexamples cost).
OFF = "TACTL_NO_MINIMAL"


def enabled() -> bool:
    return not os.environ.get(OFF)


@dataclass
class Minimised:
    """The outcome of the search for the smallest parameters of a violation."""
    model: object        # the last model found (the smallest valuation it holds)
    proved: bool         # every smaller valuation refuted by an unsat answer
    queries: int
    why: str = ""        # when not proved: which query gave no answer


def minimise(solver, ask: Callable[..., object], model, names: list[str],
             stop: Callable[[], str | None] | None = None) -> Minimised:
    """Lexicographically minimise ``names`` (parameters, then other start values, named as in
    ``passes.emit_smtlib``) in ``model``, a model of ``solver``; ``ask(*assumptions)`` runs one
    check; ``stop()``, asked before each and after one without an answer, says why to stop
    (``tactl.engines.budget``)."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    return minimise_terms(solver, ask, model, [(n, z3.Int(smt_name(n))) for n in names], stop)


def minimise_terms(solver, ask: Callable[..., object], model, terms: list[tuple[str, object]],
                   stop: Callable[[], str | None] | None = None) -> Minimised:
    """:func:`minimise` over z3 integer terms given with their names."""
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    fixed: list[z3.BoolRef] = []
    queries = 0
    for name, x in terms:
        hi = model.eval(x, model_completion=True).as_long()
        lo = 0  # the simulator refuses negative values, so no replayed run has one
        while lo < hi:
            why = stop() if stop is not None else None
            if why:
                return Minimised(model, False, queries, why)
            mid = (lo + hi) // 2
            queries += 1
            answer = ask(*fixed, x >= 0, x <= mid)
            if answer == z3.sat:
                model = solver.model()
                hi = model.eval(x, model_completion=True).as_long()
            elif answer == z3.unsat:
                lo = mid + 1
            else:
                why = (stop() if stop is not None else None) or \
                    f"z3 gave no answer on {name} <= {mid} ({solver.reason_unknown() or 'no answer'})"
                return Minimised(model, False, queries, why)
        fixed.append(x == hi)
    return Minimised(model, True, queries)
