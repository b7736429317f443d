"""Checking engines: ``parametric`` (SMT, all parameter values) and ``explicit`` (fixed values)."""
