"""Parametric Promela (``.pml``) → receive threshold automaton: processes, faults, crashes, havoc, several process types.

Installed as ``tactl.passes.pml_to_rta`` (the folder is ``passes/pml_to_rta/`` at the top of the
repository).
"""
