"""The threshold automaton (``.ta``, ByMC's format): model, grammar, reader, printer, JSON form, validation.

Installed as ``tactl.ir.ta`` (the folder is ``ir/ta/`` at the top of the
repository).
"""
