"""tactl's typed intermediate representations: expressions, threshold automata (and receive
threshold automata), specifications.

Installed as ``tactl.ir`` (the folder is ``ir/`` at the top of the repository).
"""

from .errors import Diagnostic, InputError, Severity, Span, TactlError
from .ltl import PropertyKind, classify
from .rta import FaultModel, Faults, Message, ReceiveRule, ReceiveTA, Timing
from .rta_json import rta_from_json, rta_to_json
from .rta_printer import print_rta
from .rta_reader import RtaReadResult, parse_rta, read_rta, read_rta_file
from .ta import Define, Location, Property, Rule, SymbolKind, ThresholdAutomaton, Update
from .ta_json import ta_from_json, ta_to_json
from .ta_printer import print_ta
from .ta_reader import ReadResult, parse_ta, read_ta, read_ta_file

__all__ = [
    "Define", "Diagnostic", "InputError", "Location", "Property", "PropertyKind", "ReadResult",
    "Rule", "Severity", "Span", "SymbolKind", "TactlError", "ThresholdAutomaton", "Update",
    "classify", "parse_ta", "print_ta", "read_ta", "read_ta_file", "ta_from_json", "ta_to_json",
    "FaultModel", "Faults", "Message", "ReceiveRule", "ReceiveTA", "RtaReadResult", "Timing",
    "parse_rta", "print_rta", "read_rta", "read_rta_file", "rta_from_json", "rta_to_json",
]
