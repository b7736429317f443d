"""``tactl check --repair`` on pseudocode: the nearest thresholds of an ``.alg`` program, searched
in its own text.

Why not on the translated automaton. The translation of an ``.alg`` program is not linear in its
thresholds: quantifier elimination adds guards over parameters alone that come from comparing
two thresholds (``n - 2 * t >= 2`` from ``t + 1 < n - t``), and the justice of the liveness
properties is derived from the receive guards. Lifting the coefficients of the translated guards
would leave those stale. So the threshold of each ``received … from K`` condition (each
occurrence on its own: each is its own statement, where a ``.ta`` shares one define) and, on
request, each written coefficient of the resilience condition are lifted in the program itself,
and every candidate is a program text with the values put in, read, translated and checked by
the same chain as ``tactl check`` (the ``check`` callback): nothing is reused between candidates,
so no region is excluded — candidates are tried one by one in rings of growing L1 distance from
the written values, and the first ring with a repair is searched to its end.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY
from tactl.ir.alg.syntax import Algorithm, Arith, Compare as AlgCompare, Num, Received, Ref
from tactl.ir.errors import Span
from tactl.ir.ta.model import Define, ThresholdAutomaton
from tactl.ir.expr import Compare, Expr, Mul, Name, const, summation
from tactl.ir.linear import LinearTerm, term_expr
from tactl.passes.ta_to_ta.lift_thresholds import LiftOptions, Site, term_text
from tactl.synth.nearest import distance
from tactl.synth.result import search_stops
from tactl.synth.repair import Repair, RepairResult, changes, nearest_only, order_repairs, repaired_text
from tactl.util import deadline

POINT_BY_POINT = "each candidate program read, translated and checked (no regions: see tactl/synth/repair_alg.py)"

# verdicts of one candidate program: property -> verdict (stops at the first that is not HOLDS)
Check = Callable[[str], dict[str, str]]


@dataclass(frozen=True)
class _Place:
    """Where a site's text is replaced: a span of the source and how to print it."""

    span: Span
    site: int  # index into the sites
    kind: str  # "term" or "compare"


@dataclass
class SourceLift:
    sites: list[Site]
    written: dict[str, int]
    ranges: dict[str, tuple[int, int]]
    places: list[_Place]
    text: str
    parameters: tuple[str, ...]
    resilience: tuple[Expr, ...] = ()  # the conjuncts of the resilience condition not lifted

    def automaton(self) -> ThresholdAutomaton:
        """A threshold automaton that holds only what the order of the repairs reads
        (tactl/synth/order.py): the parameters, the unknowns, each threshold as a define and the
        resilience condition, lifted where it is."""
        lifted_rc = [site.lifted for site in self.sites if isinstance(site.lifted, Compare)]
        thresholds = [Define(f"T{i + 1}", site.lifted) for i, site in enumerate(self.sites)
                      if not isinstance(site.lifted, Compare)]
        return ThresholdAutomaton("repairs", parameters=self.parameters, unknowns=tuple(self.written),
                                  defines=tuple(thresholds), assumptions=(*self.resilience, *lifted_rc))

    def program(self, values: Mapping[str, int]) -> str:
        """The program text with ``values`` put into every lifted place."""
        lines = self.text.split("\n")
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        out = self.text
        for place in sorted(self.places, key=lambda p: (p.span.line, p.span.col), reverse=True):
            a = starts[place.span.line - 1] + place.span.col - 1
            b = starts[place.span.end_line - 1] + place.span.end_col - 1
            out = out[:a] + repaired_text(self.sites[place.site], values, self.parameters) + out[b:]
        return out


def _linear(term, params: set[str]) -> LinearTerm | None:
    """An .alg term over parameters as a linear term, or None."""
    if isinstance(term, Num):
        return LinearTerm((), term.value)
    if isinstance(term, Ref):
        return LinearTerm(((term.name, 1),), 0) if term.name in params else None
    if isinstance(term, Arith):
        parts = [_linear(a, params) for a in term.args]
        if any(p is None for p in parts):
            return None
        if term.op == "neg" and len(parts) == 1:
            return -parts[0]
        if term.op == "+" and len(parts) == 2:
            return parts[0] + parts[1]
        if term.op == "-" and len(parts) == 2:
            return parts[0] - parts[1]
        if term.op == "*" and len(parts) == 2:
            if parts[0].is_constant:
                return parts[1].scale(parts[0].const)
            if parts[1].is_constant:
                return parts[0].scale(parts[1].const)
    return None


def _received(node) -> Iterator[Received]:
    """Every ``received`` condition of a program (any depth of statements and conditions)."""
    if isinstance(node, Received):
        yield node
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            yield from _received(getattr(node, f.name))
    elif isinstance(node, (tuple, list)):
        for x in node:
            yield from _received(x)


class _Lifter:
    def __init__(self, alg: Algorithm, options: LiftOptions) -> None:
        self.alg, self.options = alg, options
        self.params = tuple(alg.parameters)
        self.written: dict[str, int] = {}
        self.ranges: dict[str, tuple[int, int]] = {}
        self.taken = set(alg.parameters) | {v.name for v in alg.variables}

    def unknown(self, base: str, value: int, radius: int) -> Name:
        name = base
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        self.written[name] = value
        self.ranges[name] = (value - radius, value + radius)
        return Name(name)

    def term(self, prefix: str, written: LinearTerm, which: tuple[str, ...] | None = None,
             constant: bool = True) -> tuple[Expr, dict[str, str]]:
        """The lifted term: an unknown coefficient for each parameter of ``which`` (default:
        every parameter), the other coefficients as written, and an unknown constant."""
        coeffs = written.coeff_map
        made: dict[str, str] = {}
        args: list[Expr] = []
        for p in self.params:
            if which is None or p in which:
                u = self.unknown(f"{prefix}_{p}", coeffs.get(p, 0), self.options.parameter_radius)
                made[p] = u.name
                args.append(Mul(u, Name(p)))
            elif coeffs.get(p, 0):
                args.append(Mul(const(coeffs[p]), Name(p)))
        if constant:
            c = self.unknown(f"{prefix}_1", written.const, self.options.constant_radius)
            made["1"] = c.name
            args.append(c)
        elif written.const:
            args.append(const(written.const))
        return summation(args[0], (("+", a) for a in args[1:])), made


def lift_source(alg: Algorithm, text: str, options: LiftOptions) -> SourceLift:
    """The thresholds of ``alg`` (and its resilience condition's written coefficients, with
    ``options.resilience``) lifted into unknowns, with the places of ``text`` they replace."""
    lifter = _Lifter(alg, options)
    params = set(alg.parameters)
    sites: list[Site] = []
    places: list[_Place] = []
    found = [r for r in _received(alg.program) if not r.from_coordinator and r.amount.span is not None]
    lifted_terms = [(r, _linear(r.amount, params)) for r in found]
    lifted_terms = [(r, w) for r, w in lifted_terms if w is not None]
    per_line: dict[int, int] = {}
    for r, _ in lifted_terms:
        per_line[r.amount.span.line] = per_line.get(r.amount.span.line, 0) + 1
    seen_on: dict[int, int] = {}
    for r, written in lifted_terms:  # each occurrence its own unknowns: each is its own statement
        line = r.amount.span.line
        seen_on[line] = seen_on.get(line, 0) + 1
        where = (f"the threshold on line {line}" if per_line[line] == 1
                 else f"threshold {seen_on[line]} on line {line}")
        lifted, made = lifter.term(f"k{len(sites) + 1}", written)
        places.append(_Place(r.amount.span, len(sites), "term"))
        sites.append(Site(where, term_text(written, alg.parameters), made, lifted))
    kept: list[Expr] = []
    for c in alg.resilience:
        site = _resilience_site(lifter, c, params, len(sites)) if options.resilience else None
        if site is not None:
            places.append(_Place(c.span, len(sites), "compare"))
            sites.append(site)
        elif len(c.ops) == 1 and None not in (sides := [_linear(t, params) for t in c.terms]):
            kept.append(Compare(c.ops[0], term_expr(sides[0].coeffs, sides[0].const),
                                term_expr(sides[1].coeffs, sides[1].const)))
    return SourceLift(sites, lifter.written, lifter.ranges, places, text, tuple(alg.parameters), tuple(kept))


def _resilience_site(lifter: _Lifter, c: AlgCompare, params: set[str], index: int) -> Site | None:
    """``n > 3t``: the coefficients written as integers times a parameter on the right, and a
    constant, lifted; None for a comparison of one parameter or without a written integer."""
    if len(c.ops) != 1 or c.span is None:
        return None
    left, right = (_linear(t, params) for t in c.terms)
    if left is None or right is None or len(set(left.variables()) | set(right.variables())) < 2:
        return None
    multiplied = tuple(x for x, a in right.coeffs if a != 1)
    if not multiplied and not right.const:
        return None
    lifted_right, made = lifter.term(f"r{index + 1}", right, which=multiplied)
    op = c.ops[0]
    written = f"{term_text(left, lifter.params)} {op} {term_text(right, lifter.params)}"
    return Site("the resilience condition", written, made, Compare(op, term_expr(left.coeffs, left.const), lifted_right))


def rings(written: Mapping[str, int], ranges: Mapping[str, tuple[int, int]], d: int) -> Iterator[dict[str, int]]:
    """Every assignment inside ``ranges`` at L1 distance exactly ``d`` from ``written``."""
    names = list(written)

    def go(i: int, left: int, acc: dict[str, int]) -> Iterator[dict[str, int]]:
        if i == len(names):
            if left == 0:
                yield dict(acc)
            return
        u = names[i]
        lo, hi = ranges[u]
        w = written[u]
        for step in range(-left, left + 1):
            if lo <= w + step <= hi:
                acc[u] = w + step
                yield from go(i + 1, left - abs(step), acc)
        acc.pop(u, None)

    yield from go(0, d, {})


def repair_source(lift: SourceLift, check: Check, progress: Callable[[str], None] | None = None,
                  vacuous_allowed: tuple[str, ...] = ()) -> RepairResult:
    """Candidates ring by ring (module docstring); each checked by ``check`` on its text. A
    repair makes every property HOLD, but for those of ``vacuous_allowed`` (vacuous in the
    written program already), which may hold vacuously."""
    out = RepairResult(tuple(lift.sites), dict(lift.ranges), POINT_BY_POINT)
    started = shown = time.perf_counter()
    widest = sum(max(abs(lo - lift.written[u]), abs(hi - lift.written[u])) for u, (lo, hi) in lift.ranges.items())
    with search_stops(out):
        for d in range(1, widest + 1):
            for values in rings(lift.written, lift.ranges, d):
                if deadline.remaining() == 0:
                    raise deadline.DeadlineExceeded(deadline.timeout_reason())
                out.candidates_tried += 1
                verdicts = check(lift.program(values))
                if verdicts and all(v == HOLDS or (v == HOLDS_VACUOUSLY and p in vacuous_allowed)
                                    for p, v in verdicts.items()):
                    out.repairs.append(Repair(values, distance(values, lift.written),
                                              changes(out.sites, lift.written, values, lift.parameters), verdicts))
                if progress is not None and time.perf_counter() - shown >= 1.0:
                    shown = time.perf_counter()
                    progress(f"repair: ring {d}, {out.candidates_tried} candidates checked, "
                             f"{len(out.repairs)} repairs, {time.perf_counter() - started:.1f} s elapsed")
            if out.repairs:
                break
        out.complete = True
    out.time_s = time.perf_counter() - started
    return order_repairs(nearest_only(out), lift.automaton())
