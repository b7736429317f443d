"""The passes, each declared once, and the machinery that chains them.

A :class:`Pass` names its input and output IR kinds, a version (bump it whenever the same input
may give a different output), and the options that change its output. The chain from a file to
the IR a command needs is found by walking these declarations (:func:`plan`), not written per
file type: ``.alg`` → parse → translate → lower → check, ``.ta`` → read → lower → check, and so
on. Both the CLI commands (without a cache, through ``tactl/driver/commands.py``) and ``tactl
verify`` (with one) run chains through :class:`Runner`, so they run the same code; a pass declares
every option a command has for it (the check pass all of ``tactl check``'s, the emitters all of
``tactl emit``'s), so one option means one thing on every call path.

IR kinds (:data:`KINDS`) say how a value is stored in the cache (``dump``/``load``) and what a
cache key sees of it (``canonical``). A key sees exactly what the pass's output depends on:

* the parse pass sees the pseudocode's text (its output maps rules to source lines);
* translate sees the receive automaton *with* its source map (it copies it into the TA);
* check sees the threshold automaton *without* source map, comments or file name: a comment
  edit in an ``.alg`` re-runs parse and translate (the line numbers moved), and every check is a
  cache hit; the pseudocode lines a report shows come from the current automaton.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from tactl.driver.file_reading import attach, file_fairness, keep
from tactl.driver.file_types import FILE_TYPES
from tactl.driver.ir_json import canonical as _canonical, diagnostics_from as _diagnostics_from
from tactl.driver.ir_json import (diagnostics_json as _diagnostics_json, rta_from_json, rta_to_json, ta_from_json,
                                  ta_to_json, validate_rta)
from tactl.driver.ir_json import without_source_map as _without_source_map
from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.expr import to_text
from tactl.ir.rta.result import RtaReadResult
from tactl.ir.source import is_stdin, label, read_text, sniff_kind
from tactl.ir.limits import MAX_DIGITS
from tactl.ir.ta.reader import ReadResult, only_warnings, read_ta
from tactl.ir.ta.validate import validate
from tactl.util import deadline

if TYPE_CHECKING:  # hashing (the cache) is imported only by a runner that has a cache
    from tactl.driver.cache import Cache


@dataclass(frozen=True)
class Source:
    """A file's normalised text: where every chain starts."""

    path: str
    text: str


# ----------------------------------------------------------------------------------- IR kinds


def _json():
    import json  # lazy: only the cache's stored IR and JSON input use it, not a check of a file

    return json


def _dump_rta(value: RtaReadResult) -> str:
    doc = {"rta": rta_to_json(value.rta), "warnings": _diagnostics_json(value.warnings)}
    if getattr(value, "fairness", None) is not None:  # a Promela file's own fairness (driver/file_reading.py)
        doc["file_fairness"] = value.fairness.to_json()
    return _json().dumps(doc)


def _load_rta(text: str, before: Any) -> RtaReadResult:
    doc = _json().loads(text)
    rta, warnings = rta_from_json(doc["rta"]), _diagnostics_from(doc["warnings"])
    if "file_fairness" in doc:
        return ParsedPromela(rta, before.path, before.text, warnings, file_fairness(doc["file_fairness"]))
    return RtaReadResult(rta, before.path, before.text, warnings)


def _canonical_rta(value: RtaReadResult) -> str:
    if getattr(value, "fairness", None) is not None:  # the translate pass copies it
        return _canonical({"rta": rta_to_json(value.rta), "file_fairness": {**value.fairness.to_json(), "text": ""}})
    return _canonical(rta_to_json(value.rta))


def _dump_ta(value: ReadResult) -> str:
    doc = {"ta": ta_to_json(value.ta), "not_checkable": value.not_checkable,
           "refused": value.refused, "certificates": value.certificates,
           "receive": None if value.receive is None else rta_to_json(value.receive)}
    if getattr(value, "file_fairness", None) is not None:  # a Promela file's own fairness (driver/file_reading.py)
        doc["file_fairness"] = value.file_fairness.to_json()
    return _json().dumps(doc)


def _load_ta(text: str, before: Any) -> ReadResult:
    """A translated automaton from the cache; path, text and warnings are the input's."""
    doc = _json().loads(text)
    receive = None if doc["receive"] is None else rta_from_json(doc["receive"])
    read = ReadResult(ta_from_json(doc["ta"]), before.path, before.source, before.warnings,
                      doc["not_checkable"], certificates=doc["certificates"], receive=receive,
                      refused={k: tuple(v) for k, v in doc["refused"].items()})
    if "file_fairness" in doc:  # the reading itself is built when a check needs it
        read.file_fairness = file_fairness(doc["file_fairness"])
    return read


def _canonical_ta(value: ReadResult) -> str:
    return _canonical(_json().loads(_dump_ta(value)))


def _semantic_ta(value: ReadResult) -> str:
    doc = _json().loads(_dump_ta(value))
    semantic = {"ta": _without_source_map(doc["ta"]), "not_checkable": doc["not_checkable"],
                "refused": doc["refused"], "receive": _without_source_map(doc["receive"])}
    if "file_fairness" in doc:  # a Promela file's liveness verdicts read its own fairness too
        semantic["file_fairness"] = {**doc["file_fairness"], "text": ""}
    return _canonical(semantic)


def _dump_verdict(value: Any) -> str:
    # lazy: verdicts (the engines' results) load only when a chain checks
    from tactl.engines.result_json import result_to_json

    return _json().dumps({"result": result_to_json(value.result), "warnings": value.warnings})


def _load_verdict(text: str, before: Any) -> "Verdict":
    # lazy: verdicts (the engines' results) load only when a chain checks
    from tactl.engines.result_json import result_from_json

    doc = _json().loads(text)
    return Verdict(result_from_json(doc["result"]), list(doc["warnings"]))


def _never(value: Any) -> str:
    raise TypeError("this IR kind is never part of a cache key")


@dataclass(frozen=True)
class IRKind:
    """A kind of intermediate representation a pass reads or writes, with how it is stored in
    the cache, read back and shown to a key."""
    name: str
    describe: str
    dump: Callable[[Any], str]
    load: Callable[[str, Any], Any]  # (stored text, the pass's input) -> value
    canonical: Callable[[Any], str]  # what a key of a pass reading this kind sees


def _text(value: Source) -> str:
    return value.text


def _source_kind(name: str, describe: str) -> IRKind:
    return IRKind(name, describe, _text, lambda text, before: Source(before.path, text), _text)


KINDS: dict[str, IRKind] = {k.name: k for k in (
    _source_kind("alg-text", "pseudocode"),
    _source_kind("pml-text", "Parametric Promela (ByMC)"),
    _source_kind("rta-text", "receive threshold automaton text"),
    _source_kind("rta-json", "receive threshold automaton JSON"),
    _source_kind("ta-text", "threshold automaton text (ByMC format)"),
    _source_kind("eta-text", "extended threshold automaton text (TACO format)"),
    _source_kind("tla-text", "TLA+ module (the threshold-automaton fragment)"),
    _source_kind("ta-json", "threshold automaton JSON"),
    IRKind("rta", "receive threshold automaton", _dump_rta, _load_rta, _canonical_rta),
    IRKind("ta", "threshold automaton", _dump_ta, _load_ta, _canonical_ta),
    IRKind("checkable-ta", "threshold automaton with divisions eliminated", _dump_ta, _load_ta,
           _semantic_ta),
    IRKind("verdict", "verdict of one property", _dump_verdict, _load_verdict, _never),
    # its own kind, so that the chains to "verdict" stay the translation's (plan is breadth-first)
    IRKind("source-verdict", "verdict of one property by the reference interpreter", _dump_verdict,
           _load_verdict, _never),
    IRKind("promela", "Promela model", lambda v: v, lambda t, b: t, _never),
    IRKind("smv", "SMV model", lambda v: v, lambda t, b: t, _never),
    IRKind("smtlib", "SMT-LIB2 queries", lambda v: _json().dumps(v), lambda t, b: _json().loads(t), _never),
)}


# ------------------------------------------------------------------------------------ passes


@dataclass
class Verdict:
    """The check pass's output: one property's result, and the warnings of checking it."""

    result: Any  # tactl.engines.result.PropertyResult
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Pass:
    """One step of the pipeline: from one IR kind to another, versioned for the cache key."""
    name: str
    version: int
    source: str  # IR kind read
    target: str  # IR kind produced
    run: Callable[[Any, Mapping[str, Any]], Any]
    options: tuple[str, ...] = ()  # the options that change the output (part of the cache key)
    cached: bool = True  # reading a file is cheaper than a cache lookup: not cached
    # A produced value that must not be stored (e.g. an unknown verdict: a retry may decide it)
    storable: Callable[[Any], bool] = lambda value: True


@dataclass(frozen=True)
class Program:
    """What the parse pass read on the way to a receive automaton: the pseudocode IR and its
    extraction (the multi-round conclusion of ``rounds carrying`` reads both)."""

    alg: Any  # tactl.ir.alg.syntax.Algorithm
    extracted: Any  # passes/alg_to_rta/extract.py's result


class ParsedRta(RtaReadResult):
    """The parse pass's receive automaton, with the :class:`Program` it came from (not stored in
    the cache: a cached receive automaton is a plain :class:`RtaReadResult`)."""

    def __init__(self, rta, path: str, source: str, warnings: list[Diagnostic], program: Program) -> None:
        super().__init__(rta, path, source, warnings)
        self.program = program


class ParsedPromela(RtaReadResult):
    """The Promela front end's receive automaton, with what the file's own fairness reading needs
    (``tactl/driver/file_reading.py``)."""

    def __init__(self, rta, path: str, source: str, warnings: list[Diagnostic], fairness: Any) -> None:
        super().__init__(rta, path, source, warnings)
        self.fairness = fairness  # passes/rta_to_ta/file_fairness.FileFairness, or None


def parse_loaded(text: str, where: str) -> RtaReadResult:
    """Run the parse pass on pseudocode: the receive automaton it defines, checked like a
    written one (``ir/rta/validate.py``), with the pseudocode as its source text."""
    # lazy: the parse pass (lark grammar, sympy) loads only when a chain runs it
    from tactl.ir.alg.reader import parse_alg
    from tactl.passes.alg_to_rta.extract import parse_algorithm

    alg = parse_alg(text, where)
    extracted = parse_algorithm(alg)
    rta = extracted.rta
    return ParsedRta(rta, where, text, only_warnings(validate_rta(rta), where, text), Program(alg, extracted))


def parse_promela_loaded(text: str, where: str, defines: tuple[str, ...] = ()) -> RtaReadResult:
    """Run the Promela front end (``ir/promela/reader.py``, ``passes/pml_to_rta/translation.py``): the
    receive automaton of a ByMC model, checked like a written one; the translation's notes (the
    fairness used) join the warnings."""
    # lazy: the Promela grammar (lark) and its translation (z3) load only when a chain runs them
    from tactl.ir.promela.reader import parse_promela
    from tactl.passes.pml_to_rta.translation import translate_promela

    result = translate_promela(parse_promela(text, where, defines))
    return ParsedPromela(result.rta, where, text,
                         list(result.notes) + only_warnings(validate_rta(result.rta), where, text),
                         result.fairness)


SYNC_NOT_CHECKABLE = (
    "the automaton is synchronous (timing sync): its TA is meant for lock-step rounds, but the "
    "checkers interleave single steps, which neither over- nor under-approximates rounds (a "
    "process could act before the messages of its round are sent); synchronous semantics is not "
    "built yet, so no verdict is given")


def translate_loaded(loaded: RtaReadResult) -> ReadResult:
    """Run the certified translate pass on a read receive automaton."""
    # lazy: the translate pass (z3, quantifier elimination) loads only when a chain runs it
    from tactl.driver.translation import certificate_problem, certificate_rows, refused_properties, run_translate
    from tactl.ir.rta.model import Timing

    result = run_translate(loaded.rta, loaded.path)
    problem = certificate_problem(result)
    if problem:
        raise problem
    sync = loaded.rta.timing is Timing.SYNC
    read = ReadResult(result.translation.ta, loaded.path, loaded.source, loaded.warnings,
                      SYNC_NOT_CHECKABLE if sync else None,
                      certificates=certificate_rows(loaded.rta, result),
                      # kept for every timing: the lock-step engine runs a synchronous one, and a
                      # counterexample's explanation reads the fault model's environment from it
                      receive=loaded.rta, refused=refused_properties(result))
    return attach(read, loaded)


def lower_loaded(loaded: ReadResult) -> ReadResult:
    """``loaded`` with its divisions eliminated (``passes/ta_to_ta/lower_division.py``), a note per new
    parameter among the warnings; one it cannot eliminate exactly makes the automaton
    not checkable (every property is then reported unsupported, with the reason), never
    approximated."""
    # lazy: the lower pass loads only when a chain runs it (show reads without it)
    from tactl.passes.ta_to_ta.lower_division import DivisionNotSupported, has_division, lower

    if not has_division(loaded.ta):
        return loaded
    try:
        lowered = lower(loaded.ta)
    except DivisionNotSupported as e:
        where = f" (at {e.span.line}:{e.span.col})" if e.span else ""
        return ReadResult(loaded.ta, loaded.path, loaded.source, loaded.warnings,
                          loaded.not_checkable or f"unsupported division{where}: {e}",
                          loaded.certificates, loaded.receive, loaded.refused)
    notes = [Diagnostic(Severity.WARNING, f"'{q.name}' is a new parameter for the division "
                        f"'({to_text(q.dividend)}) / {q.divisor}', constrained exactly by "
                        + " and ".join(f"'{to_text(c)}'" for c in q.constraints()), q.span)
             for q in lowered.quotients]
    read = ReadResult(lowered.ta, loaded.path, loaded.source, loaded.warnings + notes,
                      loaded.not_checkable, loaded.certificates, loaded.receive, loaded.refused)
    return keep(read, loaded)


def _read_rta(src: Source, options: Mapping[str, Any]) -> RtaReadResult:
    from tactl.ir.rta.reader import read_rta  # lazy: its grammar (lark) only for .rta text

    return read_rta(src.text, src.path)


def _read_rta_json(src: Source, options: Mapping[str, Any]) -> RtaReadResult:
    rta = rta_from_json(parse_json(src.text, src.path), src.path)
    return RtaReadResult(rta, src.path, src.text, only_warnings(validate_rta(rta), src.path, None))


def _read_ta(src: Source, options: Mapping[str, Any]) -> ReadResult:
    return read_ta(src.text, src.path)


def _read_eta(src: Source, options: Mapping[str, Any]) -> ReadResult:
    """TACO's extended threshold automata: the .ta reader with the format's extras; the IR is
    the same (a reset is the update ``x' == 0``)."""
    return read_ta(src.text, src.path, extended=True)


def _read_tla(src: Source, options: Mapping[str, Any]) -> ReadResult:
    """A TLA+ module of the fragment docs/tla.md describes, as its threshold automaton."""
    from tactl.passes.tla_to_ta.reading import read_tla  # lazy: the TLA+ grammar loads only for .tla files

    return read_tla(src.text, src.path)


def _read_ta_json(src: Source, options: Mapping[str, Any]) -> ReadResult:
    ta = ta_from_json(parse_json(src.text, src.path), src.path)
    return ReadResult(ta, src.path, src.text, only_warnings(validate(ta), src.path, None))


def _parse(src: Source, options: Mapping[str, Any]) -> RtaReadResult:
    return parse_loaded(src.text, src.path)


def _parse_promela(src: Source, options: Mapping[str, Any]) -> RtaReadResult:
    return parse_promela_loaded(src.text, src.path, tuple(options.get("defines") or ()))


def _translate(loaded: RtaReadResult, options: Mapping[str, Any]) -> ReadResult:
    return translate_loaded(loaded)


def _lower(loaded: ReadResult, options: Mapping[str, Any]) -> ReadResult:
    return lower_loaded(loaded)


# Every option of ``tactl check`` that changes a verdict: the CLI and ``tactl verify`` build the
# engines' options from the same mapping (:func:`check_options`), so one option means the same
# thing on both call paths, and a cached verdict is keyed by all of them.
CHECK_OPTIONS = ("property", "engine", "parameters", "bound", "max_states", "model", "partition",
                 "receive", "bmc", "max_depth", "memory_mb", "allow_outside_rc", "certify", "minimize")
# What an option not given means, on both call paths (check's option defaults are these)
CHECK_DEFAULTS: dict[str, Any] = {
    "engine": "parametric", "bound": 7, "max_states": 2_000_000, "model": "counter", "partition": False,
    "receive": "auto", "bmc": None, "max_depth": None, "memory_mb": None, "allow_outside_rc": False}


def check_options(loaded: ReadResult, options: Mapping[str, Any],
                  properties: tuple[str, ...]) -> tuple[Any, Any, list[str]]:
    """The automaton to check, the engines' ``CheckOptions`` for ``properties`` of ``loaded``, and
    the notes to show first. The SPIN process model runs the receive automaton the translation
    started from (never a second reading of the file); ``allow_outside_rc`` drops the resilience
    condition, saying so when the fixed parameters violate it. The deadline is not an option: it
    is the command's clock (``tactl/util/deadline.py``)."""
    # lazy: the checker and its engines load only when a chain checks
    from tactl.engines.check import CheckOptions

    options = {**CHECK_DEFAULTS, **options}
    receive, not_checkable = loaded.receive, loaded.not_checkable
    if options["engine"] == "spin" and options["model"] == "process":
        # lazy: the process model's emitter, only for --model process
        from tactl.passes.emit.promela_process import unsupported_fault_model

        receive = process_automaton(loaded)
        not_checkable = not_checkable or unsupported_fault_model(receive)
    ta, notes = loaded.ta, []
    parameters = options.get("parameters")
    if options["allow_outside_rc"]:
        ta, receive, note = without_rc(ta, receive, parameters or {})
        notes += [note] if note else []
    return ta, CheckOptions(
        engine=options["engine"], properties=properties, parameters=parameters, bound=options["bound"],
        max_states=options["max_states"], not_checkable=not_checkable, refused=loaded.refused,
        model=options["model"], receive_automaton=receive, partition=options["partition"],
        receive=options["receive"], bmc=options["bmc"], max_depth=options["max_depth"],
        memory_mb=options["memory_mb"], certify=bool(options.get("certify")),
        minimize=bool(options.get("minimize"))), notes


def process_automaton(loaded: ReadResult) -> Any:
    """The receive automaton a process model (SPIN's ``--model process``) runs: the one the
    threshold automaton was translated from; a ``.ta`` input has none."""
    if loaded.receive is None:
        raise refusal(loaded.path, "the process model runs a receive automaton: give the .rta or "
                                   ".alg file (--model counter works from any TA)")
    return loaded.receive


def without_rc(ta: Any, receive: Any, fixed: Mapping[str, int]) -> tuple[Any, Any, str | None]:
    """``--allow-outside-rc``: the automata without their resilience condition, and the warning
    to show when the fixed parameter values violate it."""
    from tactl.ir.evaluate import holds  # lazy: only with --allow-outside-rc

    failed = [to_text(a) for a in ta.assumptions if all(p in fixed for p in ta.parameters)
              and not holds(ta.expand(a), dict(fixed))]
    note = ("tactl: warning: --allow-outside-rc: checking parameter values that violate the "
            f"resilience condition ({'; '.join(failed)})") if failed else None
    return (replace(ta, assumptions=()), replace(receive, assumptions=()) if receive else None, note)


def _check(loaded: ReadResult, options: Mapping[str, Any]) -> Verdict:
    # lazy: the checker and its engines load only when a chain checks
    from tactl.engines.check import check_automaton

    # verify's options always hold a dict; an empty one means no parameter is fixed (None)
    fixed = {**options, "parameters": options.get("parameters") or None}
    ta, engine_options, notes = check_options(loaded, fixed, (options["property"],))
    with deadline.clock(options.get("timeout")):
        report = check_automaton(ta, loaded.path, engine_options)
        if not fixed["parameters"]:  # a verdict for every parameter: the file's own fairness first
            from tactl.driver.file_reading import reading_of, second_reading  # lazy: a .pml's liveness only

            second_reading(reading_of(loaded), report, ta, loaded.path, fixed.get("engine", CHECK_DEFAULTS["engine"]))
    [result] = report.results
    return Verdict(result, notes + list(report.warnings))


def _decided(value: Verdict) -> bool:
    # lazy: the engines' results load only when a chain checks
    from tactl.engines.result import UNKNOWN, VACUITY_UNKNOWN

    # A HOLDS whose vacuity was not decided (e.g. the timeout passed) is asked again next time.
    return value.result.verdict != UNKNOWN and value.result.vacuity != VACUITY_UNKNOWN


SOURCE_OPTIONS = ("property", "parameters", "max_states")
SOURCE_ENGINE = "source"  # the reference interpreter (tactl/driver/source_check.py)
SOURCE_MAX_STATES = 300_000  # its --max-states when the option keeps the other engines' default


def _check_source(src: Source, options: Mapping[str, Any]) -> Verdict:
    """The reference interpreter on the program itself (``--engine source``): no translation."""
    # lazy: the interpreter loads only for --engine source
    from tactl.driver.source_check import check_source_alg

    return Verdict(check_source_alg(src.text, src.path, options))


def _emit_smtlib(loaded: ReadResult, options: Mapping[str, Any]) -> dict[str, Any]:
    # lazy: the SMT-LIB emitter (jinja2) loads only when a chain emits
    from tactl.driver.emitters import smtlib_files

    return smtlib_files(loaded, options.get("properties") or (), options.get("parameters") or {})


def _selected(options: Mapping[str, Any]) -> tuple[str, ...] | None:
    return tuple(options.get("properties") or ()) or None


def _named(loaded: ReadResult, options: Mapping[str, Any]) -> str:
    """How a model names its input: as the user wrote it (``-`` for standard input)."""
    return options.get("source") or loaded.path


def _emit_promela(loaded: ReadResult, options: Mapping[str, Any]) -> str:
    """A Promela model at fixed parameters: one counter per location, or (``model: process``)
    one proctype per process running the receive automaton the TA was translated from."""
    parameters = options["parameters"]
    if options.get("model") == "process":
        # lazy: the process model's emitter (jinja2) loads only when a chain emits it
        from tactl.passes.emit.promela_process import emit_process_model

        receive = process_automaton(loaded)
        if options.get("allow_outside_rc"):
            _, receive, _ = without_rc(loaded.ta, receive, parameters)
        return emit_process_model(receive, parameters, _selected(options) or (),
                                  partition=bool(options.get("partition")), source=_named(loaded, options),
                                  receive=options.get("receive") or "auto")
    # lazy: the Promela emitter (jinja2) loads only when a chain emits
    from tactl.passes.emit.promela import emit_promela_counter

    return emit_promela_counter(loaded.ta, _selected(options), parameters,
                                allow_outside_rc=bool(options.get("allow_outside_rc")))


def _emit_nuxmv(loaded: ReadResult, options: Mapping[str, Any]) -> str:
    from tactl.passes.emit.smv import emit_smv  # lazy: the SMV emitter (jinja2) loads only when a chain emits

    return emit_smv(loaded.ta, _selected(options), options.get("parameters") or None,
                    options.get("smv_bound"), bool(options.get("unbounded")),
                    allow_outside_rc=bool(options.get("allow_outside_rc")), source=_named(loaded, options))


# The options of the emitters, all of them (``tactl emit`` and ``verify --emit`` run these passes)
PROMELA_OPTIONS = ("properties", "parameters", "model", "partition", "receive", "allow_outside_rc", "source")
NUXMV_OPTIONS = ("properties", "parameters", "smv_bound", "unbounded", "allow_outside_rc", "source")


PASSES: tuple[Pass, ...] = (
    Pass("read-rta", 1, "rta-text", "rta", _read_rta, cached=False),
    Pass("read-rta-json", 1, "rta-json", "rta", _read_rta_json, cached=False),
    Pass("read-ta", 1, "ta-text", "ta", _read_ta, cached=False),
    Pass("read-eta", 1, "eta-text", "ta", _read_eta, cached=False),
    Pass("read-ta-json", 1, "ta-json", "ta", _read_ta_json, cached=False),
    Pass("read-tla", 1, "tla-text", "ta", _read_tla, cached=False),
    # parse 3: crash locations that keep the state, sums over instances that are no kind refused
    Pass("parse", 3, "alg-text", "rta", _parse),
    # parse-promela 2: a file's own fault model (bound), several receive variables, havoc, cpp,
    # the -D defines; translate 3: justice max(0, g), bound's Env (an entry of an older version
    # would be a different model under the same key: bump whenever a pass's output changes);
    # parse-promela 3: a .pml's own fairness (stay conditions; translate and check see it in their keys)
    Pass("parse-promela", 3, "pml-text", "rta", _parse_promela, ("defines",)),
    Pass("translate", 3, "rta", "ta", _translate),
    Pass("lower", 1, "ta", "checkable-ta", _lower, cached=False),
    # check 3: vacuity, lock-step hypotheses as written; 4: safety outside the parametric
    # engine's fragment decided by the chc engine (an entry of 3 says UNSUPPORTED there); the
    # "minimize" option is in its key: a counterexample minimised within a budget (its minimality
    # note says so) never answers a run that asks for the full search
    Pass("check", 4, "checkable-ta", "verdict", _check, CHECK_OPTIONS, storable=_decided),
    # the reference interpreter reads the pseudocode itself: its key is the text, not the TA
    Pass("check-source", 1, "alg-text", "source-verdict", _check_source, SOURCE_OPTIONS, storable=_decided),
    Pass("emit-smtlib", 1, "checkable-ta", "smtlib", _emit_smtlib, ("properties", "parameters")),
    Pass("emit-promela", 1, "checkable-ta", "promela", _emit_promela, PROMELA_OPTIONS),
    Pass("emit-nuxmv", 1, "checkable-ta", "smv", _emit_nuxmv, NUXMV_OPTIONS),
)


class NoChain(ValueError):
    pass


def plan(source: str, target: str, passes: tuple[Pass, ...] = PASSES) -> list[Pass]:
    """The shortest chain of passes from IR kind ``source`` to ``target`` (breadth-first over
    the declarations)."""
    previous: dict[str, Pass | None] = {source: None}
    queue = deque([source])
    while queue:
        kind = queue.popleft()
        if kind == target:
            chain: list[Pass] = []
            while previous[kind] is not None:
                step = previous[kind]
                assert step is not None
                chain.append(step)
                kind = step.source
            return chain[::-1]
        for p in passes:
            if p.source == kind and p.target not in previous:
                previous[p.target] = p
                queue.append(p.target)
    raise NoChain(f"no chain of passes turns {KINDS[source].describe} into {KINDS[target].describe}")


# ------------------------------------------------------------------------------- input kinds

KIND_BY_SUFFIX = {t.suffix: t.kind for t in FILE_TYPES}
SUFFIX_KINDS = {t.suffix: t.kind for t in FILE_TYPES if t.suffix != ".json"}  # the text formats


def refusal(path: str | Path, message: str, span: Span | None = None, source: str | None = None) -> InputError:
    """The error that refuses the input ``path``."""
    return InputError(Diagnostic(Severity.ERROR, message, span), label(path), source)


def input_kind(path: str | Path) -> str:
    """The IR kind of the file's text by extension (:data:`FILE_TYPES`), ``json`` (decided by its
    ``format`` field) or ``stdin`` (decided later, from the text)."""
    if is_stdin(path):
        return "stdin"
    suffix = Path(path).suffix.lower()
    if Path(path).is_dir():  # tactl check corpus/strb: the user meant the whole directory
        raise refusal(path, f"is a directory, not a file ('tactl verify {path}' verifies every "
                            "algorithm in a directory)")
    if suffix not in KIND_BY_SUFFIX:
        raise refusal(path, f"unrecognised file type '{suffix or '(none)'}': tactl reads "
                            + ", ".join(t.holds for t in FILE_TYPES if t.holds)
                            + ", and '-' for standard input")
    return KIND_BY_SUFFIX[suffix]


def parse_json(text: str, path: str | Path) -> object:
    try:
        return _json().loads(text)
    except _json().JSONDecodeError as e:
        raise refusal(path, f"invalid JSON: {e.msg}", Span(e.lineno, e.colno), text) from None
    except RecursionError:
        raise refusal(path, "invalid JSON: nested too deeply") from None
    except ValueError as e:  # an integer of more digits than Python converts
        why = f"an integer has more than {MAX_DIGITS} digits" if "digits" in str(e) else str(e)
        raise refusal(path, f"invalid JSON: {why}") from None


SNIFFED_KINDS = {"alg": "alg-text", "rta": "rta-text", "ta": "ta-text", "tla": "tla-text"}
JSON_FORMATS = {"tactl.rta": "rta-json"}  # any other JSON document is read as a TA


def read_source(path: str) -> tuple[Source, str]:
    """The text of ``path`` (``-``: standard input) and its IR kind: by extension, by the first
    word on standard input, by the ``format`` field of a JSON document."""
    kind = input_kind(path)  # refuses an unknown extension, with the list of known ones
    source = Source(label(path), read_text(path))
    if kind == "stdin":
        kind = sniff_kind(source.text)
        if kind != "json":
            return source, SNIFFED_KINDS[kind]
    if kind == "json":
        return source, _json_kind(source)
    return source, kind


def _json_kind(source: Source) -> str:
    try:
        doc = _json().loads(source.text)
    except (ValueError, RecursionError):
        return "ta-json"  # the TA reader reports the JSON error with its position
    fmt = doc.get("format") if isinstance(doc, dict) else None
    return JSON_FORMATS.get(fmt, "ta-json") if isinstance(fmt, str) else "ta-json"


# ------------------------------------------------------------------------------------ running


@dataclass
class PassRecord:
    """What happened to one pass in one run (``tactl verify --explain`` prints these)."""

    name: str
    version: int
    cache: str  # hit | miss | off (no cache) | not cached (a pass never cached)
    time_s: float
    why: str
    subject: str = ""  # e.g. the property a check pass was about

    def json(self) -> dict[str, Any]:
        return {"pass": self.name, "version": self.version, "cache": self.cache,
                "time_s": round(self.time_s, 4), "why": self.why,
                **({"subject": self.subject} if self.subject else {})}


@dataclass
class Pending:
    """A lookup's outcome: the value on a hit, else the key to store the computed value under."""

    step: Pass
    subject: str
    key: str | None
    cache: str
    why: str
    hit: bool = False
    value: Any = None


@dataclass
class Runner:
    """Runs passes, consulting ``cache`` (None: no cache) for those declared cacheable."""

    cache: Cache | None = None
    records: list[PassRecord] = field(default_factory=list)
    cache_reason: str = "no cache (--no-cache)"
    origin: str = ""  # the file being processed (names the lineage notes of --explain)

    def run(self, step: Pass, value: Any, options: Mapping[str, Any] | None = None,
            subject: str = "", validate: Callable[[Any], str | None] | None = None) -> Any:
        """``step`` on ``value``: from the cache when an entry exists (and ``validate`` accepts
        it), else computed and stored. ``validate`` says why a stored value must not be used."""
        options = options or {}
        found = self.lookup(step, value, options, subject, validate)
        if found.hit:
            return found.value
        started = time.perf_counter()
        out = step.run(value, options)
        self.finish(found, out, time.perf_counter() - started)
        return out

    def lookup(self, step: Pass, value: Any, options: Mapping[str, Any], subject: str = "",
               validate: Callable[[Any], str | None] | None = None) -> "Pending":
        """The cached output of ``step`` on ``value`` (``hit``), or what :meth:`finish` needs to
        record and store it once computed — possibly elsewhere (the driver's process pool)."""
        started = time.perf_counter()
        if not step.cached:
            return Pending(step, subject, None, "not cached", "cheaper to run than to look up")
        if self.cache is None:
            return Pending(step, subject, None, "off", self.cache_reason)
        key = self.key(step, value, options)
        lookup = self.cache.get(key)
        why = self._what_changed(step, value, options, subject)
        if lookup.corrupt:
            why = f"the entry was {lookup.corrupt}: rebuilt"
        elif lookup.value is not None:
            try:
                out = KINDS[step.target].load(lookup.value, value)
                problem = validate(out) if validate else None
            except (ValueError, KeyError, TypeError, InputError) as e:
                problem = f"unreadable ({type(e).__name__}: {e})"
            if problem is None:
                self.records.append(PassRecord(step.name, step.version, "hit",
                                               time.perf_counter() - started,
                                               f"entry {key[:12]}", subject))
                return Pending(step, subject, key, "hit", "", hit=True, value=out)
            self.cache.discard(key, problem)
            why = f"the entry was {problem}: rebuilt"
        return Pending(step, subject, key, "miss", why)

    def finish(self, pending: "Pending", out: Any, seconds: float) -> None:
        """Record a computed output, and store it under the key :meth:`lookup` made."""
        why = pending.why
        if pending.key is not None and self.cache is not None:
            if pending.step.storable(out):
                self.cache.put(pending.key, KINDS[pending.step.target].dump(out))
            else:
                why += "; not stored (an undecided result may be decided on a retry)"
        self.records.append(PassRecord(pending.step.name, pending.step.version, pending.cache,
                                       seconds, why, pending.subject))

    def _what_changed(self, step: Pass, value: Any, options: Mapping[str, Any], subject: str) -> str:
        """Why a lookup misses, for --explain: compared with the last run of this pass on this
        file (the cache's lineage notes)."""
        from tactl.driver.cache import digest  # lazy: hashing only with a cache (verify)
        assert self.cache is not None
        label = f"{self.origin}|{step.name}|{subject}"
        now_input = digest(KINDS[step.source].canonical(value))
        now_options = _json().loads(_json().dumps({n: options.get(n) for n in step.options}, default=str))
        before = self.cache.previous(label)
        self.cache.remember(label, now_input, now_options)
        if before is None:
            return "no entry: first run of this pass on this input"
        changed = []
        if before.get("input") != now_input:
            changed.append(f"its input ({KINDS[step.source].describe}) changed")
        if before.get("options") != now_options:
            names = sorted(n for n in now_options
                           if now_options.get(n) != (before.get("options") or {}).get(n))
            changed.append("options changed: " + ", ".join(names))
        if not changed:
            return "no entry (deleted, or written by another tactl version)"
        return "no entry: " + " and ".join(changed) + " since the last run"

    @staticmethod
    def key(step: Pass, value: Any, options: Mapping[str, Any]) -> str:
        from tactl.driver.cache import cache_key  # lazy: as in _what_changed
        return cache_key(step.name, step.version, KINDS[step.source].canonical(value),
                         {name: options.get(name) for name in step.options})

    def chain(self, value: Any, source: str, target: str, options: Mapping[str, Any] | None = None) -> Any:
        for step in plan(source, target):
            value = self.run(step, value, options)
        return value


def load(path: str, target: str, runner: Runner | None = None, options: Mapping[str, Any] | None = None) -> Any:
    """The IR ``target`` of the file ``path``, through the declared passes (``options``: those of
    the reading passes, e.g. a Promela file's ``defines``)."""
    source, kind = read_source(path)
    return (runner or Runner()).chain(source, kind, target, options)


def as_written(path: str, runner: Runner | None = None, options: Mapping[str, Any] | None = None) -> Any:
    """The automaton a file holds as its author wrote it: the receive automaton of an ``.rta`` or
    ``.alg`` (parsed), the threshold automaton of a ``.ta``."""
    source, kind = read_source(path)
    runner = runner or Runner()
    for target in ("rta", "ta"):
        try:
            plan(kind, target)
        except NoChain:
            continue
        return runner.chain(source, kind, target, options)
    raise NoChain(f"{path}: holds no automaton")
