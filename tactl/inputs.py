"""Loading an automaton from whatever the user names, recognised by file extension."""

from __future__ import annotations

import json
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.rta import Timing
from tactl.ir.ta_json import ta_from_json
from tactl.ir.ta_reader import ReadResult, read_source, read_ta
from tactl.ir.validate import validate

SUPPORTED = (".ta", ".json", ".rta")


SYNC_NOT_CHECKABLE = (
    "the automaton is synchronous (timing sync): its TA is meant for lock-step rounds, but the "
    "checkers interleave single steps, which neither over- nor under-approximates rounds (a "
    "process could act before the messages of its round are sent); synchronous semantics is not "
    "built yet, so no verdict is given")


def load_receive_automaton_as_ta(path: Path) -> ReadResult:
    """Read an ``.rta`` file and run the certified translate pass on it."""
    from tactl.ir.rta_reader import read_rta_file
    from tactl.translation import certificate_problem, run_translate

    loaded = read_rta_file(path)
    result = run_translate(loaded.rta, str(path))
    problem = certificate_problem(result)
    if problem:
        raise problem
    return ReadResult(result.translation.ta, str(path), loaded.source, loaded.warnings,
                      SYNC_NOT_CHECKABLE if loaded.rta.timing is Timing.SYNC else None)


def load_automaton(path: str | Path) -> ReadResult:
    """Read and validate a ``.ta`` file (or its ``tactl.ta`` JSON form); an ``.rta`` file is
    translated (with certificates) first."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".alg":
        raise InputError(Diagnostic(Severity.ERROR, "'.alg' inputs need the parse pass, which this "
                                    "version of tactl does not have yet"), str(p))
    if suffix == ".rta":
        return load_receive_automaton_as_ta(p)
    if suffix not in SUPPORTED:
        raise InputError(Diagnostic(Severity.ERROR, f"unrecognised file type '{suffix or '(none)'}': "
                                    "tactl reads threshold automata from .ta files "
                                    "(or their .json form) and receive automata from .rta files"), str(p))
    text = read_source(p)
    if suffix == ".ta":
        return read_ta(text, str(p))
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(Diagnostic(Severity.ERROR, f"invalid JSON: {e.msg}", Span(e.lineno, e.colno)),
                         str(p), text) from None
    ta = ta_from_json(doc, str(p))
    diagnostics = validate(ta)
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    if errors:
        raise InputError(errors, str(p))
    return ReadResult(ta, str(p), text, [d for d in diagnostics if d.severity is Severity.WARNING])
