"""``tactl check``'s report as text: a line per property (class, verdict, time, queries, what a
HOLDS covers and says about its antecedents, the reason), a violation's counterexample as a
table of configurations (for a wide automaton: each step's changes, tactl/report/run_steps.py) with the pseudocode lines its steps executed, then the notes, the
warnings and the counts. The JSON of the same report is tactl/report/check_json.py; both name
rules and mark the violating configuration alike (tactl/report/property_json.py)."""

from __future__ import annotations

from tactl.engines.check import CheckReport
from tactl.engines.parametric import ENGINE as PARAMETRIC
from tactl.engines.result import HOLDS, UNSUPPORTED, VIOLATED, Counterexample
from tactl.ir.expr import to_text
from tactl.ir.source import source_language
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.report.counts import counts_line
from tactl.report.lockstep_text import run_lines
from tactl.report.property_json import (counterexample_json, forever_text, minimality_text, property_notes,
                                        rule_name, violating_step)


def report_text(report: CheckReport, full: bool = False) -> str:
    """The report; ``full``: every counterexample as the table of every counter, however wide."""
    ta = report.ta
    rc = " && ".join(to_text(a) for a in ta.assumptions) or "true"
    lines = [f"{report.path}: {ta.name}, {_plural(len(ta.locations), 'location')}, "
             f"{_plural(len(ta.rules), 'rule')}, "
             f"parameters {', '.join(ta.parameters) or '(none)'} with {rc}"]
    width = max((len(r.name) for r in report.results), default=8)
    for r in report.results:
        head = f"  {r.name:<{width}}  {r.formula_class or r.kind:<13}  {r.verdict.upper():<15}"
        if r.verdict != UNSUPPORTED:
            head += f"  {r.time_s:6.2f} s"
            if r.engine == PARAMETRIC:
                head += f"  {r.queries} quer{'y' if r.queries == 1 else 'ies'}"
        if r.details.get("hypothesis"):  # what a lock-step verdict is proved under
            head += f"  assuming {r.details['hypothesis']}"
        if r.verdict == HOLDS and r.vacuity:
            head += f"  {r.vacuity}"
        lines.append(head)
        lines.extend(f"  {'':<{width}}  {note}" for note in property_notes(r))
        if r.counterexample and r.verdict == VIOLATED:
            lines.extend("    " + line for line in counterexample_table(ta, r.counterexample, full))
        if r.details.get("file_run"):  # a run of the file itself, with receive counts (driver/file_reading.py)
            lines.extend("    " + line for line in r.details["file_run"])
        if r.details.get("run") and r.verdict == VIOLATED:
            lines.extend("    " + line for line in run_lines(r.details["run"]))
            lines.extend(f"      {line}" for line in r.details.get("pseudocode", []))
            if r.details.get("minimality"):
                lines.append(f"      minimal: {r.details['minimality']}")
    for note in report.notes:
        lines.append(f"note: {note}")
    for warning in report.warnings:
        lines.append(f"warning: {warning}")
    lines.append(counts_line(r.verdict for r in report.results))
    return "\n".join(lines)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def pseudocode_steps(ta: ThresholdAutomaton, cex: Counterexample) -> list[str]:
    """The run in the words of the pseudocode, for an automaton generated from an ``.alg``:
    ``step 3: 2 processes execute line 7 "upon receiving ECHO from t + 1 …"`` (source maps)."""
    origins = [r.origin for r in ta.rules if r.origin]
    if not origins:
        return []
    where = origins[0].file
    out = [f"  in the {source_language(where)} ({where}):"]
    for n, s in enumerate(cex.schedule + (cex.cycle or []), 1):
        rule = ta.rules[s.rule]
        who = f"{s.factor} process{'' if s.factor == 1 else 'es'}"
        what = rule.origin.describe() if rule.origin else "(a step the translation added)"
        # a step whose code skipped every statement (the non-coordinators' `if coordinator:`)
        what = what or "reach the next stop point without executing a statement"
        move = f"{rule.source} -> {rule.target}"
        mark = "*" if n > len(cex.schedule) else ""
        if rule.origin and rule.origin.lines:
            out.append(f"  step {n}{mark}: {who} ({move}) execute{'s' if s.factor == 1 else ''} {what}")
        else:
            out.append(f"  step {n}{mark}: {who} ({move}): {what}")
    if cex.loop is not None:
        out.append(f"  {forever_text(ta, cex.loop)}")
    return out


def counterexample_table(ta: ThresholdAutomaton, cex: Counterexample, full: bool = False) -> list[str]:
    """The run as a table of configurations, a column per counter; an automaton too wide for that
    (tactl/report/run_steps.py) gets a line per step with the counters it changed, unless
    ``full`` (``check -v``)."""
    params = ", ".join(f"{p}={v}" for p, v in cex.parameters.items())
    status = "replayed by the simulator" if cex.replayed else f"NOT replayed: {cex.replay.message}"
    shape = "lasso: prefix schedule, then a loop" if cex.loop is not None or cex.cycle else "run"
    out = [f"counterexample {shape}, with {params or 'no parameters'} ({status}):"]
    locs = [loc.name for loc in ta.locations]
    header = ["step", "rule", "factor", *locs, "|", *ta.shared]
    rows = [header]
    configs = cex.replay.configurations
    for n, config in enumerate(configs):
        values = dict(config.counters) | dict(config.shared)
        if n == 0:
            lead = ["0", "initial", ""]
        else:
            steps = cex.schedule + (cex.cycle or [])
            s = steps[n - 1]
            rule = ta.rules[s.rule]
            mark = "*" if cex.cycle and n > len(cex.schedule) else ""
            lead = [f"{n}{mark}", f"{rule_name(ta, s.rule)}: {rule.source}->{rule.target}",
                    f"x{s.factor}"]
        rows.append([*lead, *(str(values[x]) for x in locs), "|", *(str(values[x]) for x in ta.shared)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    bad = violating_step(cex)
    marker = "<- violation" if cex.loop is None and not cex.cycle else "<- violation: repeats forever"
    from tactl.report.run_steps import WIDE, change_lines  # lazy: only a counterexample is shown so

    if not full and sum(widths) + 2 * len(widths) > WIDE:  # a column per counter would not fit
        out.append(f"  {_plural(len(locs), 'location')}, {_plural(len(ta.shared), 'shared variable')}: "
                   "each step with the counters it changed, old→new (-v: the table of every counter)")
        out.extend("  " + line for line in change_lines(counterexample_json(ta, cex), marker=marker))
        rows = []
    for n, row in enumerate(rows):
        line = "  " + "  ".join(cell.rjust(w) if i > 2 else cell.ljust(w)
                                for i, (cell, w) in enumerate(zip(row, widths)))
        out.append(line + f"  {marker}" if bad is not None and n - 1 == bad else line.rstrip())
    if len(configs) <= len(cex.schedule) + len(cex.cycle or []):  # replay stopped early
        out.append(f"  (replay stopped after step {len(configs) - 1})")
    elif cex.cycle:
        out.append(f"  loop: steps marked * repeat forever (configuration {len(cex.schedule)} "
                   "comes back after them: the lasso's loop)")
    elif cex.loop is not None:
        rule = ta.rules[cex.loop]
        out.append(f"  loop: then {rule_name(ta, cex.loop)}: {rule.source}->{rule.source} forever "
                   f"(configuration {len(configs) - 1} repeats: the lasso's loop)")
    out.extend(pseudocode_steps(ta, cex))
    out.extend(f"  {line}" for line in cex.explanation)
    if minimality_text(cex):
        out.append(f"  {minimality_text(cex)}")
    return out
