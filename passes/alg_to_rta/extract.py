"""The parse pass: pseudocode (``ir.alg.Algorithm``) → receive threshold automaton (``ReceiveTA``).

**Control-state extraction**. A *location* is a reachable valuation of a
process's finite local state at a *stop point*: the values of its variables, which message types
it has already sent in this round ("send at most once"), and where it stands in the code. The
stop points are the places where a process waits for messages:

* ``wait until C`` (the process stands before it until ``C`` holds);
* the head of ``loop forever:`` (an event loop: the process waits for some handler to fire);
* the end of the program or of the ``round:`` (finished; at a round end the variables carry over
  to the next round, which the one-round automaton does not model);
* in a phase of numbered rounds (``round 1:`` … ``round K:``, synchronous), the start of each
  round: the end of round k is the start of round k + 1 and the end of round K the start of round
  1, the live-variable analysis runs around the phase, and a process that reads ``coordinator``
  learns whether it is the coordinator at the end of the round before (``passes/alg_to_rta/phases.py``);
* the start, unless the program begins with a stop point (then that point is the start).

The stages, in the order ``parse_algorithm`` runs them (each a module of this package):

* declarations.py — read the declarations into a ``Context`` (context.py); refuse comparisons a
  domain decides; rounds.py and phases.py lay out ``rounds carrying`` and numbered rounds first;
* instructions.py — compile the code to instructions, the live components, the stop points;
* explore.py — every way a step can go from each location, by symbolic evaluation
  (evaluate.py) with infeasible paths pruned by z3 (guards.py); locations are found breadth-first;
* names.py — location names and meanings; rules.py — the receive rules and their simplified
  guards; kinds.py — which instances form a kind;
* crashes.py — crash locations and rules; properties.py (with predicates.py) — the properties;
* results.py — the result, and the table ``tactl parse`` prints.

**Source maps**: every location and rule carries an :class:`ir.ta.Origin` — the pseudocode lines
of its stop point, resp. of the conditions and statements its step executed.
"""

from __future__ import annotations

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Diagnostic, Severity, Span
from tactl.ir.rta.model import CRASH_LOCATION, CRASH_MODELS, FaultModel, Faults, Message, ReceiveTA, Timing
from tactl.ir.ta.model import Location

from tactl.passes.alg_to_rta import sets as S
from tactl.passes.alg_to_rta.context import Fail, ParseError, fail
from tactl.passes.alg_to_rta.crashes import CrashState, Crashes, crash_steps, crash_view, lockstep_crashes
from tactl.passes.alg_to_rta.declarations import check_domains, read_declarations
from tactl.passes.alg_to_rta.explore import Explorer, Outcome
from tactl.passes.alg_to_rta.instructions import compile_program, liveness, stop_points
from tactl.passes.alg_to_rta.kinds import check_sums_count_processes, message_kinds
from tactl.passes.alg_to_rta.names import location_names, location_origin
from tactl.passes.alg_to_rta.phases import PhaseError, layout
from tactl.passes.alg_to_rta.predicates import property_variables
from tactl.passes.alg_to_rta.properties import translate_property
from tactl.passes.alg_to_rta.results import ParseResult
from tactl.passes.alg_to_rta.rounds import RoundsError, expand as expand_rounds
from tactl.passes.alg_to_rta.rules import check_coordinator_sends, receive_rules

__all__ = ["MAX_CONTROL_STATES", "MAX_LOCATIONS", "ParseError", "ParseResult", "parse_algorithm"]

# The explorer under the name tests/frontends/test_alg_hostile.py patches to count control states.
_Explorer = Explorer


# Guard rails: an algorithm whose local state space explodes is an input problem, not a hang.
MAX_LOCATIONS = 2000


# A control state of the extraction is a path it follows through a step: a point in the code, a
# valuation and the receive outcomes so far, counted over the whole extraction. Three times the
# corpus's largest (920, dbft: 52 locations), below a minute (dbft's 920 take under a second).
MAX_CONTROL_STATES = 3000


def parse_algorithm(alg: A.Algorithm) -> ParseResult:
    """Control-state extraction; every problem is an :class:`InputError` at its position."""
    try:
        return _parse(expand_rounds(alg))
    except PhaseError as e:
        raise ParseError(Diagnostic(Severity.ERROR, e.message, e.span or Span(1, 1)), alg.path,
                         alg.source) from None
    except (Fail, S.SetFail, RoundsError) as e:
        # A problem of the whole program (its state space) is reported where the code begins.
        span = e.span or next((s.span for s in alg.program if getattr(s, "span", None)), None) \
            or Span(1, 1)
        raise ParseError(Diagnostic(Severity.ERROR, e.message, span), alg.path,
                         alg.source) from None


def _parse(alg: A.Algorithm) -> ParseResult:
    ctx = read_declarations(alg)
    check_domains(ctx)
    types_of: dict[str, tuple[str, ...]] = {}
    for t in ctx.types:
        types_of[t.base] = (*types_of.get(t.base, ()), t.name)
    ctx.layout = layout(alg, types_of)
    code, round_end = compile_program(ctx)
    everywhere, initially = property_variables(ctx)
    live = liveness(ctx, code, round_end, everywhere)
    start_live = live[0] | initially
    live = [l if i else start_live for i, l in enumerate(live)]
    ex = Explorer(ctx, code, live, round_end, MAX_LOCATIONS, MAX_CONTROL_STATES)
    view = crash_view(ctx, everywhere)
    if view is not None:
        ex.kept = tuple(c for c in ex.components if c in view[0])
    points = stop_points(ctx, code)

    initial = ex.initial()
    seen: dict[tuple, None] = dict.fromkeys(initial)
    queue = list(initial)
    edges: list[tuple[tuple, tuple, Outcome]] = []
    while queue:
        key = queue.pop(0)
        for o in ex.step(key):
            target = (o.target_pc, o.state)
            edges.append((key, target, o))
            if target not in seen:
                seen[target] = None
                queue.append(target)
                if len(seen) > MAX_LOCATIONS:
                    raise fail(f"more than {MAX_LOCATIONS} locations: the local state space is "
                               "too large (reduce variables or domains)")
    keys = list(seen)
    check_coordinator_sends(ctx, ex, edges, points)
    names, infos = location_names(ctx, ex, points, keys, alg)
    locations = tuple(Location(names[k], origin=location_origin(alg, infos[k])) for k in keys)
    check_sums_count_processes(ctx, ex, edges)
    rules = receive_rules(ctx, ex, alg, edges, names, points)
    if FaultModel(alg.fault_model) in CRASH_MODELS and alg.timing == "sync":
        crash = lockstep_crashes(ctx, ex, alg, keys, edges, names, points)
    else:
        crash = crash_steps(ctx, ex, alg, keys, edges, names, points, view[1]) if view else Crashes(
            (), (), [CrashState(CRASH_LOCATION, {}, False)]
            if FaultModel(alg.fault_model) in CRASH_MODELS else [])
    properties = tuple(translate_property(ctx, ex, p, keys, names, points, set(initial), crash.states)
                       for p in alg.properties)
    kinds = message_kinds(ctx, ex, edges)
    model = FaultModel(alg.fault_model)
    rta = ReceiveTA(
        name=alg.name, parameters=ctx.parameters, assumptions=ctx.rc,
        faults=Faults(model, ctx.alg.fault_parameters), timing=Timing(alg.timing),
        messages=tuple(Message(t.name, t.base if t.base in kinds else None) for t in ctx.types),
        locations=locations, initial=tuple(names[k] for k in initial), rules=rules,
        properties=properties, coordinator=ctx.layout.coordinator_types,
        crash_locations=crash.locations, crash_rules=crash.rules,
        unknowns=alg.unknowns, unknown_constraints=ctx.unknown_constraints)
    return ParseResult(rta, (*(infos[k] for k in keys), *crash.infos))
