"""tactl's version, in a module of its own so that passes can stamp their output with it
without importing the ``tactl`` package (pyproject reads it from here)."""

__version__ = "0.1.0"
