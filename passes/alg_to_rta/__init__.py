"""Pseudocode (``.alg``) → receive threshold automaton: control-state extraction, sets, phases, rounds, thresholds.

Installed as ``tactl.passes.alg_to_rta`` (the folder is ``passes/alg_to_rta/`` at the top of the
repository).
"""
