"""The HTML page of a ``tactl verify`` run: one self-contained static file per run.

:func:`render_html` turns the verify JSON report (the driver's contract, see the keys below) into
a page that opens anywhere — a browser from a CI artifact, a mail attachment, a printout — so it
has inline CSS and inline SVG only: no script, no font, no external URL. It is pure (no I/O, no
clock, no subprocess) and deterministic (the same report gives the same bytes), so a page can be
compared, cached and tested like any other output.

Escaping is Jinja's autoescape: every name, path, guard, pseudocode line and reason from the
report is text. The one raw insertion is the automaton picture, which is Graphviz's own SVG:
:func:`graphviz_svg` strips its XML prolog, doctype and comments, makes its ids unique in the
page, and refuses (leaves out, saying why) one that could run code or fetch something.

The report (``tactl verify``'s JSON): ``tactl_version, command, started, wall_s, cache {dir,
enabled, hits, misses}, algorithms [{name, file, kind, automaton {name, locations, rules,
shared, parameters, resilience}, passes [{pass, version, cache, time_s, why, subject?}],
certificates [{rule, receive_guard, send_guard, sound, precise}], svg, properties [what
``tactl check --json`` prints per property, plus cache], outputs {kind: path}, warnings,
exit_code}], exit_code``. Counterexamples are those of ``tactl check --json``
(:func:`tactl.report.property_json.counterexample_json`); their wording here follows the text
report (:func:`tactl.report.check_text.counterexample_table`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, VIOLATED
from tactl.passes.emit.render import environment
from tactl.report.counts import verdict_counts
from tactl.report.lockstep_text import run_lines
from tactl.report.run_steps import WIDE_COLUMNS, StepChanges, ending, run_changes

TEMPLATE = "html/report.html.j2"
# The order in which an algorithm's worst verdict is chosen (its colour in the summary).
SEVERITY = (VIOLATED, UNKNOWN, UNSUPPORTED, HOLDS_VACUOUSLY, HOLDS)
EXIT_MEANING = {0: "every checked property holds", 1: "a property is violated",
                2: "bad input or usage", 3: "nothing violated, but something is unknown or unsupported",
                4: "an internal error of tactl",
                130: "interrupted (SIGINT): only the verdicts shown were decided",
                143: "interrupted (SIGTERM): only the verdicts shown were decided"}
MARKS = {True: "✓", False: "✗", None: "?"}
# Okabe & Ito's colour-blind-safe palette (yellow replaced by a darker grey, legible on white);
# past its end the colours repeat with a dash pattern, so every location keeps its own line.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#7F7F7F")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


# ------------------------------------------------------------------------------------ entry


def render_html(report: Mapping[str, Any]) -> str:
    """The whole page for one ``tactl verify`` report (a dict as in the module docstring)."""
    return page_environment().get_template(TEMPLATE).render(page=page_view(report))


@cache
def page_environment() -> jinja2.Environment:
    """The emitters' template environment (same loader, StrictUndefined, whitespace control)
    with HTML autoescape on: an overlay shares the loader instead of writing another one. Its
    filters are a copy: the emitters register theirs on the shared environment at render time,
    and the page uses Jinja's own only."""
    env = environment().overlay(autoescape=True)
    env.filters = dict(env.filters)
    return env


# ------------------------------------------------------------------------------- view model


@dataclass(frozen=True)
class Tally:
    """How many properties got each verdict; ``text`` is the text report's last line."""

    counts: tuple[tuple[str, int], ...]

    @staticmethod
    def of(verdicts: Sequence[str]) -> "Tally":
        return Tally(tuple(verdict_counts(verdicts)))

    @property
    def text(self) -> str:
        return ", ".join(f"{n} {'hold' if v == HOLDS else v}" for v, n in self.counts)

    @property
    def worst(self) -> str:
        """The verdict that decides the colour: violated over unknown over unsupported."""
        present = {v for v, n in self.counts if n}
        return next((v for v in SEVERITY if v in present), "none")


@dataclass(frozen=True)
class PassRow:
    name: str
    subject: str
    version: str
    cache: str
    time: str
    why: str


@dataclass(frozen=True)
class CertificateRow:
    rule: str
    receive_guard: str
    send_guards: tuple[str, ...]
    sound: str
    precise: str
    ok: bool


@dataclass(frozen=True)
class PropertyRow:
    name: str
    klass: str
    verdict: str
    engine: str
    time: str
    cache: str
    note: str
    counterexample: str | None  # the anchor of its counterexample, if it has one
    rounds: tuple[str, ...] = ()  # a lock-step counterexample (synchronous automata), as text
    rounds_title: str = "lock-step rounds"  # what ``rounds`` is: or the interpreter's run
    hypothesis: str = ""  # what a lock-step verdict is proved under ("clean round"), shown with it
    statement: "Statement | None" = None  # what the verdict is about (formula, justice, RC)


@dataclass(frozen=True)
class Statement:
    """What a property says, as tactl/report/statement.py put it in the report."""

    written: str
    line: str
    checked: str
    justice: tuple[str, ...]
    justice_origin: str
    hypothesis: str
    resilience: str
    scope: str


def statement_view(prop: Mapping[str, Any]) -> Statement | None:
    st = prop.get("statement")
    if not isinstance(st, Mapping):
        return None
    verdict = str(prop.get("verdict", ""))
    scope = str(prop.get("scope") or "") if verdict == HOLDS else {
        VIOLATED: "refuted: a counterexample below, replayed by the simulator",
        HOLDS_VACUOUSLY: "holds only because no run meets its antecedents",
    }.get(verdict, "not decided: " + str(prop.get("reason") or verdict))
    line = st.get("line")
    return Statement(str(st.get("written", "")), "" if line is None else str(line),
                     str(st.get("checked", "")), tuple(map(str, st.get("justice") or ())),
                     str(st.get("justice_origin", "")),
                     str(st.get("hypothesis") or prop.get("hypothesis") or ""),
                     str(st.get("resilience", "")), scope)


@dataclass(frozen=True)
class StepRow:
    """One configuration of a run and the step that reached it (none for the initial one)."""

    label: str  # "0", "3", "5*" (a step of the lasso's cycle)
    rule: str
    move: str
    factor: str
    lines: str
    pseudocode: tuple[tuple[str, str], ...]  # (line number, code)
    locations: tuple[str, ...]
    shared: tuple[str, ...]
    in_cycle: bool
    violation: bool = False  # the first configuration that violates the property


@dataclass(frozen=True)
class CounterexampleView:
    anchor: str
    property: str
    verdict: str
    title: str
    parameters: tuple[tuple[str, str], ...]
    locations: tuple[str, ...]
    shared: tuple[str, ...]
    has_source: bool
    source_file: str
    rows: tuple[StepRow, ...]
    ending: str  # the lasso's loop or cycle in words, or where the replay stopped ("" for a run)
    replayed: bool
    replay: str
    plot: Markup
    spacetime: Markup | None = None  # the space-time diagram (tactl/report/spacetime.py)
    path_svg: Markup | None = None  # the automaton with the counterexample's rules highlighted
    narrow: bool = False  # many counters: their headers are set vertically so they fit
    itf: str = ""  # the run as an ITF trace in the report folder (tactl/cli/ci_outputs.py), relative
    # too many counters for a column each: each step's changes first (tactl/report/run_steps.py),
    # the table of every counter folded below them
    changes: tuple[StepChanges, ...] = ()
    explanation: tuple[tuple[bool, str], ...] = ()  # why it is a violation, as check says it (indented?, line)
    forever: str = ""  # what the lasso's self-loop does, in the words of the pseudocode
    minimal: str = ""  # what the counterexample's size is known to be


@dataclass(frozen=True)
class AlgorithmView:
    anchor: str
    name: str
    file: str
    kind: str
    summary: str
    tally: Tally
    exit_code: str
    svg: Markup | None
    svg_note: str
    certificates: tuple[CertificateRow, ...]
    certificates_note: str
    passes: tuple[PassRow, ...]
    properties: tuple[PropertyRow, ...]
    counterexamples: tuple[CounterexampleView, ...]
    warnings: tuple[str, ...]
    outputs: tuple[tuple[str, str], ...]
    error: str = ""  # bad input: the diagnostic (file:line:col, source line, caret)
    source: tuple[tuple[str, str], ...] = ()  # the input file, numbered lines (.alg, .rta, .pml)
    # ``rounds carrying``: (claim, concluded, why not) and (premise, shown, evidence) rows
    claims: tuple[tuple[str, bool, str], ...] = ()
    premises: tuple[tuple[str, bool, str], ...] = ()


@dataclass(frozen=True)
class PageView:
    title: str
    command: str
    version: str
    started: str
    wall: str
    cache: str
    tally: Tally
    exit_code: str
    exit_meaning: str
    algorithms: tuple[AlgorithmView, ...]


def page_view(report: Mapping[str, Any]) -> PageView:
    """Everything the template shows, computed and formatted here so the template only lays
    out text (and a typo in it is an error: the environment's StrictUndefined)."""
    anchors = _Anchors()
    algorithms = tuple(algorithm_view(a, anchors.take("alg-" + _slug(str(a.get("name", "")))))
                       for a in report.get("algorithms") or [])
    verdicts = [p.verdict for a in algorithms for p in a.properties]
    code = report.get("exit_code")
    command = str(report.get("command", "tactl verify"))
    return PageView(
        title=f"{command}: {Tally.of(verdicts).text}",
        command=command,
        version=str(report.get("tactl_version", "?")),
        started=str(report.get("started", "?")),
        wall=_duration(report.get("wall_s")),
        cache=cache_summary(report.get("cache")),
        tally=Tally.of(verdicts),
        exit_code="?" if code is None else str(code),
        exit_meaning=EXIT_MEANING.get(code, "") if isinstance(code, int) else "",
        algorithms=algorithms,
    )


def cache_summary(cache_info: Mapping[str, Any] | None) -> str:
    """``.tactl-cache: 3 hits, 2 misses``, or why there was no cache."""
    if not cache_info or not cache_info.get("enabled"):
        return "off (no cache in this run)"
    hits, misses = cache_info.get("hits", 0), cache_info.get("misses", 0)
    return f"{cache_info.get('dir', '?')}: {_plural(hits, 'hit')}, {misses} miss{'' if misses == 1 else 'es'}"


def algorithm_view(alg: Mapping[str, Any], anchor: str) -> AlgorithmView:
    properties = alg.get("properties") or []
    anchors = _Anchors()
    cex_anchors = [anchors.take(f"{anchor}-cex-{_slug(str(p.get('name', '')))}")
                   if p.get("counterexample") else None for p in properties]
    svg, svg_note = graphviz_svg(alg.get("svg"), prefix=anchor + "-")
    source = str(alg.get("source") or "")
    kind = str(alg.get("kind", ""))
    code = alg.get("exit_code")
    return AlgorithmView(
        anchor=anchor,
        name=str(alg.get("name", "")),
        file=str(alg.get("file", "")),
        kind=kind,
        summary=automaton_summary(alg.get("automaton")),
        tally=Tally.of([str(p.get("verdict", "")) for p in properties]),
        exit_code="?" if code is None else str(code),
        svg=svg,
        svg_note=svg_note,
        certificates=tuple(certificate_row(c) for c in alg.get("certificates") or []),
        certificates_note=_no_certificates(kind),
        passes=tuple(pass_row(p) for p in alg.get("passes") or []),
        properties=tuple(property_row(p, a) for p, a in zip(properties, cex_anchors)),
        counterexamples=tuple(counterexample_view(p, a) for p, a in zip(properties, cex_anchors) if a),
        source=tuple((str(i), line) for i, line in enumerate(source.splitlines(), start=1)),
        warnings=tuple(str(w) for w in alg.get("warnings") or []),
        outputs=tuple((str(k), str(v)) for k, v in (alg.get("outputs") or {}).items()),
        error=str(alg.get("error") or ""),
        **multi_round_rows(alg.get("multi_round")),
    )


def multi_round_rows(multi: Mapping[str, Any] | None) -> dict[str, tuple]:
    """The multi-round conclusion of report.json (tactl/report/rounds.py) as the page's rows: each
    claim, concluded or why not, and each premise of the termination argument, shown or why not."""
    if not multi:
        return {}
    return {"claims": tuple((str(c.get("claim", "")), bool(c.get("concluded")),
                             "; ".join(map(str, c.get("missing") or [])))
                            for c in multi.get("conclusions") or []),
            "premises": tuple((str(p.get("statement", "")), bool(p.get("shown")),
                               str(p.get("why") or p.get("checked") or ""))
                              for p in multi.get("premises") or [])}


def automaton_summary(automaton: Mapping[str, Any] | None) -> str:
    """The text report's first line: ``STRB, 4 locations, 9 rules, 1 shared variable,
    parameters n, t, f with n > 3 * t && …``."""
    if not automaton:
        return "no automaton (the input was not read)"
    params = ", ".join(map(str, automaton.get("parameters") or [])) or "(none)"
    return (f"{automaton.get('name', '?')}, {_plural(automaton.get('locations', 0), 'location')}, "
            f"{_plural(automaton.get('rules', 0), 'rule')}, "
            f"{_plural(automaton.get('shared', 0), 'shared variable')}, "
            f"parameters {params} with {automaton.get('resilience') or 'true'}")


def _no_certificates(kind: str) -> str:
    if kind in ("alg", "rta"):
        return "No certificates were recorded for this translation (the guards were not certified)."
    return ("No translation certificates: the input is a threshold automaton, read as written, "
            "so there is no receive guard translated into a send guard to certify.")


def certificate_row(cert: Mapping[str, Any]) -> CertificateRow:
    """One translated guard; several send guards (a disjunction) are shown one per line, as
    ``tactl translate`` prints them."""
    send = cert.get("send_guard")
    sends = tuple(map(str, send)) if isinstance(send, list) else (str(send),)
    sound, precise = cert.get("sound"), cert.get("precise")
    return CertificateRow(str(cert.get("rule", "")), str(cert.get("receive_guard", "")), sends,
                          MARKS.get(sound, "?"), MARKS.get(precise, "?"),
                          sound is True and precise is True)


def pass_row(record: Mapping[str, Any]) -> PassRow:
    return PassRow(str(record.get("pass", "")), str(record.get("subject", "")),
                   str(record.get("version", "")), str(record.get("cache", "")),
                   _duration(record.get("time_s")), str(record.get("why", "")))


def property_row(prop: Mapping[str, Any], cex_anchor: str | None) -> PropertyRow:
    verdict = str(prop.get("verdict", ""))
    notes = prop.get("notes")  # check's sentences (tactl/report/property_json.py: property_notes)
    note = "; ".join(map(str, notes)) if isinstance(notes, list) else \
        prop.get("scope") if verdict == HOLDS else prop.get("reason")  # a report without them
    vacuity = prop.get("vacuity") or {}
    if verdict == HOLDS and vacuity.get("status") and not vacuity.get("witness"):  # the text's head word
        note = f"{vacuity['status']}; {note}" if note else str(vacuity["status"])
    return PropertyRow(
        name=str(prop.get("name", "")),
        klass=str(prop.get("class") or prop.get("kind") or ""),
        verdict=verdict,
        engine=str(prop.get("engine", "")),
        time="" if verdict == UNSUPPORTED else _duration(prop.get("time_s")),
        cache=str(prop.get("cache", "")),
        note=str(note or ""),
        counterexample=cex_anchor,
        rounds=_source_run(prop) or _file_run(prop) or _rounds(prop),
        rounds_title=_run_title(prop),
        hypothesis=str(prop.get("hypothesis") or (prop.get("details") or {}).get("hypothesis") or ""),
        statement=statement_view(prop),
    )


def _source_run(prop: Mapping[str, Any]) -> tuple[str, ...]:
    """The reference interpreter's violating run (``--engine source``), as pseudocode lines."""
    lines = (prop.get("details") or {}).get("source_run")
    return tuple(map(str, lines)) if lines and prop.get("verdict") == VIOLATED else ()


def _file_run(prop: Mapping[str, Any]) -> tuple[str, ...]:
    """A run of a Promela file itself under its own fairness (``tactl/driver/file_reading.py``)."""
    lines = (prop.get("details") or {}).get("file_run")
    return tuple(map(str, lines)) if lines and prop.get("verdict") == VIOLATED else ()


def _run_title(prop: Mapping[str, Any]) -> str:
    details = prop.get("details") or {}
    if details.get("file_run"):
        values = ", ".join(f"{k}={v}" for k, v in (details.get("instance") or {}).items())
        return f"run of the file at {values}, each process with its receive counts, under the file's fairness"
    if not details.get("source_run"):
        return "lock-step rounds"
    values = ", ".join(f"{k}={v}" for k, v in (details.get("valuation") or {}).items())
    return f"run of the program at {values} (reference interpreter)"


def _rounds(prop: Mapping[str, Any]) -> tuple[str, ...]:
    """A lock-step run in the words of ``tactl check`` (per round: start, rules taken)."""
    details = prop.get("details") or {}
    if not details.get("run") or prop.get("verdict") != VIOLATED:
        return ()
    return (*run_lines(details["run"]), *map(str, details.get("pseudocode") or ()),
            *((f"minimal: {details['minimality']}",) if details.get("minimality") else ()))


# --------------------------------------------------------------------------- counterexamples


def counterexample_view(prop: Mapping[str, Any], anchor: str) -> CounterexampleView:
    """A counterexample as a table of configurations, one row per configuration, in the
    words of ``tactl check``'s text report."""
    cex = prop["counterexample"]
    schedule = list(cex.get("schedule") or [])
    cycle = list((cex.get("cycle") or {}).get("steps") or [])
    configs = list(cex.get("configurations") or [])
    params = tuple((str(k), str(v)) for k, v in (cex.get("parameters") or {}).items())
    locations, shared = _columns(configs, "locations"), _columns(configs, "shared")
    steps = schedule + cycle
    # the engine's mark (``violating_step``) if it sets one, else the report's (the first
    # configuration where a safety property's [] body fails: tactl/report/spacetime.py)
    marked = cex.get("violating_step")
    marked = prop.get("violating_configuration") if marked is None else marked
    rows = tuple(replace(_step_row(n, config, steps[n - 1] if 0 < n <= len(steps) else None,
                                   bool(cycle) and n > len(schedule), locations, shared),
                         violation=n == marked)
                 for n, config in enumerate(configs))
    sources = [s["source"] for s in steps if s.get("source")]
    lasso = cex.get("loop") is not None or bool(cycle)
    shape = "lasso: prefix schedule, then a loop" if lasso else "run"
    values = ", ".join(f"{k}={v}" for k, v in params) or "no parameters"
    spacetime, _ = graphviz_svg(prop.get("spacetime_svg"), prefix=anchor + "-st-")
    path_svg, _ = graphviz_svg(prop.get("path_svg"), prefix=anchor + "-path-")
    loop_from = len(schedule) if cycle and len(configs) > len(schedule) + len(cycle) else None
    return CounterexampleView(
        anchor=anchor,
        property=str(prop.get("name", "")),
        verdict=str(prop.get("verdict", "")),
        title=f"counterexample {shape}, with {values}",
        parameters=params,
        locations=locations,
        shared=shared,
        has_source=bool(sources),
        source_file=str(sources[0].get("file", "")) if sources else "",
        rows=rows,
        ending=ending(cex),
        replayed=bool(cex.get("replayed")),
        replay=str(cex.get("replay") or ""),
        plot=Markup(counter_plot_svg(configs, loop_from,
                                     cex.get("loop") is not None and not cycle)),  # escaped text only
        spacetime=spacetime,
        path_svg=path_svg,
        narrow=len(locations) + len(shared) > 8,
        itf=str(prop.get("itf") or ""),
        changes=run_changes(cex, marked) if len(locations) + len(shared) > WIDE_COLUMNS else (),
        explanation=tuple((str(line).startswith(" "), str(line).strip()) for line in cex.get("explanation") or ()),
        forever=str((cex.get("loop") or {}).get("forever") or ""),
        minimal=str((cex.get("minimal") or {}).get("note") or ""),
    )


def _columns(configs: Sequence[Mapping[str, Any]], part: str) -> tuple[str, ...]:
    """The counters in the order the report lists them (the automaton's), first seen first."""
    seen: dict[str, None] = {}
    for config in configs:
        seen.update(dict.fromkeys(map(str, (config.get(part) or {}))))
    return tuple(seen)


def _step_row(n: int, config: Mapping[str, Any], step: Mapping[str, Any] | None, in_cycle: bool,
              locations: tuple[str, ...], shared: tuple[str, ...]) -> StepRow:
    counters, variables = config.get("locations") or {}, config.get("shared") or {}
    loc_values = tuple(str(counters.get(x, "")) for x in locations)
    shared_values = tuple(str(variables.get(x, "")) for x in shared)
    label = f"{n}{'*' if in_cycle else ''}"
    if step is None:
        return StepRow(label, "initial" if n == 0 else "", "", "", "", (), loc_values, shared_values,
                       in_cycle)
    source = step.get("source") or {}
    return StepRow(label, str(step.get("rule", "")), f"{step.get('from', '')} → {step.get('to', '')}",
                   f"×{step.get('factor', '')}", _line_numbers(source.get("lines") or []),
                   pseudocode_lines(str(source.get("text", ""))), loc_values, shared_values, in_cycle)


def _line_numbers(lines: Sequence[int]) -> str:
    """``line 7``, ``lines 15–18`` (consecutive), ``lines 15, 16, 19``."""
    if not lines:
        return ""
    if len(lines) == 1:
        return f"line {lines[0]}"
    if list(lines) == list(range(lines[0], lines[0] + len(lines))):
        return f"lines {lines[0]}–{lines[-1]}"
    return "lines " + ", ".join(map(str, lines))


_NEXT_LINE = re.compile(r'(?<=");\s+(?=line \d+ ")')
_QUOTED_LINE = re.compile(r'line (\d+) "(.*)"', re.DOTALL)


def pseudocode_lines(text: str) -> tuple[tuple[str, str], ...]:
    """A source map's text (``line 15 "if v == 1:"; line 16 "send ECHO to all"``) as
    (line number, code) pairs, so the table shows the code as it reads in the file; a part
    in another shape (e.g. ``waits: no handler changes anything``) is kept whole, unnumbered."""
    out = []
    for part in _NEXT_LINE.split(text) if text else ():
        quoted = _QUOTED_LINE.fullmatch(part)
        out.append((quoted.group(1), quoted.group(2)) if quoted else ("", part))
    return tuple(out)


# ---------------------------------------------------------------------------------- the plot

PLOT_WIDTH, PLOT_HEIGHT = 720, 340
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 44, 150, 22, 36
LEGEND_CHAR = 7  # px per character of a legend entry at font-size 11 (wide enough for sans-serif)
LEGEND_ROW = 16


def counter_plot_svg(configurations: Sequence[Mapping[str, Any]], loop_from: int | None = None,
                     self_loop: bool = False) -> str:
    """An inline SVG line plot of the location counters along a run: x = step, y = processes
    at the location, one polyline per location (colour and dash from a fixed palette, by the
    location's position), a legend wide enough for every name, integer ticks on both axes, and
    the lasso's loop shaded (``loop_from``: the configuration where its cycle starts; or
    ``self_loop``: the last configuration repeats forever). ``""`` for no configuration. Pure
    and deterministic: coordinates are printed with one decimal."""
    if not configurations:
        return ""
    names = _columns(configurations, "locations")
    margin_right = max(MARGIN_RIGHT, 50 + LEGEND_CHAR * max((len(n) for n in names), default=0))
    plot_width = PLOT_WIDTH - MARGIN_RIGHT + margin_right
    series = [[_count(c, name) for c in configurations] for name in names]
    steps = len(configurations) - 1
    top = max((v for s in series for v in s), default=0)
    y_step = _tick_step(top, 5)
    y_max = max(y_step, -(-top // y_step) * y_step)
    x_step = _tick_step(steps, 10)
    x_max = max(steps, 1)
    height = max(PLOT_HEIGHT, MARGIN_TOP + LEGEND_ROW * len(names) + MARGIN_BOTTOM)
    inner_w = plot_width - MARGIN_LEFT - margin_right
    inner_h = height - MARGIN_TOP - MARGIN_BOTTOM

    def x(step: int) -> str:
        return f"{MARGIN_LEFT + inner_w * step / x_max:.1f}"

    def y(value: int) -> str:
        return f"{MARGIN_TOP + inner_h * (1 - value / y_max):.1f}"

    bottom, right = y(0), x(x_max)
    out = [f'<svg class="plot" width="{plot_width}" height="{height}" '
           f'viewBox="0 0 {plot_width} {height}" role="img" '
           f'aria-label="processes at each location along the run">',
           "<title>processes at each location, step by step</title>",
           '<g class="axes" stroke="#444" stroke-width="1" fill="none">',
           f'<line x1="{x(0)}" y1="{bottom}" x2="{right}" y2="{bottom}"/>',
           f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(0)}" y2="{y(y_max)}"/>', "</g>",
           '<g class="ticks" font-size="10" fill="#333" font-family="sans-serif">']
    for value in range(0, y_max + 1, y_step):
        out.append(f'<line x1="{float(x(0)) - 4:.1f}" y1="{y(value)}" x2="{right}" y2="{y(value)}" '
                   f'stroke="#ddd" stroke-width="{1 if value else 0}"/>')
        out.append(f'<text x="{float(x(0)) - 7:.1f}" y="{float(y(value)) + 3.5:.1f}" '
                   f'text-anchor="end">{value}</text>')
    for step in range(0, steps + 1, x_step):
        out.append(f'<line x1="{x(step)}" y1="{bottom}" x2="{x(step)}" y2="{float(bottom) + 4:.1f}" '
                   'stroke="#444"/>')
        out.append(f'<text x="{x(step)}" y="{float(bottom) + 15:.1f}" text-anchor="middle">{step}</text>')
    out.append(f'<text x="{(float(x(0)) + float(right)) / 2:.1f}" y="{height - 4}" '
               'text-anchor="middle">step</text>')
    out.append(f'<text x="{float(x(0)) + 6:.1f}" y="{MARGIN_TOP - 8}" text-anchor="start">'
               "processes at each location</text>")
    out.append("</g>")
    if loop_from is not None:  # the cycle's configurations, shaded
        start = x(loop_from)
        out.append(f'<g class="loop" fill="#6A3D9A" font-size="10" font-family="sans-serif">'
                   f'<rect x="{start}" y="{y(y_max)}" width="{float(right) - float(start):.1f}" '
                   f'height="{float(bottom) - float(y(y_max)):.1f}" fill-opacity="0.12"/>'
                   f'<text x="{float(start) + 4:.1f}" y="{float(bottom) - 6:.1f}">'
                   "loop: these steps repeat forever ↻</text></g>")
    elif self_loop:  # the last configuration repeats: a dashed purple line through it
        out.append(f'<g class="loop" stroke="#6A3D9A" fill="#6A3D9A" font-size="10" font-family="sans-serif">'
                   f'<line x1="{right}" y1="{y(y_max)}" x2="{right}" y2="{bottom}" stroke-width="3" '
                   f'stroke-dasharray="5 3" stroke-opacity="0.7"/>'
                   f'<text x="{float(right) - 4:.1f}" y="{float(bottom) - 6:.1f}" text-anchor="end" stroke="none">'
                   f"configuration {steps} repeats forever ↻</text></g>")
    for i, (name, values) in enumerate(zip(names, series)):
        colour, dash = _style(i)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        points = " ".join(f"{x(step)},{y(v)}" for step, v in enumerate(values))
        label = html.escape(name)
        out.append(f'<g class="series" stroke="{colour}" fill="{colour}">')
        out.append(f'<polyline points="{points}" fill="none" stroke-width="2"{dash_attr}>'
                   f"<title>{label}</title></polyline>")
        out.extend(f'<circle cx="{x(step)}" cy="{y(v)}" r="2.5" stroke="none"/>'
                   for step, v in enumerate(values))
        out.append("</g>")
    out.append('<g class="legend" font-size="11" font-family="sans-serif" fill="#222">')
    lx = plot_width - margin_right + 16
    for i, name in enumerate(names):
        colour, dash = _style(i)
        ly = MARGIN_TOP + 6 + LEGEND_ROW * i
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 22}" y2="{ly}" stroke="{colour}" '
                   f'stroke-width="2"{dash_attr}/>')
        out.append(f'<text x="{lx + 28}" y="{ly + 4}">{html.escape(name)}</text>')
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _count(config: Mapping[str, Any], name: str) -> int:
    value = (config.get("locations") or {}).get(name, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _style(index: int) -> tuple[str, str]:
    """The colour and dash pattern of the ``index``-th location (fixed: same page, same look)."""
    return PALETTE[index % len(PALETTE)], DASHES[(index // len(PALETTE)) % len(DASHES)]


def _tick_step(span: int, most: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, … that puts at most ``most`` intervals on ``span``."""
    step, factors = 1, (2, 2.5, 2)
    k = 0
    while span / step > most:
        step = int(step * factors[k % 3])
        k += 1
    return step


# ------------------------------------------------------------------------- the Graphviz SVG

_PROLOG = re.compile(r"<\?.*?\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.DOTALL | re.IGNORECASE)
_NAMESPACE = re.compile(r'\s+xmlns(?::\w+)?\s*=\s*"[^"]*"')
_UNSAFE = (
    (re.compile(r"<\s*script", re.IGNORECASE), "it contains a script"),
    (re.compile(r"<\s*foreignObject", re.IGNORECASE), "it embeds foreign (non-SVG) content"),
    (re.compile(r"\son[a-z]+\s*=", re.IGNORECASE), "it has an event handler attribute"),
    (re.compile(r"javascript:", re.IGNORECASE), "it has a javascript link"),
    (re.compile(r"(?:href|src)\s*=\s*[\"']?\s*(?!#)[^\"'\s>]", re.IGNORECASE),
     "it refers to something outside the page"),
    (re.compile(r"url\(\s*(?![\"']?\s*#)", re.IGNORECASE), "it refers to something outside the page"),
    (re.compile(r"@import", re.IGNORECASE), "it imports a style sheet"),
)
_ID = re.compile(r'(\sid\s*=\s*")([^"]*)(")')
_REF = re.compile(r'(url\(\s*[\'"]?#|href\s*=\s*"#)([^)"\']*)')


def graphviz_svg(svg: str | None, prefix: str = "") -> tuple[Markup | None, str]:
    """The automaton picture, ready to insert raw, or ``None`` and why it is not shown.

    The SVG is Graphviz's output for our own DOT text, so it is trusted — but only as far as
    what it is: prolog, doctype and comments go (they are not HTML), the namespace declarations
    go (HTML knows inline SVG's namespace; the page then has no URL at all), ids get ``prefix``
    so two pictures on one page do not share an id, and anything that could run code or load
    a resource (a script, an event handler, an external link) makes us leave the picture out."""
    if not svg:
        return None, "No picture in this report (the automaton was not drawn in this run)."
    text = _PROLOG.sub("", svg).strip()
    if not text.lower().startswith("<svg"):
        return None, "The picture was left out: it is not an SVG document."
    for pattern, why in _UNSAFE:
        if pattern.search(_NAMESPACE.sub("", text)):
            return None, f"The picture was left out: {why}, and only Graphviz's plain SVG is inserted."
    text = _NAMESPACE.sub("", text)
    if prefix:
        text = _ID.sub(lambda m: m.group(1) + prefix + m.group(2) + m.group(3), text)
        text = _REF.sub(lambda m: m.group(1) + prefix + m.group(2), text)
    return Markup(text), ""


# ---------------------------------------------------------------------------------- helpers


class _Anchors:
    """Unique HTML ids: the second ``alg-strb`` is ``alg-strb-2``."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, wanted: str) -> str:
        anchor, n = wanted, 1
        while anchor in self.used:
            n += 1
            anchor = f"{wanted}-{n}"
        self.used.add(anchor)
        return anchor


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "x"


def _plural(n: object, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _duration(seconds: object) -> str:
    """``0.8 ms``, ``21.4 ms``, ``1.23 s``: passes take milliseconds, whole runs seconds."""
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return ""
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"
