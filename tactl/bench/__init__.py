"""``make bench`` (``python -m tactl.bench``): the tables of how tactl fares on the benchmark
inputs, one module per table family (``tables`` lists them and runs the command), the reader's
scaling (``reader``), the synthetic automata they read (``synthetic``, ``synthetic_kinds``), the
independent SMT solvers that cross-check emitted files (``solvers``), and the peers' recorded
timings the tables print beside tactl's (``peer_timings.json``). Nothing else in tactl imports
this package."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # the checkout: tactl/bench/ is two folders down


def checkable_corpus(extension: str) -> list[Path]:
    """The corpus's ``*/*.EXTENSION`` files a check can decide: corpus/synthesis holds algorithms
    with unknown thresholds, for ``tactl synthesize``, which ``check`` answers UNSUPPORTED."""
    return sorted(p for p in (REPO / "corpus").glob(f"*/*.{extension}") if p.parent.name != "synthesis")
