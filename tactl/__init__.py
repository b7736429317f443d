"""tactl: threshold automata from pseudocode, and parameterized checks of their properties."""

from tactl.util.teardown import bound_at_exit
from tactl.util.version import __version__

# Any process that imports tactl ends without deleting z3's contexts term by term (see there).
bound_at_exit()

__all__ = ["__version__"]
