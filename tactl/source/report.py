"""The report of ``tactl check --engine source``: the verdict table of the other engines (one
line per property; text or JSON), and every violating run as pseudocode lines: which process
executed which lines after receiving what, crashes, coin outcomes, and for a lasso where the loop
starts. The interpreter's states are printed in the words of the program (variables, decided,
position)."""

from __future__ import annotations

from tactl.ir.alg import syntax as A
from tactl.util.version import __version__

from . import program as P
from .check import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, VIOLATED, SourceReport
from .search import Run
from .system import Global, Label, System


def describe_step(system: System, label: Label, before: Global) -> str:
    """One transition in words."""
    prog = system.prog
    if label.kind == "stutter":
        return "nothing happens"
    if label.kind == "round":
        return label.note
    if label.kind == "crash":
        return f"process {label.process} crashes"
    if label.kind == "broadcast":
        return (f"faulty process {label.sender} sends {prog.types[label.type].text} "
                "to every correct process")
    o = label.outcome
    parts = []
    if label.got:
        parts.append("receives " + ", ".join(
            f"{prog.types[t].text} from {s}{' (faulty)' if s in system.faults.stateless else ''}"
            for s, t in sorted(label.got, key=lambda x: (x[1], x[0]))))
    lines = []
    for number in (o.lines if o else ()):
        text = prog.alg.line(number)
        if not lines or lines[-1][0] != number:
            lines.append((number, text))
    if lines:
        parts.append("executes " + "; ".join(f'line {n} "{t}"' for n, t in lines))
    if o and o.events:
        parts.append("(" + "; ".join(o.events) + ")")
    if o and o.sends:
        parts.append("sends " + ", ".join(
            prog.types[t].text + ("" if r is None else
                                  f" (reaching only {', '.join(map(str, r)) or 'nobody'})")
            for t, r in o.sends))
    if o and not lines and not o.sends:
        parts.append("executes no statement that applies")
    end = ""
    if o:
        ins = prog.code[o.local.pc]
        if o.crashed:
            end = "and crashes there"
        elif isinstance(ins, P.End):
            end = "and finishes"
        elif ins.span is not None:
            end = f'and stops at line {ins.span.line} "{prog.alg.line(ins.span.line)}"'
    return f"process {label.process} " + ", ".join(parts) + (f", {end}" if end else "")


def process_state(system: System, g: Global, pid: int) -> str:
    local = g.procs[pid]
    if local is None:
        return f"process {pid}: faulty (no state)"
    prog = system.prog
    vals = ", ".join(f"{name} = {value}" for name, value in zip(prog.var_names, local.vals))
    ins = prog.code[local.pc]
    where = "done" if isinstance(ins, P.End) else \
        (f"at line {ins.span.line}" if ins.span is not None else f"at position {local.pc}")
    extra = [f"decided {local.decided}"] if local.decided != A.BOTTOM else []
    if local.sent:
        extra.append("sent " + ", ".join(prog.types[t].text for t in sorted(local.sent)))
    crashed = " (crashed)" if pid in g.crashed else ""
    coordinator = " (coordinator)" if g.coordinator == pid else ""
    return f"process {pid}{coordinator}{crashed}: {vals}{'; ' if extra else ''}{'; '.join(extra)}; {where}"


def run_lines(system: System, run: Run) -> list[str]:
    lines = ["initially: " + "; ".join(process_state(system, run.states[0], i).split(": ", 1)[1]
                                       .rsplit(";", 1)[0] + f" [{i}]"
                                       for i in range(system.n) if run.states[0].procs[i] is not None)]
    for i, label in enumerate(run.labels):
        if run.loop is not None and i == run.loop:
            lines.append("loop (repeats forever from here):")
        if label.kind == "stutter" and run.loop is not None and i >= run.loop:
            lines.append(f"step {i + 1}: nothing happens (every process that has not crashed "
                         + ("waits, and no message is on its way)" if not run.states[i].pending
                            else "waits, and receiving the messages on their way would change "
                                 "nothing)"))
            continue
        lines.append(f"step {i + 1}: {describe_step(system, label, run.states[i])}")
    last = run.states[run.loop if run.loop is not None else -1]
    lines.append("states:" if run.loop is None else "states on the loop:")
    lines.extend("  " + process_state(system, last, i) for i in range(system.n)
                 if last.procs[i] is not None)
    lines.append(("replayed: " if run.replayed else "NOT replayed: ") + run.replay_message)
    return lines


def scope_text(report: SourceReport) -> str:
    return (f"at {report.valuation} (every run explored: {report.states} states up to renaming "
            "the correct processes)")


def report_text(report: SourceReport) -> str:
    alg = report.alg
    kinds = (f"; kinds: {', '.join(report.kinds)}" if report.kinds else "") + \
        (f"; not kinds (a correct process sends two instances): {', '.join(report.not_kinds)}"
         if report.not_kinds else "")
    lines = [f"{report.path}: {alg.name}, source interpreter at {report.valuation}: "
             f"{report.states} states, {report.transitions} transitions ({report.faults}{kinds})"]
    width = max((len(r.name) for r in report.results), default=8)
    for r in report.results:
        head = f"  {r.name:<{width}}  {r.kind:<13}  {r.verdict.upper():<15}"
        if r.verdict != UNSUPPORTED:
            head += f"  {r.time_s:6.2f} s"
        if r.verdict == HOLDS and r.vacuity:
            head += f"  {r.vacuity}"
        lines.append(head)
        if r.verdict in (HOLDS, HOLDS_VACUOUSLY):
            lines.append(f"  {'':<{width}}  {scope_text(report)}")
        if r.reason:
            lines.append(f"  {'':<{width}}  {r.reason}")
        if r.run is not None and r.verdict == VIOLATED and report.system is not None:
            lines.extend("    " + x for x in run_lines(report.system, r.run))
    if report.plain_states:
        lines.append(f"note: liveness needed the graph without symmetry reduction "
                     f"({report.plain_states} states)")
    held = sum(r.verdict == HOLDS for r in report.results)
    counts = {v: sum(r.verdict == v for r in report.results)
              for v in (HOLDS_VACUOUSLY, VIOLATED, UNKNOWN, UNSUPPORTED)}
    if not counts[HOLDS_VACUOUSLY]:
        del counts[HOLDS_VACUOUSLY]
    lines.append(f"{held} hold, " + ", ".join(f"{n} {v.replace('holds', 'hold')}"
                                              for v, n in counts.items()))
    return "\n".join(lines)


def report_json(report: SourceReport) -> dict[str, object]:
    props = []
    for r in report.results:
        item: dict[str, object] = {"name": r.name, "kind": r.kind, "verdict": r.verdict,
                                   "engine": "source", "time_s": round(r.time_s, 4)}
        if r.verdict in (HOLDS, HOLDS_VACUOUSLY):
            item["scope"] = scope_text(report)
        if r.vacuity:
            item["vacuity"] = {"status": r.vacuity}
        if r.reason:
            item["reason"] = r.reason
        if r.run is not None and report.system is not None:
            item["counterexample"] = {
                "parameters": dict(report.params),
                "steps": [describe_step(report.system, label, r.run.states[i])
                          for i, label in enumerate(r.run.labels)],
                "loop": r.run.loop, "replayed": r.run.replayed, "replay": r.run.replay_message,
                "lines": run_lines(report.system, r.run)}
        props.append(item)
    return {"file": report.path, "tactl_version": __version__, "engine": "source",
            "algorithm": report.alg.name, "parameters": dict(report.params),
            "states": report.states, "transitions": report.transitions,
            "kinds": list(report.kinds), "not_kinds": list(report.not_kinds),
            "faults": report.faults, "properties": props, "exit_code": report.exit_code}
