"""Shared fixtures: where the test inputs live, and a way to run the CLI in-process."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
CORPUS = REPO / "corpus"
# The public ByMC benchmarks sit beside the checkout (../shared); never copied into the repository.
SHARED_BENCHMARKS = Path(os.environ.get("TACTL_SHARED", REPO.parent / "shared")) / "benchmarks"
ISOLA18 = SHARED_BENCHMARKS / "bymc-isola18"

# The deadline (or subprocess timeout) of a check a test runs only to stop a runaway one, never
# one the test expects to reach: the slowest such check (ByMC's generated c1cs_case1.ta) takes
# about 13 s of CPU, which a machine at load 14 on two cores stretches sevenfold by the clock
# (60 s, the limit these tests had, was reached that way); ten minutes leaves room for both.
# A test that is about the deadline itself asserts CPU time instead (tests/cpu_time.py).
GUARD_S = 600


# TACO's reset benchmarks (pleich/TACO): a checkout or git directory named by TACTL_TACO, else
# the cache `make taco-resets` fills; never copied into the repository.
TACO_RESETS = "benchmarks/reset-benchmarks"
TACO_RESETS_CACHE = Path.home() / ".cache" / "tactl" / "benchmarks" / "taco-resets"


def taco_reset_benchmarks() -> dict[str, str]:
    """name -> text of TACO's reset benchmarks, from a checkout, a bare git directory or the
    cache; empty when none is found (the tests that need them skip)."""
    import subprocess  # lazy: only to read a bare git directory

    root = Path(os.environ.get("TACTL_TACO", "/work/.mirror/pleich+TACO/repo"))
    for folder in (root / TACO_RESETS, TACO_RESETS_CACHE):
        if folder.is_dir() and any(folder.glob("*.eta")):
            return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.eta"))}
    if not root.is_dir():
        return {}
    listed = subprocess.run(["git", "-C", str(root), "ls-tree", "--name-only", "HEAD",
                             TACO_RESETS + "/"], capture_output=True, text=True)
    names = [n for n in listed.stdout.split() if n.endswith(".eta")] if listed.returncode == 0 else []
    return {Path(n).name: subprocess.run(["git", "-C", str(root), "show", f"HEAD:{n}"],
                                         capture_output=True, text=True, check=True).stdout
            for n in names}


def isola18_files() -> list[Path]:
    return sorted(ISOLA18.glob("*.ta")) if ISOLA18.is_dir() else []


def own_ta_files() -> list[Path]:
    """Every .ta file of ours: the corpus models and the dialect examples."""
    return sorted(CORPUS.rglob("*.ta")) + sorted((DATA / "dialects").glob("*.ta"))


def isola18_params():
    files = isola18_files()
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"shared ByMC benchmarks not found at {ISOLA18} (set TACTL_SHARED)"))]
    return [pytest.param(f, id=f.name) for f in files]


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys):
    """Run ``tactl ARGS...`` in-process through the real entry point; returns code, stdout, stderr."""
    from tactl.cli import main

    def run(*args: str | os.PathLike) -> CliResult:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def reach_questions(ta):
    """(property, reachability question) for every property of ``ta`` that has one: the safety
    properties the engines are compared on (liveness and unsupported shapes are skipped)."""
    from tactl.ir.eltl.safety import ReachQuery, reach_query  # lazy: conftest imports no tactl at load

    for prop in ta.properties:
        question = reach_query(ta, prop)
        if isinstance(question, ReachQuery):
            yield prop, question


def write(directory: Path, name: str, text: str) -> Path:
    """``text`` as the file ``directory/name``: the tests hand the CLI and the readers real files,
    as a user does, rather than strings."""
    path = directory / name
    path.write_text(text)
    return path


def check_results(source, name: str | None = None, timeout_s: float | None = None, **options) -> dict:
    """Every property's result from the in-process checker, by property name.

    ``source`` is a file, loaded as ``tactl check`` loads it (.ta, .rta, .alg, .pml, divisions
    lowered), or an automaton already in hand; ``timeout_s`` a deadline for the check (the
    command's clock, tactl/util/deadline.py); ``options`` are :class:`CheckOptions` fields."""
    from tactl.driver.inputs import load_automaton  # lazy: conftest imports no tactl at load
    from tactl.engines.check import CheckOptions, check_automaton  # lazy: as above
    from tactl.util import deadline  # lazy: as above

    if isinstance(source, (str, os.PathLike)):
        ta, name = load_automaton(source).ta, name or str(source)
    else:
        ta = source
    with deadline.clock(timeout_s):
        return {r.name: r for r in check_automaton(ta, name or "t.ta", CheckOptions(**options)).results}


def verdicts(source, name: str | None = None, **options) -> dict[str, str]:
    """``{property: verdict}`` from the in-process checker (see :func:`check_results`)."""
    return {prop: r.verdict for prop, r in check_results(source, name, **options).items()}


def report_properties(doc: dict) -> dict[str, dict]:
    """The properties of a ``tactl check --json`` report, by name."""
    return {p["name"]: p for p in doc["properties"]}


def whole_file_justice(path: Path, name: str, defines: tuple[str, ...] = ()) -> str:
    """The verdict of a Promela file's own justice on its whole automaton, before any tightening
    (tactl/driver/file_reading.py, tactl/driver/tightened_reading.py)."""
    # lazy: only the tests of the file's reading need these
    from tactl.driver.file_reading import reading_of
    from tactl.driver.inputs import load_automaton
    from tactl.engines.check import CheckOptions, check_automaton

    loaded = load_automaton(path, defines=defines)
    prop = next(p for p in reading_of(loaded).justice.properties if p.name == name)
    return check_automaton(replace(loaded.ta, properties=(prop,)), str(path), CheckOptions()).results[0].verdict


def report_verdicts(doc: dict) -> dict[str, str]:
    """``{property: verdict}`` of a ``tactl check --json`` report."""
    return {p["name"]: p["verdict"] for p in doc["properties"]}


def present_or_skip(path: Path, why: str) -> Path:
    """``path`` if it exists, else skip the test saying ``why`` (files fetched, never committed)."""
    if not path.exists():
        pytest.skip(why)
    return path


def check_ta_files() -> list[Path]:
    """Our small automata with known verdicts (an ``expect:`` line in the header comment)."""
    return sorted((DATA / "check").glob("*.ta"))


def pytest_collection_modifyitems(config, items):
    """``slow`` tests run only when asked for (``-m slow``); the default suite stays fast."""
    if "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow (or make bench)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def assert_positioned_error(error, text: str, path: str) -> None:
    """What a reader's InputError must be: messages, positions inside the text, the path first."""
    n_lines = text.count("\n") + 1
    for d in error.diagnostics:
        assert d.message
        if d.span is not None:
            assert 1 <= d.span.line <= n_lines and d.span.col >= 1
    assert error.render().startswith(path)


def walked_nodes(monkeypatch, action) -> int:
    """How many expression nodes ``action()`` makes the reader, validator and TA walk: a
    machine-independent measure of work for tests that must catch quadratic regressions
    without timing anything."""
    from tactl.ir.ta import model as ta_module
    from tactl.ir.ta import validate as validate_module
    from tactl.ir.expr import walk

    count = 0

    def counting(e):
        nonlocal count
        for node in walk(e):
            count += 1
            yield node

    with monkeypatch.context() as m:
        for module in (validate_module, ta_module):
            m.setattr(module, "walk", counting)
        action()
    return count


def needs_spin(what: str):
    """Skip unless SPIN and a C compiler are installed (``make tools`` installs both as root),
    saying which cross-checks did not run."""
    from tactl.engines import checkers  # lazy: only the SPIN test modules ask

    return pytest.mark.skipif(checkers.spin() is None or checkers.c_compiler() is None,
                              reason="SPIN or a C compiler is not installed (make tools installs both "
                                     f"as root): {what} did NOT run")


# An eager reliable broadcast under crash faults, without its loop: the .alg front end's tests
# (frontends/test_alg_counting_and_crashes.py) and the driver's source-engine tests
# (driver/test_verify_source.py) complete it with different steps.
A4_HEADER = """\
algorithm EagerRB
parameters n, t, f
resilience n > 2t, t >= f, f >= 0
faults crash(f)
timing async

messages DATA

variables
  v: {0, 1} = input
  delivered: bool = false

"""
A4_PROPERTIES = """
properties
  validity: initially (all v == 1) -> eventually (all delivered)
  uniform_agreement: always ((some delivered) -> eventually (all delivered))
"""


WIDE_CHAIN = 30  # locations of wide_ta's chain: far too many for a column each


def wide_ta(directory: Path) -> Path:
    """A wide automaton: a chain of WIDE_CHAIN locations a process walks down (its first step
    sends x), and a property that the last is never reached, violated in WIDE_CHAIN - 1 steps
    with one pair of counters changing per step."""
    locs = [f"waiting_for_message_{i}" for i in range(WIDE_CHAIN)]
    rules = [f"    {i}: {locs[i]} -> {locs[i + 1]} when ({'x >= 1' if i else 'true'}) "
             f"do {{ {'unchanged(x);' if i else chr(120) + chr(39) + ' == x + 1;'} }};"
             for i in range(WIDE_CHAIN - 1)]
    text = "\n".join([
        "thresholdAutomaton Wide {", "  local pc;", "  shared x;", "  parameters n;",
        "  assumptions (1) { n >= 1; }", f"  locations ({WIDE_CHAIN}) {{",
        *(f"    {name}: [{i}];" for i, name in enumerate(locs)), "  }", f"  inits ({WIDE_CHAIN + 1}) {{",
        f"    {locs[0]} == n;", *(f"    {name} == 0;" for name in locs[1:]), "    x == 0;", "  }",
        f"  rules ({WIDE_CHAIN - 1}) {{", *rules, "  }", "  specifications (1) {",
        f"    never_last: []({locs[-1]} == 0);", "  }", "}", ""])
    path = directory / "wide.ta"
    path.write_text(text, encoding="utf-8")
    return path
