"""The symbolic execution of the step: every path through ``atomic { ... }`` from one location.

A path (``passes/pml_to_rta/values.py``'s ``StepPath``) carries the locals' values, the
condition it took, its sends and its lines. Conditions over locals decide branches concretely;
conditions over receive counts become the path's condition (dropped when unsatisfiable); the
receive choices and bounds of ``passes/pml_to_rta/receives.py`` set the receive variables to
the abstract count; ``assume``/``assert`` over shared counters become obligations
(``explore.check_obligations`` proves them).
"""

from __future__ import annotations

from tactl.ir.expr import Compare, IntConst
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import received
from tactl.passes.pml_to_rta import direct, expressions, solving
from tactl.passes.pml_to_rta import faults as promela_faults
from tactl.passes.pml_to_rta import widths as PT
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import (CRASH_SEND, FILE_CRASH, FORCED, HAVOC_DONE, HAVOC_RESETS, OBLIGATION,
                                            SOURCE, Frozen, Rcv, StepPath, is_received, negate_any, refuse)

# The paths the symbolic execution follows through the step, summed over the statements and the
# whole extraction: ByMC's benchmarks need at most 406 (ISOLA'18 nbacr; cond-consensus2 379), and
# 2^k paths of k independent two-way 'if's over locals would otherwise fill the memory before
# anything is said (2^24 paths take 3.9 GB and end in a MemoryError). The .alg front end's bound
# (passes/alg_to_rta/extract.py, docs/alg.md) is the same number.
MAX_CONTROL_STATES = 3000


def exec_seq(tr: TranslationState, stmts, paths: list[StepPath], initial: bool) -> tuple[list[StepPath], bool]:
    blocked = False
    for s in stmts:
        out: list[StepPath] = []
        for p in paths:
            got, b = exec_stmt(tr, s, p, initial)
            blocked |= b
            out += got
        paths = out
        tr.paths += len(paths)
        if tr.paths > MAX_CONTROL_STATES:
            raise refuse(f"too many control states (> {MAX_CONTROL_STATES}): the paths "
                         "through the step branch too often up to here to enumerate (each "
                         "two-way 'if' over locals doubles them; reduce the branches or the "
                         "variables they set)", s.span)
    return paths, blocked


def exec_stmt(tr: TranslationState, s: P.Stmt, p: StepPath, initial: bool) -> tuple[list[StepPath], bool]:
    line = [s.span.line] if s.span else []
    if isinstance(s, (P.Printf, P.Skip)):
        return [p], False
    if id(s) in tr.bound_ifs:  # the environment assumption of the fault model
        r = tr.bound_of[id(s)]
        env = dict(p.env)
        forced = bool(env.pop(FORCED + r.next, False))
        return promela_faults.at_bound(tr, r, StepPath(env, p.cond, p.sends, p.lines), Rcv(r.counter), forced), False
    if isinstance(s, P.Havoc):  # a receive (havoc.py): any count up to the bound
        r = tr.havoc_of[id(s)]
        if not isinstance(p.env[r.rcv], Rcv) or r.next in p.env.get(HAVOC_DONE, ()):
            raise refuse(f"'havoc({r.next})' on a path that already set '{r.next}' or "
                         f"'{r.rcv}'", s.span)
        env = dict(p.env)
        env[HAVOC_DONE] = env.get(HAVOC_DONE, frozenset()) | {r.next}
        env[r.next] = Rcv(r.counter)
        tr.havoc_at.setdefault(r.counter, set()).add(env[SOURCE])
        return [StepPath(env, list(p.cond), list(p.sends), list(p.lines))], False
    if id(s) in tr.havoc_assumes:  # the bound of a havoc receive: the fault model
        return [p], False
    if isinstance(s, P.Assign) and s.var in tr.rvar_of and tr.rvar_of[s.var].havoc \
            and s.var == tr.rvar_of[s.var].next and s.var not in p.env.get(HAVOC_DONE, ()):
        r = tr.rvar_of[s.var]  # the receive's alternatives: no receive, a reset
        env = dict(p.env)
        env[HAVOC_DONE] = env.get(HAVOC_DONE, frozenset()) | {r.next}
        if isinstance(s.expr, P.PName) and s.expr.name == r.rcv:  # no receive on this path
            if initial:  # as a disabled receive choice: 0 where the process starts
                env[r.next] = env[r.rcv] = 0
                return [StepPath(env, list(p.cond), list(p.sends), list(p.lines))], True
            env[r.next] = env[r.rcv] = Frozen(r.counter)
            return [StepPath(env, list(p.cond), list(p.sends), list(p.lines))], False
        if isinstance(s.expr, P.PInt) and s.expr.value == 0:  # a reset (havoc.check_resets)
            env[r.next] = 0
            env[HAVOC_RESETS] = {**env.get(HAVOC_RESETS, {}), r.counter: s.span}
            return [StepPath(env, list(p.cond), list(p.sends), list(p.lines))], False
    if id(s) in tr.choice_of:
        r = tr.choice_of[id(s)]
        enabled = zero = False
        for guard, delta in r.choices:
            g = True if guard is None else expressions.value(tr, guard, p.env, True)
            if not isinstance(g, bool):
                raise refuse("a receive choice guard must depend on location variables only",
                             guard.span if guard else s.span)
            if delta == 1:
                enabled |= g
            else:
                zero |= g
        env = dict(p.env)
        if enabled:
            env[r.next] = Rcv(r.counter)
            got = StepPath(env, list(p.cond), list(p.sends), list(p.lines))
            if not zero:  # no "no receive" option: the step receives one more
                if r.bound_if is None:
                    return solving.guarded(tr, got, Compare(">=", received(r.counter), IntConst(1)), [], s.span), False
                env[FORCED + r.next] = True  # unless the bound's branch forgets it (at_bound)
            return [got], False
        if not zero:
            return [], False  # no option enabled: the process cannot step here
        if initial:
            env[r.next] = 0  # nothing received yet at an initial location
            env[r.rcv] = 0
            return [StepPath(env, list(p.cond), list(p.sends), list(p.lines))], True
        env[r.next] = env[r.rcv] = Frozen(r.counter)
        return [StepPath(env, list(p.cond), list(p.sends), list(p.lines))], False
    if isinstance(s, P.AssumeStmt) and any(isinstance(e, P.PCall) or (isinstance(e, P.PName) and e.name in tr.props_by_name)
                                           for e in P.subexpressions(s.expr)):
        # over the global state (`assume(tx_inv)`): dropped once proved an invariant
        tr.global_assumes.append(s)
        return [p], False
    if isinstance(s, P.AssumeStmt) and not (set(P.variable_names(s.expr)) & set(tr.shared)):
        g = expressions.value(tr, s.expr, p.env, True)  # over locations and receive counts: a guard
        return solving.guarded(tr, p, g, line, s.span), False
    if isinstance(s, (P.AssumeStmt, P.AssertStmt)):
        v = expressions.value(tr, s.expr, p.env, True, OBLIGATION)
        tr.obligations.append(("assume" if isinstance(s, P.AssumeStmt) else "assert", v,
                               list(p.cond), s.span))
        return [p], False
    if isinstance(s, P.Condition):
        g = expressions.value(tr, s.expr, p.env, True)
        direct.check_upward(tr, g, s.span)
        return solving.guarded(tr, p, g, line, s.span), False
    if isinstance(s, P.Assign):
        if s.var in tr.shared:
            raise refuse(f"assignment to the shared variable '{s.var}' (only '{s.var}++' is a send)", s.span)
        if s.var not in tr.locals:
            raise refuse(f"'{s.var}' is not a local variable", s.span)
        r = tr.rvar_of.get(s.var)
        if r is not None and isinstance(s.expr, P.PName) and s.expr.name in (r.rcv, r.next):
            v = p.env[s.expr.name]  # a copy, also of a count the step may not read
        else:
            v = expressions.value(tr, s.expr, p.env, True)
        if r is not None:
            if is_received(v, r.counter):
                v = Rcv(r.counter)
            if not (isinstance(v, (Rcv, Frozen)) and v.counter == r.counter
                    or isinstance(v, int) and not isinstance(v, bool) and v == 0):
                raise refuse(f"'{s.var}' may only be copied between '{r.rcv}' and "
                             f"'{r.next}' or reset to 0", s.span)
        elif not isinstance(v, int) or isinstance(v, bool):
            raise refuse(f"'{s.var}' gets a value that depends on the receive count or a parameter",
                         s.span)
        else:
            PT.check_value(tr.local_type[s.var], s.var, v, s.span)
        env = dict(p.env)
        env[s.var] = v
        keep = s.var not in tr.rvar_of and not (s.var.startswith("next_") and v == tr.locals[s.var])
        return [StepPath(env, list(p.cond), list(p.sends), p.lines + (line if keep else []))], False
    if isinstance(s, P.Incr):
        if s.var in tr.shared and s.var in tr.crash_of and s.delta == 1:
            marker = CRASH_SEND if len(tr.crash_of) == 1 and not tr.file_crash \
                else f"{CRASH_SEND}:{tr.crash_of[s.var]}"
            return [StepPath(dict(p.env), list(p.cond), p.sends + [marker], p.lines + line)], False
        if s.var in tr.shared and s.var == tr.file_crash and s.delta == 1:
            return [StepPath(dict(p.env), list(p.cond), p.sends + [FILE_CRASH], p.lines + line)], False
        if s.var in tr.shared:
            if s.var not in tr.counters or s.delta != 1:
                raise refuse(f"'{s.var}{'++' if s.delta == 1 else '--'}': only the receive "
                             "bounds' send counters may be incremented", s.span)
            return [StepPath(dict(p.env), list(p.cond), p.sends + [s.var], p.lines + line)], False
        if s.var in tr.loc_vars():
            env = dict(p.env)
            env[s.var] = env[s.var] + s.delta  # type: ignore[operator]
            PT.check_value(tr.local_type[s.var], s.var, env[s.var], s.span)  # type: ignore[arg-type]
            return [StepPath(env, list(p.cond), list(p.sends), p.lines + line)], False
        raise refuse(f"'{s.var}++' on a variable that is not a location variable or send counter", s.span)
    if isinstance(s, P.If):
        out: list[StepPath] = []
        blocked = False
        guards: list[object] = []
        for o in s.options:
            first = o.body[0] if o.body else None
            if isinstance(first, P.Else):
                continue
            guards.append(expressions.value(tr, first.expr, p.env, True) if isinstance(first, P.Condition) else True)
        for o in s.options:
            first = o.body[0] if o.body else None
            if isinstance(first, P.Else):
                g: object = True if not guards else negate_any(guards)
                rest = o.body[1:]
            elif isinstance(first, P.Condition):
                g = expressions.value(tr, first.expr, p.env, True)
                rest = o.body[1:]
            else:
                g, rest = True, o.body
            guarded = isinstance(first, (P.Condition, P.Else))
            direct.check_upward(tr, g, o.span)
            start = solving.guarded(tr, p, g, [o.span.line] if o.span and guarded else [], o.span)
            got, b = exec_seq(tr, rest, start, initial)
            blocked |= b
            out += got
        return out, blocked
    raise refuse(f"'{type(s).__name__}' is not supported inside the atomic step", s.span)


