"""Where the file lets a process wait: a self-loop rule, so that a step reading no message is optional.

The justice tactl derives (``passes/rta_to_ta/fairness.py``) forces a rule that reads no message
out of its location unless the location has a self-loop rule ("a process may stay there"). The
translation drops the file's stutter steps (paths that change nothing) as rules, which is right
for safety; but where a location has both a stutter path and a step that reads no message — NBAC's
failure detector at SEND (``next_some_fail = 1 -> next_pc = ABORT``), the bit flipping at
COMMIT and ABORT — the file's process may take the stutter step at every one of its steps and
never the other. Forcing that step would make every process suspect, and every location whose
bit may flip empty for good: a justice no run of the file needs to satisfy, and liveness verdicts
that hold only because of it.

``stutter_loops`` therefore gives each such location a self-loop rule (guard true, no sends; it
changes no configuration, hence no safety verdict), with the lines of its stutter paths as the
origin — in files with a liveness specification, the only ones whose verdicts read the justice. The stutter path may itself need a condition (SEND stutters only while its process has not
received enough to decide); the self-loop does not say so, so the justice is weaker than the
file's there — a liveness HOLDS stays a proof, a VIOLATED lasso is replayed and shown. A location
whose every exit reads a message needs no such loop (those exits stay forced; a message the
initialisation sends counts, though its receive guard is eliminated: ``explore.eliminate_static``),
so the automata of files without a step that reads no message from a stutter location are
unchanged.
"""

from __future__ import annotations

from tactl.ir.expr import BoolConst
from tactl.ir.rta.model import ReceiveRule
from tactl.ir.eltl.ltl import PropertyKind, classify
from tactl.ir.ta.model import Origin, Property
from tactl.passes.pml_to_rta.state import TranslationState


def stutter_loops(tr: TranslationState, properties: list[Property]) -> None:
    """Append to ``tr.rules`` the self-loops of the module docstring, when some of the
    ``properties`` is a liveness one (only the justice of liveness reads them)."""
    if not any(classify(p.formula) is PropertyKind.LIVENESS for p in properties):
        return
    for key in tr.valuations:
        name = tr.names[key]
        if key not in tr.stutter_lines or any(r.source == name and r.is_self_loop for r in tr.rules):
            continue
        if not any(r.source == name and not r.is_self_loop and r.id not in tr.reading_rules
                   for r in tr.rules):
            continue
        lines = tuple(sorted(tr.stutter_lines[key]))
        text = "the step changes nothing: " + "; ".join(f'line {n} "{tr.m.line(n)}"' for n in lines)
        tr.rules.append(ReceiveRule(len(tr.rules), name, name, BoolConst(True),
                                    origin=Origin(tr.m.path, lines, text)))
