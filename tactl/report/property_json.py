"""The JSON of one property's result, as every report carries it: ``tactl check --json`` lists
these objects (tactl/report/check_json.py), ``tactl verify``'s report.json adds the cache outcome
and what was checked around each (tactl/report/verify.py), and the HTML page reads them back
(tactl/report/html.py). One function writes them, so the three cannot drift apart.

This is the form for people and other tools: rules by the names the text report prints, each
step with the source lines it came from. The driver's cache stores a different form
(tactl/engines/result_json.py): lossless, rules by index, no source map, so that it reads back
into the same :class:`~tactl.engines.result.PropertyResult` and survives a comment edit.
"""

from __future__ import annotations

from tactl.engines.parametric import ENGINE as PARAMETRIC
from tactl.engines.result import (ENGINE_CHOICE, HOLDS, HOLDS_VACUOUSLY, NOT_VACUOUS, UNSUPPORTED, Counterexample,
                                  PropertyResult)
from tactl.ir.ta.model import ThresholdAutomaton


def property_json(ta: ThresholdAutomaton | None, r: PropertyResult) -> dict[str, object]:
    """``r`` as JSON; ``ta`` names the rules of its counterexample (None: a result without one,
    e.g. the reference interpreter's, which builds no automaton)."""
    out: dict[str, object] = {"name": r.name, "kind": r.kind, "verdict": r.verdict,
                              **({"hypothesis": r.details["hypothesis"]} if r.details.get("hypothesis") else {}),
                              "engine": r.engine, "time_s": round(r.time_s, 4)}
    if r.formula_class:
        out["class"] = r.formula_class
    if r.engine == PARAMETRIC and r.verdict != UNSUPPORTED:
        out["queries"] = r.queries
    if r.scope:
        out["scope"] = r.scope
    if r.verdict == HOLDS_VACUOUSLY:
        out["vacuity"] = {"status": "vacuous", "reason": r.reason}
    elif r.vacuity:
        out["vacuity"] = {"status": r.vacuity, **({"witness": r.vacuity_witness} if r.vacuity_witness else {})}
    if r.reason:
        out["reason"] = r.reason
    if r.details:
        out["details"] = r.details
    if property_notes(r):  # the sentences under the property's line, as check prints them
        out["notes"] = property_notes(r)
    if r.certificate is not None:  # --certify: cvc5's answers on the queries behind the HOLDS
        out["certificate"] = r.certificate.json()
    if r.counterexample:
        assert ta is not None, "a counterexample's rules are named after its automaton"
        out["counterexample"] = counterexample_json(ta, r.counterexample)
    return out


def counterexample_json(ta: ThresholdAutomaton, cex: Counterexample) -> dict[str, object]:
    from tactl.ir.ta.json_form import origin_to_json  # lazy: a check that holds shows no run

    return {
        "parameters": cex.parameters,
        "initial": {"locations": dict(cex.initial.counters), "shared": dict(cex.initial.shared)},
        "schedule": [{"rule": rule_name(ta, s.rule), "from": ta.rules[s.rule].source,
                      "to": ta.rules[s.rule].target, "factor": s.factor,
                      **({"source": origin_to_json(ta.rules[s.rule].origin)}
                         if ta.rules[s.rule].origin else {})} for s in cex.schedule],
        "configurations": [{"locations": dict(c.counters), "shared": dict(c.shared)}
                           for c in cex.replay.configurations],
        "loop": None if cex.loop is None else {
            "rule": rule_name(ta, cex.loop), "at": ta.rules[cex.loop].source,
            "meaning": "the last configuration repeats forever by this self-loop (a lasso)",
            **({"forever": forever_text(ta, cex.loop)} if forever_text(ta, cex.loop) else {})},
        **({"cycle": {"steps": [{"rule": rule_name(ta, s.rule), "from": ta.rules[s.rule].source,
                                 "to": ta.rules[s.rule].target, "factor": s.factor}
                                for s in cex.cycle],
                      "meaning": "after the schedule these steps repeat forever: they lead back to "
                                 "the configuration where they begin (a lasso)"}}
           if cex.cycle else {}),
        "replayed": cex.replayed,
        "replay": cex.replay.message,
        # the configuration (index into "configurations") where the property is violated
        "violating_step": violating_step(cex),
        "explanation": cex.explanation,
        "minimal": {"parameters": cex.parameters_minimal, "schedule": cex.schedule_shortest,
                    "note": minimality_text(cex)},
    }


def property_notes(r: PropertyResult) -> list[str]:
    """What ``check`` says under a property's line, sentence by sentence: what a HOLDS covers, its
    certificate, what its vacuity question found, the reason of any other verdict, the engine
    that decided it when it was not the one asked for, the CHC engine's invariant. The text report
    prints them (tactl/report/check_text.py) and the JSON carries them as ``notes``, which the HTML
    page shows: one wording for the three."""
    out = []
    if r.scope and r.verdict in (HOLDS, HOLDS_VACUOUSLY):
        out.append(f"for {r.scope}")
    if certificate_text(r):
        out.append(f"{r.verdict.upper()}, {certificate_text(r)}")
    if r.verdict == HOLDS and r.vacuity_witness:
        lead = "antecedent met:" if r.vacuity == NOT_VACUOUS else f"{r.vacuity}:"
        out.append(f"{lead} {r.vacuity_witness}")
    if r.reason:
        out.append(r.reason)
    if r.details.get(ENGINE_CHOICE):  # an engine other than the one asked for decided it
        out.append(str(r.details[ENGINE_CHOICE]))
    if r.details.get("invariant"):  # the CHC engine's certificate (tactl/engines/chc.py)
        out.append(f"inductive invariant: {r.details['invariant']}")
        if r.details.get("facts"):  # proved facts of every run, part of what was re-checked
            rules = ("the i-th rule of the automaton without its shortcut rules (details.kept_rules in "
                     "--json: the original index of each)") if r.details.get("kept_rules") else "the i-th rule"
            out.append(f"and the facts of every run it includes (proved inductive; fired#i counts the "
                       f"firings of {rules}, initial#v is v's initial value): {r.details['facts']}")
        out.append(f"re-checked: {r.details.get('recheck', '')}")
    return out


def forever_text(ta: ThresholdAutomaton, loop: int) -> str:
    """What the processes of a lasso's self-loop do forever, in the words of the pseudocode
    (``then forever: the processes at v0 waits: no handler changes anything``); "" for an
    automaton without source map. The text report's pseudocode steps end with it, the HTML page
    shows it under the run."""
    if not any(r.origin for r in ta.rules):
        return ""
    rule = ta.rules[loop]
    what = rule.origin.describe() if rule.origin else "take no step (a stutter self-loop the translation added)"
    return f"then forever: the processes at {rule.source} {what}"


def certificate_text(r: PropertyResult) -> str:
    """What ``--certify`` established about ``r``, in the words of the text and HTML reports
    ("" when it was not asked; an unconfirmed HOLDS is UNKNOWN and its reason says why), and what
    the HOLDS still takes from tactl where the engine says so, so that no report claims more
    than the second solver confirmed."""
    c = r.certificate
    if c is None or not c.ok:
        return ""
    said = f"certified by {c.solver} ({c.queries} quer{'y' if c.queries == 1 else 'ies'}, {c.time_s:.2f} s)"
    return f"{said}; taken from tactl, not re-checked: {c.trusted}" if c.trusted else said


def violating_step(cex: Counterexample) -> int | None:
    """The configuration where the property is violated: the one the engine marked, else the
    end of the prefix of a replayed run (where a finite run ends and a lasso's loop starts)."""
    if cex.violating_step is not None:
        return cex.violating_step
    return len(cex.schedule) if cex.replayed else None


def minimality_text(cex: Counterexample) -> str:
    """What the counterexample's size is known to be, in one sentence."""
    shown = []
    if cex.parameters_minimal:
        order = ", then ".join(cex.parameters)
        shown.append(f"smallest {order} with a violation (every smaller valuation refuted by z3)")
    if cex.schedule_shortest:
        shown.append("fewest single-process steps for these parameters" if cex.loop is None
                     and not cex.cycle else "shortest prefix for these parameters")
    text = "minimal: " + "; ".join(shown) if shown else ""
    return "; ".join(x for x in (text, cex.minimality) if x)


def rule_name(ta: ThresholdAutomaton, index: int) -> str:
    """``r<id>``, or ``r<id>#<n>`` (the n-th rule of the file) when the id is used twice: the
    name of a rule in every report (text, JSON, space–time diagram)."""
    rule_id = ta.rules[index].id
    if sum(r.id == rule_id for r in ta.rules) > 1:
        return f"r{rule_id}#{index + 1}"
    return f"r{rule_id}"
