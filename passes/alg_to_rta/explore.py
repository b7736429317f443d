"""Exploring the steps: from each location, every way one step can go (:class:`Explorer`).

**One step** (one rule) is: receive some messages, then compute and send without receiving
more — from a stop point to the next stop point. Its guard is the conjunction of the receive
conditions the computation evaluated (true or false); receive counts stay symbolic, local
variables are concrete. Concretely, from a stop point:

* at ``wait until C``: if ``C`` fails, nothing changes (the process keeps waiting); else the code
  after it runs up to the next stop point;
* at a loop head: the loop body runs repeatedly, with the same received messages, until one
  pass changes nothing (*quiescence*: local computation takes no time, so a process that
  receives ``n - t`` ECHOs at once both relays and accepts, as in every hand-made STRB model);
  a body that never becomes quiescent is an error;
* at the end: nothing changes.

Paths whose receive conditions contradict each other under the resilience condition are pruned
with z3 (guards.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from tactl.ir.alg import syntax as A
from tactl.ir.expr import And, BoolConst, Expr, Not, Or, to_text
from tactl.util.suggest import did_you_mean

from tactl.passes.alg_to_rta import sets as S
from tactl.passes.alg_to_rta.context import Context, fail
from tactl.passes.alg_to_rta.evaluate import Evaluator, Thread
from tactl.passes.alg_to_rta.guards import Solver
from tactl.passes.alg_to_rta.instructions import SENT, Instr
from tactl.passes.alg_to_rta.thresholds import negate


@dataclass
class Outcome:
    target_pc: int
    state: tuple
    sends: tuple[str, ...]
    literals: dict[str, tuple[Expr, bool]]
    lines: list[int]
    choice: str | None = None  # the rule's mark: "coin", "oracle" (see Thread.choice)
    trail: tuple[tuple[tuple, int, int, int], ...] = ()  # see Thread.trail


class Explorer:
    def __init__(self, ctx: Context, code: list[Instr], live: list[set[str]], round_end: bool,
                 max_locations: int, max_paths: int, kept: tuple[str, ...] | None = None):
        self.ctx = ctx
        # the extraction's guard rails (extract.py's MAX_LOCATIONS, MAX_CONTROL_STATES)
        self.max_locations = max_locations
        self.max_paths = max_paths
        self.kept = kept  # crash models: the components a crashed process keeps (crash_view)
        self.code = code
        self.live = live
        self.round_end = round_end
        self.ev = Evaluator(ctx)
        self.solver = Solver(ctx)
        self.components = sorted(set(ctx.variables) | ({A.DECIDED} if ctx.decides else set())
                                 | {SENT + t.name for t in ctx.types}
                                 | ({A.COORDINATOR} if ctx.layout.coordinator_round else set()),
                                 key=self._component_order)
        self.paths = 0

    def _component_order(self, c: str) -> tuple[int, int, str]:
        names = list(self.ctx.variables)
        if c == A.COORDINATOR:  # first in a name: coord_v0 (phase king's KB0)
            return (-1, 0, c)
        if c in names:
            return (0, names.index(c), c)
        if c == A.DECIDED:
            return (1, 0, c)
        return (2, [t.name for t in self.ctx.types].index(c[len(SENT):]), c)

    def key(self, pc: int, state: dict) -> tuple:
        live = self.live[pc]
        return (pc, tuple(state.get(c) if c in live else None for c in self.components))

    def unkey(self, key: tuple) -> dict:
        _, values = key
        return {c: v for c, v in zip(self.components, values) if v is not None}

    def is_stop(self, pc: int) -> bool:
        return self.code[pc].op in ("wait", "loop_head", "end", "boundary")

    def initial(self) -> list[tuple]:
        start = 0
        choices = []
        for v in self.ctx.variables.values():
            choices.append([v.initial] if v.initial is not None else list(v.inputs or v.domain))
        # a coordinator read before any choice point is chosen among the initial locations
        choices.append(list(A.BOOL) if A.COORDINATOR in self.live[start] else [A.FALSE])
        combinations = 1
        for c in choices:
            combinations *= len(c)
        if combinations > self.max_locations:
            raise fail(f"{combinations} initial valuations of the inputs: more than "
                       f"{self.max_locations} locations (reduce the inputs or their domains)",
                       next((v.span for v in self.ctx.variables.values() if v.initial is None),
                            None))
        out = []
        for values in product(*choices):
            state: dict = dict(zip([*self.ctx.variables, A.COORDINATOR], values))
            if self.ctx.decides:
                state[A.DECIDED] = A.BOTTOM
            for t in self.ctx.types:
                state[SENT + t.name] = A.FALSE
            k = self.key(start, state)
            if k not in out:
                out.append(k)
        return out

    def step(self, key: tuple) -> list[Outcome]:
        """Every way one step can go from the location ``key``."""
        pc, _ = key
        state = self.unkey(key)
        th = Thread(pc, state)
        ins = self.code[pc]
        done: list[Outcome] = []
        work: list[Thread] = []
        if ins.op == "end":
            if self.ctx.alg.timing == "sync":
                return []
            return [Outcome(pc, key[1], (), {}, [])]
        if ins.op == "wait":
            th.line(ins.stmt.span)
            wait: A.Wait = ins.stmt
            if wait.placeholder is None:
                outcomes = self.decide(th, self.ev.cond(wait.cond, th))
            else:  # `wait until C(w) for some w`: w is bound to a value that qualifies
                holds, none = self.some_cases(th, A.Branch(
                    wait.cond, wait.placeholder, (), span=wait.span,
                    placeholder_span=wait.placeholder_span, subset_of=wait.subset_of,
                    nonempty=wait.nonempty))
                outcomes = [(b, True) for b in holds] + [(b, False) for b in none]
            for branch, value in outcomes:
                if value:
                    branch.pc = pc + 1
                    work.append(branch)
                else:
                    done.append(self.finish(branch, pc))
        elif ins.op == "loop_head":
            th.loop_seen = [tuple(sorted(th.state.items()))]
            th.pc = pc + 1
            work.append(th)
        elif ins.op == "boundary":  # the start of a round of the phase
            th.pc = pc + 1
            work.append(th)
        else:  # the start, before any stop point
            work.append(th)
        while work:
            t = work.pop()
            self.paths += 1
            if self.paths > self.max_paths:
                raise fail(f"too many control states (> {self.max_paths}): the steps from "
                           "here branch on too many receive conditions and values to enumerate "
                           "(reduce the handlers, variables or domains)",
                           getattr(ins.stmt, "span", None))
            done.extend(self.run(t, work))
        return done

    def decide(self, th: Thread, cond: Expr) -> list[tuple[Thread, bool]]:
        """Fork ``th`` on a symbolic condition: its feasible outcomes. Conjunctions and
        disjunctions are decided atom by atom (short-circuit), so that a path's literals are
        single comparisons — which keeps guards simple and lets complementary paths merge."""
        if isinstance(cond, BoolConst):
            return [(th, cond.value)]
        if isinstance(cond, Not):
            return [(b, not v) for b, v in self.decide(th, cond.arg)]
        if isinstance(cond, (And, Or)):
            stop = isinstance(cond, Or)  # the value that decides the whole: true for ||
            done: list[tuple[Thread, bool]] = []
            going = [th]
            for arg in cond.args:
                nxt = []
                for t in going:
                    for b, v in self.decide(t, arg):
                        (done.append((b, stop)) if v == stop else nxt.append(b))
                going = nxt
            return done + [(t, not stop) for t in going]
        key = to_text(cond)
        if key in th.literals:
            return [(th, th.literals[key][1])]
        out = []
        for value in (True, False):
            lits = [e if v else negate(e) for e, v in th.literals.values()]
            lits.append(cond if value else negate(cond))
            if self.solver.sat(lits):
                b = th.fork()
                b.literals[key] = (cond, value)
                out.append((b, value))
        return out

    def finish(self, th: Thread, pc: int) -> Outcome:
        return Outcome(pc, self.key(pc, th.state)[1], tuple(th.sends), th.literals, th.lines,
                       th.choice, tuple(th.trail))

    def run(self, th: Thread, work: list[Thread]) -> list[Outcome]:
        """Run ``th`` to its next stop point; forks go to ``work``."""
        ev = self.ev
        while True:
            if self.kept is not None:
                th.mark(self.kept)
            ins = self.code[th.pc]
            op = ins.op
            s = ins.stmt
            th.pending = [(l, e) for l, e in th.pending if th.pc < e]
            if op in ("assign", "branch", "send", "decide", "each_begin") and S.unresolved(th, s):
                forks = S.resolve_builders(self, th, s)
                if not forks:
                    return []
                work.extend(forks[1:])
                th = forks[0]
            if op == "assign":
                if s.var not in self.ctx.variables:
                    raise fail(f"assignment to undeclared variable '{s.var}' (variables: "
                               f"{', '.join(self.ctx.variables) or 'none'})"
                               + did_you_mean(s.var, self.ctx.variables), s.var_span or s.span)
                domain = self.ctx.variables[s.var].domain
                if isinstance(s.value, (A.Coin, A.Oracle)):
                    oracle = isinstance(s.value, A.Oracle)
                    values = list(A.BOOL) if tuple(domain) == A.BOOL else \
                        [v for v in A.COIN_VALUES if v in domain]
                    if not values:
                        raise fail(f"{'an oracle' if oracle else 'a coin toss'} gives 0 or 1 "
                                   f"(false or true for a Boolean), which '{s.var}' cannot hold",
                                   s.span)
                    for extra in values[1:]:
                        b = th.fork()
                        b.chose(oracle, b.state.get(s.var) != extra)
                        if b.state.get(s.var) != extra:
                            b.effect(s.span)
                        b.state[s.var] = extra
                        b.pc += 1
                        work.append(b)
                    th.chose(oracle, th.state.get(s.var) != values[0])
                    if th.state.get(s.var) != values[0]:
                        th.effect(s.span)
                    th.state[s.var] = values[0]
                else:
                    value = S.canonical(ev.value(s.value, th), self.ctx.variables[s.var])
                    if value not in domain:
                        raise fail(f"value '{value}' is outside the domain of '{s.var}' "
                                   f"{{{', '.join(domain)}}}", s.span)
                    if th.state.get(s.var) != value:
                        th.effect(s.span)
                    th.state[s.var] = value
                th.pc += 1
            elif op == "send":
                name = ev.send_type(s.pattern, th)
                if name in self.ctx.layout.coordinator_types and \
                        th.state.get(A.COORDINATOR) != A.TRUE:
                    raise fail(f"'{name}' is a coordinator message: only the coordinator sends "
                               "it — send it under 'if coordinator:'", s.span)
                if th.state.get(SENT + name) != A.TRUE:
                    th.effect(s.span)
                    th.state[SENT + name] = A.TRUE
                    th.sends.append(name)
                th.pc += 1
            elif op == "decide":
                value = ev.value(s.value, th)
                before = th.state.get(A.DECIDED)
                if before not in (None, A.BOTTOM, value):
                    raise fail(f"a decision is irrevocable: a process that has already decided "
                               f"{before} reaches this 'decide', which decides {value}", s.span)
                if th.state.get(A.DECIDED) != value:
                    th.effect(s.span)
                th.state[A.DECIDED] = value
                th.pc += 1
            elif op == "branch":
                branch: A.Branch = s
                if branch.placeholder is None:
                    here = th.pc
                    forks = self.decide(th, ev.cond(branch.cond, th))
                    first = True
                    for b, value in forks:
                        if value:
                            b.taken(branch.span, ins.target)
                        b.pc = here + 1 if value else ins.target
                        if first:
                            th, first = b, False
                        else:
                            work.append(b)
                    if first:  # no feasible case: the path ends here (cannot happen under RC)
                        return []
                else:
                    th = self._some(th, branch, ins, work)
                    if th is None:
                        return []
            elif op == "jump":
                th.pc = ins.target
            elif op == "each_begin":  # the set's value when the iteration starts
                th.bindings[S.each_key(s)] = A.encode_set(S.members(ev, s.set, th),
                                                          S.elements_of(self.ctx, s.set) or ())
                th.pc += 1
            elif op == "each_item":
                if ins.value in A.decode_set(th.bindings[S.each_key(s)]):
                    th.bindings[s.var] = ins.value
                    th.taken(s.span, ins.target)
                    th.pc += 1
                else:
                    th.pc = ins.target
            elif op == "choose":  # as late as possible: is this process the coordinator?
                b = th.fork()
                b.state[A.COORDINATOR] = A.TRUE
                b.pc += 1
                work.append(b)
                th.state[A.COORDINATOR] = A.FALSE
                th.pc += 1
            elif op == "boundary":  # round k ends where round k + 1 starts: sends reset
                for t in self.ctx.types:
                    th.state[SENT + t.name] = A.FALSE
                return [self.finish(th, th.pc)]
            elif op == "loop_head":  # the code before the loop has run: stop at its head
                return [self.finish(th, th.pc)]
            elif op == "loop_back":
                head = ins.target
                k = tuple(sorted(th.state.items()))
                if th.effects == th.pass_start:  # a pass that changed nothing: quiescent
                    return [self.finish(th, head)]
                th.pass_start = th.effects
                # A pass with effects that ends in a state seen at the head before repeats
                # forever: the same state and received messages give the same pass.
                if k in th.loop_seen:
                    raise fail("the event loop never becomes quiescent: with the same received "
                               "messages its handlers keep changing the state (a handler must "
                               "not undo another's effect)", s.span)
                th.loop_seen.append(k)
                th.pc = head + 1
            elif op == "end" and self.ctx.alg.timing == "sync":
                # a synchronous round ends where the next one starts: the location is the state
                # at the start of the next round (what lock-step semantics reads), sends reset
                for t in self.ctx.types:
                    th.state[SENT + t.name] = A.FALSE
                return [self.finish(th, 0)]
            elif op in ("wait", "end"):
                return [self.finish(th, th.pc)]
            else:  # pragma: no cover
                raise AssertionError(op)

    def _some(self, th: Thread, branch: A.Branch, ins: Instr, work: list[Thread]) -> Thread | None:
        """``if C(w) for some w``: one case per value of ``w`` whose ``C`` can hold, plus the case
        where ``C`` holds for none. A process for which several values qualify may take any."""
        holds, none = self.some_cases(th, branch)
        for b in holds:
            b.taken(branch.span, ins.target)
            b.pc = th.pc + 1
        for b in none:
            b.pc = ins.target
        cases = holds + none
        if not cases:
            return None
        work.extend(cases[1:])
        return cases[0]

    def some_cases(self, th: Thread, branch: A.Branch) -> tuple[list[Thread], list[Thread]]:
        """The feasible ways ``C(w)`` holds for some value (with ``w`` bound to it) and the ways
        it holds for none — every combination of how each value's condition fails."""
        w = branch.placeholder
        domain = S.subset_domain(self.ev, branch, th) if branch.subset_of is not None \
            else self._placeholder_domain(branch)
        conds = []
        for value in domain:
            b = th.fork()
            b.bindings[w] = value
            conds.append((value, self.ev.cond(branch.cond, b)))
        holds: list[Thread] = []
        for value, c in conds:
            for b, ok in self.decide(th.fork(), c):
                if ok:
                    b.bindings[w] = value
                    holds.append(b)
        none = [th.fork()]
        for _, c in conds:
            none = [b for t in none for b, ok in self.decide(t, c) if not ok]
        return holds, none

    def _placeholder_domain(self, branch: A.Branch) -> tuple[str, ...]:
        """The values ``w`` ranges over: the payload domain at the positions where it occurs."""
        w = branch.placeholder
        domains: list[tuple[str, ...]] = []

        for x in A.walk(branch.cond):
            if isinstance(x, A.Pattern) and x.parts:
                for i, p in enumerate(x.parts):
                    if isinstance(p, A.Ref) and p.name == w:
                        domains.extend(shape.parts[i] for shape in self.ctx.alg.messages
                                       if shape.name == x.name and len(shape.parts) == len(x.parts)
                                       and not shape.tags[i])
        if not domains and S.set_placeholder_domain(self.ctx, branch.cond, w):
            domains.append(S.set_placeholder_domain(self.ctx, branch.cond, w))
        if not domains:
            raise fail(f"'for some {w}': '{w}' must stand in a message payload of the "
                       f"condition, e.g. 'received (R, {w}) from … processes for some {w}'",
                       branch.placeholder_span or branch.span)
        if w in self.ctx.variables or w in self.ctx.parameters:
            raise fail(f"placeholder '{w}' has the name of a variable or parameter",
                       branch.placeholder_span or branch.span)
        out: list[str] = []
        for d in domains:
            out.extend(v for v in d if v not in out)
        return tuple(out)
