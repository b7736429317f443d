"""The premises of the multi-round termination argument, checked on the one-round automaton.

``tactl.report.rounds`` concludes "termination with probability 1" from the obligations
round_termination, decide_or_flip and unanimity_w (``passes/alg_to_rta/rounds.py``). The argument also
*assumes* things about the program that no obligation states, and a program can break each of
them while every obligation holds (finding A2: ``v := 0`` right after ``v := coin toss``):

* **coin values** — a toss of ``v`` can give every value of its domain: "with probability at
  least 2^-n every toss gives w" needs the coin to be able to give the w the other processes
  hold (a coin over {0, 1} cannot give the 2 of ``v: {0, 2}``);
* **not overwritten** — no statement writes over a tossed value before the round ends: the
  value carried into the next round must be the coin's, else the "toss" decides nothing;
* **not read** — nothing in the round reads a tossed value: the toss is its process's last step
  in the round and that step sends the same whatever the outcome, so the adversary cannot
  schedule the rest of the round by the coin (the assumption of a weak, round-rigid adversary);
* **decidable** — every value of ``v`` can be decided: a round unanimous on a value that is
  never decided need not decide.

Each is checked on the automaton the engines check — the receive automaton extracted from the
expanded program (``passes/alg_to_rta/extract.py``), whose locations carry the values of ``v``, of the ghost
flag ``tossed`` (set by a toss, cleared by any other assignment to ``v``) and of ``decided``, and
whose rules are marked ``coin`` and map to their source lines — not on the program text, so what
is shown is a property of what was verified. A premise not shown withholds the conclusion, with
the rule and line that break it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.alg import syntax as A
from tactl.ir.rta.model import COIN, ReceiveRule

from tactl.passes.alg_to_rta.results import ParseResult
from tactl.passes.alg_to_rta.rounds import RoundStructure

COIN_VALUES, NOT_OVERWRITTEN, NOT_READ, DECIDABLE = (
    "coin_values", "not_overwritten", "not_read", "decidable")


@dataclass(frozen=True)
class Premise:
    """One premise of the termination argument: what it says, how it is checked on the
    automaton, whether it was shown, and if not, the evidence (rules and lines)."""

    name: str
    statement: str
    how: str
    shown: bool
    why: str = ""


def premises(alg: A.Algorithm, s: RoundStructure, parsed: ParseResult) -> tuple[Premise, ...]:
    """The four premises of the termination argument of ``alg`` (with ``rounds carrying``),
    checked on ``parsed``, the automaton extracted from it."""
    return _Automaton(alg, s, parsed).premises()


class _Automaton:
    """The one-round receive automaton with each location's values of ``v``, the flag and
    ``decided``, and the rules that toss ``v`` grouped by toss."""

    def __init__(self, alg: A.Algorithm, s: RoundStructure, parsed: ParseResult) -> None:
        self.alg, self.s = alg, s
        self.rules = parsed.rta.rules
        self.values = {info.name: dict(info.values) for info in parsed.locations}
        self.coin_lines = {st.span.line for st in A.statements(alg.program)
                           if isinstance(st, A.Assign) and st.var == s.carried
                           and isinstance(st.value, A.Coin) and st.span is not None}
        self.assign_lines = {st.span.line for st in A.statements(alg.program)
                             if isinstance(st, A.Assign) and st.var == s.carried
                             and not isinstance(st.value, A.Coin) and st.span is not None}
        # one toss: the rules of one step from one location under one guard (the coin forks the
        # step after the guard is read, so its outcomes share source and guard)
        self.tosses: dict[tuple, list[ReceiveRule]] = {}
        for r in self.rules:
            if r.choice == COIN and self.coin_lines & set(_lines(r)):
                self.tosses.setdefault((r.source, r.guard), []).append(r)

    def premises(self) -> tuple[Premise, ...]:
        v, flag = self.s.carried, self.s.tossed
        return (
            Premise(COIN_VALUES, f"every coin toss of '{v}' can give each value of its domain "
                                 f"({', '.join(self.s.values)})",
                    f"the coin rules of each toss (one location, one guard) reach a location "
                    f"with '{flag}' set for every value of '{v}'", *self._coin_values()),
            Premise(NOT_OVERWRITTEN, f"no statement overwrites a tossed value of '{v}' before "
                                     "the round ends",
                    f"no coin rule of a toss reaches a location with '{flag}' cleared (an "
                    f"assignment to '{v}' after the toss in the same step clears it), and no "
                    f"rule leaves a location with '{flag}' set for one with it cleared",
                    *self._not_overwritten()),
            Premise(NOT_READ, f"nothing in the round reads a tossed value of '{v}' (the "
                              "adversary cannot schedule by the coin)",
                    "the rules of each toss send the same messages, and a location with "
                    f"'{flag}' set has no rule but its self-loop (the toss is its process's last "
                    "step in the round)", *self._not_read()),
            Premise(DECIDABLE, f"every value of '{v}' can be decided",
                    "for every value w of the carried variable some location of the automaton "
                    "has decided = w", *self._decidable()),
        )

    # ---- the checks: (shown, why not) ----

    def _coin_values(self) -> tuple[bool, str]:
        v = self.s.carried
        problems = []
        for rules in self.tosses.values():
            kept = [r for r in rules if self._flag(r.target)]
            if len(kept) < len(rules):
                continue  # overwritten: the not_overwritten premise says where
            gives = {self.values[r.target].get(v) for r in kept}
            never = [w for w in self.s.values if w not in gives]
            if never:
                first = rules[0]
                ids = ", ".join(str(r.id) for r in rules)
                problems.append(f"the toss at {self._toss_line(first)} from {first.source} "
                                f"gives {v} = {' or '.join(sorted(x for x in gives if x))}, "
                                f"never {' or '.join(never)} (coin rule{'s' if len(rules) > 1 else ''} "
                                f"{ids})")
        return not problems, "; ".join(problems)

    def _not_overwritten(self) -> tuple[bool, str]:
        problems = []
        for rules in self.tosses.values():
            for r in rules:
                if not self._flag(r.target):
                    after = [n for n in _lines(r) if n in self.assign_lines
                             and n > min(self.coin_lines & set(_lines(r)))]
                    what = ", ".join(self._quote(n) for n in after) or "a later assignment"
                    problems.append(f"rule {r.id} ({r.source} -> {r.target}): {what} "
                                    f"overwrites the toss at {self._toss_line(r)}")
        for r in self.rules:
            if self._flag(r.source) and not self._flag(r.target):
                what = ", ".join(self._quote(n) for n in _lines(r) if n in self.assign_lines)
                problems.append(f"rule {r.id} ({r.source} -> {r.target}): "
                                f"{what or 'an assignment'} overwrites a tossed value")
        return not problems, "; ".join(problems)

    def _not_read(self) -> tuple[bool, str]:
        problems = []
        for rules in self.tosses.values():
            sends = {r.sends for r in rules}
            if len(sends) > 1:
                shown = " / ".join(", ".join(x) or "nothing" for x in sorted(sends))
                problems.append(f"the step of the toss at {self._toss_line(rules[0])} from "
                                f"{rules[0].source} sends by the outcome ({shown})")
        for r in self.rules:
            if self._flag(r.source) and self._flag(r.target) and not r.is_self_loop:
                lines = ", ".join(self._quote(n) for n in _lines(r))
                problems.append(f"rule {r.id} ({r.source} -> {r.target}) is a step after a toss"
                                + (f": {lines}" if lines else ""))
        return not problems, "; ".join(problems)

    def _decidable(self) -> tuple[bool, str]:
        decided = {vals.get(A.DECIDED) for vals in self.values.values()}
        never = [w for w in self.s.values if w not in decided]
        if not never:
            return True, ""
        return False, (f"no location has decided = {' or '.join(never)}: a round that starts "
                       f"unanimous on {'it' if len(never) == 1 else 'one of them'} need not decide")

    # ---- helpers ----

    def _flag(self, location: str) -> bool:
        return self.values.get(location, {}).get(self.s.tossed) == A.TRUE

    def _toss_line(self, r: ReceiveRule) -> str:
        lines = sorted(self.coin_lines & set(_lines(r)))
        return self._quote(lines[0]) if lines else "a coin toss"

    def _quote(self, line: int) -> str:
        return f'line {line} "{self.alg.line(line)}"'


def _lines(r: ReceiveRule) -> tuple[int, ...]:
    return r.origin.lines if r.origin is not None else ()
