"""Parametric Promela (``.pml``) → plain Promela SPIN runs at one valuation (the second reading of a .pml).

Installed as ``tactl.passes.pml_to_spin`` (the folder is ``passes/pml_to_spin/`` at the top of the
repository).
"""
