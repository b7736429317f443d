"""The multi-round conclusion of a ``rounds carrying v:`` algorithm, from its one-round verdicts.

``passes/alg_to_rta/rounds.py`` generates the round-rigid obligations; the engines decide them like any
property. This module states what they prove about *all* rounds — agreement, validity, and
termination with probability 1 — each with the obligations its argument uses and the premises it
assumes, and withholds a conclusion (saying which obligation is violated, unknown or unchecked,
and which premise was not shown) unless every obligation it uses HOLDS and every premise was
shown on the automaton (``passes/alg_to_rta/premises.py``). A vacuous pass is not used: an obligation
that holds only because no run meets its antecedent proves nothing about the runs the argument
needs.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache

from tactl.engines.result import HOLDS, PropertyResult
from tactl.ir.alg.reader import parse_alg
from tactl.passes.alg_to_rta.extract import parse_algorithm
from tactl.passes.alg_to_rta.premises import Premise, premises
from tactl.passes.alg_to_rta.rounds import RoundStructure, structure

ASSUMPTIONS = (
    "communication-closed rounds (a process reads only its current round's messages; every round "
    "runs the same body; decided processes keep running it); a round-rigid adversary (for "
    "safety, round-rigid schedules are no restriction; for termination, the schedule is "
    "round-rigid and fair — weak adversaries reduce to it (Bertrand, Lazić, Widder, VMCAI 2021) — "
    "and it does not see a round's coin outcomes before the round ends — the premise that nothing "
    "in the round reads them is checked); fair coins; a strong adaptive adversary is not covered")


@dataclass(frozen=True)
class MultiRound:
    """A ``rounds carrying v:`` program's round structure and the premises of its termination
    argument as checked on its one-round automaton."""

    structure: RoundStructure
    premises: tuple[Premise, ...]


@dataclass(frozen=True)
class Conclusion:
    """One multi-round claim: concluded or not, the obligations it uses, the premises it
    assumes, the argument, and when not concluded, why (the obligations that did not hold, with
    their verdicts, and the premises not shown, with the evidence)."""

    claim: str
    concluded: bool
    uses: tuple[str, ...]
    argument: str
    missing: tuple[str, ...] = ()
    premises: tuple[str, ...] = ()


def conclusions(m: MultiRound, results: list[PropertyResult]) -> list[Conclusion]:
    """The three multi-round claims of ``m`` given the one-round verdicts ``results``."""
    s = m.structure
    by_name = {r.name: r for r in results}
    names = {(o.role, o.value): o.name for o in s.obligations}
    validity = tuple(names[("validity", w)] for w in s.values)
    agreement = tuple(names[("agreement", w)] for w in s.decided)
    unanimity = tuple(names[("unanimity", w)] for w in s.decided)
    v = s.carried

    def claim(text: str, uses: tuple[str, ...], argument: str,
              assumed: tuple[Premise, ...] = ()) -> Conclusion:
        missing = tuple(_why(n, by_name.get(n)) for n in uses
                        if by_name.get(n) is None or by_name[n].verdict != HOLDS)
        missing += tuple(f"premise not shown: {p.statement} ({p.why})" for p in assumed
                         if not p.shown)
        return Conclusion(text, not missing, uses, argument, missing,
                          tuple(p.name for p in assumed))

    out = [
        claim("agreement in every round", (*agreement, *validity),
              f"a decision of w in round r makes every process end round r with {v} == w and no "
              "process decide another value in it (agreement_w); round r + 1 then starts with no "
              f"process holding another value u, and validity_u keeps u out of round r + 1 and, "
              "by induction, of every later round"),
        claim("validity in every round", validity,
              f"a value w that no process starts round r with is neither decided nor carried out "
              f"of round r (validity_w); by induction from round 1, a value no process proposes "
              "is never decided"),
    ]
    out.append(claim(
        "termination with probability 1",
        ("round_termination", "decide_or_flip", *unanimity),
        "every correct process ends every round (round_termination); in each round the processes "
        f"that end it without a coin toss of their own (one nothing overwrote) all hold one "
        "value w (decide_or_flip), so with "
        "probability at least 2^-n every toss of the round gives w and the next round starts "
        f"unanimous on w, where every correct process decides w (unanimity_w); the rounds are "
        "independent trials, so some round is such a round with probability 1", m.premises))
    return out


def _why(name: str, r: PropertyResult | None) -> str:
    if r is None:
        return f"{name} not checked"
    reason = f" ({r.reason})" if r.reason and r.verdict != HOLDS else ""
    return f"{name} {r.verdict.upper()}{reason}"


def conclusion_lines(m: MultiRound, results: list[PropertyResult]) -> list[str]:
    """The conclusion as ``tactl check`` prints it after the verdicts."""
    s = m.structure
    lines = [f"multi-round conclusion (rounds carrying {s.carried}; round-rigid reduction, "
             "CONCUR 2019):"]
    used = {r.name: r for r in results}
    premise = {p.name: p for p in m.premises}
    claims = conclusions(m, results)
    for c in claims:
        if c.concluded:
            lines.append(f"  {c.claim}: CONCLUDED from {', '.join(c.uses)}")
            lines.extend(textwrap.wrap(c.argument, 100, initial_indent="    ",
                                       subsequent_indent="    "))
            if c.premises:
                shown = "; ".join(premise[n].statement for n in c.premises)
                lines.extend(textwrap.wrap(f"premises, each shown on the automaton: {shown}", 100,
                                           initial_indent="    ", subsequent_indent="    "))
        else:
            lines.append(f"  {c.claim}: NOT CONCLUDED: {'; '.join(c.missing)}")
    scopes = sorted({used[n].scope for c in claims if c.concluded
                     for n in c.uses if n in used and used[n].scope})
    if scopes:
        lines.append(f"  scope: {'; '.join(scopes)}")
    lines.extend(textwrap.wrap(f"assumptions: {ASSUMPTIONS}", 100, initial_indent="  ",
                               subsequent_indent="    "))
    return lines


def summary_lines(name: str, m: MultiRound, results: list[PropertyResult]) -> list[str]:
    """``tactl verify``'s table: one line per claim, the obligations and premises named only
    when missing."""
    lines = [f"{name}: multi-round conclusion (rounds carrying {m.structure.carried}; "
             "docs/alg.md, \"Multi-round algorithms\"):"]
    for c in conclusions(m, results):
        lines.append(f"  {c.claim}: " + ("CONCLUDED" if c.concluded
                                         else f"NOT CONCLUDED: {'; '.join(c.missing)}"))
    return lines


def conclusion_json(m: MultiRound, results: list[PropertyResult]) -> dict:
    """The conclusion in ``tactl check --json``'s report (and ``report.json``)."""
    s = m.structure
    return {"carried": s.carried, "assumptions": ASSUMPTIONS,
            "obligations": [{"name": o.name, "formula": o.text} for o in s.obligations],
            "premises": [{"name": p.name, "statement": p.statement, "checked": p.how,
                          "shown": p.shown, **({"why": p.why} if not p.shown else {})}
                         for p in m.premises],
            "conclusions": [{"claim": c.claim, "concluded": c.concluded, "uses": list(c.uses),
                             "premises": list(c.premises), "argument": c.argument,
                             "missing": list(c.missing)}
                            for c in conclusions(m, results)]}


@lru_cache(maxsize=8)
def round_structure(source: str, path: str) -> MultiRound | None:
    """The round structure of an ``.alg`` text that was already read once (so it parses), with
    the premises checked on its one-round automaton (extracted again: verify's table, JSON and
    HTML ask for it more than once, hence the cache)."""
    if "carrying" not in source:  # no `rounds carrying` block: nothing to read again
        return None
    alg = parse_alg(source, path)
    s = structure(alg)
    if s is None:
        return None
    return MultiRound(s, premises(alg, s, parse_algorithm(alg)))
