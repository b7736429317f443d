"""tactl's passes, one module each: pure functions from one IR to the next (or to target text).

Installed as ``tactl.passes`` (the folder is ``passes/`` at the top of the repository).
"""
