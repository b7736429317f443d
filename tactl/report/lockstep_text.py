"""A lock-step counterexample in words, as ``tactl check`` prints it and the HTML page shows it:
per round, the configuration at its start and how many processes took each rule. It reads the
run's JSON (``details.run``, written by :func:`tactl.engines.lockstep.run_json`), so a cached
result renders like a fresh one."""

from __future__ import annotations

from typing import Any


def run_lines(run: dict[str, Any]) -> list[str]:
    """A lock-step counterexample as text: per round, the configuration at its start (non-zero
    counters) and how many processes took each rule."""
    values = ", ".join(f"{k}={v}" for k, v in run["parameters"].items())
    lines = [f"counterexample in lock-step rounds, with {values} (replayed by the lock-step simulator):"]
    clean = run.get("clean_round")
    for i, r in enumerate(run["rounds"]):
        start = ", ".join(f"{l}={c}" for l, c in r["start"].items()) or "(no process)"
        mark = "  [the clean round of the hypothesis]" if clean == i else ""
        lines.append(f"  round {i + 1} starts: {start}{mark}" if r["rules"] else f"  then: {start}  <- violates the property")
        for label, n in r["rules"].items():
            lines.append(f"    {n} x {label}")
    return lines
