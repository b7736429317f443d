"""``python -m tactl.cli``: the ``tactl`` command without its console script."""

from tactl.cli.entry import run

run()
