"""The candidate space of a synthesis file: its unknowns, the constraints that mention unknowns
alone (ByMC's files write the ranges as assumptions, ``0 <= a1; a1 <= 1;``) and each unknown's
bounds.

A finite space is what makes the loop of tactl/synth/cegis.py terminate (every candidate it checks
removes at least itself), so an unknown without a lower or an upper bound is refused, as are the
uses of unknowns the loop cannot handle: a product of two unknowns (the region of a refuted
candidate would not be linear), an unknown in an update (the run of a counterexample would then
depend on the candidate, see tactl/synth/region.py) and an unknown under ``/`` (the division
lowering, passes/ta_to_ta/lower_division.py, works on instantiated automata only, and a floor of
an unknown is not linear either).
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.expr import Div, Expr, Mul, names, to_text, walk
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.ta_to_ta.instantiate import only_unknowns


class SynthesisInputError(InputError):
    """A synthesis file the loop cannot search (positioned, like every bad input: exit 2)."""


@dataclass(frozen=True)
class CandidateSpace:
    """The unknowns (in declaration order), the constraints over them alone (macro-expanded) and
    each unknown's least and greatest value under those constraints."""

    unknowns: tuple[str, ...]
    constraints: tuple[Expr, ...]
    bounds: dict[str, tuple[int, int]]

    def size(self) -> int:
        """The number of points in the bounding box (an upper bound on the candidates)."""
        total = 1
        for lo, hi in self.bounds.values():
            total *= hi - lo + 1
        return total

    def describe(self) -> str:
        return ", ".join(f"{u} in [{lo}, {hi}]" for u, (lo, hi) in self.bounds.items())


_SOURCE: dict[str, str | None] = {"text": None}


def _error(path: str, message: str, span: Span | None) -> SynthesisInputError:
    return SynthesisInputError(Diagnostic(Severity.ERROR, message, span), path, _SOURCE["text"])


def candidate_space(ta: ThresholdAutomaton, path: str = "<input>", source: str | None = None) -> CandidateSpace:
    """The space of ``ta``; raises :class:`SynthesisInputError` (positioned in ``path``, whose
    text ``source`` gives the caret line) when it cannot be searched: no unknowns, an unknown
    unbounded, two unknowns multiplied, an unknown in an update or under a division."""
    _SOURCE["text"] = source
    if not ta.unknowns:
        raise _error(path, "the automaton has no unknowns to synthesise (declare them: "
                           "`unknowns a1, b1;`)", None)
    unknowns = set(ta.unknowns)
    for e in ta.expressions():
        _check_uses(ta, ta.expand(e), unknowns, path)
    for r in ta.rules:
        for u in r.updates:
            hit = next((n for n in names(ta.expand(u.expr)) if n.name in unknowns), None)
            if hit is not None:
                raise _error(path, f"unknown {hit.name} in an update ({u.var}' == {to_text(u.expr)}): "
                                   "synthesis needs updates that do not depend on the unknowns",
                             u.span or hit.span or r.span)
    constraints = tuple(ta.expand(a) for a in ta.assumptions if only_unknowns(ta, a))
    return CandidateSpace(tuple(ta.unknowns), constraints, _bounds(ta, constraints, path))


def _check_uses(ta: ThresholdAutomaton, e: Expr, unknowns: set[str], path: str) -> None:
    """Refuse a product both of whose factors name unknowns and an unknown under ``/``."""
    for node in walk(e):
        if isinstance(node, Mul):
            sides = [{n.name for n in names(side)} & unknowns for side in (node.left, node.right)]
            if sides[0] and sides[1]:
                first, second = sorted(sides[0])[0], sorted(sides[1])[0]
                raise _error(path, f"'{to_text(node)}' multiplies unknowns ({first} and {second}): "
                                   "synthesis needs the thresholds linear in the unknowns (an "
                                   "unknown times parameters at most)", node.span)
        if isinstance(node, Div):
            hit = next((n for n in names(node) if n.name in unknowns), None)
            if hit is not None:
                raise _error(path, f"unknown {hit.name} under a division ('{to_text(node)}'): "
                                   "synthesis needs the thresholds linear in the unknowns",
                             node.span or hit.span)


def _declared(ta: ThresholdAutomaton, name: str) -> Span | None:
    return next((span for n, span in ta.declared_at if n == name), None)


def _bounds(ta: ThresholdAutomaton, constraints: tuple[Expr, ...], path: str) -> dict[str, tuple[int, int]]:
    """Each unknown's minimum and maximum under ``constraints`` (z3's Optimize)."""
    import z3  # lazy: z3 is slow to import; reading a file needs no solver

    sym = int_symbols()
    base = [to_z3(c, sym) for c in constraints]
    solver = z3.Solver()
    solver.add(*base)
    if solver.check() == z3.unsat:
        raise _error(path, "the constraints on the unknowns have no solution: the candidate space "
                           "is empty", None)
    bounds: dict[str, tuple[int, int]] = {}
    for u in ta.unknowns:
        found = []
        for direction, word, example in (("minimize", "lower", f"{u} >= -K"), ("maximize", "upper", f"{u} <= K")):
            opt = z3.Optimize()
            opt.add(*base)
            handle = getattr(opt, direction)(sym(u))
            opt.check()
            value = handle.value()
            if not z3.is_int_value(value):
                raise _error(path, f"unknown {u} has no {word} bound: add `{example};` to the "
                                   "assumptions", _declared(ta, u))
            found.append(value.as_long())
        bounds[u] = (found[0], found[1])
    return bounds
