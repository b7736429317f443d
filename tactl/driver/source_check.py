"""``tactl verify --engine source``: the reference interpreter as one more check pass.

The other engines check the threshold automaton tactl translated a file into, so a mistake of
the translation is shared by all of them. This pass reads the program itself instead: an
``.alg`` file is run by the interpreter (``tactl.source``) at the ``--param`` valuation. Its
results are the interpreter's own dataclasses; the driver's reports (table, report.json,
report.html) and its cache speak :class:`~tactl.engines.result.PropertyResult`, so this module
adapts one to the other (the interpreter itself must not know the driver: tests/packaging/test_layout.py).

One pass run decides one property (the unit the executors run in parallel, and the unit the
cache stores): the state graph is explored again per property, which at the small valuations
the interpreter is meant for costs little next to the clarity of one verdict per cache entry.
An input without a source program (``.rta``, ``.ta``) has nothing to interpret: each of its
properties is unsupported, with that reason, never a holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from tactl.engines.result import HOLDS, HOLDS_VACUOUSLY, UNKNOWN, UNSUPPORTED, PropertyResult
from tactl.ir.alg.reader import parse_alg
from tactl.source.check import DEFAULT_MAX_STATES, Result, SourceReport, check_algorithm, check_parameters
from tactl.source.errors import SourceError, as_input_error
from tactl.source.formula import is_liveness
from tactl.source.report import run_lines, scope_text
from tactl.source.rounds import with_obligations
from tactl.util import deadline

ENGINE = "source"
NO_SOURCE = "no source program to interpret"
SOURCE_OPTIONS = ("property", "parameters", "max_states")


@dataclass(frozen=True)
class SourceProperty:
    """A property the interpreter will be asked about, known before it runs."""

    name: str
    kind: str  # safety | liveness


def source_properties(text: str, path: str, params: dict[str, int]) -> list[SourceProperty]:
    """The properties of the ``.alg`` program (with the obligations of ``rounds carrying``), once
    its parameters are checked: every one given, none other, the resilience condition met. Bad
    input (a syntax error, a missing parameter) raises :class:`InputError`: exit 2 at its place."""
    alg = parse_alg(text, path)
    try:
        check_parameters(alg, params)
    except SourceError as e:
        raise as_input_error(e, path, text) from None
    alg, _ = with_obligations(alg)
    return [SourceProperty(p.name, "liveness" if is_liveness(p.formula) else "safety")
            for p in alg.properties]


def check_source_alg(text: str, path: str, options: Mapping[str, Any]) -> PropertyResult:
    """The interpreter's verdict on ``options['property']`` at ``options['parameters']``."""
    name = options["property"]
    params = dict(options.get("parameters") or {})
    timeout = options.get("timeout")
    try:
        with deadline.clock(timeout), deadline.interruptible():
            report = check_algorithm(parse_alg(text, path), params, path, (name,),
                                     options.get("max_states") or DEFAULT_MAX_STATES)
    except deadline.DeadlineExceeded:
        return PropertyResult(name, _kind_of(text, path, name), UNKNOWN, ENGINE,
                              reason=f"timeout: the --timeout of {timeout:g} s passed",
                              details={"valuation": params})
    except SourceError as e:  # a runtime error of the program: where it happened, no verdict
        return PropertyResult(name, _kind_of(text, path, name), UNKNOWN, ENGINE,
                              reason="the interpreter stopped: " + as_input_error(e, path, text).render(),
                              details={"valuation": params})
    [result] = report.results
    return adapt(report, result)


def _kind_of(text: str, path: str, name: str) -> str:
    alg, _ = with_obligations(parse_alg(text, path))
    prop = next((p for p in alg.properties if p.name == name), None)
    return "liveness" if prop is not None and is_liveness(prop.formula) else "safety"


def adapt(report: SourceReport, r: Result) -> PropertyResult:
    """One interpreter result as the driver's reports show it: the valuation and the state
    count in ``details``, a violation's run as its pseudocode lines (``details['source_run']``)."""
    details: dict[str, object] = {"valuation": dict(report.params), "states": report.states,
                                  "faults": report.faults}
    if r.run is not None and report.system is not None:
        details["source_run"] = run_lines(report.system, r.run)
        details["replayed"] = bool(r.run.replayed)
    return PropertyResult(r.name, r.kind, r.verdict, ENGINE, time_s=report.explore_s + r.time_s,
                          reason=r.reason or None,
                          scope=scope_text(report) if r.verdict in (HOLDS, HOLDS_VACUOUSLY) else None,
                          details=details, vacuity=(r.vacuity or None) if r.verdict == HOLDS else None)


def no_source(name: str, kind: str, suffix: str) -> PropertyResult:
    """A property of an input that holds no program (``.rta``, ``.ta``): unsupported. A ``.pml``
    file is a program, but SPIN's reading of it is not a verify pass yet: unsupported, saying so."""
    if suffix == "pml":  # SPIN's reading (tactl/engines/spin_source.py) is check's, not yet verify's
        return PropertyResult(name, kind, UNSUPPORTED, ENGINE,
                              reason="SPIN's reading of a .pml file is not run by verify yet: "
                                     "'tactl check FILE.pml --engine source --param ...' runs it")
    return PropertyResult(name, kind, UNSUPPORTED, ENGINE,
                          reason=f"{NO_SOURCE}: a .{suffix} file is an automaton, not a program "
                                 "(verify its .alg, or use another engine)")


def valuation(params: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())

