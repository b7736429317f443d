"""The receive threshold automaton (``.rta``): model, grammar, reader, printer, JSON form, validation.

Installed as ``tactl.ir.rta`` (the folder is ``ir/rta/`` at the top of the
repository).
"""
