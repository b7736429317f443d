"""TA → the same TA with the integer coefficients of its thresholds made unknowns: what ``tactl
check --repair`` hands to the synthesis loop (tactl/synth/repair.py) to find the nearest
thresholds under which every property holds.

What is a threshold. A comparison in a guard between shared variables and a linear term of
parameters (``nsnt >= T + 1 - F``), after macro expansion. Each such term gets one unknown per
parameter (its coefficient, written value ± ``parameter_radius``) and one for its constant
(written value ± ``constant_radius``), all declared with their ranges as assumptions over unknowns
alone — the candidate space of a synthesis file (tactl/synth/space.py).

Where the unknowns go, and why there. A ByMC-style automaton names its thresholds once, in
defines (``define THRESH1 == T + 1;``), and uses them in the guards and in the justice of its
liveness specifications alike; lifting the define's body lifts every use at once, so the
justice keeps describing the rules. A threshold written straight into guards is lifted per
distinct term (every guard comparing shared variables with ``T + 1 - F`` shares its unknowns),
and a specification comparing shared variables with the very same term gets the same unknowns.
A specification that compares shared variables with another term keeps it as written and the
result says so (:attr:`Lifted.notes`): a liveness verdict under a justice that no longer matches
its rules is not a repair to trust blindly. Comparisons between parameters alone in guards are
left as written.

The resilience condition (``resilience=True``): in each assumption comparing two or more
parameters, every integer written in a product with a parameter (the 3 of ``n > 3 * t``) becomes
an unknown (± ``parameter_radius``), and a constant term (written or 0) is added as an unknown
(± ``constant_radius``), so that ``n >= 3 * t`` can become ``n >= 3 * t + 1``. Assumptions over a
single parameter (``f >= 0``) and those without a written integer (``t >= f``) stay.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from tactl.ir.expr import (Compare, Expr, IntConst, Mul, Name, Sum, const, names, summation, to_text,
                           transform, walk)
from tactl.ir.linear import LinearTerm, NonLinearError, linearize, term_expr
from tactl.ir.ta.model import ThresholdAutomaton


@dataclass(frozen=True)
class LiftOptions:
    parameter_radius: int = 1  # a parameter's coefficient ranges over written ± this
    constant_radius: int = 2  # a constant over written ± this
    resilience: bool = False  # also the resilience condition's written coefficients


@dataclass(frozen=True)
class Site:
    """One lifted threshold: where it is (``THRESH1``, ``rule 3's guard``, ``the resilience
    condition``), its written text, and its unknowns (parameter or ``1`` for the constant -> the
    unknown's name)."""

    where: str
    written: str
    unknowns: dict[str, str]
    lifted: Expr  # the term (or, for the resilience condition, the comparison) with unknowns


@dataclass(frozen=True)
class Lifted:
    ta: ThresholdAutomaton  # with unknowns and their ranges
    written: dict[str, int]  # each unknown's value in the input: the distance is measured from it
    sites: tuple[Site, ...]
    notes: tuple[str, ...] = field(default=())


class _Names:
    """Fresh unknown names that clash with no declared name (nor each other)."""

    def __init__(self, ta: ThresholdAutomaton) -> None:
        self.taken = set(ta.symbols) | set(ta.unknowns)

    def fresh(self, base: str) -> str:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name


class _Builder:
    def __init__(self, ta: ThresholdAutomaton, options: LiftOptions) -> None:
        self.ta, self.options = ta, options
        self.names = _Names(ta)
        self.written: dict[str, int] = {}
        self.ranges: list[Expr] = []
        self.sites: list[Site] = []

    def unknown(self, base: str, value: int, radius: int) -> Name:
        u = self.names.fresh(base)
        self.written[u] = value
        self.ranges += [Compare("<=", const(value - radius), Name(u)), Compare("<=", Name(u), const(value + radius))]
        return Name(u)

    def term(self, where: str, prefix: str, written: LinearTerm, shown: tuple[Expr, str] | None = None) -> Expr:
        """``Σ u_p * p + u_1`` with each ``u`` ranging around ``written``'s coefficient; the site
        shows the comparison ``shown`` (its shared side and operator) when given."""
        coeffs = written.coeff_map
        made: dict[str, str] = {}
        args: list[Expr] = []
        for p in self.ta.parameters:
            u = self.unknown(f"{prefix}_{p}", coeffs.get(p, 0), self.options.parameter_radius)
            made[p] = u.name
            args.append(Mul(u, Name(p)))
        c = self.unknown(f"{prefix}_1", written.const, self.options.constant_radius)
        made["1"] = c.name
        args.append(c)
        lifted = summation(args[0], (("+", a) for a in args[1:]))
        if shown is None:
            self.sites.append(Site(where, term_text(written, self.ta.parameters), made, lifted))
        else:
            left, op = shown
            self.sites.append(Site(where, f"{to_text(left)} {op} {term_text(written, self.ta.parameters)}", made,
                                   Compare(op, left, lifted)))
        return lifted


def lift_thresholds(ta: ThresholdAutomaton, options: LiftOptions = LiftOptions()) -> Lifted:
    """``ta`` (without unknowns) with its thresholds' coefficients made unknowns (module doc)."""
    if ta.unknowns:
        raise ValueError("the automaton already has unknowns: synthesize it instead of repairing it")
    b = _Builder(ta, options)
    params = set(ta.parameters)
    lifted_defines = _guard_defines(ta, params)
    defines = []
    for d in ta.defines:
        if d.name in lifted_defines:
            written = linearize(ta.macro_bodies[d.name])
            defines.append(replace(d, expr=b.term(f"define {d.name}", f"k{len(b.sites) + 1}", written)))
        else:
            defines.append(d)
    inline = _Inline(b, ta, lifted_defines)
    rules = [replace(r, guard=transform(r.guard, lambda node, rule=r: inline.guard(node, rule.id)))
             for r in ta.rules]
    inline.name_sites()
    properties = [replace(p, formula=transform(p.formula, lambda node, prop=p: inline.spec(node, prop.name)))
                  for p in ta.properties]
    notes = inline.notes
    assumptions = list(ta.assumptions)
    if options.resilience:
        assumptions = [_lift_assumption(b, a, params) for a in assumptions]
    unknowns = tuple(b.written)
    lifted = replace(ta, unknowns=unknowns, defines=tuple(defines), rules=tuple(rules),
                     properties=tuple(properties), assumptions=(*assumptions, *b.ranges),
                     declared_at=(*ta.declared_at, *((u, None) for u in unknowns)))
    return Lifted(lifted, dict(b.written), tuple(b.sites), tuple(dict.fromkeys(notes)))


def _nearest_guard(threshold: LinearTerm, guards: list[LinearTerm]) -> LinearTerm | None:
    """The guard threshold (on the same shared side) a specification's threshold differs from
    least — a Byzantine automaton's justice names the receive threshold ``t + 1`` where its guard
    reads ``t + 1 - f`` — or None when there is none or two are equally near."""
    def size(t: LinearTerm) -> int:
        return sum(abs(a) for _, a in t.coeffs) + abs(t.const)

    ranked = sorted(guards, key=lambda g: size(threshold - g))
    if not ranked or (len(ranked) > 1 and size(threshold - ranked[0]) == size(threshold - ranked[1])):
        return None
    return ranked[0]


def term_text(term: LinearTerm, order: tuple[str, ...]) -> str:
    """``term`` as a person writes a threshold: positive coefficients first, in the declared order
    of the parameters, then the negative ones, then the constant (``t - f + 1``)."""
    rank = {p: i for i, p in enumerate(order)}
    ordered = sorted(term.coeffs, key=lambda xa: (xa[1] < 0, rank.get(xa[0], len(rank)), xa[0]))
    out = ""
    for x, a in ordered:
        word = x if abs(a) == 1 else f"{abs(a)} * {x}"
        out = ("-" + word if a < 0 else word) if not out else f"{out} {'-' if a < 0 else '+'} {word}"
    if not out:
        return str(term.const)
    if term.const:
        out += f" {'-' if term.const < 0 else '+'} {abs(term.const)}"
    return out


class _Inline:
    """Thresholds written into guards, lifted once per distinct term, and the specifications'
    comparisons that follow them (module docstring)."""

    def __init__(self, b: _Builder, ta: ThresholdAutomaton, skip: set[str]) -> None:
        self.b, self.ta, self.skip = b, ta, skip
        self.by_term: dict[LinearTerm, Expr] = {}
        self.side: dict[LinearTerm, Expr] = {}  # each threshold's shared side, as first written
        self.users: dict[LinearTerm, list[int]] = {}  # the rules whose guards use each threshold
        self.notes: list[str] = []

    def _split(self, node: Expr) -> tuple[Expr, LinearTerm] | None:
        return _threshold(self.ta, node, set(self.ta.shared), set(self.ta.parameters), self.skip)

    def guard(self, node: Expr, rule: int) -> Expr | None:
        split = self._split(node)
        if split is None:
            return None
        left, threshold = split
        if threshold not in self.by_term:
            self.side[threshold] = left
            self.by_term[threshold] = self.b.term("", f"k{len(self.b.sites) + 1}", threshold, (left, node.op))
        users = self.users.setdefault(threshold, [])
        if rule not in users:
            users.append(rule)
        return Compare(node.op, left, self.by_term[threshold], span=node.span)

    def name_sites(self) -> None:
        """Each inline site named after the rules whose guards use it."""
        where = {id(self.by_term[t]): _rules_text(ids) for t, ids in self.users.items()}
        self.b.sites = [replace(site, where=where[id(site.lifted.right)])
                        if isinstance(site.lifted, Compare) and id(site.lifted.right) in where else site
                        for site in self.b.sites]

    def spec(self, node: Expr, prop: str) -> Expr | None:
        split = self._split(node)
        if split is None:
            return None
        left, threshold = split
        if threshold in self.by_term:
            return Compare(node.op, left, self.by_term[threshold], span=node.span)
        order = self.ta.parameters
        nearest = _nearest_guard(threshold, [t for t in self.by_term if self.side[t] == left])
        if nearest is None:
            self.notes.append(f"property {prop} compares {to_text(left)} with {term_text(threshold, order)}, "
                              "which follows no lifted guard threshold: it keeps its written value")
            return None
        offset = threshold - nearest
        self.notes.append(f"property {prop}'s {to_text(left)} vs {term_text(threshold, order)} follows "
                          f"the guard threshold {term_text(nearest, order)} (offset {term_text(offset, order)})")
        moved = summation(self.by_term[nearest], [("+", term_expr(offset.coeffs, offset.const))])
        return Compare(node.op, left, moved, span=node.span)


def _rules_text(ids: list[int]) -> str:
    if len(ids) == 1:
        return f"rule {ids[0]}'s guard"
    return f"the guards of rules {', '.join(map(str, ids))}"


def _guard_defines(ta: ThresholdAutomaton, params: set[str]) -> set[str]:
    """The defines named in a guard comparison with shared variables whose expansion is a linear
    term over parameters alone (the ByMC-style threshold)."""
    found: set[str] = set()
    shared = set(ta.shared)
    for r in ta.rules:
        for node in walk(r.guard):
            if not isinstance(node, Compare):
                continue
            if not any(n.name in shared for n in names(ta.expand(node))):
                continue
            for n in names(node):
                body = ta.macro_bodies.get(n.name)
                if body is not None and _parameter_term(body, params) is not None:
                    found.add(n.name)
    return found


def _parameter_term(e: Expr, params: set[str]) -> LinearTerm | None:
    try:
        term = linearize(e)
    except (NonLinearError, TypeError):
        return None
    return term if set(term.variables()) <= params else None


def _threshold(ta: ThresholdAutomaton, node: Expr, shared: set[str], params: set[str],
               skip: set[str]) -> tuple[Expr, LinearTerm] | None:
    """A comparison between shared variables and a parameter term, not through a lifted define,
    as (the shared side, the threshold); None for anything else."""
    if not isinstance(node, Compare) or any(n.name in skip for n in names(node)):
        return None
    try:
        diff = linearize(ta.expand(node.left)) - linearize(ta.expand(node.right))
    except (NonLinearError, TypeError):
        return None
    variables = set(diff.variables())
    if not variables & shared or not variables <= shared | params:
        return None
    left = LinearTerm.of({x: a for x, a in diff.coeffs if x in shared})
    threshold = LinearTerm.of({x: -a for x, a in diff.coeffs if x in params}, -diff.const)
    return term_expr(left.coeffs), threshold


def _lift_assumption(b: _Builder, a: Expr, params: set[str]) -> Expr:
    """An assumption comparing two or more parameters with its written coefficients and a
    constant made unknowns (module doc); any other assumption as written."""
    if not isinstance(a, Compare):
        return a
    mentioned = {n.name for n in names(b.ta.expand(a))}
    if len(mentioned & params) < 2 or not mentioned <= params:
        return a
    if not any(isinstance(n, IntConst) for n in walk(a)):  # `t >= f`: nothing written to vary
        return a
    made: dict[str, str] = {}
    prefix = f"r{len(b.sites) + 1}"

    def coefficient(node: Expr) -> Expr | None:
        if isinstance(node, Mul):
            for k, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(k, IntConst) and isinstance(other, Name) and other.name in params:
                    u = b.unknown(f"{prefix}_{other.name}", k.value, b.options.parameter_radius)
                    made[other.name] = u.name
                    return Mul(u, other, span=node.span)
        return None

    right = transform(a.right, coefficient)
    left = transform(a.left, coefficient)
    constant, right = _split_constant(right)
    c = b.unknown(f"{prefix}_1", constant, b.options.constant_radius)
    made["1"] = c.name
    lifted = Compare(a.op, left, summation(right, [("+", c)]) if right is not None else c, span=a.span)
    b.sites.append(Site("the resilience condition", to_text(a), made, lifted))
    return lifted


def _split_constant(e: Expr) -> tuple[int, Expr | None]:
    """The written integer added at the end of ``e`` (``3 * t + 1`` -> 1, ``3 * t``) and the rest."""
    if isinstance(e, IntConst):
        return e.value, None
    if isinstance(e, Sum) and isinstance(e.args[-1], IntConst):
        value = e.args[-1].value * (1 if e.ops[-1] == "+" else -1)
        rest = summation(e.args[0], zip(e.ops[:-1], e.args[1:-1]))
        return value, rest
    return 0, e


def unknown_sites(lifted: Lifted) -> Iterator[tuple[Site, str, str]]:
    """Each (site, what the unknown is the coefficient of, its name)."""
    for site in lifted.sites:
        for of, name in site.unknowns.items():
            yield site, of, name
