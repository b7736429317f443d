"""TLA+ (``.tla``): the fragment that describes a threshold automaton, as TACO reads it (a
``ProcessesLocations`` map and ``RuleK(p)`` actions) and as counter-system specifications write
it (a counter per location): grammar, syntax tree, reader. ``passes/tla_to_ta/`` turns a module
into the threshold automaton IR of ``ir/ta``.

Installed as ``tactl.ir.tla`` (the folder is ``ir/tla/`` at the top of the repository).
"""
