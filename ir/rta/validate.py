"""Semantic checks of a receive threshold automaton, reported as positioned diagnostics.

Where a name may appear follows what each part means: a rule guard reads parameters and receive
variables ``received(M)`` of declared messages (a process sees what it received, not how many
processes are where); the resilience condition reads parameters; specifications read location
counters and parameters, as in ``.ta`` (an RTA has no shared variables). Message types have a
namespace of their own (they only occur under ``received(…)`` and after ``send``); parameters
and locations share one, as both occur in specifications.

**The justice.** A specification of an asynchronous automaton may name the justice derived from its
fault model (``passes/rta_to_ta/fairness.py``) as a condition, ``<>[](fair) -> …``, to place it
itself. The name is not reserved: it is ``fair`` unless the automaton declares ``fair`` as a
parameter or location, then ``fair_`` (``fair__``, …; :func:`ir.rta.justice_name`), so no existing
model changes meaning and ``tactl translate`` prints the name in use. Only specifications may name
it, only as a condition (not in a term), and synchronous automata have none (every message is
received in its round; docs/faults.md, "Liveness: the justice is derived, not written").
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from tactl.ir.errors import Diagnostic, DiagnosticSink, Span
from tactl.ir.expr import Expr, Mul, Name, to_text, walk
from tactl.ir.linear import NonLinearError, linearize
from tactl.ir.names import MAX_LENGTH, identifier_problem
from tactl.ir.rta.model import (
    BOUND_TERMS,
    CRASH_COUNTER,
    FAULT_MODEL_NAMES,
    FaultModel,
    CRASH_LOCATION,
    CRASH_MODELS,
    fault_arity_text,
    ReceiveRule,
    ReceiveTA,
    Timing,
    condition_names,
    justice_name,
    received_message,
)
from tactl.ir.rta.coordinator import is_async_coordinator, shape_problems
from tactl.ir.alg.hypothesis import CLEAN_ROUND, CORRECT_COORDINATOR, FEW_CRASHES
from tactl.ir.ta.model import Property
from tactl.ir.ta.validate import ExpressionChecks
from tactl.ir.unknowns import is_unknown, linear_form, split_product, unknown_names

# A required section the file does not have (the reader says it too, with the same words).
_MISSING = {
    "faults": "missing 'faults' section: declare the fault model, e.g. 'faults byzantine(f);' "
              f"(models: {FAULT_MODEL_NAMES})",
    "timing": "missing 'timing' section: write 'timing async;' or 'timing sync;'",
    "locations": "missing 'locations' section: list the control locations, e.g. 'locations V0, V1, AC;'",
    "initial": "missing 'initial' section: list the initial locations, e.g. 'initial V0, V1;'",
}


def missing_section_message(section: str) -> str:
    """What the reader and the validator say when a required section is missing."""
    return _MISSING[section]


_WHY = {
    "a rule guard": "guards read parameters and receive variables only",
    "the resilience condition": "the resilience condition constrains parameters only",
    "a specification": "formulas read location counters and parameters",
}


def validate_rta(rta: ReceiveTA) -> list[Diagnostic]:
    sink = DiagnosticSink()
    _Checker(rta, sink).run()
    return sink.items


def _at(span: Span | None) -> str:
    return f" at {span.line}:{span.col}" if span else ""


class _Checker(ExpressionChecks):
    def __init__(self, rta: ReceiveTA, sink: DiagnosticSink) -> None:
        self.rta, self.sink = rta, sink
        self.parameters = set(rta.parameters)
        self.locations = {loc.name for loc in rta.locations}
        # specifications may also name what a crash model adds to the TA
        self.generated = {CRASH_LOCATION, CRASH_COUNTER} - self.locations - self.parameters \
            if rta.faults.model in CRASH_MODELS else set()
        # crash locations that keep the state (ir/rta/model.py): named by specifications, replacing CR
        self.crashed = {loc.name for loc in rta.crash_locations}
        if self.crashed:
            self.generated = (self.generated - {CRASH_LOCATION}) | self.crashed
        self.messages = {m.name for m in rta.messages}
        self.justice = justice_name(rta) if rta.timing is Timing.ASYNC else None
        self.bare: set[int] = set()  # ids of the names standing as conditions in the expression

    def expression(self, e: Expr, allowed, context: str) -> None:
        """The shared checks, with names that stand as conditions checked by :meth:`condition`."""
        self.bare = {id(n) for n in condition_names(e)}
        try:
            super().expression(e, allowed, context)
        finally:
            self.bare = set()

    def condition(self, n: Name, context: str) -> None:
        """A bare name where a truth value is expected: only the justice, in a specification."""
        justice = (f"; '{self.justice}' is the justice derived from the fault model"
                   if self.justice and n.name == self.justice else "")
        if context != "a specification":
            self.sink.error(f"expected a condition, found the term '{n.name}' (compare it with "
                            f"something, e.g. '>= 1'){justice}"
                            + (", which only specifications can assume" if justice else ""), n.span)
        elif self.justice is None:
            self.sink.error(f"'{n.name}' would name the justice derived from the fault model, and "
                            "a synchronous automaton has none (every message is received in its "
                            "round): remove it", n.span)
        elif n.name == self.justice:
            return
        elif n.name in self.parameters or n.name in self.locations:
            what = "parameter" if n.name in self.parameters else "location"
            self.sink.error(f"the {what} '{n.name}' is not a condition: compare it (e.g. "
                            f"'{n.name} == 0'); the justice derived from the fault model is called "
                            f"'{self.justice}' in this automaton, as '{n.name}' is declared", n.span)
        else:
            self.sink.error(f"unknown condition '{n.name}': the justice derived from the fault "
                            f"model is called '{self.justice}' in this automaton", n.span)

    def run(self) -> None:
        self.declarations()
        self.faults()
        for e in self.rta.assumptions:
            self.expression(e, {"parameter", "unknown"}, "the resilience condition")
        self.unknowns()
        self.initial()
        self.rules()
        self.crash_rules()
        self.properties()

    # ---------------------------------------------------------------------------- declarations
    def declarations(self) -> None:
        seen: dict[str, tuple[str, Span | None]] = {}
        params = [(n, s) for section, n, s in self.rta.declared_at if section == "parameters"]
        if not params:  # built in code, not read: no positions
            params = [(n, None) for n in self.rta.parameters]
        for name, span in params:
            self.claim(seen, name, "parameter", span)
            self.reserved(name, "parameter", span)
        for loc in self.rta.locations:
            self.claim(seen, loc.name, "location", loc.span)
            self.reserved(loc.name, "location", loc.span)
        for loc in self.rta.crash_locations:
            self.claim(seen, loc.name, "crash location", loc.span)
            self.reserved(loc.name, "crash location", loc.span)
        messages: dict[str, Span | None] = {}
        names = {m.name for m in self.rta.messages}
        warned: set[str] = set()
        for m in self.rta.messages:
            problem = identifier_problem(m.name) or (
                f"the message name '{m.name[:40]}…' is {len(m.name)} characters long (at most "
                f"{MAX_LENGTH - 4}, so that its counter nsf_{m.name[:8]}… is a name too)"
                if len(m.name) > MAX_LENGTH - 4 else None)
            if problem:
                self.sink.error(problem, m.span)
            if m.kind is not None and identifier_problem(m.kind):
                self.sink.error(identifier_problem(m.kind), m.span)
            if m.kind is not None and m.kind in names and m.kind not in warned:
                warned.add(m.kind)
                self.sink.warning(f"the kind '{m.kind}' has the name of a message type: a kind groups "
                                  "message types (a faulty sender sends at most one of them to each "
                                  "receiver), so 'send' and 'received(…)' of that name mean the type, "
                                  "never the kind; rename one of them", m.span)
            if m.name in messages:
                self.sink.error(f"message '{m.name}' is already declared{_at(messages[m.name])}",
                                m.span)
            else:
                messages[m.name] = m.span
        for section, present in (("locations", self.rta.locations), ("initial", self.rta.initial)):
            if not present:
                self.sink.error(missing_section_message(section), self.rta.span)
        for name in self.rta.coordinator:
            if name not in names:
                self.sink.error(f"coordinator message '{name}' is not declared in 'messages'", self.rta.span)
        if is_async_coordinator(self.rta) and self.rta.faults.model is not FaultModel.BYZANTINE:
            self.sink.error("'coordinator' in an asynchronous automaton is modelled under byzantine "
                            f"faults only, not {self.rta.faults.model.value} (a crashing coordinator "
                            "that reaches some receivers only is not modelled)", self.rta.span)
        for problem, span in shape_problems(self.rta):  # ir/rta/coordinator.py
            self.sink.error(problem, span or self.rta.span)

    def reserved(self, name: str, what: str, span: Span | None) -> None:
        """Refuse a name the translation gives to something it adds to the TA: the counters of
        sent messages (``ns_M``, and ``nsf_M`` for crashes mid-send) and of crashed processes.
        Reserved under every fault model, so changing the model never changes what a name means."""
        why = None
        if name == CRASH_COUNTER:
            why = "the translation counts crashed processes in it"
        for m in self.rta.messages:
            if name == f"ns_{m.name}":
                why = f"the translation counts sent {m.name} messages in it"
            elif name == f"nsf_{m.name}":
                why = f"the translation counts {m.name} messages sent by crashing processes in it"
        if why:
            self.sink.error(f"the {what} name '{name}' is reserved: {why}; rename this {what}", span)

    def claim(self, seen: dict, name: str, what: str, span: Span | None) -> None:
        problem = identifier_problem(name)  # the one definition of a name, for every input path
        if problem:
            self.sink.error(problem, span)
        if name in seen:
            first_what, first_span = seen[name]
            self.sink.error(f"'{name}' is already declared as a {first_what}{_at(first_span)}", span)
        else:
            seen[name] = (what, span)

    def faults(self) -> None:
        f = self.rta.faults
        model = f.model.value
        if f.model is FaultModel.BOUND:
            self.bound_terms(f)
        if len(f.parameters) not in f.arities:
            self.sink.error(f"fault model '{model}' takes {fault_arity_text(f.model)}, "
                            f"found {len(f.parameters)}", f.span)
        spans = f.parameter_spans or (f.span,) * len(f.parameters)
        n = self.rta.parameters[0] if self.rta.parameters else None
        for k, (name, span) in enumerate(zip(f.parameters, spans)):
            if name not in self.parameters:
                self.sink.error(f"fault parameter '{name}' is not a declared parameter"
                                + suggest(name, self.rta.parameters), span)
            elif name == n:
                self.sink.error(f"the fault parameter '{name}' is the number of processes (the first "
                                "parameter): it counts the faulty processes, so declare a parameter "
                                f"of its own, e.g. 'parameters {n}, t, f;' and '{model}(f)'", span)
            elif name in f.parameters[:k]:
                self.sink.error(f"'{name}' is given twice: hybrid(b, c) counts Byzantine faults in b "
                                "and crash faults in c, two different parameters", span)

    def bound_terms(self, f) -> None:
        """``bound(processes: …; receive: …; deliver: …)``: linear terms over the parameters, and
        the guaranteed delivery no larger than the bound (``deliver - receive`` has no positive
        coefficient and no positive constant: parameters are natural numbers), else the justice
        would demand messages Env never lets arrive and make every liveness property vacuous."""
        for label, term in zip(BOUND_TERMS, f.terms):
            span = term.span or f.span
            try:
                lin = linearize(term)
            except NonLinearError:
                self.sink.error(f"'{label}:' must be linear in the parameters", span)
                continue
            for x, _ in lin.coeffs:
                if x not in self.parameters:
                    self.sink.error(f"'{x}' in '{label}:' is not a declared parameter"
                                    + suggest(x, self.rta.parameters), span)
        if len(f.terms) == 3:
            try:
                gap = linearize(f.terms[2]) - linearize(f.terms[1])
            except NonLinearError:
                return
            if gap.const > 0 or any(c > 0 for _, c in gap.coeffs):
                self.sink.error("'deliver:' may exceed 'receive:' (a receiver would be guaranteed "
                                "more messages than it can receive): write a delivery at most the "
                                "bound", f.terms[2].span or f.span)

    def initial(self) -> None:
        at = [(n, s) for section, n, s in self.rta.declared_at if section == "initial"]
        if not at:  # built in code, not read: no positions
            at = [(n, self.rta.span) for n in self.rta.initial]
        for name, span in at:
            self.location_ref(name, span)

    # ----------------------------------------------------------------------------------- rules
    def rules(self) -> None:
        first_with_id: dict[int, ReceiveRule] = {}
        for index, r in enumerate(self.rta.rules, start=1):
            if r.id in first_with_id:
                first = first_with_id[r.id]
                line = f" (line {first.span.line})" if first.span else ""
                self.sink.warning(f"rule id {r.id} is used again{line}; both rules are kept and "
                                  f"this one is rule #{index} of the file", r.span)
            else:
                first_with_id[r.id] = r
            self.location_ref(r.source, r.source_span or r.span)
            self.location_ref(r.target, r.target_span or r.span)
            self.expression(r.guard, {"parameter", "received", "unknown"}, "a rule guard")
            self.sends(r)

    def crash_rules(self) -> None:
        """``crash rules``: from a location into a crash location; sends (partial ones) only where
        a crash may cut a broadcast short (crash, hybrid), crash fault models only; from a crash
        location into another, a crashed process's own step (no sends, asynchronous only); in lock-step
        rounds (crash, timing sync) a crashed process keeps its round's start: no guard, no sends
        (passes/rta_to_sync/sync_ta.py checks that)."""
        model = self.rta.faults.model
        sync_crash = model is FaultModel.CRASH and self.rta.timing is Timing.SYNC
        if (self.rta.crash_locations or self.rta.crash_rules) and not sync_crash and (
                model not in CRASH_MODELS or self.rta.timing is not Timing.ASYNC):
            self.sink.error("crash locations and crash rules need a crash fault model (crash, "
                            "clean_crash, hybrid; crash only in lock-step rounds), not "
                            f"{model.value} {self.rta.timing.value}", self.rta.span)
            return
        for r in self.rta.crash_rules:
            if r.source in self.crashed:  # a crashed process's own step (ir/rta/model.py)
                if r.sends:
                    self.sink.error("a crash rule between crash locations (a crashed process "
                                    "changing what it kept) sends nothing", r.span)
                if sync_crash:
                    self.sink.error("in lock-step rounds a crash location keeps the state of the "
                                    "round's start: no crash rule leaves it", r.source_span or r.span)
            else:
                self.location_ref(r.source, r.source_span or r.span)
            if r.target not in self.crashed:
                self.sink.error(f"a crash rule enters a crash location, not '{r.target}'"
                                + suggest(r.target, self.crashed), r.target_span or r.span)
            self.expression(r.guard, {"parameter", "received", "unknown"}, "a rule guard")
            self.sends(r)
            if r.sends and model is FaultModel.CLEAN_CRASH:
                self.sink.error("a clean crash falls between steps: a crash rule sends nothing",
                                r.span)

    def sends(self, r: ReceiveRule) -> None:
        spans = r.send_spans or (r.span,) * len(r.sends)
        sent: set[str] = set()
        for m, span in zip(r.sends, spans):
            if m not in self.messages:
                self.sink.error(f"unknown message '{m}' in 'send'" + suggest(m, self.messages), span)
            elif m in sent:
                self.sink.error(f"message '{m}' is sent twice in rule {r.id}", span)
            sent.add(m)

    def location_ref(self, name: str, span: Span | None) -> None:
        if name in self.locations or not self.locations:  # no locations: reported once, above
            return
        if name in self.parameters:
            self.sink.error(f"'{name}' is a parameter, not a location", span)
        else:
            self.sink.error(f"unknown location '{name}'" + suggest(name, self.locations), span)

    # ------------------------------------------------------------------------------ properties
    def properties(self) -> None:
        seen: dict[str, Span | None] = {}
        if identifier_problem(self.rta.name):
            self.sink.error(f"automaton name: {identifier_problem(self.rta.name)}", self.rta.span)
        for p in self.rta.properties:
            if identifier_problem(p.name):
                self.sink.error(identifier_problem(p.name), p.span)
            if p.name in seen:
                self.sink.error(f"property '{p.name}' is already defined{_at(seen[p.name])}", p.span)
            seen.setdefault(p.name, p.span)
            self.expression(p.formula, {"parameter", "location"}, "a specification")
            if p.hypothesis is not None:
                self.hypothesis(p)

    def hypothesis(self, p: Property) -> None:
        """``NAME assuming …``: a hypothesis tactl knows, that lock-step rounds under this fault
        model can have (the engine checks the property in rounds after one of that kind)."""
        h = p.hypothesis
        assert h is not None
        span = h.span or p.span
        if not h.known:
            self.sink.error(f"property '{p.name}': unknown hypothesis 'assuming {h.text()}'; write "
                            "'assuming clean round', 'assuming round with at most K crashes' or "
                            "'assuming correct coordinator'", span)
        elif self.rta.timing is not Timing.SYNC and not (
                h.kind == CORRECT_COORDINATOR and is_async_coordinator(self.rta)):
            # (an asynchronous coordinator's is the premise cf == 0: passes/rta_to_ta/coordinator.py)
            self.sink.error(f"property '{p.name}': a hypothesis ('assuming {h.text()}') is about "
                            "lock-step rounds, which only synchronous automata (timing sync) have; "
                            "it is not supported for an asynchronous automaton", span)
        elif h.kind in (CLEAN_ROUND, FEW_CRASHES) and self.rta.faults.model in (
                FaultModel.CLEAN_CRASH, FaultModel.HYBRID):
            # such rounds happen under these models too: what is missing is their lock-step model
            self.sink.error(f"property '{p.name}': 'assuming {h.text()}' is checked in lock-step "
                            f"rounds, which tactl models for crash and byzantine faults only, not "
                            f"{self.rta.faults.model.value} (write the algorithm with faults "
                            f"crash(f) to check it under this hypothesis)", span)
        elif h.kind in (CLEAN_ROUND, FEW_CRASHES) and self.rta.faults.model is not FaultModel.CRASH:
            self.sink.error(f"property '{p.name}': 'assuming {h.text()}' is about rounds in which "
                            f"processes crash, which needs crash faults, not "
                            f"{self.rta.faults.model.value} (the hypothesis could never be met)", span)
        elif h.kind == CORRECT_COORDINATOR and not self.rta.coordinator:
            self.sink.error(f"property '{p.name}': 'assuming {h.text()}' needs coordinator messages "
                            "(a 'coordinator M, …;' declaration: the messages only a round's king or "
                            "queen sends); this automaton has none", span)

    # ----------------------------------------------------------------------------- expressions
    def name_ref(self, n: Name, allowed: set[str], context: str) -> None:
        if id(n) in self.bare:
            self.condition(n, context)
            return
        if is_unknown(n.name):
            declared = {u.name for u in self.rta.unknowns}
            if n.name not in declared:
                self.sink.error(f"the unknown '{n.name}' is not declared: add it to 'unknowns' with "
                                f"its range, e.g. 'unknowns {n.name} in 0..3;'"
                                + suggest(n.name, declared), n.span)
            elif "unknown" not in allowed:
                self.sink.error(f"the unknown '{n.name}' cannot appear in {context}: unknowns are "
                                "coefficients of rule guards and of the resilience condition", n.span)
            return
        message = received_message(n.name)
        if message is not None:
            if "received" not in allowed:
                self.sink.error(f"'{n.name}' can only appear in a rule guard, not in {context} "
                                "(a receive variable is local to one process's step)", n.span)
            elif message not in self.messages:
                self.sink.error(f"unknown message '{message}' in '{n.name}'"
                                + suggest(message, self.messages), n.span)
            return
        kind = ("parameter" if n.name in self.parameters
                else "location" if n.name in self.locations else None)
        why = f" ({_WHY[context]})" if context in _WHY else ""
        if kind is None:
            if context == "a specification" and n.name in self.generated:
                return
            if "location" in allowed and not self.locations:
                return  # a missing 'locations' section is reported once
            pool = [*self.rta.parameters, *(self.locations if "location" in allowed else ())]
            hint = suggest(n.name, pool)
            if not hint and n.name == self.justice and context == "a specification":
                hint = (f"; '{n.name}' names the justice derived from the fault model, a condition "
                        f"(e.g. '<>[]({n.name}) -> …'), not a number")
            if not hint and "received" in allowed and n.name in self.messages:
                hint = f"; did you mean 'received({n.name})'?"
            self.sink.error(f"unknown name '{n.name}' in {context}" + hint, n.span)
        elif kind not in allowed:
            self.sink.error(f"the {kind} '{n.name}' cannot appear in {context}{why}", n.span)

    def product(self, node: Mul) -> None:
        if unknown_names(node):
            self.unknown_product(node)
            return
        try:
            left, right = linearize(node.left), linearize(node.right)
        except (NonLinearError, TypeError):
            return  # a nested product is reported on its own
        if not (left.is_constant or right.is_constant):
            self.sink.error(str(NonLinearError(node)), node.span)


    def unknown_product(self, node: Mul) -> None:
        """An unknown times a parameter (``?a * n``, ``?a * (n + t)``) is linear once the unknown
        is fixed; two unknowns multiplied, or an unknown times a receive variable, is not."""
        try:
            form = linear_form(node)
        except NonLinearError:
            names = unknown_names(node)
            what = ("two unknowns multiplied" if len(names) > 1 else
                    f"the unknown '{names[0]}' multiplies a non-constant term that is not linear")
            self.sink.error(f"{what} in '{to_text(node)}': an unknown coefficient multiplies a "
                            "parameter or a constant", node.span)
            return
        for key in form.variables():
            parts = split_product(key)
            if parts and received_message(parts[1]) is not None:
                self.sink.error(f"the unknown '{parts[0]}' multiplies the receive variable "
                                f"'{parts[1]}': an unknown coefficient multiplies a parameter or a "
                                "constant", node.span)
                return

    def unknowns(self) -> None:
        """Unknowns (ir/unknowns.py): their names in the TA (without ``?``) are free, their
        ``where`` constraints relate unknowns only, and each is used somewhere (a warning)."""
        taken = {*self.parameters, *self.locations, *self.crashed, CRASH_LOCATION, CRASH_COUNTER,
                 *(f"{p}_{m}" for m in self.messages for p in ("ns", "nsf"))}
        for u in self.rta.unknowns:
            problem = identifier_problem(u.bare)
            if problem:
                self.sink.error(problem, u.span)
            elif u.bare in taken:
                self.sink.error(f"the unknown '{u.name}' is written '{u.bare}' in the threshold "
                                f"automaton, which already has a '{u.bare}' (a parameter, location "
                                "or counter): rename the unknown", u.span)
        declared = {u.name for u in self.rta.unknowns}
        for e in self.rta.unknown_constraints:
            for n in walk(e):
                if isinstance(n, Name) and n.name not in declared:
                    what = "undeclared unknown" if is_unknown(n.name) else "name"
                    self.sink.error(f"the {what} '{n.name}' in a 'where' constraint: it relates "
                                    "declared unknowns only", n.span)
                elif isinstance(n, Mul):
                    self.unknown_product(n)
        used = {x for e in (*self.rta.assumptions, *(r.guard for r in (*self.rta.rules,
                                                                          *self.rta.crash_rules)))
                for x in unknown_names(e)}
        for u in self.rta.unknowns:
            if u.name not in used:
                self.sink.warning(f"the unknown '{u.name}' is declared but no threshold or "
                                  "resilience condition uses it: every value of its range is a "
                                  "solution alike", u.span)


def suggest(name: str, pool: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(pool), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""
