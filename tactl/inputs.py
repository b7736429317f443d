"""Loading an automaton from whatever the user names: a file recognised by its extension, or
standard input (``-``) recognised by its first word.

Two questions, one dispatch: :func:`read_automaton` returns what the input *is* (a threshold
automaton, or a receive automaton as written), :func:`load_automaton` what the checkers need (a
threshold automaton; a receive automaton is translated, with certificates). JSON documents say
which IR they hold in their ``"format"`` field.
"""

from __future__ import annotations

import json
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.expr import to_text
from tactl.ir.rta import Timing
from tactl.ir.rta_reader import RtaReadResult
from tactl.ir.source import is_stdin, label
from tactl.ir.ta_reader import ReadResult, only_warnings

SUPPORTED = (".ta", ".json", ".rta", ".alg")
KIND_BY_SUFFIX = {".ta": "ta", ".json": "json", ".rta": "rta", ".alg": "alg"}


SYNC_NOT_CHECKABLE = (
    "the automaton is synchronous (timing sync): its TA is meant for lock-step rounds, but the "
    "checkers interleave single steps, which neither over- nor under-approximates rounds (a "
    "process could act before the messages of its round are sent); synchronous semantics is not "
    "built yet, so no verdict is given")


def _refuse(path: str | Path, message: str, span: Span | None = None, source: str | None = None) -> InputError:
    return InputError(Diagnostic(Severity.ERROR, message, span), label(path), source)


def input_kind(path: str | Path) -> str:
    """``ta``, ``rta`` or ``json`` by extension; ``-`` is decided later, from the text."""
    if is_stdin(path):
        return "stdin"
    suffix = Path(path).suffix.lower()
    if suffix not in KIND_BY_SUFFIX:
        raise _refuse(path, f"unrecognised file type '{suffix or '(none)'}': tactl reads threshold "
                            "automata from .ta files (or their .json form), receive automata from "
                            ".rta files, pseudocode from .alg files, and '-' for standard input")
    return KIND_BY_SUFFIX[suffix]


def parse_json(text: str, path: str | Path) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise _refuse(path, f"invalid JSON: {e.msg}", Span(e.lineno, e.colno), text) from None
    except RecursionError:
        raise _refuse(path, "invalid JSON: nested too deeply") from None
    except ValueError as e:  # an integer of more digits than Python converts
        from tactl.ir.ta_reader import MAX_DIGITS

        why = f"an integer has more than {MAX_DIGITS} digits" if "digits" in str(e) else str(e)
        raise _refuse(path, f"invalid JSON: {why}") from None


def read_automaton(path: str | Path) -> ReadResult | RtaReadResult:
    """The automaton in ``path`` as written: a checked TA or a checked receive TA (pseudocode is
    parsed into its receive TA), through the declared passes (``tactl.pipeline``)."""
    from tactl.pipeline import as_written

    return as_written(str(path))


def parse_loaded(text: str, where: str) -> RtaReadResult:
    """Run the parse pass on pseudocode: the receive automaton it defines, checked like a
    written one (``ir/rta_validate.py``), with the pseudocode as its source text."""
    from tactl.ir.alg_reader import parse_alg
    from tactl.ir.rta_validate import validate_rta
    from tactl.passes.parse import parse_algorithm

    rta = parse_algorithm(parse_alg(text, where)).rta
    return RtaReadResult(rta, where, text, only_warnings(validate_rta(rta), where, text))


def translate_loaded(loaded: RtaReadResult) -> ReadResult:
    """Run the certified translate pass on a read receive automaton."""
    from tactl.translation import certificate_problem, certificate_rows, refused_properties, run_translate

    result = run_translate(loaded.rta, loaded.path)
    problem = certificate_problem(result)
    if problem:
        raise problem
    sync = loaded.rta.timing is Timing.SYNC
    return ReadResult(result.translation.ta, loaded.path, loaded.source, loaded.warnings,
                      SYNC_NOT_CHECKABLE if sync else None,
                      certificates=certificate_rows(loaded.rta, result),
                      receive=loaded.rta if sync else None, refused=refused_properties(result))


def load_automaton(path: str | Path, lower_divisions: bool = True) -> ReadResult:
    """A checked threshold automaton from ``path``; a receive automaton is translated (with
    certificates) first. With ``lower_divisions`` (what ``check`` and ``emit`` need) every
    ``/`` is eliminated exactly (:func:`lower_loaded`), so the engines see linear automata only;
    ``show`` and ``fmt`` want the automaton as written (``lower_divisions=False``)."""
    from tactl.pipeline import load

    return load(str(path), "checkable-ta" if lower_divisions else "ta")


def lower_loaded(loaded: ReadResult) -> ReadResult:
    """``loaded`` with its divisions eliminated (``passes/lower_division``), a note per new
    parameter among the warnings; one it cannot eliminate exactly makes the automaton
    not checkable (every property is then reported unsupported, with the reason), never
    approximated."""
    from tactl.passes.lower_division import DivisionNotSupported, has_division, lower

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
    return ReadResult(lowered.ta, loaded.path, loaded.source, loaded.warnings + notes,
                      loaded.not_checkable, loaded.certificates, loaded.receive, loaded.refused)


def load_receive_automaton(path: str | Path) -> RtaReadResult:
    """A checked receive automaton from ``path`` (``.rta`` text or its ``tactl.rta`` JSON form)."""
    loaded = read_automaton(path)
    if not isinstance(loaded, RtaReadResult):
        raise _refuse(path, "is a threshold automaton; this command reads a receive threshold "
                            "automaton (.rta, or JSON with \"format\": \"tactl.rta\")")
    return loaded
