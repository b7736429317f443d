"""How many processes a crash model runs when the file's copy count is not its first parameter.

tactl's crash models count their processes in the automaton's first parameter
(``passes/rta_to_ta/env.py``: ``crash(f)`` models ``n`` processes, the crashed ones among them).
A file whose own crash counter bounds the crashes (``nfaulty < F -> nfaulty++; next_pc = CR``,
``passes/pml_to_rta/crash.py``) usually runs ``active[N]``; the CAV'15 versions of ``c1cs`` and
``cf1s`` run ``active[N - F]`` and still let up to F of those processes crash. Read as written,
N - F processes run and at most F of them crash: the automaton gets a new first parameter for
the processes that run, tied to the copy count by an assumption, and the warning says so (the
ISOLA'18 versions of the same files run ``active[N]``; where the file assumes ``F == 0`` the two
readings are one).
"""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, Severity
from tactl.ir.expr import Compare, Name, summation
from tactl.passes.pml_to_rta.state import TranslationState


def process_count(tr: TranslationState, copies: dict[str, int], crash_bound: str) -> str | None:
    """The parameter counting the processes of ``active[copies]``: ``N`` itself, or for
    ``N - F1 - …`` (parameters, coefficient 1) a new parameter ``N_minus_F1_…`` with the
    assumption that it equals the copy count (module docstring); None for any other copy count."""
    positive = [k for k, c in copies.items() if k and c > 0]
    minus = [k for k, c in copies.items() if k and c < 0]
    if len(positive) != 1 or copies[positive[0]] != 1 or copies.get("", 0) != 0 \
            or any(copies[k] != -1 for k in minus) or not set(copies) - {""} <= set(tr.params):
        return None
    n = positive[0]
    if not minus:
        return n
    name = "_".join([n, "minus", *minus])
    while name in tr.params or name in tr.shared or name in tr.locals:
        name += "_"
    count = summation(Name(n), [("-", Name(k)) for k in minus])
    tr.params.append(name)
    tr.assumes.append(Compare("==", Name(name), count))
    tr.notes.append(Diagnostic(Severity.WARNING, (
        f"copy count: 'active[{' - '.join([n, *minus])}]' with the crash counter's guard "
        f"'< {crash_bound}' is read as written: {' - '.join([n, *minus])} processes run and at "
        f"most {crash_bound} of them crash; tactl's crash model counts its processes in its first "
        f"parameter, the new parameter {name} == {' - '.join([n, *minus])} (the thresholds keep "
        f"reading {n})"), tr.proc.copies.span))
    return name
