"""The pseudocode dialect (``.alg``): its syntax tree, grammar and reader.

Installed as ``tactl.ir.alg`` (the folder is ``ir/alg/`` at the top of the
repository).
"""
