"""``tactl check --json``: one document per run, whose keys stay stable because other tools read
them: the automaton in numbers, each property's result in the shared shape
(tactl/report/property_json.py), whether initial configurations exist, the warnings and notes,
and the exit status."""

from __future__ import annotations

from tactl.engines.check import CheckReport
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.report.property_json import property_json
from tactl.util.version import __version__


def automaton_json(ta: ThresholdAutomaton) -> dict[str, object]:
    """The automaton checked, in numbers (verify's report adds its resilience condition)."""
    return {"name": ta.name, "locations": len(ta.locations), "rules": len(ta.rules),
            "shared": len(ta.shared), "parameters": list(ta.parameters)}


def report_json(report: CheckReport) -> dict[str, object]:
    ta = report.ta
    return {
        "file": report.path,
        "tactl_version": __version__,
        "automaton": automaton_json(ta),
        "properties": [property_json(ta, r) for r in report.results],
        "initial_configurations": {True: "exist", False: "none", None: "unknown"}[report.initial_configurations],
        "warnings": list(report.warnings),
        **({"notes": list(report.notes)} if report.notes else {}),
        "exit_code": report.exit_code,
    }
