"""Reports for people: the summary of ``tactl show`` (``summary``), the terminal table, JSON and
``--explain`` lines of a ``tactl verify`` run (``verify``) and its self-contained HTML page
(``html``). ``tactl check``'s own report is written by ``tactl.engines.check``."""
