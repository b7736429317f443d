"""Crashed processes that keep their local state: one crash location per state the properties see.

NBAC's Promela files (``asyn-ray97-nbac``, ``nbacr``) crash with ``pc != CRASH -> next_pc =
CRASH`` and keep the failure-detector bit ``some_fail``: a crashed process is at ``pc = CRASH``
with ``some_fail`` 0 or 1, and ``all_suspicious = all(Proc:some_fail == 1)`` reads it. tactl's one
crash location CR forgets that, so where a proposition of an ``ltl`` block tells the crash
valuations apart they become **crash copies** (``ReceiveTA.crash_locations``, ``ir/rta/model.py``):
one crash location per class of crash valuations that every such proposition treats alike
(``classes``), named ``CR_`` and the values that tell the classes apart (``CR_some_fail1``).
Where no proposition tells them apart the one CR stays (``passes/pml_to_rta/crash.py``), as before.

The crash rules are the file's own crash steps (``crash_rules``): ``s -> CR_x`` for every step
from a location ``s`` into a valuation of class ``x``, sending ``M`` to some receivers only where
the step increments M's crash-send counter (``nsntMF++``); tactl's ``crash(F)`` then counts each
of them against F (``passes/rta_to_ta/eliminate.py``). ``crash.py`` has already checked what makes
this the file's crash model: a crash possible at every location whatever was received, crash-send
counters exactly at unconditional broadcasts.

**Leaving a crash location** (``split_moves``). The CONCUR'14 and CAV'15 files crash with an
unguarded ``:: next_pc = CRASH`` that a crashed process may take again: it stays at ``pc =
CRASH`` but chooses ``some_fail`` anew at every step. Such a step from a crash valuation is read
only when it enters a crash valuation too, sends nothing and needs nothing (no condition):
between two classes it is a crash rule from one crash copy to the other (a crashed process's own
step: no crash counted, never forced by the justice, as nothing forces a crashed process to move);
within a class it changes nothing the properties see and is dropped. A step from a crash
valuation back to a correct one, or one that sends or reads something, is refused at the receive
bound (a crashed process does not recover, and tactl does not let crashed processes act).
"""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.ir.expr import BoolConst, conj
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import ReceiveRule
from tactl.ir.ta.model import Location, Origin
from tactl.passes.pml_to_rta import propositions, solving
from tactl.passes.pml_to_rta.state import CrashCopy, TranslationState
from tactl.passes.pml_to_rta.values import Refuse, refuse

FAIRNESS = "fairness"  # the ltl block whose propositions tactl does not read (properties.py)


def split_moves(tr: TranslationState, edges: list, dead: list[tuple], span: Span | None) -> tuple[list, list]:
    """(the edges that do not start at a crash valuation, the steps of crashed processes); the
    latter must enter a crash valuation, send nothing and need nothing (module docstring)."""
    moves = [(s, t, p) for s, t, p in edges if s in dead]
    for _, t, p in moves:
        if t not in dead:
            raise refuse("the crash location must never be left", span)
        if p.sends or p.cond and not solving.valid(tr, conj(*p.cond)):
            raise refuse("a crashed process's step must send nothing and need nothing (it may "
                         "only change what the crashed process kept)", span)
    return [(s, t, p) for s, t, p in edges if s not in dead], moves


def classes(tr: TranslationState, dead: list[tuple]) -> list[list[tuple]]:
    """The crash valuations grouped by what the propositions of the ``ltl`` blocks say of a
    process there (the ``fairness`` block's are not read: ``properties.py``); a proposition
    tactl cannot evaluate at a valuation (it reads a receive variable) is refused where it is
    read, not here."""
    used = {n for ltl in tr.m.ltls if ltl.name != FAIRNESS for n in P.variable_names(ltl.formula)}
    conditions = [x.arg for p in tr.m.props if p.name in used for x in P.subexpressions(p.expr)
                  if isinstance(x, P.PCall) and not isinstance(x.arg, P.PAtLabel)]
    groups: dict[tuple, list[tuple]] = {}
    for d in dead:
        seen = []
        for c in conditions:
            try:
                seen.append(propositions.holds(tr, c, d))
            except Refuse:
                seen.append(None)
        groups.setdefault(tuple(seen), []).append(d)
    return list(groups.values())


def keep(tr: TranslationState, dying: list, moves: list, groups: list[list[tuple]], span: Span | None,
         faults: str = "crash(F) with a new parameter 0 <= F <= N (the file bounds no crash count)") -> None:
    """Make each class a crash copy (the state's ``crash_copies``, no longer locations of their
    own), keep the file's crash steps and crashed processes' steps for ``crash_rules``, and say
    so in one warning (``faults``: the fault model it names)."""
    lv = tr.loc_vars()
    differing = [i for i in range(len(lv)) if len({g[0][i] for g in groups}) > 1]
    taken = set(tr.params) | set(tr.shared)
    copies = []
    for g in groups:
        fixed = [i for i in differing if len({d[i] for d in g}) == 1]
        name = "CR_" + "_".join(f"{lv[i]}{g[0][i]}" for i in fixed) if fixed else "CR"
        while name in taken:
            name += "_"
        taken.add(name)
        meaning = " or ".join(_meaning(tr, lv, d) for d in g)
        copies.append(CrashCopy(name, tuple(g), meaning))
        for d in g:
            tr.valuations.remove(d)
    tr.crash_copies = copies
    tr.crash_steps = list(dying)
    tr.crashed_steps = [(s, t, p) for s, t, p in moves if copy_of(tr, s) != copy_of(tr, t)]
    tr.crashed_moves = bool(moves)
    told = ", ".join(lv[i] for i in differing)
    left = (f"; a crashed process may still change {told}, as the file's crash step taken again "
            "lets it (a step between crash locations: no crash counted, never forced)"
            if tr.crashed_steps else "")
    kept = (f"the properties tell crashed processes apart by {told}, so the crash location is "
            f"{len(copies)} crash locations that keep it ({', '.join(c.name for c in copies)})"
            if len(copies) > 1 else f"the crash location is {copies[0].name}")
    tr.notes.append(Diagnostic(Severity.WARNING, (
        f"crash faults: {kept}, entered by the file's crash steps; faults {faults}: a process may "
        "stop at any location; a broadcast cut short reaches some receivers (the file's "
        + ", ".join(f"'{c}'" for c in tr.crash_of) + ")" + left),
        span))


def _meaning(tr: TranslationState, lv: list[str], valuation: tuple) -> str:
    """``pc = 5 (CRASH), some_fail = 0 (NO)``: the values and the macros of the file that spell
    them, as the locations' table says them (``explore.name_locations``)."""
    used = tr.m.macros_in_process
    parts = []
    for var, val in zip(lv, valuation):
        macros = [name for name, v in tr.defines.items() if v == val and name in used]
        parts.append(f"{var} = {val}" + (f" ({', '.join(macros)})" if macros else ""))
    return ", ".join(parts)


def copy_of(tr: TranslationState, valuation: tuple) -> str:
    return next(c.name for c in tr.crash_copies if valuation in c.valuations)


def crash_rules(tr: TranslationState, crash_send: str) -> tuple[tuple[Location, ...], tuple[ReceiveRule, ...]]:
    """The crash copies as locations and the crash rules into and between them: one per source,
    copy and partial message, numbered from 0 as the parse pass of ``.alg`` numbers them."""
    groups: dict[tuple, list[int]] = {}
    for s, t, p in tr.crash_steps:
        sent = tuple(x[len(crash_send) + 1:] for x in p.sends if x.startswith(crash_send))
        groups.setdefault((tr.names[s], copy_of(tr, t), sent), []).extend(p.lines)
    for s, t, p in tr.crashed_steps:
        groups.setdefault((copy_of(tr, s), copy_of(tr, t), ()), []).extend(p.lines)
    rules = []
    for k, ((source, target, sent), lines) in enumerate(groups.items()):
        text = "; ".join(f'line {n} "{tr.m.line(n)}"' for n in sorted(set(lines)))
        rules.append(ReceiveRule(k, source, target, BoolConst(True), sent,
                                 origin=Origin(tr.m.path, tuple(sorted(set(lines))), text)))
    locations = tuple(Location(c.name, origin=Origin(tr.m.path, (), c.meaning)) for c in tr.crash_copies)
    return locations, tuple(rules)
