"""ByMC's symbolic receive, ``havoc(next_x); assume(x <= next_x && next_x <= nsnt_x + B);``.

The ISOLA'18 Promela files (``#ifndef SPIN``, the branch ByMC reads by default) receive this way:
``next_x`` becomes any count between the old one and the bound. That is what the SPIN branch's
pair means too (a receive choice ``next_x = x + 1`` / ``next_x = x`` and the bound ``if`` that
forgets a receive past ``nsnt_x + B``), taken over several steps; a receive automaton's count is
exactly "any count up to the bound, never decreasing", so both become the same
:class:`multi.ReceiveVar` (``havoc=True``) and the translation reads ``next_x`` as the
abstract count ``received(M)`` after the pair. Where a havoc pair stands:

* **directly in the step** (strb, frb): every step may receive;
* **in an option of an** ``if`` **over location variables** (aba, bosco, cc, nbacr, ...): the
  options that say ``next_x = x`` instead receive nothing at their locations — the count is the one
  the process entered with (``values.Frozen``: a step there may not read it) — and the
  options that say ``next_x = 0`` reset it (:func:`check_resets` says when that is exact).

Anything else about a ``havoc`` is refused at its position: a ``havoc`` not followed by its
``assume``, an ``assume`` of another shape, two pairs of one variable with different bounds.
"""

from __future__ import annotations

from tactl.ir.promela import syntax as P
from tactl.passes.pml_to_rta.values import refuse


SHAPE = "havoc(next_x); assume(x <= next_x && next_x <= nsnt + F)"


def _conjuncts(e: P.PExpr) -> list[P.PExpr]:
    if isinstance(e, P.PBinary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _le(c: P.PExpr) -> tuple[P.PExpr, P.PExpr] | None:
    """``a <= b`` or ``b >= a`` as (a, b)."""
    if isinstance(c, P.PBinary) and c.op == "<=":
        return c.left, c.right
    if isinstance(c, P.PBinary) and c.op == ">=":
        return c.right, c.left
    return None


def pair(h: P.Havoc, a: P.Stmt | None) -> tuple[str, P.PExpr]:
    """(x, B) of ``havoc(next_x); assume(x <= next_x && next_x <= B)``; refuses other shapes."""
    nxt = h.var
    if not isinstance(a, P.AssumeStmt):
        raise refuse(f"'havoc({nxt})' must be followed by 'assume({nxt[5:] if nxt.startswith('next_') else 'x'} "
                     f"<= {nxt} && {nxt} <= nsnt + F)': tactl reads havoc only as ByMC's receive "
                     f"'{SHAPE}'", h.span)
    parts = [_le(c) for c in _conjuncts(a.expr)]
    low = [lo for lo, hi in (q for q in parts if q) if isinstance(hi, P.PName) and hi.name == nxt
           and isinstance(lo, P.PName) and lo.name != nxt]
    high = [hi for lo, hi in (q for q in parts if q) if isinstance(lo, P.PName) and lo.name == nxt]
    if len(parts) != 2 or None in parts or len(low) != 1 or len(high) != 1:
        raise refuse(f"the assume after 'havoc({nxt})' must say exactly 'x <= {nxt} && {nxt} "
                     f"<= B' (the old count and the receive bound): tactl reads havoc only as "
                     f"ByMC's receive '{SHAPE}'", a.span)
    x = low[0]
    assert isinstance(x, P.PName)
    return x.name, high[0]


def find_havocs(step: tuple[P.Stmt, ...], locals_: dict[str, int], linear, receive_var):
    """One ``receive_var(...)`` (a :class:`multi.ReceiveVar`) per variable some havoc pair
    of ``step`` receives into; ``sites`` and ``assumes`` are the ids of its pairs' statements (the
    translation reads the havoc as the receive and skips the assume: it is the bound)."""
    sites: dict[str, list[tuple[P.Havoc, P.AssumeStmt, str, P.PExpr]]] = {}
    for seq in P.statement_lists(step):
        for k, s in enumerate(seq):
            if isinstance(s, P.Havoc):
                a = seq[k + 1] if k + 1 < len(seq) else None
                x, b = pair(s, a)
                for v in (s.var, x):
                    if v not in locals_:
                        raise refuse(f"'{v}' is not a local variable of the process", s.span)
                sites.setdefault(s.var, []).append((s, a, x, b))  # type: ignore[arg-type]
    out = []
    for nxt, found in sites.items():
        h, a, x, b = found[0]
        for h2, a2, x2, b2 in found[1:]:
            if x2 != x or linear(b2) != linear(b):
                raise refuse(f"two receives into '{nxt}' with different old counts or bounds", h2.span)
        r = receive_var(x, nxt, h, [(None, 1), (None, 0)], b)
        r.havoc = True
        r.sites = tuple(id(f[0]) for f in found)
        r.assumes = tuple(id(f[1]) for f in found)
        out.append(r)
    return out


def check_resets(resets, havoc_at, edges, reads) -> None:
    """A havoc receive variable reset to 0 (``next_x = 0``) on a path from location ``s`` to ``t``
    is exact when the receive automaton, which cannot reset a count, needs no reset there:

    * the count is 0 at ``s`` anyway: no location where the process receives it (``havoc_at``)
      reaches ``s`` (bosco's V0, cc's DMZ for the phase-2 counts); or
    * no step from ``t`` on reads it (``reads``: the locations whose steps' conditions read the
      count): what the count is afterwards changes no step (cc's DMZ for the phase-1 counts,
      c1cs's decided locations).

    ``resets``: (s, t, counter) → the reset statement's span; raises at the span otherwise."""
    succ: dict[tuple, set[tuple]] = {}
    for s, t, _ in edges:
        succ.setdefault(s, set()).add(t)

    def reach(start: set[tuple]) -> set[tuple]:
        seen, todo = set(start), list(start)
        while todo:
            for n in succ.get(todo.pop(), ()):
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen

    for (s, t, counter), span in resets.items():
        if s not in reach(set(havoc_at.get(counter, ()))):
            continue
        if not reach({t}) & reads.get(counter, set()):
            continue
        raise refuse(f"the receive count of '{counter}' is reset to 0 where it may be "
                     "non-zero and is read afterwards: a receive automaton cannot reset a "
                     "count", span)
