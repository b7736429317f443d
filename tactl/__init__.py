"""tactl: threshold automata from pseudocode, and parameterized checks of their properties."""

from tactl.util import dataclass_code
from tactl.util.teardown import bound_at_exit
from tactl.util.version import __version__

# Any process that imports tactl ends without deleting z3's contexts term by term (see there).
bound_at_exit()
# Before any of tactl's dataclasses is made: their generated methods' code is read, not compiled.
dataclass_code.install()

__all__ = ["__version__"]
