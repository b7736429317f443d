"""Parametric Promela (``ir.promela``) → receive threshold automaton (``ir.rta``): the entry point.

ByMC's benchmarks write one process as ``active[N - F] proctype Proc()``: local declarations, an
``if`` choosing the initial values, and ``end: do :: atomic { step } od``. The step is executed
symbolically (``passes/pml_to_rta/__init__.py`` lists the stages in order):

* **Locations** are the reachable valuations, at the ``end:`` label, of the process's finite local
  variables (``pc`` and the like); ``next_*`` temporaries must be back at their declared value at
  the step's end. The options of the initial ``if`` give the initial locations.
* **The receive variable** ``nrcvd`` is the local compared with a shared counter in the bound
  pattern ``if :: !(next_nrcvd <= nsnt + F) -> next_nrcvd = nrcvd; :: else; fi``. It is abstract:
  the receive counter ``received(nsnt)`` of one message type per shared send counter (named after
  the counter). Its increment by 0 or 1 per step means "receive any time" — exactly the receive
  automaton's semantics — so the conditions a path puts on ``next_nrcvd`` become the rule's
  receive guard. Where the receive option is disabled (``pc != RI -> next_nrcvd = nrcvd + 1``
  at ``RI``), the count is the one the process entered with: 0 at an initial location no step
  enters; anywhere else the step may not read it (it would need a count per location).
  A file may have several receive variables, one message type each, an initialisation
  ``atomic`` before ``end:``, ``assume``/``assert`` in the step and integer division:
  ``passes/pml_to_rta/multi.py`` says how each is read exactly, or refused. ByMC's symbolic receive
  ``havoc(next_x); assume(x <= next_x && next_x <= B)`` is the same receive variable
  (``passes/pml_to_rta/havoc.py``); crash-send counters per message type, ``passes/pml_to_rta/crash.py``.
* ``nsnt++`` on a path is a send; the ``pc`` at the step's end is the target; paths whose
  condition is unsatisfiable under the ``assume``s are dropped (z3); paths that change nothing
  are stutter steps and give no rule.
* **Fault model** from the copy count, the bound and the delivery the fairness formula's
  ``in_transit`` promises (``passes/pml_to_rta/faults.py``, table in docs/promela.md):
  ``byzantine(F)``, ``symmetric(Fp, Fs)``, ``omission(Fo)`` where one of them is exactly the
  file's model, else ``bound(processes: P; receive: B; deliver: D)`` (hybrids, ByMC's clean
  crashes); ``nsnt + nsntF`` with ``N`` copies and ``some(Proc:nrcvd < nsnt)`` → ``crash(F)`` for a
  new parameter ``0 <= F <= N``, the location the ``nsntF++`` steps enter (DH) being tactl's crash
  location CR (``crash.sending_crash_location`` says when that is exact); where the properties
  tell crashed processes apart, crash locations that keep the state (``crash_copies.py``). The bound's branch
  (``goto end``, forgetting the receive), forced receives and ``assume`` inside the step are
  read there too.
* **Properties**: ``all(P:c)`` → every location where ``c`` is false is empty; ``some(P:c)`` →
  one where it is true is occupied; ``card(P:c)`` → the sum of their counters; ``P@end`` → true
  (every process starts at ``end:``, the initial ``if`` is the initial location). ``ltl`` blocks
  become the specifications, except ``fairness``: liveness is checked under the justice tactl
  derives from the fault model, and — where the file's formula promises that same delivery, for a
  model without crashes — under the file's formula itself, the default verdict
  (``tactl/driver/file_reading.py``, from the step's stay conditions, ``explore.stay_conditions``);
  the file's fairness is compared with the derived justice and a note says so.

Whatever falls outside these patterns is an :class:`InputError` at its position: the translation
never builds a silently different model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tactl.ir.errors import Diagnostic, InputError, Severity
from tactl.ir.expr import Name, substitute
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import Message, ReceiveTA, Timing
from tactl.passes.pml_to_rta import crash as PC
from tactl.passes.pml_to_rta import crash_copies
from tactl.passes.pml_to_rta.crash_readings import kept_state
from tactl.passes.pml_to_rta import declarations, explore, properties, receives, waiting
from tactl.passes.pml_to_rta import faults as promela_faults
from tactl.passes.pml_to_rta import widths as PT
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import CRASH_SEND, CRASH_SYMBOL, Refuse
from tactl.passes.rta_to_ta.env import CRASHED
from tactl.passes.rta_to_ta.own_fairness import FileFairness


@dataclass(frozen=True)
class PromelaTranslation:
    rta: ReceiveTA
    notes: tuple[Diagnostic, ...] = ()
    # (location name, meaning) for the table `tactl parse` prints
    table: tuple[tuple[str, str], ...] = ()
    # what the file's own fairness reading needs (passes/rta_to_ta/file_fairness.py); None where
    # it is not built (the fairness promises another delivery, a crash model, static counters)
    fairness: FileFairness | None = None


def translate_promela(model: P.PromelaModel) -> PromelaTranslation:
    """The receive automaton of ``model``; raises :class:`InputError` at what is not supported."""
    try:
        return run(TranslationState(model))
    except Refuse as e:
        raise InputError(Diagnostic(Severity.ERROR, e.message + " (not supported by tactl's "
                                    "Parametric Promela front end)", e.span), model.path, model.text) from None
    except PT.WidthError as e:  # the file's own mistake, not a limit of tactl's
        raise InputError(Diagnostic(Severity.ERROR, e.message, e.span), model.path, model.text) from None


def run(tr: TranslationState) -> PromelaTranslation:
    """The stages in order, each filling ``tr``; then the automaton assembled from it."""
    declarations.read_declarations(tr)
    declarations.split_body(tr)
    declarations.initialisation(tr)
    receives.find_receive(tr)
    faults, n = PC.file_crash_faults(tr) or receives.fault_model(tr)
    tr.global_assumes = []  # faults.check_invariants
    tr.stutter_at = set()
    tr.stutter_lines = {}
    tr.reset_at = {}  # faults.at_bound
    explore.explore(tr)
    promela_faults.check_resets(tr)
    if tr.global_assumes:
        tr.notes += promela_faults.check_invariants(tr, tr.global_assumes,
                                                    faults.terms[0] if faults.terms else Name(n))
    params = [n] + [p for p in tr.params if p != n]
    props, table_notes = properties.properties(tr, faults)
    waiting.stutter_loops(tr, props)
    name = re.sub(r"\W", "_", Path(tr.m.path).stem) or "promela"
    if not re.match(r"[A-Za-z_]", name):
        name = "m_" + name
    crash_locations, crash_rules = crash_copies.crash_rules(tr, CRASH_SEND) if tr.crash_copies else ((), ())
    rta = ReceiveTA(name, tuple(params), tuple(tr.assumes), faults, Timing.ASYNC,
                    tuple(Message(c) for c in tr.counters),
                    tuple(tr.locations), tuple(tr.initial), tuple(tr.rules), tuple(props),
                    crash_locations=crash_locations, crash_rules=crash_rules)
    # the file's own reading only where its fairness promises the delivery the derived justice
    # guarantees (else a lasso under the derived delivery may be one the file's formula excludes)
    block = next((ltl for ltl in tr.m.ltls if ltl.name == properties.FAIRNESS and ltl.span), None)
    extra = properties.fairness_extra(tr, block) if block is not None else None
    fairness = None
    if tr.fairness_agrees and tr.stays is not None and extra is not None and \
            (not crash_rules or kept_state(tr, faults)):
        fairness = FileFairness(tuple((k, substitute(v, {CRASH_SYMBOL: Name(CRASHED)})) for k, v in tr.stays.items()), f"line {block.span.line}: {tr.m.line(block.span.line).strip()}",
                                extra, tuple(r.counter for r in tr.rvars if not r.havoc),
                                tuple((k, v) for k, v in tr.kept_counts.items() if v), tr.crashed_stutter,
                                tr.crashed_kept, tuple((k, v) for k, v in tr.zeroed_counts.items() if v),
                                tuple(sorted(tr.stay_kept.items())), tr.static_steps,
                                tuple(sorted(tr.stay_zeroed.items())), tr.crash_paths)
    return PromelaTranslation(rta, tuple(tr.notes + table_notes),
                              tuple((loc.name, loc.origin.text if loc.origin else "")
                                    for loc in (*tr.locations, *crash_locations)), fairness)


