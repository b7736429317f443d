"""Test oracle: are two threshold automata's rules z3-equivalent, group by group (from, to)?

Used to compare the TA generated from a corpus ``.alg`` (parse → translate) with the TA generated
from the hand-written ``.rta`` (translate). Their locations have different names, and one may
distinguish states the other merges (the pseudocode keeps Ben-Or's estimate while waiting; the
hand-made automaton keeps what was sent), so each side's locations are mapped onto common
*quotient* names; guards mention only shared variables and parameters, so the guards of all
rules between two quotient locations with the same updates can be compared as one disjunction:

    ⋁ guards(gen, Q(from), Q(to), updates)  ⇔  ⋁ guards(hand, Q(from), Q(to), updates)   under RC.

Shared variables are renamed through the message map (``ns_P0D`` → ``ns_P0``). Self-loops are
compared separately: both automata may stutter anywhere (async), so they are left out of the
groups and reported only if a side has a guarded one the other lacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import z3

from tactl.ir.expr import Expr, Name, disj, substitute
from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.ta.model import ThresholdAutomaton


@dataclass(frozen=True)
class Difference:
    group: tuple
    why: str

    def __str__(self) -> str:
        src, tgt, ups = self.group
        return f"{src} -> {tgt} {list(ups)}: {self.why}"


def _rename_shared(name: str, messages: dict[str, str]) -> str:
    m = re.fullmatch(r"(nsf?_)(\w+)", name)
    if m and m.group(2) in messages:
        return m.group(1) + messages[m.group(2)]
    return name


def _groups(ta: ThresholdAutomaton, locations: dict[str, str], messages: dict[str, str]):
    rename = {s: Name(_rename_shared(s, messages)) for s in ta.shared}
    out: dict[tuple, list[Expr]] = {}
    for r in ta.rules:
        src = locations.get(r.source, r.source)
        tgt = locations.get(r.target, r.target)
        ups = tuple(sorted((_rename_shared(u.var, messages), u.increment())
                           for u in r.updates if not u.is_identity))
        if src == tgt and not ups:
            continue
        out.setdefault((src, tgt, ups), []).append(substitute(r.guard, rename))
    return out


def compare(generated: ThresholdAutomaton, hand: ThresholdAutomaton,
            gen_locations: dict[str, str], hand_locations: dict[str, str] | None = None,
            messages: dict[str, str] | None = None) -> list[Difference]:
    """The groups whose guards differ (empty: equivalent). ``gen_locations`` maps every
    generated location to its quotient name (identity for names not listed), ``hand_locations``
    the hand-written ones, ``messages`` generated message types to hand-written ones."""
    messages = messages or {}
    g = _groups(generated, gen_locations, messages)
    h = _groups(hand, hand_locations or {}, {})
    sym = int_symbols()
    rc = [to_z3(e, sym) for e in (*hand.assumptions, *generated.assumptions)]
    rc += [sym(p) >= 0 for p in hand.parameters]
    rc += [sym(s) >= 0 for s in (*hand.shared, *(_rename_shared(x, messages) for x in generated.shared))]
    diffs = []
    for key in sorted(set(g) | set(h), key=str):
        a = to_z3(disj(*g.get(key, [])), sym) if key in g else z3.BoolVal(False)
        b = to_z3(disj(*h.get(key, [])), sym) if key in h else z3.BoolVal(False)
        s = z3.Solver()
        s.set("timeout", 20000)
        s.add(*rc, a != b)
        verdict = s.check()
        if verdict == z3.sat:
            side = "generated only" if key not in h else "hand-written only" if key not in g else \
                f"guards differ, e.g. at {s.model()}"
            diffs.append(Difference(key, side))
        elif verdict == z3.unknown:
            diffs.append(Difference(key, "z3 could not decide the equivalence"))
    return diffs
