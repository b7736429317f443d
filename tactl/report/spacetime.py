"""A space–time diagram of a counterexample, as the distributed-systems papers draw a run.

Lanes are groups of correct processes that move together (a lane per batch: the processes a
step moves are split off the group they were in, so every lane's processes share their whole
history), steps go downwards, a step that sends (a rule that increments a shared variable, i.e.
a message counter) draws an arrow to every other correct lane, and the faulty processes have a
lane of their own, in their own colour: an arrow from it marks a step whose guard holds only
because it counted messages from faulty senders — the ``+ f`` that the environment allows
(``received ≤ sent + f``), found by evaluating the guard with the fault parameter lowered to the
fewest faulty messages that still enable it. The violating configuration is marked, and a
lasso's loop (its cycle steps, or the self-loop taken forever) is bracketed.

:func:`build_diagram` computes the picture's content (pure, from the automaton and the
replayed counterexample); :func:`diagram_svg` lays it out as a standalone SVG document
(no script, no external reference), deterministic to the byte; plain text, no new dependency.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tactl.engines.result import VIOLATED, Counterexample
from tactl.engines.simulate import Configuration
from tactl.ir.evaluate import holds
from tactl.ir.expr import Always, Expr, Implies, to_text
from tactl.ir.rta.model import ReceiveTA
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.report.property_json import rule_name

CORRECT_COLOUR, FAULTY_COLOUR, VIOLATION_COLOUR, LOOP_COLOUR = "#0072B2", "#D55E00", "#C62828", "#6A3D9A"
# The inputs whose receive automaton's fault model names the faulty lane (fault_parameters).
_FAULT_MODEL_KINDS = ("alg", "rta")


@dataclass(frozen=True)
class Lane:
    index: int
    size: int  # processes in the lane
    start: str  # their initial location ("" for the faulty lane)
    faulty: bool = False

    @property
    def label(self) -> str:
        if self.faulty:
            return f"{self.size} faulty"
        return f"{self.size} × {self.start}"


@dataclass(frozen=True)
class Event:
    """One lane's part in one step: its processes move along ``rule``."""

    row: int  # the step (1-based; row = configuration reached)
    lane: int
    rule: str
    target: str
    sends: tuple[str, ...]  # the shared variables (message counters) the step increments
    faulty_counted: int  # messages from faulty senders the guard needed (0: none)
    reads: tuple[str, ...]  # the shared variables its guard reads
    in_loop: bool


@dataclass(frozen=True)
class Arrow:
    row: int
    source: int  # lane index
    target: int
    faulty: bool
    label: str


@dataclass(frozen=True)
class Diagram:
    title: str
    lanes: tuple[Lane, ...]
    rows: int  # steps drawn (the loop's self-loop row included)
    events: tuple[Event, ...]
    arrows: tuple[Arrow, ...]
    violation: int | None  # the configuration where a safety property fails (row)
    loop: tuple[int, int] | None  # first and last row of the lasso's loop
    loop_note: str


# ------------------------------------------------------------------------------- the model


def fault_parameters(ta: ThresholdAutomaton, receive: ReceiveTA | None = None, kind: str = "") -> tuple[str, ...]:
    """The parameters that count faulty *senders*, for the faulty lane: for an ``.alg``/``.rta``
    (``kind``) those of the fault model of its receive automaton ``receive``, the IR the driver
    translated (:meth:`~tactl.ir.rta.model.Faults.sender_parameters`); for any other input a
    parameter named ``f``. A ``.ta`` has no fault model. A ``.pml``'s receive automaton has one
    (passes/pml_to_rta/faults.py), but its diagrams have always been drawn with the ``f``
    rule — ByMC's files name their parameters ``F``, ``Fp``, ``Fs``, so they get no faulty lane
    — and taking the fault model there would change those pictures."""
    if kind in _FAULT_MODEL_KINDS and receive is not None:
        return receive.faults.sender_parameters()
    return tuple(p for p in ta.parameters if p == "f")


def build_diagram(ta: ThresholdAutomaton, cex: Counterexample, title: str = "",
                  faulty: Sequence[str] = (), formula: Expr | None = None) -> Diagram:
    """The diagram's content for a replayed counterexample of ``ta`` (see the module docstring);
    ``faulty``: the fault parameters (:func:`fault_parameters`); ``formula``: the property, to
    find the first configuration that violates a safety property (else the last one)."""
    params = dict(cex.parameters)
    configs = list(cex.replay.configurations) or [cex.initial]
    steps = list(cex.schedule) + list(cex.cycle or [])
    loop_start = len(cex.schedule) + 1 if cex.cycle else None
    # groups: [size, location, history of (row, rule index)]; a step splits off what it moves
    groups: list[list] = [[n, loc.name, []] for loc in ta.locations
                          for n in [dict(cex.initial.counters).get(loc.name, 0)] if n > 0]
    starts = [g[1] for g in groups]
    for row, step in enumerate(steps[:len(configs) - 1], start=1):
        rule = ta.rules[step.rule]
        need = step.factor
        for i, group in enumerate(list(groups)):
            if need == 0:
                break
            if group[1] != rule.source:
                continue
            if group[0] <= need:
                need -= group[0]
                group[1] = rule.target
                group[2].append((row, step.rule))
            else:
                moved = [need, rule.target, group[2] + [(row, step.rule)]]
                group[0] -= need
                need = 0
                index = groups.index(group)
                groups.insert(index + 1, moved)
                starts.insert(index + 1, starts[index])
    loop_row = None
    if cex.loop is not None and not cex.cycle:
        loop_row = len(configs)  # one row for the self-loop taken forever
    lanes = [Lane(i, g[0], s) for i, (g, s) in enumerate(zip(groups, starts))]
    f_values = {p: params.get(p, 0) for p in faulty}
    has_faulty = sum(f_values.values()) > 0 and any(
        p in _names(ta.expand(r.guard)) for r in ta.rules for p in f_values)
    events: list[Event] = []
    arrows: list[Arrow] = []
    faulty_lane = len(lanes)
    for i, group in enumerate(groups):
        for row, index in group[2]:
            rule = ta.rules[index]
            sends = tuple(u.var for u in rule.updates if not u.is_identity and (u.increment() or 0) > 0)
            counted = _faulty_needed(ta, rule.guard, configs[row - 1], params, f_values) if has_faulty else 0
            in_loop = loop_start is not None and row >= loop_start
            reads = tuple(v for v in ta.shared if v in _names(ta.expand(rule.guard)))
            events.append(Event(row, i, rule_name(ta, index), rule.target, sends, counted, reads, in_loop))
    events.sort(key=lambda e: (e.row, e.lane))
    for e in events:
        if e.sends:
            arrows.extend(Arrow(e.row, e.lane, other, False, ", ".join(e.sends))
                          for other in range(len(lanes)) if other != e.lane)
        if e.faulty_counted:
            arrows.append(Arrow(e.row, faulty_lane, e.lane, True,
                                f"{e.faulty_counted} faulty {', '.join(e.reads) or 'message'}"))
    if loop_row is not None:
        rule = ta.rules[cex.loop]
        events.extend(Event(loop_row, i, rule_name(ta, cex.loop), rule.target, (), 0, (), True)
                      for i, g in enumerate(groups) if g[1] == rule.source)
    if has_faulty:
        lanes.append(Lane(faulty_lane, sum(f_values.values()), "", faulty=True))
    rows = loop_row if loop_row is not None else len(configs) - 1
    lasso = cex.loop is not None or bool(cex.cycle)
    violation = None if lasso else _first_violation(ta, formula, configs, params, cex)
    if cex.cycle:
        loop, note = (loop_start, len(configs) - 1), "loop: these steps repeat forever"
    elif loop_row is not None:
        rule = ta.rules[cex.loop]
        loop, note = (loop_row, loop_row), f"then {rule_name(ta, cex.loop)} at {rule.source} forever"
    else:
        loop, note = None, ""
    return Diagram(title, tuple(lanes), rows, tuple(events), tuple(arrows), violation, loop, note)


def _names(e: Expr) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", to_text(e)))


def _faulty_needed(ta: ThresholdAutomaton, guard: Expr, config: Configuration, params: dict[str, int],
                   f_values: dict[str, int]) -> int:
    """How many messages from faulty senders the guard needed in ``config``: the fewest faulty
    processes (each fault parameter lowered towards 0) with which it still holds."""
    expanded = ta.expand(guard)
    env = config.env(params)
    if not any(p in _names(expanded) for p in f_values):
        return 0
    needed = 0
    for p, value in f_values.items():
        if p not in _names(expanded):
            continue
        for k in range(value + 1):
            try:
                if holds(expanded, {**env, p: k}):
                    needed += k
                    break
            except (KeyError, ZeroDivisionError, ValueError):
                break
    return needed


def _first_violation(ta: ThresholdAutomaton, formula: Expr | None, configs: list[Configuration],
                     params: dict[str, int], cex: Counterexample) -> int:
    """The configuration where the safety property fails: the engine's mark if it sets one
    (``violating_step``), else the first configuration where the ``[]`` body is false, else the
    last configuration."""
    marked = getattr(cex, "violating_step", None)
    if isinstance(marked, int) and 0 <= marked < len(configs):
        return marked
    body = formula
    if isinstance(body, Implies):
        body = body.right
    if isinstance(body, Always):
        body = ta.expand(body.arg)
        for n, config in enumerate(configs):
            try:
                if not holds(body, config.env(params)):
                    return n
            except Exception:  # a temporal operator inside: not a state formula
                break
    return len(configs) - 1


# ------------------------------------------------------------------------------ the picture

# Text over lines stays readable: a white outline painted under the glyphs.
HALO = 'stroke="#fff" stroke-width="3" paint-order="stroke"'
LABEL_W, LANE_W, HEADER_H, ROW_H, FOOTER_H = 150, 190, 64, 60, 60


def diagram_svg(d: Diagram) -> str:
    """The diagram as a standalone SVG document (``xmlns`` set, so a browser opens the file;
    the HTML page inserts it inline)."""
    width = max(LABEL_W + LANE_W * max(len(d.lanes), 1) + 40, 760)  # the legend fits
    height = HEADER_H + ROW_H * (d.rows + 1) + FOOTER_H
    bottom = HEADER_H + ROW_H * (d.rows + 0.6)

    def lx(lane: int) -> float:
        return LABEL_W + LANE_W * lane + LANE_W / 2

    def ry(row: int) -> float:
        return HEADER_H + ROW_H * (row + 0.5)

    esc = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="spacetime" width="{width}" '
           f'height="{height:.0f}" viewBox="0 0 {width} {height:.0f}" role="img" '
           f'font-family="sans-serif" font-size="13">',
           f"<title>{esc(d.title or 'space-time diagram of the counterexample')}</title>",
           "<defs>"]
    markers = (("correct", CORRECT_COLOUR),) + (
        (("faulty", FAULTY_COLOUR),) if any(lane.faulty for lane in d.lanes) else ())
    for name, colour in markers:
        out.append(f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                   f'fill="{colour}"/></marker>')
    out.append("</defs>")
    out.append(f'<text x="8" y="18" font-size="15" font-weight="bold">{esc(d.title)}</text>')
    # rows: step labels and stripes
    out.append('<g class="rows">')
    labels = _row_labels(d)
    for row in range(d.rows + 1):
        y = ry(row)
        if row % 2:
            out.append(f'<rect x="0" y="{y - ROW_H / 2:.1f}" width="{width}" height="{ROW_H}" fill="#f6f8fa"/>')
        out.append(f'<text x="8" y="{y + 4:.1f}">{esc(labels.get(row, ""))}</text>')
    out.append("</g>")
    # the loop bracket
    if d.loop is not None:
        top, end = ry(d.loop[0]) - ROW_H / 2 + 3, ry(d.loop[1]) + ROW_H / 2 - 3
        out.append(f'<g class="loop" stroke="{LOOP_COLOUR}" fill="{LOOP_COLOUR}">'
                   f'<rect x="2" y="{top:.1f}" width="{width - 4}" height="{end - top:.1f}" fill="none" '
                   f'stroke-width="2" stroke-dasharray="6 3" rx="6"/>'
                   f'<text x="{width - 8}" y="{end - 5:.1f}" text-anchor="end" stroke="none">'
                   f"↻ {esc(d.loop_note)}</text></g>")
    # lanes
    out.append('<g class="lanes">')
    for lane in d.lanes:
        colour = FAULTY_COLOUR if lane.faulty else CORRECT_COLOUR
        x = lx(lane.index)
        dash = ' stroke-dasharray="4 3"' if lane.faulty else ""
        out.append(f'<g class="lane{" faulty" if lane.faulty else ""}">'
                   f'<text x="{x:.1f}" y="{HEADER_H - 26}" text-anchor="middle" font-weight="bold" '
                   f'fill="{colour}">{esc(lane.label)}</text>'
                   f'<text x="{x:.1f}" y="{HEADER_H - 12}" text-anchor="middle" fill="#57606a">'
                   f'{"Byzantine senders" if lane.faulty else "processes"}</text>'
                   f'<line x1="{x:.1f}" y1="{HEADER_H - 4}" x2="{x:.1f}" y2="{bottom:.1f}" stroke="{colour}" '
                   f'stroke-width="{2 if not lane.faulty else 1.5}"{dash}/></g>')
    out.append("</g>")
    # arrows (under the events)
    out.append('<g class="arrows">')
    labelled: set[int] = set()
    for a in d.arrows:
        kind = "faulty" if a.faulty else "correct"
        dash = ' stroke-dasharray="5 2"' if a.faulty else ""
        colour = FAULTY_COLOUR if a.faulty else CORRECT_COLOUR
        if a.faulty:
            x1, y1 = lx(a.source), ry(a.row) - ROW_H * 0.45
            x2, y2 = lx(a.target), ry(a.row)
        else:
            x1, y1 = lx(a.source), ry(a.row)
            x2, y2 = lx(a.target), ry(a.row) + ROW_H * 0.5
        shrink = 7 / max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1)
        x2, y2 = x2 - (x2 - x1) * shrink, y2 - (y2 - y1) * shrink
        out.append(f'<line class="arrow {kind}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   f'stroke="{colour}" stroke-width="1.3" marker-end="url(#arrow-{kind})"{dash} opacity="0.85">'
                   f"<title>{esc(a.label)}</title></line>")
        if a.faulty and a.row not in labelled:  # one label per row, at the faulty lane
            labelled.add(a.row)
            same = {b.label for b in d.arrows if b.faulty and b.row == a.row}
            text = a.label if len(same) == 1 else "faulty messages"
            count = sum(1 for b in d.arrows if b.faulty and b.row == a.row)
            each = " each" if count > 1 and len(same) == 1 else ""
            out.append(f'<text x="{x1 - 5:.1f}" y="{y1 - 4:.1f}" text-anchor="end" {HALO} '
                       f'fill="{FAULTY_COLOUR}" font-size="11">{esc(text)}{each}</text>')
    out.append("</g>")
    # events
    out.append('<g class="events">')
    for e in d.events:
        x, y = lx(e.lane), ry(e.row)
        sends = (f'<text x="{x - 9:.1f}" y="{y - 4:.1f}" text-anchor="end" fill="#57606a" {HALO} '
                 f'font-size="11">sends {esc(", ".join(e.sends))}</text>' if e.sends else "")
        out.append(f'<g class="event"><circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{CORRECT_COLOUR}"/>'
                   f'<text x="{x - 9:.1f}" y="{y - (16 if e.sends else 6):.1f}" text-anchor="end" {HALO} '
                   f'fill="#1f2328">{esc(e.rule)} → {esc(e.target)}'
                   f"</text>{sends}</g>")
    out.append("</g>")
    # the violation: a red line under its configuration; steps the engine added after it, faded
    if d.violation is not None:
        y = ry(d.violation) + ROW_H / 2 - 2
        after = d.violation < d.rows
        if after:
            out.append(f'<rect class="after-violation" x="0" y="{y + 2:.1f}" width="{width}" '
                       f'height="{bottom - y:.1f}" fill="#fff" fill-opacity="0.6"/>')
        words = f"✗ violated in configuration {d.violation}" + (
            " (the steps below are not needed for it)" if after else "")
        out.append(f'<g class="violation"><line x1="0" y1="{y:.1f}" x2="{width}" y2="{y:.1f}" '
                   f'stroke="{VIOLATION_COLOUR}" stroke-width="2.5"/>'
                   f'<text x="8" y="{y + 15:.1f}" fill="{VIOLATION_COLOUR}" font-weight="bold" '
                   f'{HALO}>{esc(words)}</text></g>')
    legend_y = height - 14
    faulty_legend = (f'<line x1="360" y1="{legend_y - 4}" x2="386" y2="{legend_y - 4}" stroke="{FAULTY_COLOUR}" '
                     f'stroke-width="1.3" stroke-dasharray="5 2" marker-end="url(#arrow-faulty)"/>'
                     f'<text x="392" y="{legend_y}">counted from faulty senders (the + f of the fault model)</text>'
                     if any(lane.faulty for lane in d.lanes) else "")
    out.append(f'<g class="legend" font-size="12"><line x1="8" y1="{legend_y - 4}" x2="34" y2="{legend_y - 4}" '
               f'stroke="{CORRECT_COLOUR}" stroke-width="1.3" marker-end="url(#arrow-correct)"/>'
               f'<text x="40" y="{legend_y}">sent by correct processes (to every other lane)</text>'
               f"{faulty_legend}</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _row_labels(d: Diagram) -> dict[int, str]:
    labels = {0: "initial"}
    for e in d.events:
        labels.setdefault(e.row, f"step {e.row}{' *' if e.in_loop else ''}")
    if d.loop is not None and d.loop[0] == d.loop[1] and d.loop[0] == d.rows:
        labels[d.rows] = "forever"
    return labels


def counterexample_diagram(ta: ThresholdAutomaton, cex: Counterexample, property_name: str,
                           faulty: Sequence[str] = (), formula: Expr | None = None) -> Diagram:
    """The diagram of one counterexample, titled with the property and the parameters."""
    values = ", ".join(f"{k}={v}" for k, v in cex.parameters.items())
    title = f"{property_name}: counterexample with {values}" if values else f"{property_name}: counterexample"
    return build_diagram(ta, cex, title, faulty, formula)


def counterexample_svg(ta: ThresholdAutomaton, cex: Counterexample, property_name: str,
                       faulty: Sequence[str] = (), formula: Expr | None = None) -> str:
    """The SVG text of one counterexample (``tactl check --cex-svg``, the HTML report)."""
    return diagram_svg(counterexample_diagram(ta, cex, property_name, faulty, formula))


__all__ = ["Arrow", "Diagram", "Event", "Lane", "build_diagram", "counterexample_diagram",
           "counterexample_svg", "diagram_svg",
           "fault_parameters", "output_problem", "report_svg"]


# ---------------------------------------------------------------- tactl check --cex-svg FILE


def output_problem(path: Path, input_file: Path | None = None) -> str | None:
    """Why ``path`` cannot take the diagram (checked before any property is, so a typo costs
    nothing), or None."""
    if path.is_dir():
        return "cannot write the diagram there: it is a directory"
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return f"cannot write the diagram: the directory '{parent}' does not exist"
    if input_file is not None and path.exists() and path.resolve() == input_file.resolve():
        return "refusing to overwrite the input file with the diagram"
    return None


def report_svg(ta: ThresholdAutomaton, results: Sequence, receive: ReceiveTA | None,
               kind: str) -> tuple[str | None, str]:
    """The diagram of the first violated property with a counterexample among ``results``
    (``PropertyResult``s of ``tactl check``; ``receive``, ``kind``: :func:`fault_parameters`),
    and what to say about it on stderr; ``None`` when nothing is violated (then nothing is
    written)."""
    violated = [r for r in results if r.counterexample is not None]
    if not violated:
        lockstep = [r.name for r in results if r.verdict == VIOLATED]
        if lockstep:
            return None, (f"--cex-svg: {', '.join(lockstep)} is violated by a lock-step run (a "
                          "synchronous automaton), which the diagram does not draw; nothing written")
        return None, "--cex-svg: no property is violated, so there is no counterexample to draw; nothing written"
    first = violated[0]
    formula = next((p.formula for p in ta.properties if p.name == first.name), None)
    svg = counterexample_svg(ta, first.counterexample, first.name, fault_parameters(ta, receive, kind), formula)
    others = [r.name for r in violated[1:]]
    more = (f" (also violated: {', '.join(others)}; -p NAME draws another)" if others else "")
    return svg, f"space-time diagram of {first.name}'s counterexample{more}"
