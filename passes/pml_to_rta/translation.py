"""Parametric Promela (``ir.promela``) → receive threshold automaton (``ir.rta``).

ByMC's benchmarks write one process as ``active[N - F] proctype Proc()``: local declarations, an
``if`` choosing the initial values, and ``end: do :: atomic { step } od``. The step is executed
symbolically here:

* **Locations** are the reachable valuations, at the ``end:`` label, of the process's finite local
  variables (``pc`` and the like); ``next_*`` temporaries must be back at their declared value at
  the step's end. The options of the initial ``if`` give the initial locations.
* **The receive variable** ``nrcvd`` is the local compared with a shared counter in the bound
  pattern ``if :: !(next_nrcvd <= nsnt + F) -> next_nrcvd = nrcvd; :: else; fi``. It is abstract:
  the receive counter ``received(nsnt)`` of one message type per shared send counter (named after
  the counter). Its increment by 0 or 1 per step means "receive any time" — exactly the receive
  automaton's semantics — so the conditions a path puts on ``next_nrcvd`` become the rule's
  receive guard. Where the receive option is disabled (``pc != RI -> next_nrcvd = nrcvd + 1``
  at ``RI``), the count is the one the process entered with: 0 at an initial location no step
  enters; anywhere else the step may not read it (it would need a count per location).
  A file may have several receive variables, one message type each, an initialisation
  ``atomic`` before ``end:``, ``assume``/``assert`` in the step and integer division:
  ``passes/pml_to_rta/multi.py`` says how each is read exactly, or refused. ByMC's symbolic receive
  ``havoc(next_x); assume(x <= next_x && next_x <= B)`` is the same receive variable
  (``passes/pml_to_rta/havoc.py``); crash-send counters per message type, ``passes/pml_to_rta/crash.py``.
* ``nsnt++`` on a path is a send; the ``pc`` at the step's end is the target; paths whose
  condition is unsatisfiable under the ``assume``s are dropped (z3); paths that change nothing
  are stutter steps and give no rule.
* **Fault model** from the copy count, the bound and the delivery the fairness formula's
  ``in_transit`` promises (``passes/pml_to_rta/faults.py``, table in README, 'Parametric Promela'):
  ``byzantine(F)``, ``symmetric(Fp, Fs)``, ``omission(Fo)`` where one of them is exactly the
  file's model, else ``bound(processes: P; receive: B; deliver: D)`` (hybrids, ByMC's clean
  crashes); ``nsnt + nsntF`` with ``N`` copies and ``some(Proc:nrcvd < nsnt)`` → ``crash(F)`` for a
  new parameter ``0 <= F <= N``, the location the ``nsntF++`` steps enter (DH) being tactl's crash
  location CR (``_Translator.crash_location`` says when that is exact). The bound's branch
  (``goto end``, forgetting the receive), forced receives and ``assume`` inside the step are
  read there too.
* **Properties**: ``all(P:c)`` → every location where ``c`` is false is empty; ``some(P:c)`` →
  one where it is true is occupied; ``card(P:c)`` → the sum of their counters; ``P@end`` → true
  (every process starts at ``end:``, the initial ``if`` is the initial location). ``ltl`` blocks
  become the specifications, except ``fairness``: liveness is checked under the justice tactl
  derives from the fault model; the file's fairness is compared with it and a note says so.

Whatever falls outside these patterns is an :class:`InputError` at its position: the translation
never builds a silently different model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tactl.ir.promela import syntax as P
from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.expr import (Always, And, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Mul, Name, Not, Or,
                           conj, const, disj, summation)
from tactl.ir.linear import linearize
from tactl.ir.rta.model import (CRASH_LOCATION, Faults, FaultModel, Message, ReceiveRule, ReceiveTA, Timing, received,
                          received_message)
from tactl.ir.ta.model import Location, Origin, Property
from tactl.passes.pml_to_rta import faults as promela_faults
from tactl.passes.rta_to_ta.env import guaranteed_delivery, sent
from tactl.passes.pml_to_rta import multi as PM
from tactl.passes.pml_to_rta import havoc as PH
from tactl.passes.pml_to_rta import crash as PC
from tactl.passes.pml_to_rta import widths as PT

FAIRNESS = "fairness"
# The paths the symbolic execution follows through the step, summed over the statements and the
# whole extraction: ByMC's benchmarks need at most 406 (ISOLA'18 nbacr; cond-consensus2 379), and
# 2^k paths of k independent two-way 'if's over locals would otherwise fill the memory before
# anything is said (D3: 2^24 paths, 3.9 GB, a MemoryError). The .alg front end's bound
# (passes/alg_to_rta/extract.py, docs/alg.md) is the same number.
MAX_CONTROL_STATES = 3000
OBLIGATION = "an assume/assert"  # scope of value(): shared counters read as sent(M)


@dataclass(frozen=True)
class PromelaTranslation:
    rta: ReceiveTA
    notes: tuple[Diagnostic, ...] = ()
    # (location name, meaning) for the table `tactl parse` prints
    table: tuple[tuple[str, str], ...] = ()


class _Refuse(Exception):
    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.span = message, span


def _refuse(message: str, span: Span | None) -> _Refuse:
    return _Refuse(message, span)


def translate_promela(model: P.PromelaModel) -> PromelaTranslation:
    """The receive automaton of ``model``; raises :class:`InputError` at what is not supported."""
    try:
        try:
            return _Translator(model).run()
        except (PM.MultiRefusal, promela_faults.Refusal, PH.HavocRefusal, PC.CrashRefusal) as e:
            raise _Refuse(e.message, e.span) from None
    except _Refuse as e:
        raise InputError(Diagnostic(Severity.ERROR, e.message + " (not supported by tactl's "
                                    "Parametric Promela front end)", e.span), model.path, model.text) from None
    except PT.WidthError as e:  # the file's own mistake, not a limit of tactl's
        raise InputError(Diagnostic(Severity.ERROR, e.message, e.span), model.path, model.text) from None


@dataclass(frozen=True)
class _Rcv:
    """Marker value: the abstract receive count received(counter)."""

    counter: str


@dataclass(frozen=True)
class _Frozen:
    """Marker value: the count of a receive variable whose receive is disabled at this location
    (the count the process entered with; readable only where it is known)."""

    counter: str


FORCED = " forced "  # env key prefix (+ next_x): the receive choice had no "no receive" option
START = "@start "  # prefix: a location's counter in the initial configuration
RESETS = " resets"  # env key: the counters whose receive variable the path reset to 0
FILE_CRASH = " file crash"  # marker send: the file's own crash counter's increment
CRASH_SYMBOL = " crashed"  # the file's crash counter in conditions (only stutter paths may read it)
CRASH_SEND = " crash"  # marker send: the crash counter's increment (never a message name)
HAVOC_DONE = " havoc done"  # env key: the havoc receive variables whose receive the path decided
SOURCE = " source"  # env key: the location the step starts at
HAVOC_RESETS = " havoc resets"  # env key: counter -> the span of the `next_x = 0` of a havoc receive


@dataclass
class _Path:
    env: dict[str, object]
    cond: list[Expr] = field(default_factory=list)
    sends: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)


class _Translator:
    def __init__(self, model: P.PromelaModel) -> None:
        self.m = model
        self.notes: list[Diagnostic] = []
        self.defines: dict[str, int] = {}
        self.params: list[str] = []
        self.shared: dict[str, Span | None] = {}
        self.locals: dict[str, int] = {}
        self.shared_env: dict[str, int] | None = None  # concrete counters (the initialisation)
        self.init_values: dict[str, int] = {}
        self.file_crash: str | None = None
        self.rvar_of: dict[str, PM.ReceiveVar] = {}

    # ---------------------------------------------------------------- declarations
    def run(self) -> PromelaTranslation:
        m = self.m
        # the macros are substituted as text already (ir/promela/cpp.py): their values only
        # name the locations (pc == 2 is 'SE')
        self.defines = {d.name: d.value.value for d in m.defines if d.value is not None}
        self.params = [n for n, _ in m.symbolic]
        self.shared: dict[str, Span | None] = {}
        for g in m.globals:
            for name, init in g.vars:
                if init is not None and self.const(init) != 0:
                    raise _refuse(f"global '{name}' must start at 0 (a send counter)", g.span)
                PT.check_count(g.type, name, "a shared counter", g.span)
                self.shared[name] = g.span
        self.assumes = []
        for a in m.assumes:  # in order: a division's dividend is checked under the ones before
            self.assumes.append(self.condition(self.param_expr(a.expr), a.expr.span))
        if len(m.proctypes) != 1:
            raise _refuse(f"exactly one proctype is supported, found {len(m.proctypes)}",
                          m.proctypes[1].span if len(m.proctypes) > 1 else None)
        self.proc = m.proctypes[0]
        self.split_body()
        self.initialisation()
        self.find_receive()
        faults, n = self.file_crash_faults() or self.fault_model()
        self.global_assumes: list[P.AssumeStmt] = []  # promela_faults.check_invariants
        self.stutter_at: set[tuple] = set()
        self.reset_at: dict[tuple, Span | None] = {}  # promela_faults.at_bound
        self.explore()
        promela_faults.check_resets(self)
        if self.global_assumes:
            self.notes += promela_faults.check_invariants(self, self.global_assumes,
                                                          faults.terms[0] if faults.terms else Name(n))
        params = [n] + [p for p in self.params if p != n]
        props, table_notes = self.properties(faults)
        name = re.sub(r"\W", "_", Path(m.path).stem) or "promela"
        if not re.match(r"[A-Za-z_]", name):
            name = "m_" + name
        rta = ReceiveTA(name, tuple(params), tuple(self.assumes), faults, Timing.ASYNC,
                        tuple(Message(c) for c in self.counters),
                        tuple(self.locations), tuple(self.initial), tuple(self.rules), tuple(props))
        return PromelaTranslation(rta, tuple(self.notes + table_notes),
                                  tuple((loc.name, loc.origin.text if loc.origin else "")
                                        for loc in self.locations))

    def const(self, e: P.PExpr) -> int | None:
        v = self.value(e, {}, allow_symbolic=False)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    def param_expr(self, e: P.PExpr) -> Expr:
        v = self.value(e, {}, allow_symbolic=True, scope="assume")
        return _lift(v)

    # ------------------------------------------------------------------- proctype
    def split_body(self) -> None:
        body = list(self.proc.body)
        self.locals: dict[str, int] = {}
        self.local_span: dict[str, Span | None] = {}
        self.local_type: dict[str, str] = {}  # declared types: promela_types checks the values
        while body and isinstance(body[0], P.Decl):
            d = body.pop(0)
            for name, init in d.vars:
                v = 0 if init is None else self.const(init)
                if v is None:
                    raise _refuse(f"local '{name}' must start at a constant", d.span)
                PT.check_value(d.type, name, v, d.span)
                self.locals[name] = v
                self.local_type[name] = d.type
                self.local_span[name] = d.span
        self.init_if: P.If | None = None
        self.init_atomics: list[P.Atomic] = []  # run once by every process before 'end:'
        while body and (isinstance(body[0], P.Atomic) or isinstance(body[0], P.If) and self.init_if is None):
            if isinstance(body[0], P.If):
                self.init_if = body.pop(0)
            else:
                self.init_atomics.append(body.pop(0))
        if not body or not isinstance(body[0], P.Labelled) or body[0].label != "end":
            raise _refuse("expected the process's loop 'end: do :: atomic { ... } od' here",
                          body[0].span if body else self.proc.span)
        loop = body.pop(0).stmt
        if body:
            raise _refuse("statements after the 'end:' loop", body[0].span)
        if not (isinstance(loop, P.Do) and len(loop.options) == 1 and len(loop.options[0].body) == 1
                and isinstance(loop.options[0].body[0], P.Atomic)):
            raise _refuse("the 'end:' loop must be 'do :: atomic { ... } od' (one atomic step)", loop.span)
        self.step = loop.options[0].body[0].body

    def find_receive(self) -> None:
        """The receive variables (``passes/pml_to_rta/multi.py``): each a receive choice and a bound
        pairing it with a send counter. The first one whose counter the step sends is the
        *primary*: its bound names the fault model (``fault_model``); every other such one must
        have the same fault term. A counter the initialisation fixed (``self.init_values``) is
        *static*: its receive count ranges over 0..value and is eliminated from the guards."""
        self.rvars = PM.find_receives(self.step, self.locals, set(self.shared), self.linear, self.proc.span)
        self.rvar_of: dict[str, PM.ReceiveVar] = {}
        for r in self.rvars:
            for v in (r.rcv, r.next):
                if v in self.rvar_of or v not in self.locals:
                    raise _refuse(f"'{v}' is not a local variable of its own receive choice", r.choice_if.span)
                self.rvar_of[v] = r
            r.lin = self.linear(r.bound)
            for v in (r.rcv, r.next):
                PT.check_count(self.local_type[v], v, "a receive count", self.local_span[v])
        self.choice_of = {id(r.choice_if): r for r in self.rvars if not r.havoc}
        self.havoc_of = {i: r for r in self.rvars for i in r.sites}  # promela_havoc
        self.havoc_assumes = {i for r in self.rvars for i in r.assumes}
        self.bound_of = {id(r.bound_if): r for r in self.rvars if r.bound_if is not None}
        self.bound_ifs = set(self.bound_of)
        self.props_by_name = {p.name: p for p in self.m.props}
        self.static: dict[str, int] = {}  # static counter -> the largest receive count
        dynamic = []
        for r in self.rvars:
            cs = [n for n in r.lin if n in self.shared]
            if not cs:
                raise _refuse("the receive bound names no shared send counter", r.bound.span)
            if len(cs) == 1 and cs[0] in self.init_values:
                rest = {k: v for k, v in r.lin.items() if k != cs[0]}
                if set(rest) - {""} or r.lin[cs[0]] != 1:
                    raise _refuse(f"the bound of '{r.next}' over '{cs[0]}', which the initialisation "
                                  "fixes, may only add a constant", r.bound.span)
                r.counter = cs[0]
                self.static[cs[0]] = self.init_values[cs[0]] + rest.get("", 0)
            else:
                dynamic.append(r)
        if not dynamic:
            raise _refuse("no receive variable counts messages the step sends", self.proc.span)
        first = dynamic[0]
        self.rcv_var, self.next_var, self.bound = first.rcv, first.next, first.bound
        self.bound_if, self.choice_if = first.bound_if or first.choice_if, first.choice_if
        lin = first.lin
        self.counters = [n for n in lin if n in self.shared]
        self.crash_counter: str | None = None
        self.crash_of: dict[str, str] = {}  # crash-send counter -> its message (promela_crash)
        several = len(dynamic) > 1 and PC.crash_counters(self, dynamic, self._in_transit_counter)
        if several:
            self.crash_of = several
            self.crash_counter = next(iter(several))
            self.counters = list(several.values())
        elif len(self.counters) == 2 and all(lin[c] == 1 for c in self.counters) and len(lin) == 2 \
                and len(dynamic) == 1:
            # crash (Fisman et al.): `nrcvd <= nsnt + nsntF`, the second counting broadcasts of
            # processes that die while sending; the delivered one is named by `in_transit`
            guaranteed = self._in_transit_counter()
            if guaranteed not in self.counters:
                raise _refuse("a receive bound over two send counters needs a proposition "
                              "'some(Proc:nrcvd < c)' naming the counter whose messages are "
                              "delivered (crash faults)", self.bound.span)
            self.crash_counter = next(c for c in self.counters if c != guaranteed)
            self.counters = [guaranteed]
            self.crash_of = {self.crash_counter: guaranteed}
        elif len(self.counters) > 1 or lin[self.counters[0]] != 1:
            raise _refuse("a receive bound over several send counters (one receive variable "
                          "counting several message types) is not supported", self.bound.span)
        self.counter = self.counters[0]
        first.counter = self.counter
        self.bound_rest = {n: c for n, c in lin.items() if n not in (self.counter, self.crash_counter)}
        for n in self.bound_rest:
            if n not in self.params and n != "":
                raise _refuse(f"'{n}' in the receive bound is neither a parameter nor a send counter",
                              self.bound.span)
        for r in dynamic[1:] if not several else ():
            cs = [n for n in r.lin if n in self.shared]
            if len(cs) != 1 or r.lin[cs[0]] != 1:
                raise _refuse("a receive bound over several send counters (one receive variable "
                              "counting several message types) is not supported", r.bound.span)
            rest = {n: c for n, c in r.lin.items() if n != cs[0]}
            if rest != self.bound_rest:
                raise _refuse(f"the bound of '{r.next}' adds {rest or 'nothing'} to '{cs[0]}', the bound "
                              f"of '{self.next_var}' {self.bound_rest or 'nothing'}: one fault model "
                              "bounds every message type", r.bound.span)
            r.counter = cs[0]
            self.counters.append(cs[0])
        if len(set(self.counters)) != len(self.counters):
            raise _refuse("two receive variables bounded by the same send counter", self.proc.span)
        self.choices = first.choices
        if any(r.havoc for r in self.rvars) and promela_faults.may_be_negative(self.bound_rest):
            raise _refuse("a havoc receive's bound 'nsnt + B' with a B that may be negative: the "
                          "file's assume would block a process whose count exceeds it, which no "
                          "fault model of tactl states", self.bound.span)

    def linear(self, e: P.PExpr) -> dict[str, int]:
        """``e`` as name → coefficient ('' the constant), over names and defines."""
        if isinstance(e, P.PInt):
            return {"": e.value}
        if isinstance(e, P.PName):
            return {e.name: 1}
        if isinstance(e, P.PUnary) and e.op == "-":
            return {k: -v for k, v in self.linear(e.arg).items()}
        if isinstance(e, P.PBinary) and e.op in "+-":
            out = dict(self.linear(e.left))
            for k, v in self.linear(e.right).items():
                out[k] = out.get(k, 0) + (v if e.op == "+" else -v)
            return {k: v for k, v in out.items() if v != 0}
        raise _refuse("expected a sum of names and constants here", e.span)

    def fault_model(self) -> tuple[Faults, str]:
        self.reading = promela_faults.fault_model(self)
        return self.reading.faults, self.reading.n

    def _in_transit_counter(self, rcv: str | None = None) -> str | None:
        rcv = rcv or self.rcv_var
        for p in self.m.props:
            e = p.expr
            if isinstance(e, P.PCall) and e.func == "some" and isinstance(e.arg, P.PBinary) \
                    and e.arg.op == "<" and _var(e.arg.left) == rcv \
                    and isinstance(e.arg.right, P.PName):
                return e.arg.right.name
        return None

    # ------------------------------------------------------------------ expressions
    def value(self, e: P.PExpr, env: dict[str, object], allow_symbolic: bool = True,
              scope: str = "step") -> object:
        """``e`` evaluated: an int or bool where concrete, else an ``ir`` expression over
        parameters and the receive counters (a :class:`promela_multi.FloorTerm` for a division
        not yet compared)."""
        if isinstance(e, P.PInt):
            return e.value
        if isinstance(e, P.PName):
            n = e.name
            if n in env:
                v = env[n]
                if isinstance(v, _Rcv):
                    return received(v.counter)
                if isinstance(v, _Frozen):
                    if scope == OBLIGATION:  # any count it has satisfies the receive bound
                        return received(v.counter)
                    raise _refuse(f"the step reads '{n}' where its receive choice is disabled: its "
                                  "count is the one the process entered with, which tactl would "
                                  "need per location", e.span)
                return v
            if n in self.params and allow_symbolic:
                return Name(n)
            if n in self.shared:
                return self.shared_value(n, e.span, scope)
            if n == "true":
                return True
            if n == "false":
                return False
            raise _refuse(f"unknown name '{n}' in {scope}{self.defined_later(n, e.span)}", e.span)
        if isinstance(e, P.PUnary):
            v = self.value(e.arg, env, allow_symbolic, scope)
            if isinstance(v, PM.FloorTerm):
                raise _refuse("a division is supported only in a comparison", e.span)
            if e.op == "!" and isinstance(v, Expr) and not _is_condition(v) or \
                    e.op == "-" and not _is_term(v):
                raise _refuse(f"'{e.op}' of the wrong kind of operand", e.span)
            if e.op == "!":
                return (not v) if isinstance(v, bool) else Not(_lift(v))
            if e.op == "-":
                return -v if isinstance(v, int) and not isinstance(v, bool) else summation(IntConst(0), [("-", _lift(v))])
            raise _refuse(f"'{e.op}' outside an ltl formula", e.span)
        if isinstance(e, P.PBinary):
            a = self.value(e.left, env, allow_symbolic, scope)
            if e.op == "&&" and a is False or e.op == "||" and a is True:
                return a
            b = self.value(e.right, env, allow_symbolic, scope)
            if e.op in ("/", "%") or isinstance(a, PM.FloorTerm) or isinstance(b, PM.FloorTerm):
                return self.division(e, a, b)
            return _binary(e.op, a, b, e.span)
        raise _refuse("this expression is not supported in " + scope, e.span)

    def defined_later(self, n: str, span: Span | None) -> str:
        """Why a name that a later ``#define`` names is unknown here (B1): cpp substitutes a
        macro only from its definition on, so SPIN and ByMC reject the file too."""
        later = [d.span.line for d in self.m.defines if d.name == n and d.span and span and d.span.line > span.line]
        return (f": '#define {n}' comes only at line {later[0]}, and a macro means something only "
                "after its definition (cpp)") if later else ""

    def shared_value(self, n: str, span: Span | None, scope: str) -> object:
        """A shared counter read outside the receive bounds and sends: concrete in the
        initialisation, its fixed value where the initialisation set it and the step never
        changes it, the crash counter (only in the crash option and the paths it disables), or
        ``sent(M)`` in an ``assume``/``assert`` the translation must prove always true."""
        if self.shared_env is not None:
            return self.shared_env.get(n, 0)
        if n in self.init_values:
            return self.init_values[n]
        if n == getattr(self, "file_crash", None) and scope == "step":
            return Name(CRASH_SYMBOL)
        if scope == OBLIGATION:
            return Name(f"sent {n}")
        raise _refuse(f"the shared variable '{n}' is used outside the receive bound and "
                      "sends", span)

    def division(self, e: P.PBinary, a: object, b: object) -> object:
        """``/`` and ``%``: concrete as in C (truncation); ``x / d`` for a positive constant d
        as ``floor(x / d)`` once ``x >= 0`` is proved; a comparison with one such term is
        rewritten without it (``promela_multi.compare_div``); anything else is refused."""
        if e.op in ("/", "%"):
            if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool) and not isinstance(b, bool):
                if b == 0:
                    raise _refuse("division by zero", e.span)
                q = PM.c_division(a, b)
                return q if e.op == "/" else a - b * q
            if e.op == "/" and isinstance(b, int) and not isinstance(b, bool) and b > 0 and _is_term(a):
                return PM.FloorTerm(IntConst(0), _lift(a), b)
            raise _refuse(f"'{e.op}' is supported for integers, and '/' by a positive constant", e.span)
        if e.op in "+-" and all(isinstance(x, PM.FloorTerm) or _is_term(x) for x in (a, b)):
            out = PM.add_div(e.op, a if isinstance(a, PM.FloorTerm) else _lift(a),
                             b if isinstance(b, PM.FloorTerm) else _lift(b))
            if out is not None:
                return out
        if e.op in _CMP and all(isinstance(x, PM.FloorTerm) or _is_term(x) for x in (a, b)) \
                and not (isinstance(a, PM.FloorTerm) and isinstance(b, PM.FloorTerm)):
            cond, dividend = PM.compare_div(e.op, a if isinstance(a, PM.FloorTerm) else _lift(a),
                                            b if isinstance(b, PM.FloorTerm) else _lift(b))
            if not self.valid(Compare(">=", dividend, IntConst(0))):
                raise _refuse("tactl cannot prove this dividend non-negative (Promela's '/' truncates "
                              "toward zero, which is floor only there)", e.span)
            return cond
        raise _refuse(f"a division here ('{e.op}' of it); supported: one 'x / d' term added to "
                      "others and compared", e.span)

    def valid(self, c: Expr, cond: list[Expr] = ()) -> bool:
        """``c`` follows from the assumptions translated so far (and ``cond``)."""
        from tactl.ir.linear import int_symbols, to_z3  # lazy: z3 loads only when a .pml is translated
        import z3  # lazy: as above

        syms = getattr(self, "syms", None) or int_symbols()
        solver = z3.Solver()
        solver.add(*[to_z3(a, syms) for a in self.assumes], *[to_z3(a, syms) for a in cond])
        for name in _expr_names(c):
            if received_message(name.name):
                solver.add(syms(name.name) >= 0)
        solver.add(z3.Not(to_z3(c, syms)))
        return solver.check() == z3.unsat

    # ------------------------------------------------------------------- exploration
    def loc_vars(self) -> list[str]:
        return [v for v in self.locals if v not in self.rvar_of and not v.startswith("next_")]

    def initialisation(self) -> None:
        """The prefix's effect on shared counters (``promela_multi.initial_counters``): the
        counters an ``atomic`` block before ``end:`` sets, with their values once every process
        has run it."""
        self.shared_env: dict[str, int] | None = None
        self.init_values: dict[str, int] = {}
        if not self.init_atomics:
            return
        copies = _lift(self.value(self.proc.copies, {}, True, "the copy count"))

        def at_least(j: int) -> bool:
            return self.valid(Compare(">=", copies, IntConst(j)))

        def evaluate(e: P.PExpr, state: dict[str, int]) -> object:
            self.shared_env = state
            try:
                v = self.value(e, {}, False, "the initialisation")
            finally:
                self.shared_env = None
            if not isinstance(v, bool):
                raise _refuse("expected a condition on shared counters", e.span)
            return v

        touched = {t.var for b in self.init_atomics for t in P.statements(b.body) if isinstance(t, P.Incr)}
        state = PM.initial_counters(self.init_atomics, at_least, evaluate, set(self.shared))
        stepped = {t.var for t in P.statements(self.step) if isinstance(t, (P.Incr, P.Assign))}
        for c in sorted(touched):
            if c in stepped:
                raise _refuse(f"the initialisation sets '{c}', which the step also changes: a send "
                              "counter of the threshold automaton starts at 0", self.init_atomics[0].span)
            self.init_values[c] = state.get(c, 0)
        self.notes.append(Diagnostic(Severity.WARNING, (
            "initialisation: every process runs the 'atomic' block before 'end:' once, before its "
            "first step (ByMC's prec_init = all(Proc@end)); afterwards " +
            ", ".join(f"{c} = {v}" for c, v in self.init_values.items()) + " for the whole run"),
            self.init_atomics[0].span))

    def explore(self) -> None:
        from tactl.ir.linear import int_symbols, to_z3  # lazy: z3 loads only when a .pml is translated
        import z3  # lazy: as above

        self.z3, self.to_z3, self.syms = z3, to_z3, int_symbols()
        self.paths = 0  # control states so far (exec_seq), over the whole extraction
        self.rc = [to_z3(a, self.syms) for a in self.assumes]
        for r in self.rvars:
            self.rc.append(to_z3(Compare(">=", received(r.counter), IntConst(0)), self.syms))
            if r.counter in self.static:
                self.rc.append(to_z3(Compare("<=", received(r.counter), IntConst(self.static[r.counter])), self.syms))
        self.obligations: list[tuple[str, object, list[Expr], Span | None]] = []
        lv = self.loc_vars()
        starts: list[tuple[int, ...]] = []
        self.start_counts: dict[tuple, dict[str, int]] = {}  # init-only counters per start
        options = self.init_if.options if self.init_if else (P.Option(()),)
        for o in options:
            env = dict(self.locals)
            counts: dict[str, int] = {}
            for s in o.body:
                if isinstance(s, P.Assign) and s.var in lv:
                    v = self.value(s.expr, env, False)
                    if not isinstance(v, int):
                        raise _refuse("initial values must be constants", s.span)
                    PT.check_value(self.local_type[s.var], s.var, v, s.span)
                    env[s.var] = v
                elif isinstance(s, P.Incr) and s.var in self.shared:
                    counts[s.var] = counts.get(s.var, 0) + s.delta
                elif not isinstance(s, (P.Printf, P.Skip)):
                    raise _refuse("the initial 'if' may only assign constants to locals", s.span)
            key = tuple(env[v] for v in lv)
            if key in self.start_counts and self.start_counts[key] != counts:
                raise _refuse("two initial options reach the same location with different counter "
                              "increments", o.span)
            self.start_counts[key] = counts
            if key not in starts:
                starts.append(key)
        self.init_only = sorted({c for cs in self.start_counts.values() for c in cs})
        stepped = {t.var for t in P.statements(self.step) if isinstance(t, (P.Incr, P.Assign))}
        for c in self.init_only:
            if c in stepped or c in self.init_values:
                raise _refuse(f"'{c}' is incremented by the initial 'if' and changed elsewhere",
                              self.init_if.span if self.init_if else None)
        self.valuations: list[tuple[int, ...]] = list(starts)
        self.havoc_at: dict[str, set[tuple]] = {}  # counter -> locations whose steps receive it
        self.havoc_resets: dict[tuple, Span | None] = {}  # (src, dst, counter) -> the reset
        edges: list[tuple[tuple, tuple, _Path]] = []
        queue = list(starts)
        blocked: list[tuple[int, ...]] = []
        while queue:
            src = queue.pop(0)
            env: dict[str, object] = dict(self.locals)
            env.update(zip(lv, src))
            for r in self.rvars:
                env[r.rcv] = _Rcv(r.counter)
            env[SOURCE] = src
            paths, is_blocked = self.exec_seq(self.step, [_Path(env)], src in starts)
            if is_blocked:
                blocked.append(src)
            for p in paths:
                for v in self.locals:
                    if (v.startswith("next_") or v in self.rvar_of and self.rvar_of[v].next == v) \
                            and p.env[v] != self.locals[v]:
                        raise _refuse(f"'{v}' is not reset to {self.locals[v]} at the end of the step",
                                      self.local_span[v])
                tgt = tuple(p.env[v] for v in lv)
                if any(not isinstance(x, int) for x in tgt):
                    raise _refuse("a location variable gets a value that depends on the receive "
                                  "count", self.proc.span)
                p.env[RESETS] = frozenset(r.counter for r in self.rvars
                                          if isinstance(p.env[r.rcv], int) and not isinstance(p.env[r.rcv], bool))
                for c, span in p.env.get(HAVOC_RESETS, {}).items():
                    self.havoc_resets.setdefault((src, tgt, c), span)
                if tgt == src and not p.sends:
                    self.stutter_at.add(src)
                    continue  # a stutter step
                edges.append((src, tgt, p))
                if tgt not in self.valuations:
                    self.valuations.append(tgt)
                    queue.append(tgt)
        for b in blocked:
            if any(t == b and s != b for s, t, _ in edges):
                raise _refuse("the receive choice is disabled at a location a step enters: the "
                              "receive count there would depend on the path", self.choice_if.span)
        self.valuations.sort()  # locations in the order of their values (pc = 0, 1, ...)
        self.dead: tuple | None = None
        self.dead_all: tuple[tuple, ...] = ()  # several valuations that are CR (promela_crash)
        if self.crash_counter is not None and self.file_crash is not None:
            edges = PC.crash_location(self, edges, self.file_crash, CRASH_SEND, FILE_CRASH, CRASH_SYMBOL)
        elif self.crash_counter is not None and len(self.crash_of) > 1:
            edges = PC.unbounded_crash_location(self, edges, CRASH_SEND)
        elif self.crash_counter is not None:
            edges = self.crash_location(edges)
        if getattr(self, "file_crash", None) is not None and self.dead is None:
            edges = self.file_crash_location(edges)
        elif any(CRASH_SYMBOL in {n.name for c in p.cond for n in _expr_names(c)} for _, _, p in edges):
            raise _refuse("a step whose condition reads a shared counter", self.proc.span)
        if self.havoc_resets:
            reads: dict[str, set[tuple]] = {}
            for s, _, p in edges:
                for n in {n.name for c in p.cond for n in _expr_names(c)}:
                    reads.setdefault(n, set()).add(s)
            PH.check_resets(self.havoc_resets, self.havoc_at, edges,
                            {r.counter: reads.get(received(r.counter).name, set()) for r in self.rvars})
        self.name_locations(lv, starts)
        self.check_obligations(edges, starts)
        invariant = self.monotone_invariants(edges, starts)
        groups: dict[tuple, list[list[Expr]]] = {}
        lines_of: dict[tuple, set[int]] = {}
        for s, t, p in edges:
            for d in invariant.get(s, []):
                cond = _dedupe(list(d) + p.cond)
                if self.sat(cond):
                    key = (s, t, tuple(p.sends))
                    groups.setdefault(key, []).append(cond)
                    lines_of.setdefault(key, set()).update(p.lines)
        self.rules = []
        for (s, t, sends), conds in groups.items():
            conds = self.eliminate_static(conds)
            if not conds:
                continue
            guard = BoolConst(True) if any(not c for c in conds) else disj(*[conj(*c) for c in conds])
            lines = sorted(lines_of[(s, t, sends)])
            text = "; ".join(f'line {n} "{self.m.line(n)}"' for n in lines)
            self.rules.append(ReceiveRule(len(self.rules), self.names[s], self.names[t], guard, sends,
                                          origin=Origin(self.m.path, tuple(lines), text)))

    def eliminate_static(self, conds: list[list[Expr]]) -> list[list[Expr]]:
        """The receive counts of static counters (sent by the initialisation, fixed for the run)
        range over 0..their largest value: each conjunction becomes the satisfiable cases of that
        finite range, so no ``received`` of theirs is left in a guard."""
        from tactl.ir.expr import substitute  # lazy: only for static counters

        out = [c for c in conds]
        for counter, top in self.static.items():
            name = received(counter).name
            nxt: list[list[Expr]] = []
            for c in out:
                if not any(n.name == name for a in c for n in _expr_names(a)):
                    nxt.append(c)
                    continue
                for k in range(top + 1):
                    cand = [substitute(a, {name: IntConst(k)}) for a in c]
                    cand = [a for a in cand if a != BoolConst(True) and not self.valid_in_rc(a)]
                    if self.sat(cand) and cand not in nxt:
                        nxt.append(cand)
            out = nxt
        return out

    def valid_in_rc(self, a: Expr) -> bool:
        """``a`` holds under the assumptions alone (a receive-free atom left by elimination)."""
        if any(received_message(n.name) for n in _expr_names(a)):
            return False
        s = self.z3.Solver()
        s.add(*self.rc, self.z3.Not(self.to_z3(a, self.syms)))
        return s.check() == self.z3.unsat

    def crash_location(self, edges):
        """Crash faults: the location every ``nsntF++`` step enters (DH, dead) becomes tactl's
        crash location CR, and those steps the crash-while-sending rules the translation adds.
        That is exact only when DH is entered by nothing else, is never left, and each dying
        step mirrors a correct sending step from the same location under the same condition;
        anything else is refused."""
        dying = [(s, t, p) for s, t, p in edges if CRASH_SEND in p.sends]
        targets = {t for _, t, _ in dying}
        span = self.bound.span
        if len(targets) != 1:
            raise _refuse(f"the '{self.crash_counter}++' steps must all enter one location (the "
                          "dead one)", span)
        dead = next(iter(targets))
        if any(t == dead and CRASH_SEND not in p.sends for _, t, p in edges) or \
                any(s == dead for s, _, _ in edges):
            raise _refuse("the location entered by dying steps must be entered by nothing else and "
                          "never left", span)
        for s, _, p in dying:
            if p.sends != [CRASH_SEND]:
                raise _refuse("a dying step must send on the crash counter only", span)
            twins = [q for s2, t2, q in edges if s2 == s and t2 != dead and q.sends == [self.counter]
                     and self.equivalent(q.cond, p.cond)]
            if not twins:
                raise _refuse("a dying step must mirror a correct sending step (same location, same "
                              "condition): tactl's crash model lets a process crash while sending", span)
        self.dead = dead
        self.valuations.remove(dead)
        lv = self.loc_vars()
        meaning = ", ".join(f"{v} = {x}" for v, x in zip(lv, dead))
        self.notes.append(Diagnostic(Severity.WARNING, (
            f"crash faults: the location with {meaning}, entered by '{self.crash_counter}++', is "
            f"tactl's crash location CR; faults crash(F) with a new parameter 0 <= F <= N (the file "
            f"bounds no crash count). tactl's crash model also lets a process crash silently at any "
            f"location — more runs than the file's: a HOLDS is a proof for the file's model, a "
            f"VIOLATED run may use such a crash"), span))
        return [(s, t, p) for s, t, p in edges if t != dead]

    def file_crash_faults(self) -> tuple[Faults, str] | None:
        """cond-consensus2's crash: a shared counter C the step increments besides the send
        counters, on an option ``C < F && ... -> C++; pc = CR``. With N copies and bounds
        ``nrcvd < nsnt`` this is tactl's clean_crash(F): at most F processes stop between steps,
        every message they sent is delivered (``file_crash_location`` checks the rest)."""
        self.file_crash: str | None = None
        extra = sorted({t.var for t in P.statements(self.step) if isinstance(t, P.Incr) and t.var in self.shared}
                       - set(self.counters) - set(self.crash_of))
        if not extra:
            return None
        if len(extra) > 1:
            raise _refuse(f"the step increments {', '.join(extra)} besides the send counters of its "
                          "receive bounds", self.proc.span)
        c = extra[0]
        bounds = {x.right.name for t in P.statements(self.step) if isinstance(t, P.Condition)
                  for x in P.subexpressions(t.expr) if isinstance(x, P.PBinary) and x.op == "<"
                  and isinstance(x.left, P.PName) and x.left.name == c and isinstance(x.right, P.PName)}
        copies = self.linear(self.proc.copies)
        ns = [k for k in copies if k in self.params]
        if len(bounds) != 1 or not bounds <= set(self.params) or len(copies) != 1 or copies[ns[0]] != 1 \
                or self.bound_rest:
            raise _refuse(f"'{c}++' is read as a crash counter only with N copies, receive bounds "
                          f"'nrcvd < nsnt' and one guard '{c} < F' for a parameter F", self.proc.span)
        self.file_crash = c
        if self.crash_of:  # and crash-send counters: tactl's crash(F) (promela_crash)
            return Faults(FaultModel.CRASH, (next(iter(bounds)),)), ns[0]
        return Faults(FaultModel.CLEAN_CRASH, (next(iter(bounds)),)), ns[0]

    def file_crash_location(self, edges):
        """The location every ``C++`` step enters is tactl's crash location CR. Exact when those
        steps send nothing, need nothing but ``C < F``, leave every other location, and CR is
        entered by nothing else and never left; paths that read C otherwise must be stutters."""
        dying = [(s, t, p) for s, t, p in edges if FILE_CRASH in p.sends]
        targets = {t for _, t, _ in dying}
        span = self.proc.span
        if len(targets) != 1:
            raise _refuse(f"the '{self.file_crash}++' steps must all enter one location (the crashed one)", span)
        dead = next(iter(targets))
        if any(t == dead and FILE_CRASH not in p.sends for _, t, p in edges) or any(s == dead for s, _, _ in edges):
            raise _refuse("the location entered by crash steps must be entered by nothing else and "
                          "never left", span)
        symbol = Name(CRASH_SYMBOL)
        for s, _, p in dying:
            rest = [c for c in p.cond if symbol not in _expr_names(c)]
            if p.sends != [FILE_CRASH] or rest and not self.valid(conj(*rest)):
                raise _refuse(f"a crash step ('{self.file_crash}++') must send nothing and be possible "
                              "whatever the process received", span)
        for s, t, p in edges:
            if FILE_CRASH not in p.sends and symbol in {n for c in p.cond for n in _expr_names(c)}:
                raise _refuse(f"a step that is not a crash reads '{self.file_crash}'", span)
        missing = [v for v in self.valuations if v != dead and not any(s == v for s, _, _ in dying)]
        if missing:
            raise _refuse(f"tactl's clean crashes may happen at every location; the file's cannot at "
                          f"{missing}", span)
        meaning = ", ".join(f"{v} = {x}" for v, x in zip(self.loc_vars(), dead))
        PC.become_crash_location(
            self, [dead], f"the location with {meaning}, entered by '{self.file_crash}++' under "
            f"'{self.file_crash} < {self.file_crash_parameter()}', is",
            f"clean_crash({self.file_crash_parameter()}): at most that many processes stop between "
            "steps, at any location, and every message they sent is delivered", span)
        return [(s, t, p) for s, t, p in edges if t != dead]

    def file_crash_parameter(self) -> str:
        return next(x.right.name for t in P.statements(self.step) if isinstance(t, P.Condition)
                    for x in P.subexpressions(t.expr) if isinstance(x, P.PBinary) and x.op == "<"
                    and isinstance(x.left, P.PName) and x.left.name == self.file_crash)

    def check_obligations(self, edges, starts) -> None:
        """``assume``/``assert`` over shared counters must hold on every path reaching them,
        given the receive bounds and how often a process can send (``sends_per_process``):
        then they change nothing and are dropped; else the file is refused."""
        if not self.obligations:
            return
        copies = _lift(self.value(self.proc.copies, {}, True, "the copy count"))
        env: list[Expr] = []
        graph = [(s, t, tuple(p.sends)) for s, t, p in edges]
        for r in self.rvars:
            if r.counter in self.static:
                continue
            ns = Name(f"sent {r.counter}")
            rest = [("+" if k > 0 else "-", Name(n) if n else IntConst(abs(k)))
                    for n, k in self.bound_rest.items() for _ in range(abs(k) if n else 1)]
            env += [Compare("<=", received(r.counter), summation(ns, rest)), Compare(">=", ns, IntConst(0))]
            k = PM.sends_per_process(graph, starts, r.counter)
            if k is not None:
                env.append(Compare("<=", ns, Mul(IntConst(k), copies)))
        for kind, v, cond, span in self.obligations:
            if self.crash_counter is not None or not self.valid(self.condition(v, span), cond + env):
                raise _refuse(f"{kind}(...) that tactl cannot prove always true from the receive "
                              "bounds and the number of sends" + (" (it would restrict steps by a "
                              "shared counter)" if kind == "assume" else " (a safety property over "
                              "receive variables is not a specification of the automaton)"), span)
        statements = len({(o[3].line, o[3].col) if o[3] else i for i, o in enumerate(self.obligations)})
        self.notes.append(Diagnostic(Severity.WARNING, (
            f"{statements} assume/assert statement(s) of the step hold on each of the "
            f"{len(self.obligations)} paths reaching them (each process sends each message at most "
            "as often as its location graph allows, every receive count is within its bound): "
            "they change nothing"), self.obligations[0][3]))

    def equivalent(self, a: list[Expr], b: list[Expr]) -> bool:
        s = self.z3.Solver()
        ca, cb = self.to_z3(conj(*a) if a else BoolConst(True), self.syms), \
            self.to_z3(conj(*b) if b else BoolConst(True), self.syms)
        s.add(*self.rc, ca != cb)
        return s.check() == self.z3.unsat

    def monotone_invariants(self, edges, starts) -> dict[tuple, list[tuple[Expr, ...]]]:
        """Per location, what its processes' receive count is known to be at least: a process
        entered it by a step whose condition bounded the count from below, and the count never
        decreases (ByMC's ``nrcvd`` only grows). A disjunction of conjunctions of lower bounds
        ``received(M) >= e``; a location's rules are restricted to it, which removes steps no
        process can take (e.g. back from AC, entered with n - t, by a guard below n - t) and
        keeps every step a process can take."""
        inv: dict[tuple, list[tuple[Expr, ...]]] = {s: [()] for s in starts}
        changed = True
        while changed:
            changed = False
            for s, t, p in edges:
                for d in list(inv.get(s, [])):
                    cond = _dedupe(list(d) + p.cond)
                    if not self.sat(cond):
                        continue
                    kept = [r.counter for r in self.rvars if r.counter not in p.env.get(RESETS, ())]
                    low = tuple(a for a in cond if any(_lower_bound(a, c) for c in kept))
                    have = inv.setdefault(t, [])
                    if any(set(h) <= set(low) for h in have):
                        continue  # a weaker bound is known already
                    have[:] = [h for h in have if not set(low) <= set(h)] + [low]
                    changed = True
        return inv

    def sat(self, cond: list[Expr]) -> bool:
        s = self.z3.Solver()
        s.add(*self.rc, *[self.to_z3(c, self.syms) for c in cond])
        return s.check() != self.z3.unsat

    def exec_seq(self, stmts, paths: list[_Path], initial: bool) -> tuple[list[_Path], bool]:
        blocked = False
        for s in stmts:
            out: list[_Path] = []
            for p in paths:
                got, b = self.exec_stmt(s, p, initial)
                blocked |= b
                out += got
            paths = out
            self.paths += len(paths)
            if self.paths > MAX_CONTROL_STATES:
                raise _refuse(f"too many control states (> {MAX_CONTROL_STATES}): the paths "
                              "through the step branch too often up to here to enumerate (each "
                              "two-way 'if' over locals doubles them; reduce the branches or the "
                              "variables they set)", s.span)
        return paths, blocked

    def exec_stmt(self, s: P.Stmt, p: _Path, initial: bool) -> tuple[list[_Path], bool]:
        line = [s.span.line] if s.span else []
        if isinstance(s, (P.Printf, P.Skip)):
            return [p], False
        if id(s) in self.bound_ifs:  # the environment assumption of the fault model
            r = self.bound_of[id(s)]
            env = dict(p.env)
            forced = bool(env.pop(FORCED + r.next, False))
            return promela_faults.at_bound(self, r, _Path(env, p.cond, p.sends, p.lines), _Rcv(r.counter), forced), False
        if isinstance(s, P.Havoc):  # a receive (promela_havoc): any count up to the bound
            r = self.havoc_of[id(s)]
            if not isinstance(p.env[r.rcv], _Rcv) or r.next in p.env.get(HAVOC_DONE, ()):
                raise _refuse(f"'havoc({r.next})' on a path that already set '{r.next}' or "
                              f"'{r.rcv}'", s.span)
            env = dict(p.env)
            env[HAVOC_DONE] = env.get(HAVOC_DONE, frozenset()) | {r.next}
            env[r.next] = _Rcv(r.counter)
            self.havoc_at.setdefault(r.counter, set()).add(env[SOURCE])
            return [_Path(env, list(p.cond), list(p.sends), list(p.lines))], False
        if id(s) in self.havoc_assumes:  # the bound of a havoc receive: the fault model
            return [p], False
        if isinstance(s, P.Assign) and s.var in self.rvar_of and self.rvar_of[s.var].havoc \
                and s.var == self.rvar_of[s.var].next and s.var not in p.env.get(HAVOC_DONE, ()):
            r = self.rvar_of[s.var]  # the receive's alternatives: no receive, a reset
            env = dict(p.env)
            env[HAVOC_DONE] = env.get(HAVOC_DONE, frozenset()) | {r.next}
            if isinstance(s.expr, P.PName) and s.expr.name == r.rcv:  # no receive on this path
                if initial:  # as a disabled receive choice: 0 where the process starts
                    env[r.next] = env[r.rcv] = 0
                    return [_Path(env, list(p.cond), list(p.sends), list(p.lines))], True
                env[r.next] = env[r.rcv] = _Frozen(r.counter)
                return [_Path(env, list(p.cond), list(p.sends), list(p.lines))], False
            if isinstance(s.expr, P.PInt) and s.expr.value == 0:  # a reset (promela_havoc.check_resets)
                env[r.next] = 0
                env[HAVOC_RESETS] = {**env.get(HAVOC_RESETS, {}), r.counter: s.span}
                return [_Path(env, list(p.cond), list(p.sends), list(p.lines))], False
        if id(s) in self.choice_of:
            r = self.choice_of[id(s)]
            enabled = zero = False
            for guard, delta in r.choices:
                g = True if guard is None else self.value(guard, p.env, True)
                if not isinstance(g, bool):
                    raise _refuse("a receive choice guard must depend on location variables only",
                                  guard.span if guard else s.span)
                if delta == 1:
                    enabled |= g
                else:
                    zero |= g
            env = dict(p.env)
            if enabled:
                env[r.next] = _Rcv(r.counter)
                got = _Path(env, list(p.cond), list(p.sends), list(p.lines))
                if not zero:  # no "no receive" option: the step receives one more
                    if r.bound_if is None:
                        return self._guarded(got, Compare(">=", received(r.counter), IntConst(1)), [], s.span), False
                    env[FORCED + r.next] = True  # unless the bound's branch forgets it (at_bound)
                return [got], False
            if not zero:
                return [], False  # no option enabled: the process cannot step here
            if initial:
                env[r.next] = 0  # nothing received yet at an initial location
                env[r.rcv] = 0
                return [_Path(env, list(p.cond), list(p.sends), list(p.lines))], True
            env[r.next] = env[r.rcv] = _Frozen(r.counter)
            return [_Path(env, list(p.cond), list(p.sends), list(p.lines))], False
        if isinstance(s, P.AssumeStmt) and any(isinstance(e, P.PCall) or (isinstance(e, P.PName) and e.name in self.props_by_name)
                                               for e in P.subexpressions(s.expr)):
            # over the global state (`assume(tx_inv)`): dropped once proved an invariant
            self.global_assumes.append(s)
            return [p], False
        if isinstance(s, P.AssumeStmt) and not (set(P.variable_names(s.expr)) & set(self.shared)):
            g = self.value(s.expr, p.env, True)  # over locations and receive counts: a guard
            return self._guarded(p, g, line, s.span), False
        if isinstance(s, (P.AssumeStmt, P.AssertStmt)):
            v = self.value(s.expr, p.env, True, OBLIGATION)
            self.obligations.append(("assume" if isinstance(s, P.AssumeStmt) else "assert", v,
                                     list(p.cond), s.span))
            return [p], False
        if isinstance(s, P.Condition):
            g = self.value(s.expr, p.env, True)
            return self._guarded(p, g, line, s.span), False
        if isinstance(s, P.Assign):
            if s.var in self.shared:
                raise _refuse(f"assignment to the shared variable '{s.var}' (only '{s.var}++' is a send)", s.span)
            if s.var not in self.locals:
                raise _refuse(f"'{s.var}' is not a local variable", s.span)
            r = self.rvar_of.get(s.var)
            if r is not None and isinstance(s.expr, P.PName) and s.expr.name in (r.rcv, r.next):
                v = p.env[s.expr.name]  # a copy, also of a count the step may not read
            else:
                v = self.value(s.expr, p.env, True)
            if r is not None:
                if _is_received(v, r.counter):
                    v = _Rcv(r.counter)
                if not (isinstance(v, (_Rcv, _Frozen)) and v.counter == r.counter
                        or isinstance(v, int) and not isinstance(v, bool) and v == 0):
                    raise _refuse(f"'{s.var}' may only be copied between '{r.rcv}' and "
                                  f"'{r.next}' or reset to 0", s.span)
            elif not isinstance(v, int) or isinstance(v, bool):
                raise _refuse(f"'{s.var}' gets a value that depends on the receive count or a parameter",
                              s.span)
            else:
                PT.check_value(self.local_type[s.var], s.var, v, s.span)
            env = dict(p.env)
            env[s.var] = v
            keep = s.var not in self.rvar_of and not (s.var.startswith("next_") and v == self.locals[s.var])
            return [_Path(env, list(p.cond), list(p.sends), p.lines + (line if keep else []))], False
        if isinstance(s, P.Incr):
            if s.var in self.shared and s.var in self.crash_of and s.delta == 1:
                marker = CRASH_SEND if len(self.crash_of) == 1 and not self.file_crash \
                    else f"{CRASH_SEND}:{self.crash_of[s.var]}"
                return [_Path(dict(p.env), list(p.cond), p.sends + [marker], p.lines + line)], False
            if s.var in self.shared and s.var == getattr(self, "file_crash", None) and s.delta == 1:
                return [_Path(dict(p.env), list(p.cond), p.sends + [FILE_CRASH], p.lines + line)], False
            if s.var in self.shared:
                if s.var not in self.counters or s.delta != 1:
                    raise _refuse(f"'{s.var}{'++' if s.delta == 1 else '--'}': only the receive "
                                  "bounds' send counters may be incremented", s.span)
                return [_Path(dict(p.env), list(p.cond), p.sends + [s.var], p.lines + line)], False
            if s.var in self.loc_vars():
                env = dict(p.env)
                env[s.var] = env[s.var] + s.delta  # type: ignore[operator]
                PT.check_value(self.local_type[s.var], s.var, env[s.var], s.span)  # type: ignore[arg-type]
                return [_Path(env, list(p.cond), list(p.sends), p.lines + line)], False
            raise _refuse(f"'{s.var}++' on a variable that is not a location variable or send counter", s.span)
        if isinstance(s, P.If):
            out: list[_Path] = []
            blocked = False
            guards: list[object] = []
            for o in s.options:
                first = o.body[0] if o.body else None
                if isinstance(first, P.Else):
                    continue
                guards.append(self.value(first.expr, p.env, True) if isinstance(first, P.Condition) else True)
            for o in s.options:
                first = o.body[0] if o.body else None
                if isinstance(first, P.Else):
                    g: object = True if not guards else _negate_any(guards)
                    rest = o.body[1:]
                elif isinstance(first, P.Condition):
                    g = self.value(first.expr, p.env, True)
                    rest = o.body[1:]
                else:
                    g, rest = True, o.body
                guarded = isinstance(first, (P.Condition, P.Else))
                start = self._guarded(p, g, [o.span.line] if o.span and guarded else [], o.span)
                got, b = self.exec_seq(rest, start, initial)
                blocked |= b
                out += got
            return out, blocked
        raise _refuse(f"'{type(s).__name__}' is not supported inside the atomic step", s.span)

    def condition(self, g: object, span: Span | None) -> Expr:
        """``g`` as a condition: a comparison or a combination of them (an arithmetic term is
        refused: a Promela guard 'x' meaning 'x != 0' over parameters is not supported)."""
        e = _lift(g)
        if not _is_condition(e):
            raise _refuse("expected a condition (a comparison) here", span)
        return e

    def _guarded(self, p: _Path, g: object, line: list[int], span: Span | None = None) -> list[_Path]:
        if isinstance(g, Expr):
            g = self.condition(g, span)
        if g is True:
            return [_Path(dict(p.env), list(p.cond), list(p.sends), p.lines + line)]
        if g is False:
            return []
        if isinstance(g, int):
            return [p] if g else []
        g = promela_faults.prune(self, p.cond, g)  # type: ignore[arg-type]
        cond = p.cond + [g]  # type: ignore[list-item]
        if not self.sat(cond):
            return []
        return [_Path(dict(p.env), cond, list(p.sends), p.lines + line)]

    def name_locations(self, lv: list[str], starts: list[tuple]) -> None:
        used = self.m.macros_in_process
        by_value: dict[int, list[str]] = {}
        for name, val in self.defines.items():
            if name in used:
                by_value.setdefault(val, []).append(name)
        self.names: dict[tuple, str] = {}
        self.locations: list[Location] = []
        self.initial: list[str] = []
        taken = set(self.params)
        for key in self.valuations:
            parts, meaning = [], []
            for var, val in zip(lv, key):
                cands = by_value.get(val, [])
                label = cands[0] if len(lv) == 1 and len(cands) == 1 else f"{var}{val}"
                parts.append(label)
                meaning.append(f"{var} = {val}" + (f" ({', '.join(cands)})" if cands else ""))
            name = "_".join(parts) or "L"
            while name in taken:
                name += "_"
            taken.add(name)
            self.names[key] = name
            line = next((d.span.line for d in self.m.defines if d.name == name and d.span), None)
            self.locations.append(Location(name, origin=Origin(self.m.path, (line,) if line else (),
                                                               ", ".join(meaning))))
            if key in starts:
                self.initial.append(name)

    # ------------------------------------------------------------------- properties
    def properties(self, faults: Faults) -> tuple[list[Property], list[Diagnostic]]:
        props = {p.name: p for p in self.m.props}
        out: list[Property] = []
        notes: list[Diagnostic] = []
        for ltl in self.m.ltls:
            if ltl.name == FAIRNESS:
                notes.append(self.fairness_note(ltl, props, faults))
                continue
            formula = self.static_formula(ltl, props)
            out.append(Property(ltl.name, formula, origin=Origin(
                self.m.path, (ltl.span.line,) if ltl.span else (), self.m.line(ltl.span.line) if ltl.span else "")))
        return out, notes + self.unused_propositions(props)

    def unused_propositions(self, props: dict[str, P.AtomicProp]) -> list[Diagnostic]:
        """One warning naming the ``atomic`` propositions no ``ltl`` block uses that tactl could not read.

        Such a proposition changes no verdict, so it is not an error; but saying nothing would let
        a user believe tactl read it (and be surprised when a formula that uses it is refused).
        One warning, at the first of them: ByMC's files all carry such auxiliary invariants."""
        used = {name for ltl in self.m.ltls for name in P.variable_names(ltl.formula)}
        unread: list[tuple[str, _Refuse, Span | None]] = []
        for name, prop in props.items():
            if name in used:
                continue
            try:
                self.condition(self.prop(prop.expr), prop.expr.span)
            except _Refuse as e:
                unread.append((name, e, e.span or prop.span))
        if not unread:
            return []
        name, first, span = unread[0]
        others = "".join(f"; {n} (line {sp.line}): {e.message}" if sp else f"; {n}: {e.message}"
                         for n, e, sp in unread[1:])
        return [Diagnostic(Severity.WARNING, f"not read, and used by no ltl block (so no verdict depends "
                           f"on them): atomic {name}: {first.message}{others}", span)]

    def formula(self, e: P.PExpr, props: dict[str, P.AtomicProp], fixed: dict[str, bool] | None = None,
                at_start: bool = True) -> Expr:
        """``e`` as a formula; ``at_start``: ``e`` is evaluated in the initial configuration (no
        temporal operator above it), where every receive variable has its declared value, so a
        proposition may read it there (cc's ``cond_init``: ``card(Proc:pc == V0 && Proc:nrcvd00
        == 0 ...)``); under ``[]``/``<>`` that is refused (``holds``)."""
        fixed = fixed or {}
        if isinstance(e, P.PName):
            if e.name in fixed:
                return BoolConst(fixed[e.name])
            if e.name in props:
                saved, self.receive_at_start = getattr(self, "receive_at_start", False), at_start
                try:
                    c = self.condition(self.prop(props[e.name].expr), props[e.name].expr.span)
                finally:
                    self.receive_at_start = saved
                if any(n.name.startswith(START) for n in _expr_names(c)):
                    raise _refuse(f"the proposition '{e.name}' mixes counters of the initialisation "
                                  "with location counters", props[e.name].expr.span)
                return c
            raise _refuse(f"'{e.name}' is not a proposition declared with 'atomic'", e.span)
        if isinstance(e, P.PUnary):
            arg = self.formula(e.arg, props, fixed, at_start and e.op == "!")
            return {"!": Not, "[]": Always, "<>": Eventually}[e.op](arg) if e.op in ("!", "[]", "<>") \
                else _bad(e)
        if isinstance(e, P.PBinary) and e.op in ("&&", "||", "->"):
            a, b = self.formula(e.left, props, fixed, at_start), self.formula(e.right, props, fixed, at_start)
            if e.op == "&&":  # `prec_init` (P@end) is true: leave it out
                return b if a == BoolConst(True) else a if b == BoolConst(True) else conj(a, b)
            if e.op == "->" and a == BoolConst(True):
                return b
            return disj(a, b) if e.op == "||" else Implies(a, b)
        raise _refuse("an ltl formula here must combine propositions declared with 'atomic'", e.span)

    def static_formula(self, ltl: P.Ltl, props: dict[str, P.AtomicProp]) -> Expr:
        """The formula of ``ltl``; propositions over counters of the initial 'if' (one value for
        the run) are evaluated in the initial configuration (``promela_multi.shannon``)."""
        static = []
        for name in dict.fromkeys(P.variable_names(ltl.formula)):
            if name in props and name not in static:
                self.receive_at_start = True  # only which counters it reads matters here
                try:
                    c = self.prop(props[name].expr)
                finally:
                    self.receive_at_start = False
                ns = [n.name for n in _expr_names(c)]
                if any(n.startswith(START) for n in ns):
                    if any(not n.startswith(START) and n not in self.params for n in ns):
                        raise _refuse(f"the proposition '{name}' mixes counters of the initialisation "
                                      "with location counters", props[name].expr.span)
                    static.append(name)
        if not static:
            return PM.simplify(self.formula(ltl.formula, props))
        from tactl.ir.expr import substitute  # lazy: only for static propositions

        starts = [self.names[k] for k in self.start_counts]
        at_start = {START + n: Name(n) for n in starts}
        total = summation(Name(starts[0]), [("+", Name(n)) for n in starts[1:]])
        copies = _lift(self.value(self.proc.copies, {}, True, "the copy count"))
        initial = [Compare("==", total, copies)] + [Compare(">=", Name(n), IntConst(0)) for n in starts]

        def value_at_start(name: str) -> object:
            c = substitute(self.condition(self.prop(props[name].expr), props[name].expr.span), at_start)
            if self.valid(c, initial):
                return True
            if self.valid(Not(c), initial):
                return False
            return c

        self.notes.append(Diagnostic(Severity.WARNING, (
            f"ltl {ltl.name}: {', '.join(static)} count{'s' if len(static) == 1 else ''} the options "
            "of the initial 'if', fixed for the whole run: evaluated in the initial configuration "
            "(the initial counts of " + ", ".join(starts) + ")"), ltl.span))
        return PM.shannon(lambda fixed: PM.simplify(self.formula(ltl.formula, props, fixed)), static,
                          value_at_start)

    def prop(self, e: P.PExpr) -> Expr:
        """A proposition over location counters and parameters."""
        if isinstance(e, P.PCall) and isinstance(e.arg, P.PAtLabel) and e.func == "all":
            return self.prop(e.arg)
        if isinstance(e, P.PCall):
            where = [loc for loc, key in zip(self.locations, self.valuations) if self.holds(e.arg, key)]
            every = list(self.locations)
            if self.dead is not None:  # the dead location is the crash location CR
                every.append(Location(CRASH_LOCATION))
                seen = {self.holds(e.arg, d) for d in self.dead_all}
                if len(seen) > 1:
                    raise _refuse("this proposition tells crashed processes apart by "
                                  f"{', '.join(v for i, v in enumerate(self.loc_vars()) if len({d[i] for d in self.dead_all}) > 1)}"
                                  ", where tactl's crash location CR is one location", e.span)
                if self.holds(e.arg, self.dead):
                    where.append(every[-1])
            if e.func == "all":
                others = [Compare("==", Name(loc.name), IntConst(0)) for loc in every if loc not in where]
                return conj(*others) if others else BoolConst(True)
            if e.func == "some":
                some = [Compare("!=", Name(loc.name), IntConst(0)) for loc in where]
                return disj(*some) if some else BoolConst(False)
            return summation(Name(where[0].name), [("+", Name(loc.name)) for loc in where[1:]]) if where else IntConst(0)
        if isinstance(e, P.PAtLabel):
            if e.proc != self.proc.name or e.label != "end":
                raise _refuse(f"only '{self.proc.name}@end' is supported", e.span)
            return BoolConst(True)  # every process is at end: once its initial choice is made
        if isinstance(e, P.PInt):
            return IntConst(e.value)
        if isinstance(e, P.PName):
            if e.name in self.params:
                return Name(e.name)
            if e.name in self.shared and e.name in self.init_values:
                return IntConst(self.init_values[e.name])  # fixed by the initialisation
            if e.name in self.shared and e.name in self.init_only:
                # counted by the initial 'if': the number of processes that took each option,
                # i.e. the initial counts of their locations (promela_multi.shannon)
                terms = [(k, Name(START + self.names[key])) for key, cs in self.start_counts.items()
                         for k in [cs.get(e.name, 0)] if k]
                if not terms:
                    return IntConst(0)
                parts = [t if k == 1 else Mul(IntConst(k), t) for k, t in terms]
                return summation(parts[0], [("+", t) for t in parts[1:]])
            if e.name in self.shared:
                raise _refuse(f"a proposition over the shared variable '{e.name}' (a receive "
                              "automaton's specifications read location counters and parameters)", e.span)
            raise _refuse(f"unknown name '{e.name}' in a proposition{self.defined_later(e.name, e.span)}",
                          e.span)
        if isinstance(e, P.PUnary) and e.op in ("!", "-"):
            a = self.prop(e.arg)
            return Not(a) if e.op == "!" else summation(IntConst(0), [("-", a)])
        if isinstance(e, P.PBinary):
            a, b = self.prop(e.left), self.prop(e.right)
            return _binary(e.op, a, b, e.span)  # type: ignore[return-value]
        raise _refuse("this proposition is not supported", e.span)

    def holds(self, e: P.PExpr, key: tuple) -> bool:
        env = dict(zip(self.loc_vars(), key))
        qualified = _qualify(e, self.proc.name)
        for name in P.variable_names(qualified):
            if name in self.rvar_of and getattr(self, "receive_at_start", False) and \
                    not any(name == r.rcv and self.initial_if_sets(name) for r in self.rvars):
                env[name] = self.locals[name]  # in the initial configuration: its declared value
            elif name in self.rvar_of:
                raise _refuse(f"a proposition over the receive variable '{name}' (read only where no "
                              "temporal operator is above it, in the initial configuration, and in the "
                              "fairness formula, whose meaning tactl derives)", e.span)
            if name in self.locals and name not in env:
                raise _refuse(f"a proposition over the temporary '{name}'", e.span)
        v = self.value(qualified, env, False, "a proposition")
        if not isinstance(v, bool) and not isinstance(v, int):
            raise _refuse("a process condition must depend on location variables only", e.span)
        return bool(v)

    def initial_if_sets(self, var: str) -> bool:
        """The initial ``if`` or the initialisation assigns ``var`` (then its declared value is not
        the one every process starts with)."""
        stmts = (self.init_if,) if self.init_if else ()
        return any(isinstance(t, (P.Assign, P.Incr, P.Havoc)) and t.var == var
                   for t in P.statements(stmts + tuple(self.init_atomics)))

    def fairness_note(self, ltl: P.Ltl, props: dict[str, P.AtomicProp], faults: Faults) -> Diagnostic:
        """Compare the file's fairness with the derived justice; the derived one is used. Each
        message type the step sends is compared with its own ``in_transit`` proposition."""
        if faults.model is FaultModel.BOUND:  # the delivery is the file's (what was dropped, and why)
            return promela_faults.fairness_note(self, ltl, self.reading)
        from tactl.ir.expr import to_text  # lazy: printing only for the note

        pairs = [(r.rcv, r.counter) for r in self.rvars if r.counter not in self.static]
        agree, derived_all = True, []
        for rcv_var, counter in pairs:
            guaranteed = guaranteed_delivery(faults.model, counter, faults.parameters,
                                             Name(faults.parameters[1]) if faults.model is FaultModel.SYMMETRIC else None)
            bounds = []
            for name in P.variable_names(ltl.formula):
                p = props.get(name)
                e = p.expr if p else None
                if isinstance(e, P.PCall) and e.func == "some" and isinstance(e.arg, P.PBinary) and \
                        e.arg.op == "<" and _var(_qualify(e.arg.left, self.proc.name)) == rcv_var:
                    lin = self.linear(e.arg.right)
                    bounds.append(summation(Name(sent(counter)) if lin.get(counter) == 1 else IntConst(0),
                                            [("+" if c > 0 else "-", Name(k) if k else IntConst(abs(c)))
                                             for k, c in lin.items() if k != counter for _ in range(abs(c) if k else 1)]))
            expected = guaranteed
            if faults.model is FaultModel.CLEAN_CRASH and len(faults.parameters) == 2:
                # ByMC's nsnt also counts the Fnc broadcasts clean crashes lose (it subtracts them);
                # tactl's crashed processes never make them: the same delivery, counted apart
                expected = summation(guaranteed, [("-", Name(faults.parameters[1]))])
            agree = agree and bool(bounds) and all(linearize(b) == linearize(expected) for b in bounds)
            derived = f"{to_text(guaranteed)} '{counter}' messages"
            if expected is not guaranteed:
                derived += (f" (the file's {to_text(substitute_sent(expected, counter))}: its "
                            f"'{counter}' also counts the broadcasts the {faults.parameters[1]} "
                            "clean crashes lose, which tactl's crashed processes never make)")
            derived_all.append(derived)
        derived = f"every correct receiver eventually has {' and '.join(derived_all)}, and a " \
                  "process whose rule stays enabled eventually takes it"
        if self.static:
            derived += (f"; the initialisation's {', '.join(self.static)} is delivered too (the file's "
                        "formula does not say so: its receive guards were eliminated, a rule that "
                        "needs it is unconditional)")
        if agree:
            msg = (f"ltl fairness: its delivery bound agrees with the justice tactl derives from "
                   f"faults {faults.model.value}({', '.join(faults.parameters)}) ({derived}); "
                   "liveness is checked under the derived justice, which also makes processes "
                   "move (the file's formula alone lets a process with nothing to receive stay put)")
        else:
            msg = (f"ltl fairness: its delivery bound differs from (or is not recognised as) the "
                   f"one tactl derives from faults {faults.model.value}({', '.join(faults.parameters)}) "
                   f"({derived}); liveness is checked under the derived justice, not the file's formula")
        return Diagnostic(Severity.WARNING, msg, ltl.span)


def substitute_sent(e: Expr, counter: str) -> Expr:
    """``e`` with the TA's ``ns_<counter>`` spelled as the file's counter."""
    from tactl.ir.expr import substitute  # lazy: only for the note

    return substitute(e, {sent(counter): Name(counter)})


def to_p(e: P.PExpr) -> str:
    if isinstance(e, P.PInt):
        return str(e.value)
    if isinstance(e, P.PName):
        return e.name
    if isinstance(e, P.PBinary):
        return f"{to_p(e.left)} {e.op} {to_p(e.right)}"
    return "?"


def _var(e: P.PExpr) -> str | None:
    if isinstance(e, P.PName):
        return e.name
    if isinstance(e, P.PQualified):
        return e.var
    return None


def _qualify(e: P.PExpr, proc: str) -> P.PExpr:
    """``Proc:pc`` → ``pc`` (refusing another proctype's name)."""
    if isinstance(e, P.PQualified):
        if e.proc != proc:
            raise _refuse(f"unknown proctype '{e.proc}'", e.span)
        return P.PName(name=e.var, span=e.span)
    if isinstance(e, P.PUnary):
        return P.PUnary(op=e.op, arg=_qualify(e.arg, proc), span=e.span)
    if isinstance(e, P.PBinary):
        return P.PBinary(op=e.op, left=_qualify(e.left, proc), right=_qualify(e.right, proc), span=e.span)
    if isinstance(e, P.PCall):
        raise _refuse(f"'{e.func}' nested inside a process condition", e.span)
    return e


def _is_condition(e: Expr) -> bool:
    if isinstance(e, (Compare, BoolConst)):
        return True
    if isinstance(e, (And, Or)):
        return all(_is_condition(a) for a in e.args)
    if isinstance(e, Not):
        return _is_condition(e.arg)
    return False


def _lift(v: object) -> Expr:
    if isinstance(v, bool):
        return BoolConst(v)
    if isinstance(v, int):
        return const(v)  # a negative one too: '#define M -1' makes 'T - M' the text 'T - -1' (D1)
    assert isinstance(v, Expr), v
    return v


def _dedupe(items: list[Expr]) -> list[Expr]:
    out: list[Expr] = []
    for a in items:
        if a not in out:
            out.append(a)
    return out


def _lower_bound(a: Expr, counter: str) -> bool:
    """``received(M) >= e`` or ``> e`` with ``e`` free of the receive count: upward closed."""
    rcv = received(counter)
    return (isinstance(a, Compare) and a.op in (">=", ">") and a.left == rcv
            and rcv not in _expr_names(a.right))


def _expr_names(e: Expr) -> list[Name]:
    from tactl.ir.expr import names  # lazy: avoids widening the module's import list

    return list(names(e))


def _is_received(v: object, counter: str) -> bool:
    return isinstance(v, Name) and v.name == received(counter).name


def _negate_any(guards: list[object]) -> object:
    if any(g is True or (isinstance(g, int) and not isinstance(g, bool) and g) for g in guards):
        return False
    rest = [_lift(g) for g in guards if g is not False and not (isinstance(g, int) and not g)]
    return Not(disj(*rest)) if rest else True


_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _is_term(v: object) -> bool:
    """An arithmetic value: an int (not a truth value) or an arithmetic expression."""
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, Expr) and not _is_condition(v))


def _is_truth(v: object) -> bool:
    return isinstance(v, bool) or (isinstance(v, Expr) and _is_condition(v))


def _binary(op: str, a: object, b: object, span: Span | None) -> object:
    if op in ("&&", "||"):
        if not ((_is_truth(a) or isinstance(a, int)) and (_is_truth(b) or isinstance(b, int))):
            raise _refuse(f"the operands of '{op}' must be conditions", span)
    elif not (_is_term(a) and _is_term(b)):
        raise _refuse(f"the operands of '{op}' must be numbers", span)
    concrete = not isinstance(a, Expr) and not isinstance(b, Expr)
    if op in _CMP:
        return _CMP[op](a, b) if concrete else Compare(op, _lift(a), _lift(b))
    if op == "&&":
        if concrete:
            return bool(a) and bool(b)
        if b is True:
            return a
        if b is False:
            return False
        if a is True:
            return b
        return conj(_lift(a), _lift(b))
    if op == "||":
        if concrete:
            return bool(a) or bool(b)
        if b is False:
            return a
        if b is True:
            return True
        if a is False:
            return b
        return disj(_lift(a), _lift(b))
    if op in "+-":
        if not concrete and isinstance(b, int) and not isinstance(b, bool) and b < 0:
            op, b = "+-"[op == "+"], -b  # 'T - -1' (a macro's text, D1) is T + 1
        return (a + b if op == "+" else a - b) if concrete else summation(_lift(a), [(op, _lift(b))])  # type: ignore[operator]
    if op == "*":
        if concrete:
            return a * b  # type: ignore[operator]
        if isinstance(a, int) or isinstance(b, int):
            return Mul(_lift(a), _lift(b))
    raise _refuse(f"the operator '{op}' is not supported here", span)


def _bad(e: P.PExpr) -> Expr:
    raise _refuse(f"'{getattr(e, 'op', '?')}' in an ltl formula", e.span)
