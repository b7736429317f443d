"""Reading a ``.tla`` file: parse (``ir/tla/reader.py``), translate (``module.py``), validate
the automaton like a written ``.ta`` (``ir/ta/validate.py``)."""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, InputError, Severity
from tactl.ir.ta.reader import ReadResult, only_warnings
from tactl.ir.ta.validate import validate
from tactl.ir.tla.reader import FragmentError, parse_tla
from tactl.passes.tla_to_ta.module import translate_module


def read_tla(text: str, path: str = "<input>") -> ReadResult:
    """The threshold automaton of a TLA+ module; :class:`InputError` at what is outside the fragment."""
    module = parse_tla(text, path)
    try:
        result = translate_module(module, path)
    except FragmentError as e:
        raise InputError(Diagnostic(Severity.ERROR, e.message, e.span), path, text) from None
    except RecursionError:
        raise InputError(Diagnostic(Severity.ERROR, "expression nested too deeply"), path, text) from None
    return ReadResult(result.ta, path, text, only_warnings(result.warnings + validate(result.ta), path, text))
