"""The work of ``tactl check`` and ``tactl emit`` between their options and their output.

The CLI (``tactl/cli/check.py``, ``tactl/cli/emit.py``) turns options into a request, calls one
function here and prints what comes back; everything in between — reading the input through the
declared passes, rewriting the automaton for an option, checking, emitting — is done here, with
the same passes and the same option names as ``tactl verify`` (``tactl/driver/pipeline.py``).
What the user should see while the work goes on (a reading's warnings, a note about an option) is
handed to ``say`` as it happens, so that stderr keeps its order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tactl.driver.file_types import file_type
from tactl.driver.pipeline import (CHECK_DEFAULTS, PASSES, SOURCE_MAX_STATES, NoChain, Runner,
                                   check_options, parse_loaded, parse_promela_loaded, plan,
                                   process_automaton, read_source, without_rc)
from tactl.ir.errors import Diagnostic, InputError, Severity
from tactl.ir.rta.result import RtaReadResult
from tactl.ir.ta.reader import ReadResult
from tactl.util import deadline

Say = Callable[[str], None]


def usage_error(path: Path | str, message: str) -> InputError:
    """A refusal of the command as the user typed it: ``path`` as given (``-``, not a label)."""
    return InputError(Diagnostic(Severity.ERROR, message), str(path))


def _pass(name: str):
    return next(p for p in PASSES if p.name == name)


def _say_warnings(loaded: Any, say: Say) -> None:
    if loaded.warnings:
        say(loaded.render_warnings())


# ------------------------------------------------------------------------------- reading


@dataclass
class Loaded:
    """A file read up to its checkable automaton, with the automaton as its author wrote it (the
    receive automaton of an ``.alg``, ``.pml`` or ``.rta``; None for a threshold automaton)."""

    checkable: ReadResult
    written: RtaReadResult | None = None


def load(path: Path, defines: tuple[str, ...] = (), say: Say | None = None) -> Loaded:
    """Read ``path`` once through the declared passes, up to the automaton the engines check
    (divisions lowered); the reading's warnings go to ``say``."""
    source, kind = read_source(str(path))
    runner, options = Runner(), {"defines": defines}
    written = None
    try:
        plan(kind, "rta")
    except NoChain:
        checkable = runner.chain(source, kind, "checkable-ta", options)
    else:
        written = runner.chain(source, kind, "rta", options)
        checkable = runner.chain(written, "rta", "checkable-ta", options)
    if say is not None:
        _say_warnings(checkable, say)
    return Loaded(checkable, written)


def parse_program(file: Path, defines: tuple[str, ...] = ()) -> tuple[RtaReadResult, str]:
    """``tactl parse``: the receive automaton of pseudocode (or of Parametric Promela, by its
    extension) by the parse pass, and the table of its locations."""
    from tactl.ir.source import label, read_text  # lazy: only for parse
    from tactl.passes.alg_to_rta.results import location_table  # lazy: only for parse

    where = label(file)
    text = read_text(file)
    if file.suffix.lower() == ".pml":  # Parametric Promela (ByMC): its own front end
        loaded = parse_promela_loaded(text, where, defines)
        table = "\n".join(f"  {loc.name:<8} {loc.origin.text if loc.origin else ''}"
                          for loc in (*loaded.rta.locations, *loaded.rta.crash_locations))
        return loaded, f"locations of {where}:\n{table}"
    loaded = parse_loaded(text, where)
    return loaded, location_table(loaded.program.extracted)


def read_alg(file: Path):
    """The pseudocode IR of an ``.alg`` file and its text (the interpreter reads nothing else)."""
    from tactl.ir.alg.reader import parse_alg  # lazy: only the interpreter's commands
    from tactl.ir.source import label, read_text

    if file.suffix.lower() != ".alg":
        raise usage_error(file, "the reference interpreter runs pseudocode: give an .alg file")
    text = read_text(file)
    return parse_alg(text, label(file)), text


def translated_automaton(file: Path, say: Say) -> ReadResult | None:
    """``tactl translate`` of a file whose reader is itself a translation into a threshold
    automaton (``FileType.translated``: TLA+): that automaton; None for every other file."""
    declared = file_type(file)
    if declared is None or not declared.translated:
        return None
    # lazy: the readers
    from tactl.driver.inputs import read_automaton

    with deadline.interruptible():
        loaded = read_automaton(file)
    _say_warnings(loaded, say)
    return loaded


def translate_file(file: Path, defines: tuple[str, ...], certify: bool, say: Say):
    """``tactl translate``: the receive automaton of ``file`` and its certified translation
    (``tactl/driver/translation.py``), both inside the command's deadline."""
    # lazy: the translation loads z3 and the passes
    from tactl.driver.inputs import load_receive_automaton
    from tactl.driver.translation import run_translate

    with deadline.interruptible():
        loaded = load_receive_automaton(file, defines)
        _say_warnings(loaded, say)
        result = run_translate(loaded.rta, loaded.path, check=certify)
    return loaded, result


# -------------------------------------------------------------------------------- check


@dataclass(frozen=True)
class CheckRequest:
    """``tactl check``'s options, named as the check pass names them (``pipeline.CHECK_OPTIONS``)."""

    file: Path
    engine: str = CHECK_DEFAULTS["engine"]
    properties: tuple[str, ...] = ()
    parameters: dict[str, int] = field(default_factory=dict)
    model: str = CHECK_DEFAULTS["model"]
    partition: bool = CHECK_DEFAULTS["partition"]
    receive: str = CHECK_DEFAULTS["receive"]
    bmc: int | None = None
    max_depth: int | None = None
    memory_mb: int | None = None
    allow_outside_rc: bool = CHECK_DEFAULTS["allow_outside_rc"]
    bound: int = CHECK_DEFAULTS["bound"]
    max_states: int = CHECK_DEFAULTS["max_states"]
    defines: tuple[str, ...] = ()
    certify: bool = False  # every query behind a HOLDS re-asked of cvc5 (tactl/engines/certify.py)
    minimize: bool = False  # counterexamples minimised in full, without a budget (tactl/engines/budget.py)

    def options(self) -> dict[str, Any]:
        """The check pass's options (all but the property and the deadline)."""
        return {"parameters": self.parameters, **{name: getattr(self, name) for name in CHECK_DEFAULTS},
                **({"certify": True} if self.certify else {}), **({"minimize": True} if self.minimize else {})}


class ReadingTimedOut(deadline.DeadlineExceeded):
    """The deadline passed while the input was read (and translated): nothing was checked."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class CheckOutcome:
    """What ``check`` decided about one file, with what its report needs to show it."""
    report: Any  # tactl.engines.check.CheckReport
    source: str  # the input's text (a counterexample diagram shows its lines)
    rounds: Any = None  # a `rounds carrying` program's (structure, premises), else None


def check_file(request: CheckRequest, shown, say: Say) -> CheckOutcome:
    """Read, then decide every selected property. The reading is an item of the live line on a
    terminal (as verify shows it), not a plain line: a bad input's error must be the first line
    of stderr (file:line:col first)."""
    # lazy: the checker and its engines load only for check
    from tactl.engines.check import SelectionError, check_automaton
    from tactl.util.progress import Live, finished, phase, started

    file = request.file
    reading = shown if isinstance(shown, Live) else None
    phase(reading, 1)
    started(reading, file.name, "", "reading")
    try:
        with deadline.interruptible():
            loaded = load(file, request.defines, say)
    except deadline.DeadlineExceeded:
        raise ReadingTimedOut(
            f"timeout: the --timeout of {deadline.seconds():g} s passed while reading "
            f"{'and translating ' if file.suffix.lower() != '.ta' else ''}the input; "
            "no property was checked") from None
    result = loaded.checkable
    finished(reading, file.name, f"{result.ta.name} ready ({len(result.ta.locations)} locations, "
                                 f"{len(result.ta.rules)} rules)")
    ta, options, notes = check_options(result, request.options(), request.properties)
    for note in notes:
        say(note)
    try:
        report = check_automaton(ta, result.path, options, shown)
    except SelectionError as e:
        raise usage_error(file, str(e)) from None
    if not request.parameters:  # a verdict for every parameter: the file's own fairness first
        from tactl.driver.file_reading import reading_of, second_reading  # lazy: only for a .pml's liveness

        second_reading(reading_of(result), report, ta, result.path, request.engine)
    return CheckOutcome(report, result.source or "", _rounds(file, loaded.written))


def _rounds(file: Path, written: RtaReadResult | None):
    """The ``rounds carrying v:`` structure of an ``.alg`` input and the premises of its
    termination argument (``passes/alg_to_rta/rounds.py``, ``premises.py``), from the program
    the parse pass read, or None."""
    program = getattr(written, "program", None)
    if file.suffix.lower() != ".alg" or program is None:
        return None
    # lazy: only for a `rounds carrying` program
    from tactl.passes.alg_to_rta.premises import premises
    from tactl.passes.alg_to_rta.rounds import structure

    s = structure(program.alg)
    return None if s is None else (s, premises(program.alg, s, program.extracted))


# --------------------------------------------------------------------------------- emit


@dataclass(frozen=True)
class EmitRequest:
    """``tactl emit``'s options, named as the emit passes name them (``pipeline.PROMELA_OPTIONS``,
    ``NUXMV_OPTIONS``)."""

    file: Path
    to: str
    properties: tuple[str, ...] = ()
    parameters: dict[str, int] = field(default_factory=dict)
    model: str = "counter"
    partition: bool = False
    receive: str = "auto"
    bound: int | None = None
    unbounded: bool = False
    allow_outside_rc: bool = False
    defines: tuple[str, ...] = ()
    invariant: bool = False  # smtlib: the chc engine's inductive-invariant checks


def emit_smtlib(request: EmitRequest, say: Say) -> tuple[ReadResult, dict[str, Any]]:
    """``emit --to smtlib``: the checkable automaton and the emit-smtlib pass's files; with
    ``invariant``, or for an automaton the steady-schema queries do not encode (resets), the
    inductive-invariant checks of the chc engine instead (``emitters.invariant_files``)."""
    # lazy: only for emit
    from tactl.engines.check import SelectionError, validate_selection
    from tactl.ir.rta.model import Timing
    from tactl.passes.ta_to_smt.guard_abstraction import unsupported_reason

    file = request.file
    loaded = load(file, request.defines, say).checkable
    if getattr(loaded.receive, "timing", None) is Timing.SYNC:
        return loaded, _lockstep_files(request, loaded)
    if not loaded.not_checkable:
        try:
            validate_selection(loaded.ta, request.properties, request.parameters)
        except SelectionError as e:
            raise usage_error(file, str(e)) from None
    blocker = None if request.invariant or loaded.not_checkable else unsupported_reason(loaded.ta)
    if blocker:
        say(f"tactl: note: the steady-schema queries do not encode this automaton ({blocker}); "
            "writing the chc engine's inductive-invariant checks instead (for a liveness property, the "
            "queries about the automaton without its reset rules, and the invariant checks of the "
            "safety questions about which rules can fire for ever)")
    try:
        if request.invariant or blocker:
            from tactl.driver.emitters import invariant_files  # lazy: Spacer, only for these files

            return loaded, invariant_files(loaded, request.properties, request.parameters)
        emitted = Runner().run(_pass("emit-smtlib"), loaded, {"properties": request.properties,
                                                              "parameters": request.parameters})
    except ValueError as e:
        raise usage_error(file, str(e)) from None
    return loaded, emitted


def _lockstep_files(request: EmitRequest, loaded: ReadResult) -> dict[str, Any]:
    """``emit --to smtlib`` of a synchronous algorithm: the lock-step engine's questions behind
    each HOLDS (``emitters.lockstep_files``); the steady-schema queries and the chc invariant
    interleave single steps and do not apply."""
    # lazy: only for emit
    from tactl.driver.emitters import lockstep_files
    from tactl.engines.check import SelectionError, validate_selection

    if request.invariant:
        raise usage_error(request.file, "--invariant writes the chc engine's invariant checks, which "
                                        "interleave single steps; a synchronous algorithm is checked "
                                        "in lock-step rounds: emit --to smtlib without --invariant "
                                        "writes the questions of its certificate")
    try:
        validate_selection(loaded.ta, request.properties, request.parameters)
    except SelectionError as e:
        raise usage_error(request.file, str(e)) from None
    return lockstep_files(loaded, request.properties, request.parameters)


def emit_model(request: EmitRequest, say: Say) -> str:
    """``emit --to promela|nuxmv``: the model's text, by the emit pass ``verify --emit`` runs."""
    # lazy: only for emit
    from tactl.engines.check import SelectionError, external_parameters_problem, validate_selection

    file, fixed = request.file, request.parameters
    loaded = load(file, request.defines, say).checkable
    try:
        validate_selection(loaded.ta, request.properties, fixed)
    except SelectionError as e:
        raise usage_error(file, str(e)) from None
    if request.to == "promela" and request.model == "process":
        receive = process_automaton(loaded)
        if request.allow_outside_rc:
            note = without_rc(loaded.ta, receive, fixed)[2]
            if note:
                say(note)
        else:
            problem = external_parameters_problem(loaded.ta, fixed, "promela process model")
            if problem:
                raise usage_error(file, problem)
    options = {"properties": request.properties, "parameters": fixed, "model": request.model,
               "partition": request.partition, "receive": request.receive,
               "smv_bound": request.bound, "unbounded": request.unbounded,
               "allow_outside_rc": request.allow_outside_rc, "source": str(file)}
    # lazy: only for emit
    from tactl.passes.emit.promela_process import ProcessModelError
    from tactl.passes.emit.smv import SmvError

    try:
        return Runner().run(_pass("emit-" + request.to), loaded, options)
    except (ProcessModelError, SmvError, SelectionError) as e:  # the emitters' own refusals
        raise usage_error(file, str(e)) from None


# ------------------------------------------------------------------- the source engine

def check_program(request: CheckRequest):
    """``check FILE.alg --engine source``: every run of the program at the --param values, by
    the reference interpreter (``tactl/source/``); no translation."""
    # lazy: the interpreter loads only for its engine
    from tactl.source.check import check_algorithm
    from tactl.source.errors import SourceError, as_input_error

    alg, text = read_alg(request.file)
    max_states = SOURCE_MAX_STATES if request.max_states == CHECK_DEFAULTS["max_states"] else request.max_states
    try:
        return check_algorithm(alg, request.parameters, str(request.file), request.properties, max_states)
    except SourceError as e:
        raise as_input_error(e, str(request.file), text) from None


def check_promela_source(request: CheckRequest):
    """``check FILE.pml --engine source``: SPIN on the file itself at the --param valuation
    (``tactl/engines/spin_source.py``), a second reading independent of tactl's translation. SPIN's
    runs get the time left on the command's clock (``tactl/util/deadline.py``)."""
    from tactl.engines.spin_source import ValuationError, check_source  # lazy: only this engine

    file = request.file
    if not file.is_file():
        raise usage_error(file, "no such file")
    try:
        report = check_source(str(file), file.read_text(), request.parameters, defines=request.defines,
                              properties=request.properties)
    except ValuationError as e:
        raise usage_error(file, str(e)) from None
    if report.bad_input:  # not a model SPIN could be asked about: bad input, not "unsupported"
        raise usage_error(file, report.error.removeprefix(f"{file}: ").removeprefix(f"{file}:"))
    return report
