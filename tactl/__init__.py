"""tactl: threshold automata from pseudocode, and parameterized checks of their properties."""

from tactl.util.collector import collect_less_often

# First: the imports below allocate most of what a command's process keeps (see there).
collect_less_often()

from tactl.util import dataclass_code  # noqa: E402 - after the collector's threshold is raised
from tactl.util.teardown import bound_at_exit  # noqa: E402
from tactl.util.version import __version__  # noqa: E402

# Any process that imports tactl ends without deleting z3's contexts term by term (see there).
bound_at_exit()
# Before any of tactl's dataclasses is made: their generated methods' code is read, not compiled.
dataclass_code.install()

__all__ = ["__version__"]
