"""Threshold automaton → threshold automaton: rewrites that keep every verdict.

Installed as ``tactl.passes.ta_to_ta`` (the folder is ``passes/ta_to_ta/`` at the top of the
repository).
"""
