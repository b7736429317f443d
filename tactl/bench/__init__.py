"""``make bench`` (``python -m tactl.bench``): the tables of how tactl fares on the benchmark
inputs (``tables``), the reader's scaling (``reader``), the synthetic automata they read
(``synthetic``, ``synthetic_kinds``), and the independent SMT solvers that cross-check emitted
files (``solvers``). Nothing else in tactl imports this package."""
