"""tactl: threshold automata from pseudocode, and parameterized checks of their properties."""

from tactl.util.version import __version__

__all__ = ["__version__"]
