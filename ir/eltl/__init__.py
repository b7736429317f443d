"""Properties: ELTL-FT formulas, their LTL classes, safety shapes and vacuity questions.

Installed as ``tactl.ir.eltl`` (the folder is ``ir/eltl/`` at the top of the
repository).
"""
