"""Temporaries a file does not reset: ``next_pc`` keeping its last value between steps.

ByMC's files end the step by resetting every ``next_*`` temporary to its declared value
(``next_pc = 0;``), so a location is the valuation of the other locals alone
(``passes/pml_to_rta/translation.py``). CONCUR'14's ``toy.pml`` ends with ``pc = next_pc;`` and
leaves ``next_pc`` as it is. What it keeps changes nothing when every path through the step
assigns the temporary before reading it: the step never sees the old value, so the process
behaves as if the temporary were reset. ``written_first`` proves that on the step's syntax;
then ``explore.py`` accepts the value the step leaves and a warning says why, else the file is
refused as before.
"""

from __future__ import annotations

from tactl.ir.promela import syntax as P


def written_first(stmts: tuple[P.Stmt, ...], var: str) -> bool:
    """Every path through ``stmts`` assigns ``var`` before any statement reads it."""
    return _seq(stmts, var, False) is not None


def _reads(e: P.PExpr, var: str) -> bool:
    return var in set(P.variable_names(e))


def _seq(stmts: tuple[P.Stmt, ...], var: str, written: bool) -> bool | None:
    """Whether ``var`` is written after ``stmts`` (None: read before written on some path)."""
    for s in stmts:
        got = _stmt(s, var, written)
        if got is None:
            return None
        written = got
    return written


def _stmt(s: P.Stmt, var: str, written: bool) -> bool | None:
    if isinstance(s, (P.Condition, P.AssumeStmt, P.AssertStmt)):
        return None if not written and _reads(s.expr, var) else written
    if isinstance(s, P.Assign):
        if not written and _reads(s.expr, var):
            return None
        return written or s.var == var
    if isinstance(s, P.Havoc):
        return written or s.var == var
    if isinstance(s, P.Incr):
        return None if not written and s.var == var else written
    if isinstance(s, (P.If, P.Do)):
        after = [_seq(o.body, var, written) for o in s.options]
        return None if None in after else all(after)
    if isinstance(s, P.Atomic):
        return _seq(s.body, var, written)
    if isinstance(s, P.Labelled):
        return _stmt(s.stmt, var, written)
    if isinstance(s, (P.Printf, P.Skip, P.Else, P.Goto, P.Decl)):
        return written
    return None  # a statement this analysis does not know: no proof
