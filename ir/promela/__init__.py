"""The Parametric Promela dialect (``.pml``): its syntax tree, preprocessor and reader.

Installed as ``tactl.ir.promela`` (the folder is ``ir/promela/`` at the top of the
repository).
"""
