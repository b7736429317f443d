"""Emitters that write several files at once, as data: the CLI's ``emit`` and the driver's
``--emit`` both write what these return."""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Iterator
from typing import Any

from tactl.engines.result import HOLDS, VIOLATED
from tactl.ir.eltl.cycles import cycle_reason
from tactl.ir.eltl.formula import TemporalQuery, lasso_reason, temporal_query
from tactl.ir.eltl.reset_response import ResetSplit, reset_rules, reset_split
from tactl.ir.ta.model import Property
from tactl.ir.ta.reader import ReadResult
from tactl.passes.emit.smtlib import emit_smtlib
from tactl.passes.ta_to_smt.guard_abstraction import UnsupportedAutomaton, unsupported_reason
from tactl.passes.ta_to_smt.cycle_loop import cyclic_branches, encode_cyclic
from tactl.passes.ta_to_smt.lasso import NeedsBounds, encode_query


def smtlib_files(loaded: ReadResult, properties: tuple[str, ...] | list[str],
                 parameters: dict[str, int]) -> dict[str, Any]:
    """One standalone SMT-LIB2 query per property (one per branch when its negation has a
    temporal '||'): ``{"files": {file name: text}, "skipped": [why, ...]}``. The file names are
    ``<automaton>.<property>[.branchK].smt2`` without a directory; :class:`ValueError` when the
    automaton cannot be encoded at all."""
    ta = loaded.ta
    if loaded.not_checkable:
        raise ValueError(f"cannot encode: {loaded.not_checkable}")
    blocker = unsupported_reason(ta)
    if blocker:
        raise ValueError(f"cannot encode this automaton: {blocker}")
    files: dict[str, str] = {}
    skipped: list[str] = []
    for prop, query in _queries(loaded, properties, skipped):
        cyclic = query.infinite and lasso_reason(ta) is not None
        why = (cycle_reason(ta) if cyclic else None)
        try:
            encodings = ([] if why else _loop_encodings(ta, query, parameters) if cyclic
                         else _encodings(ta, query, parameters))
        except UnsupportedAutomaton as e:
            why = str(e)
        if why:
            skipped.append(f"{prop.name}: {why}")
            continue
        for number, bound, encoding in encodings:
            suffix = f".branch{number}" if len(query.branches) > 1 else ""
            files[f"{ta.name}.{prop.name}{suffix}{'.' + bound if bound else ''}.smt2"] = emit_smtlib(encoding.query)
    return {"files": files, "skipped": skipped}


def _loop_encodings(ta, query: TemporalQuery, parameters: dict[str, int]) -> list[tuple[int, str, Any]]:
    """The loop queries of an automaton with cycles through several locations
    (``passes/ta_to_smt/cycle_loop.py``), one per branch: unsat = no lasso, sat proves nothing."""
    return [(number, "loop", encode_cyclic(ta, replace(query, branches=(branch,)), branch, parameters=parameters))
            for number, branch in enumerate(cyclic_branches(ta, query), 1)]


def _queries(loaded: ReadResult, properties: tuple[str, ...] | list[str],
             skipped: list[str]) -> Iterator[tuple[Property, TemporalQuery]]:
    """Each selected property with its query; a refused or unsupported one is added to
    ``skipped`` with the reason instead."""
    for prop in loaded.ta.properties:
        if properties and prop.name not in properties:
            continue
        if prop.name in loaded.refused:
            skipped.append(f"{prop.name}: {loaded.refused[prop.name][1]}")
            continue
        query = temporal_query(loaded.ta, prop)
        if not isinstance(query, TemporalQuery):
            skipped.append(f"{prop.name}: {query.reason}")
            continue
        yield prop, query


def _encodings(ta, query: TemporalQuery, parameters: dict[str, int]) -> list[tuple[int, str, Any]]:
    """(branch number, bound, encoding): bound "" for an exact query; a branch with several
    re-enterable occupied sets gives its "over" (unsat = no run) and "under" (sat = a run) query,
    the ones ``tactl check`` asks (the under one with the most passes it tries)."""
    out: list[tuple[int, str, Any]] = []
    for number, branch in enumerate(query.branches, 1):
        one = replace(query, branches=(branch,))
        try:
            out.append((number, "", encode_query(ta, one, parameters=parameters)[0]))
        except NeedsBounds:
            out.append((number, "over", encode_query(ta, one, parameters=parameters, bound="over")[0]))
            out.append((number, "under", encode_query(ta, one, parameters=parameters, bound="under")[0]))
    return out


def invariant_files(loaded: ReadResult, properties: tuple[str, ...] | list[str],
                    parameters: dict[str, int]) -> dict[str, Any]:
    """The chc engine's certificate of each safety property that holds, as files: its inductive
    invariant's three questions (``<automaton>.<property>.invariant.<question>.smt2``: initiation,
    consecution, safety; tactl/engines/chc_certificate.py), each expected ``unsat`` from z3 and
    cvc5. Spacer runs to find the invariants; a property without one is skipped, saying why."""
    from tactl.engines import chc  # lazy: Spacer runs only for the invariant checks

    ta = loaded.ta
    if loaded.not_checkable:
        raise ValueError(f"cannot encode: {loaded.not_checkable}")
    files: dict[str, str] = {}
    skipped: list[str] = []
    for prop, query in _queries(loaded, properties, skipped):
        split = reset_split(ta, query) if query.infinite else None
        if isinstance(split, ResetSplit):
            _without_resets(ta, prop, split, parameters, files, skipped)
        if query.infinite and reset_rules(ta):
            _recurrence(ta, prop, query, parameters, files, skipped, quiet=isinstance(split, ResetSplit))
            continue
        result = chc.check(ta, query, parameters or None)
        if result.verdict != HOLDS:
            why = "violated: no invariant exists" if result.verdict == VIOLATED else result.reason
            skipped.append(f"{prop.name}: no inductive invariant ({result.verdict}: {why})")
            continue
        for obligation in result.obligations:
            files[f"{ta.name}.{prop.name}.invariant.{obligation.label}.smt2"] = obligation.text()
    return {"files": files, "skipped": skipped}


def lockstep_files(loaded: ReadResult, properties: tuple[str, ...] | list[str],
                   parameters: dict[str, int]) -> dict[str, Any]:
    """The lock-step engine's certificate of each property that holds on a synchronous
    algorithm, as files: every question its HOLDS rests on (guard completeness, phases, the
    diameter, the bounded checks; tactl/engines/lockstep_certificate.py), each expected ``unsat``,
    named ``<automaton>.<property>.lockstep<NN>.<question>.smt2``. The engine runs to find them;
    a property that does not hold is skipped, saying why."""
    from tactl.engines import lockstep  # lazy: z3 and the lock-step engine, only for these files

    results, _ = lockstep.check_rta(loaded.receive, tuple(properties), fixed=parameters)
    files: dict[str, str] = {}
    skipped: list[str] = []
    for result in results:
        if result.verdict != HOLDS:
            skipped.append(f"{result.name}: no certificate ({result.verdict}"
                           + (f": {result.reason})" if result.reason else ")"))
            continue
        for number, obligation in enumerate(result.obligations, 1):
            slug = re.sub(r"[^A-Za-z0-9]+", "-", obligation.label).strip("-")
            files[f"{loaded.ta.name}.{result.name}.lockstep{number:02d}.{slug}.smt2"] = obligation.text()
    return {"files": files, "skipped": skipped}


def _recurrence(ta, prop: Property, query: TemporalQuery, parameters: dict[str, int], files: dict[str, str],
                skipped: list[str], quiet: bool) -> None:
    """The questions behind ``check``'s proof of a liveness property of an automaton with resets
    from which rules can fire for ever (``ir/eltl/reset_recurrence.py``): each a safety question
    about the whole automaton, written as its inductive invariant's three checks,
    ``<automaton>.<property>.invariant.<question>.<check>.smt2``, each expected ``unsat``. Spacer
    runs to find them; when the proof fails nothing is written (``quiet``: nor said, when the
    proof from the automaton without its resets was written instead)."""
    from tactl.engines import reset_recurrence  # lazy: Spacer runs only for these files

    proof, why = reset_recurrence.prove(ta, query, parameters or None)
    if proof is None:
        if not quiet:
            why = why.removeprefix("no proof for all sizes: ")
            skipped.append(f"{prop.name}: no proof for all sizes to write ({why})")
        return
    for obligation in proof.obligations:
        files[f"{ta.name}.{prop.name}.invariant.{obligation.label}.smt2"] = obligation.text()


def _without_resets(ta, prop: Property, split: ResetSplit, parameters: dict[str, int],
                    files: dict[str, str], skipped: list[str]) -> None:
    """The queries behind ``check``'s proof of a liveness property of an automaton with resets
    (``ir/eltl/reset_response.py``), about the automaton without its reset rules, each expected
    ``unsat``: ``<automaton>.<property>.without-resets.reach.smt2`` (B), and the lasso or loop
    queries of (A) when that automaton has a cycle (``.without-resets[.branchK][.loop].smt2``)."""
    monotone = split.monotone
    try:
        for _, bound, encoding in _encodings(monotone, split.safety, parameters):
            files[f"{ta.name}.{prop.name}.without-resets.reach{'.' + bound if bound else ''}.smt2"] = \
                emit_smtlib(encoding.query)
        if not split.runs_forever:
            return
        cyclic = lasso_reason(monotone) is not None
        why = cycle_reason(monotone) if cyclic else None
        if why:
            skipped.append(f"{prop.name}: without its reset rules, {why}")
            return
        query = split.liveness
        for number, bound, encoding in (_loop_encodings(monotone, query, parameters) if cyclic
                                        else _encodings(monotone, query, parameters)):
            suffix = f".branch{number}" if len(query.branches) > 1 else ""
            files[f"{ta.name}.{prop.name}.without-resets{suffix}{'.' + bound if bound else ''}.smt2"] = \
                emit_smtlib(encoding.query)
    except UnsupportedAutomaton as e:
        skipped.append(f"{prop.name}: without its reset rules, {e}")
