"""Sets over a finite domain and the choice among qualifying quorums, for the parse pass.

``passes/alg_to_rta/extract.py`` extracts control states from pseudocode; this module gives it the meaning of
the set constructs (``docs/alg.md``, "Sets and quorum choice"), kept apart so that the
extraction itself stays one concern:

* A **set-valued variable** ``W: set of {0, 1}`` is a variable like any other whose values are
  the subsets of its element domain, each kept as one string (``ir.alg.encode_set``: ``{0,1}``,
  ``{}``) — so a set is part of the location (FloodSet's ``W0``, ``W1``, ``W01``) and every
  operation is a concrete computation on the location's values: ``∪ ∩ ∖``, ``x ∈ S``, ``|S|``,
  ``min``/``max`` in the element domain's order, set literals, ``==``/``!=`` as sets.
* A **set-builder** ``{w : C(w)}`` is the set of values whose condition holds. ``C`` reads
  received counts, so it is symbolic: the step forks per value on ``C(w)`` exactly as
  ``if C(w)`` would, and each fork knows its set (bound under the builder's position, so that
  a statement executed again in the same step — a later pass of an event loop — reuses it).
* ``for each w in S: …`` runs its body once per element of ``S``'s value when the loop starts,
  in the element domain's order: a bounded iteration (``S`` is finite), compiled by unrolling
  over the element domain with a membership test per element.
* **Quorum choice** ``… for some nonempty vals ⊆ S``: the placeholder ranges over the (nonempty)
  subsets of ``S``'s current value; as for ``for some w``, the process may continue with any
  subset whose condition holds (the paper's ∃vals). A message pattern whose payload is a set,
  ``received (AUX, vals) from K processes``, counts the processes that sent any of its values:
  the sum of the instances' counts, like ``(AUX, *)`` restricted to ``vals``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Span


@dataclass
class SetFail(Exception):
    """An input problem of a set construct, at its position (reported as the parse pass's)."""

    message: str
    span: Span | None


def builder_key(b: A.SetBuilder) -> str:
    """Where a step keeps a set-builder's value (braces: never a placeholder's name)."""
    s = b.span
    return "{" + (f"{s.line}:{s.col}" if s else str(id(b))) + "}"


def each_key(s: A.ForEach) -> str:
    """Where a step keeps the value a ``for each`` iterates over."""
    sp = s.span
    return "{each " + (f"{sp.line}:{sp.col}" if sp else str(id(s))) + "}"


# ================================================================================ static typing

def subset_placeholders(program) -> dict[str, A.Term]:
    """``vals`` → ``bin_values`` for every ``for some vals ⊆ bin_values`` in the program."""
    out: dict[str, A.Term] = {}
    stack = list(program)
    while stack:
        s = stack.pop()
        if isinstance(s, A.Wait) and s.subset_of is not None and s.placeholder:
            out[s.placeholder] = s.subset_of
        elif isinstance(s, A.If):
            for b in s.branches:
                if b.subset_of is not None and b.placeholder:
                    out[b.placeholder] = b.subset_of
                stack.extend(b.body)
            stack.extend(s.orelse or ())
        elif isinstance(s, (A.Loop, A.Round, A.ForEach)):
            stack.extend(s.body)
    return out


def elements_of(ctx, t, depth: int = 0) -> tuple[str, ...] | None:
    """The element domain of a set term, or None when ``t`` is not (known to be) a set."""
    if depth > 50:
        return None
    if isinstance(t, A.Ref):
        v = ctx.variables.get(t.name)
        if v is not None:
            return v.elements
        source = subset_placeholders(ctx.alg.program).get(t.name)
        return elements_of(ctx, source, depth + 1) if source is not None else None
    if isinstance(t, A.SetBuilder):
        return payload_domain(ctx, t.cond, t.placeholder)
    if isinstance(t, A.SetOp):
        out: list[str] = []
        for a in t.args:
            for e in elements_of(ctx, a, depth + 1) or ():
                if e not in out:
                    out.append(e)
        return tuple(out) if out or any(_is_set(a) for a in t.args) else None
    if isinstance(t, A.SetLit):  # the values its elements can take
        out = []
        for e in t.elements:
            for v in _values_of(ctx, e):
                if v not in out:
                    out.append(v)
        return tuple(out)
    return None


def _values_of(ctx, e) -> tuple[str, ...]:
    """The values an element of a set literal can take (a constant, a variable's domain; a
    placeholder's is not known here, so every value the algorithm mentions)."""
    if isinstance(e, A.Num):
        return (str(e.value),)
    if isinstance(e, A.Const):
        return (e.value,)
    if isinstance(e, A.Ref):
        if e.name in ctx.variables:
            return ctx.variables[e.name].domain
        if e.name in ctx.symbols:
            return (e.name,)
    return _order(ctx)


def _is_set(t) -> bool:
    return isinstance(t, (A.SetLit, A.SetOp, A.SetBuilder))


def payload_domain(ctx, cond, w: str) -> tuple[str, ...] | None:
    """The values ``w`` ranges over where it stands in a message payload of ``cond``."""
    out: list[str] = []
    for x in A.walk(cond):
        if isinstance(x, A.Pattern) and x.parts:
            for i, p in enumerate(x.parts):
                if isinstance(p, A.Ref) and p.name == w:
                    for shape in ctx.alg.messages:
                        if shape.name == x.name and len(shape.parts) == len(x.parts) \
                                and not shape.tags[i]:
                            out.extend(v for v in shape.parts[i] if v not in out)
    return tuple(out) or None


def set_placeholder_domain(ctx, cond, w: str) -> tuple[str, ...] | None:
    """``if vals == {w} for some w`` / ``if w ∈ S for some w``: ``w`` ranges over the element
    domain of the set it is compared with or tested against (None: it stands in no set)."""
    out: list[str] = []

    def add(values) -> None:
        out.extend(v for v in values or () if v not in out)

    for x in A.walk(cond):
        if isinstance(x, A.Member) and isinstance(x.elem, A.Ref) and x.elem.name == w:
            add(elements_of(ctx, x.set))
        elif isinstance(x, A.Compare):
            holders = [t for t in x.terms if any(isinstance(y, A.Ref) and y.name == w
                                                 for y in A.walk(t) if isinstance(t, A.SetLit))]
            if holders:
                for t in x.terms:
                    add(elements_of(ctx, t))
    return tuple(out) or None


def check_for_each(ctx, s: A.ForEach) -> tuple[str, ...]:
    """The element domain a ``for each`` unrolls over; refuses what it cannot iterate."""
    elements = elements_of(ctx, s.set)
    if not elements:
        raise SetFail(f"'for each {s.var} in …' iterates over a set (a 'set of …' variable, a "
                      "set-builder, or a union/intersection of sets): this is not one",
                      getattr(s.set, "span", None) or s.span)
    if s.var in ctx.variables or s.var in ctx.parameters:
        raise SetFail(f"'for each {s.var}': '{s.var}' has the name of a variable or parameter; "
                      "the loop's name is bound to each element", s.span)
    stack = list(s.body)
    while stack:
        x = stack.pop()
        if isinstance(x, A.Wait):
            raise SetFail("'wait' inside 'for each': an iteration over a set runs within one "
                          "step (it receives nothing); wait before or after the loop", x.span)
        if isinstance(x, (A.Loop, A.Round, A.NextRound)):
            raise SetFail("'for each' may contain assignments, sends, decisions and 'if': "
                          "no loop, round or 'next round'", x.span)
        if isinstance(x, A.If):
            for b in x.branches:
                stack.extend(b.body)
            stack.extend(x.orelse or ())
        elif isinstance(x, A.ForEach):
            stack.extend(x.body)
    return elements


# ================================================================================ evaluation

def is_set_term(t) -> bool:
    return isinstance(t, (A.SetLit, A.SetOp, A.SetBuilder, A.Card, A.MinMax))


def value(ev, t, th) -> str:
    """The concrete value of a set construct: an encoded set, an element (min/max) or a number
    (``|S|``)."""
    if isinstance(t, A.SetLit):
        return A.encode_set([ev.value(e, th) for e in t.elements], _order(ev.ctx))
    if isinstance(t, A.SetBuilder):
        key = builder_key(t)
        if key not in th.bindings:
            raise SetFail("a set-builder '{w : …}' stands in an assignment, an 'if'/'upon' "
                          "condition or a 'for each' (its values are decided where the step "
                          "reads the received messages)", t.span)
        return th.bindings[key]
    if isinstance(t, A.SetOp):
        a, b = (members(ev, x, th) for x in t.args)
        result = {"union": a | b, "intersect": a & b, "minus": a - b}[t.op]
        return A.encode_set(result, _order(ev.ctx))
    if isinstance(t, A.Card):
        return str(len(members(ev, t.arg, th)))
    if isinstance(t, A.MinMax):
        got = members(ev, t.arg, th)
        order = elements_of(ev.ctx, t.arg) or _order(ev.ctx)
        ranked = [e for e in order if e in got]
        if not ranked:
            raise SetFail(f"{t.kind} of an empty set on this path (test '{_text(t.arg)} != ∅' "
                          "first)", t.span)
        return ranked[0] if t.kind == "min" else ranked[-1]
    raise AssertionError(t)  # pragma: no cover - is_set_term guards the call


def members(ev, t, th) -> set[str]:
    v = ev.value(t, th)
    got = A.decode_set(v)
    if got is None:
        raise SetFail(f"'{_text(t)}' is not a set (its value here is {v}): set operations, "
                      "'∈' and '|…|' take sets", getattr(t, "span", None))
    return set(got)


def _text(t) -> str:
    return t.name if isinstance(t, A.Ref) else "…"


def _order(ctx) -> tuple[str, ...]:
    """One order of every value the algorithm mentions: set literals are encoded in it."""
    cached = getattr(ctx, "_set_order", None)
    if cached is not None:
        return cached
    out: list[str] = []
    for v in ctx.alg.variables:
        out.extend(x for x in (v.elements or v.domain) if x not in out)
    for m in ctx.alg.messages:
        for part in m.parts:
            out.extend(x for x in part if x not in out)
    ctx._set_order = tuple(out)
    return ctx._set_order


def canonical(value: str, variable: A.Variable) -> str:
    """A set value re-encoded in a variable's element order (as its domain lists it)."""
    got = A.decode_set(value)
    if got is None or variable.elements is None:
        return value
    return A.encode_set(got, variable.elements)


def member(ev, c: A.Member, th) -> bool:
    return (ev.value(c.elem, th) in members(ev, c.set, th)) != c.negated


def local_compare(op: str, a, b, va: str, vb: str, span) -> bool | None:
    """A comparison of the terms ``a``, ``b`` with the concrete values ``va``, ``vb`` involving
    sets (as sets) or a cardinality (as numbers: ``|S| >= 2``); None when neither is involved and
    the plain equality of values applies."""
    sa, sb = A.decode_set(va), A.decode_set(vb)
    if sa is not None or sb is not None:
        if op not in ("==", "!="):
            raise SetFail("sets are compared with == and != only", span)
        return (sa is not None and sb is not None and set(sa) == set(sb)) == (op == "==")
    card = isinstance(a, A.Card) or isinstance(b, A.Card)
    if card and op in ("<", "<=", ">", ">=") and _int(va) is not None and _int(vb) is not None:
        a, b = _int(va), _int(vb)
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return None


def _int(v: str) -> int | None:
    return int(v) if v.lstrip("-").isdigit() else None


def match_payload(wanted: str, actual: str) -> bool:
    """A pattern's payload part against a message type's: a set matches any of its values."""
    got = A.decode_set(wanted)
    return actual in got if got is not None else wanted == actual


def check_send(ev, p: A.Pattern, th) -> None:
    """A send names one message: a set payload is refused with what to write instead."""
    for part in p.parts or ():
        if isinstance(part, str):
            continue
        if A.decode_set(ev.value(part, th)) is not None:
            name = part.name if isinstance(part, A.Ref) else "S"
            raise SetFail(f"a send names one message, and '{_text(part)}' is a set: send one "
                          f"message per value, 'for each w in {name}: send ({p.name}, w) to all'",
                          getattr(part, "span", None) or p.span)


# ================================================================================ forking

def builders(node) -> list[A.SetBuilder]:
    """The set-builders a statement or condition evaluates."""
    out = []
    for x in A.walk(node):
        if isinstance(x, A.SetBuilder):
            out.append(x)
    return out


def statement_terms(s) -> list:
    """What a statement evaluates (for set-builders to be decided before it runs)."""
    if isinstance(s, A.Assign):
        return [s.value]
    if isinstance(s, A.Branch):
        return [s.cond]
    if isinstance(s, A.Send):
        return [s.pattern]
    if isinstance(s, A.Decide):
        return [s.value]
    if isinstance(s, A.ForEach):
        return [s.set]
    return []


_BUILDERS: dict[int, tuple[object, tuple[A.SetBuilder, ...]]] = {}


def statement_builders(s) -> tuple[A.SetBuilder, ...]:
    """The set-builders statement ``s`` evaluates, remembered per statement object (the
    extraction asks at every instruction it executes; most statements have none)."""
    hit = _BUILDERS.get(id(s))
    if hit is None or hit[0] is not s:
        if len(_BUILDERS) > 10_000:  # a long-running process parses many programs
            _BUILDERS.clear()
        hit = _BUILDERS[id(s)] = (s, tuple(b for x in statement_terms(s) for b in builders(x)))
    return hit[1]


def unresolved(th, s) -> bool:
    """Whether ``s`` evaluates a set-builder this step has not decided yet."""
    return any(builder_key(b) not in th.bindings for b in statement_builders(s))


def resolve_builders(explorer, th, s) -> list:
    """Fork ``th`` on the set-builders ``s`` evaluates: one thread per feasible combination of
    which values' conditions hold, each with the resulting sets bound."""
    threads = [th]
    for term in statement_terms(s):
        for b in builders(term):
            key = builder_key(b)
            if key in th.bindings:
                continue
            domain = payload_domain(explorer.ctx, b.cond, b.placeholder)
            if domain is None:
                raise SetFail(f"'{{{b.placeholder} : …}}': '{b.placeholder}' must stand in a "
                              "message payload of the condition, e.g. "
                              f"'{{{b.placeholder} : received (M, {b.placeholder}) from at least "
                              "1 process}'", b.span)
            if b.placeholder in explorer.ctx.variables or b.placeholder in explorer.ctx.parameters:
                raise SetFail(f"placeholder '{b.placeholder}' has the name of a variable or "
                              "parameter", b.span)
            nxt = []
            for t in threads:
                partial = [(t, [])]
                for v in domain:
                    probe = t.fork()
                    probe.bindings[b.placeholder] = v
                    cond = explorer.ev.cond(b.cond, probe)
                    grown = []
                    for u, chosen in partial:
                        for forked, ok in explorer.decide(u, cond):
                            grown.append((forked, chosen + [v] if ok else chosen))
                    partial = grown
                for u, chosen in partial:
                    u.bindings[key] = A.encode_set(chosen, domain)
                    nxt.append(u)
            threads = nxt
    return threads


def subset_domain(ev, branch, th) -> tuple[str, ...]:
    """``for some nonempty vals ⊆ S``: the subsets of ``S``'s value on this path."""
    got = A.decode_set(ev.value(branch.subset_of, th))
    if got is None:
        raise SetFail(f"'for some {branch.placeholder} ⊆ …' chooses a subset of a set: "
                      f"'{_text(branch.subset_of)}' is not one",
                      getattr(branch.subset_of, "span", None) or branch.span)
    if branch.placeholder in ev.ctx.variables or branch.placeholder in ev.ctx.parameters:
        raise SetFail(f"placeholder '{branch.placeholder}' has the name of a variable or parameter",
                      branch.placeholder_span or branch.span)
    return tuple(x for x in A.subsets(got) if x != "{}" or not branch.nonempty)
