"""What a TLA+ expression of the fragment denotes, in terms the threshold automaton IR has.

A threshold automaton has integer parameters, shared integer variables and a counter per
location, so an expression must come down to a term or formula over those (``tactl.ir.expr``).
What only names them is evaluated away here: string constants, finite sets of them, functions
over them (``[v \\in Values |-> 0]``; ``nprevotes["0"]`` is the shared variable ``nprevotes_0``),
``LET``, ``IF`` with a constant condition, operator definitions (inlined) and ``Cardinality`` of
the processes in given locations (the sum of those locations' counters). Anything else is a
:class:`~tactl.ir.tla.reader.FragmentError` at the construct.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Union

from tactl.ir.errors import Span
from tactl.ir.expr import (Always, BoolConst, Compare, Eventually, Expr, Implies, IntConst, Mul, Name, Neg, Not,
                           conj, const, disj, is_arith, summation, to_text)
from tactl.ir.tla.reader import FragmentError
from tactl.ir.tla.syntax import Definition, Node

PROCESSES = "Processes"  # the set of process identifiers (TACO's fragment)
CORRECT = "NbOfCorrProc"  # the number of correct processes (TACO's fragment)
LOCATIONS = "ProcessesLocations"  # the map from processes to their locations (TACO's fragment)


@dataclass(frozen=True)
class Finite:
    """A finite set of constants (strings or integers), in the order written."""

    items: tuple[Union[str, int], ...]


@dataclass(frozen=True)
class Function:
    """A function over string keys (a function-valued variable, or ``[x \\in S |-> e]``)."""

    name: str  # the variable, or "" for a function built by an expression
    entries: tuple[tuple[str, "Value"], ...]

    def at(self, key: object, span: Span | None) -> "Value":
        for k, v in self.entries:
            if k == key:
                return v
        keys = ", ".join(f'"{k}"' for k, _ in self.entries)
        raise FragmentError(f"{_show(key)} is not in the domain of {self.name or 'the function'} ({keys})", span)


@dataclass(frozen=True)
class Special:
    """A name the fragment gives a meaning of its own: ``Processes``, ``Nat``, ``ProcessesLocations``,
    a process identifier bound by ``\\E p \\in Processes``."""

    what: str


Value = Union[Expr, str, Finite, Function, Special]
TLA_COMPARE = {"=": "==", "/=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def identifier(text: str, span: Span | None) -> str:
    """``text`` as a name of the automaton (locations, shared variables): letters, digits, '_'."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not name or name[0].isdigit():
        name = "v" + name
    return name


def _show(v: object) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, Expr):
        return f"'{to_text(v)}'"
    return type(v).__name__.lower()


@dataclass
class Scope:
    """What names mean while evaluating: the module's definitions, its parameters and variables
    (a shared variable is a :class:`Name`, a function-valued one a :class:`Function`), and the
    names bound by quantifiers, operator arguments and ``LET``."""

    definitions: Mapping[str, Definition]
    symbols: Mapping[str, Value]
    bound: dict[str, Value] = field(default_factory=dict)
    active: tuple[str, ...] = ()  # definitions being expanded (a recursive one is refused)
    locations: tuple[str, ...] = ()  # TypeOk's locations (TACO's fragment), as written

    def bind(self, names: Mapping[str, Value], definitions: Mapping[str, Definition] | None = None) -> "Scope":
        defs = {**self.definitions, **(definitions or {})}
        return Scope(defs, self.symbols, {**self.bound, **names}, self.active, self.locations)

    def entering(self, name: str, span: Span | None) -> "Scope":
        if name in self.active:
            raise FragmentError(f"'{name}' is defined in terms of itself: recursive operators are not "
                                "in the fragment", span)
        return Scope(self.definitions, self.symbols, dict(self.bound), self.active + (name,), self.locations)


def value(node: Node, scope: Scope) -> Value:
    """What ``node`` denotes (see the module's docstring)."""
    op = node.op
    if op == "int":
        return IntConst(node.value, span=node.span)
    if op == "string":
        return node.text
    if op == "bool":
        return BoolConst(bool(node.value), span=node.span)
    if op == "name":
        return _name(node, scope)
    if op == "at" and "@" in scope.bound:  # the entry an EXCEPT changes
        return scope.bound["@"]
    if op == "call":
        return _call(node, scope)
    if op == "apply":
        return _apply(node, scope)
    if op in ("and", "or"):
        parts = [formula(a, scope) for a in node.args]
        return (conj if op == "and" else disj)(*parts, span=node.span)
    if op == "not":
        return Not(formula(node.args[0], scope), span=node.span)
    if op == "implies":
        return Implies(formula(node.args[0], scope), formula(node.args[1], scope), span=node.span)
    if op == "always":
        return Always(formula(node.args[0], scope), span=node.span)
    if op == "eventually":
        return Eventually(formula(node.args[0], scope), span=node.span)
    if op == "compare":
        return _compare(node, scope)
    if op == "member":
        return _member(node, scope)
    if op == "sum":
        ops = node.text.split()
        first, *rest = (term(a, scope) for a in node.args)
        return summation(first, list(zip(ops, rest)), span=node.span)
    if op == "product":
        result = term(node.args[0], scope)
        for a in node.args[1:]:
            result = Mul(result, term(a, scope), span=node.span)
        return result
    if op == "neg":
        inner = term(node.args[0], scope)
        return const(-inner.value, node.span) if isinstance(inner, IntConst) else Neg(inner, span=node.span)
    if op == "set":
        return Finite(tuple(dict.fromkeys(constant(a, scope) for a in node.args)))
    if op == "union":
        items: list = []
        for a in node.args:
            items.extend(finite(a, scope).items)
        return Finite(tuple(dict.fromkeys(items)))
    if op == "fn_def":
        domain = finite(node.args[0], scope)
        return Function("", tuple((str(k), value(node.args[1], scope.bind({node.text: k})))
                                  for k in domain.items))
    if op == "if":
        cond = formula(node.args[0], scope)
        if not isinstance(cond, BoolConst):
            raise FragmentError("IF over the state is not in the fragment: its condition must be "
                                "decided by constants (e.g. 'IF v = \"0\" THEN …'); write two rules instead",
                                node.args[0].span)
        return value(node.args[1] if cond.value else node.args[2], scope)
    if op == "let":
        return value(node.args[0], scope.bind({}, {d.name: d for d in node.defs}))
    raise FragmentError(f"{_construct(node)} is not in the fragment here (a term or formula over "
                        "parameters, shared variables and location counters is expected)", node.span)


def _construct(node: Node) -> str:
    return {"primed": f"the primed variable {node.text}'", "except": "EXCEPT", "unchanged": "UNCHANGED",
            "exists": "a quantifier", "forall": "a quantifier", "fn_set": "a function set [S -> T]",
            "tuple": "a tuple", "box_action": "[][Next]_vars", "at": "'@'",
            "set_filter": "a set comprehension"}.get(node.op, f"'{node.op}'")


def term(node: Node, scope: Scope) -> Expr:
    v = value(node, scope)
    if not isinstance(v, Expr) or not is_arith(v):
        raise FragmentError(f"expected an integer term, found {_show(v)}", node.span)
    return v


def formula(node: Node, scope: Scope) -> Expr:
    v = value(node, scope)
    if not isinstance(v, Expr) or is_arith(v):
        raise FragmentError(f"expected a condition, found {_show(v)}", node.span)
    return v


def constant(node: Node, scope: Scope) -> Union[str, int]:
    v = value(node, scope)
    if isinstance(v, str):
        return v
    if isinstance(v, IntConst):
        return v.value
    raise FragmentError(f"a set of the fragment lists constants (strings or numbers), found {_show(v)}", node.span)


def finite(node: Node, scope: Scope) -> Finite:
    v = value(node, scope)
    if not isinstance(v, Finite):
        raise FragmentError(f"expected a finite set of constants, found {_show(v)}", node.span)
    return v


def _name(node: Node, scope: Scope) -> Value:
    name = node.text
    if name in scope.bound:
        return scope.bound[name]
    if name in scope.symbols:
        v = scope.symbols[name]
        return Name(v.name, span=node.span) if isinstance(v, Name) else v
    if name in scope.definitions:
        d = scope.definitions[name]
        if d.params:
            raise FragmentError(f"'{name}' takes {len(d.params)} argument(s)", node.span)
        return value(d.body, scope.entering(name, node.span))
    if name in ("Nat", PROCESSES):
        return Special(name)
    raise FragmentError(f"unknown name '{name}': not a constant, variable or definition of the module", node.span)


def _call(node: Node, scope: Scope) -> Value:
    name = node.text
    if name == "Cardinality":
        return cardinality(node, scope)
    d = scope.definitions.get(name)
    if d is None:
        raise FragmentError(f"unknown operator '{name}' (the fragment knows the module's own definitions "
                            "and Cardinality)", node.span)
    if len(d.params) != len(node.args):
        raise FragmentError(f"'{name}' takes {len(d.params)} argument(s), given {len(node.args)}", node.span)
    args = {p: value(a, scope) for p, a in zip(d.params, node.args)}
    return value(d.body, scope.entering(name, node.span).bind(args))


def _apply(node: Node, scope: Scope) -> Value:
    f = value(node.args[0], scope)
    key = value(node.args[1], scope)
    if isinstance(f, Special) and f.what == LOCATIONS:
        raise FragmentError(f"{LOCATIONS}[p] is read only in a rule ({LOCATIONS}[p] = \"loc\", its source "
                            "location) and in Cardinality({p \\in Processes : ...})", node.span)
    if not isinstance(f, Function):
        raise FragmentError(f"{_show(f)} is not a function: only function-valued variables and "
                            "[x \\in S |-> e] can be applied", node.args[0].span)
    if not isinstance(key, str):
        raise FragmentError(f"a function of the fragment is applied to a string constant, found {_show(key)}",
                            node.args[1].span)
    return f.at(key, node.span)


def _compare(node: Node, scope: Scope) -> Expr:
    left, right = (value(a, scope) for a in node.args)
    op = node.text
    if isinstance(left, str) or isinstance(right, str):
        if not (isinstance(left, str) and isinstance(right, str)) or op not in ("=", "/="):
            raise FragmentError(f"strings are compared with = or /= to strings, found {_show(left)} {op} "
                                f"{_show(right)}", node.span)
        return BoolConst((left == right) == (op == "="), span=node.span)
    for side, n in ((left, node.args[0]), (right, node.args[1])):
        if not isinstance(side, Expr) or not is_arith(side):
            raise FragmentError(f"expected an integer term, found {_show(side)}", n.span)
    return Compare(TLA_COMPARE[op], left, right, span=node.span)  # type: ignore[arg-type]


def _member(node: Node, scope: Scope) -> Expr:
    element, group = value(node.args[0], scope), value(node.args[1], scope)
    if isinstance(group, Finite) and isinstance(element, str):
        inside = element in group.items
        return BoolConst(inside == (node.text == "\\in"), span=node.span)
    if isinstance(group, Finite) and isinstance(element, Expr) and is_arith(element):
        cases = [Compare("==", element, const(int(i)), span=node.span) for i in group.items]
        result = disj(*cases, span=node.span)
        return result if node.text == "\\in" else Not(result, span=node.span)
    raise FragmentError(f"{_show(element)} \\in {_show(group)} is not in the fragment here", node.span)


def cardinality(node: Node, scope: Scope) -> Expr:
    """``Cardinality({p \\in Processes : ProcessesLocations[p] = "A" \\/ …})``: the processes in
    those locations, the sum of their counters."""
    [arg] = node.args
    shape = (f"the fragment counts processes as Cardinality({{p \\in {PROCESSES} : "
             f"{LOCATIONS}[p] = \"loc\" \\/ ...}})")
    if arg.op != "set_filter" or value(arg.args[0], scope) != Special(PROCESSES):
        raise FragmentError(shape, arg.span)
    names = [locations_of(c, arg.text, scope, shape) for c in _disjuncts(arg.args[1])]
    terms = [Name(n, span=s) for group in names for n, s in group]
    return summation(terms[0], [("+", t) for t in terms[1:]], span=node.span)


def _disjuncts(node: Node) -> list[Node]:
    return list(node.args) if node.op == "or" else [node]


def locations_of(node: Node, process: str, scope: Scope, shape: str) -> list[tuple[str, Span | None]]:
    """The location ``L`` of ``ProcessesLocations[p] = "L"`` (``p`` the process named ``process``)."""
    ok = (node.op == "compare" and node.text == "=" and node.args[0].op == "apply"
          and node.args[0].args[0].op == "name" and node.args[0].args[0].text == LOCATIONS
          and node.args[0].args[1].op == "name" and node.args[0].args[1].text == process)
    if not ok:
        raise FragmentError(shape, node.span)
    loc = value(node.args[1], scope)
    if not isinstance(loc, str):
        raise FragmentError(f"a location is a string constant, found {_show(loc)}", node.args[1].span)
    if loc not in scope.locations:
        raise FragmentError(f'"{loc}" is not a location: TypeOk declares '
                            + ", ".join(f'"{k}"' for k in scope.locations), node.args[1].span)
    return [(identifier(loc, node.args[1].span), node.args[1].span)]


def is_temporal_free(e: Expr) -> bool:
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, (Always, Eventually)):
            return False
        stack.extend(x.children())
    return True

