"""Crash faults of a Parametric Promela file: where its processes die, and which fault model that is.

Three shapes are read, each into tactl's crash location CR:

* the receive bound ``nrcvd <= nsnt + nsntF`` (Fisman et al.), the second counter counting the
  broadcasts of processes that die while sending (``sending_crash_location``): ``crash(F)`` for a
  new parameter ``0 <= F <= N``;
* the file's own crash counter ``C < F && ... -> C++; pc = CR`` with bounds ``nrcvd < nsnt``
  (cond-consensus2, ``file_crash_faults`` and ``file_crash_location``): ``clean_crash(F)``;
* a crash-send counter per message type (ISOLA'18's c1cs.pml, cf1s.pml), below.

The ISOLA'18 files count the crashes *and* what crashing processes may have sent, per type:

* ``nfaulty < F -> nfaulty++; next_pc = CR`` — at most F processes crash, at any location, between
  steps (the file's own crash counter, ``file_crash`` of the state);
* ``pc == V0 && next_pc == CR -> nsnt0F++`` — a process that crashes where its next step would
  broadcast (V0 sends its 0 vote) may have sent that message to some receivers: the receive bound
  of the type is ``nsnt0 + nsnt0F`` (correct sends plus crashed mid-send ones), and the fairness
  ``in_transit0 = some(Proc:nrcvd0 < nsnt0)`` guarantees only the complete sends.

That is tactl's ``crash(F)`` (``passes/rta_to_ta/env.py``: ``rcv <= ns_M + nsf_M``, guaranteed ``ns_M``)
for the file's F, with CR as tactl's crash location, exactly when (``crash_location``):

* every crash step enters one location CR, which nothing else enters and nothing leaves (a crash
  step from CR to CR, c1cs's crashed process "crashing again", only spends the crash budget: it
  is dropped, as a run with fewer crashes);
* a crash step is possible at every other location, under ``nfaulty < F`` alone (tactl crashes
  anywhere, whatever the process received);
* a crash step increments at most one crash-send counter ``nsnt_MF``, and only at a location
  whose correct step broadcasts M without a condition; and every location with a broadcast of M
  has such a crash step (tactl lets a process crash in the middle of any broadcast: the file must
  too). A crash without the increment is tactl's silent crash (no receiver gets the message),
  which the file's increment allows as well (its receivers may get nothing).

Without the file's crash counter (nbacr: ``pc != CRASH -> next_pc = CRASH`` everywhere, the
crashes unbounded) ``unbounded_crash_location`` reads the same with a new parameter F
(``0 <= F <= N``); its crash location may be several valuations of the process's other local
variables (nbacr's failure-detector bit), which become the one CR where no proposition the
properties use tells them apart, else crash locations that keep what the properties read
(``crash_copies.py``, which also reads a crashed process's steps between them).

Where the file's crash steps send a partial message no correct step at their location
broadcasts (nbacg's crash at a suspicious NO sends No; c1cs's ``-D BUG1``), the crash rules are the
file's own crash steps instead (``partial.py``, ``crash_copies.py``); a copy count ``N - F`` with
the file's crash counter is ``running.py``'s. Anything else is refused at the receive bound.
"""

from __future__ import annotations

from tactl.ir.errors import Diagnostic, Severity
from tactl.ir.expr import Name, conj, names
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import Faults, FaultModel
from tactl.passes.pml_to_rta import crash_copies, expressions, solving
from tactl.passes.pml_to_rta.state import TranslationState
from tactl.passes.pml_to_rta.values import CRASH_SEND, CRASH_SYMBOL, FILE_CRASH, expr_names, refuse
from tactl.passes.pml_to_rta import partial, running


def crash_counters(tr, dynamic, in_transit) -> dict[str, str] | None:
    """{crash-send counter: message counter} when every receive bound of ``dynamic`` reads
    ``nsnt_M + nsnt_MF`` (two send counters, coefficient 1, nothing else) and ``in_transit(rcv)``
    names ``nsnt_M``; None when none does; refused when only some do."""
    pairs: dict[str, str] = {}
    for r in dynamic:
        cs = [n for n in r.lin if n in tr.shared]
        if not (len(cs) == 2 and len(r.lin) == 2 and all(r.lin[c] == 1 for c in cs)):
            if pairs or r is not dynamic[0]:
                raise refuse("crash-send counters ('nsnt + nsntF') bound some receive variables "
                             "but not this one", r.bound.span)
            return None
        guaranteed = in_transit(r.rcv)
        if guaranteed not in cs:
            raise refuse("a receive bound over two send counters needs a proposition "
                         f"'some(Proc:{r.rcv} < c)' naming the counter whose messages are "
                         "delivered (crash faults)", r.bound.span)
        crash = next(c for c in cs if c != guaranteed)
        if crash in pairs or guaranteed in pairs.values():
            raise refuse(f"'{crash}' or '{guaranteed}' bounds two receive variables", r.bound.span)
        pairs[crash] = guaranteed
        r.counter = guaranteed
    return pairs


def crash_location(tr, edges, file_crash: str, crash_send: str, file_marker: str, symbol) -> list:
    """The edges without the crash steps, CR found (``tr.dead``), or a refusal (module docstring).
    ``crash_send``: the prefix of the markers ``f"{crash_send}:{M}"`` a crash-send counter's
    increment puts in a path's sends; ``file_marker``: the file crash counter's marker."""
    span = tr.bound.span
    dying = [(s, t, p) for s, t, p in edges if file_marker in p.sends]
    # a crashed process "crashing again" (c1cs's `nfaulty < F` has no `pc != CR`) only spends
    # the crash budget, which no other step reads: tactl's crash(F) bounds crashes from above,
    # so such a run is one with fewer crashes; the step is dropped
    again = {t for s, t, p in dying if s == t and p.sends == [file_marker]}
    dying = [(s, t, p) for s, t, p in dying if not (s == t and s in again and p.sends == [file_marker])]
    edges = [(s, t, p) for s, t, p in edges if not (s == t and s in again and p.sends == [file_marker])]
    others = [(s, t, p) for s, t, p in edges if file_marker not in p.sends]
    targets = {t for _, t, _ in dying}
    if len(targets) != 1:
        raise refuse(f"the '{file_crash}++' steps must all enter one location (the crashed one)", span)
    dead = next(iter(targets))
    if any(t == dead for _, t, _ in others) or any(s == dead for s, _, _ in edges):
        raise refuse("the location entered by crash steps must be entered by nothing else and never "
                     "left", span)
    if any(x.startswith(crash_send) for _, _, p in others for x in p.sends):
        raise refuse("a crash-send counter ('nsntF++') is incremented by a step that does not "
                     f"crash ('{file_crash}++')", span)
    for s, _, p in dying:
        rest = [c for c in p.cond if symbol not in {n.name for n in names(c)}]
        if rest and not solving.valid(tr, conj(*rest)):
            raise refuse(f"a crash step ('{file_crash}++') must be possible whatever the process "
                         "received", span)
    if partial.uncut(tr, dying, others, crash_send, span):  # the file's crash steps are the crash rules
        bound = file_crash_parameter(tr)
        crash_copies.keep(tr, dying, [], [[dead]], span,
                          faults=f"crash({bound}): at most that many processes stop ('{file_crash} < {bound}')")
        return others
    _partial_sends(tr, dying, others, {dead}, crash_send, {file_marker}, span)
    tr.file_crash_paths = list(dying)  # the file's own crash steps, for its fairness (crash_readings.py)
    meaning = ", ".join(f"{v} = {x}" for v, x in zip(tr.loc_vars(), dead))
    become_crash_location(tr, [dead], f"the location with {meaning}, entered by '{file_crash}++' under "
                          f"'{file_crash} < {file_crash_parameter(tr)}', is",
                          f"crash({file_crash_parameter(tr)}): at most that many processes stop, at any "
                          "location; " + _cut_short(tr), span)
    return others




def unbounded_crash_location(tr, edges, crash_send: str) -> list:
    """nbacr's and nbacg's crashes: no crash counter of the file (``pc != CRASH -> next_pc =
    CRASH`` at every location), crash-send counters for several message types. The crash
    location is every valuation the crash steps give the variables they all change (``pc =
    CRASH``), whatever the others (nbacr's failure-detector bit ``some_fail`` is 0 or 1 there):
    tactl's one crash location CR where no property tells those valuations apart (``tr.dead_all``),
    else crash locations that keep what the properties read (``crash_copies.py``, which also reads
    the steps a crashed process may still take). The rest is ``crash_location``'s conditions: CR
    entered by crash steps only and never left, a crash possible everywhere whatever was
    received, crash-send counters exactly at unconditional broadcasts. The number of crashes is
    bounded by nothing in the file: ``crash(F)`` with a new parameter ``0 <= F <= N``
    (``faults.fault_model``)."""
    span = tr.bound.span
    lv = tr.loc_vars()
    marked = [(s, t, p) for s, t, p in edges if any(x.startswith(crash_send) for x in p.sends)]
    if not marked:
        raise refuse("no step increments a crash-send counter", span)
    changed = [i for i in range(len(lv)) if all(s[i] != t[i] for s, t, _ in marked)]
    values = {tuple(t[i] for i in changed) for _, t, _ in marked}
    if not changed or len(values) != 1:
        raise refuse("the crash steps ('nsntF++') must all give the variables they change one "
                     "value (the crash location)", span)
    key = next(iter(values))
    dead = [v for v in tr.valuations if tuple(v[i] for i in changed) == key]
    edges, moves = crash_copies.split_moves(tr, edges, dead, span)
    dying = [(s, t, p) for s, t, p in edges if t in dead]
    others = [(s, t, p) for s, t, p in edges if t not in dead]
    if any(x.startswith(crash_send) for _, _, p in others for x in p.sends):
        raise refuse("a crash-send counter is incremented by a step that does not crash", span)
    for s, _, p in dying:
        if p.cond and not solving.valid(tr, conj(*p.cond)):
            raise refuse("a crash step must be possible whatever the process received", span)
    groups = crash_copies.classes(tr, dead)
    # the properties tell crashed processes apart, or the file's crash steps send partial
    # messages tactl's crash rules would not (partial.py): the file's crash steps are the crash rules
    uncut = partial.uncut(tr, dying, others, crash_send, span)
    if len(groups) > 1 or uncut:
        crash_copies.keep(tr, dying, moves, groups, span)
        return others
    _partial_sends(tr, dying, others, set(dead), crash_send, set(), span)
    meaning = ", ".join(f"{lv[i]} = {k}" for i, k in zip(changed, key))
    become_crash_location(tr, dead, f"the locations with {meaning} ({len(dead)} valuation(s) of the "
                          "other local variables), entered by every crash step, are",
                          "crash(F) with a new parameter 0 <= F <= N (the file bounds no crash count): "
                          "a process may stop at any location; " + _cut_short(tr), span)
    tr.dead_all = tuple(dead)
    return others


def become_crash_location(tr, dead: list[tuple], where: str, model: str, span) -> None:
    """Make the valuations ``dead`` tactl's crash location CR (the state's ``dead``, no
    longer a location of their own) and say so in one note: which locations, and the fault model
    they give (``where`` ends in 'is'/'are'). The one place every crash reading ends."""
    tr.dead = dead[0]
    for d in dead:
        tr.valuations.remove(d)
    tr.notes.append(Diagnostic(Severity.WARNING, f"crash faults: {where} tactl's crash location CR; "
                               f"faults {model}", span))


def _cut_short(tr) -> str:
    return ("a broadcast cut short reaches some receivers (the file's " +
            ", ".join(f"'{c}'" for c in tr.crash_of) + ")")


def _partial_sends(tr, dying, others, dead: set, crash_send: str, ignore: set, span) -> None:
    """What both readings require of the crash steps' sends (module docstring): at most one
    crash-send counter per crash step (besides the markers ``ignore``), incremented only where a
    correct step from the same location broadcasts its message unconditionally; every broadcast
    has its crash in the middle; and a crash is possible at every location but the ``dead`` ones."""
    for s, _, p in dying:
        extra = [x for x in p.sends if x not in ignore]
        if len(extra) > 1 or any(not x.startswith(crash_send) for x in extra):
            raise refuse("a crash step may send on one crash-send counter only", span)
        for x in extra:
            m = x[len(crash_send) + 1:]
            if not any(s2 == s and q.sends == [m] and not q.cond for s2, _, q in others):
                raise refuse(f"a crash step at a location whose correct step does not broadcast "
                             f"'{m}' unconditionally increments its crash-send counter: tactl's "
                             "crash model has no such partial message", span)
    for s, _, p in others:
        for m in p.sends:
            if not any(s2 == s and f"{crash_send}:{m}" in q.sends for s2, _, q in dying):
                raise refuse(f"a broadcast of '{m}' whose sender cannot crash in the middle of it: "
                             "tactl's crash model lets it", span)
    missing = [v for v in tr.valuations if v not in dead and not any(s == v for s, _, _ in dying)]
    if missing:
        raise refuse(f"tactl's crashes may happen at every location; the file's cannot at {missing}", span)


def sending_crash_location(tr: TranslationState, edges):
    """Crash faults: the location every ``nsntF++`` step enters (DH, dead) becomes tactl's
    crash location CR, and those steps the crash-while-sending rules the translation adds.
    That is exact only when DH is entered by nothing else, is never left, and each dying
    step mirrors a correct sending step from the same location under the same condition;
    anything else is refused."""
    dying = [(s, t, p) for s, t, p in edges if CRASH_SEND in p.sends]
    targets = {t for _, t, _ in dying}
    span = tr.bound.span
    if len(targets) != 1:
        raise refuse(f"the '{tr.crash_counter}++' steps must all enter one location (the "
                     "dead one)", span)
    dead = next(iter(targets))
    if any(t == dead and CRASH_SEND not in p.sends for _, t, p in edges) or \
            any(s == dead for s, _, _ in edges):
        raise refuse("the location entered by dying steps must be entered by nothing else and "
                     "never left", span)
    for s, _, p in dying:
        if p.sends != [CRASH_SEND]:
            raise refuse("a dying step must send on the crash counter only", span)
        twins = [q for s2, t2, q in edges if s2 == s and t2 != dead and q.sends == [tr.counter]
                 and solving.equivalent(tr, q.cond, p.cond)]
        if not twins:
            raise refuse("a dying step must mirror a correct sending step (same location, same "
                         "condition): tactl's crash model lets a process crash while sending", span)
    tr.dead = dead
    tr.valuations.remove(dead)
    lv = tr.loc_vars()
    meaning = ", ".join(f"{v} = {x}" for v, x in zip(lv, dead))
    tr.notes.append(Diagnostic(Severity.WARNING, (
        f"crash faults: the location with {meaning}, entered by '{tr.crash_counter}++', is "
        f"tactl's crash location CR; faults crash(F) with a new parameter 0 <= F <= N (the file "
        f"bounds no crash count). tactl's crash model also lets a process crash silently at any "
        f"location — more runs than the file's: a HOLDS is a proof for the file's model, a "
        f"VIOLATED run may use such a crash"), span))
    return [(s, t, p) for s, t, p in edges if t != dead]


def file_crash_faults(tr: TranslationState) -> tuple[Faults, str] | None:
    """cond-consensus2's crash: a shared counter C the step increments besides the send
    counters, on an option ``C < F && ... -> C++; pc = CR``. With N copies and bounds
    ``nrcvd < nsnt`` this is tactl's clean_crash(F): at most F processes stop between steps,
    every message they sent is delivered (``file_crash_location`` checks the rest)."""
    tr.file_crash = None
    extra = sorted({t.var for t in P.statements(tr.step) if isinstance(t, P.Incr) and t.var in tr.shared}
                   - set(tr.counters) - set(tr.crash_of))
    if not extra:
        return None
    if len(extra) > 1:
        raise refuse(f"the step increments {', '.join(extra)} besides the send counters of its "
                     "receive bounds", tr.proc.span)
    c = extra[0]
    bounds = {x.right.name for t in P.statements(tr.step) if isinstance(t, P.Condition)
              for x in P.subexpressions(t.expr) if isinstance(x, P.PBinary) and x.op == "<"
              and isinstance(x.left, P.PName) and x.left.name == c and isinstance(x.right, P.PName)}
    copies = expressions.linear(tr, tr.proc.copies)
    if len(bounds) != 1 or not bounds <= set(tr.params) or tr.bound_rest or \
            (n := running.process_count(tr, copies, next(iter(bounds)))) is None:
        raise refuse(f"'{c}++' is read as a crash counter only with N (or N - F) copies, receive "
                     f"bounds 'nrcvd < nsnt' and one guard '{c} < F' for a parameter F", tr.proc.span)
    tr.file_crash = c
    if tr.crash_of:  # and crash-send counters: tactl's crash(F) (crash.py)
        return Faults(FaultModel.CRASH, (next(iter(bounds)),)), n
    return Faults(FaultModel.CLEAN_CRASH, (next(iter(bounds)),)), n


def file_crash_location(tr: TranslationState, edges):
    """The location every ``C++`` step enters is tactl's crash location CR. Exact when those
    steps send nothing, need nothing but ``C < F``, leave every other location, and CR is
    entered by nothing else and never left; paths that read C otherwise must be stutters."""
    dying = [(s, t, p) for s, t, p in edges if FILE_CRASH in p.sends]
    targets = {t for _, t, _ in dying}
    span = tr.proc.span
    if len(targets) != 1:
        raise refuse(f"the '{tr.file_crash}++' steps must all enter one location (the crashed one)", span)
    dead = next(iter(targets))
    if any(t == dead and FILE_CRASH not in p.sends for _, t, p in edges) or any(s == dead for s, _, _ in edges):
        raise refuse("the location entered by crash steps must be entered by nothing else and "
                     "never left", span)
    symbol = Name(CRASH_SYMBOL)
    for s, _, p in dying:
        rest = [c for c in p.cond if symbol not in expr_names(c)]
        if p.sends != [FILE_CRASH] or rest and not solving.valid(tr, conj(*rest)):
            raise refuse(f"a crash step ('{tr.file_crash}++') must send nothing and be possible "
                         "whatever the process received", span)
    for s, t, p in edges:
        if FILE_CRASH not in p.sends and symbol in {n for c in p.cond for n in expr_names(c)}:
            raise refuse(f"a step that is not a crash reads '{tr.file_crash}'", span)
    missing = [v for v in tr.valuations if v != dead and not any(s == v for s, _, _ in dying)]
    if missing:
        raise refuse(f"tactl's clean crashes may happen at every location; the file's cannot at "
                     f"{missing}", span)
    meaning = ", ".join(f"{v} = {x}" for v, x in zip(tr.loc_vars(), dead))
    become_crash_location(
        tr, [dead], f"the location with {meaning}, entered by '{tr.file_crash}++' under "
        f"'{tr.file_crash} < {file_crash_parameter(tr)}', is",
        f"clean_crash({file_crash_parameter(tr)}): at most that many processes stop between "
        "steps, at any location, and every message they sent is delivered", span)
    return [(s, t, p) for s, t, p in edges if t != dead]


def file_crash_parameter(tr: TranslationState) -> str:
    return next(x.right.name for t in P.statements(tr.step) if isinstance(t, P.Condition)
                for x in P.subexpressions(t.expr) if isinstance(x, P.PBinary) and x.op == "<"
                and isinstance(x.left, P.PName) and x.left.name == tr.file_crash)
