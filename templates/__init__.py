"""Jinja templates, one folder per target (dot/, html/, promela/, smtlib/, smv/), rendered by
``passes/emit/render.py``.

Installed as ``tactl.templates`` (the folder is ``templates/`` at the top of the repository).
"""
