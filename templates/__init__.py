"""Jinja templates, one folder per target (dot/, and later promela/, smtlib/, nuxmv/)."""
