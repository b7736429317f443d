"""Emitter: threshold automaton at fixed parameters → Promela *counter model* for SPIN
(``templates/promela/counter.pml.j2``).

The counter model is the TA's counter system written as one Promela process:

* every parameter is a ``#define`` (its value is fixed), every location a global counter (how many
  processes are there), every shared variable a global; each gets the smallest of ``byte``,
  ``short`` and ``int`` that holds its sound upper bound (below);
* an ``init`` step, inside ``atomic``, chooses one initial configuration non-deterministically —
  ``select`` loops for the usual ``loc_1 + … + loc_k == N - F`` sums, an ``if`` over the
  enumerated solutions for other ``inits`` — and sets ``initialized``;
* then a ``do`` loop with one ``atomic`` branch per rule: ``source > 0 && guard -> source--;
  target++; x = x + c; rule = i`` (``i`` the rule's position in the file, recorded in the hidden
  global ``rule`` so that a SPIN trail names the rules it fires). There is no other branch: a run
  is infinite only through the automaton's own self-loops, and a configuration where no rule is
  enabled ends a finite run (the loop's head carries an ``end`` label, so it is a valid end
  state). This is tactl's semantics (``ir/eltl/formula.py``, decision 1: no implicit stuttering);
* the specifications become ``ltl`` blocks, the justice antecedent ``<>[](J) -> …`` included.

**What the formula sees.** SPIN's never claim makes its first move in the Promela initial state,
where every counter is still 0, before the ``init`` step has chosen a configuration (it takes no
step *inside* an ``atomic`` sequence). The formula is therefore rewritten so that it speaks about
the run from the first configuration with ``initialized`` set (position 1), which is the TA's
initial configuration: ``[]g`` becomes ``[](initialized -> g)``, ``<>g`` becomes
``<>(initialized && g)``, and a state formula at the top level (outside every temporal operator:
the ``V1 == 0`` of ``V1 == 0 -> [](AC == 0)``) becomes ``(!initialized U (initialized && p))``;
``&&``, ``||``, ``!`` and ``->`` distribute. Operands under a temporal operator are evaluated at
positions ≥ 1 only and stay as written.

**Deadlocks and how to run pan** (what ``tactl.engines.spin`` does, and the file header says):
for a safety specification (its negation has no ``[]``), compile ``pan`` with ``-DSAFETY`` and
keep SPIN's default *stutter extension* — at a configuration without successors the claim may
still move, so a bad configuration in which the run deadlocks is seen (tactl's decision 3: a
violating prefix need not extend to an infinite run). For a liveness specification compile with
``-DNOSTUTTER`` and search acceptance cycles (``./pan -a``): the stutter extension would turn
every deadlock into an infinite run, which tactl (like ByMC) does not count. No weak fairness is
needed: justice is in the formula. With a never claim pan reports no invalid end states; the
``end`` label makes a deadlock valid also when the model is run without a claim.

**Bounds.** Processes are never created or destroyed, so a counter never exceeds the largest
number of processes an initial configuration holds. Every increment of a shared variable is
refused on a rule that lies on a cycle of the rule graph (a self-loop included): such a rule
could fire without bound. Any other rule moves each process at most once, so a shared variable
never exceeds its largest initial value plus (processes × the sum of its increments over the
rules). A shared variable the ``inits`` leave unbounded starts at most at ``initial_bound`` (as
in the explicit engine); :class:`CounterModel` lists those capped values.

The text is byte-for-byte reproducible: every list follows the automaton's order and no
timestamps or paths are written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tactl.ir.eltl.formula import TemporalQuery, temporal_query
from tactl.ir.errors import Diagnostic, InputError, Severity
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
    is_temporal,
    substitute,
    to_text,
    walk,
)
from tactl.ir.linear import NonLinearError, int_symbols, linearize, to_z3
from tactl.ir.ta.model import Property, ThresholdAutomaton
from tactl.util.version import __version__

from tactl.passes.emit.render import render

# The initial values of variables the inits leave unbounded are capped here (the explicit engine's
# default --bound), and anything above UNBOUNDED counts as unbounded.
DEFAULT_INITIAL_BOUND = 7
UNBOUNDED = 10**6
# An `if` over enumerated initial assignments is written for at most this many of them.
MAX_INITIAL_OPTIONS = 10_000

# Promela integer types: name, largest value.
_TYPES = (("byte", 255), ("short", 32767), ("int", 2**31 - 1))

# Names a TA identifier may not keep in the Promela text: Promela and SPIN's LTL keywords, C
# keywords (globals become members of pan's C struct `now`), object-like macros of pan's C source,
# the macros the C preprocessor predefines (spin runs the model through it: `linux` and `unix`
# become 1), and the names the model itself declares. Such an identifier gets a trailing `_`
# (more if taken).
_RESERVED = frozenset("""
    active assert atomic bit bool break byte c_code c_decl c_expr c_state c_track chan d_proctype
    d_step do else empty enabled eval false fi full get_priority goto hidden if init inline int
    len local mtype nempty never nfull np_ od of pc_value pid print printf printm priority
    proctype provided run select set_priority short show skip timeout trace true typedef
    unless unsigned xr xs ltl notrace STDIN _ _last _nr_pr _pid _priority
    U V W X R M always eventually until weakuntil stronguntil release implies equivalent next
    auto case char const continue default double enum extern float for long register return
    signed sizeof static struct switch union void volatile while
    now this trpt depth Pptr SYNC ASYNC VERI SAFETY NOCLAIM NCORE MEMLIM VECTORSZ BAD BASE CHECK
    DEBUG DELTA FREQ GLOBAL HASH HC LOCAL MA NFAIR NQS NTRANS QMAX QUIT TIMEOUT_F WS Index Max
    Pinit Pclaim uchar uint ulong ushort max rand mix rot cas final
    initialized rule
    linux unix i386 i686 sun sparc mips vax
""".split())
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
# The labels SPIN writes into the never claim of an ltl block (accept_all, accept_S2, T0_init...):
# a global variable of that name is "bad label-name". Such an identifier gets a leading `v_`.
_CLAIM_LABEL = re.compile(r"^(accept|T[0-9]+)_")


class PromelaError(InputError):
    """The automaton or the parameter values cannot become a counter model (exit status 2)."""

    def __init__(self, message: str, path: str = "tactl") -> None:
        self.message = message
        super().__init__(Diagnostic(Severity.ERROR, message), path)


class OutsideCounterModel(PromelaError):
    """The automaton itself has no finite counter model (an increment on a cycle of the rule
    graph, an update that is not an increment, unknown coefficients, …): the SPIN engine reports
    its properties unsupported, the emitter refuses."""


class NoInitialConfiguration(PromelaError):
    """No initial configuration satisfies the inits at these parameter values: every property
    would hold vacuously."""


# ------------------------------------------------------------------------------ the model


@dataclass(frozen=True)
class PmlVariable:
    name: str        # Promela identifier
    source: str      # the TA's name
    kind: str        # "location" | "shared"
    type: str        # byte | short | int
    bound: int       # sound upper bound of its value
    note: str


@dataclass(frozen=True)
class PmlRule:
    index: int       # position in ta.rules: the value of `rule` after it fires
    comment: str
    guard: str
    actions: str


@dataclass(frozen=True)
class PmlProperty:
    name: str        # the ltl block's name
    source: str      # the TA property's name
    kind: str        # "safety" | "liveness"
    formula_class: str
    written: str     # the specification as the TA writes it (macros expanded)
    ltl: str


@dataclass(frozen=True)
class InitBlock:
    comment: str
    lines: tuple[str, ...]


@dataclass
class CounterModel:
    """The emitted text and what an engine needs to read SPIN's answers back."""

    text: str
    parameters: dict[str, int]
    variables: list[PmlVariable]
    properties: list[PmlProperty]
    skipped: list[tuple[str, str]]       # (property, why it has no ltl block)
    processes: int                       # the largest number of modelled processes
    capped: dict[str, int] = field(default_factory=dict)  # unbounded initial values, capped
    names: dict[str, str] = field(default_factory=dict)   # TA name -> Promela name
    rule_count: int = 0                                   # `rule` ranges over 0 .. rule_count - 1

    def ltl_name(self, prop: str) -> str | None:
        return next((p.name for p in self.properties if p.source == prop), None)

    @property
    def ta_names(self) -> dict[str, str]:
        """Promela name -> TA name, for the model's variables."""
        return {v.name: v.source for v in self.variables}


def emit_promela_counter(ta: ThresholdAutomaton, properties: Iterable[Property | str] | None,
                         parameters: Mapping[str, int], *, allow_outside_rc: bool = False,
                         initial_bound: int = DEFAULT_INITIAL_BOUND) -> str:
    """The Promela counter model of ``ta`` at ``parameters`` with an ``ltl`` block for each of
    ``properties`` (names or properties of ``ta``; None: all of them). Raises
    :class:`PromelaError` for parameter values that are missing or violate the resilience
    condition (unless ``allow_outside_rc``) and for automata outside the model's reach."""
    return counter_model(ta, properties, parameters, allow_outside_rc=allow_outside_rc,
                         initial_bound=initial_bound).text


def counter_model(ta: ThresholdAutomaton, properties: Iterable[Property | str] | None,
                  parameters: Mapping[str, int], *, allow_outside_rc: bool = False,
                  initial_bound: int = DEFAULT_INITIAL_BOUND) -> CounterModel:
    """:func:`emit_promela_counter` with the model's names, bounds and properties."""
    params = check_parameters(ta, parameters, allow_outside_rc=allow_outside_rc)
    _check_automaton(ta)
    names = _promela_names(ta)
    increments = [ta.increments(r) or {} for r in ta.rules]
    plan = _initial_plan(ta, params, initial_bound, names)
    processes = plan.max_locations
    variables = []
    for loc in ta.locations:
        bound = processes
        variables.append(PmlVariable(names[loc.name], loc.name, "location", _type(bound, loc.name),
                                     bound, f"processes in location {loc.name}"))
    for x in ta.shared:
        per_process = sum(inc.get(x, 0) for inc in increments)
        bound = plan.max_initial[x] + processes * per_process
        note = f"shared variable {x}: <= {plan.max_initial[x]} initially"
        if x in plan.capped:
            note += " (capped: the inits leave it unbounded)"
        if per_process:
            note += f" + {processes} processes x {per_process} (its increments over all rules)"
        variables.append(PmlVariable(names[x], x, "shared", _type(bound, x), bound, note))

    expand = {p: Name(names[p]) for p in ta.parameters}
    rules = []
    for i, rule in enumerate(ta.rules):
        guard = ta.expand(rule.guard)
        source = names[rule.source]
        parts = [f"{source} > 0"]
        if guard != BoolConst(True):
            parts.append(_pml(substitute(guard, expand), names, ltl=False, parent=_P_AND))
        actions = []
        if not rule.is_self_loop:
            actions += [f"{source}--", f"{names[rule.target]}++"]
        for u in rule.updates:
            c = increments[i].get(u.var, 0)
            if c:
                actions.append(f"{names[u.var]} = {names[u.var]} + {c}")
        actions.append(f"rule = {i}")
        updates = ", ".join(ta.update_text(u) for u in rule.updates if not u.is_identity)
        comment = (f"rule {rule.id}: {rule.source} -> {rule.target}"
                   + (f" when ({to_text(rule.guard)})" if rule.guard != BoolConst(True) else "")
                   + (f" do {{ {updates} }}" if updates else "")
                   + (f"  [{rule.origin.describe()}]" if rule.origin else ""))
        rules.append(PmlRule(i, _comment(comment), " && ".join(parts), "; ".join(actions)))

    wanted = _select_properties(ta, properties)
    pml_properties, skipped = [], []
    taken = set(names.values())
    for prop in wanted:
        query = temporal_query(ta, prop)
        if not isinstance(query, TemporalQuery):
            skipped.append((prop.name, query.reason))
            continue
        formula = ta.expand(prop.formula)
        if any(isinstance(n, Div) for n in walk(formula)):
            skipped.append((prop.name, "the formula divides; eliminate divisions first"))
            continue
        name = promela_identifier(prop.name, taken)
        taken.add(name)
        ltl = _from_initial(substitute(formula, expand), names)
        pml_properties.append(PmlProperty(name, prop.name, query.kind, query.formula_class.value,
                                          to_text(formula), ltl))

    rule_type = "short" if len(ta.rules) < 32767 else "int"
    text = render(
        "promela/counter.pml.j2", filters={"pml_comment": _comment},
        version=__version__, name=ta.name,
        parameters=[(names[p], params[p], p, p not in parameters) for p in ta.parameters],
        rc=" && ".join(to_text(a) for a in ta.assumptions) or "true",
        rc_holds=_rc_holds(ta, params),
        inits=[to_text(e) for e in ta.inits],
        processes=processes, variables=variables, init_blocks=plan.blocks,
        capped=plan.capped, rules=rules, rule_type=rule_type,
        properties=pml_properties, skipped=skipped,
        renamed=[(n, p) for n, p in names.items() if n != p],
    )
    return CounterModel(text, params, variables, pml_properties, skipped, processes,
                        dict(plan.capped), names, len(ta.rules))


# ------------------------------------------------------------------------------ checks


OUTSIDE_RC_HINT = " (--allow-outside-rc to emit anyway)"


def check_parameters(ta: ThresholdAutomaton, parameters: Mapping[str, int], *,
                     allow_outside_rc: bool = False, hint: str = OUTSIDE_RC_HINT) -> dict[str, int]:
    """``parameters`` in the automaton's order, checked: every parameter given, no other name, natural
    numbers, and the resilience condition satisfied (unless ``allow_outside_rc``); ``hint`` ends
    the message about a violated resilience condition."""
    unknown = sorted(set(parameters) - set(ta.parameters))
    if unknown:
        raise PromelaError(f"no parameter named {', '.join(unknown)} (the automaton's parameters: "
                           f"{', '.join(ta.parameters) or 'none'})")
    missing = [p for p in ta.parameters if p not in parameters]
    given = dict(parameters)
    if missing:
        # a parameter the others determine through the RC (the quotient of a lowered division,
        # say q with 2q <= n + t <= 2q + 1) is filled in; any other must be given
        derived = _derive(ta, given, missing)
        undetermined = [p for p in missing if p not in derived]
        if undetermined:
            raise PromelaError("the counter model fixes every parameter: give a value for "
                               + ", ".join(undetermined) + " (--param NAME=VALUE)")
        given.update(derived)
    params = {p: given[p] for p in ta.parameters}
    bad = [f"{p}={v}" for p, v in params.items() if not isinstance(v, int) or isinstance(v, bool) or v < 0]
    if bad:
        raise PromelaError("parameter values are natural numbers, not " + ", ".join(bad))
    if not allow_outside_rc:
        failed = []
        for a in ta.assumptions:
            try:
                ok = holds(ta.expand(a), params)
            except EvaluationError as e:
                raise PromelaError(f"cannot evaluate the resilience condition '{to_text(a)}': {e}") from None
            if not ok:
                failed.append(to_text(a))
        if failed:
            values = ", ".join(f"{p}={v}" for p, v in params.items())
            raise PromelaError(f"the parameter values {values} violate the resilience condition: "
                               + "; ".join(failed) + " is false" + hint)
    return params


def _derive(ta: ThresholdAutomaton, given: Mapping[str, int], missing: list[str]) -> dict[str, int]:
    """The values of ``missing`` parameters that the resilience condition and ``given`` fix
    uniquely (the others are left out)."""
    import z3  # lazy: importing z3 slows every start; loaded when a solver question is asked

    sym = int_symbols()
    solver = z3.Solver()
    try:
        for a in ta.assumptions:
            solver.add(to_z3(ta.expand(a), sym))
    except (NonLinearError, TypeError, ValueError):
        return {}
    for p in ta.parameters:
        solver.add(sym(p) >= 0)
    for p, v in given.items():
        if isinstance(v, int) and not isinstance(v, bool):
            solver.add(sym(p) == v)
    if solver.check() != z3.sat:
        return {}
    model = solver.model()
    out = {}
    for p in missing:
        value = model.eval(sym(p), model_completion=True).as_long()
        if solver.check(sym(p) != value) == z3.unsat:
            out[p] = value
    return out


def _rc_holds(ta: ThresholdAutomaton, params: dict[str, int]) -> bool:
    return all(holds(ta.expand(a), params) for a in ta.assumptions)


def _check_automaton(ta: ThresholdAutomaton) -> None:
    if ta.unknowns:
        raise OutsideCounterModel("the automaton has unknown coefficients (" + ", ".join(ta.unknowns)
                           + "), which a counter model cannot fix")
    allowed = set(ta.shared) | set(ta.parameters)
    for rule in ta.rules:
        inc = ta.increments(rule)
        if inc is None or any(c < 0 for c in inc.values()):
            raise OutsideCounterModel(f"rule {rule.id} updates a shared variable by something other than a "
                               "constant increment (x' == x + c, c >= 0); the counter model needs "
                               "monotone automata")
        guard = ta.expand(rule.guard)
        if is_temporal(guard) or any(isinstance(n, Div) for n in walk(guard)):
            raise OutsideCounterModel(f"rule {rule.id}: the guard has a temporal operator or a division "
                               "(divisions are eliminated before emitting: passes/ta_to_ta/lower_division.py)")
        stray = sorted({n.name for n in walk(guard) if isinstance(n, Name)} - allowed)
        if stray:
            raise OutsideCounterModel(f"rule {rule.id}: the guard mentions {', '.join(stray)}, which is "
                               "neither a shared variable nor a parameter")
    # An incrementing rule on a cycle of the rule graph could fire without bound.
    succ: dict[str, set[str]] = {loc.name: set() for loc in ta.locations}
    for rule in ta.rules:
        succ[rule.source].add(rule.target)
    for rule in ta.rules:
        if not ta.increments(rule):
            continue
        path = _path(succ, rule.target, rule.source)
        if path is not None:
            cycle = " -> ".join([rule.source, *path]) if not rule.is_self_loop else \
                f"{rule.source} -> {rule.source}"
            raise OutsideCounterModel(f"rule {rule.id} increments {', '.join(sorted(ta.increments(rule)))} "
                               f"and lies on a cycle of the rule graph ({cycle}): a shared variable "
                               "could grow without bound, and the counter model needs finite ranges")


def _path(succ: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """Locations from ``start`` to ``goal`` (both included) along rules, or None."""
    parent: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        if node == goal:
            out = [node]
            while parent[out[-1]] is not None:
                out.append(parent[out[-1]])  # type: ignore[arg-type]
            return list(reversed(out))
        for nxt in sorted(succ.get(node, ())):
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return None


def _type(bound: int, what: str) -> str:
    for name, top in _TYPES:
        if bound <= top:
            return name
    raise OutsideCounterModel(f"{what} may reach {bound}, beyond Promela's int; use smaller parameters")


def _select_properties(ta: ThresholdAutomaton, properties: Iterable[Property | str] | None) -> list[Property]:
    if properties is None:
        return list(ta.properties)
    by_name = {p.name: p for p in ta.properties}
    out = []
    for p in properties:
        name = p if isinstance(p, str) else p.name
        if name not in by_name:
            raise PromelaError(f"no property named {name} (the automaton has: "
                               f"{', '.join(by_name) or 'no properties'})")
        if by_name[name] not in out:
            out.append(by_name[name])
    return out


# ------------------------------------------------------------------------------ names


def promela_identifier(name: str, taken: set[str]) -> str:
    """A Promela identifier for ``name``: itself when it is one that no keyword, macro or claim
    label shadows, else changed (``name_``, ``v_name``) to one not in ``taken``."""
    if not _IDENT.match(name):
        cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name)
        name = cleaned if cleaned[:1].isalpha() else "v" + cleaned
    if _CLAIM_LABEL.match(name):
        name = "v_" + name
    while name in _RESERVED or name in taken:
        name += "_"
    return name


def _promela_names(ta: ThresholdAutomaton) -> dict[str, str]:
    """A Promela identifier for every parameter, location and shared variable (their own name
    unless it is reserved or taken; see :data:`_RESERVED`)."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for n in (*ta.parameters, *(loc.name for loc in ta.locations), *ta.shared):
        if n in names:
            continue
        names[n] = promela_identifier(n, taken)
        taken.add(names[n])
    return names


# ------------------------------------------------------------------------------ expressions

_P_IMPLIES, _P_OR, _P_AND, _P_EQ, _P_REL, _P_ADD, _P_MUL, _P_UNARY, _P_ATOM = range(9)


def promela(e: Expr, names: Mapping[str, str], *, ltl: bool = False) -> str:
    """Promela text of an expression or (``ltl``) an LTL formula, every name mapped by ``names``
    (shared by the counter model and the process model)."""
    return _pml(e, names, ltl=ltl)


def _pml(e: Expr, names: Mapping[str, str], *, ltl: bool, parent: int = _P_IMPLIES) -> str:
    """Promela text of ``e`` (names mapped), parenthesised where ``parent`` binds tighter; in
    ``ltl`` mode comparisons are always parenthesised (SPIN's LTL parser sees them as atoms)."""
    text, prec = _pml_prec(e, names, ltl)
    return f"({text})" if prec < parent or (prec == parent and prec in (_P_EQ, _P_REL, _P_IMPLIES)) \
        else text


def _pml_prec(e: Expr, names: Mapping[str, str], ltl: bool) -> tuple[str, int]:
    if isinstance(e, IntConst):
        return str(e.value), _P_ATOM
    if isinstance(e, BoolConst):
        return ("true" if e.value else "false"), _P_ATOM
    if isinstance(e, Name):
        return names.get(e.name, e.name), _P_ATOM
    if isinstance(e, Neg):
        return f"0 - {_pml(e.arg, names, ltl=ltl, parent=_P_MUL)}", _P_ADD
    if isinstance(e, Sum):
        parts = [_pml(e.args[0], names, ltl=ltl, parent=_P_ADD)]
        for op, arg in zip(e.ops, e.args[1:]):
            parts.append(f"{op} {_pml(arg, names, ltl=ltl, parent=_P_MUL)}")
        return " ".join(parts), _P_ADD
    if isinstance(e, Mul):
        return (f"{_pml(e.left, names, ltl=ltl, parent=_P_MUL)} * "
                f"{_pml(e.right, names, ltl=ltl, parent=_P_UNARY)}"), _P_MUL
    if isinstance(e, Div):
        raise OutsideCounterModel(f"division '{to_text(e)}': eliminate divisions before emitting Promela")
    if isinstance(e, Compare):
        prec = _P_EQ if e.op in ("==", "!=") else _P_REL
        text = (f"{_pml(e.left, names, ltl=ltl, parent=_P_ADD)} {e.op} "
                f"{_pml(e.right, names, ltl=ltl, parent=_P_ADD)}")
        return (f"({text})", _P_ATOM) if ltl else (text, prec)
    if isinstance(e, Not):
        return f"!{_pml(e.arg, names, ltl=ltl, parent=_P_UNARY)}", _P_UNARY
    if isinstance(e, (And, Or)):
        op, prec = (" && ", _P_AND) if isinstance(e, And) else (" || ", _P_OR)
        # a Boolean operator inside another is always parenthesised: readers need not know
        # which of && and || binds tighter, nor how SPIN's LTL parser ranks them
        return op.join(_pml(a, names, ltl=ltl, parent=_inner(a, prec)) for a in e.args), prec
    if isinstance(e, Implies):
        left = _pml(e.left, names, ltl=ltl, parent=_inner(e.left, _P_OR))
        right = _pml(e.right, names, ltl=ltl, parent=_inner(e.right, _P_OR))
        if not ltl:
            return f"!{_pml(e.left, names, ltl=ltl, parent=_P_UNARY)} || {right}", _P_OR
        return f"{left} -> {right}", _P_IMPLIES
    if isinstance(e, (Always, Eventually)):
        if not ltl:
            raise PromelaError(f"temporal operator in a state formula: {to_text(e)}")
        op = "[]" if isinstance(e, Always) else "<>"
        return f"{op}{_pml(e.arg, names, ltl=ltl, parent=_P_UNARY)}", _P_UNARY
    raise TypeError(f"not an expression node: {e!r}")


def _inner(child: Expr, prec: int) -> int:
    """The binding a Boolean operator's operand must have: another Boolean operator is always
    parenthesised, anything else only where precedence needs it."""
    return _P_UNARY if isinstance(child, (And, Or, Implies)) else prec


def ltl_from_initial(e: Expr, names: Mapping[str, str]) -> str:
    """LTL text of the specification ``e`` read from the first configuration in which the
    Promela macro or variable ``initialized`` holds (also used by the process model)."""
    return _from_initial(e, names)


def _from_initial(e: Expr, names: Mapping[str, str]) -> str:
    """LTL text of ``e`` evaluated from the first configuration with ``initialized`` set (see the
    module docstring): the never claim also sees the Promela state before the init step."""
    if not is_temporal(e):
        return f"(!initialized U (initialized && {_pml(e, names, ltl=True, parent=_inner(e, _P_AND))}))"
    if isinstance(e, Always):
        return f"[](initialized -> {_pml(e.arg, names, ltl=True, parent=_inner(e.arg, _P_OR))})"
    if isinstance(e, Eventually):
        return f"<>(initialized && {_pml(e.arg, names, ltl=True, parent=_inner(e.arg, _P_AND))})"
    if isinstance(e, Not):
        return f"!({_from_initial(e.arg, names)})"
    if isinstance(e, (And, Or)):
        op = " && " if isinstance(e, And) else " || "
        return op.join(_wrap_ltl(a, names) for a in e.args)
    if isinstance(e, Implies):
        return f"{_wrap_ltl(e.left, names)} -> {_wrap_ltl(e.right, names)}"
    raise PromelaError(f"unexpected temporal formula node {type(e).__name__}")


def _wrap_ltl(e: Expr, names: Mapping[str, str]) -> str:
    text = _from_initial(e, names)
    if not is_temporal(e) or isinstance(e, (Always, Eventually)):
        return text  # already one parenthesised unit
    return f"({text})"


def _comment(text: object) -> str:
    """``text`` safe inside a Promela ``/* … */`` comment on one line."""
    return "".join(c if c.isprintable() else " " for c in str(text)).replace("*/", "* /")


# ------------------------------------------------------------------------------ initial step


@dataclass
class _Plan:
    blocks: list[InitBlock]
    max_initial: dict[str, int]   # per variable (TA name)
    max_locations: int            # the most processes an initial configuration holds
    capped: dict[str, int]


def _initial_plan(ta: ThresholdAutomaton, params: dict[str, int], cap: int,
                  names: Mapping[str, str]) -> _Plan:
    """How the init step chooses an initial configuration: fixed values, ``select`` chains for
    ``Σ locations == constant``, or an ``if`` over enumerated solutions; with value bounds."""
    import z3  # lazy: importing z3 slows every start; loaded when a solver question is asked

    variables = [loc.name for loc in ta.locations] + [x for x in ta.shared if x not in
                                                       {loc.name for loc in ta.locations}]
    table = {v: z3.Int(v) for v in variables}
    table.update({p: z3.IntVal(val) for p, val in params.items()})
    constants = {p: IntConst(v) for p, v in params.items()}
    inits = []
    for e in ta.inits:
        ex = substitute(ta.expand(e), constants)
        if is_temporal(ex) or any(isinstance(n, Div) for n in walk(ex)):
            raise OutsideCounterModel(f"initial constraint '{to_text(e)}' is not a linear state formula")
        stray = sorted({n.name for n in walk(ex) if isinstance(n, Name)} - set(variables))
        if stray:
            raise OutsideCounterModel(f"initial constraint '{to_text(e)}' mentions {', '.join(stray)}, "
                               "which is no location, shared variable or parameter")
        inits.append(ex)

    def lookup(name: str):
        return table[name]

    solver = z3.Solver()
    try:
        for e in inits:
            solver.add(to_z3(e, lookup))
    except (NonLinearError, TypeError, ValueError) as err:
        raise OutsideCounterModel(f"the initial constraints are not linear: {err}") from None
    for v in variables:
        solver.add(table[v] >= 0)
    capped: dict[str, int] = {}
    for v in variables:
        if solver.check(table[v] > UNBOUNDED) == z3.sat:
            capped[v] = cap
    for v in capped:
        solver.add(table[v] <= cap)
    answer = solver.check()
    if answer != z3.sat:
        values = ", ".join(f"{p}={v}" for p, v in params.items())
        raise NoInitialConfiguration(f"no initial configuration satisfies the inits with {values}"
                           + (" (and the cap of unbounded initial values)" if capped else ""))
    model = solver.model()
    fixed: dict[str, int] = {}
    for v in variables:
        value = model.eval(table[v], model_completion=True).as_long()
        if solver.check(table[v] != value) == z3.unsat:
            fixed[v] = value
    free = [v for v in variables if v not in fixed]

    # components of the free variables, linked by the constraints that mention them
    owner = {v: v for v in free}

    def find(v: str) -> str:
        while owner[v] != v:
            owner[v] = owner[owner[v]]
            v = owner[v]
        return v

    constraint_vars = []
    fixed_consts = {v: IntConst(val) for v, val in fixed.items()}
    for i, e in enumerate(inits):
        mentioned = [v for v in dict.fromkeys(n.name for n in walk(e) if isinstance(n, Name)) if v in owner]
        constraint_vars.append((i, substitute(e, fixed_consts), mentioned))
        for v in mentioned[1:]:
            owner[find(v)] = find(mentioned[0])
    components: dict[str, list[str]] = {}
    for v in free:
        components.setdefault(find(v), []).append(v)

    blocks: list[InitBlock] = []
    max_initial = dict(fixed)
    locations = {loc.name for loc in ta.locations}
    zeros = [names[v] for v in variables if fixed.get(v) == 0]
    nonzero = [(v, fixed[v]) for v in variables if fixed.get(v, 0) != 0]
    if nonzero:
        blocks.append(InitBlock("fixed by the inits",
                                tuple(f"{names[v]} = {val};" for v, val in nonzero)))
    if zeros:
        blocks.append(InitBlock("fixed by the inits at 0, the initial value of every global: "
                                + ", ".join(zeros), ()))
    max_locations = sum(val for v, val in fixed.items() if v in locations)
    for members in components.values():
        cons = [(i, e, m) for i, e, m in constraint_vars if m and find(m[0]) == find(members[0])]
        written = "; ".join(to_text(ta.inits[i]) for i, _, _ in cons)
        sum_form = _sum_form(cons, members) if not any(v in capped for v in members) else None
        if not cons:
            for v in members:
                bound = capped.get(v, cap)
                blocks.append(InitBlock(f"{v}: not bounded by the inits; at most {bound} here "
                                        "(the cap of unbounded initial values)",
                                        (f"select({names[v]} : 0 .. {bound});",)))
                max_initial[v] = bound
                max_locations += bound if v in locations else 0
            continue
        if sum_form is not None:
            order, total = sum_form
            lines = []
            taken: list[str] = []
            for v in order[:-1]:
                upper = " - ".join([str(total), *taken])
                lines.append(f"select({names[v]} : 0 .. {upper});")
                taken.append(names[v])
            lines.append(f"{names[order[-1]]} = {' - '.join([str(total), *taken])};")
            blocks.append(InitBlock(f"{written}: {total} in " + ", ".join(order), tuple(lines)))
            for v in order:
                max_initial[v] = total
            if all(v in locations for v in order):
                max_locations += total
            else:
                max_locations += sum(total for v in order if v in locations)
            continue
        options = _enumerate(solver, [table[v] for v in members], members)
        lines = ["if"]
        for values in options:
            lines.append(":: " + "; ".join(f"{names[v]} = {val}" for v, val in zip(members, values)))
        lines.append("fi;")
        blocks.append(InitBlock(f"{written}: {len(options)} solutions over " + ", ".join(members),
                                tuple(lines)))
        for i, v in enumerate(members):
            max_initial[v] = max(values[i] for values in options)
        max_locations += max(sum(val for v, val in zip(members, values) if v in locations)
                             for values in options)
    for v in variables:
        max_initial.setdefault(v, 0)
    return _Plan(blocks, max_initial, max_locations, capped)


def _sum_form(cons, members: list[str]) -> tuple[list[str], int] | None:
    """``(variables in order, K)`` if the one constraint is ``v_1 + … + v_k == K`` over exactly
    ``members`` (coefficients all 1, or all -1), else None."""
    if len(cons) != 1:
        return None
    _, e, mentioned = cons[0]
    if not isinstance(e, Compare) or e.op != "==":
        return None
    try:
        term = linearize(e.left) - linearize(e.right)
    except (NonLinearError, TypeError):
        return None
    coeffs = term.coeff_map
    if set(coeffs) != set(members) or len(set(coeffs.values())) != 1 or abs(next(iter(coeffs.values()))) != 1:
        return None
    sign = next(iter(coeffs.values()))
    total = -term.const * sign
    if total < 0:
        return None
    return [v for v in mentioned if v in coeffs], total


def _enumerate(solver, terms, members: list[str]) -> list[tuple[int, ...]]:
    import z3  # lazy: importing z3 slows every start; loaded when a solver question is asked

    out: list[tuple[int, ...]] = []
    solver.push()
    try:
        while solver.check() == z3.sat:
            if len(out) >= MAX_INITIAL_OPTIONS:
                raise OutsideCounterModel(f"more than {MAX_INITIAL_OPTIONS} initial assignments of "
                                   + ", ".join(members) + "; use smaller parameters")
            m = solver.model()
            values = tuple(m.eval(t, model_completion=True).as_long() for t in terms)
            out.append(values)
            solver.add(z3.Or([t != val for t, val in zip(terms, values)]))
    finally:
        solver.pop()
    return sorted(out)
