"""The z3 answers a reduction rests on, as one SMT-LIB question whose answer must be ``unsat``.

Why. The reduced automaton (``passes/ta_to_ta/simplify_guards.py`` then
``passes/ta_to_ta/shortcuts.py``) has the original's verdict because of two kinds of z3 answers:
each simplified guard equals the original one, and each removed shortcut's guard implies the
guards of its two replacing steps. ``tactl check --certify`` (tactl/engines/certify.py) re-asks a
second solver every question a HOLDS rests on; with this one it can decide the reduced
automaton too (ByMC's generated cc_case3 has 6,928 rules, 6,000 of them shortcuts: as written,
its queries are out of reach of either solver).

What. Under the resilience condition, the ``--param`` values and "every parameter and shared
variable is a natural number" (the background both passes assume), the negation of everything
they claim, as one disjunction:

* for each kept rule, the simplified guard differs from the original (macro-expanded) one;
* for each removed rule ``r`` via ``(a, b)``: ``g_r(x)`` holds but not ``g_a(x) && g_b(x + u_a)``
  (original guards: the pass asked it of the simplified ones, which z3 found equal to them);
* for each rule removed because its guard simplified to false: its original guard holds.

The claims are universally quantified over the same variables, so their conjunction is valid
exactly when each is: ``unsat`` of the disjunction is every answer at once. The conditions the
shortcut pass checks syntactically (increments that add up, what the property observes) are
not in the question: they are tactl's, and the certificate says so.
"""

from __future__ import annotations

from tactl.ir.linear import int_symbols, to_z3
from tactl.ir.ta.model import ThresholdAutomaton

# What the question's answer means, first in its text.
MEANING = ("unsat: every simplified guard equals the original one and every removed shortcut's "
           "guard implies those of its two replacing steps")


def reduction_question(original: ThresholdAutomaton, reduced: ThresholdAutomaton, kept: tuple[int, ...],
                       via: dict[int, tuple[int, int]], parameters: dict[str, int] | None = None) -> str:
    """The SMT-LIB text (module doc). ``reduced``: the rules ``kept`` (indices of ``original``, in
    order) with their simplified guards; ``via``: the removed shortcuts and their replacing pairs;
    a removed rule not in ``via`` had a guard simplified to false, and its claim is that the
    original guard is unsatisfiable. "" when there is nothing to ask."""
    import z3  # lazy: z3 is slow to import; only --certify asks for the text

    sym = int_symbols()

    def guard(i: int) -> z3.BoolRef:
        return to_z3(original.expand(original.rules[i].guard), sym)

    claims = []
    for i, rule in zip(kept, reduced.rules):
        if original.expand(original.rules[i].guard) != rule.guard:
            claims.append(guard(i) != to_z3(rule.guard, sym))
    for r in sorted(set(range(len(original.rules))) - set(kept)):
        if r not in via:  # removed because its guard is false
            claims.append(guard(r))
            continue
        a, b = via[r]
        step = {v: d for v, d in (original.increments(original.rules[a]) or {}).items() if d}
        after_a = z3.substitute(guard(b), *[(sym(v), sym(v) + d) for v, d in step.items()]) if step else guard(b)
        claims.append(z3.And(guard(r), z3.Not(z3.And(guard(a), after_a))))
    if not claims:
        return ""
    printer = z3.Solver()
    printer.add(*(to_z3(original.expand(a), sym) for a in original.assumptions))
    printer.add(*(sym(x) >= 0 for x in (*original.parameters, *original.shared)))
    printer.add(*(sym(p) == v for p, v in (parameters or {}).items()))
    printer.add(z3.Or(*claims))
    return f"; the reduction of {original.name}: {MEANING}\n(set-logic ALL)\n" + printer.to_smt2()
