"""Terms and conditions of the pseudocode evaluated on one concrete process.

Values: a number is a :class:`Fraction` (thresholds are rational and exact: ``more than (n + t)/2``
compares ``received`` with the rational ``(n + t)/2``), a variable's value its spelling (``"0"``,
``"true"``, ``"⊥"``), a set a ``frozenset`` of spellings. ``received M`` is the number of
**distinct processes** the process has received any instance of ``M`` from: the size of the union
of the sender sets of the types ``M`` matches — a process that sent ``(AUX, 0)`` and ``(AUX, 1)``
counts once in ``received (AUX, *)``, never twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from tactl.ir.alg import syntax as A

from .errors import SourceError
from .program import MsgType, Program


@dataclass
class Env:
    """What a term may read: the program, the parameters, one process's variables, placeholders,
    received sender sets (per type index), its sent types, and whether it is the coordinator."""

    prog: Program
    params: dict[str, Fraction]
    vals: dict[str, str]
    binds: dict[str, object]
    rcv: tuple[frozenset, ...]
    sent: frozenset = frozenset()
    coordinator: bool = False
    # properties only: the process's own predicates
    done: bool = False
    crashed: bool = False
    count_pred: object = None  # properties: ``count (P)`` over the processes of a configuration


def scalar(value: object) -> str:
    """A value as a variable holds it: numbers as their integer spelling."""
    if isinstance(value, Fraction):
        if value.denominator != 1:
            raise ValueError(f"{value} is not an integer")
        return str(value.numerator)
    if isinstance(value, bool):
        return A.TRUE if value else A.FALSE
    return value  # type: ignore[return-value]


def _number(value: object, span) -> Fraction:
    if isinstance(value, Fraction):
        return value
    if isinstance(value, str):
        try:
            return Fraction(int(value))
        except ValueError:
            pass
    raise SourceError(f"'{value}' is not a number here", span)


def _set_elements(prog: Program, name: str) -> tuple[str, ...] | None:
    var = prog.variables.get(name)
    return var.elements if var is not None else None


def value(env: Env, t) -> object:
    """The value of term ``t``."""
    if isinstance(t, A.Num):
        return Fraction(t.value)
    if isinstance(t, A.Ref):
        return ref(env, t.name, t.span)
    if isinstance(t, A.Const):
        return t.value
    if isinstance(t, A.NotValue):
        return A.FALSE if truth(env, t.arg) else A.TRUE
    if isinstance(t, A.Count):
        return Fraction(count(env, t.pattern))
    if isinstance(t, A.Arith):
        args = [_number(value(env, a), getattr(a, "span", t.span)) for a in t.args]
        if t.op == "neg":
            return -args[0]
        if t.op == "+":
            return args[0] + args[1]
        if t.op == "-":
            return args[0] - args[1]
        if t.op == "*":
            return args[0] * args[1]
        if t.op == "/":
            if args[1] == 0:
                raise SourceError("division by zero at these parameters", t.span)
            return args[0] / args[1]
    if isinstance(t, A.Rounding):
        x = _number(value(env, t.arg), t.span)
        return Fraction(math.ceil(x) if t.kind == "ceil" else math.floor(x))
    if isinstance(t, A.SetLit):
        return frozenset(scalar(value(env, e)) for e in t.elements)
    if isinstance(t, A.SetOp):
        a, b = (as_set(env, x) for x in t.args)
        return a | b if t.op == "union" else a & b if t.op == "intersect" else a - b
    if isinstance(t, A.SetBuilder):
        return frozenset(w for w in placeholder_domain(env.prog, t.cond, t.placeholder)
                         if truth(_bound(env, t.placeholder, w), t.cond))
    if isinstance(t, A.Card):
        return Fraction(len(as_set(env, t.arg)))
    if isinstance(t, A.MinMax):
        s = as_set(env, t.arg)
        if not s:
            raise SourceError(f"{t.kind} of the empty set", t.span)
        order = element_order(env.prog, t.arg, s)
        return (min if t.kind == "min" else max)(s, key=order.index)
    if isinstance(t, A.CountPred):
        if env.count_pred is None:
            raise SourceError("'count (P)' stands in properties only", t.span)
        return Fraction(env.count_pred(t.pred))  # type: ignore[operator]
    if isinstance(t, (A.Coin, A.Oracle)):
        raise SourceError("a coin or an oracle stands alone on the right of ':='", t.span)
    if isinstance(t, (A.Compare, A.Received, A.BoolOp, A.NotCond, A.Member, A.SentPred)):
        return A.TRUE if truth(env, t) else A.FALSE
    if isinstance(t, A.UnknownRef):
        raise SourceError(f"'{t.name}' is an unknown coefficient: the interpreter runs a program "
                          "whose numbers are all known (write a value in its place, or find the "
                          "values with 'tactl synthesize')", t.span)
    raise SourceError(f"the interpreter cannot evaluate {type(t).__name__} here",
                      getattr(t, "span", None))


def ref(env: Env, name: str, span) -> object:
    if name in env.binds:
        return env.binds[name]
    if name in env.vals:
        v = env.vals[name]
        if _set_elements(env.prog, name) is not None:
            return frozenset(A.decode_set(v) or ())
        return v
    if name in env.params:
        return env.params[name]
    if name == A.COORDINATOR:
        return A.TRUE if env.coordinator else A.FALSE
    if name == A.DECIDED:
        return env.vals.get(A.DECIDED, A.BOTTOM)
    if name == A.DONE:
        return A.TRUE if env.done else A.FALSE
    if name == A.CRASHED:
        return A.TRUE if env.crashed else A.FALSE
    if _is_constant(env.prog, name):
        return name
    raise SourceError(f"'{name}' is no variable, parameter, placeholder or value", span)


def _is_constant(prog: Program, name: str) -> bool:
    """A symbolic value some domain or message declares (``yes``, ``commit``, the tag ``D``)."""
    if any(name in v.domain or (v.elements and name in v.elements) for v in prog.alg.variables):
        return True
    if any(name in dom for dom in prog.alg.domains.values()):
        return True
    return any(name in m.values for m in prog.types)


def as_set(env: Env, t) -> frozenset:
    v = value(env, t)
    if not isinstance(v, frozenset):
        raise SourceError("expected a set here", getattr(t, "span", None))
    return v


def element_order(prog: Program, t, s: frozenset) -> list[str]:
    """The order of a set's element domain (``min``/``max``): the set variable's declared
    elements if ``t`` names one, else the first declared set domain containing ``s``."""
    if isinstance(t, A.Ref) and _set_elements(prog, t.name):
        return list(_set_elements(prog, t.name) or ())
    for v in prog.alg.variables:
        if v.elements and s <= set(v.elements):
            return list(v.elements)
    return sorted(s, key=lambda x: (not x.isdigit(), int(x) if x.isdigit() else 0, x))


def _bound(env: Env, name: str, v: object) -> Env:
    binds = dict(env.binds)
    binds[name] = v
    return Env(env.prog, env.params, env.vals, binds, env.rcv, env.sent, env.coordinator,
               env.done, env.crashed, env.count_pred)


def with_binding(env: Env, name: str, v: object) -> Env:
    return _bound(env, name, v)


def matching(env: Env, pattern: A.Pattern) -> list[MsgType]:
    """The message types a pattern names: ``*`` matches any value, a set-valued part any of its
    elements, ``?`` the tag ``?``."""
    out = []
    parts = [p if isinstance(p, str) else value(env, p) for p in pattern.parts or ()]
    for m in env.prog.types:
        if m.name != pattern.name:
            continue
        # a trailing `*` matches the rest of a longer payload: (P, *) counts (P, 0, D) and (P, ?)
        if len(m.values) != len(parts) and not (parts and parts[-1] == A.WILDCARD
                                                 and len(parts) <= len(m.values)):
            continue
        ok = True
        for want, have in zip(parts, m.values):
            if want == A.WILDCARD:
                continue
            if isinstance(want, frozenset):
                ok = have in want
            elif isinstance(want, Fraction):
                ok = want.denominator == 1 and str(want.numerator) == have
            else:
                ok = want == have
            if not ok:
                break
        if ok:
            out.append(m)
    if not out and not env.prog.types_named(pattern.name):
        raise SourceError(f"no message '{pattern.name}' is declared", pattern.span)
    return out


def count(env: Env, pattern: A.Pattern) -> int:
    """How many distinct processes sent any type the pattern matches (the union of senders)."""
    senders: set = set()
    for m in matching(env, pattern):
        senders |= env.rcv[m.index]
    return len(senders)


def sent_type(env: Env, pattern: A.Pattern) -> MsgType:
    """The one type a ``send`` sends; a payload outside the declared domain is an error."""
    found = [m for m in matching(env, pattern)]
    if len(found) != 1 or any(p == A.WILDCARD for p in pattern.parts or ()):
        raise SourceError(f"'send' names one message of a declared type; this one is "
                          f"{'outside the declared payload domain' if not found else 'not one type'}",
                          pattern.span)
    return found[0]


_OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def compare(op: str, a: object, b: object, span) -> bool:
    if isinstance(a, frozenset) or isinstance(b, frozenset):
        if op not in ("==", "!="):
            raise SourceError("sets compare with == and != only", span)
        return _OPS[op](a, b)
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return _OPS[op](a, b)
    if op in ("==", "!="):
        return _OPS[op](_spelling(a), _spelling(b))
    return _OPS[op](_number(a, span), _number(b, span))


def _spelling(v: object) -> str:
    if isinstance(v, Fraction):
        return str(v) if v.denominator != 1 else str(v.numerator)
    return v  # type: ignore[return-value]


def truth(env: Env, c) -> bool:
    """The truth of condition ``c``."""
    if isinstance(c, A.Compare):
        vals = [value(env, t) for t in c.terms]
        return all(compare(op, vals[i], vals[i + 1], c.span) for i, op in enumerate(c.ops))
    if isinstance(c, A.Received):
        if c.from_coordinator:
            return any(env.rcv[m.index] for m in matching(env, c.pattern))
        return compare(c.op, Fraction(count(env, c.pattern)), value(env, c.amount), c.span)
    if isinstance(c, A.BoolOp):
        if c.op == "and":
            return all(truth(env, a) for a in c.args)
        return any(truth(env, a) for a in c.args)
    if isinstance(c, A.NotCond):
        return not truth(env, c.arg)
    if isinstance(c, A.Member):
        inside = scalar(value(env, c.elem)) in as_set(env, c.set)
        return inside != c.negated
    if isinstance(c, A.SentPred):
        return any(m.index in env.sent for m in matching(env, c.pattern))
    v = value(env, c)
    if v in (A.TRUE, A.FALSE):
        return v == A.TRUE
    raise SourceError("expected a condition (true or false) here", getattr(c, "span", None))


# ---- placeholders ------------------------------------------------------------------------------

def placeholder_domain(prog: Program, cond, name: str) -> tuple[str, ...]:
    """The values a placeholder ``w`` ranges over in ``cond``: the payload domain where ``w``
    stands in a message pattern, the element domain of a set it is compared with or tested for
    membership in, the domain of a variable it is compared with (docs/alg.md). Computed once per
    condition (the program's conditions live as long as the program)."""
    key = (id(cond), name)
    found_before = prog.placeholder_domains.get(key)
    if found_before is None:
        found_before = prog.placeholder_domains[key] = (_placeholder_domain(prog, cond, name), cond)
    return found_before[0]


def _placeholder_domain(prog: Program, cond, name: str) -> tuple[str, ...]:
    found: list[str] = []

    def add(values) -> None:
        found.extend(v for v in values if v not in found)

    for node in A.walk(cond):
        if isinstance(node, A.Pattern):
            for i, part in enumerate(node.parts or ()):
                if isinstance(part, A.Ref) and part.name == name:
                    for m in prog.types_named(node.name):
                        if _shape_fits(node, m) and i < len(m.values):
                            add([m.values[i]])
        elif isinstance(node, A.Member) and isinstance(node.elem, A.Ref) and node.elem.name == name:
            add(_elements_of(prog, node.set))
        elif isinstance(node, A.Compare):
            names = [t.name for t in node.terms if isinstance(t, A.Ref)]
            lits = [t for t in node.terms if isinstance(t, A.SetLit)
                    and any(isinstance(e, A.Ref) and e.name == name for e in t.elements)]
            if lits:
                for t in node.terms:
                    add(_elements_of(prog, t))
            elif name in names:
                for other in names:
                    var = prog.variables.get(other)
                    if var is not None and var.elements is None:
                        add(var.domain)
        elif isinstance(node, A.SetBuilder):
            pass
    if not found:
        for m in prog.types:
            add(m.values)
    return tuple(found)


def _shape_fits(pattern: A.Pattern, m) -> bool:
    """Whether message type ``m`` has the shape of ``pattern``: as many payload positions (or more,
    after a trailing ``*``) and a ``?`` where the pattern writes one. A placeholder ranges over the
    values of the declared messages its pattern can name: ``(P, w, D)`` next to a declared
    ``(P, ?)`` does not make ``w`` range over ``?`` (make fuzz, seed 2026, program 29)."""
    parts = pattern.parts or ()
    if parts and parts[-1] == A.WILDCARD:
        if len(m.values) < len(parts) - 1:
            return False
        parts = parts[:-1]
    elif len(parts) != len(m.values):
        return False
    return all(part != A.QUESTION or value == A.QUESTION for part, value in zip(parts, m.values))


def _elements_of(prog: Program, t) -> tuple[str, ...]:
    if isinstance(t, A.Ref):
        var = prog.variables.get(t.name)
        if var is not None and var.elements:
            return var.elements
    if isinstance(t, A.SetOp):
        out: list[str] = []
        for a in t.args:
            out.extend(x for x in _elements_of(prog, a) if x not in out)
        return tuple(out)
    if isinstance(t, A.SetBuilder):
        return placeholder_domain(prog, t.cond, t.placeholder)
    return ()


def choices(env: Env, cond, placeholder: str | None, subset_of, nonempty: bool) -> list[dict]:
    """The bindings under which ``cond`` holds: ``[{}]`` or ``[]`` without a placeholder; one
    binding per qualifying value (``for some w``) or subset (``for some nonempty vals ⊆ S``)."""
    if placeholder is None:
        return [{}] if truth(env, cond) else []
    if subset_of is not None:
        base = sorted(as_set(env, subset_of))
        candidates: list[object] = []
        for mask in range(1 << len(base)):
            sub = frozenset(x for i, x in enumerate(base) if mask >> i & 1)
            if sub or not nonempty:
                candidates.append(sub)
    else:
        candidates = list(placeholder_domain(env.prog, cond, placeholder))
    return [{placeholder: c} for c in candidates if truth(with_binding(env, placeholder, c), cond)]
