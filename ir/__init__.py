"""tactl's typed intermediate representations: expressions, threshold automata (and receive
threshold automata), specifications.

Installed as ``tactl.ir`` (the folder is ``ir/`` at the top of the repository).
"""

from importlib import import_module

# The names below are loaded on first use (PEP 562): `tactl --version` and every module that
# needs one IR module (the CLI's error types) must not pay for the grammars and the rest.
_EXPORTS = {
    "Define": "ta", "Diagnostic": "errors", "FaultModel": "rta", "Faults": "rta",
    "InputError": "errors", "Location": "ta", "Message": "rta", "Property": "ta",
    "PropertyKind": "ltl", "ReadResult": "ta_reader", "ReceiveRule": "rta", "ReceiveTA": "rta",
    "RtaReadResult": "rta_reader", "Rule": "ta", "Severity": "errors", "Span": "errors",
    "SymbolKind": "ta", "TactlError": "errors", "ThresholdAutomaton": "ta", "Timing": "rta",
    "Update": "ta", "classify": "ltl", "parse_rta": "rta_reader", "parse_ta": "ta_reader",
    "print_rta": "rta_printer", "print_ta": "ta_printer", "read_rta": "rta_reader",
    "read_rta_file": "rta_reader", "read_ta": "ta_reader", "read_ta_file": "ta_reader",
    "rta_from_json": "rta_json", "rta_to_json": "rta_json", "ta_from_json": "ta_json",
    "ta_to_json": "ta_json",
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
