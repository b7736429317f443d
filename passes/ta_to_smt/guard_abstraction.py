"""Guard analysis of a monotone threshold automaton: the facts the SMT encodings are built on.

Every guard atom, oriented to *rise* (``Σ a·x ≥ b(p)`` with all shared coefficients ``a > 0``),
switches from false to true at most once along a run, because shared variables only grow
(``passes/ta_to_smt/steady.py`` explains the encoding built on this). This module abstracts each
guard into a formula over such atoms (:func:`abstract_guards`) and derives from it what the
encodings need: the atoms a steady part must keep constant (:func:`sensitive_atoms`), the crash
budgets that need no boundary step (:func:`budget_atoms`), how many steady parts suffice when no
atom is sensitive (:func:`rounds_bound`), and why an automaton is outside the class decided at all
(:func:`unsupported_reason`). None of it builds an SMT term, so the checkers and the driver ask
these questions without loading an encoder.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tactl.ir.boolean import simplify
from tactl.ir.expr import (And, BoolConst, Compare, Expr, Implies, IntConst, Name, Neg, Not, Or, conj, disj,
                           names, transform)
from tactl.ir.linear import GE, NE, LinearAtom, NonLinearError, normalize
from tactl.ir.linear import term_expr as linear_expr
from tactl.ir.ta.model import ThresholdAutomaton


class UnsupportedAutomaton(ValueError):
    """The automaton is outside the class this encoding decides (the message says why)."""


# --------------------------------------------------------------------------- guard abstraction


@dataclass(frozen=True)
class RiseAtom:
    """``Σ coeffs·x ≥ bound`` with every shared-variable coefficient positive."""

    coeffs: tuple[tuple[str, int], ...]
    bound: int

    def __str__(self) -> str:
        return str(LinearAtom(self.coeffs, GE, self.bound))


@dataclass(frozen=True)
class GuardAbstraction:
    """The rise atoms of all guards and each rule's guard as a formula over atom placeholders.

    A placeholder is ``Name("@a<i>")`` (not a TA identifier); parameter-only comparisons stay as
    they are. ``active`` lists the rules that can change a configuration (a self-loop without
    increments changes nothing) and whose guard is not constantly false.
    """

    atoms: tuple[RiseAtom, ...]
    guards: tuple[Expr, ...]
    increments: tuple[dict[str, int], ...]
    active: tuple[int, ...]
    # Specification formulas abstracted like guards (``extra`` of abstract_guards); comparisons
    # over location counters alone become ``Name("@c<k>")`` for ``counter_atoms[k]``.
    extra: tuple[Expr, ...] = ()
    counter_atoms: tuple[LinearAtom, ...] = ()


def placeholder(i: int) -> str:
    return f"@a{i}"


def unsupported_reason(ta: ThresholdAutomaton) -> str | None:
    """Why the automaton is outside the monotone class decided here, or None."""
    if ta.unknowns:
        return ("the automaton has synthesis unknowns (" + ", ".join(ta.unknowns) + "); give them "
                "values first")
    bad = ta.non_monotone_updates()
    if bad:
        rule, update = bad[0]
        return (f"rule {rule.id} has the update {ta.update_text(update)}, which is not an "
                "increment by a constant >= 0; the checker decides monotone threshold automata, "
                "whose shared variables only grow")
    try:
        abstract_guards(ta)
    except UnsupportedAutomaton as e:
        return str(e)
    return None


def abstract_guards(ta: ThresholdAutomaton, rules: set[int] | None = None,
                    extra: tuple[Expr, ...] = ()) -> GuardAbstraction:
    """Abstract every guard; only ``rules`` (default: all) may be active and contribute atoms.

    ``extra`` (macro-expanded state formulas of a specification's invariants) is abstracted with
    the same atoms, so that its threshold atoms become part of every segment's context."""
    shared = set(ta.shared)
    locations = {loc.name for loc in ta.locations}
    atoms: dict[RiseAtom, int] = {}
    counter_atoms: dict[LinearAtom, int] = {}

    def atom_formula(coeffs: tuple[tuple[str, int], ...], bound: int, rule_id: int) -> Expr:
        on_shared = [a for x, a in coeffs if x in shared]
        if not on_shared:
            return Compare(">=", linear_expr(coeffs), IntConst(bound) if bound >= 0 else Neg(IntConst(-bound)))
        if all(a > 0 for a in on_shared):
            return Name(placeholder(atoms.setdefault(RiseAtom(coeffs, bound), len(atoms))))
        if all(a < 0 for a in on_shared):
            flipped = RiseAtom(tuple((x, -a) for x, a in coeffs), 1 - bound)
            return Not(Name(placeholder(atoms.setdefault(flipped, len(atoms)))))
        raise UnsupportedAutomaton(
            f"{_owner(rule_id)} has the atom '{LinearAtom(coeffs, GE, bound)}', whose "
            "shared variables have coefficients of both signs: it can switch more than once, so "
            "the steady-segment argument does not apply")

    def rewrite_for(rule_id: int):
        def rewrite(e: Expr) -> Expr | None:
            if not isinstance(e, Compare):
                return None
            try:
                atom = normalize(e)
            except NonLinearError as err:
                raise UnsupportedAutomaton(f"{_owner(rule_id)}: {err}") from None
            if isinstance(atom, bool):
                return BoolConst(atom)
            if any(x in locations for x, _ in atom.coeffs):
                if rule_id is not None or not all(x in locations for x, _ in atom.coeffs):
                    raise UnsupportedAutomaton(
                        f"the comparison '{atom}' mixes location counters with other variables "
                        "under []: outside the ELTL-FT fragment (a location counter is compared "
                        "with 0 there)")
                return Name(f"@c{counter_atoms.setdefault(atom, len(counter_atoms))}")
            if atom.op == GE:
                return atom_formula(atom.coeffs, atom.bound, rule_id)
            neg = tuple((x, -a) for x, a in atom.coeffs)
            if atom.op == NE:
                return disj(atom_formula(atom.coeffs, atom.bound + 1, rule_id),
                            atom_formula(neg, 1 - atom.bound, rule_id))
            return conj(atom_formula(atom.coeffs, atom.bound, rule_id),
                        atom_formula(neg, -atom.bound, rule_id))
        return rewrite

    guards, increments, active = [], [], []
    for index, rule in enumerate(ta.rules):
        if rules is not None and index not in rules:
            guards.append(BoolConst(False))
            increments.append(ta.increments(rule) or {})
            continue
        guard = simplify(transform(ta.expand(rule.guard), rewrite_for(rule.id)))
        inc = ta.increments(rule)
        if inc is None or any(c < 0 for c in inc.values()):
            raise UnsupportedAutomaton(f"rule {rule.id} does not only increment shared variables")
        guards.append(guard)
        increments.append(inc)
        if guard != BoolConst(False) and not (rule.is_self_loop and not inc):
            active.append(index)
    abstracted = tuple(simplify(transform(e, rewrite_for(None))) for e in extra)
    return GuardAbstraction(tuple(atoms), tuple(guards), tuple(increments), tuple(active),
                            abstracted, tuple(counter_atoms))


def _owner(rule_id: int | None) -> str:
    return "an invariant of the specification" if rule_id is None else f"the guard of rule {rule_id}"


def sensitive_atoms(abstraction: GuardAbstraction, *also: Expr) -> frozenset[int]:
    """The atoms a steady part must keep constant: those that occur negatively (a fall guard,
    ``s < t``) in the guard of a rule that can fire, and every atom of the formulas ``also``
    (a specification's invariants, which are evaluated once per segment) — except the budget
    atoms (``budget_atoms``), which may rise at a steady part's last budget step.

    Why the others need not be constant. Group a run's steps by the context of the
    configuration each starts from; every step of a group is enabled under the group's starting
    context, and only the group's last step can change it. If that step makes no sensitive atom
    rise, it can stay in the group's steady part: the part's firings, executed in any order that
    keeps counters non-negative, stay enabled, because the atoms that may rise meanwhile occur
    only positively in their guards and the sensitive ones cannot rise inside. Only a step that
    makes a sensitive atom rise must come last, as the boundary step (whose guard is evaluated
    under the same starting context). Where no guard has a fall atom and no invariant an atom,
    no boundary step is needed at all; the segments are still cut at every change of context."""
    negated, fixed = _negated_and_fixed(abstraction, also)
    return frozenset((negated - set(budget_atoms(abstraction, *also))) | fixed)


def budget_atoms(abstraction: GuardAbstraction, *also: Expr) -> dict[int, int]:
    """Fall atoms used as a budget, atom -> δ: ``nfaulty < Fe`` guarding crash rules that do
    ``nfaulty' == nfaulty + 1``. Atom ``a`` (``Σ c·x >= b``) is one when it is in no formula of
    ``also``, the rules that negate it in their guards are exactly the rules that increment its
    variables, and each of them raises ``Σ c·x`` by the same ``δ > 0``.

    Such an atom may rise inside a steady part that starts with it false, provided
    ``Σ c·x < b + δ`` at its end: in any executable order of the part's firings the sum grows
    only at its budget steps, by δ each, so it stays below ``b`` until the last of them, which
    makes ``a`` rise; every budget step is then enabled (``a`` false before it), and no later
    step needs ``a`` false (only budget rules negate it). Conversely the last step of a group
    (see ``sensitive_atoms``) that makes ``a`` rise is a budget step that started below ``b``.
    So crash budgets, common in the benchmarks, need no boundary steps."""
    negated, fixed = _negated_and_fixed(abstraction, also)
    out: dict[int, int] = {}
    for a in sorted(negated - fixed):
        coeffs = dict(abstraction.atoms[a].coeffs)
        negating = {i for i in abstraction.active if a in negative_placeholders(abstraction.guards[i], True)}
        raising = {i: sum(c * abstraction.increments[i].get(x, 0) for x, c in coeffs.items())
                   for i in abstraction.active}
        raising = {i: d for i, d in raising.items() if d}
        deltas = set(raising.values())
        # the argument needs every budget step to require `a` false: a guard that only mentions
        # `not a` in a disjunct (`x < 1 || x <= 1`) fires past the budget
        required = all(a in _required_false(abstraction.guards[i]) for i in negating)
        if set(raising) == negating and len(deltas) == 1 and min(deltas) > 0 and required:
            out[a] = deltas.pop()
    return out


def _required_false(e: Expr) -> set[int]:
    """The atoms ``@a<i>`` that ``e`` implies false, syntactically: a negated placeholder, a
    conjunct's, or one every disjunct implies false."""
    if isinstance(e, Not) and isinstance(e.arg, Name) and e.arg.name.startswith("@a"):
        return {int(e.arg.name[2:])}
    if isinstance(e, And):
        return set().union(*(_required_false(x) for x in e.args))
    if isinstance(e, Or):
        parts = [_required_false(x) for x in e.args]
        return set.intersection(*parts) if parts else set()
    return set()


def _negated_and_fixed(abstraction: GuardAbstraction, also: tuple[Expr, ...]) -> tuple[set[int], set[int]]:
    negated: set[int] = set()
    for i in abstraction.active:
        negated |= negative_placeholders(abstraction.guards[i], True)
    fixed = {int(n.name[2:]) for e in also for n in names(e) if n.name.startswith("@a")}
    return negated, fixed


def negative_placeholders(e: Expr, positive: bool) -> set[int]:
    """Atoms ``@a<i>`` occurring in ``e`` under a negation (with polarity ``positive`` at the
    root); any placeholder inside a node other than and/or/not/implies counts as negative."""
    return _polarities(e, positive)[1]


def _polarities(e: Expr, positive: bool = True) -> tuple[set[int], set[int]]:
    """The atoms occurring in ``e`` positively, and those occurring negatively (both, for a
    placeholder inside a node other than and/or/not/implies)."""
    if isinstance(e, Name):
        if not e.name.startswith("@a"):
            return set(), set()
        return ({int(e.name[2:])}, set()) if positive else (set(), {int(e.name[2:])})
    if isinstance(e, Not):
        return _polarities(e.arg, not positive)
    if isinstance(e, (And, Or, Implies)):
        parts = [_polarities(e.left, not positive), _polarities(e.right, positive)] \
            if isinstance(e, Implies) else [_polarities(a, positive) for a in e.args]
        return set().union(*(p for p, _ in parts)), set().union(*(n for _, n in parts))
    inside = {int(n.name[2:]) for n in names(e) if n.name.startswith("@a")}
    return inside, set(inside)


def rounds_bound(ta: ThresholdAutomaton, abstraction: GuardAbstraction) -> int | None:
    """How many steady parts suffice for a run to reach any configuration some run reaches, when
    no atom is sensitive (``sensitive_atoms`` empty: every guard rises, apart from budgets);
    None when the rules' dependencies are cyclic (then ``m + 1`` is the bound).

    The argument (a greedy schedule). Keep every process's path of a run and fire in rounds:
    in round ``k`` every process moves along its path as far as the guards allow under the
    context at the round's start. Guards only rise, so firing earlier disables nothing (a budget
    step stays enabled in any order of the same steps, see ``budget_atoms``), and the rounds
    reach the run's last configuration. A step of rule ``r`` is done by the end of round
    ``fire(r)``, where ``fire(r)`` is the larger of ``fire`` of the rules that can precede ``r``
    on a path (same round) and ``1 + rise(b)`` for each atom ``b`` in ``r``'s guard, ``rise(b)``
    being the largest ``fire`` of a rule that increments ``b``'s sum: by then every step that
    increments it is done, so ``b`` holds if it held when the run took the step. Hence
    ``1 + max fire`` rounds, each one steady part with no boundary step. On the random19
    automata this is 3-4 segments instead of 13-19 (one per atom): a round per phase of the
    algorithm, and z3 answers in a tenth of the time."""
    active = abstraction.active
    positive = {i: _polarities(abstraction.guards[i])[0] for i in active}
    raises: dict[int, list[int]] = {}
    for a, atom in enumerate(abstraction.atoms):
        raises[a] = [i for i in active if sum(c * abstraction.increments[i].get(x, 0) for x, c in atom.coeffs) > 0]
    into: dict[str, list[int]] = defaultdict(list)   # location -> the active rules entering it
    for k in active:
        into[ta.rules[k].target].append(k)
    before = {i: into[ta.rules[i].source] for i in active}
    # The least solution of the equations above, by a worklist: a rule is recomputed only when
    # a rule before it or one raising an atom of its guard has grown (one pass over a long chain,
    # where recomputing every rule until nothing changes took a pass per link). Values only grow
    # and stay below the least solution, so one above ``limit`` means the least solution is too
    # (or there is none): a cycle through a guard, each round unlocking the next.
    after: dict[int, set[int]] = defaultdict(set)   # rule -> the rules whose equation reads it
    for i in active:
        for k in before[i]:
            after[k].add(i)
    guarded: dict[int, set[int]] = defaultdict(set)  # atom -> the rules with it in their guard
    for i in active:
        for a in positive[i]:
            guarded[a].add(i)
    raised_by: dict[int, list[int]] = defaultdict(list)  # rule -> the atoms it raises
    for a, rs in raises.items():
        for i in rs:
            raised_by[i].append(a)
    fire = dict.fromkeys(active, 0)
    rise = dict.fromkeys(raises, 0)
    limit = len(abstraction.atoms)
    pending = set(active)
    while pending:
        i = pending.pop()
        new = max([1 + rise[a] for a in positive[i]] + [fire[k] for k in before[i]] + [0])
        if new <= fire[i]:
            continue
        if new > limit:
            return None
        fire[i] = new
        pending |= after[i]
        for a in raised_by[i]:
            if new > rise[a]:
                rise[a] = new
                pending |= guarded[a]
    return 1 + max(fire.values(), default=0)
