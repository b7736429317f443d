"""Helpers every layer may use, with no knowledge of automata: the command's deadline
(``deadline``), atomic and careful file output (``fsutil``), the version (``version``), the
progress display of long commands (``progress``) and did-you-mean suggestions (``suggest``)."""
