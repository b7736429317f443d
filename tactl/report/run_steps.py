"""A counterexample step by step, showing only what each step changes: the rule, the processes it
moves (``loc -> loc``, how many) and the counters and shared variables whose values changed, old
→ new. A table with a column per counter is unreadable for a wide automaton (a 94-location one is
thousands of characters per line) while a run rarely touches more than a few counters per step;
this is the form ``check`` prints for such automata (tactl/report/check_text.py), ``verify`` prints
under a violated property (tactl/report/verify_runs.py), and the HTML page shows before the full
table (tactl/report/html.py).

It reads the JSON form of a counterexample (:func:`tactl.report.property_json.counterexample_json`),
which every report has, so the three say the same thing from the same data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

WIDE = 120  # characters: a configuration table wider than this is shown as its changes by default
WIDE_COLUMNS = 16  # counters: the HTML page shows a run with more as its changes, the table folded


@dataclass(frozen=True)
class Change:
    """One counter or shared variable whose value a step changed (``old`` None: the initial
    configuration, where only the values that are not 0 are listed)."""

    name: str
    old: object
    new: object

    @property
    def text(self) -> str:
        return f"{self.name}={self.new}" if self.old is None else f"{self.name} {self.old}→{self.new}"


@dataclass(frozen=True)
class StepChanges:
    """A configuration of the run and what the step that reached it changed."""

    label: str  # "0", "3", "5*" (a step of the lasso's cycle, as the table marks it)
    rule: str  # "initial", or the rule's name as every report prints it ("r3")
    factor: str  # "x2": how many processes took it ("" for the initial configuration)
    move: tuple[str, str] | None  # the locations the processes left and reached
    locations: tuple[Change, ...]
    shared: tuple[Change, ...]
    violation: bool  # the configuration the reports mark as violating the property
    source: Mapping[str, Any] | None = None  # the step's source map (pseudocode lines), if any

    @property
    def moved(self) -> str:
        """``v1 1→0 -> sentECHO 0→1``: the processes' move with the two counters before and after
        (``v0=2, v1=1`` for the initial configuration: the counters that are not 0), then any other
        counter that changed."""
        if self.move is None:
            return ", ".join(c.text for c in self.locations) or "(every counter 0)"
        by_name = {c.name: c for c in self.locations}
        ends = [f"{loc} {by_name[loc].old}→{by_name[loc].new}" if loc in by_name else loc for loc in self.move]
        rest = [c.text for c in self.locations if c.name not in self.move]
        return " -> ".join(ends) + "".join(", " + r for r in rest)

    @property
    def shared_text(self) -> str:
        """``ns_ECHO 0→1``: the shared variables that changed (those not 0, initially)."""
        return ", ".join(c.text for c in self.shared)

    @property
    def changes(self) -> str:
        """The move, then the shared variables that changed: ``v1 1→0 -> sentECHO 0→1 | ns_ECHO 0→1``."""
        return self.moved + (" | " + self.shared_text if self.shared else "")


def run_changes(cex: Mapping[str, Any], marked: int | None = None) -> tuple[StepChanges, ...]:
    """Each configuration of ``cex`` (its JSON form) with what changed; ``marked``: the violating
    configuration when the counterexample itself does not name one (verify's report computes it)."""
    configs = list(cex.get("configurations") or [])
    steps = list(cex.get("schedule") or []) + list((cex.get("cycle") or {}).get("steps") or [])
    prefix = len(cex.get("schedule") or [])
    cycle = bool(cex.get("cycle"))
    bad = cex.get("violating_step")
    bad = marked if bad is None else bad
    out = []
    for n, config in enumerate(configs):
        before = configs[n - 1] if n else {}
        if n == 0 or n > len(steps):
            rule, factor, move, source = ("initial" if n == 0 else "", "", None, None)
        else:
            step = steps[n - 1]
            rule, factor = str(step.get("rule", "")), f"x{step.get('factor', '')}"
            move, source = (str(step.get("from", "")), str(step.get("to", ""))), step.get("source")
        out.append(StepChanges(f"{n}{'*' if cycle and n > prefix else ''}", rule, factor, move,
                               _changed(before.get("locations"), config.get("locations"), n == 0),
                               _changed(before.get("shared"), config.get("shared"), n == 0),
                               bad is not None and n == bad, source))
    return tuple(out)


def _changed(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, initial: bool) -> tuple[Change, ...]:
    before, after = before or {}, after or {}
    if initial:
        return tuple(Change(str(k), None, v) for k, v in after.items() if v != 0)
    return tuple(Change(str(k), before.get(k), v) for k, v in after.items() if before.get(k) != v)


def change_lines(cex: Mapping[str, Any], marked: int | None = None, marker: str = "<- violation",
                 keep: int | None = None) -> list[str]:
    """The run as one aligned line per step (step, rule, factor, the changes; the violating one
    marked with ``marker``); ``keep``: at most this many steps, the first ones and the last ones
    (where the violation is), with a line saying how many were left out between."""
    rows = run_changes(cex, marked)
    widths = [max((len(r.label) for r in rows), default=1), max((len(r.rule) for r in rows), default=1),
              max((len(r.factor) for r in rows), default=1)]
    lines = [f"{r.label:<{widths[0]}}  {r.rule:<{widths[1]}}  {r.factor:<{widths[2]}}  {r.changes}"
             + (f"  {marker}" if r.violation else "") for r in rows]
    if keep is not None and len(lines) > keep:
        head = max(1, keep // 2)
        tail = keep - head
        lines = [*lines[:head], f"... {len(lines) - keep} step{'s' if len(lines) - keep != 1 else ''} "
                                "left out ...", *lines[len(lines) - tail:]]
    return lines


def table_width(names: Sequence[str], values: Sequence[Mapping[str, Any]]) -> int:
    """About how wide a configuration table with a column per counter would be (each column as
    wide as its name or its widest value, two spaces apart)."""
    return sum(2 + max(len(name), *(len(str(v.get(name, ""))) for v in values)) for name in names) \
        if values else sum(2 + len(name) for name in names)


def ending(cex: Mapping[str, Any]) -> str:
    """How the run ends, as the text report says it: where the replay stopped, the lasso's cycle,
    or its self-loop ("" for a finite run that was replayed whole)."""
    configs = len(cex.get("configurations") or [])
    scheduled = len(cex.get("schedule") or [])
    cycled = len((cex.get("cycle") or {}).get("steps") or [])
    if configs <= scheduled + cycled:
        return f"The replay stopped after step {max(configs - 1, 0)}."
    if cycled:
        return (f"loop: steps marked * repeat forever (configuration {scheduled} comes back after "
                "them: the lasso's loop)")
    loop = cex.get("loop")
    if loop is not None:
        at = loop.get("at", "?")
        return (f"loop: then {loop.get('rule', '?')}: {at} → {at} forever (configuration "
                f"{configs - 1} repeats: the lasso's loop)")
    return ""
