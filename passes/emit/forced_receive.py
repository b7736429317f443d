"""When the Promela process model may use *forced* receive steps, and which initial locations a
property's premise rules out (``passes/emit/promela_process.py``).

**Forced receive steps** are how the experts write these models (ByMC's ``spin13`` benchmarks):
one atomic step of a process receives at most one message and then fires a rule that what it
has received enables (none enabled: it stays). The lazy model lets a process receive any number
of messages before it acts, so every "received k, not yet acted" state is reachable — measured
2–10× the states. Every forced run is a run of the lazy model (a forced step is a receive step
followed at once by a rule step), so a violation found on the forced model is real; the converse
— every lazy run has a forced run through the same location counters — is what makes a "holds"
carry over, and it needs two conditions, checked here at the fixed parameters:

1. every rule guard is *upward-closed* in the receive counters: ``Σ aᵢ·received(Mᵢ) ≥ b`` with
   every aᵢ > 0, under ``&&`` and ``||`` only. A guard with an upper bound (``received(M) < n -
   t``) can be enabled by few messages and disabled by more: a forced process that must act on
   the first message may miss a lazy run's later choice. Then a lazy process can instead delay
   its receives until the moment it acts, and the forced process receives the last message it
   needs in the same step as it fires (receives are never forced);
2. no rule is *pre-empted* without a way round: when a process at location ℓ can have rule r
   enabled while rule s is not yet (a count where r's guard holds and s's does not), the forced
   process takes r on its way to s's threshold, so there must be a rule q from r's target to s's
   target whose guard s's implies, and r's sends plus q's sends must be s's sends (Srikanth–
   Toueg: V0 → SE on t + 1 ECHOs, then SE → AC on n − t, for V0 → AC on n − t). The pairs are
   checked on every receive count vector up to the saturation bound. A self-loop that sends is
   refused outright.

Where the conditions fail, the model stays lazy, and it says why.

**Initial restriction.** A specification ``P -> φ`` whose premise P (no temporal operator) only
says that initial locations are empty (``V1 == 0``, ``V0 + V1 == 0``, conjunctions of these)
holds iff φ holds on every run from an initial configuration without processes there: the
model for that one property lets the processes start only in the other initial locations, and
the formula loses its premise — the LTL-to-Büchi translation of ``!initialized U (initialized &&
P) -> φ`` is many times larger than that of φ (findings/spin-models.md, item 1).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from tactl.ir.evaluate import EvaluationError, holds
from tactl.ir.expr import And, BoolConst, Compare, Expr, Implies, IntConst, Name, Or, Sum, is_temporal, substitute
from tactl.ir.linear import GE, NonLinearError, normalize
from tactl.ir.rta.model import ReceiveTA, received

MODES = ("auto", "forced", "lazy")
MAX_POINTS = 200_000  # receive count vectors enumerated for condition 2


@dataclass(frozen=True)
class Restriction:
    excluded: frozenset[str]   # initial locations that start empty
    premise: Expr
    conclusion: Expr


def receive_mode(rta: ReceiveTA, parameters: dict[str, int], requested: str = "auto") -> tuple[str, str]:
    """("forced" or "lazy", why): forced when requested or "auto" and sound (module docstring)."""
    if requested not in MODES:
        raise ValueError(f"receive mode {requested!r}: one of {', '.join(MODES)}")
    if requested == "lazy":
        return "lazy", "lazy receive steps were asked for"
    problem = forced_problem(rta, parameters)
    if problem is None:
        return "forced", ("every guard is upward-closed in the receive counters and every rule a "
                          "process may take early has a way round to the rule it skips")
    return "lazy", problem


def forced_problem(rta: ReceiveTA, parameters: dict[str, int]) -> str | None:
    """Why forced receive steps are not sound for ``rta`` at ``parameters`` (None: they are)."""
    fixed = {p: IntConst(v) for p, v in parameters.items()}
    counts = {received(m.name).name for m in rta.messages}
    moving = [r for r in rta.rules if not r.is_self_loop]
    for r in rta.rules:
        if r.is_self_loop and r.sends:
            return f"rule {r.id} is a self-loop that sends"
    for r in moving:
        if not _upward(substitute(r.guard, fixed), counts):
            return (f"the guard of rule {r.id} is not upward-closed in the receive counters (an upper "
                    "bound, a negation or an equality)")
    names = sorted(counts)
    top = 2 * max(1, sum(parameters.values())) + 2
    if (top + 1) ** len(names) > MAX_POINTS:
        return f"{len(names)} message types: too many receive counts to check the reduction"
    points = [dict(zip(names, values)) | parameters
              for values in itertools.product(range(top + 1), repeat=len(names))]

    def enabled(rule, env) -> bool:
        try:
            return holds(rule.guard, env)
        except EvaluationError:
            return False

    by_source: dict[str, list] = {}
    for r in moving:
        by_source.setdefault(r.source, []).append(r)
    for rules in by_source.values():
        for r, s in itertools.permutations(rules, 2):
            if r.target == s.target and sorted(r.sends) == sorted(s.sends):
                continue
            if not any(enabled(r, e) and not enabled(s, e) for e in points):
                continue
            ways = [q for q in moving if q.source == r.target and q.target == s.target
                    and sorted(r.sends + q.sends) == sorted(s.sends)
                    and all(enabled(q, e) for e in points if enabled(s, e))]
            if not ways:
                return (f"rule {r.id} ({r.source} -> {r.target}) can fire before rule {s.id} "
                        f"({s.source} -> {s.target}) is enabled, and no rule leads from {r.target} "
                        f"to {s.target} with the rest of its sends")
    return None


def _upward(e: Expr, counts: set[str]) -> bool:
    if isinstance(e, BoolConst):
        return True
    if isinstance(e, (And, Or)):
        return all(_upward(a, counts) for a in e.args)
    if isinstance(e, Compare):
        try:
            atom = normalize(e)
        except (NonLinearError, TypeError, KeyError):
            return False
        if isinstance(atom, bool):
            return True
        return atom.op == GE and all(x in counts and a > 0 for x, a in atom.coeffs)
    return False


def initial_restriction(formula: Expr, rta: ReceiveTA) -> Restriction | None:
    """The initial locations ``formula``'s premise empties, when that is all it says (see the
    module docstring); None otherwise, or when no initial location would be left."""
    if not isinstance(formula, Implies) or is_temporal(formula.left):
        return None
    locations = {loc.name for loc in rta.locations}
    excluded: set[str] = set()
    atoms = formula.left.args if isinstance(formula.left, And) else (formula.left,)
    for atom in atoms:
        named = _empty_locations(atom, locations)
        if named is None:
            return None
        excluded |= named
    excluded &= set(rta.initial)
    if not excluded or excluded >= set(rta.initial):
        return None
    return Restriction(frozenset(excluded), formula.left, formula.right)


def _empty_locations(atom: Expr, locations: set[str]) -> set[str] | None:
    """The locations of ``L1 + … + Lk == 0`` (either side), else None."""
    if not isinstance(atom, Compare) or atom.op != "==":
        return None
    for side, other in ((atom.left, atom.right), (atom.right, atom.left)):
        if not (isinstance(other, IntConst) and other.value == 0):
            continue
        terms = side.args if isinstance(side, Sum) and all(op == "+" for op in side.ops) else (side,)
        if all(isinstance(t, Name) and t.name in locations for t in terms):
            return {t.name for t in terms}
    return None
