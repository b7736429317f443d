"""The driver: the passes declared once and chained (``pipeline``), their content-addressed cache
(``cache``), loading what the user names (``inputs``), the certified translation (``translation``),
the SMT-LIB files of ``emit`` (``emitters``), and ``tactl verify`` (``verify``) with its process
pool and Dask executors (``executors``)."""
