"""Emitter pass: threshold automaton → SMV text for NuSMV and nuXmv (``templates/smv/model.smv.j2``).

The model is the TA's counter system, the one the other engines explore:

* one variable per location (how many processes are there) and one per shared variable;
* parameters either fixed (``DEFINE n := 4;``), or ``FROZENVAR n : 0..B;`` with the resilience
  condition as ``INVAR`` (one NuSMV run covers every parameter valuation up to ``B``), or — with
  ``unbounded`` — ``integer`` variables for nuXmv's infinite-state engines;
* ``INIT``: the TA's ``inits`` (and every variable a natural number);
* ``TRANS``: every step fires exactly one rule for one process — a process in the rule's source,
  its guard true, the updates applied, every other variable unchanged. The variable ``rule`` names
  the rule fired to reach a state (``none`` in the initial state), so a trace maps back to rules.

**Finite runs.** tactl adds no implicit stuttering (``tactl.ir.eltl.formula``, decisions 1 and 3): an
infinite run is kept going by the automaton's own rules, and a deadlock ends a finite run, which
is never a liveness counterexample — but a bad state reached before a deadlock *is* a safety
violation. NuSMV's BDD LTL algorithm only looks at infinite paths, so a non-total ``TRANS`` would
hide nested-safety violations that end in a deadlock. The model therefore has one extra step,
``stutter`` (nobody moves), always possible: a finite run π is the infinite path π·stutter^ω.
Safety specifications (which, negated, only say "eventually") hold on π·last^ω iff they hold on
π, so stuttering is exactly right for them; liveness specifications are checked over the paths
that never stutter — ``LTLSPEC (G rule != stutter) -> φ`` — i.e. over the real infinite runs.

**Properties.** Reachability (and propositional) properties become ``INVARSPEC``: the property's
initial antecedent ``A`` (``A -> [](B)`` means "if ``A`` held *initially*, ``B`` holds forever",
not "``A -> B`` in every state") is a frozen boolean ``init_<name>`` fixed by ``INIT`` to ``A`` in
the initial state, and the invariant is ``init_<name> -> B``. Nested safety and liveness become
``LTLSPEC`` with the formula as written (its justice antecedent ``<>[](J) -> …`` included). The
justice ``J`` is not also declared as ``JUSTICE``: NuSMV applies ``JUSTICE`` to every ``LTLSPEC``,
and it would wrongly exclude the (unfair) finite runs that refute safety properties.

**Bounded ranges are sound.** A counter ranges over ``0..N`` (``N``: the most processes the inits
allow, which no step changes); a shared variable ``x`` over ``0..x0 + N · w(x)``, where ``x0`` is its
largest initial value and ``w(x)`` the most ``x`` grows along one path of the rule graph (each
process follows one path; a rule that increments ``x`` on a cycle of the rule graph would make
``x`` unbounded and is refused). A range that is too small would silently cut transitions
(``TRANS`` constraints simply have no successor out of range), so the bounds are computed, never
guessed, and written into the model as comments.

The output is byte-for-byte reproducible: no time stamps, every list in the automaton's order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from tactl.ir.eltl.formula import FormulaClass, TemporalQuery, temporal_query
from tactl.ir.evaluate import EvaluationError, holds
from tactl.ir.expr import (
    Always,
    And,
    BoolConst,
    Compare,
    Div,
    Eventually,
    Expr,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    Or,
    Sum,
    to_text,
)
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.boolean import nnf
from tactl.ir.ta.model import Property, Rule, ThresholdAutomaton, Update
from tactl.util.version import __version__

from tactl.passes.emit.render import render


class SmvError(ValueError):
    """The automaton, or the options given, cannot be written as an SMV model (the message says why)."""


class Unbounded(SmvError):
    """The inits leave an initial value unbounded: no finite range holds it."""


# The words NuSMV 2.5/2.6 and nuXmv reserve (their lexers' keywords), plus the module name.
RESERVED = frozenset("""
    A ABF ABG AF AG ASSIGN AX BU COMPASSION COMPID COMPUTE COMPWFF CONSTANTS CONSTRAINT CTLSPEC
    CTLWFF DEFINE E EBF EBG EF EG EX F FAIRNESS FALSE FROZENVAR G H IN INIT INVAR INVARSPEC ISA IVAR
    Integer JUSTICE LTLSPEC LTLWFF MAX MDEFINE MIN MIRROR MODULE NAME NEXTWFF O PRED PREDICATES
    PSLSPEC READ Real S SIMPWFF SPEC T TRANS TRUE U V VAR WRITE Word X Y Z array bool boolean case
    count esac extend in init integer mod next of process real resize self signed sizeof swconst
    toint union unsigned uwconst word word1 xnor xor main abs max min floor clock continuous
    time typeof func CLOCK ITYPE OBSERVABLE PARSYNTH_SPEC MTL SYNTH Infinity
""".split())
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# The names of tactl's own parts of the model (kept even if a TA uses them: the TA's get renamed).
RULE_VAR, NONE, STUTTER = "rule", "none", "stutter"


# ----------------------------------------------------------------------------------- naming


class Namer:
    """SMV identifiers for the automaton's names: the name itself where SMV allows it, else the
    name followed by as many ``_`` as it takes to be neither a keyword nor taken. Deterministic:
    names are claimed in a fixed order."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def claim(self, wanted: str) -> str:
        base = wanted if _IDENT.match(wanted) else re.sub(r"[^A-Za-z0-9_]", "_", wanted) or "x"
        if not re.match(r"[A-Za-z_]", base):
            base = "x" + base
        name = base
        while name in RESERVED or name in self.taken:
            name += "_"
        self.taken.add(name)
        return name


# ------------------------------------------------------------------------------- expressions

_P_IMPLIES, _P_OR, _P_AND, _P_CMP, _P_SUM, _P_MUL, _P_UNARY, _P_ATOM = range(8)
_SMV_CMP = {"==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _prec(e: Expr) -> int:
    if isinstance(e, Implies):
        return _P_IMPLIES
    if isinstance(e, Or):
        return _P_OR
    if isinstance(e, And):
        return _P_AND
    if isinstance(e, Compare):
        return _P_CMP
    if isinstance(e, Sum):
        return _P_SUM
    if isinstance(e, Mul):
        return _P_MUL
    if isinstance(e, (Not, Neg, Always, Eventually)):
        return _P_UNARY
    return _P_ATOM


class Printer:
    """SMV text of tactl expressions (``==`` is ``=``, ``&&`` is ``&``, ``[]`` is ``G``, ``<>`` is ``F``)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def __call__(self, e: Expr) -> str:
        return self.text(e)

    def _wrap(self, e: Expr, parens: bool) -> str:
        t = self.text(e)
        return f"({t})" if parens else t

    def text(self, e: Expr) -> str:
        if isinstance(e, IntConst):
            return str(e.value)
        if isinstance(e, Name):
            if e.name not in self.names:
                raise SmvError(f"'{e.name}' is not a location, shared variable, parameter or define "
                               "of the automaton (local variables have no counter in the model)")
            return self.names[e.name]
        if isinstance(e, BoolConst):
            return "TRUE" if e.value else "FALSE"
        if isinstance(e, Neg):
            return "-" + self._wrap(e.arg, _prec(e.arg) < _P_ATOM)
        if isinstance(e, Sum):
            parts = [self._wrap(e.args[0], _prec(e.args[0]) < _P_SUM)]
            for op, arg in zip(e.ops, e.args[1:]):
                parts.append(f"{op} {self._wrap(arg, _prec(arg) <= _P_SUM)}")
            return " ".join(parts)
        if isinstance(e, Mul):
            return f"{self._wrap(e.left, _prec(e.left) < _P_MUL)} * {self._wrap(e.right, _prec(e.right) <= _P_MUL)}"
        if isinstance(e, Div):
            raise SmvError(f"division '{to_text(e)}' is not written to SMV (NuSMV's '/' rounds "
                           "differently); tactl eliminates divisions before emitting — load the "
                           "automaton with divisions lowered")
        if isinstance(e, Compare):
            return (f"{self._wrap(e.left, _prec(e.left) <= _P_CMP)} {_SMV_CMP[e.op]} "
                    f"{self._wrap(e.right, _prec(e.right) <= _P_CMP)}")
        if isinstance(e, (Not, Always, Eventually)):
            op = {Not: "!", Always: "G ", Eventually: "F "}[type(e)]
            return op + self._wrap(e.arg, _prec(e.arg) < _P_ATOM)
        if isinstance(e, And):
            return " & ".join(self._wrap(a, _prec(a) <= _P_AND) for a in e.args)
        if isinstance(e, Or):
            return " | ".join(self._wrap(a, _prec(a) <= _P_AND) for a in e.args)
        if isinstance(e, Implies):
            return f"{self._wrap(e.left, _prec(e.left) <= _P_IMPLIES)} -> {self._wrap(e.right, _prec(e.right) <= _P_IMPLIES)}"
        raise SmvError(f"no SMV text for {type(e).__name__}")


def comment(text: object) -> str:
    """``text`` made safe for one SMV comment line (a line break or other control character → ``?``)."""
    return "".join(c if c.isprintable() else "?" for c in str(text))


# ------------------------------------------------------------------------------------ bounds


@dataclass(frozen=True)
class Bounds:
    """Sound value ranges for the bounded model, and where they come from."""

    processes: int                    # N: the most processes an initial configuration holds
    shared: dict[str, int]            # x -> largest value x can take
    initial: dict[str, int]           # x -> largest initial value of x
    growth: dict[str, int]            # x -> most x grows along one path of the rule graph
    capped: tuple[str, ...] = ()      # shared variables whose initial value is capped (not the inits)
    cap: int | None = None


def _z3_env(ta: ThresholdAutomaton, parameters: dict[str, int] | None, bound: int | None):
    import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

    sym = int_symbols()
    constraints = []
    for x in (*ta.parameters, *ta.shared, *(loc.name for loc in ta.locations)):
        constraints.append(sym(x) >= 0)
    if parameters is not None:
        constraints += [sym(p) == v for p, v in parameters.items()]
    else:
        constraints += [sym(p) <= bound for p in ta.parameters]
        constraints += [to_z3(ta.expand(a), sym) for a in ta.assumptions]
    constraints += [to_z3(ta.expand(e), sym) for e in ta.inits]
    return z3, sym, constraints


def _maximum(ta: ThresholdAutomaton, parameters, bound, term_of, what: str) -> int:
    """The largest value of ``term_of(sym)`` over the initial configurations (SmvError if none or
    unbounded)."""
    z3, sym, constraints = _z3_env(ta, parameters, bound)
    term = term_of(sym)
    probe = z3.Solver()
    probe.add(*constraints)
    answer = probe.check()
    if answer == z3.unsat:
        raise SmvError("no initial configuration satisfies the inits"
                       + (" with these parameter values" if parameters is not None
                          else f" with every parameter <= {bound} and the resilience condition"))
    if answer != z3.sat:
        raise SmvError("z3 could not decide whether an initial configuration exists")
    if probe.check(term > 10**12) != z3.unsat:
        raise Unbounded(f"the inits do not bound {what}, so no finite range holds it: emit an "
                       "unbounded model (--unbounded, integer variables for nuXmv) instead")
    opt = z3.Optimize()
    opt.add(*constraints)
    handle = opt.maximize(term)
    if opt.check() != z3.sat:
        raise SmvError(f"z3 could not compute the largest initial value of {what}")
    value = opt.upper(handle)
    if not z3.is_int_value(value):
        raise SmvError(f"the inits do not bound {what}")
    return value.as_long()


def _sccs(ta: ThresholdAutomaton) -> dict[str, int]:
    """Strongly connected component of every location in the rule graph (Tarjan, iterative)."""
    succ: dict[str, list[str]] = {loc.name: [] for loc in ta.locations}
    for r in ta.rules:
        succ.setdefault(r.source, []).append(r.target)
        succ.setdefault(r.target, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    comp: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in succ:
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                number = len(set(comp.values()))
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = number
                    if w == node:
                        break
    return comp


def path_growth(ta: ThresholdAutomaton) -> dict[str, int]:
    """For every shared variable, the most it grows along one path of the rule graph (one
    process's run). SmvError for an update that is not an increment by a constant >= 0, or an
    increment on a cycle of the rule graph (a self-loop included): that variable is unbounded."""
    comp = _sccs(ta)
    incs: list[dict[str, int]] = []
    for r in ta.rules:
        inc = ta.increments(r)
        if inc is None or any(c < 0 for c in inc.values()):
            raise SmvError(f"rule {r.id} ({r.source} -> {r.target}) has an update that is not an "
                           "increment by a non-negative constant, so no finite range is known for "
                           "its variable: emit an unbounded model (integer variables) instead")
        for v in inc:
            if v not in ta.shared:
                raise SmvError(f"rule {r.id} updates '{v}', which is not a shared variable")
        if inc and comp[r.source] == comp[r.target]:
            where = "a self-loop" if r.is_self_loop else "on a cycle of the rule graph"
            raise SmvError(f"rule {r.id} ({r.source} -> {r.target}) increments "
                           f"{', '.join(sorted(inc))} and is {where}, so a process can increment "
                           "it without end: no finite range is sound (emit an unbounded model)")
        incs.append(inc)
    # longest path per variable on the condensation (edges inside a component add nothing)
    order = _topological_components(ta, comp)
    growth: dict[str, int] = {}
    for x in ta.shared:
        best = {c: 0 for c in order}  # most growth of x on a path starting in component c
        for c in reversed(order):
            for r, inc in zip(ta.rules, incs):
                if comp[r.source] == c and comp[r.target] != c:
                    best[c] = max(best[c], inc.get(x, 0) + best[comp[r.target]])
        growth[x] = max(best.values(), default=0)
    return growth


def _topological_components(ta: ThresholdAutomaton, comp: dict[str, int]) -> list[int]:
    succ: dict[int, set[int]] = {c: set() for c in comp.values()}
    indeg = {c: 0 for c in succ}
    for r in ta.rules:
        a, b = comp[r.source], comp[r.target]
        if a != b and b not in succ[a]:
            succ[a].add(b)
            indeg[b] += 1
    ready = sorted(c for c, d in indeg.items() if d == 0)
    order = []
    while ready:
        c = ready.pop(0)
        order.append(c)
        for d in sorted(succ[c]):
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
    return order


def compute_bounds(ta: ThresholdAutomaton, parameters: dict[str, int] | None,
                   bound: int | None, initial_cap: int | None = None) -> Bounds:
    """Sound ranges for the counters and shared variables (module docstring). A shared variable
    whose initial value the inits leave unbounded (it starts at any natural number) is refused,
    or, with ``initial_cap``, starts at most at that value (as the explicit engine's --bound)."""
    growth = path_growth(ta)
    locs = [loc.name for loc in ta.locations]

    def total(sym):
        import z3  # lazy: z3 is slow to import; loaded when a solver question is asked

        return z3.Sum([sym(x) for x in locs]) if locs else z3.IntVal(0)

    n = _maximum(ta, parameters, bound, total, "the number of processes")
    initial, capped = {}, []
    for x in ta.shared:
        try:
            initial[x] = _maximum(ta, parameters, bound, lambda sym, x=x: sym(x),
                                  f"the initial value of {x}")
        except Unbounded:
            if initial_cap is None:
                raise
            initial[x] = initial_cap
            capped.append(x)
    shared = {x: initial[x] + n * growth[x] for x in ta.shared}
    return Bounds(n, shared, initial, growth, tuple(capped), initial_cap)


def initial_exists(ta: ThresholdAutomaton, parameters: dict[str, int] | None, bound: int | None,
                   initial_cap: int | None = None, extra: Sequence[Expr] = ()) -> bool | None:
    """Whether an initial configuration satisfies the inits, the parameters (fixed, or up to
    ``bound`` with the resilience condition), the cap on initial values and the state formulas
    ``extra`` (a property's antecedent); None if z3 cannot tell."""
    z3, sym, constraints = _z3_env(ta, parameters, bound if bound is not None else 10**9)
    if initial_cap is not None:
        constraints += [sym(x) <= initial_cap for x in ta.shared]
    constraints += [to_z3(e, sym) for e in extra]
    solver = z3.Solver()
    solver.set("timeout", 30_000)
    solver.add(*constraints)
    answer = solver.check()
    return True if answer == z3.sat else False if answer == z3.unsat else None


# ----------------------------------------------------------------------------------- the model


@dataclass
class SmvSpec:
    """One specification block: what it checks and how tactl reads its result."""

    property: str
    name: str                          # the SMV name of the specification (NAME name := …)
    keyword: str                       # INVARSPEC | LTLSPEC
    formula: str
    comments: list[str]
    query: TemporalQuery


@dataclass
class SmvModel:
    """The emitted text and the name tables needed to read NuSMV's traces back."""

    text: str
    names: dict[str, str]                      # TA name -> SMV identifier
    rule_constants: dict[str, int]             # SMV constant of `rule` -> index in ta.rules
    rule_var: str
    none: str
    stutter: str
    specs: list[SmvSpec]
    skipped: dict[str, str] = field(default_factory=dict)   # property -> why it is not in the model
    bounds: Bounds | None = None
    parameters: dict[str, int] | None = None   # fixed values, or None (frozen/unbounded)


def check_parameters(ta: ThresholdAutomaton, parameters: dict[str, int],
                     allow_outside_rc: bool = False) -> None:
    """SmvError unless ``parameters`` gives a natural number to each parameter of ``ta`` (and no
    other name) and, unless ``allow_outside_rc``, satisfies the resilience condition."""
    missing = [p for p in ta.parameters if p not in parameters]
    extra = sorted(set(parameters) - set(ta.parameters))
    if missing:
        raise SmvError(f"no value for parameter(s) {', '.join(missing)}: fixed parameters need a "
                       f"value for each of {', '.join(ta.parameters)}")
    if extra:
        raise SmvError(f"{', '.join(extra)} is not a parameter of the automaton (its parameters: "
                       f"{', '.join(ta.parameters) or 'none'})")
    negative = [p for p in ta.parameters if parameters[p] < 0]
    if negative:
        raise SmvError(f"parameter(s) {', '.join(negative)} must be natural numbers")
    if allow_outside_rc:
        return
    try:
        failed = [a for a in ta.assumptions if not holds(ta.expand(a), parameters)]
    except EvaluationError as e:
        raise SmvError(f"cannot evaluate the resilience condition: {e}") from None
    if failed:
        values = ", ".join(f"{p}={parameters[p]}" for p in ta.parameters)
        raise SmvError(f"the parameter values {values} violate the resilience condition "
                       f"({'; '.join(to_text(a) for a in failed)})")


def rule_constant_base(ta: ThresholdAutomaton, index: int) -> str:
    """``r<id>``, or ``r<id>_<n>`` (the n-th rule of the file) when the id is used twice."""
    rule_id = ta.rules[index].id
    if sum(r.id == rule_id for r in ta.rules) > 1:
        return f"r{rule_id}_{index + 1}"
    return f"r{rule_id}"


def _rule_text(ta: ThresholdAutomaton, rule: Rule) -> str:
    changes = [ta.update_text(u) for u in rule.updates if not u.is_identity]
    return (f"{rule.source} -> {rule.target} when ({to_text(rule.guard)})"
            + (f" do {{ {'; '.join(changes)} }}" if changes else ""))


def _queries(ta: ThresholdAutomaton, properties) -> tuple[list[TemporalQuery], dict[str, str]]:
    if properties is None:
        properties = ta.properties
    by_name = {p.name: p for p in ta.properties}
    out, skipped = [], {}
    for p in properties:
        if isinstance(p, TemporalQuery):
            out.append(p)
            continue
        prop = by_name.get(p) if isinstance(p, str) else p
        if prop is None:
            raise SmvError(f"no property named {p} (the automaton has: "
                           f"{', '.join(by_name) or 'no properties'})")
        q = temporal_query(ta, prop)
        if isinstance(q, TemporalQuery):
            out.append(q)
        else:
            skipped[prop.name] = q.reason
    return out, skipped


def build_smv(ta: ThresholdAutomaton, properties: Sequence[Property | str | TemporalQuery] | None = None,
              parameters: dict[str, int] | None = None, bound: int | None = None,
              unbounded: bool = False, *, allow_outside_rc: bool = False,
              source: str | None = None, initial_cap: int | None = None) -> SmvModel:
    """The SMV model of ``ta`` with ``properties`` (None: all; a property that tactl cannot
    decide is left out, with a comment saying why), and the tables to read traces back.

    ``parameters`` fixes every parameter (they must satisfy the resilience condition unless
    ``allow_outside_rc``); without it, ``bound`` B makes each parameter a ``FROZENVAR`` over
    ``0..B`` constrained by the resilience condition, or ``unbounded`` makes it an ``integer``.
    ``unbounded`` also gives counters and shared variables the type ``integer`` (nuXmv's
    infinite-state engines; NuSMV's BDDs need the bounded ranges).
    ``initial_cap``: a shared variable that the inits let start at any value starts at most at
    this one (said in a comment; without it such a variable is refused in a bounded model).
    """
    if parameters is not None:
        check_parameters(ta, parameters, allow_outside_rc)
    elif not unbounded:
        if bound is None:
            raise SmvError("give either fixed parameter values, a bound B for the parameters "
                           "(FROZENVAR 0..B), or ask for an unbounded model")
        if bound < 0:
            raise SmvError("the parameter bound must be a natural number")
    if ta.unknowns:
        raise SmvError("the automaton has unknowns (coefficients to synthesise); SMV models "
                       "need every coefficient known")
    queries, skipped = _queries(ta, properties)
    bounds = None if unbounded else compute_bounds(ta, parameters, bound, initial_cap)

    namer = Namer()
    rule_var, none, stutter = namer.claim(RULE_VAR), namer.claim(NONE), namer.claim(STUTTER)
    names: dict[str, str] = {}
    for x in (*ta.parameters, *(d.name for d in ta.defines), *(loc.name for loc in ta.locations),
              *ta.shared):
        if x not in names:
            names[x] = namer.claim(x)
    constants = [namer.claim(rule_constant_base(ta, i)) for i in range(len(ta.rules))]
    pr = Printer(names)
    locs = [loc.name for loc in ta.locations]

    # ---- header
    header = [f"{ta.name}: the counter system of a threshold automaton, for NuSMV and nuXmv",
              f"generated by tactl {__version__}" + (f" from {source}" if source else "")]
    if unbounded:
        header.append("integer variables, no bounds: for nuXmv's SMT-based infinite-state engines "
                      "(go_msat, then check_invar_ic3 / check_ltlspec_ic3 or the msat BMC "
                      "commands); NuSMV's BDDs and SAT-based BMC need finite ranges (NuSMV 2.x "
                      "rejects 'integer')")
    else:
        header.append("finite ranges: NuSMV or nuXmv, BDD-based ('NuSMV model.smv') or SAT-based "
                      "bounded model checking ('NuSMV -bmc -bmc_length K model.smv')")
    renamed = [f"{x} is written {names[x]}" for x in names if names[x] != x]
    if renamed:
        header.append("renamed (SMV keywords or clashes): " + "; ".join(renamed))

    # ---- parameters
    rc_text = " & ".join(pr(a) for a in ta.assumptions) or "TRUE"
    param_defines, frozen_params, param_notes = [], [], []
    if parameters is not None:
        values = ", ".join(f"{p}={parameters[p]}" for p in ta.parameters)
        inside = all(holds(ta.expand(a), parameters) for a in ta.assumptions)
        param_notes.append(f"parameters fixed: {values or 'none'}"
                           + ("" if inside else " -- OUTSIDE the resilience condition, on request"))
        param_defines = [(names[p], str(parameters[p])) for p in ta.parameters]
    else:
        kind = "integer" if unbounded else f"0..{bound}"
        param_notes.append("parameters: every valuation " + (f"with each parameter in 0..{bound} " if not unbounded else "")
                           + "that satisfies the resilience condition (one run covers them all)")
        frozen_params = [(names[p], kind) for p in ta.parameters]
    rc_invar = None
    if parameters is None:
        nonneg = [f"{names[p]} >= 0" for p in ta.parameters] if unbounded else []
        rc_invar = " & ".join([*nonneg, *(pr(a) for a in ta.assumptions)]) or "TRUE"
    macros = [(names[d.name], pr(d.expr), f"define {d.name} == {to_text(d.expr)}") for d in ta.defines]

    # ---- state variables
    if bounds is None:
        counter_type = "integer"
        counter_note = "location counters: how many processes are in each location (natural numbers)"
        shared_vars = [(names[x], "integer", f"shared variable {x}") for x in ta.shared]
    else:
        counter_type = f"0..{bounds.processes}"
        counter_note = (f"location counters: how many processes are in each location; 0..{bounds.processes}, "
                        f"{bounds.processes} = the most processes an initial configuration holds"
                        + (f" (parameters <= {bound})" if parameters is None else "")
                        + " (steps move processes, never create them)")
        shared_vars = [(names[x], f"0..{bounds.shared[x]}",
                        f"shared variable {x}: <= {bounds.initial[x]} initially"
                        + (" (capped)" if x in bounds.capped else "") + f" + {bounds.processes} "
                        f"processes x {bounds.growth[x]} (the most one process's path through the "
                        f"rule graph adds to {x})")
                       for x in ta.shared]
    counters = [(names[x], counter_type, f"location {x}") for x in locs]
    rule_values = [none, stutter, *constants]

    # ---- initial states
    inits = [(pr(e), to_text(e)) for e in ta.inits]
    for x in (bounds.capped if bounds is not None else ()):
        inits.append((f"{names[x]} <= {bounds.cap}", f"{x}: the inits let it start at any value; "
                      f"capped at {bounds.cap} (the model covers only these initial values)"))
    if bounds is None:
        nonneg = " & ".join(f"{names[x]} >= 0" for x in (*locs, *ta.shared))
        if nonneg:
            inits.append((nonneg, "counters and shared variables are natural numbers"))

    # ---- transitions: which rule may fire (its source occupied, its guard true) ...
    enabled = []
    for i, rule in enumerate(ta.rules):
        cond = f"{names[rule.source]} >= 1"
        if rule.guard != BoolConst(True):
            cond += " & " + (pr(rule.guard) if _prec(rule.guard) > _P_AND else f"({pr(rule.guard)})")
        notes = [f"rule {rule.id}: {_rule_text(ta, rule)}"]
        if rule.origin is not None:
            notes.append(f"  from {rule.origin.file}: {rule.origin.describe()}")
        enabled.append((constants[i], cond, notes))
    # ... and what it does to each variable (one partition per variable: NuSMV's BDDs for a
    # conjunction of small relations stay far smaller than for one disjunction over the rules)
    effects = []
    loc_set = set(locs)
    for rule in ta.rules:
        for u in rule.updates:
            if u.var not in ta.shared:
                raise SmvError(f"rule {rule.id} updates '{u.var}', which is not a shared variable")
    for x in (*locs, *ta.shared):
        changes: dict[str, list[str]] = {}  # new value -> the rules that give it
        for i, rule in enumerate(ta.rules):
            if x in loc_set:
                delta = (rule.target == x) - (rule.source == x)
                if delta:
                    value = f"{names[x]} {'+' if delta > 0 else '-'} {abs(delta)}"
                    changes.setdefault(value, []).append(constants[i])
                continue
            for u in rule.updates:
                if u.var != x or u.is_identity:
                    continue
                c = Update(u.var, ta.expand(u.expr)).increment()
                if c == 0:
                    continue
                if c is None:
                    value = pr(u.expr)
                else:
                    value = f"{names[x]} + {c}" if c > 0 else f"{names[x]} - {-c}"
                changes.setdefault(value, []).append(constants[i])
        cases = [(f"next({rule_var}) = {rs[0]}" if len(rs) == 1
                  else f"next({rule_var}) in {{{', '.join(rs)}}}", value) for value, rs in changes.items()]
        what = "location" if x in locs else "shared variable"
        effects.append((names[x], cases, f"{what} {x}"))

    # ---- specifications
    specs: list[SmvSpec] = []
    frozen_inits = []
    for q in queries:
        prop = next((p for p in ta.properties if p.name == q.property), None)
        written = to_text(prop.formula) if prop is not None else to_text(q.negation)
        notes = [f"property {q.property} ({q.formula_class.value}): {written}"]
        if q.formula_class in (FormulaClass.REACHABILITY, FormulaClass.PROPOSITIONAL):
            parts: list[tuple[str | None, str, bool]] = []
            for k, b in enumerate(q.branches):
                bad = b.cuts[0].formula if b.cuts else BoolConst(True)
                flag = None
                if b.initial != BoolConst(True):
                    flag = namer.claim(f"init_{q.property}" + (f"_{k + 1}" if len(q.branches) > 1 else ""))
                    frozen_inits.append((flag, pr(b.initial),
                                         f"{q.property}: whether {to_text(b.initial)} held initially"))
                good = nnf(bad, negate=True)  # the state formula that must hold forever
                parts.append((flag, pr(good) if _prec(good) > _P_IMPLIES else f"({pr(good)})",
                              _prec(good) > _P_AND))
                notes.append(f"  violated iff a configuration with {to_text(bad)} is reachable"
                             + (f" from an initial one with {to_text(b.initial)}"
                                if b.initial != BoolConst(True) else ""))
            if len(parts) == 1:
                flag, good, _ = parts[0]
                formula = f"{flag} -> {good}" if flag else good
            else:
                formula = " & ".join(f"({flag} -> {good})" if flag else good if tight else f"({good})"
                                     for flag, good, tight in parts)
            specs.append(SmvSpec(q.property, namer.claim(q.property), "INVARSPEC", formula, notes, q))
            continue
        body = pr(prop.formula) if prop is not None else f"!({pr(q.negation)})"
        if q.formula_class is FormulaClass.LIVENESS:
            notes.append(f"  over the infinite runs only: paths that stutter (a finite run's end) "
                         f"are excluded by G ({rule_var} != {stutter})")
            formula = f"G ({rule_var} != {stutter}) -> ({body})"
        else:
            notes.append("  every finite run counts (as stuttering forever at its end)")
            formula = body
        specs.append(SmvSpec(q.property, namer.claim(q.property), "LTLSPEC", formula, notes, q))

    text = render("smv/model.smv.j2", filters={"comment": comment},
                  header=header, param_notes=param_notes, param_defines=param_defines,
                  frozen_params=frozen_params, rc_invar=rc_invar, rc_text=rc_text, macros=macros,
                  counter_note=counter_note, counters=counters, shared_vars=shared_vars,
                  rule_var=rule_var, rule_values=rule_values, none_value=none, stutter=stutter,
                  frozen_inits=frozen_inits, inits=inits, enabled=enabled, effects=effects, specs=specs, skipped=skipped)
    return SmvModel(text, names, {c: i for i, c in enumerate(constants)}, rule_var, none, stutter,
                    specs, skipped, bounds, dict(parameters) if parameters is not None else None)


def emit_smv(ta: ThresholdAutomaton, properties: Sequence[Property | str] | None = None,
             parameters: dict[str, int] | None = None, bound: int | None = None,
             unbounded: bool = False, *, allow_outside_rc: bool = False,
             source: str | None = None, initial_cap: int | None = None) -> str:
    """SMV text of ``ta`` and its ``properties`` (see :func:`build_smv`)."""
    return build_smv(ta, properties, parameters, bound, unbounded, allow_outside_rc=allow_outside_rc,
                     source=source, initial_cap=initial_cap).text
