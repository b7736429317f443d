"""Threshold automaton → SMT: the checker's encodings of schedules and lassos.

Installed as ``tactl.passes.ta_to_smt`` (the folder is ``passes/ta_to_smt/`` at the top of the
repository).
"""
