"""One small valuation searched explicitly before the approximating queries of a liveness branch.

A branch with two or more re-enterable "occupied" sets has no exact query
(``passes/ta_to_smt/lasso.py``): the parametric engine asks an over-approximation, whose unsat
answer is the proof, and under-approximations, whose models are runs. A violation found at any
one valuation of the parameters that satisfies the resilience condition refutes the property
for all of them, and at the least such valuation the explicit engine's breadth-first search
(``tactl.engines.explicit_ltl``) is often far cheaper than any of those queries: on random19's
``decide_or_flip`` branches it takes 0.01-0.05 s (n-rabc-cr: 2,474 product states at N=4),
where z3 spends 0.14 s on the over-approximation's first answer alone and the
under-approximations 0.1 s more. Its run is already the shortest prefix for its parameters.

The search is capped at :data:`PROBE_STATES` product states, a deterministic bound (the same
input takes the same path on a loaded machine) that keeps what it adds where the branch holds
small: 709 states and 0.02 s on n-kset's and p-kset's, whose over-approximation then takes
0.3-0.5 s. A capped search, or one that finds nothing, decides nothing: the queries follow as
before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tactl.engines.result import Counterexample
from tactl.ir.eltl.formula import TemporalQuery
from tactl.ir.ta.model import ThresholdAutomaton

PROBE_STATES = 10_000


def least_valuation(ta: ThresholdAutomaton, fixed: dict[str, int], bound: int) -> dict[str, int] | None:
    """The lexicographically least valuation (declared order) with every free parameter at most
    ``bound`` that satisfies the resilience condition and keeps ``fixed``; None if there is none."""
    from tactl.engines import shortest  # lazy: the explicit engines load only when searched

    return next(shortest.valuations(ta, fixed, bound), None)


def probe(ta: ThresholdAutomaton, query: TemporalQuery, fixed: dict[str, int] | None,
          progress: Callable[[str], None] | None = None) -> Counterexample | None:
    """A replayed violation of ``query`` (a lasso) at the least valuation
    (:func:`least_valuation`, each free parameter at most the explicit engine's default bound)
    found within :data:`PROBE_STATES` states, or None."""
    from tactl.engines import explicit, shortest  # lazy: the explicit engines load only when searched

    params = least_valuation(ta, fixed or {}, explicit.DEFAULT_BOUND)
    if params is None:
        return None
    if progress:
        shown = ", ".join(f"{p}={v}" for p, v in params.items())
        progress(f"{query.property}: explicit search at {shown} (up to {PROBE_STATES:,} states)")
    found, _ = shortest.search_at(ta, query, None, params, explicit.DEFAULT_BOUND, PROBE_STATES)
    if found is None:  # none within the cap, or none the simulator replays: the queries decide
        return None
    return replace(found, minimality=(
        "not shown minimal: found by the explicit search at the least valuation with every "
        f"parameter at most {explicit.DEFAULT_BOUND} that the resilience condition allows"))
