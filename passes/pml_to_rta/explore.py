"""The location graph: the step explored from every reachable location, and its rules.

From the initial locations (the options of the initial ``if``) the step is walked
(``passes/pml_to_rta/walk.py``) from each location reached; a path's target is the valuation of
the location variables at its end, a path that changes nothing is a stutter. Then the crash
location is found (``passes/pml_to_rta/crash.py``), the locations named, the obligations proved,
each location's rules restricted to the receive counts a process can have there
(``monotone_invariants``), and the paths with the same source, target and sends joined into one
receive rule whose guard is the disjunction of their conditions.
"""

from __future__ import annotations

from tactl.ir.expr import BoolConst, Compare, Expr, IntConst, Mul, Name, conj, disj, summation
from tactl.ir.errors import Diagnostic, Severity
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import ReceiveRule, received, received_message
from tactl.ir.ta.model import Location, Origin
from tactl.passes.pml_to_rta import crash as PC
from tactl.passes.pml_to_rta import crash_readings as PCR
from tactl.passes.pml_to_rta import direct, expressions, solving, values, walk
from tactl.passes.pml_to_rta import havoc as PH
from tactl.passes.pml_to_rta import kept_counts as PK
from tactl.passes.pml_to_rta import multi as PM
from tactl.passes.rta_to_ta import static_steps as SS
from tactl.passes.pml_to_rta import temporaries as PTMP
from tactl.passes.pml_to_rta import widths as PT
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import (CRASH_SEND, CRASH_SYMBOL, FILE_CRASH, RESETS, HAVOC_RESETS, SOURCE,
                                            Rcv, StepPath, dedupe, expr_names, lift, lower_bound, refuse)


def explore(tr: TranslationState) -> None:
    from tactl.ir.linear import int_symbols, to_z3  # lazy: z3 loads only when a .pml is translated
    import z3  # lazy: as above

    tr.z3, tr.to_z3, tr.syms = z3, to_z3, int_symbols()
    tr.paths = 0  # control states so far (exec_seq), over the whole extraction
    tr.rc = [to_z3(a, tr.syms) for a in tr.assumes]
    for r in tr.rvars:
        tr.rc.append(to_z3(Compare(">=", received(r.counter), IntConst(0)), tr.syms))
        if r.counter in tr.static:
            tr.rc.append(to_z3(Compare("<=", received(r.counter), IntConst(tr.static[r.counter])), tr.syms))
    tr.rc += [to_z3(c, tr.syms) for c in direct.ranges(tr)]
    tr.obligations = []
    lv = tr.loc_vars()
    starts: list[tuple[int, ...]] = []
    tr.start_counts = {}  # init-only counters per start
    options = tr.init_if.options if tr.init_if else (P.Option(()),)
    for o in options:
        env = dict(tr.locals)
        counts: dict[str, int] = {}
        for s in o.body:
            if isinstance(s, P.Assign) and s.var in lv:
                v = expressions.value(tr, s.expr, env, False)
                if not isinstance(v, int):
                    raise refuse("initial values must be constants", s.span)
                PT.check_value(tr.local_type[s.var], s.var, v, s.span)
                env[s.var] = v
            elif isinstance(s, P.Incr) and s.var in tr.shared:
                counts[s.var] = counts.get(s.var, 0) + s.delta
            elif not isinstance(s, (P.Printf, P.Skip)):
                raise refuse("the initial 'if' may only assign constants to locals", s.span)
        key = tuple(env[v] for v in lv)
        if key in tr.start_counts and tr.start_counts[key] != counts:
            raise refuse("two initial options reach the same location with different counter "
                         "increments", o.span)
        tr.start_counts[key] = counts
        if key not in starts:
            starts.append(key)
    tr.init_only = sorted({c for cs in tr.start_counts.values() for c in cs})
    stepped = {t.var for t in P.statements(tr.step) if isinstance(t, (P.Incr, P.Assign))}
    for c in tr.init_only:
        if c in stepped or c in tr.init_values:
            raise refuse(f"'{c}' is incremented by the initial 'if' and changed elsewhere",
                         tr.init_if.span if tr.init_if else None)
    tr.valuations = list(starts)
    tr.havoc_at = {}  # counter -> locations whose steps receive it
    tr.havoc_resets = {}  # (src, dst, counter) -> the reset
    edges: list[tuple[tuple, tuple, StepPath]] = []
    stutters: list[tuple[tuple, StepPath]] = []
    queue = list(starts)
    blocked: list[tuple[int, ...]] = []
    while queue:
        src = queue.pop(0)
        env: dict[str, object] = dict(tr.locals)
        env.update(zip(lv, src))
        for r in tr.rvars:
            env[r.rcv] = Rcv(r.counter)
        env[SOURCE] = src
        paths, is_blocked = walk.exec_seq(tr, tr.step, [StepPath(env)], src in starts)
        if is_blocked:
            blocked.append(src)
        for p in paths:
            for v in tr.locals:
                if (v.startswith("next_") or v in tr.rvar_of and tr.rvar_of[v].next == v) \
                        and p.env[v] != tr.locals[v] and not kept_temporary(tr, v):
                    raise refuse(f"'{v}' is not reset to {tr.locals[v]} at the end of the step",
                                 tr.local_span[v])
            tgt = tuple(p.env[v] for v in lv)
            if any(not isinstance(x, int) for x in tgt):
                raise refuse("a location variable gets a value that depends on the receive "
                             "count", tr.proc.span)
            p.env[RESETS] = frozenset(r.counter for r in tr.rvars
                                      if isinstance(p.env[r.rcv], int) and not isinstance(p.env[r.rcv], bool))
            for c, span in p.env.get(HAVOC_RESETS, {}).items():
                tr.havoc_resets.setdefault((src, tgt, c), span)
            if tgt == src and not p.sends:
                tr.stutter_at.add(src)
                stutters.append((src, p))
                tr.stutter_lines.setdefault(src, set()).update(p.lines)
                continue  # a stutter step
            edges.append((src, tgt, p))
            if tgt not in tr.valuations:
                tr.valuations.append(tgt)
                queue.append(tgt)
    for b in blocked:
        if any(t == b and s != b for s, t, _ in edges):
            raise refuse("the receive choice is disabled at a location a step enters: the "
                         "receive count there would depend on the path", tr.choice_if.span)
    tr.valuations.sort()  # locations in the order of their values (pc = 0, 1, ...)
    tr.dead = None
    tr.dead_all = ()  # several valuations that are CR (crash.py)
    tr.crash_copies, tr.crash_steps, tr.crashed_steps = [], [], []  # crash_copies.py
    tr.file_crash_paths = []  # crash.crash_location
    if tr.crash_counter is not None and tr.file_crash is not None:
        edges = PC.crash_location(tr, edges, tr.file_crash, CRASH_SEND, FILE_CRASH, CRASH_SYMBOL)
    elif tr.crash_counter is not None and len(tr.crash_of) > 1:
        edges = PC.unbounded_crash_location(tr, edges, CRASH_SEND)
    elif tr.crash_counter is not None:
        edges = PC.sending_crash_location(tr, edges)
    if tr.file_crash is not None and tr.dead is None and not tr.crash_copies:
        edges = PC.file_crash_location(tr, edges)
    elif any(CRASH_SYMBOL in {n.name for c in p.cond for n in expr_names(c)} for _, _, p in edges):
        raise refuse("a step whose condition reads a shared counter", tr.proc.span)
    if tr.havoc_resets:
        reads: dict[str, set[tuple]] = {}
        for s, _, p in edges:
            for n in {n.name for c in p.cond for n in expr_names(c)}:
                reads.setdefault(n, set()).add(s)
        PH.check_resets(tr.havoc_resets, tr.havoc_at, edges,
                        {r.counter: reads.get(received(r.counter).name, set()) for r in tr.rvars})
    name_locations(tr, lv, starts)
    check_obligations(tr, edges, starts)
    invariant = monotone_invariants(tr, edges, starts)
    groups: dict[tuple, list[list[Expr]]] = {}
    lines_of: dict[tuple, set[int]] = {}
    paths_of: dict[tuple, list] = {}
    for s, t, p in edges:
        for d in invariant.get(s, []):
            cond = dedupe(list(d) + p.cond)
            if solving.sat(tr, cond):
                key = (s, t, tuple(p.sends))
                groups.setdefault(key, []).append(cond)
                lines_of.setdefault(key, set()).update(p.lines)
                paths_of.setdefault(key, []).append(p)
    tr.crashed_stutter, tr.crashed_kept = PK.crashed_stutter(tr, stutters, starts, edges)
    tr.stays = stay_conditions(tr, stutters, invariant)
    tr.stay_kept = PK.stay_kept(tr, stutters, starts, edges)
    tr.stay_zeroed = PCR.stay_zeroed(tr, stutters, starts, edges)
    tr.crash_paths = PCR.crash_paths(tr, starts, edges, CRASH_SEND)
    if tr.crash_copies:
        tr.crashed_stutter = PCR.crashed_moving_copies(tr, stutters)
    tr.rules = []
    tr.kept_counts, tr.zeroed_counts = {}, {}
    tr.reading_rules = set()
    static_rules = []  # with the static counts kept, for the file's own fairness (static_steps.py)
    for (s, t, sends), conds in groups.items():
        if tr.static and s in tr.names and t in tr.names:
            static_rules.append((tr.names[s], tr.names[t], SS.condition(conds), sends))
        if any(received_message(n.name) for c in conds for a in c for n in expr_names(a)):
            tr.reading_rules.add(len(tr.rules))  # reads a message, static ones too (waiting.py)
        conds = eliminate_static(tr, conds)
        if not conds:
            continue
        guard = BoolConst(True) if any(not c for c in conds) else disj(*[conj(*c) for c in conds])
        lines = sorted(lines_of[(s, t, sends)])
        text = "; ".join(f'line {n} "{tr.m.line(n)}"' for n in lines)
        tr.kept_counts[len(tr.rules)] = PK.kept(tr, paths_of[(s, t, sends)], starts, edges)
        tr.zeroed_counts[len(tr.rules)] = PK.zeroed(tr, paths_of[(s, t, sends)], starts, edges)
        tr.rules.append(ReceiveRule(len(tr.rules), tr.names[s], tr.names[t], guard, sends,
                                    origin=Origin(tr.m.path, tuple(lines), text)))
    if tr.static and tr.stays is not None:
        kept = tr.stays
        tr.stays = {loc: SS.without_static(c, tr.static) for loc, c in kept.items()}
        tr.static_steps = SS.StaticSteps(tuple(tr.static.items()), tuple(static_rules), tuple(kept.items()))


def stay_conditions(tr: TranslationState, stutters, invariant) -> dict[str, Expr] | None:
    """Per location, the receive counts with which a step of a process there changes nothing (its
    stutter paths' conditions, restricted like the rules by ``monotone_invariants``): the steps by
    which a process receives without moving. The receive automaton has no rule for them; the file's
    own fairness needs them (``passes/rta_to_ta/file_fairness.py``: a process stays at a location
    either by such a step or by never stepping again). Built without a solver call, so that reading
    a file asks z3 exactly what it asked before (a later check's models, hence its figures, depend on
    it); an unsatisfiable condition is harmless there. A static counter's receive count is left in
    (``explore`` then eliminates it without a solver: ``passes/rta_to_ta/static_steps.py``)."""
    conds_at: dict[tuple, list[list[Expr]]] = {}
    for s, p in stutters:
        for d in invariant.get(s, []):
            cond = dedupe(list(d) + p.cond)
            if cond not in conds_at.setdefault(s, []):
                conds_at[s].append(cond)
    return {tr.names[s]: BoolConst(True) if any(not c for c in conds) else disj(*[conj(*c) for c in conds])
            for s, conds in conds_at.items() if conds and s in tr.names}


def kept_temporary(tr: TranslationState, v: str) -> bool:
    """``v`` (not a receive variable) may keep the value the step leaves: every path assigns it
    before reading it (``temporaries.py``); the first time, a warning says so."""
    if v in tr.rvar_of or not PTMP.written_first(tr.step, v):
        return False
    if v not in tr.kept_temporaries:
        tr.kept_temporaries.add(v)
        tr.notes.append(Diagnostic(Severity.WARNING, (
            f"'{v}' keeps the value the step leaves (the file does not reset it to "
            f"{tr.locals[v]}); every path through the step assigns it before reading it, so the "
            "value it keeps changes nothing and it is read as reset"), tr.local_span[v]))
    return True


def eliminate_static(tr: TranslationState, conds: list[list[Expr]]) -> list[list[Expr]]:
    """The receive counts of static counters (sent by the initialisation, fixed for the run)
    range over 0..their largest value: each conjunction becomes the satisfiable cases of that
    finite range, so no ``received`` of theirs is left in a guard."""
    from tactl.ir.expr import substitute  # lazy: only for static counters

    out = [c for c in conds]
    for counter, top in tr.static.items():
        name = received(counter).name
        nxt: list[list[Expr]] = []
        for c in out:
            if not any(n.name == name for a in c for n in expr_names(a)):
                nxt.append(c)
                continue
            for k in range(top + 1):
                cand = [substitute(a, {name: IntConst(k)}) for a in c]
                cand = [a for a in cand if a != BoolConst(True) and not solving.valid_in_rc(tr, a)]
                if solving.sat(tr, cand) and cand not in nxt:
                    nxt.append(cand)
        out = nxt
    return out


def check_obligations(tr: TranslationState, edges, starts) -> None:
    """``assume``/``assert`` over shared counters must hold on every path reaching them,
    given the receive bounds and how often a process can send (``sends_per_process``):
    then they change nothing and are dropped; else the file is refused."""
    if not tr.obligations:
        return
    copies = lift(expressions.value(tr, tr.proc.copies, {}, True, "the copy count"))
    env: list[Expr] = []
    graph = [(s, t, tuple(p.sends)) for s, t, p in edges]
    for r in tr.rvars:
        if r.counter in tr.static:
            continue
        ns = Name(f"sent {r.counter}")
        rest = [("+" if k > 0 else "-", Name(n) if n else IntConst(abs(k)))
                for n, k in tr.bound_rest.items() for _ in range(abs(k) if n else 1)]
        env += [Compare("<=", received(r.counter), summation(ns, rest)), Compare(">=", ns, IntConst(0))]
        k = PM.sends_per_process(graph, starts, r.counter)
        if k is not None:
            env.append(Compare("<=", ns, Mul(IntConst(k), copies)))
    for kind, v, cond, span in tr.obligations:
        if tr.crash_counter is not None or not solving.valid(tr, values.condition(v, span), cond + env):
            raise refuse(f"{kind}(...) that tactl cannot prove always true from the receive "
                         "bounds and the number of sends" + (" (it would restrict steps by a "
                          "shared counter)" if kind == "assume" else " (a safety property over "
                          "receive variables is not a specification of the automaton)"), span)
    statements = len({(o[3].line, o[3].col) if o[3] else i for i, o in enumerate(tr.obligations)})
    tr.notes.append(Diagnostic(Severity.WARNING, (
        f"{statements} assume/assert statement(s) of the step hold on each of the "
        f"{len(tr.obligations)} paths reaching them (each process sends each message at most "
        "as often as its location graph allows, every receive count is within its bound): "
        "they change nothing"), tr.obligations[0][3]))


def monotone_invariants(tr: TranslationState, edges, starts) -> dict[tuple, list[tuple[Expr, ...]]]:
    """Per location, what its processes' receive count is known to be at least: a process
    entered it by a step whose condition bounded the count from below, and the count never
    decreases (ByMC's ``nrcvd`` only grows). A disjunction of conjunctions of lower bounds
    ``received(M) >= e``; a location's rules are restricted to it, which removes steps no
    process can take (e.g. back from AC, entered with n - t, by a guard below n - t) and
    keeps every step a process can take."""
    inv: dict[tuple, list[tuple[Expr, ...]]] = {s: [()] for s in starts}
    changed = True
    while changed:
        changed = False
        for s, t, p in edges:
            for d in list(inv.get(s, [])):
                cond = dedupe(list(d) + p.cond)
                if not solving.sat(tr, cond):
                    continue
                kept = [r.counter for r in tr.rvars if r.counter not in p.env.get(RESETS, ())]
                low = tuple(a for a in cond if any(lower_bound(a, c) for c in kept))
                have = inv.setdefault(t, [])
                if any(set(h) <= set(low) for h in have):
                    continue  # a weaker bound is known already
                have[:] = [h for h in have if not set(low) <= set(h)] + [low]
                changed = True
    return inv


def name_locations(tr: TranslationState, lv: list[str], starts: list[tuple]) -> None:
    used = tr.m.macros_in_process
    by_value: dict[int, list[str]] = {}
    for name, val in tr.defines.items():
        if name in used:
            by_value.setdefault(val, []).append(name)
    tr.names = {}
    tr.locations = []
    tr.initial = []
    taken = set(tr.params) | {c.name for c in tr.crash_copies}  # crash_copies.py named them first
    for key in tr.valuations:
        parts, meaning = [], []
        for var, val in zip(lv, key):
            cands = by_value.get(val, [])
            label = cands[0] if len(lv) == 1 and len(cands) == 1 else f"{var}{val}"
            parts.append(label)
            meaning.append(f"{var} = {val}" + (f" ({', '.join(cands)})" if cands else ""))
        name = "_".join(parts) or "L"
        while name in taken:
            name += "_"
        taken.add(name)
        tr.names[key] = name
        line = next((d.span.line for d in tr.m.defines if d.name == name and d.span), None)
        tr.locations.append(Location(name, origin=Origin(tr.m.path, (line,) if line else (),
                                                         ", ".join(meaning))))
        if key in starts:
            tr.initial.append(name)


