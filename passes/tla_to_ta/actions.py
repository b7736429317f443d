"""The rules of a TLA+ threshold automaton: ``Next`` as a disjunction of process steps.

``Next`` is put in disjunctive form by inlining the actions it calls, expanding ``\\E`` over a
finite set of constants (``\\E v \\in Values``) and the disjunctions inside actions; ``\\E p \\in
Processes`` binds the process that moves. Each disjunct then is one rule: a source and a target
location (``ProcessesLocations[p] = "A"`` and ``ProcessesLocations' = [ProcessesLocations EXCEPT
![p] = "B"]`` in TACO's fragment; ``counters' = [counters EXCEPT !["A"] = @ - 1, !["B"] = @ + 1]``
with ``counters["A"] > 0`` in a counter system), a guard (the conjuncts without primes) and an
update of every shared variable (``x' = x + 1`` or ``UNCHANGED``). TLA+ lets a variable an action
does not mention take any value; no threshold automaton rule does that, so it is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tactl.ir.errors import Span
from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Name, conj
from tactl.ir.ta.model import Origin, Rule, Update
from tactl.ir.tla.reader import FragmentError
from tactl.ir.tla.syntax import Node
from tactl.passes.tla_to_ta.values import (LOCATIONS, PROCESSES, Finite, Function, Scope, Special, formula,
                                           identifier, locations_of, term, value)

# Disjuncts of Next beyond this are refused (each one is a rule).
MAX_DISJUNCTS = 20_000
PROCESS = Special("process")  # what \E p \in Processes binds p to


@dataclass(frozen=True)
class Atom:
    """A conjunct of one disjunct of ``Next``: the node, the names bound where it stands, and the
    action (operator) it belongs to."""

    node: Node
    scope: Scope
    action: str
    action_span: Span | None
    bindings: tuple[tuple[str, str], ...] = ()


def disjuncts(node: Node, scope: Scope, action: str, action_span: Span | None,
              bindings: tuple[tuple[str, str], ...] = ()) -> list[tuple[Atom, ...]]:
    """``node`` (an action) in disjunctive form: a list of conjunctions of atoms."""
    op = node.op
    if op == "and":
        result: list[tuple[Atom, ...]] = [()]
        for a in node.args:
            parts = disjuncts(a, scope, action, action_span, bindings)
            result = [x + y for x in result for y in parts]
            _check_size(result, node)
        return result
    if op == "or":
        out = [d for a in node.args for d in disjuncts(a, scope, action, action_span, bindings)]
        _check_size(out, node)
        return out
    if op == "exists":
        domain = value(node.args[0], scope)
        if domain == Special(PROCESSES):
            return disjuncts(node.args[1], scope.bind({node.text: PROCESS}), action, action_span, bindings)
        if not isinstance(domain, Finite):
            raise FragmentError("\\E ranges over Processes or over a finite set of constants", node.args[0].span)
        return [d for k in domain.items
                for d in disjuncts(node.args[1], scope.bind({node.text: k}), action, action_span,
                                   bindings + ((node.text, str(k)),))]
    if op == "let":
        return disjuncts(node.args[0], scope.bind({}, {d.name: d for d in node.defs}), action, action_span, bindings)
    if op == "if":
        cond = formula(node.args[0], scope)
        if not isinstance(cond, BoolConst):
            raise FragmentError("IF over the state is not in the fragment: write the two cases as two "
                                "disjuncts", node.args[0].span)
        return disjuncts(node.args[1 if cond.value else 2], scope, action, action_span, bindings)
    called = _called(node, scope)
    if called is not None:
        d, args = called
        inner = scope.entering(d.name, node.span).bind(args)
        named = tuple((p, str(v)) for p, v in args.items() if isinstance(v, (str, int)))
        return disjuncts(d.body, inner, d.name, d.span, named)
    return [(Atom(node, scope, action, action_span, bindings),)]


def _check_size(items: list, node: Node) -> None:
    if len(items) > MAX_DISJUNCTS:
        raise FragmentError(f"the action has more than {MAX_DISJUNCTS} disjuncts", node.span)


def _called(node: Node, scope: Scope):
    """The definition an action calls (``Rule0(p)``, ``Line44``) and its arguments, if any."""
    if node.op == "name" and node.text not in scope.bound and node.text not in scope.symbols:
        d = scope.definitions.get(node.text)
        return (d, {}) if d is not None and not d.params else None
    if node.op == "call" and node.text in scope.definitions:
        d = scope.definitions[node.text]
        if len(d.params) != len(node.args):
            raise FragmentError(f"'{d.name}' takes {len(d.params)} argument(s), given {len(node.args)}", node.span)
        return d, {p: value(a, scope) for p, a in zip(d.params, node.args)}
    return None


@dataclass
class RuleParts:
    """What the atoms of one disjunct say."""

    source: str | None = None
    target: str | None = None
    guards: list[Expr] = field(default_factory=list)
    updates: dict[str, Update] = field(default_factory=dict)
    locations_unchanged: bool = False


@dataclass(frozen=True)
class Model:
    """How a module writes locations: TACO's ``ProcessesLocations`` or a counter variable."""

    location_var: str  # ProcessesLocations, or the counter variable (e.g. counters)
    counters: bool  # a counter system (the counter variable's entries are the locations)
    shared: dict  # variable -> Name (scalar) or Function (entries are Names)
    path: str


def rule_of(conjuncts: tuple[Atom, ...], model: Model, rule_id: int) -> Rule | None:
    """The rule of one disjunct of ``Next``; None for a step that changes nothing (stuttering)."""
    parts = RuleParts()
    first = conjuncts[0]
    for atom in conjuncts:
        _read_atom(atom, model, parts)
    if parts.source is None and parts.target is None and model.counters:
        if any(not u.is_identity for u in parts.updates.values()):
            raise FragmentError(f"{first.action} changes shared variables but moves no process: a "
                                "threshold automaton changes them only in a process's step", first.action_span)
        return None
    missing = "source" if parts.source is None else "target" if parts.target is None else None
    if missing:
        hint = (f'{LOCATIONS}[p] = "loc"' if missing == "source" else
                f'{LOCATIONS}\' = [{LOCATIONS} EXCEPT ![p] = "loc"]') if not model.counters else \
            f'{model.location_var}\' = [{model.location_var} EXCEPT !["a"] = @ - 1, !["b"] = @ + 1]'
        raise FragmentError(f"{first.action} has no {missing} location (write {hint})", first.action_span)
    if model.counters:
        parts.guards = _without_enabledness(parts, model, first)
    for var, entry in _entries(model.shared):
        if var not in parts.updates:
            raise FragmentError(f"{first.action} leaves {entry}' unconstrained (in TLA+ it may take any "
                                f"value); write {entry}' = ... or UNCHANGED <<{entry.split('[')[0]}>>",
                                first.action_span)
    assert parts.source is not None and parts.target is not None
    given = dict(b for atom in conjuncts for b in atom.bindings)
    text = first.action + (" with " + ", ".join(f'{k} = "{v}"' for k, v in given.items()) if given else "")
    line = first.action_span.line if first.action_span else 0
    return Rule(rule_id, parts.source, parts.target, conj(*parts.guards),
                tuple(parts.updates[v] for v, _ in _entries(model.shared)), span=first.action_span,
                origin=Origin(model.path, (line,) if line else (), text))


def _entries(shared: dict) -> list[tuple[str, str]]:
    """(automaton variable, how the TLA+ module writes it) for every shared entry."""
    out = []
    for var, v in shared.items():
        if isinstance(v, Function):
            out += [(e.name, f'{var}["{k}"]') for k, e in v.entries]
        else:
            out.append((v.name, var))
    return out


def _without_enabledness(parts: RuleParts, model: Model, first: Atom) -> list[Expr]:
    """A counter system's step from ``A`` requires ``counters["A"] > 0`` (a threshold automaton's
    rule needs a process in its source): that guard is dropped, and required."""
    src = parts.source
    keep = [g for g in parts.guards
            if not (isinstance(g, Compare) and g.left == Name(src) and (
                (g.op == ">" and g.right == IntConst(0)) or (g.op == ">=" and g.right == IntConst(1))))]
    if len(keep) == len(parts.guards) and src != parts.target:
        raise FragmentError(f"{first.action} takes a process from \"{src}\" without requiring "
                            f"{model.location_var}[\"{src}\"] > 0 (its counter could become negative)",
                            first.action_span)
    return keep


def _read_atom(atom: Atom, model: Model, parts: RuleParts) -> None:
    node, scope = atom.node, atom.scope
    if node.op == "unchanged":
        for n in _tuple_names(node.args[0]):
            _unchanged(n, model, parts)
        return
    if node.op == "compare" and node.text == "=" and node.args[0].op == "primed":
        _primed(node, atom, model, parts)
        return
    if (not model.counters and node.op == "compare" and node.args[0].op == "apply"
            and node.args[0].args[0].op == "name" and node.args[0].args[0].text == LOCATIONS):
        process = node.args[0].args[1]
        if process.op != "name" or scope.bound.get(process.text) != PROCESS:
            raise FragmentError(f"{LOCATIONS} is indexed by the process of the rule", process.span)
        [(loc, _)] = locations_of(node, process.text, scope, "")
        _set(parts, "source", loc, node, atom)
        return
    parts.guards.append(formula(node, scope))


def _tuple_names(node: Node) -> list[Node]:
    items = node.args if node.op == "tuple" else (node,)
    for n in items:
        if n.op != "name":
            raise FragmentError("UNCHANGED lists variables", n.span)
    return list(items)


def _unchanged(n: Node, model: Model, parts: RuleParts) -> None:
    if n.text == model.location_var:
        parts.locations_unchanged = True
        return
    v = model.shared.get(n.text)
    if v is None:
        raise FragmentError(f"'{n.text}' is not a variable of the module", n.span)
    for entry in (e for _, e in v.entries) if isinstance(v, Function) else (v,):
        _update(parts, Update(entry.name, Name(entry.name), span=n.span), n)


def _update(parts: RuleParts, u: Update, node: Node) -> None:
    if u.var in parts.updates:
        raise FragmentError(f"a second update of {u.var} in the same step", node.span)
    parts.updates[u.var] = u


def _set(parts: RuleParts, which: str, loc: str, node: Node, atom: Atom) -> None:
    if getattr(parts, which) not in (None, loc):
        raise FragmentError(f"{atom.action} gives a second {which} location", node.span)
    setattr(parts, which, loc)


def _except_items(rhs: Node, var: str, scope: Scope) -> list[tuple[str, Node]]:
    if rhs.op != "except" or rhs.args[0].op != "name" or rhs.args[0].text != var:
        raise FragmentError(f"{var}' is updated as [{var} EXCEPT ![k] = ...]", rhs.span)
    items = []
    for item in rhs.args[1:]:
        key = value(item.args[0], scope)
        if not isinstance(key, str) and key != PROCESS:
            raise FragmentError("an EXCEPT index of the fragment is a string constant (or the rule's "
                                "process)", item.args[0].span)
        items.append((key, item.args[1]))
    return items


def _primed(node: Node, atom: Atom, model: Model, parts: RuleParts) -> None:
    var, rhs, scope = node.args[0].text, node.args[1], atom.scope
    if var == model.location_var and not model.counters:
        items = _except_items(rhs, var, scope)
        if len(items) != 1 or items[0][0] != PROCESS:
            raise FragmentError(f"{var}' changes the location of the rule's process only: "
                                f'[{var} EXCEPT ![p] = "loc"]', rhs.span)
        loc = value(items[0][1], scope)
        if not isinstance(loc, str) or loc not in scope.locations:
            raise FragmentError(f"the target location is one of TypeOk's: {', '.join(scope.locations)}",
                                items[0][1].span)
        _set(parts, "target", identifier(loc, None), node, atom)
        return
    if var == model.location_var:
        _move(node, rhs, atom, model, parts)
        return
    v = model.shared.get(var)
    if v is None:
        raise FragmentError(f"'{var}' is not a variable of the module", node.args[0].span)
    if isinstance(v, Function):
        changed = set()
        for key, item in _except_items(rhs, var, scope):
            entry = v.at(key, item.span)
            changed.add(entry.name)
            _update(parts, Update(entry.name, term(item, scope.bind({"@": entry})), span=node.span), node)
        for _, entry in v.entries:  # EXCEPT keeps the other entries
            if entry.name not in changed:
                _update(parts, Update(entry.name, Name(entry.name), span=node.span), node)
        return
    _update(parts, Update(v.name, term(rhs, scope), span=node.span), node)


def _move(node: Node, rhs: Node, atom: Atom, model: Model, parts: RuleParts) -> None:
    """``counters' = [counters EXCEPT !["A"] = @ - 1, !["B"] = @ + 1]``: a process moves A → B."""
    items = _except_items(rhs, model.location_var, atom.scope)
    steps = {}
    for key, item in items:
        text = re.sub(r"\s+", "", "".join(_flat(item)))
        steps[key] = {"@-1": -1, "@+1": +1}.get(text)
        if steps[key] is None:
            raise FragmentError("a step moves one process: its counter entries change by '@ - 1' (the "
                                "source) and '@ + 1' (the target)", item.span)
    sources = [k for k, d in steps.items() if d == -1]
    targets = [k for k, d in steps.items() if d == +1]
    if len(sources) != 1 or len(targets) != 1:
        raise FragmentError("a step moves one process: one entry '@ - 1' and one '@ + 1'", rhs.span)
    _set(parts, "source", identifier(sources[0], None), node, atom)
    _set(parts, "target", identifier(targets[0], None), node, atom)


def _flat(node: Node) -> list[str]:
    if node.op == "at":
        return ["@"]
    if node.op == "int":
        return [str(node.value)]
    if node.op == "sum" and len(node.args) == 2:
        return _flat(node.args[0]) + [node.text] + _flat(node.args[1])
    return ["?"]
