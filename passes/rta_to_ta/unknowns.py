"""Unknown coefficients through the translation: the receive automaton's ``?a`` become the TA's
``unknowns a;`` as ByMC's synthesis files write them (``0 <= a; a <= 1;`` in ``assumptions``).

Quantifier elimination (``qe.py``), the simplification under the resilience condition
(``guards.py``), Env and the certificates work on linear terms over natural numbers. A product
``?a * n`` is not linear, and an unknown may be negative, so the translation runs on an
*encoded* automaton (:func:`encode`) and its result is decoded (:func:`decode_expr`):

* each unknown ``?a in lo..hi`` becomes the natural number ``?a' = ?a - lo`` (``?a' <= hi - lo``);
* each product ``?a * n`` with a parameter ``n`` becomes the natural number
  ``?a'*n = (?a - lo)·n``, with ``?a'*n <= (hi - lo)·n`` — so ``?a * n = ?a'*n + lo·n``;
* both join the parameters; after the translation every occurrence is replaced back
  (``?a' → ?a - lo``, ``?a'*n → ?a * n - lo·n``), the comparisons are put in linear form again
  and ``?a`` is renamed ``a``.

**Why this is sound and exact.** For every value of the unknowns in their ranges and of the
parameters, the encoded symbols take natural values that satisfy the added bounds, and the
encoded automaton *is* the original one at that point. Quantifier elimination eliminates the
receive counters only: it never multiplies or divides by a parameter-like term, it only adds and
compares them, so a projection that is exact for independent parameter-like symbols is exact for
each of their values. Every simplification drops an atom only when the resilience condition
with the added bounds implies it for *all* values of the symbols — so for the real products too.
Relations the encoding forgets (``?a'*n`` is a multiple of ``n``) can only keep an atom that
a specific candidate would let drop, never drop one: the result holds for every candidate, and
``tests/translation/test_unknowns_translation.py`` checks that instantiating it agrees with
translating each instantiated automaton.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.expr import Compare, Expr, IntConst, Mul, Name, transform, walk
from tactl.ir.linear import LinearTerm, term_expr
from tactl.ir.rta.model import ReceiveRule, ReceiveTA, received_message
from tactl.ir.ta.model import Define, ThresholdAutomaton
from tactl.ir.unknowns import Unknown, is_unknown, linear_form, product_key, range_constraints, split_product


class UnknownNameClash(ValueError):
    """An unknown's name in the TA (``a`` for ``?a``) is a name the TA already has."""


@dataclass(frozen=True)
class Coding:
    """How :func:`encode` named what it added, and what each encoded name means."""

    unknowns: tuple[Unknown, ...]
    meaning: dict[str, LinearTerm]  # encoded name → its value over ``?a``, ``?a*n`` and parameters
    added: tuple[Expr, ...]  # the bounds encode added to the assumptions (left out when decoding)
    # the thresholds the receive guards compare counts with, where they name unknowns
    # (``?a1 * n + ?b1 * t + ?c1``): the TA names each by a define (:func:`decode_ta`)
    thresholds: tuple[LinearTerm, ...] = ()

    @property
    def names(self) -> set[str]:
        return set(self.meaning)


def _shifted(u: Unknown) -> str:
    return u.name + "'"


def _coding(rta: ReceiveTA) -> Coding:
    known = {u.name: u for u in rta.unknowns}
    products: dict[str, None] = {}
    for e in _expressions(rta):
        for node in walk(e):
            if isinstance(node, Compare) and _mentions_unknown(node):
                diff = linear_form(node.left) - linear_form(node.right)
                products.update((x, None) for x in diff.variables() if split_product(x))
    meaning: dict[str, LinearTerm] = {}
    added: list[Expr] = []
    for u in rta.unknowns:
        meaning[_shifted(u)] = LinearTerm.of({u.name: 1}, -u.low)
        added.append(Compare("<=", Name(_shifted(u)), IntConst(u.high - u.low)))
    for key in products:
        u, x = split_product(key)  # type: ignore[misc]
        low, high = known[u].low, known[u].high
        name = product_key(_shifted(known[u]), x)
        meaning[name] = LinearTerm.of({key: 1, x: -low})
        added.append(Compare("<=", Name(name), term_expr([(x, high - low)]) if high > low else IntConst(0)))
    return Coding(tuple(rta.unknowns), meaning, tuple(added), _thresholds(rta))


def _thresholds(rta: ReceiveTA) -> tuple[LinearTerm, ...]:
    """Each side of a receive guard's comparison that names unknowns and no receive variable,
    once, in order of appearance."""
    out: dict[LinearTerm, None] = {}
    for r in (*rta.rules, *rta.crash_rules):
        for node in walk(r.guard):
            if isinstance(node, Compare) and _mentions_unknown(node):
                for side in (node.left, node.right):
                    form = linear_form(side)
                    if any(is_unknown(x) for x in form.variables()) and \
                            not any(received_message(x) for x in form.variables()):
                        out.setdefault(form, None)
    return tuple(out)


def _mentions_unknown(e: Expr) -> bool:
    return any(isinstance(n, Name) and is_unknown(n.name) for n in walk(e))


def _expressions(rta: ReceiveTA):
    yield from rta.assumptions
    yield from rta.unknown_constraints
    yield from (r.guard for r in (*rta.rules, *rta.crash_rules))


def encode(rta: ReceiveTA) -> tuple[ReceiveTA, Coding]:
    """The automaton over natural parameter-like symbols (module docstring), and its coding."""
    coding = _coding(rta)
    known = {u.name: u for u in rta.unknowns}

    def to_encoded(term: LinearTerm) -> Expr:
        coeffs: dict[str, int] = {}
        const = term.const
        for x, a in term.coeffs:
            parts = split_product(x)
            if parts is not None:  # ?a * n = ?a'*n + lo·n
                u = known[parts[0]]
                key = product_key(_shifted(u), parts[1])
                coeffs[key] = coeffs.get(key, 0) + a
                coeffs[parts[1]] = coeffs.get(parts[1], 0) + a * u.low
            elif is_unknown(x):  # ?a = ?a' + lo
                coeffs[_shifted(known[x])] = coeffs.get(_shifted(known[x]), 0) + a
                const += a * known[x].low
            else:
                coeffs[x] = coeffs.get(x, 0) + a
        return term_expr([(x, a) for x, a in coeffs.items() if a], const)

    def rewrite(node: Expr) -> Expr | None:
        if isinstance(node, Compare) and _mentions_unknown(node):
            return Compare(node.op, to_encoded(linear_form(node.left)),
                           to_encoded(linear_form(node.right)), span=node.span)
        return None

    def enc(e: Expr) -> Expr:
        return transform(e, rewrite)

    def rule(r: ReceiveRule) -> ReceiveRule:
        return replace(r, guard=enc(r.guard))

    encoded = replace(
        rta, parameters=(*rta.parameters, *coding.meaning),
        assumptions=(*map(enc, rta.assumptions), *map(enc, rta.unknown_constraints), *coding.added),
        rules=tuple(map(rule, rta.rules)), crash_rules=tuple(map(rule, rta.crash_rules)),
        unknowns=(), unknown_constraints=())
    return encoded, coding


def decode_expr(e: Expr, coding: Coding, order: dict[str, int] | None = None,
                names: dict[LinearTerm, str] | None = None) -> Expr:
    """``e`` of the encoded translation over the unknowns again (``?a`` renamed ``a``): every
    comparison with an encoded name is put in linear form, each side on its own; with ``names``
    (threshold → define name), a side that adds or subtracts whole thresholds names them."""
    order = order or {}
    renamed = {u.name: u.bare for u in coding.unknowns}
    names = names or {}

    def decoded(t: Expr) -> LinearTerm:
        form = linear_form(t)
        total = LinearTerm((), form.const)
        for x, a in form.coeffs:
            total = total + (coding.meaning[x].scale(a) if x in coding.meaning
                             else LinearTerm(((x, a),), 0))
        return total

    def compare(node: Compare) -> Compare:
        """Each name stays on the side it was on, constants go right: ``ns >= a * n - f``."""
        left = decoded(node.left)
        diff = left - decoded(node.right)
        on_left = set(left.variables())
        lhs = [(x, a) for x, a in diff.coeffs if x in on_left]
        rhs = LinearTerm(tuple((x, -a) for x, a in diff.coeffs if x not in on_left), -diff.const)
        if not lhs:
            lhs, rhs = list(diff.coeffs), LinearTerm((), -diff.const)
        return Compare(node.op, _named(LinearTerm(tuple(lhs)), names, renamed, order),
                       _named(rhs, names, renamed, order), span=node.span)

    def rewrite(node: Expr) -> Expr | None:
        if isinstance(node, Compare) and any(isinstance(n, Name) and n.name in coding.meaning
                                             for n in walk(node)):
            return compare(node)
        if isinstance(node, Name) and node.name in renamed:
            return Name(renamed[node.name], span=node.span)
        return None

    return transform(e, rewrite)


def _unknown_part(term: LinearTerm) -> dict[str, int]:
    return {x: a for x, a in term.coeffs if is_unknown(x)}


def _named(term: LinearTerm, names: dict[LinearTerm, str], renamed: dict[str, str],
           order: dict[str, int]) -> Expr:
    """``term`` as ``thresh1 - f`` when its unknowns are those of whole thresholds (each added or
    subtracted once), else written out."""
    rest, used = term, []
    for threshold, name in names.items():
        part = _unknown_part(threshold)
        for sign in (1, -1):
            have = _unknown_part(rest)
            if part and all(have.get(x) == sign * a for x, a in part.items()):
                rest = rest - threshold.scale(sign)
                used.append((name, sign))
                break
    if not used or _unknown_part(rest):
        return _render(term, renamed, order)
    used.sort(key=lambda item: item[1] < 0)  # thresh2 - thresh1, not -thresh1 + thresh2
    defined = {name for name, _ in used}
    return term_expr([*used, *_linear_items(rest, order)], rest.const,
                     rename=lambda x: Name(x) if x in defined else _name(x, renamed))


def _linear_items(term: LinearTerm, order: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(term.coeffs, key=lambda item: _order_key(item, order))


def _order_key(item: tuple[str, int], order: dict[str, int]) -> tuple:
    x, a = item
    parts = split_product(x)
    base = parts[1] if parts else x
    return (a < 0, order.get(base, len(order)), 0 if parts else 1, x)


def _name(x: str, renamed: dict[str, str]) -> Expr:
    parts = split_product(x)
    if parts is not None:
        return Mul(Name(renamed[parts[0]]), Name(parts[1]))
    return Name(renamed.get(x, x))


def _render(term: LinearTerm, renamed: dict[str, str], order: dict[str, int]) -> Expr:
    """Positive terms first, in the order of ``order`` (a product ``a * n`` just before ``n``)."""
    return term_expr(_linear_items(term, order), term.const, rename=lambda x: _name(x, renamed))


THRESHOLD_NAME = "thresh"


def threshold_names(coding: Coding, taken: set[str]) -> dict[LinearTerm, str]:
    """``thresh1``, ``thresh2``, … for the thresholds with unknowns, in order (``thresh1_`` …
    if the automaton has the name): what ``tactl synthesize`` prints instantiated."""
    out = {}
    for i, t in enumerate(coding.thresholds, start=1):
        name = f"{THRESHOLD_NAME}{i}"
        while name in taken:
            name += "_"
        out[t] = name
    return out


def decode_ta(ta: ThresholdAutomaton, rta: ReceiveTA, coding: Coding) -> ThresholdAutomaton:
    """The TA with unknowns: ``unknowns a, b;``, the ranges and ``where`` constraints first among
    the assumptions, the resilience condition as the receive automaton writes it."""
    renamed = {u.name: u.bare for u in coding.unknowns}
    parameters = tuple(p for p in ta.parameters if p not in coding.meaning)
    taken = {*parameters, *ta.shared, *(loc.name for loc in ta.locations)}
    clash = [u for u in coding.unknowns if u.bare in taken]
    if clash:
        raise UnknownNameClash(f"the unknown '{clash[0].name}' is written '{clash[0].bare}' in the "
                               f"threshold automaton, which already has a '{clash[0].bare}': "
                               "rename the unknown")
    order = {x: i for i, x in enumerate((*ta.shared, *parameters, *renamed.values()))}
    names = threshold_names(coding, taken | set(renamed.values()))
    defines = tuple(Define(name, _render(t, renamed, order)) for t, name in names.items())

    def dec(e: Expr) -> Expr:
        return decode_expr(e, coding, order, names)

    def original(e: Expr) -> Expr:
        return transform(e, lambda n: Name(renamed[n.name], span=n.span)
                         if isinstance(n, Name) and n.name in renamed else None)

    written = len(rta.assumptions) + len(rta.unknown_constraints)
    generated = [e for e in ta.assumptions[written:] if e not in coding.added]
    ranges = [c for u in coding.unknowns for c in range_constraints(u, u.bare)]
    assumptions = (*ranges, *map(original, rta.unknown_constraints), *map(original, rta.assumptions),
                   *map(dec, generated))
    return replace(
        ta, parameters=parameters, unknowns=tuple(renamed.values()), assumptions=assumptions,
        defines=(*ta.defines, *defines),
        inits=tuple(map(dec, ta.inits)),
        rules=tuple(replace(r, guard=dec(r.guard)) for r in ta.rules),
        properties=tuple(replace(p, formula=dec(p.formula)) for p in ta.properties))
