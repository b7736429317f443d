"""Every reproducer of ``../shared/findings/trust-round3/`` behaves as the findings table promises.
The table is the contract: each file there must have a row here (a new reproducer
fails :func:`test_every_reproducer_has_a_row` until it is handled), and each row runs the
table's command through the real CLI and checks what a user must get. The area tests
(test_alg_hostile.py, test_lockstep_hostile.py, test_fault_models.py, test_driver_hostile.py,
test_vacuity.py) pin the same behaviour with inline copies, so nothing depends on ../shared alone.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import CORPUS, REPO, SHARED_BENCHMARKS
from conftest import report_verdicts as verdicts
from cpu_time import child_cpu

FINDINGS = SHARED_BENCHMARKS.parent / "findings" / "trust-round3"
POSITION = re.compile(r"^[^\s:]+\.alg:\d+:\d+: ", re.M)


@dataclass(frozen=True)
class Row:
    file: str
    args: tuple[str, ...]
    promise: Callable[[int, dict | None, str], None]  # exit code, JSON report (check), text


def positioned_error(code: int, doc, text: str) -> None:
    assert code == 2 and POSITION.search(text) and "Traceback" not in text, text


def no_plain_holds_for_wrong_reasons(code, doc, text):
    """The NBAC probe: `coin` is a probabilistic coin, so the failure detector written as a coin
    eventually suspects; `nontriv` then has no just run meeting its antecedent (a coin that stays
    false forever): HOLDS VACUOUSLY, never a plain HOLDS."""
    v = verdicts(doc)
    assert v["nontriv"] in ("holds vacuously", "violated"), doc
    assert code in (1, 3)


def lex_violated(code, doc, text):
    assert code == 1 and "violated" in verdicts(doc).values(), doc


def parses(code, doc, text):
    assert code == 0, text


def relay_holds(code, doc, text):
    assert code == 0 and verdicts(doc) == {"R": "holds"}, doc


def foo_violated(code, doc, text):
    assert code == 1 and verdicts(doc)["foo"] == "violated", doc


def safety_decided(code, doc, text):
    assert code == 0 and set(verdicts(doc).values()) == {"holds"} and len(verdicts(doc)) == 3, doc


def small_counterexample(code, doc, text):
    assert code == 1, doc
    runs = [p["details"]["run"] for p in doc["properties"] if p["verdict"] == "violated"]
    assert runs and all(r["parameters"] == {"n": 3, "t": 1, "f": 1} for r in runs), runs


def bounded_or_exit_2(code, doc, text):
    assert code in (0, 2) and "Traceback" not in text and "RecursionError" not in text, text
    if code == 2:
        assert POSITION.search(text), text


def four_hold(code, doc, text):
    assert code == 0 and list(verdicts(doc).values()) == ["holds"] * 4, doc


ROWS = {
    "lex_sentvar.alg": Row("lex_sentvar.alg", ("check",), lex_violated),
    "lex_count.alg": Row("lex_count.alg", ("check",), lex_violated),
    "lex_bot.alg": Row("lex_bot.alg", ("parse",), parses),
    "prop_type.alg": Row("prop_type.alg", ("check",), positioned_error),
    "nbac_vacuity_probe.alg": Row("nbac_vacuity_probe.alg", ("check",), no_plain_holds_for_wrong_reasons),
    "strb_symmetric.alg": Row("strb_symmetric.alg", ("check", "-p", "R"), relay_holds),
    "floodmin_hypothesis_by_name.alg": Row("floodmin_hypothesis_by_name.alg", ("check",), foo_violated),
    "cc_refused_whole.alg": Row("cc_refused_whole.alg", ("check", "-p", "validity0", "-p", "validity1",
                                                         "-p", "agreement"), safety_decided),
    "crusader_sync_3t.alg": Row("crusader_sync_3t.alg", ("check", "--param", "n=3", "--param", "t=1",
                                                         "--param", "f=1"), small_counterexample),
    "long_sum.alg": Row("long_sum.alg", ("parse",), bounded_or_exit_2),
    "many_vars_30_assign.alg": Row("many_vars_30_assign.alg", ("parse",), bounded_or_exit_2),
    "tabmix.alg": Row("tabmix.alg", ("parse",), positioned_error),
    "dedent2.alg": Row("dedent2.alg", ("parse",), positioned_error),
    "crashed_var.alg": Row("crashed_var.alg", ("check",), positioned_error),
    "double_decide.alg": Row("double_decide.alg", ("check",), positioned_error),
    "echo_broadcast.alg": Row("echo_broadcast.alg", ("check",), four_hold),
}

pytestmark = pytest.mark.skipif(not FINDINGS.is_dir(), reason=f"findings not found at {FINDINGS}")


def run(*args: str, timeout: float = 600) -> tuple[int, str, float]:
    """Exit status, output and CPU seconds of ``python -m tactl.cli ARGS``."""
    p, cpu = child_cpu(lambda: subprocess.run([sys.executable, "-m", "tactl.cli", *args],
                                              capture_output=True, text=True, timeout=timeout, cwd=FINDINGS))
    return p.returncode, p.stdout + p.stderr, cpu


def test_every_reproducer_has_a_row():
    files = sorted(p.name for p in FINDINGS.iterdir() if p.is_file())
    assert [f for f in files if f not in ROWS] == []


@pytest.mark.parametrize("name", sorted(ROWS))
def test_reproducer_behaves_as_promised(name):
    row = ROWS[name]
    json_args = ("--json",) if row.args[0] == "check" else ()
    code, text, _ = run(*row.args, str(FINDINGS / row.file), *json_args)
    doc = None
    if json_args and code in (0, 1, 3):
        doc = json.loads(text[text.index("{"):text.rindex("}") + 1])
    row.promise(code, doc, text)


def test_floodmin_outside_the_resilience_condition_is_never_holds():
    code, text, _ = run("check", str(CORPUS / "floodmin" / "floodmin.rta"), "--param", "n=1", "--param", "t=5")
    assert code in (2, 3) and not re.search(r"\bHOLDS\s", text.replace("HOLDS VACUOUSLY", "")), text


def test_phase_king_stops_by_its_timeout():
    code, text, cpu = run("check", str(CORPUS / "phase_king" / "phase_king.rta"), "--timeout", "5")
    # CPU, which load does not stretch: at most the 5 s, plus start, reading and the report
    # (about a second); without the deadline the lock-step queries take minutes
    assert code == 3 and cpu < 5 + 3, (cpu, text)
