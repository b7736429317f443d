"""Emitter pass: receive automaton (``.rta``/``.alg``) → Promela *process model* for SPIN
(``templates/promela/process.pml.j2``).

The established way to model threshold-guarded algorithms for SPIN (Konnov, Veith, Widder et
al.'s tutorial): one proctype per modelled process, shared send counters ``nsnt_M``, per-process
receive counters ``nrcvd_M[_pid]`` that grow non-deterministically, one increment at a time, up to
what the fault model's environment assumption allows (``passes/rta_to_ta/env.py``):

==================  ===================  ==========================================================
model               processes            a receive of M is possible while
==================  ===================  ==========================================================
byzantine(f)        n − f                nrcvd_M < nsnt_M + f; for a kind K (Ben-Or's R0, R1) the
                                         faulty senders are shared: Σ_K max(0, nrcvd − nsnt) < f
symmetric(fp[, fs])  —                   refused (the fs faulty messages reach every receiver:
                                         a count fixed for the run, see unsupported_fault_model)
crash(f)            n                    nrcvd_M < nsnt_M + nsntf_M (sends of crashing processes)
clean_crash(f)      n                    nrcvd_M < nsnt_M (a crash falls between steps);
                                         clean_crash(fc, fnc) is refused as symmetric is
omission(f)         n                    nrcvd_M < nsnt_M
hybrid(b, c)        n − b                crash as crash(c), plus b Byzantine as above
==================  ===================  ==========================================================

Each process first chooses its initial location (``active [PROCS] proctype``: no init process in
the state vector; process k chooses after process k − 1, and no process acts before all have
chosen — the macro ``initialized``). Then, with **forced** receive steps (where
``passes/emit/forced_receive.py`` finds them sound: the experts' way), one atomic step receives at
most one message and fires a rule that what was received enables; with **lazy** receive steps
(everywhere else, or ``receive="lazy"``) a receive is a step of its own and a process may wait for
more messages before it acts. The rules are mutually exclusive branches (several enabled: a
non-deterministic choice; none: the process stays). The receive automaton's own self-loops are
left out (staying is the ``else``). Crashing processes (crash models) may crash between steps,
and — where sends can be partial — in the middle of a rule's sends, which then count in
``nsntf_M``.

Specifications speak of location counters; each becomes the number of processes at that
location (``cnt_L``), read from the first configuration with every process placed: ``[]g`` as
``[](initialized -> g)``, ``<>g`` as ``<>(initialized && g)``, a state formula p outside every
temporal operator as ``(!initialized U (initialized && p))`` (``ltl_from_initial``, shared with the
counter model). A model written for one property whose premise only empties initial locations
(``V1 == 0 -> [](AC == 0)``) instead lets the processes start elsewhere only and drops the
premise: the never claim of the whole formula under an until is many times larger, and so is
the state space it makes pan search. Liveness specifications get the fault model's
fairness: ``[]<>(!in_transit_M)`` for every message type — no message a correct receiver is
guaranteed to get stays undelivered forever (``nrcvd_M < nsnt_M`` for the modelled processes;
with send omission the f faulty senders' messages may be lost — every receiver, faulty ones
included, is owed all but f: ``nrcvd_M + f < nsnt_M``, the translation's justice) — together with
weak process fairness, which ``pan -f`` enforces. With ``partition`` each process starts in an
initial location listed no earlier than the previous process's (one start per integer partition:
the processes are symmetric, so this loses no behaviour). The initial states shrink, the
reachable ones hardly do — the processes leave their sorted start in every order — so it is off
by default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.evaluate import evaluate
from tactl.ir.expr import BoolConst, Compare, Eventually, Expr, IntConst, names, substitute, to_text, walk
from tactl.ir.linear import NonLinearError, normalize
from tactl.ir.rta.model import (
    CRASH_LOCATION,
    CRASH_MODELS,
    FaultModel,
    ReceiveTA,
    Timing,
    justice_name,
    received,
    received_message,
)
from tactl.passes.emit.promela import ltl_from_initial, promela, promela_identifier
from tactl.passes.emit.forced_receive import initial_restriction, receive_mode
from tactl.passes.rta_to_ta.env import environment
from tactl.passes.emit.render import render
from tactl.util.version import __version__

BYZANTINE_LIKE = (FaultModel.BYZANTINE, FaultModel.HYBRID)  # symmetric: refused, see below
PARTIAL_SENDS = (FaultModel.CRASH, FaultModel.HYBRID)


class ProcessModelError(ValueError):
    """The receive automaton or the parameters cannot be written as a process model."""


@dataclass
class _Model:
    title: str
    version: str
    source: str
    processes: int
    who: str
    env_text: str
    parameters: list[dict]
    states: list[str]
    shared: list[dict] = field(default_factory=list)
    received: list[dict] = field(default_factory=list)
    counters: list[dict] = field(default_factory=list)
    defines: list[dict] = field(default_factory=list)
    receives: list[dict] = field(default_factory=list)
    rules: list[dict] = field(default_factory=list)
    properties: list[dict] = field(default_factory=list)
    initial: list[str] = field(default_factory=list)
    crash: bool = False
    crashed: str = "L_crashed"
    crash_bound: str = "0"
    faulty: bool = False
    faulty_count: int = 0
    partition: bool = False
    choices: list[dict] = field(default_factory=list)
    forced: bool = False
    forced_why: str = ""
    lazy_why: str = ""
    restricted: str = ""


def state(location: str) -> str:
    """The mtype constant of a location (prefixed: Promela keywords and macros never clash)."""
    return "L_" + location


def counter(location: str) -> str:
    return "cnt_" + location


def param_macro(name: str) -> str:
    return "P_" + name


def ltl_names(rta: ReceiveTA) -> dict[str, str]:
    """Property name -> the name of its ltl block (and pan's -N): the property's own name unless
    Promela, the C preprocessor or SPIN's claim labels reserve it (``linux`` -> ``linux_``)."""
    out: dict[str, str] = {}
    for prop in rta.properties:
        out[prop.name] = promela_identifier(prop.name, set(out.values()))
    return out


def unsupported_fault_model(rta: ReceiveTA) -> str | None:
    """Why this process model cannot express ``rta``'s fault model (None: it can). Symmetric
    faults deliver the same fs_M faulty messages to every receiver and clean_crash(fc, fnc) loses
    fnc broadcasts for every receiver (passes/rta_to_ta/env.py): both are counts fixed for the run that this
    model's per-receiver environment does not have, so it refuses them rather than check another
    model than the counter system's."""
    model = rta.faults.model
    if rta.coordinator:
        return ("SPIN's process model does not model coordinator messages (one coordinator per "
                "round, forged only if it is faulty: passes/rta_to_ta/coordinator.py); use the counter "
                "model or another engine")
    if model is FaultModel.BOUND:
        return ("SPIN's process model does not model the fault model 'bound' (a receive bound and "
                "delivery stated as expressions, not as faulty processes); use the counter model "
                "or another engine")
    if model is FaultModel.SYMMETRIC:
        return ("SPIN's process model does not model symmetric faults (the same fs faulty messages "
                "delivered to every receiver); use the counter model or another engine")
    if rta.crash_locations:
        return ("SPIN's process model has one crash location that forgets a crashed process's "
                f"state; this automaton's crash locations keep it ({rta.crash_locations[0].name}, "
                "…: ir/rta/model.py): use the counter model or another engine")
    if model is FaultModel.CLEAN_CRASH and len(rta.faults.parameters) == 2:
        return ("SPIN's process model does not model clean_crash(fc, fnc) (fnc broadcasts lost for "
                "every receiver); use clean_crash(f), the counter model or another engine")
    return None


def emit_process_model(rta: ReceiveTA, parameters: dict[str, int], properties: tuple[str, ...] = (),
                       partition: bool = False, source: str = "", receive: str = "auto") -> str:
    """The Promela text of the process model at fixed ``parameters`` (all of them, checked by the
    caller against the resilience condition). ``receive``: "forced" (one step receives at most
    one message and fires an enabled rule: the experts' reduction, refused with
    :class:`ProcessModelError` where it is not sound), "lazy" (receives are steps of their own)
    or "auto" (forced where sound, else lazy). With exactly one property selected whose premise
    fixes initial locations to zero (``V1 == 0 -> ...``), the processes start only elsewhere."""
    return process_model(rta, parameters, properties, partition, source, receive)[0]


def process_model(rta: ReceiveTA, parameters: dict[str, int], properties: tuple[str, ...] = (),
                  partition: bool = False, source: str = "", receive: str = "auto") -> tuple[str, str]:
    """:func:`emit_process_model`, and the receive mode it used ("forced" or "lazy")."""
    if rta.timing is Timing.SYNC:
        raise ProcessModelError("the process model is asynchronous; a synchronous automaton needs "
                                "lock-step rounds (not modelled for SPIN)")
    unsupported = unsupported_fault_model(rta)
    if unsupported:
        raise ProcessModelError(unsupported)
    missing = [p for p in rta.parameters if p not in parameters]
    if missing:
        raise ProcessModelError(f"--param needed for {', '.join(missing)}")
    env = environment(rta)
    model = rta.faults.model
    fparams = rta.faults.parameters
    byz = fparams[0] if model in BYZANTINE_LIKE else None
    crash = (fparams[1] if model is FaultModel.HYBRID else fparams[0]) if model in CRASH_MODELS else None
    procs = evaluate(env.processes, parameters)
    if procs < 1:
        raise ProcessModelError(f"no process to model: {procs} processes at these parameters")
    if procs > 255:
        raise ProcessModelError(f"{procs} processes: SPIN's process model is for small instances")
    kinds = {m: k for k, members in rta.kinds().items() if len(members) >= 2 for m in members} \
        if byz else {}
    partial = model in PARTIAL_SENDS
    pm = param_macro
    m = _Model(
        title=f"{rta.name}: {model.value} faults",
        version=__version__, source=source or rta.name, processes=procs,
        who={FaultModel.BYZANTINE: "the correct ones; the f Byzantine are the environment",
             FaultModel.HYBRID: "the correct and crashing ones; the Byzantine are the environment",
             FaultModel.OMISSION: "all n; f of them may omit sends, so up to f of the messages "
                                  "sent need never arrive",
             }.get(model, "all n; at most f of them crash"),
        env_text=_env_text(model, byz, crash),
        parameters=[{"name": p, "macro": pm(p), "value": parameters[p]} for p in rta.parameters],
        states=[state(loc.name) for loc in rta.locations] +
               (["L_crashed"] if crash else []),
        initial=[state(x) for x in rta.initial], partition=partition)
    mode, why = receive_mode(rta, parameters, receive)
    if receive == "forced" and mode != "forced":
        raise ProcessModelError(f"forced receive steps are not sound for this automaton: {why}")
    m.forced = mode == "forced"
    m.forced_why, m.lazy_why = (why, "") if m.forced else ("", why)
    bound = 2 * procs + 2 * max(parameters.values(), default=0) + 2
    int_type = "byte" if bound < 255 else "short"
    for msg in rta.messages:
        m.shared.append({"type": int_type, "name": f"nsnt_{msg.name}",
                         "comment": f"how many modelled processes sent {msg.name}"})
        if partial:
            m.shared.append({"type": int_type, "name": f"nsntf_{msg.name}",
                             "comment": f"sends of {msg.name} by processes that crashed while sending"})
        m.received.append({"type": int_type, "name": f"nrcvd_{msg.name}",
                           "comment": f"how many {msg.name} each process has received"})
    if crash:
        m.crash = True
        m.crash_bound = pm(crash)
        m.shared.append({"type": "byte", "name": "ncrashed", "comment": "processes crashed so far"})
    caps = saturation(rta, parameters, set(kinds))
    # receives
    for msg in rta.messages:
        correct = f"nsnt_{msg.name}" + (f" + nsntf_{msg.name}" if partial else "")
        if msg.name in kinds:
            members = [x for x, k in kinds.items() if k == kinds[msg.name]]
            excess = " + ".join(
                f"(nrcvd_{x}[_pid] > nsnt_{x}{' + nsntf_' + x if partial else ''} -> "
                f"nrcvd_{x}[_pid] - nsnt_{x}{' - nsntf_' + x if partial else ''} : 0)" for x in members)
            guard = f"(nrcvd_{msg.name}[_pid] < {correct} || {excess} < {pm(byz)})"
        elif byz:
            guard = f"nrcvd_{msg.name}[_pid] < {correct} + {pm(byz)}"
        else:
            guard = f"nrcvd_{msg.name}[_pid] < {correct}"
        if msg.name in caps:
            guard = f"nrcvd_{msg.name}[_pid] < {caps[msg.name]} && {guard}"
        m.receives.append({"name": f"nrcvd_{msg.name}", "message": msg.name,
                           "guard": (f"st[_pid] != L_crashed && {guard}" if crash else guard),
                           "cap": caps.get(msg.name)})
    if not crash:
        m.crashed = "255"  # never a location: `st[_pid] != 255` always holds
    # rules (the receive automaton's self-loops are the `else`)
    rule_names = {**{p: pm(p) for p in rta.parameters},
                  **{received(m.name).name: f"nrcvd_{m.name}[_pid]" for m in rta.messages}}
    for r in rta.rules:
        if r.is_self_loop and not r.sends:
            continue
        guard = f"st[_pid] == {state(r.source)}"
        if r.guard != BoolConst(True):
            guard += f" && ({promela(r.guard, _mapped(r.guard, rule_names, f'rule {r.id}'))})"
        text = r.origin.describe() if r.origin else f"{r.source} -> {r.target}"
        m.rules.append({"id": r.id, "guard": guard, "target": state(r.target),
                        "sends": [f"nsnt_{s}" for s in r.sends], "text": text.replace("*/", "* /"),
                        "crash_sends": [f"nsntf_{s}" for s in r.sends] if partial and r.sends else []})
    # counters and properties
    for loc in rta.locations:
        terms = " + ".join(f"(st[{k}] == {state(loc.name)})" for k in range(procs))
        m.counters.append({"name": counter(loc.name), "expr": terms})
    if crash:
        terms = " + ".join(f"(st[{k}] == L_crashed)" for k in range(procs))
        m.counters.append({"name": counter(CRASH_LOCATION), "expr": terms})
    transit = []
    for msg in rta.messages:
        guaranteed = f"nsnt_{msg.name}"
        lag = f" + {pm(fparams[0])}" if model is FaultModel.OMISSION else ""
        who = [k for k in range(procs)]
        cap = caps.get(msg.name)
        # every receiver counts, the faulty ones too: send omission loses sends, not receives
        cond = " || ".join(
            f"({'st[' + str(k) + '] != L_crashed && ' if crash else ''}"
            f"nrcvd_{msg.name}[{k}]{lag} < {guaranteed}"
            f"{f' && nrcvd_{msg.name}[{k}] < {cap}' if cap is not None else ''})" for k in who)
        m.defines.append({"name": f"in_transit_{msg.name}", "expr": cond})
        transit.append(f"[]<>(!in_transit_{msg.name})")
    spec_names = {**{p: pm(p) for p in rta.parameters},
                  **{loc.name: counter(loc.name) for loc in rta.locations}}
    if crash:
        spec_names.update({CRASH_LOCATION: counter(CRASH_LOCATION), "ncrashed": "ncrashed"})
    fair = justice_name(rta)
    ltl_name = ltl_names(rta)
    chosen = [p for p in rta.properties if not properties or p.name in properties]
    # One property whose premise sets initial locations to zero: only the others are chosen.
    restriction = initial_restriction(chosen[0].formula, rta) if len(chosen) == 1 else None
    starts = rta.initial
    if restriction is not None:
        starts = tuple(x for x in rta.initial if x not in restriction.excluded)
        m.restricted = " or ".join(starts) + f" (the premise {_plain(restriction.premise)})"
    m.choices = _choices([state(x) for x in starts], partition)
    for prop in chosen:
        if any(n.name == fair for n in names(prop.formula)):
            raise ProcessModelError(f"{prop.name}: names the translation's justice '{fair}', which "
                                    "the process model replaces by its own fairness")
        liveness = _is_liveness(prop.formula)
        formula = restriction.conclusion if restriction is not None else prop.formula
        # read from the first configuration with every initial location chosen: [](initialized
        # -> g), <>(initialized && g), (!initialized U (initialized && p)) for a state formula p
        # outside every temporal operator (SPIN's claim also sees the states before)
        ltl = ltl_from_initial(formula, _mapped(prop.formula, spec_names, prop.name))
        if liveness and transit:
            ltl = f"({' && '.join(transit)}) -> ({ltl})"
        m.properties.append({"name": ltl_name[prop.name], "ltl": ltl, "fair": liveness,
                             "text": (prop.origin.describe() if prop.origin else _plain(prop.formula))
                             .replace("*/", "* /")})
    return render("promela/process.pml.j2", m=m), mode


def _choices(locations: list[str], partition: bool) -> list[dict]:
    """Each process's choice of an initial location; with ``partition``, never one listed before
    the previous process's (the processes start sorted: one start per integer partition)."""
    out = []
    for j, loc in enumerate(locations):
        guard = ""
        if partition and j < len(locations) - 1:
            earlier = " || ".join(f"st[_pid - 1] == {x}" for x in locations[:j + 1])
            guard = f"(_pid == 0 || {earlier}) -> "
        out.append({"guard": guard, "location": loc})
    return out


def saturation(rta: ReceiveTA, parameters: dict[str, int], in_kinds: set[str]) -> dict[str, int]:
    """Per message type M whose receive count the guards only compare with constants at these
    parameters (``received(M) >= k``, alone in its comparison, M in no kind), the count from
    which all guards answer the same: receiving more changes nothing a process can observe, so
    ``nrcvd_M`` stops there (and fairness asks for no more). Shrinks the state space by the
    receives beyond every threshold; other message types are not capped."""
    caps: dict[str, int] = {}
    excluded = set(in_kinds)
    for r in rta.rules:
        for atom in _walk(r.guard):
            if not isinstance(atom, Compare):
                continue
            counts = [received_message(n.name) for n in names(atom) if received_message(n.name)]
            if not counts:
                continue
            if len(set(counts)) > 1:
                excluded.update(counts)
                continue
            try:
                lin = normalize(Compare(atom.op, _fix(atom.left, parameters), _fix(atom.right, parameters)))
            except (NonLinearError, KeyError, TypeError):
                excluded.update(counts)
                continue
            if isinstance(lin, bool) or len(lin.coeffs) != 1:
                continue
            (_, a), bound, op = lin.coeffs[0], lin.bound, lin.op
            # a·x op bound (op >=, ==, !=): x >= ⌈bound/a⌉ for a > 0 and >=; otherwise the
            # truth changes at most up to |bound / a| + 1
            limit = max(0, -(-bound // a)) if op == ">=" and a > 0 else abs(bound) // abs(a) + 1
            caps[counts[0]] = max(caps.get(counts[0], 0), limit)
    return {m: c for m, c in caps.items() if m not in excluded}


def _fix(e: Expr, parameters: dict[str, int]) -> Expr:
    return substitute(e, {p: IntConst(v) for p, v in parameters.items()})


def _env_text(model: FaultModel, byz: str | None, crash: str | None) -> str:
    parts = []
    if byz:
        parts.append(f"up to {byz} more than the modelled senders sent, shared within a kind")
    if model in PARTIAL_SENDS:
        parts.append("the sends of crashing processes may reach some receivers only")
    if not parts:
        parts.append("at most what was sent")
    return "; ".join(parts)


def _is_liveness(formula: Expr) -> bool:
    """Whether the specification needs fairness: it has an eventually (in negation normal form
    under the spec's polarity a <> stays a liveness obligation) — conservatively, any <>."""
    return any(isinstance(n, Eventually) for n in _walk(formula))


def _walk(e: Expr):
    return walk(e)


def _plain(e: Expr) -> str:
    return to_text(e)


def _mapped(e: Expr, table: dict[str, str], where: str) -> dict[str, str]:
    """``table``, after checking that it names everything ``e`` mentions."""
    missing = sorted({n.name for n in names(e)} - set(table))
    if missing:
        raise ProcessModelError(f"{where}: '{missing[0]}' is not a location, receive count or "
                                "parameter of the process model")
    return table
