"""Reports for people: the summary of ``tactl show`` (``summary``), the terminal table, JSON and
``--explain`` lines of a ``tactl verify`` run (``verify``) and its self-contained HTML page
(``html``), ``tactl check``'s report as text (``check_text``) and JSON (``check_json``), and the
one JSON shape of a property's result they all carry (``result_json``)."""
