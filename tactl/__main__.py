"""``python -m tactl``: the ``tactl`` command without its console script (what an editor
configuration can name when only the interpreter is known, e.g. ``python -m tactl lsp``)."""

from tactl.cli.entry import run

run()
