"""Receive threshold automaton with ``timing sync`` → synchronous (lock-step) threshold automaton.

Installed as ``tactl.passes.rta_to_sync`` (the folder is ``passes/rta_to_sync/`` at the top of the
repository).
"""
