"""Threshold automaton → text for other tools: SMT-LIB, Promela, SMV, DOT (Jinja templates in ``templates/``).

Installed as ``tactl.passes.emit`` (the folder is ``passes/emit/`` at the top of the
repository).
"""
