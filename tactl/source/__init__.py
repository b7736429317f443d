"""The reference interpreter of ``.alg`` programs: a second, independent reading of pseudocode.

Every other engine checks the automaton the translation (``passes/alg_to_rta/extract.py`` and the passes after
it) builds, so a mistake of the translation is shared by all of them. This package executes the
program *as written* — the AST of ``ir/alg/syntax.py`` — with concrete processes 0..n-1 at fixed
parameters, and explores every run (``tactl check --engine source``) or one random run
(``tactl run``). It imports nothing that reads automata (``tactl.passes``, ``tactl.ir.rta.model*``,
``tactl.ir.ta.model*``, ``tactl.ir.eltl.formula``, ``tactl.ir.eltl.safety``, ``tactl.engines``), which
``tests/packaging/test_layout.py`` checks on the transitive import closure.

Modules, one concern each: ``errors`` (runtime errors with a position), ``program`` (the AST
flattened into instructions with jumps, and the message types), ``values`` (terms and conditions
evaluated on one process), ``step`` (one step of one process: all its nondeterministic outcomes),
``system`` (global states, fault models, successors, justice), ``formula`` (properties:
predicates, negation normal form, progression, lasso evaluation), ``search`` (state graph,
shortest violations, fair lassos, replay), ``check`` (parameters, message kinds, verdicts and
vacuity), ``rounds`` (the obligations of ``rounds carrying v``), ``report`` (verdict table, JSON),
``run`` (one random run in words).
"""
