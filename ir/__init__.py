"""tactl's typed intermediate representations: expressions, threshold automata (and receive
threshold automata), specifications.

Installed as ``tactl.ir`` (the folder is ``ir/`` at the top of the repository).
"""

from importlib import import_module

# The names below are loaded on first use (PEP 562): `tactl --version` and every module that
# needs one IR module (the CLI's error types) must not pay for the grammars and the rest.
_EXPORTS = {
    "Define": "ta.model", "Diagnostic": "errors", "FaultModel": "rta.model", "Faults": "rta.model",
    "InputError": "errors", "Location": "ta.model", "Message": "rta.model", "Property": "ta.model",
    "PropertyKind": "eltl.ltl", "ReadResult": "ta.reader", "ReceiveRule": "rta.model", "ReceiveTA": "rta.model",
    "RtaReadResult": "rta.reader", "Rule": "ta.model", "Severity": "errors", "Span": "errors",
    "SymbolKind": "ta.model", "TactlError": "errors", "ThresholdAutomaton": "ta.model", "Timing": "rta.model",
    "Update": "ta.model", "classify": "eltl.ltl", "parse_rta": "rta.reader", "parse_ta": "ta.reader",
    "print_rta": "rta.printer", "print_ta": "ta.printer", "read_rta": "rta.reader",
    "read_rta_file": "rta.reader", "read_ta": "ta.reader", "read_ta_file": "ta.reader",
    "rta_from_json": "rta.json_form", "rta_to_json": "rta.json_form", "ta_from_json": "ta.json_form",
    "ta_to_json": "ta.json_form",
}


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "Define", "Diagnostic", "InputError", "Location", "Property", "PropertyKind", "ReadResult",
    "Rule", "Severity", "Span", "SymbolKind", "TactlError", "ThresholdAutomaton", "Update",
    "classify", "parse_ta", "print_ta", "read_ta", "read_ta_file", "ta_from_json", "ta_to_json",
    "FaultModel", "Faults", "Message", "ReceiveRule", "ReceiveTA", "RtaReadResult", "Timing",
    "parse_rta", "print_rta", "read_rta", "read_rta_file", "rta_from_json", "rta_to_json",
]
