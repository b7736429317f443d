"""Helpers every layer may use, with no knowledge of automata: the command's deadline
(``deadline``), atomic and careful file output (``fsutil``) and the version (``version``)."""
