"""Crash fault models: the crash locations (what a crashed process keeps that the properties read)
and the crash rules into them, for asynchronous steps (a crash between steps or between two
statements of a step) and for lock-step rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from tactl.ir.alg import syntax as A
from tactl.ir.expr import BoolConst
from tactl.ir.rta.model import CRASH_LOCATION, CRASH_MODELS, FaultModel, ReceiveRule
from tactl.ir.ta.model import Location, Origin

from tactl.passes.alg_to_rta.context import Context
from tactl.passes.alg_to_rta.explore import Explorer
from tactl.passes.alg_to_rta.guards import simplified_guard
from tactl.passes.alg_to_rta.instructions import SENT
from tactl.passes.alg_to_rta.names import component_text, location_origin
from tactl.passes.alg_to_rta.predicates import formula_names, satisfies
from tactl.passes.alg_to_rta.results import LocationInfo


@dataclass(frozen=True)
class CrashState:
    """A crash location and what a process there kept: the values the properties read, and
    whether it had finished (``done``)."""

    name: str
    state: dict
    done: bool


@dataclass(frozen=True)
class Crashes:
    locations: tuple[Location, ...]
    rules: tuple[ReceiveRule, ...]
    states: list[CrashState]  # what properties quantify over besides the locations
    infos: tuple[LocationInfo, ...] = ()


def crash_view(ctx: Context, observed: set[str]) -> tuple[set[str], bool] | None:
    """What a crashed process keeps, for an asynchronous crash model whose properties read the
    state: (the components the properties read, whether they read ``done``); None otherwise —
    then the translation's one location CR is exact (nothing a property reads tells crashed
    processes apart)."""
    if FaultModel(ctx.alg.fault_model) not in CRASH_MODELS or ctx.alg.timing != "async":
        return None
    raw: set[str] = set()
    for p in ctx.alg.properties:
        formula_names(p.formula, False, raw, set())
    done = A.DONE in raw
    return (set(observed), done) if observed or done else None


def crash_steps(ctx: Context, ex: Explorer, alg: A.Algorithm, keys, edges, names, points,
                reads_done: bool) -> Crashes:
    """Crashed processes keep their state (docs/alg.md, "Fault models").

    A process may crash between two steps, or — crash and hybrid, not clean_crash — between two
    statements of a step, after which the broadcasts the step made so far reached some receivers
    only (``nsf_M``). The crashed process keeps the state it had at that point; the properties
    see it through the values they read, so there is one crash location per such valuation
    (``CR_v1_delivered``), as the literature's crash automata have (FloodMin's c0/c1), and a
    crash rule per (source location, crash location, sends made), guarded by the receive
    conditions the step decided before that point (``Thread.mark`` records them). Two crash
    points of one path with the same valuation and the same conditions decided keep only the one
    with more sends: its partial sends may reach nobody, so it has every run of the other."""
    kept = ex.kept or ()
    partial = FaultModel(alg.fault_model) in (FaultModel.CRASH, FaultModel.HYBRID)

    def state_of(key) -> tuple:
        pc, values = key
        full = dict(zip(ex.components, values))
        return (tuple(full.get(c) for c in kept), reads_done and points[pc].kind == "end")

    valuations: dict[tuple, None] = {}
    for k in keys:
        valuations.setdefault(state_of(k))
    options: dict[tuple, list[tuple[dict, list[int]]]] = {}  # (src, valuation, sends) -> paths
    if partial:
        for src, tgt, o in edges:
            literals = list(o.literals.items())
            points_of = [((values, False), o.sends[:n], n_lits, o.lines[:n_lines])
                         for values, n, n_lits, n_lines in o.trail]
            points_of.append((state_of(tgt), o.sends, len(literals), o.lines))
            best: dict[tuple, tuple] = {}
            for valuation, sends, n_lits, lines in points_of:
                if valuation == state_of(src) and not sends:
                    continue  # the crash before the step (the location's crash rule)
                key = (valuation, n_lits)
                if key not in best or len(sends) > len(best[key][0]):
                    best[key] = (sends, lines)
            for (valuation, n_lits), (sends, lines) in best.items():
                valuations.setdefault(valuation)
                group = options.setdefault((names[src], valuation, tuple(sorted(sends))), [])
                group.append((dict(literals[:n_lits]), list(lines)))
    crash_names = _crash_names(ctx, ex, kept, list(valuations), set(names.values()))
    locations, infos, states = [], [], []
    for valuation, name in crash_names.items():
        values, done = valuation
        shown = [(c, v) for c, v in zip(kept, values) if v is not None and not c.startswith(SENT)]
        sent = tuple(c[len(SENT):] for c, v in zip(kept, values) if c.startswith(SENT) and v == A.TRUE)
        point = "crashed" + (" after finishing" if done else "")
        info = LocationInfo(name, point, tuple(shown), sent, None)
        infos.append(info)
        locations.append(Location(name, origin=location_origin(alg, info)))
        states.append(CrashState(name, {c: v for c, v in zip(kept, values) if v is not None}, done))
    rules: list[ReceiveRule] = []
    for k in keys:
        text = f"crashes at {names[k]}, between steps"
        rules.append(ReceiveRule(len(rules), names[k], crash_names[state_of(k)], BoolConst(True),
                                 origin=Origin(alg.path, (), text)))
    for (src, valuation, sends), paths in options.items():
        guard = simplified_guard(ex.solver, [lits for lits, _ in paths])
        if guard == BoolConst(False):
            continue
        lines = sorted({n for _, ls in paths for n in ls})
        done_lines = "; ".join(f'line {n} "{alg.line(n)}"' for n in lines)
        text = (f"{done_lines} — crashing right after it" if lines else "crashes") + \
            ", in the middle of the step" + (
            f" (what it sent of {', '.join(sends)} reaches some receivers only)" if sends else "")
        rules.append(ReceiveRule(len(rules), src, crash_names[valuation], guard, sends,
                                 origin=Origin(alg.path, tuple(lines), text)))
    return Crashes(tuple(locations), tuple(rules), states, tuple(infos))


def lockstep_crashes(ctx: Context, ex: Explorer, alg: A.Algorithm, keys, edges, names,
                     points) -> Crashes:
    """Crashed processes keep their state in lock-step rounds too (docs/alg.md, "Fault models"):
    a process that crashes in a round keeps the state it started the round in (a location).
    passes/rta_to_sync/sync_ta.py gives a crashed process one location; it has to keep what the
    properties' predicates read of it, so the locations are grouped by which of those predicates
    a crashed process there satisfies, and each group is one crash location (crash rules
    ``ℓ -> CRASHED_ℓ``, unguarded: one sending nothing, and under ``crash`` one sending what ℓ
    sends, its round's messages reaching some receivers only — the asynchronous translation's
    reading of the same automaton, as a hand-written one's crash rules). When no predicate tells them apart (``some (not crashed
    and P)`` only) there is one group: the receive automaton has no crash locations, as a
    hand-written one, and a property names crashed processes ``CR`` (passes/rta_to_sync/sync_ta.py counts
    its one ``CRASHED`` there)."""
    preds = [p for prop in alg.properties for p in _crash_read_predicates(prop.formula)]

    def state_of(key) -> tuple[dict, bool]:
        pc, values = key
        return {c: v for c, v in zip(ex.components, values) if v is not None}, points[pc].kind == "end"

    groups: dict[tuple, list] = {}
    for k in keys:
        state, done = state_of(k)
        groups.setdefault(tuple(satisfies(ctx, p, state, done, crashed=True) for p in preds), []).append(k)
    if len(groups) == 1:
        state, done = state_of(keys[0])
        return Crashes((), (), [CrashState(CRASH_LOCATION, state, done)])
    taken = set(names.values()) | set(ctx.parameters) | {CRASH_LOCATION}
    partial = FaultModel(alg.fault_model) is FaultModel.CRASH
    sends = {src: tuple(sorted(set(o.sends))) for src, _, o in edges}
    locations, infos, states, rules = [], [], [], []
    for members in groups.values():
        name = f"CRASHED_{names[members[0]]}"
        while name in taken:
            name += "_"
        taken.add(name)
        state, done = state_of(members[0])
        common = [(c, v) for c, v in state.items() if all(state_of(k)[0].get(c) == v for k in members)]
        info = LocationInfo(name, "crashed in a round started at " + ", ".join(names[k] for k in members),
                            tuple((c, v) for c, v in common if not c.startswith(SENT)), (), None)
        infos.append(info)
        locations.append(Location(name, origin=location_origin(alg, info)))
        states.append(CrashState(name, state, done))
        for k in members:
            for sent in dict.fromkeys(((), *((sends[k],) if partial else ()))):
                rules.append(ReceiveRule(len(rules), names[k], name, BoolConst(True), sent, origin=Origin(
                    alg.path, (), f"crashes in a round started at {names[k]}, keeping its state"
                    + (f" (what it sent of {', '.join(sent)} reaches some receivers only)" if sent else ""))))
    return Crashes(tuple(locations), tuple(rules), states, tuple(infos))


def _crash_read_predicates(f: A.FormulaNode) -> Iterable:
    """The predicates of ``some``/``no``/``all``/``count`` outside ``initially``: those that may
    see a crashed process."""
    if f.op == "initially":
        return
    if f.op in ("some", "all", "no"):
        yield f.args[0]
        return
    if f.op == "cmp":
        yield from (x.pred for x in A.walk(f.args[0]) if isinstance(x, A.CountPred))
        return
    for a in f.args:
        if isinstance(a, A.FormulaNode):
            yield from _crash_read_predicates(a)


def _crash_names(ctx: Context, ex: Explorer, kept: tuple[str, ...], valuations: list[tuple],
                 taken: set[str]) -> dict[tuple, str]:
    """``CR_`` and the name fragments of what the crashed process kept (``CR_v1_delivered``,
    ``CR_D0_done``; ``CR`` when nothing it kept is set): a name says what the process kept."""
    taken = taken | set(ctx.parameters) | {t.name for t in ctx.types} | set(ctx.kinds) | {
        "fair", "ncrashed"}
    out: dict[tuple, str] = {}
    for valuation in valuations:
        values, done = valuation
        parts = [t for c, v in zip(kept, values) if v is not None and (t := component_text(c, v))]
        name = "_".join([CRASH_LOCATION, *parts, *(["done"] if done else [])])
        while name in taken:
            name += "_"
        taken.add(name)
        out[valuation] = name
    return out
