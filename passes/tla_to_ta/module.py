"""A TLA+ module of the fragment (docs/tla.md) → a threshold automaton (``ir/ta/model.py``).

Two ways of writing a threshold automaton in TLA+ are read:

* TACO's (``examples/tla/`` of pleich/TACO): ``CONSTANTS Processes, NbOfCorrProc, …``, a
  variable ``ProcessesLocations`` whose type in ``TypeOk`` lists the locations, ``Init`` saying
  where processes start, rules ``RuleK(p)`` and ``Next == \\E p \\in Processes: Rule0(p) \\/ …``;
  ``ASSUME NbOfCorrProc = N - F`` is how many processes the automaton runs.
* a counter system (e.g. ``lmcs20/Tendermint_1round_safety.tla`` of
  konnov/fault-tolerant-benchmarks): one variable maps every location to its counter
  (``Init`` sets it with ``[l \\in Locs |-> …]``), a step is ``[counters EXCEPT !["A"] = @ - 1,
  !["B"] = @ + 1]``; function-valued variables over strings become one shared variable per entry.

Every other definition that is a condition and that nothing else uses is a property; one with no
temporal operator is a state predicate, which TLA+ tools check as an invariant (``INVARIANT`` in
TLC's configuration): it is checked as ``[](P)``, with a warning saying so.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.errors import Diagnostic, DiagnosticSink, Span
from tactl.ir.expr import Always, BoolConst, Compare, Expr, IntConst, Name, const, is_arith, summation
from tactl.ir.ta.model import Location, Property, ThresholdAutomaton
from tactl.ir.tla.reader import FragmentError
from tactl.ir.tla.syntax import Definition, Module, Node
from tactl.passes.tla_to_ta.actions import Model, PROCESS, disjuncts, rule_of
from tactl.passes.tla_to_ta.values import (CORRECT, LOCATIONS, PROCESSES, Function, Scope, Special,
                                           finite, formula, identifier, is_temporal_free, term, value)

# Definitions with a meaning of their own, never properties.
RESERVED = {"Init", "Next", "Spec", "TypeOk", "TypeOK"}
TYPE_OK = ("TypeOk", "TypeOK")


@dataclass
class Translation:
    ta: ThresholdAutomaton
    warnings: list[Diagnostic]


def translate_module(module: Module, path: str) -> Translation:
    """The threshold automaton ``module`` describes; a :class:`FragmentError` for what it cannot
    say."""
    variables = dict(module.names("variables"))
    constants = dict(module.names("constants"))
    anchor = next((d.span for d in module.declarations if d.keyword == "variables"), None)
    if anchor is None:
        raise FragmentError("no VARIABLES: a threshold automaton's module declares its variables "
                            f"({LOCATIONS} or a counter variable, and the shared variables)",
                            module.definitions[0].span if module.definitions else None)
    defs: dict[str, Definition] = {}
    for d in module.definitions:
        if d.name in defs:
            first = defs[d.name].span
            raise FragmentError(f"'{d.name}' is defined twice" + (f" (first at line {first.line})" if first else "")
                                + ": TLA+ does not allow redefining an operator", d.span)
        defs[d.name] = d
    sink = DiagnosticSink()
    taco = LOCATIONS in variables
    parameters = [c for c in constants if c not in (PROCESSES, CORRECT)]
    symbols: dict = {p: Name(identifier(p, s)) for p, s in constants.items() if p in parameters}
    assumptions, correct = _assumptions(module, Scope(defs, symbols), taco, constants)
    if taco:
        symbols[LOCATIONS] = Special(LOCATIONS)
        locations = _taco_locations(defs, variables[LOCATIONS])
        shared = {v: Name(identifier(v, s)) for v, s in variables.items() if v != LOCATIONS}
        location_var = LOCATIONS
    else:
        location_var, locations, shared = _counter_layout(defs, Scope(defs, symbols), variables, anchor)
        symbols[location_var] = Function(location_var, tuple((k, Name(identifier(k, None))) for k in locations))
    symbols.update(shared)
    scope = Scope(defs, symbols, locations=tuple(locations))
    inits = _inits(defs, scope, taco, correct, locations, location_var, anchor)
    model = Model(location_var, not taco, shared, path)
    rules = _rules(defs, scope, model, sink, anchor)
    used = _referenced(module)
    properties = []
    for d in module.definitions:
        if d.params or d.name in RESERVED or d.name in used:
            continue
        v = value(d.body, scope.entering(d.name, d.span))
        if not isinstance(v, Expr) or isinstance(v, BoolConst) or is_arith(v) or _is_constant(v, parameters):
            continue
        if is_temporal_free(v):
            sink.warning(f"'{d.name}' is a state predicate: checked as the invariant [](...) (as TLC's "
                         "INVARIANT would); write [](...) or an ELTL formula to say otherwise", d.span)
            v = Always(v, span=v.span)
        properties.append(Property(identifier(d.name, d.span), v, span=d.span))
    entries = [n.name for v in shared.values() for n in ([e for _, e in v.entries] if isinstance(v, Function) else [v])]
    ta = ThresholdAutomaton(
        name=identifier(module.name or "tla", None), shared=tuple(entries),
        parameters=tuple(identifier(p, None) for p in parameters), assumptions=tuple(assumptions),
        locations=tuple(Location(identifier(loc, None)) for loc in locations), inits=tuple(inits),
        rules=tuple(rules), properties=tuple(properties))
    return Translation(ta, sink.items)


def _is_constant(v: Expr, parameters: list[str]) -> bool:
    """A condition over parameters only (e.g. a resilience condition spelled as a definition)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, Name) and x.name not in parameters:
            return False
        stack.extend(x.children())
    return True


def _conjuncts(node: Node) -> list[Node]:
    return [c for a in node.args for c in _conjuncts(a)] if node.op == "and" else [node]


def _assumptions(module: Module, scope: Scope, taco: bool, constants: dict) -> tuple[list[Expr], Expr | None]:
    """The resilience condition, and (TACO's fragment) the number of correct processes."""
    out, correct = [], None
    for a in module.assumptions:
        for c in _conjuncts(a.expr):
            if taco and c.op == "compare" and any(x.op == "name" and x.text == CORRECT for x in c.args):
                side = c.args[1] if c.args[0].op == "name" and c.args[0].text == CORRECT else c.args[0]
                if c.text != "=" or correct is not None:
                    raise FragmentError(f"the number of correct processes is given once, as '{CORRECT} = "
                                        "<term over the parameters>'", c.span)
                correct = term(side, scope)
                continue
            out.append(formula(c, scope))
    if taco and correct is None:
        raise FragmentError(f"no ASSUME {CORRECT} = ...: how many processes run (e.g. "
                            f"'ASSUME {CORRECT} = N - F') is part of the fragment",
                            constants.get(CORRECT) or next(iter(constants.values()), None))
    return out, correct


def _location_set(node: Node, what: str) -> list[str]:
    """The locations of ``[Processes -> {"A", "B"}]``."""
    if (node.op != "fn_set" or node.args[0].op != "name" or node.args[0].text != PROCESSES
            or node.args[1].op != "set" or any(a.op != "string" for a in node.args[1].args)):
        raise FragmentError(f'{what} is written {LOCATIONS} \\in [{PROCESSES} -> {{"loc1", "loc2", ...}}]',
                            node.span)
    return [a.text for a in node.args[1].args]


def _taco_locations(defs: dict[str, Definition], declared: Span) -> list[str]:
    typeok = next((defs[n] for n in TYPE_OK if n in defs), None)
    if typeok is None:
        raise FragmentError(f"no TypeOk: the fragment reads the locations from TypeOk's "
                            f'{LOCATIONS} \\in [{PROCESSES} -> {{"loc1", ...}}]', declared)
    found = None
    for c in _conjuncts(typeok.body):
        if c.op != "member":
            raise FragmentError("TypeOk is a conjunction of 'x \\in Nat' and the type of " + LOCATIONS, c.span)
        if c.args[0].op == "name" and c.args[0].text == LOCATIONS:
            found = _location_set(c.args[1], "the type of " + LOCATIONS)
        elif not (c.args[1].op == "name" and c.args[1].text == "Nat"):
            raise FragmentError("a shared variable of a threshold automaton is a natural number: 'x \\in Nat'",
                                c.args[1].span)
    if found is None:
        raise FragmentError(f"TypeOk does not give the type of {LOCATIONS} (its locations)", typeok.span)
    return found


def _counter_layout(defs: dict[str, Definition], scope: Scope, variables: dict, anchor: Span | None):
    """The counter variable (the one whose updates move processes), its locations, and the other
    variables as shared variables (function-valued ones: one per entry, domains from ``Init``)."""
    init = defs.get("Init")
    if init is None:
        raise FragmentError("no Init: the fragment reads where processes start from Init", anchor)
    domains: dict[str, list[str]] = {}
    for c in _conjuncts(init.body):
        if c.op in ("compare", "member") and c.args[0].op == "name" and c.args[0].text in variables:
            rhs = c.args[1]
            if rhs.op == "fn_def" or rhs.op == "fn_set":
                domains[c.args[0].text] = [str(k) for k in finite(rhs.args[0], scope).items]
    movers = {n.args[0].text for n in _walk(defs["Next"].body if "Next" in defs else None, defs) if n.op == "except"
              and n.args[0].op == "name" and any(_decrements(i) for i in n.args[1:])}
    if len(movers) != 1 or next(iter(movers)) not in domains:
        raise FragmentError(f"not a threshold automaton of the fragment: no variable {LOCATIONS}, and "
                            "no single counter variable whose steps write '[c EXCEPT ![\"A\"] = @ - 1, "
                            "![\"B\"] = @ + 1]' (found: " + (", ".join(sorted(movers)) or "none") + ")",
                            init.span)
    counter = next(iter(movers))
    shared: dict = {}
    for v, s in variables.items():
        if v == counter:
            continue
        if v in domains:
            shared[v] = Function(v, tuple((k, Name(identifier(f"{v}_{k}", s))) for k in domains[v]))
        else:
            shared[v] = Name(identifier(v, s))
    return counter, domains[counter], shared


def _decrements(item: Node) -> bool:
    rhs = item.args[1]
    return rhs.op == "sum" and rhs.args[0].op == "at" and rhs.text == "-"


def _walk(node: Node | None, defs: dict[str, Definition], seen: set | None = None):
    """Every node of ``node`` and of the definitions it calls."""
    if node is None:
        return
    seen = set() if seen is None else seen
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.args)
        stack.extend(d.body for d in n.defs)
        if n.op in ("name", "call") and n.text in defs and n.text not in seen:
            seen.add(n.text)
            stack.append(defs[n.text].body)


def _inits(defs, scope: Scope, taco: bool, correct: Expr | None, locations: list[str], location_var: str,
           anchor: Span | None) -> list[Expr]:
    init = defs.get("Init")
    if init is None:
        raise FragmentError("no Init: the fragment reads where processes start from Init", anchor)
    out: list[Expr] = []
    for c in _conjuncts(init.body):
        if c.op == "member" and c.args[0].op == "name" and c.args[0].text == location_var and taco:
            start = _location_set(c.args[1], "where processes start")
            names = [Name(identifier(s, None)) for s in start]
            out.append(Compare("==", summation(names[0], [("+", n) for n in names[1:]]), correct, span=c.span))
            out += [Compare("==", Name(identifier(loc, None)), IntConst(0)) for loc in locations if loc not in start]
        elif c.op in ("compare", "member") and c.args[0].op == "name" and isinstance(
                scope.symbols.get(c.args[0].text), Function):
            out += _function_init(c, scope)
        else:
            out.append(formula(c, scope))
    return out


def _function_init(c: Node, scope: Scope) -> list[Expr]:
    """``f = [k \\in S |-> e]`` (each entry equals e) or ``f \\in [S -> {a, …, b}]`` (each entry
    between a and b, the set being an interval)."""
    f = scope.symbols[c.args[0].text]
    rhs = c.args[1]
    if c.op == "compare" and c.text == "=" and rhs.op == "fn_def":
        given = value(rhs, scope)
        return [Compare("==", e, term_of(given.at(k, rhs.span), rhs.span), span=c.span) for k, e in f.entries]
    if c.op == "member" and c.text == "\\in" and rhs.op == "fn_set":
        values = finite(rhs.args[1], scope).items
        if not values or any(not isinstance(v, int) for v in values) or sorted(values) != list(
                range(min(values), max(values) + 1)):
            raise FragmentError("the initial values of a function-valued variable are an interval {a, ..., b}",
                                rhs.args[1].span)
        return [x for _, e in f.entries for x in (Compare(">=", e, const(min(values)), span=c.span),
                                                   Compare("<=", e, const(max(values)), span=c.span))]
    raise FragmentError("a function-valued variable starts as [k \\in S |-> e] or \\in [S -> {a, ..., b}]", c.span)


def term_of(v, span: Span | None) -> Expr:
    if not isinstance(v, Expr):
        raise FragmentError("an entry's initial value is an integer term", span)
    return v


def _rules(defs, scope: Scope, model: Model, sink: DiagnosticSink, anchor: Span | None) -> list:
    nxt = defs.get("Next")
    if nxt is None:
        actions = [d for d in defs.values() if d.name.startswith("Rule") and d.name[4:].isdigit()]
        if not actions:
            raise FragmentError("no Next (and no RuleK(p) definitions): the fragment reads the rules from "
                                "Next == \\E p \\in Processes: Rule0(p) \\/ ...", anchor)
        sink.warning("no Next: every RuleK(p) definition is a rule", actions[0].span)
        branches = [b for d in actions for b in disjuncts(d.body, scope.bind({d.params[0]: PROCESS}) if d.params
                                                          else scope, d.name, d.span)]
    else:
        branches = disjuncts(nxt.body, scope, "Next", nxt.span)
    rules, seen = [], set()
    for b in branches:
        action = b[0].action  # TACO's RuleK is rule K; other rules are numbered in order
        number = int(action[4:]) if action.startswith("Rule") and action[4:].isdigit() else len(rules)
        rule = rule_of(b, model, number)
        key = None if rule is None else (rule.source, rule.target, rule.guard, rule.updates)
        if rule is not None and key not in seen:  # e.g. an action under \E v that ignores v
            seen.add(key)
            rules.append(rule)
    return rules


def _referenced(module: Module) -> set[str]:
    """Names some definition uses (helpers, not properties)."""
    used: set[str] = set()
    for d in module.definitions:
        stack = [d.body]
        while stack:
            n = stack.pop()
            if n.op in ("name", "call") and n.text != d.name:
                used.add(n.text)
            stack.extend(n.args)
            stack.extend(x.body for x in n.defs)
    return used
