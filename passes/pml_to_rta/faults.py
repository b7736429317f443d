"""The receive bound and the fault model of a Parametric Promela file (``passes/pml_to_rta/``).

ByMC's files state their fault assumptions in three places, and tactl reads all three:

* the **copy count** ``active[N - Fa - Fsp]``: how many processes run the algorithm (the rest are
  faulty processes the file does not model);
* the **receive bound** ``if :: !(next_nrcvd <= nsnt + B) -> … :: else; fi``: a receiver's count
  never exceeds ``nsnt + B`` (``B`` linear in the parameters; ``nsnt - Fnc`` may be negative: a
  receive past the bound is dropped, so the count stays at what it was, at least 0);
* the **delivery** the ``ltl fairness`` block promises through its proposition
  ``in_transit = some(Proc:nrcvd < nsnt + D)``: eventually every receiver has ``nsnt + D``.

``fault_model`` maps the three to a model of ``passes/rta_to_ta/env.py``. Where a named model is exactly the
file's — ``byzantine(F)`` (``N - F``, ``+ F``, ``D = 0``), ``symmetric(Fp, Fs)`` (``N - Fp``,
``+ Fs``, ``D = Fs``, the file assuming ``Fs <= Fp``), ``omission(Fo)`` (``N``, ``+ 0``,
``D = -Fo``) — it is used; everything else becomes ``bound(processes: P; receive: B;
deliver: D)``, "as the bound says" (``bcast-hyb.pml``, the other hybrids, and ByMC's clean
crashes, whose crashed processes keep running: ``bcast-clean.pml``).

**Which delivery is accepted.** A positive term of ``D`` whose parameter the copy count subtracts
(``+ Fa`` with ``active[N - Fa - Fsp]``) guarantees messages of processes the file does not run.
The bound lets each of them count once for every receiver — the Byzantine reading, under which a
faulty process may also send nothing — so tactl does not assume their messages arrive and drops
the term (a note says so): a HOLDS under the weaker justice holds under the file's; a VIOLATED
liveness lasso might be one the file's fairness excludes, and the note says that too. Terms of
parameters the copy count does not subtract (``+ Fss``: symmetric-faulty processes, counted among
the unmodelled ``Fsp``, whose messages reach every receiver alike; ``- Fo``, ``- Fnc``: losses)
are the file's statement and kept. ``D <= B`` is required (else no run would be just).

**The bound branch** (``exceeded``): what the file does when a receive passes the bound —
``next_nrcvd = nrcvd`` (forget it: the count stays), ``goto end`` (the step is not taken), or a
reset followed by ``goto end`` at some locations only — is executed per location; a branch that
continues with the same count as the normal path adds nothing, one that leaves the step takes no
step, and anything else (a reset count that continues) is refused with its position.
**Forced receives** (``next_nrcvd = nrcvd + 1`` with no "no receive" option, ``bcast-comm-byz``):
the step sees a count of at least 1, so such paths get ``received(M) >= 1``.

**assume(c) inside the step.** Over the process's own variables it is a path condition. Over the
global state (``assume(tx_inv)``, ``tx_inv`` counting processes and naming ``nsnt``) a TA guard
cannot state it; ByMC's counter abstraction drops such an assume (an invariant it may use for
refinement), so tactl drops it too, but only after proving it an inductive invariant of the
derived automaton (true initially, kept by every rule): then it removes no step. Otherwise the
file is refused at the ``assume``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.promela import syntax as P
from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.ir.expr import Compare, Expr, IntConst, Name, to_text
from tactl.ir.rta.model import Faults, FaultModel, received
from tactl.ir.ta.model import Location
from tactl.passes.pml_to_rta import expressions, propositions, solving, values
from tactl.passes.pml_to_rta.values import Refuse, refuse

END = "end"


# ------------------------------------------------------------------------ the bound branch, run
FORGET, NO_STEP = "forget", "no step"


def exceeded_outcomes(tr, r, env: dict[str, object]) -> list[object]:
    """What the bound branch of the receive variable ``r`` (``multi.ReceiveVar``) does at
    the local valuation ``env``: per path, ``NO_STEP`` (``goto end``) or the value ``next`` has
    when the step continues."""
    out: list[object] = []

    def run(stmts: tuple[P.Stmt, ...], env: dict[str, object]) -> None:
        for k, s in enumerate(stmts):
            if isinstance(s, (P.Printf, P.Skip)):
                continue
            if isinstance(s, P.Goto):
                if s.label != END:
                    raise refuse(f"'goto {s.label}': only 'goto {END}' (leave the step) is supported", s.span)
                out.append(NO_STEP)
                return
            if isinstance(s, P.Assign):
                if s.var != r.next:
                    raise refuse(f"the receive bound's branch may only assign '{r.next}'", s.span)
                env = {**env, s.var: expressions.value(tr, s.expr, env, False)}
                continue
            if isinstance(s, P.If):
                guards = []
                for o in s.options:
                    first = o.body[0] if o.body else None
                    if isinstance(first, P.Condition):
                        g = expressions.value(tr, first.expr, env, False)
                        if not isinstance(g, bool):
                            raise refuse("a condition in the receive bound's branch must depend on "
                                         "the process's location variables only", first.span)
                        guards.append(g)
                    else:
                        guards.append(None)  # else / unguarded
                taken = [o for o, g in zip(s.options, guards) if g is True or
                         (g is None and not isinstance(o.body[0] if o.body else None, P.Else))]
                if not taken:
                    taken = [o for o in s.options if o.body and isinstance(o.body[0], P.Else)]
                for o in taken:
                    body = o.body[1:] if o.body and isinstance(o.body[0], (P.Condition, P.Else)) else o.body
                    run(tuple(body) + tuple(stmts[k + 1:]), env)
                return
            raise refuse(f"'{type(s).__name__}' is not supported in the receive bound's branch", s.span)
        out.append(env[r.next])

    run(r.exceeded, dict(env))
    return out


def at_bound(tr, r, p, rcv_marker: object, forced: bool) -> list:
    """The paths after the bound statement of ``r``, from path ``p`` (see the module docstring);
    ``rcv_marker`` is the walk's value of an abstract receive count."""
    env = p.env
    value = env[r.next]
    outcomes = exceeded_outcomes(tr, r, env)
    span = r.bound_if.span
    if value == rcv_marker:
        forget = False
        for o in outcomes:
            if o is NO_STEP:
                continue
            if o == rcv_marker or o == received(r.counter):
                forget = True
                continue
            if o == 0:  # a reset: the same as forgetting where the count is still 0 (check_resets)
                tr.reset_at[tuple(env[v] for v in tr.loc_vars())] = span
                forget = True
                continue
            raise refuse(f"past the bound the step continues with '{r.next}' = {o}: a "
                         "receive automaton cannot reset a receive count", span)
        if forced and not forget:  # every step receives one more: the count it sees is >= 1
            return solving.guarded(tr, p, Compare(">=", received(r.counter), IntConst(1)), [], span)
        return [p]
    # the receive is disabled here: the count is the concrete `value`
    if all(o == value for o in outcomes):
        return [p]  # past the bound or not, the step continues alike
    if value == 0 and not may_be_negative(tr.bound_rest):
        return [p]  # 0 <= nsnt + B always: never past the bound
    raise refuse(f"with the receive disabled the step depends on whether {value} exceeds the bound, "
                 "a condition on the send counter a receive guard cannot state", span)


def check_resets(tr) -> None:
    """A bound branch that resets the count to 0 and continues is the branch that forgets the
    receive only where the count is 0 anyway: at an initial location no step enters (nor stays
    at, which a receive could do). Refuse elsewhere."""
    for key, span in tr.reset_at.items():
        name = tr.names.get(key)
        if key not in tr.valuations or key in tr.stutter_at or name not in tr.initial or \
                any(r.target == name for r in tr.rules):
            raise refuse(f"past the bound the step continues with '{tr.next_var}' = 0 at {name}: "
                         "a receive automaton cannot reset a receive count a process may already "
                         "have increased (only at an initial location no step enters or stays at)", span)


def may_be_negative(rest: dict[str, int]) -> bool:
    return rest.get("", 0) < 0 or any(c < 0 for k, c in rest.items() if k)


# ----------------------------------------------------------------------------- the fault model
@dataclass(frozen=True)
class Delivery:
    """``in_transit = some(Proc:nrcvd < nsnt + D)``: the file's D, and where it is written."""

    terms: dict[str, int]
    span: Span | None
    name: str


def _plinear(e: P.PExpr) -> dict[str, int]:
    if isinstance(e, P.PInt):
        return {"": e.value}
    if isinstance(e, P.PName):
        return {e.name: 1}
    if isinstance(e, P.PQualified):
        return {e.var: 1}
    if isinstance(e, P.PUnary) and e.op == "-":
        return {k: -v for k, v in _plinear(e.arg).items()}
    if isinstance(e, P.PBinary) and e.op in "+-":
        out = dict(_plinear(e.left))
        for k, v in _plinear(e.right).items():
            out[k] = out.get(k, 0) + (v if e.op == "+" else -v)
        return {k: v for k, v in out.items() if v}
    raise refuse("expected a sum of names and constants here", e.span)


def delivery_shaped(tr, e: P.PExpr) -> bool:
    """``e`` reads ``some(Proc:x < y)``, the shape of ByMC's ``in_transit`` propositions."""
    return isinstance(e, P.PCall) and e.func == "some" and isinstance(e.arg, P.PBinary) and e.arg.op == "<"


def delivery(tr) -> Delivery | None:
    """The file's promised delivery: the ``in_transit``-shaped proposition its ``fairness``
    formula names (else any proposition of that shape)."""
    fairness = next((l for l in tr.m.ltls if l.name == "fairness"), None)
    named = set(P.variable_names(fairness.formula)) if fairness else set()
    props = sorted(tr.m.props, key=lambda p: p.name not in named)
    for p in props:
        e = p.expr
        if not delivery_shaped(tr, e):
            continue
        try:
            lin = _plinear(P.PBinary(op="-", left=e.arg.left, right=e.arg.right, span=e.span))
        except Refuse:
            continue
        if lin.get(tr.rcv_var) != 1 or lin.get(tr.counter) != -1:
            continue
        rest = {k: -v for k, v in lin.items() if k not in (tr.rcv_var, tr.counter)}
        if all(k == "" or k in tr.params for k in rest):
            return Delivery(rest, e.span, p.name)
    return None


def _text(terms: dict[str, int]) -> str:
    """`` + Fss - Fo`` (leading space), or ``""`` for no terms."""
    parts = [""]
    for k, c in terms.items():
        if not k:
            continue
        mag = "" if abs(c) == 1 else f"{abs(c)} * "
        parts.append(("+ " if c > 0 else "- ") + mag + k)
    if terms.get(""):
        parts.append(("+ " if terms[""] > 0 else "- ") + str(abs(terms[""])))
    return " ".join(parts)


def terms_expr(terms: dict[str, int]) -> Expr:
    """``terms`` as an expression, positive summands first (``N - Fa - Fsp``, ``Fss - Fo``)."""
    from tactl.ir.expr import Mul, Neg, summation  # lazy: used only for the bound model's terms

    items = sorted(((k, c) for k, c in terms.items() if k), key=lambda kc: kc[1] < 0)
    if terms.get(""):
        items.append(("", terms[""]))
    parts = [(c, IntConst(abs(c)) if not k else Name(k) if abs(c) == 1 else Mul(IntConst(abs(c)), Name(k)))
             for k, c in items]
    if not parts:
        return IntConst(0)
    (c0, first), rest = parts[0], parts[1:]
    head = first if c0 > 0 else Neg(first)
    return summation(head, [("+" if c > 0 else "-", e) for c, e in rest])


@dataclass
class FaultReading:
    """What :func:`fault_model` decided, for the fairness note."""

    faults: Faults
    n: str
    filed: Delivery | None = None  # the file's delivery
    accepted: dict[str, int] | None = None  # the delivery tactl's justice guarantees
    dropped: tuple[str, ...] = ()  # parameters whose positive delivery terms were dropped
    unmodelled: tuple[str, ...] = ()


def fault_model(tr) -> FaultReading:
    """The fault model of the file (module docstring); refuses what it cannot state exactly."""
    copies = expressions.linear(tr, tr.proc.copies)
    span = tr.proc.copies.span
    ns = [p for p, c in copies.items() if c == 1 and p in tr.params]
    minus = [p for p, c in copies.items() if p not in ns and p]
    if len(ns) != 1 or copies.get("", 0) != 0 or any(copies[p] != -1 or p not in tr.params for p in minus):
        raise refuse("the copy count must be 'N' or 'N - F1 - F2 …' for parameters N, F1, …", span)
    n = ns[0]
    if tr.crash_counter is not None:
        if minus:
            raise refuse("crash faults (two send counters in the bound) with the copy count 'N'", span)
        f = "F"
        while f in tr.params or f in tr.shared or f in tr.locals:
            f += "_"
        tr.params.append(f)
        tr.assumes += [Compare(">=", Name(f), IntConst(0)), Compare("<=", Name(f), Name(n))]
        return FaultReading(Faults(FaultModel.CRASH, (f,)), n)
    rest = {k: v for k, v in tr.bound_rest.items() if v}
    filed = delivery(tr)
    accepted: dict[str, int] | None = None
    dropped: list[str] = []
    if filed is not None:
        accepted = {}
        for k, c in filed.terms.items():
            if k in minus and c > 0:
                dropped.append(k)
            else:
                accepted[k] = c
    reading = FaultReading(Faults(FaultModel.BYZANTINE, ()), n, filed, accepted, tuple(dropped), tuple(minus))
    if len(minus) == 1:
        f = minus[0]
        if rest == {f: 1} and accepted in (None, {}):
            reading.faults = Faults(FaultModel.BYZANTINE, (f,))
            return reading
        if len(rest) == 1 and list(rest.values()) == [1] and next(iter(rest)) != f:
            fs = next(iter(rest))
            if accepted in (None, {fs: 1}) and _implied(tr, Compare("<=", Name(fs), Name(f))):
                reading.faults = Faults(FaultModel.SYMMETRIC, (f, fs))
                return reading
    if not minus and not rest and accepted is not None and len(accepted) == 1 and \
            list(accepted.values()) == [-1] and next(iter(accepted)):
        reading.faults = Faults(FaultModel.OMISSION, (next(iter(accepted)),))
        return reading
    if accepted is None:
        raise refuse("tactl needs the delivery the file promises, a proposition "
                     f"'in_transit = some(Proc:{tr.rcv_var} < {tr.counter} + D)' named by the "
                     "fairness formula, to state this fault model (no named model of tactl "
                     "matches the copy count and the bound)", tr.bound.span)
    gap = {k: accepted.get(k, 0) - rest.get(k, 0) for k in {*accepted, *rest}}
    if any(c > 0 for c in gap.values()):
        raise refuse(f"the delivery '{tr.counter}{_text(accepted)}' of '{filed.name}' may exceed the "
                     f"receive bound '{tr.counter}{_text(rest)}': no run could deliver it", filed.span)
    processes = terms_expr({n: 1, **{f: -1 for f in minus}})
    reading.faults = Faults(FaultModel.BOUND, (), terms=(processes, terms_expr(rest), terms_expr(accepted)))
    return reading


def _implied(tr, claim: Expr) -> bool:
    """``claim`` follows from the file's assumes (parameters natural)."""
    import z3  # lazy: z3 loads only when a .pml is translated

    from tactl.ir.linear import int_symbols, to_z3  # lazy: as above

    syms = int_symbols()
    s = z3.Solver()
    s.add(*[to_z3(a, syms) for a in tr.assumes], *[to_z3(Name(p), syms) >= 0 for p in tr.params],
          z3.Not(to_z3(claim, syms)))
    return s.check() == z3.unsat


# The end of the note where the file's formula and the derived justice agree on the delivery: both
# readings are checked (tactl/driver/file_reading.py says how the file's is decided).
BOTH_READINGS = ("liveness is checked under the file's formula, where a process that has every message may "
                 "stop for good (the default verdict), and under the derived justice, which also makes "
                 "processes move; a verdict shows both where they differ")


def fairness_note(tr, ltl: P.Ltl, reading: FaultReading) -> Diagnostic:
    """The ``ltl fairness`` note for the models decided here: which delivery the justice
    guarantees and why (module docstring, **Which delivery is accepted**)."""
    faults = reading.faults
    counter = tr.counter
    accepted = reading.accepted or {}
    model = f"faults {faults.model.value}" + (f"({', '.join(faults.parameters)})" if faults.parameters else "")
    if faults.model is FaultModel.BOUND:
        from tactl.ir.rta.printer import faults_text  # lazy: printing only for the note

        model = "faults " + faults_text(faults)
    filed = reading.filed
    derived = (f"every correct receiver eventually has {counter}{_text(accepted)} '{counter}' messages, "
               "and a process whose rule stays enabled eventually takes it").replace("  ", " ")
    if filed is None:
        msg = (f"ltl fairness: no proposition 'some(Proc:{tr.rcv_var} < {counter} + D)' names the "
               f"delivery; liveness is checked under the justice tactl derives from {model} ({derived})")
    elif not reading.dropped:
        tr.fairness_agrees = True
        msg = (f"ltl fairness: its delivery bound ('{filed.name}': {counter}{_text(filed.terms)}) agrees "
               f"with the justice tactl derives from {model} ({derived}); {BOTH_READINGS}")
    else:
        copies = " - ".join([reading.n, *reading.unmodelled])
        dropped = ", ".join(f"+ {d}" for d in reading.dropped)
        msg = (f"ltl fairness: '{filed.name}' promises {counter}{_text(filed.terms)}; tactl's justice "
               f"guarantees {counter}{_text(accepted)} ({model}): it drops {dropped}, messages of "
               f"processes the file does not run (active[{copies}]) that the bound lets every receiver "
               "count — faulty processes of the Byzantine kind, which need not send at all, so their "
               "delivery is not assumed. A HOLDS under this weaker justice holds under the file's; a "
               f"VIOLATED liveness lasso may be one the file's fairness excludes. Liveness is checked "
               f"under the derived justice ({derived})")
    return Diagnostic(Severity.WARNING, msg.replace("  ", " "), ltl.span)


# --------------------------------------------------------------------------- assume inside the step
def is_global(tr, e: P.PExpr) -> bool:
    """``e`` reads the global state: a proposition, a shared variable, card/all/some."""
    if isinstance(e, P.PCall):
        return True
    if isinstance(e, P.PName):
        return e.name in tr.shared or e.name in {p.name for p in tr.m.props}
    if isinstance(e, P.PUnary):
        return is_global(tr, e.arg)
    if isinstance(e, P.PBinary):
        return is_global(tr, e.left) or is_global(tr, e.right)
    return False


def global_condition(tr, e: P.PExpr) -> Expr:
    """``e`` over location counters (by location name), parameters and the send counter (by the
    file's name): propositions expanded, shared variables allowed."""
    props = {p.name: p for p in tr.m.props}
    if isinstance(e, P.PName) and e.name in props:
        return global_condition(tr, props[e.name].expr)
    saved = tr.params
    tr.params = [*saved, *tr.shared]
    try:
        return values.condition(propositions.prop(tr, _expand(e, props)), e.span)
    finally:
        tr.params = saved


def _expand(e: P.PExpr, props) -> P.PExpr:
    if isinstance(e, P.PName) and e.name in props:
        return _expand(props[e.name].expr, props)
    if isinstance(e, P.PUnary):
        return P.PUnary(op=e.op, arg=_expand(e.arg, props), span=e.span)
    if isinstance(e, P.PBinary):
        return P.PBinary(op=e.op, left=_expand(e.left, props), right=_expand(e.right, props), span=e.span)
    return e


def check_invariants(tr, assumes: list[P.AssumeStmt], processes: Expr) -> list[Diagnostic]:
    """Prove every global ``assume(c)`` of the step an inductive invariant of the derived rules
    (module docstring); refuse at the first that is not. The notes say what was dropped."""
    import z3  # lazy: z3 loads only when a .pml is translated

    from tactl.ir.linear import int_symbols, to_z3  # lazy: as above

    notes: list[Diagnostic] = []
    done: set[str] = set()
    locations: list[Location] = list(tr.locations)
    for a in assumes:
        c = global_condition(tr, a.expr)
        key = to_text(c)
        syms = int_symbols()
        z = lambda e: to_z3(e, syms)  # noqa: E731
        kappa = {loc.name: z3.Int(loc.name) for loc in locations}
        sent = z3.Int(tr.counter)
        base = [*[z(x) for x in tr.assumes], *[z(Name(p)) >= 0 for p in tr.params],
                *[k >= 0 for k in kappa.values()], sent >= 0,
                z3.Sum(list(kappa.values())) == z(processes)]
        cz = z(c)

        def after(rule) -> z3.ExprRef:
            moved = {loc: (k - 1 if loc == rule.source else k) + (1 if loc == rule.target else 0)
                     for loc, k in kappa.items()}
            sub = [(kappa[loc], moved[loc]) for loc in kappa] + [(sent, sent + len(rule.sends))]
            return z3.substitute(cz, *sub)

        s = z3.Solver()
        initial = [kappa[loc] == 0 for loc in kappa if loc not in tr.initial]
        s.add(*base, *initial, sent == 0, z3.Not(cz))
        if s.check() != z3.unsat:
            raise refuse(f"assume({P_text(a.expr)}) over the global state: tactl can only drop it as "
                         "ByMC's counter abstraction does when it is an invariant, and it may be false "
                         "initially", a.span)
        for rule in tr.rules:
            s = z3.Solver()
            s.add(*base, kappa[rule.source] >= 1, cz, z3.Not(after(rule)))
            if s.check() != z3.unsat:
                raise refuse(f"assume({P_text(a.expr)}) over the global state: tactl can only drop "
                             "it as ByMC's counter abstraction does when it is an inductive invariant, "
                             f"and the step {rule.source} -> {rule.target} (lines "
                             f"{', '.join(map(str, rule.origin.lines)) if rule.origin else '?'}) may "
                             "break it", a.span)
        if key not in done:
            done.add(key)
            notes.append(Diagnostic(Severity.WARNING, (
                f"assume({P_text(a.expr)}) inside the step reads the global state ({key}); it is an "
                "inductive invariant of the derived automaton (true initially, kept by every rule), "
                "so it removes no step and is dropped, as ByMC's counter abstraction drops it"), a.span))
    return notes


def P_text(e: P.PExpr) -> str:
    if isinstance(e, P.PName):
        return e.name
    if isinstance(e, P.PInt):
        return str(e.value)
    if isinstance(e, P.PBinary):
        return f"{P_text(e.left)} {e.op} {P_text(e.right)}"
    if isinstance(e, P.PUnary):
        return f"{e.op}{P_text(e.arg)}"
    if isinstance(e, P.PQualified):
        return f"{e.proc}:{e.var}"
    if isinstance(e, P.PCall):
        return f"{e.func}({P_text(e.arg)})"
    return "…"
