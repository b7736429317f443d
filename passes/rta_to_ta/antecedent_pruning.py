"""Locations a property's antecedent keeps empty on every run that violates it, and the automata
without the rules that leave them: the automaton the file's justice is checked on
(``passes/rta_to_ta/file_fairness.py``, ``tactl/driver/file_reading.py``).

The file's justice ``J_file`` offers, per location ``ℓ``, the ways a process may be at ``ℓ`` for
good, among them "it entered ``ℓ`` by rule ``r`` and never stepped again". Those options are read
off the rules, not off the run: a lasso may freeze a process at ``ℓ`` as one that came by ``r``
although ``r`` never fired on it. A cut-down Bracha agreement
(``tests/data/promela/init_branch.pml``): ``corr`` asks
``[]((IT == 0 && EC == 0 && RD == 0 && AC == 0) -> <>(AC != 0))``; a lasso of the
over-approximation moves every process from RI to EC and leaves some frozen at EC "as having come
from IT with every echo", which no run where every process starts at RI does.

**Claim.** Let the specification be ``[](A -> X)`` or ``A -> X`` with ``A`` a conjunction, and
``Z`` the locations ``ℓ`` with a conjunct ``ℓ == 0`` of ``A``. Let ``S ⊆ Z`` be such that (1)
every location reachable from ``S`` by rules (``S`` itself included) is in ``Z``, and (2) no rule
from a location outside ``S`` enters ``S``. Then ``S`` is empty at every configuration of every run
that violates the specification, so no rule out of ``S`` fires on it.

*Proof.* A violating run has a position ``i`` where ``A`` holds (``i = 0`` for ``A -> X``). Before
``i``: a process at a location of ``S`` at some ``t <= i`` is, at ``i``, at a location reachable
from it (counters move only along rules), which is in ``Z`` by (1), hence empty at ``i``: no
process was ever in ``S`` up to ``i``. From ``i`` on: ``S`` is empty at ``i`` (``S ⊆ Z``) and only
a rule from outside ``S`` could fill it, which (2) excludes. ∎

So every violating run is a run of the automaton without the rules out of ``S`` (self-loops
included), from the same initial configurations, and it meets the file's justice built from that
smaller automaton: ``J_file``'s argument speaks of one run and the rules that fire on it (a process
frozen at ``ℓ`` entered it by a rule that fired; the fewest sends of the rules into ``ℓ``; the
counts that stay 0 where no rule brings any), and every rule that fires on the run is kept. Hence
``<>[](J_file') -> spec`` proved on the smaller automaton proves the specification under the file's
fairness. Condition (1) is what makes it sound for ``[](A -> X)``: ``A`` holding at ``i`` does not
say that ``S`` was empty before ``i`` unless everything ``S`` leads to is empty at ``i`` too
(a location that ``A`` keeps empty but whose processes may have moved on to a location ``A``
allows is not pruned). ``S`` is the largest such set: the locations of ``Z`` whose successors are
all in ``Z``, less, repeatedly, those a rule from outside enters.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.expr import Always, And, Compare, Expr, Implies, IntConst, Name, is_temporal
from tactl.ir.rta.model import ReceiveTA
from tactl.ir.ta.model import ThresholdAutomaton


@dataclass(frozen=True)
class Pruning:
    """The locations the antecedent keeps empty on every violating run and the rules out of them."""

    antecedent: Expr  # A
    locations: tuple[str, ...]  # S (module docstring), in the automaton's order
    rules: tuple[int, ...]  # ids of the threshold automaton's rules out of S

    def apply(self, ta: ThresholdAutomaton) -> ThresholdAutomaton:
        """``ta`` without the rules out of S (its other rules keep their ids)."""
        return replace(ta, rules=tuple(r for r in ta.rules if r.source not in self.locations))

    def apply_receive(self, rta: ReceiveTA) -> ReceiveTA:
        """The receive automaton without its rules (crash rules too) out of S."""
        return replace(rta, rules=tuple(r for r in rta.rules if r.source not in self.locations),
                       crash_rules=tuple(r for r in rta.crash_rules if r.source not in self.locations))


def antecedent(spec: Expr) -> Expr | None:
    """``A`` of ``[](A -> X)`` or ``A -> X`` with ``A`` free of temporal operators; else None."""
    body = spec.arg if isinstance(spec, Always) else spec
    if isinstance(body, Implies) and not is_temporal(body.left):
        return body.left
    return None


def kept_empty(a: Expr, locations: set[str]) -> set[str]:
    """``Z``: the locations with a conjunct ``ℓ == 0`` of ``a``."""
    out = set()
    for c in (a.args if isinstance(a, And) else (a,)):
        if isinstance(c, Compare) and c.op == "==" and isinstance(c.left, Name) and c.left.name in locations \
                and c.right == IntConst(0):
            out.add(c.left.name)
    return out


def empty_sources(ta: ThresholdAutomaton, zero: set[str]) -> set[str]:
    """The largest ``S`` of the module docstring for ``Z = zero``."""
    moves = [(r.source, r.target) for r in ta.rules if not r.is_self_loop]
    reach: dict[str, set[str]] = {}
    for loc in zero:
        seen, todo = {loc}, [loc]
        while todo:
            here = todo.pop()
            for s, t in moves:
                if s == here and t not in seen:
                    seen.add(t)
                    todo.append(t)
        reach[loc] = seen
    chosen = {loc for loc in zero if reach[loc] <= zero}
    changed = True
    while changed:
        entered = {t for s, t in moves if t in chosen and s not in chosen}
        changed = bool(entered)
        chosen -= entered
    return chosen


def pruning(ta: ThresholdAutomaton, spec: Expr) -> Pruning | None:
    """The pruning the antecedent of ``spec`` (a property's specification, without the justice
    assumption) allows on ``ta``; None where it drops no rule."""
    a = antecedent(spec)
    if a is None:
        return None
    a = ta.expand(a)
    names = [loc.name for loc in ta.locations]
    s = empty_sources(ta, kept_empty(a, set(names)))
    rules = tuple(r.id for r in ta.rules if r.source in s)
    if not rules:
        return None
    return Pruning(a, tuple(n for n in names if n in s), rules)
