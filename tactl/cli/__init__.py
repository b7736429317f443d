"""The ``tactl`` command line: a thin layer that turns options into a request, calls the driver
(``tactl/driver/``: ``commands.py`` for check and emit, ``verify.py``, ``inputs.py``,
``translation.py``) and prints or writes what it returns.

One module per family of commands, each registering on the Typer app of ``app.py`` (which also
holds the options and helpers they share): ``automata.py`` (show, fmt, dot), ``frontends.py``
(parse, translate), ``check.py`` (check, run), ``synthesize.py``, ``emit.py``, ``verify.py`` (verify, cache),
``editor.py`` (lsp). They are
imported below in the order ``tactl --help`` lists the commands. ``entry.py`` is the console entry
point (``tactl.cli:run``) and maps every outcome to an exit status.

Exit status: 0 success (every checked property holds), 1 a property is
violated, 2 bad input or usage, 3 nothing violated but something unknown or unsupported. An
unexpected internal failure exits 4 with a one-line message (the traceback with ``--debug``).
"""

from tactl.cli.app import (EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, EXIT_UNKNOWN,
                           EXIT_USAGE, EXIT_VIOLATED, app)
# Registration order is the order of the commands in `tactl --help`.
from tactl.cli import automata, frontends, check, synthesize, emit, verify, editor  # noqa: F401 - each registers its commands
from tactl.cli.entry import main, run

__all__ = ["EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_TERMINATED", "EXIT_UNKNOWN",
           "EXIT_USAGE", "EXIT_VIOLATED", "app", "main", "run"]
