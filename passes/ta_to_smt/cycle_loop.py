"""Encoding pass: (TA with cycles through several locations, one branch of a liveness negation) →
one SMT query whose unsat proves that no lasso satisfies the branch.

The argument is in ``ir/eltl/cycles.py`` ((a)–(c)); this module is its query. The prefix is the
cut-point query of ``passes/ta_to_smt/lasso.py`` (cuts and invariants up to its last
configuration ``c1``, every real prefix a model of it, re-enterable sets checked at segment ends);
its loop block is replaced by the loop ``λ`` from ``c1`` back to ``c1``:

* **Loop firings** ``z_r >= 0`` for the rules a loop may fire (self-loops and cycle rules that
  update nothing, ``CycleStructure.loop_rules``), ``Σ z >= 1``; each location gains what it
  loses (the loop returns to ``c1``); a fired rule's guard holds at ``c1`` (shared variables are
  constant on the loop); and each fired rule's source is occupied at ``c1`` or entered by a fired
  rule of lower rank — the steady-path condition of ``passes/ta_to_smt/steady.py``, under which a
  multiset of moves of independent processes can be executed.
* **What holds on the whole loop** (the ``[]`` part: ``Branch.loop_always`` and every invariant,
  whose anchors all precede ``c1`` once the loop is unrolled), in conjunctive normal form as for
  invariants: a constant clause at ``c1``; ``C || X empty`` as ``C`` at ``c1`` or ``X`` empty at
  ``c1`` with no loop firing into ``X`` (exact: nothing can then enter ``X``); ``C || X occupied``
  at ``c1`` and at every witness configuration only (an over-approximation).
* **The justice per process** (``ir/eltl/justice.py``, argument (d)): it is not in the ``[]``
  part (the branches are those of the negation without it, :func:`cyclic_branches`); each pair
  ``¬g ∨ ℓ == 0`` is ``¬g`` at ``c1``, or ``ℓ`` empty at ``c1`` with no loop firing into it, or
  a loop firing out of ``ℓ`` — exact.
* **Witnesses**: each ``<>`` evaluated on the loop (``Branch.loop_witnesses``) holds at a
  configuration ``w_k`` that ``c1`` reaches by firing ``y_k <= z`` and that reaches ``c1`` again
  by firing ``z - y_k``, both executable by the same steady-path condition.

Every violating lasso gives a model (unroll its loop past its cut witnesses; take ``c1`` as the
loop's first configuration, ``z`` as the loop's firings, ``y_k`` as those up to the witness), so
unsat is a proof. Conversely a model whose occupied clauses hold all along is a real lasso,
``c1 →y_1→ w_1 → c1 → … → w_m → c1``, which the engine builds and replays; where they need not
hold (or the prefix itself was over-approximated), the replay decides.
"""

from __future__ import annotations

from dataclasses import replace

from tactl.ir.eltl.cycles import cycle_structure
from tactl.ir.eltl.formula import Branch, TemporalQuery, branches_of
from tactl.ir.eltl.justice import exits, loop_reading
from tactl.ir.expr import BoolConst, Compare, Expr, Implies, IntConst, Name, conj, disj, substitute, summation
from tactl.ir.smt import Block, Declaration, SmtQuery
from tactl.ir.ta.model import ThresholdAutomaton
from tactl.passes.ta_to_smt.guard_abstraction import UnsupportedAutomaton, abstract_guards, placeholder
from tactl.passes.ta_to_smt.lasso import LassoEncoder, encode_branch, invariant_clauses
from tactl.passes.ta_to_smt.steady import SteadyEncoding


def loop_fired(i: int) -> str:
    return f"z.r{i}"


def witness_fired(k: int, i: int) -> str:
    return f"y{k}.r{i}"


def witness_rest(k: int, i: int) -> str:
    return f"u{k}.r{i}"


def encode_cyclic(ta: ThresholdAutomaton, query, branch, *,
                  parameters: dict[str, int] | None = None) -> SteadyEncoding:
    """The query of the module docstring for one branch (``encode_branch`` with this loop)."""
    return encode_branch(ta, query, branch, parameters=parameters, loop=CycleLoopEncoder)


def cyclic_branches(ta: ThresholdAutomaton, query: TemporalQuery) -> tuple[Branch, ...]:
    """The branches the loop query asks, one query each: those of the negation's literal part
    once the justice is read per process (``ir/eltl/justice.py``; the pairs are asked by
    ``CycleLoopEncoder`` itself)."""
    reading = loop_reading(ta, query)
    return branches_of(reading.negation) if reading.pairs else query.branches


def witnesses(branch) -> list[int]:
    """The loop witnesses that ask for something (an empty one is any loop configuration)."""
    return [k for k, w in enumerate(branch.loop_witnesses) if w != BoolConst(True)]


def witness_config(final: int, k: int) -> int:
    return final + 1 + k


class CycleLoopEncoder(LassoEncoder):
    """``LassoEncoder`` whose loop passes through several configurations (module docstring)."""

    def query(self) -> SmtQuery:
        asked = super().query()
        what = (f"property {self.temporal.property} ({self.temporal.formula_class.value}), a loop "
                "through several configurations: unsat = no lasso satisfies this branch of the "
                "negated specification for any parameters satisfying the resilience condition; "
                "sat proves nothing (an over-approximation: tactl replays its run)")
        return replace(asked, title=asked.title.replace("cut-point query", "loop query"),
                       notes=(asked.notes[0], what, *asked.notes[2:]))

    def loop_block(self) -> None:
        ta, lay = self.ta, self.layout
        final = lay.final_config
        rules = cycle_structure(ta).loop_rules(ta)
        z = {i: Name(loop_fired(i)) for i in rules}
        decls: list[Declaration] = [Declaration(n.name) for n in z.values()]
        assertions: list[Expr] = [Compare(">=", n, IntConst(0)) for n in z.values()]
        assertions.append(Compare(">=", _total(list(z.values())), IntConst(1)) if z else BoolConst(False))
        assertions += self.moved(final, final, z)  # back to c1: each location gains what it loses
        for i, n in z.items():
            assertions.append(Implies(Compare(">", n, IntConst(0)), self.at(final, ta.expand(ta.rules[i].guard))))
        ranks, chains = self.firable_chains("L", z, start=final)
        decls += ranks
        assertions += chains
        self.blocks.append(Block(f"the loop: firings z from configuration {final} back to it (each "
                                 "location gains what it loses; executable from there)",
                                 tuple(decls), tuple(assertions)))
        for k in witnesses(self.branch):
            self._witness_block(k, z)
        self._always_block(z)
        self._justice_block(z)

    def _justice_block(self, z: dict[int, Name]) -> None:
        """The justice read per process (``ir/eltl/justice.py``): each pair waived at ``c1`` (the
        guards are constant on the loop), its location empty at ``c1`` with no loop firing into
        it, or a loop firing out of it. Exact: no over-approximation here."""
        ta, lay = self.ta, self.layout
        final = lay.final_config
        assertions: list[Expr] = []
        for pair in loop_reading(ta, self.temporal).pairs:
            entering = [Compare("==", n, IntConst(0)) for i, n in z.items()
                        if ta.rules[i].target == pair.location and ta.rules[i].source != pair.location]
            leaving = [n for i, n in z.items() if i in exits(ta, pair.location)]
            assertions.append(disj(
                self.at(final, pair.waived),
                conj(Compare("==", Name(lay.counter(final, pair.location)), IntConst(0)), *entering),
                *([Compare(">=", _total(leaving), IntConst(1))] if leaving else [])))
        if assertions:
            self.blocks.append(Block("the justice per process: each pair waived on the loop, its "
                                     "location empty all along it, or left by a loop firing",
                                     (), tuple(assertions)))

    def _witness_block(self, k: int, z: dict[int, Name]) -> None:
        final = self.layout.final_config
        w = witness_config(final, k)
        y = {i: Name(witness_fired(k, i)) for i in z}
        u = {i: Name(witness_rest(k, i)) for i in z}
        decls = [*self.config_decls(w), *(Declaration(n.name) for n in (*y.values(), *u.values()))]
        assertions: list[Expr] = []
        for i in z:
            assertions += [Compare(">=", y[i], IntConst(0)), Compare(">=", u[i], IntConst(0)),
                           Compare("==", summation(y[i], [("+", u[i])]), z[i])]
        assertions += self.moved(final, w, y)  # loop rules update nothing: shared values kept
        for label, counts, start in ((f"W{k}", y, final), (f"R{k}", u, w)):
            ranks, chains = self.firable_chains(label, counts, start=start)
            decls += ranks
            assertions += chains
        assertions.append(self.at(w, self.ta.expand(self.branch.loop_witnesses[k])))
        self.blocks.append(Block(f"loop witness {k}: configuration {w}, reached from {final} by y{k} "
                                 f"and leading back by the rest of z", tuple(decls), tuple(assertions)))

    def _always_block(self, z: dict[int, Name]) -> None:
        """The ``[]`` part on every loop configuration (module docstring)."""
        ta, lay = self.ta, self.layout
        final = lay.final_config
        formulas = [ta.expand(self.branch.loop_always), *(ta.expand(i.formula) for i in self.branch.invariants)]
        formulas = [f for f in formulas if f != BoolConst(True)]
        if not formulas:
            return
        configs = [final, *(witness_config(final, k) for k in witnesses(self.branch))]
        assertions: list[Expr] = []
        for formula in formulas:
            try:
                ab = abstract_guards(ta, set(), (formula,))
                clauses = invariant_clauses(ab.extra[0], ab.counter_atoms)
            except UnsupportedAutomaton:
                # not in the clause shapes (say, a counter compared with a parameter): asserted
                # where the query has configurations of the loop, an over-approximation too
                assertions += [self.at(c, formula) for c in configs]
                continue
            values = {placeholder(i): self.atom_at(final, atom) for i, atom in enumerate(ab.atoms)}
            for clause in clauses:
                constant = self.at(final, substitute(clause.constant, values))
                if clause.counters is None:
                    assertions.append(constant)
                    continue
                kind, where = clause.counters
                if kind == "empty":
                    entering = [Compare("==", n, IntConst(0)) for i, n in z.items()
                                if ta.rules[i].target in where and ta.rules[i].source not in where]
                    empty = [Compare("==", Name(lay.counter(final, loc)), IntConst(0)) for loc in sorted(where)]
                    assertions.append(disj(constant, conj(*empty, *entering)))
                else:
                    assertions.append(disj(constant, conj(*(
                        Compare(">=", _total([Name(lay.counter(c, loc)) for loc in sorted(where)]), IntConst(1))
                        for c in configs))))
        self.blocks.append(Block("the loop's [] part: at every loop configuration (exactly for "
                                 "empty locations, at the configurations above for occupied ones)",
                                 (), tuple(assertions)))


def _total(items: list[Expr]) -> Expr:
    return summation(items[0], [("+", x) for x in items[1:]]) if len(items) > 1 else items[0]
