"""TLA+ module (``ir/tla``) → threshold automaton (``ir/ta``): ``values.py`` evaluates the
fragment's expressions (constants, sets, functions over string keys, macros) into the TA's
terms and formulas, ``actions.py`` turns the disjuncts of ``Next`` into rules, ``module.py``
assembles the automaton from the declarations, ``Init``, ``TypeOk`` and the properties.

Installed as ``tactl.passes.tla_to_ta``.
"""
