"""SPIN as the second reading of a Parametric Promela file (tactl/engines/spin_source.py,
passes/pml_to_spin/rewrite.py): the preprocessor's expansion against tactl's, on every file at hand, and
the verdicts of ``check --engine source`` against tactl's parametric engine at one valuation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import DATA, GUARD_S, SHARED_BENCHMARKS, needs_spin
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.engines.spin_source import c_tokens, check_source, cpp_tokens
from tactl.ir.promela.cpp import preprocess
from tactl.util import deadline

PROMELA = DATA / "promela"
BYMC = SHARED_BENCHMARKS / "bymc-promela"
FINDINGS = SHARED_BENCHMARKS.parent / "findings" / "trust-round4"
ISOLA18 = Path(os.environ.get("TACTL_ISOLA18_PROMELA")
               or Path.home() / ".cache" / "tactl" / "benchmarks" / "isola18-promela")  # make isola18-promela
SPIN = needs_spin("the SPIN cross-checks of Parametric Promela")

# Macro shapes whose meaning cpp decides (A1, B1, D1, D2, rescanning, function-like, #undef):
# tactl's expansion must give cpp's tokens exactly.
MACROS = """\
#define ONE 2 - 1
#define M -1
#define EMPTY
#define A B + 1
#define B A * 2
#define IDX(i, j) (N * i + j)
a = T + 2 - ONE; b = T - M; c = T EMPTY + 1; d = A; e = ONE-M--M;
f = IDX(1, ONE) + IDX (x, y); g = IDX; /* ONE */ printf("ONE");
h = K;
#define K 5
#undef ONE
i = K + ONE;
"""


def _files() -> list[Path]:
    return (sorted(PROMELA.glob("*.pml")) + sorted(BYMC.glob("*/*.pml")) + sorted(FINDINGS.glob("*.pml"))
            + sorted(ISOLA18.glob("*.pml")))


@SPIN
def test_cpp_and_tactl_expand_macros_alike(tmp_path):
    path = tmp_path / "macros.pml"
    path.write_text(MACROS)
    assert c_tokens(preprocess(MACROS, str(path))) == cpp_tokens(str(path))


@SPIN
@pytest.mark.parametrize("path", _files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cpp_and_tactl_expand_every_file_alike(path):
    # the preprocessor cross-check: any A1/B1/D1/D2-type mistake in tactl's cpp shows here
    text = path.read_text()
    for defines in ((), ("SPIN",), ("BUG1",), ("CASE2",)):
        assert c_tokens(preprocess(text, str(path), defines)) == cpp_tokens(str(path), defines)


# ------------------------------------------------------------------- verdicts against tactl's

def _parametric(path: Path, params: dict[str, int]) -> dict[str, str]:
    loaded = load_automaton(path)
    with deadline.clock(GUARD_S):
        results = check_automaton(loaded.ta, str(path), CheckOptions(parameters=params)).results
    return {r.name: r.verdict.replace("holds vacuously", "holds") for r in results}


def _source(path: Path, params: dict[str, int]) -> dict[str, str]:
    report = check_source(str(path), path.read_text(), params, timeout_s=GUARD_S)
    assert report.error is None, report.error
    return {r.name: r.verdict for r in report.results}


@SPIN
def test_source_engine_finds_a1_as_spin_reads_it(tmp_path):
    # '#define ONE 2 - 1' in the echo threshold: SPIN reads T - 1, unforg fails (A1)
    text = (PROMELA / "echo.pml").read_text().replace("next_nrcvd >= T + 1", "next_nrcvd >= T + 2 - ONE")
    path = tmp_path / "echo.pml"
    path.write_text("#define ONE 2 - 1\n" + text)
    report = check_source(str(path), path.read_text(), {"N": 4, "T": 1, "F": 0}, timeout_s=GUARD_S)
    result = {r.name: r for r in report.results}["unforg"]
    assert result.verdict == "violated" and any("assertion violated" in t for t in result.trail)
    assert report.exit_code == 1
    assert _parametric(path, {"N": 4, "T": 1, "F": 0})["unforg"] == "violated"


@SPIN
def test_source_engine_agrees_on_echo():
    params = {"N": 4, "T": 1, "F": 1}
    assert _source(PROMELA / "echo.pml", params) == _parametric(PROMELA / "echo.pml", params) == {"unforg": "holds"}


# (file, valuation): the smallest N with faults inside the resilience condition. Files where the
# two readings differ for a known reason are in DIFFERENT, with it.
VALUATIONS = {
    "fmcad13/bcast-byz.pml": {"N": 4, "T": 1, "F": 1},
    "fmcad13/bcast-byz-FleTp1.pml": {"N": 4, "T": 1, "F": 1},
    "fmcad13/bcast-byz-Nge3T.pml": {"N": 4, "T": 1, "F": 1},
    "fmcad13/bcast-clean.pml": {"N": 4, "Tc": 1, "Fc": 1, "Fnc": 1},
    "fmcad13/bcast-fisman-crash.pml": {"N": 3},
    "fmcad13/bcast-omit.pml": {"N": 3, "To": 1, "Fo": 1},
    "fmcad13/bcast-omit-Nge2T.pml": {"N": 3, "To": 1, "Fo": 1},
    "fmcad13/bcast-symm.pml": {"N": 4, "T": 1, "Fs": 1, "Fp": 1},
    "fmcad13/bcast-symm-FleTp1.pml": {"N": 4, "T": 1, "Fs": 1, "Fp": 1},
    "spin13-parameterized/bcast-byz.pml": {"N": 4, "T": 1, "F": 1},
    "spin13-parameterized/bcast-clean.pml": {"N": 4, "Tc": 1, "Fc": 1, "Fnc": 1},
}
FAST = ("fmcad13/bcast-byz.pml", "fmcad13/bcast-fisman-crash.pml")


@SPIN
@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in FAST else pytest.mark.slow)
                                  for n in VALUATIONS])
def test_source_engine_agrees_with_the_parametric_engine(name):
    path = BYMC / name
    if not path.exists():
        pytest.skip(f"ByMC's Promela benchmarks not found at {BYMC}")
    params = VALUATIONS[name]
    assert _source(path, params) == _parametric(path, params)


@SPIN
@pytest.mark.parametrize("text, message", [
    ("symbolic int N;\nproctype P( {\n", "no 'active' proctype"),
    ("#if\nsymbolic int N;\n", "the preprocessor (SPIN's cpp) failed"),
])
def test_source_engine_refuses_a_file_that_is_no_model(cli, tmp_path, text, message):
    """A file that is no Promela model is bad input (exit 2, the reason on stderr), never a
    report with nothing checked."""
    path = tmp_path / "bad.pml"
    path.write_text(text)
    r = cli("check", path, "--engine", "source", "--param", "N=4")
    assert r.code == 2 and message in r.err and "Traceback" not in r.err, r
