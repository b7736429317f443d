"""``python -m tactl.bench [--only TABLE …]``: see :mod:`tactl.bench.tables`."""

import sys

from tactl.bench.tables import main

sys.exit(main())
