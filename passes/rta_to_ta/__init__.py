"""Receive threshold automaton → threshold automaton: quantifier elimination, Env per fault model, fairness, coordinators, certificates.

Installed as ``tactl.passes.rta_to_ta`` (the folder is ``passes/rta_to_ta/`` at the top of the
repository).
"""
