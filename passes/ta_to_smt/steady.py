"""Encoding pass: (monotone TA, reachability question) → one SMT query over steady segments.

Why this encoding (docs/check.md, "Encoding"). Shared variables only grow, so every
guard atom, oriented to *rise* (``Σ a·x ≥ b(p)`` with all shared coefficients ``a > 0``), switches
from false to true at most once along a run; a guard's negated rise atom is a *fall* guard. With
``m`` such atoms a run has at most ``m + 1`` distinct contexts (vectors of atom values), so it
splits into at most ``m + 1`` *steady segments*. Segment ``j`` is

* a steady part (configurations ``2j → 2j+1``) that starts in context ``ctx_j``, encoded by
  firing counts ``x_j,r`` (flow equations, the guard of every fired rule true under ``ctx_j``,
  and the firable-chain condition below); its *sensitive* atoms (negated by a guard, or used by
  an invariant: ``sensitive_atoms``) have the same value at its end — by monotonicity at every
  configuration in between — while the others may rise inside it (they occur only positively
  in the guards, so every fired guard stays true), then
* one boundary step (``2j+1 → 2j+2``) of at most one rule, enabled under ``ctx_j``, which may
  make a sensitive atom rise; only the rules that increment a variable of a sensitive atom get
  one (none, when no guard has a fall atom: then the steady parts alone change the context).
  A crash budget (``nfaulty < Fe`` guarding the rules that do ``nfaulty' == nfaulty + 1``) is
  no sensitive atom either: it may rise at a steady part's last budget step (``budget_atoms``).
  Keeping budgets out of the sensitive atoms shrinks the queries' LP several-fold on the
  random19 automata, whose crash rules all carry such a budget.

Without sensitive atoms fewer segments suffice: as many as the greedy rounds of
``rounds_bound`` (a round per phase of the algorithm), when the rules' dependencies are acyclic.
The guard abstraction and these counts (``sensitive_atoms``, ``budget_atoms``, ``rounds_bound``)
are in ``passes/ta_to_smt/guard_abstraction.py``, which the driver and the checkers also ask;
this module builds the query from them.

In a fixed context processes move independently (a communication-free net), so a multiset of
rule firings is executable from ``κ`` iff the flow equation keeps counters non-negative and every
fired rule's source is reachable, in the graph of fired rules, from a location that holds a
process (Esparza 1997; the "steady path" of Balasubramanian–Esparza–Lazić 2020). Locations on a
cycle other than a self-loop get an integer rank per segment so that the justification cannot go
round in circles. Completeness: group a real run's steps by the context of the configuration
they start from; the last step of each group is the boundary step if it makes a sensitive atom
rise, else the steady part's last step. Soundness: the schedule read
from a model is replayed step by step by ``tactl.engines.simulate`` before any violation is reported.

The query is a single QF_LIA satisfiability question per property (no enumeration of guard
orders as in ByMC's schemas), polynomial in the automaton: ``(m + 1)·(|rules| + |locations|)``
constants. Names use dots (``k3.loc0``, ``x1.r4``), which TA identifiers cannot contain.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from tactl.ir.expr import (
    BoolConst,
    Compare,
    Expr,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    conj,
    disj,
    names,
    substitute,
    summation,
)
from tactl.ir.linear import NonLinearError, int_symbols, to_z3
from tactl.ir.linear import term_expr as linear_expr
from tactl.ir.eltl.safety import ReachQuery
from tactl.ir.smt import BOOL, INT, Block, Declaration, SmtQuery
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.ir.ta.validate import strongly_connected
from tactl.passes.ta_to_smt.guard_abstraction import (
    GuardAbstraction,
    RiseAtom,
    UnsupportedAutomaton,
    abstract_guards,
    budget_atoms,
    negative_placeholders,
    placeholder,
    rounds_bound,
    sensitive_atoms,
    unsupported_reason,
)


# ------------------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class SteadyLayout:
    """How configurations, firing counts and contexts are named in the query.

    Configuration ``2j`` starts segment ``j``, ``2j+1`` ends its steady part; the last one,
    ``2·segments − 1``, is where the property's violation is asserted.
    """

    ta: ThresholdAutomaton
    abstraction: GuardAbstraction
    segments: int
    # Sorted passes (``passes/ta_to_smt/lasso.py``): each segment's firings also split into ``passes``
    # rounds of one batch per rule, in the rule order ``pass_order``; 0 = not used.
    passes: int = 0
    pass_order: tuple[int, ...] = ()
    # Atoms that must keep their value throughout a steady part (see ``sensitive_atoms``); the
    # others only have to hold at its start. None: every atom (the plain encoding).
    sensitive: frozenset[int] | None = None
    # Budget atoms (``budget_atoms``): atom -> δ; they rise only at a steady part's last step.
    budgets: tuple[tuple[int, int], ...] = ()
    # None: the query is exact. "over" / "under" (``encode_branch`` in ``passes/ta_to_smt/lasso.py``): unsat
    # proves that no run exists / a model is a real run, but not the converse.
    bound: str | None = None

    def is_sensitive(self, atom: int) -> bool:
        return self.sensitive is None or atom in self.sensitive

    @property
    def boundary_rules(self) -> tuple[int, ...]:
        """The rules a boundary step may fire: those that can make a sensitive atom rise (that
        increment one of its variables). Every other rise happens inside a steady part."""
        ab = self.abstraction
        watched = {x for a, atom in enumerate(ab.atoms) if self.is_sensitive(a) for x, _ in atom.coeffs}
        return tuple(i for i in ab.active if set(ab.increments[i]) & watched)

    @staticmethod
    def batch(j: int, p: int, rule_index: int) -> str:
        return f"y{j}.p{p}.r{rule_index}"

    @property
    def final_config(self) -> int:
        return 2 * self.segments - 1

    @staticmethod
    def counter(c: int, loc: str) -> str:
        return f"k{c}.{loc}"

    @staticmethod
    def shared(c: int, var: str) -> str:
        return f"g{c}.{var}"

    @staticmethod
    def fired(j: int, rule_index: int) -> str:
        return f"x{j}.r{rule_index}"

    @staticmethod
    def boundary(j: int, rule_index: int) -> str:
        return f"b{j}.r{rule_index}"

    @staticmethod
    def context(j: int, atom: int) -> str:
        return f"ctx{j}.a{atom}"

    @staticmethod
    def rank(j: int | str, loc: str) -> str:
        return f"rk{j}.{loc}"

    def config_names(self, c: int) -> dict[str, Expr]:
        """TA name → its constant in configuration ``c`` (parameters keep their names)."""
        table: dict[str, Expr] = {loc.name: Name(self.counter(c, loc.name)) for loc in self.ta.locations}
        table.update({v: Name(self.shared(c, v)) for v in self.ta.shared})
        return table


@dataclass(frozen=True)
class SteadyEncoding:
    """A steady-segment query with the layout that names its constants (to read a model back)."""
    layout: SteadyLayout
    query: SmtQuery


# ----------------------------------------------------------------------------------- encoding


def encode(ta: ThresholdAutomaton, question: ReachQuery, *,
           parameters: dict[str, int] | None = None,
           segments: int | None = None) -> SteadyEncoding:
    """The query that is satisfiable iff ``question.bad`` is reachable (see the module doc).

    ``parameters`` fixes some parameter values (``tactl emit --param``); ``segments`` overrides
    the number of steady segments (default: number of rise atoms + 1, which is complete, or
    fewer by ``rounds_bound`` when no atom is sensitive).
    """
    reason = unsupported_reason(ta)
    if reason:
        raise UnsupportedAutomaton(reason)
    abstraction = abstract_guards(ta, usable_rules(ta, question, parameters or {}))
    sensitive = sensitive_atoms(abstraction)
    count = segments if segments is not None else len(abstraction.atoms) + 1
    if segments is None and not sensitive:
        count = min(count, rounds_bound(ta, abstraction) or count)
    layout = SteadyLayout(ta, abstraction, count, sensitive=sensitive,
                          budgets=tuple(budget_atoms(abstraction).items()))
    return SteadyEncoding(layout, SteadyEncoder(layout, question, parameters or {}).query())


def usable_rules(ta: ThresholdAutomaton, question: ReachQuery, fixed: dict[str, int]) -> set[int]:
    """Rules some run can fire: a least fixpoint (:func:`_usable`) from the locations that the
    initial constraints (with the property's antecedent) allow to be occupied. A rule is usable
    once its source is reached and its guard can hold while every shared variable that no usable
    rule changes keeps its initial value; its target is then reached, and the variables it
    changes are free from then on. Sound by induction along a run: the first firing of a rule left
    out would need its source occupied (only usable rules entered locations, so it is reached) and
    its guard true while only usable rules had changed variables.

    Dropping the other rules changes no run, and atoms only they use need no segment. On c1cs,
    whose safety properties assume ``loc1 == 0`` (or ``loc0 == 0``), 9 of the 22 rules that can
    change a configuration go, and with them the segments z3 would have to rule out; a guard that
    waits for messages nobody can send (STRB's unforgeability: ``echo >= t + 1 - f`` while
    ``echo`` stays 0) takes the rest of the relay with it.
    """
    return _usable(ta, question, fixed).rules


@dataclass(frozen=True)
class _Usable:
    rules: set[int]
    reached: set[str]       # locations some run can occupy
    changed: set[str]       # shared variables a usable rule changes (the others keep their initial values)


def _usable(ta: ThresholdAutomaton, question: ReachQuery, fixed: dict[str, int]) -> _Usable:
    import z3  # lazy: importing z3 slows every start; loaded when a solver question is asked

    solver, sym = _initial_solver(ta, question, fixed)
    reached = _occupiable(solver, [loc.name for loc in ta.locations], sym)
    leaving: dict[str, list[int]] = defaultdict(list)   # by source: one pass over the rules
    for i, rule in enumerate(ta.rules):
        leaving[rule.source].append(i)
    usable: set[int] = set()
    changed: set[str] = set()
    waiting: dict[str, set[int]] = defaultdict(set)     # refused rules, by a shared variable they read
    answers: dict[tuple, bool] = {}                      # (guard, the changed variables it reads) -> may hold
    # in the rules' order, never a set's: the z3 terms asked about here are created in this order,
    # and their numbering steers z3's later search (a different order cost n-kset's
    # decide_or_flip 0.5 s instead of 0.25 s, varying with Python's hash seed)
    todo = [i for i, rule in enumerate(ta.rules) if rule.source in reached][::-1]
    while todo:
        i = todo.pop()
        if i in usable:
            continue
        rule = ta.rules[i]
        guard = ta.expand(rule.guard)
        read = {n.name for n in names(guard)}
        key = (guard, frozenset(read & changed))
        if key not in answers:
            answers[key] = guard == BoolConst(True) or _may_hold(solver, guard, changed, ta, sym)
        if not answers[key]:
            for v in read & set(ta.shared) - changed:
                waiting[v].add(i)
            continue
        usable.add(i)
        if rule.target not in reached:
            reached.add(rule.target)
            todo.extend(leaving[rule.target][::-1])
        increments = ta.increments(rule)
        for v in sorted(({u.var for u in rule.updates} if increments is None else set(increments)) - changed):
            changed.add(v)
            todo.extend(sorted(waiting.pop(v, ()), reverse=True))
    return _Usable(usable, reached, changed)


def _may_hold(solver, guard: Expr, changed: set[str], ta: ThresholdAutomaton, sym) -> bool:
    import z3  # lazy: loaded by the caller already

    try:
        return solver.check(_guard_now(guard, changed, ta, sym)) != z3.unsat
    except (NonLinearError, TypeError, ValueError):  # not a linear guard: it may hold
        return True


def _guard_now(guard: Expr, changed: set[str], ta: ThresholdAutomaton, sym):
    """``guard`` over the initial symbols of ``sym``, except that a location counter and a shared
    variable in ``changed`` are fresh symbols (any value): whether it can hold in some
    configuration where only ``changed`` differ from their initial values."""
    keep = set(ta.parameters) | (set(ta.shared) - changed)
    return to_z3(guard, lambda n: sym(n if n in keep else f"later.{n}"))


def usable_rules_premise(ta: ThresholdAutomaton, question: ReachQuery, fixed: dict[str, int]) -> str:
    """What :func:`usable_rules` takes from z3, as an SMT-LIB question whose answer must be
    ``unsat``: no initial configuration occupies the source of a rule it leaves out that no usable
    rule leads to, and none lets the guard of another rule left out hold with the variables no
    usable rule changes at their initial values (with both, the first firing of a rule left out
    is impossible). "" when it leaves no rule out. ``tactl check --certify`` re-asks it."""
    import z3  # lazy: importing z3 slows every start; only --certify asks this

    found = _usable(ta, question, fixed)
    out = [i for i in range(len(ta.rules)) if i not in found.rules]
    sources = sorted({ta.rules[i].source for i in out if ta.rules[i].source not in found.reached})
    enabled = [i for i in out if ta.rules[i].source in found.reached]
    if not sources and not enabled:
        return ""
    solver, sym = _initial_solver(ta, question, fixed)
    solver.add(z3.Or([sym(name) > 0 for name in sources]
                     + [_guard_now(ta.expand(ta.rules[i].guard), found.changed, ta, sym) for i in enabled]))
    what = [f"an initial configuration occupying {', '.join(sources)}"] if sources else []
    if enabled:
        frozen = sorted(set(ta.shared) - found.changed)
        what.append(f"the guard of rule {', '.join(str(ta.rules[i].id) for i in enabled)} true with "
                    f"{', '.join(frozen) or 'no shared variable'} at the initial values")
    return (f"; {'; or '.join(what)}; unsat: the rules left out can never fire\n(set-logic ALL)\n"
            + solver.to_smt2())


def _initial_solver(ta: ThresholdAutomaton, question: ReachQuery, fixed: dict[str, int]):
    """A z3 solver holding the initial constraints (resilience condition, inits, the property's
    antecedent, natural numbers, the fixed parameters), and its symbol table."""
    import z3  # lazy: importing z3 slows every start; loaded when a solver question is asked

    sym = int_symbols()
    solver = z3.Solver()
    for e in (*ta.assumptions, *ta.inits, question.initial):
        solver.add(to_z3(ta.expand(e), sym))
    for x in (*ta.parameters, *ta.shared, *(loc.name for loc in ta.locations)):
        solver.add(sym(x) >= 0)
    for p, v in fixed.items():
        solver.add(sym(p) == v)
    return solver, sym


def _occupiable(solver, locations: list[str], sym) -> set[str]:
    """The locations that some solution of ``solver`` occupies (``> 0``). One query per model
    rather than one per location: each model answers for every location it occupies, and the
    next query asks only about the rest (usually one or two queries in all). A location z3
    cannot decide counts as occupiable (keeping a rule is always sound)."""
    import z3  # lazy: importing z3 slows every start; only checks need it

    left, found = list(locations), set()
    while left:
        answer = solver.check(z3.Or([sym(name) > 0 for name in left]))
        if answer == z3.unsat:
            break
        if answer != z3.sat:
            found.update(left)
            break
        model = solver.model()
        now = {name for name in left
               if model.eval(sym(name), model_completion=True).as_long() > 0}
        found |= now
        left = [name for name in left if name not in now]
    return found


@dataclass
class SteadyEncoder:
    """Builds the steady-segment query block by block; ``passes/ta_to_smt/lasso.py`` extends it
    with the lasso's loop."""

    layout: SteadyLayout
    question: ReachQuery
    fixed: dict[str, int]
    blocks: list[Block] = field(default_factory=list)
    # configuration -> its name table, built once: one per formula would make an automaton with
    # one initial constraint per location cost locations² to encode
    names_at: dict[int, dict[str, Expr]] = field(default_factory=dict, repr=False)

    @property
    def ta(self) -> ThresholdAutomaton:
        return self.layout.ta

    def _names(self, c: int) -> dict[str, Expr]:
        table = self.names_at.get(c)
        if table is None:
            table = self.names_at[c] = self.layout.config_names(c)
        return table

    def query(self) -> SmtQuery:
        ta, lay = self.ta, self.layout
        ab = lay.abstraction
        self.parameter_block()
        self.initial_block()
        for j in range(lay.segments):
            self.steady_block(j)
            if j + 1 < lay.segments:
                self.boundary_block(j)
        final = lay.final_config
        self.blocks.append(Block(
            f"property {self.question.property} violated in the last configuration ({final})",
            (), (self.at(final, self.question.bad),)))
        notes = (
            f"automaton {ta.name}: {len(ta.locations)} locations, {len(ta.rules)} rules "
            f"({len(ab.active)} that can change a configuration)",
            f"property {self.question.property}: sat = a violating configuration is reachable, "
            "unsat = the property holds for all parameters satisfying the resilience condition",
            f"{len(ab.atoms)} rise guard atoms -> {lay.segments} steady segments:",
            *(f"  a{i}: {a}" for i, a in enumerate(ab.atoms)),
        )
        return SmtQuery(f"tactl steady-segment query for {ta.name}:{self.question.property}",
                        notes, tuple(self.blocks))

    # -- helpers

    def at(self, c: int, e: Expr) -> Expr:
        return substitute(e, self._names(c))

    def atom_at(self, c: int, atom: RiseAtom) -> Expr:
        names = self._names(c)
        return Compare(">=", linear_expr(atom.coeffs, rename=lambda x: names.get(x, Name(x))),
                       _int(atom.bound))

    def guard_in(self, j: int, rule_index: int) -> Expr:
        ab = self.layout.abstraction
        return substitute(ab.guards[rule_index], {
            placeholder(i): Name(self.layout.context(j, i)) for i in range(len(ab.atoms))})

    def config_decls(self, c: int) -> list[Declaration]:
        lay = self.layout
        return ([Declaration(lay.counter(c, loc.name)) for loc in self.ta.locations]
                + [Declaration(lay.shared(c, v)) for v in self.ta.shared])

    def moved(self, c_from: int, c_to: int, counts: dict[int, Name]) -> list[Expr]:
        """Flow equations: configuration ``c_to`` is ``c_from`` after firing ``counts``."""
        ta, lay, ab = self.ta, self.layout, self.layout.abstraction
        delta: dict[str, list[tuple[str, Expr]]] = defaultdict(list)
        for i, n in counts.items():
            rule = ta.rules[i]
            if not rule.is_self_loop:
                delta[rule.source].append(("-", n))
                delta[rule.target].append(("+", n))
        out: list[Expr] = []
        for loc in ta.locations:
            rhs = summation(Name(lay.counter(c_from, loc.name)), delta[loc.name]) \
                if delta[loc.name] else Name(lay.counter(c_from, loc.name))
            out.append(Compare("==", Name(lay.counter(c_to, loc.name)), rhs))
            out.append(Compare(">=", Name(lay.counter(c_to, loc.name)), IntConst(0)))
        for v in ta.shared:
            adds = [("+", n if ab.increments[i][v] == 1 else Mul(IntConst(ab.increments[i][v]), n))
                    for i, n in counts.items() if ab.increments[i].get(v)]
            rhs = summation(Name(lay.shared(c_from, v)), adds) if adds else Name(lay.shared(c_from, v))
            out.append(Compare("==", Name(lay.shared(c_to, v)), rhs))
        return out

    # -- blocks

    def parameter_block(self) -> None:
        ta = self.ta
        assertions: list[Expr] = [Compare(">=", Name(p), IntConst(0)) for p in ta.parameters]
        assertions += [ta.expand(a) for a in ta.assumptions]
        assertions += [Compare("==", Name(p), _int(v)) for p, v in sorted(self.fixed.items())]
        self.blocks.append(Block("parameters and the resilience condition",
                                 tuple(Declaration(p) for p in ta.parameters), tuple(assertions)))

    def initial_block(self) -> None:
        ta = self.ta
        decls = self.config_decls(0)
        assertions: list[Expr] = [Compare(">=", Name(d.name), IntConst(0)) for d in decls]
        assertions += [self.at(0, ta.expand(e)) for e in ta.inits]
        if self.question.initial != BoolConst(True):
            assertions.append(self.at(0, self.question.initial))
        self.blocks.append(Block("initial configuration 0: inits and the property's antecedent",
                                 tuple(decls), tuple(assertions)))

    def steady_block(self, j: int) -> None:
        ta, lay, ab = self.ta, self.layout, self.layout.abstraction
        start, end = 2 * j, 2 * j + 1
        counts = {i: Name(lay.fired(j, i)) for i in ab.active}
        decls = [Declaration(n.name) for n in counts.values()]
        decls += self.config_decls(end)
        decls += [Declaration(lay.context(j, a), BOOL) for a in range(len(ab.atoms))]
        assertions: list[Expr] = [Compare(">=", n, IntConst(0)) for n in counts.values()]
        assertions += self.moved(start, end, counts)
        for a, atom in enumerate(ab.atoms):
            # The context is the atoms' values at the start; a sensitive atom keeps its value at
            # the end too, hence throughout (the others may rise: no fired guard needs them false).
            ctx = Name(lay.context(j, a))
            assertions.append(Compare("==", ctx, self.atom_at(start, atom)))
            if lay.is_sensitive(a):
                assertions.append(Compare("==", ctx, self.atom_at(end, atom)))
            if j > 0:  # implied; stated to help the solver: rise atoms stay true
                assertions.append(Implies(Name(lay.context(j - 1, a)), ctx))
        for a, delta in lay.budgets:  # a budget atom rises at most at the part's last budget step
            atom = ab.atoms[a]
            assertions.append(Implies(Not(Name(lay.context(j, a))),
                                      Not(self.atom_at(end, RiseAtom(atom.coeffs, atom.bound + delta)))))
        for i, n in counts.items():
            assertions.append(Implies(Compare(">", n, IntConst(0)), self.guard_in(j, i)))
        decls_rank, chains = self.firable_chains(j, counts)
        decls += decls_rank
        assertions += chains
        self.blocks.append(Block(f"segment {j}: steady part, configuration {start} -> {end}",
                                 tuple(decls), tuple(assertions)))

    def firable_chains(self, j: int | str, counts: dict[int, Name],
                       start: int | None = None) -> tuple[list[Declaration], list[Expr]]:
        """Every fired rule's source holds a process at the start (configuration ``start``,
        default segment ``j``'s first) or is entered by a fired rule; ``j`` names the ranks."""
        ta, lay = self.ta, self.layout
        first = 2 * j if start is None else start  # type: ignore[operator]
        entering: dict[str, list[int]] = defaultdict(list)
        for i in counts:
            rule = ta.rules[i]
            if not rule.is_self_loop:
                entering[rule.target].append(i)
        component = _cyclic_components(ta, counts)
        decls = [Declaration(lay.rank(j, loc)) for loc in sorted(component, key=_loc_order(ta))]
        out: list[Expr] = []
        for i, n in counts.items():
            src = ta.rules[i].source
            options: list[Expr] = [Compare(">", Name(lay.counter(first, src)), IntConst(0))]
            for k in entering[src]:
                came = Compare(">", counts[k], IntConst(0))
                pred = ta.rules[k].source
                if src in component and component.get(pred) == component[src]:
                    came = conj(came, Compare("<", Name(lay.rank(j, pred)), Name(lay.rank(j, src))))
                options.append(came)
            out.append(Implies(Compare(">", n, IntConst(0)), disj(*options)))
        return decls, out

    def boundary_block(self, j: int) -> None:
        ta, lay, ab = self.ta, self.layout, self.layout.abstraction
        before, after = 2 * j + 1, 2 * j + 2
        # Only a rule that increments a variable of a sensitive atom is needed here.
        steps = {i: Name(lay.boundary(j, i)) for i in lay.boundary_rules}
        decls = [Declaration(n.name) for n in steps.values()] + self.config_decls(after)
        assertions: list[Expr] = []
        budgets = dict(lay.budgets)
        for i, n in steps.items():
            # A budget atom may have risen inside the steady part; a rule whose guard negates it
            # (one of its budget rules) needs it still false here.
            spent = [Not(self.atom_at(before, ab.atoms[a]))
                     for a in sorted(negative_placeholders(ab.guards[i], True) & set(budgets))]
            assertions.append(conj(Compare(">=", n, IntConst(0)), Compare("<=", n, IntConst(1))))
            assertions.append(Implies(Compare("==", n, IntConst(1)), conj(
                self.guard_in(j, i), *spent,
                Compare(">=", Name(lay.counter(before, ta.rules[i].source)), IntConst(1)))))
        if steps:
            assertions.append(Compare("<=", summation(*_split(list(steps.values()))), IntConst(1))
                              if len(steps) > 1 else Compare("<=", next(iter(steps.values())), IntConst(1)))
        assertions += self.moved(before, after, steps)
        self.blocks.append(Block(f"segment {j}: at most one context-changing step, configuration "
                                 f"{before} -> {after}", tuple(decls), tuple(assertions)))


def _split(items: list[Expr]) -> tuple[Expr, list[tuple[str, Expr]]]:
    return items[0], [("+", x) for x in items[1:]]


def _int(v: int) -> Expr:
    return IntConst(v) if v >= 0 else Neg(IntConst(-v))


def _loc_order(ta: ThresholdAutomaton):
    order = {loc.name: i for i, loc in enumerate(ta.locations)}
    return lambda name: order[name]


def _cyclic_components(ta: ThresholdAutomaton, counts: dict[int, Name]) -> dict[str, int]:
    """Locations on a cycle of non-self-loop rules, mapped to an id of their strongly connected
    component; locations on no such cycle need no rank (the rule graph is acyclic there). Ids
    are numbered in the order of each component's first location in the file (Tarjan's
    components: linear in the rule graph, where reachability from every location was quadratic
    on a long chain)."""
    succ: dict[str, list[str]] = {loc.name: [] for loc in ta.locations}
    for i in counts:
        rule = ta.rules[i]
        if not rule.is_self_loop:
            succ[rule.source].append(rule.target)
    cyclic = {name: members for members in strongly_connected(succ) if len(members) > 1 for name in members}
    component: dict[str, int] = {}
    found = 0
    for loc in ta.locations:
        if loc.name in cyclic and loc.name not in component:
            for other in cyclic[loc.name]:
                component[other] = found
            found += 1
    return component
