"""Every reproducer of ``../shared/findings/trust-round4/`` behaves as the findings file says is
right. As for round 3 the table is the contract: each file there has a row here (a new
reproducer fails :func:`test_every_reproducer_has_a_row`), and each row runs the real CLI in a
subprocess — the exit status a user sees, no traceback — and checks what a user must get. The
area tests pin the same behaviour with inline inputs, so nothing depends on ../shared alone:
tests/frontends/test_promela_as_cpp_reads.py (A1, B1, B2, D1, D2, D3), tests/translation/test_rounds.py (A2),
tests/frontends/test_alg_counting_and_crashes.py (A3, A4), tests/engines/test_source_engine.py (the interpreter's
readings of A3 and A4), tests/cli/test_exit_codes.py (D3's exit status).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from conftest import SHARED_BENCHMARKS
from conftest import report_verdicts as verdicts
from cpu_time import child_cpu

FINDINGS = SHARED_BENCHMARKS.parent / "findings" / "trust-round4"
POSITION = re.compile(r"^[^\s:]+\.(alg|pml):\d+:\d+: ", re.M)

pytestmark = pytest.mark.skipif(not FINDINGS.is_dir(), reason=f"findings not found at {FINDINGS}")


@dataclass(frozen=True)
class Row:
    file: str
    args: tuple[str, ...]
    promise: Callable[[int, dict | None, str, float], None]  # exit, JSON (check), text, seconds


def violated_with_replayed_run(*names: str):
    """The named properties VIOLATED, each with a counterexample the simulator replayed."""
    def promise(code, doc, text, _):
        assert code == 1, text
        by_name = {p["name"]: p for p in doc["properties"]}
        for name in names:
            p = by_name[name]
            assert p["verdict"] == "violated", p
            assert p["counterexample"]["replayed"] is True, p
    return promise


def refused_at(line: int):
    """Exit 2 with ``file:LINE:col:`` first and a caret line, no traceback."""
    def promise(code, doc, text, _):
        assert code == 2 and "Traceback" not in text, text
        match = POSITION.search(text)
        assert match and f":{line}:" in match.group(0), text
        assert "^" in text, text
    return promise


def refused_within(seconds: float):
    """Exit 2 at a position within ``seconds`` of CPU time (the process's, as load cannot
    stretch it: the refusal is about work done, not waiting)."""
    def promise(code, doc, text, cpu):
        assert code == 2 and POSITION.search(text) and "Traceback" not in text, text
        assert cpu < seconds, f"took {cpu:.1f} s of CPU"
    return promise


def a_verdict_for_every_property(code, doc, text, _):
    """No internal error: every property gets a real verdict (D1: `T - M` with `M` = -1 is T + 1)."""
    assert code in (0, 1), text
    assert all(v in ("holds", "violated") for v in verdicts(doc).values()), doc


def a2_termination_not_concluded(code, doc, text, _):
    """The overwritten coin: decide_or_flip VIOLATED (replayed), and the termination claim NOT
    CONCLUDED, naming the statement that overwrites the toss."""
    assert code == 1, text
    assert verdicts(doc)["decide_or_flip"] == "violated", doc
    rounds = doc["multi_round"]
    termination = next(c for c in rounds["conclusions"] if c["claim"].startswith("termination"))
    assert termination["concluded"] is False, termination
    premises = {p["name"]: p for p in rounds["premises"]}
    assert premises["not_overwritten"]["shown"] is False, premises
    assert 'line 59 "v := 0"' in premises["not_overwritten"]["why"], premises


ROWS = {
    # A1: `#define ONE 2 - 1` is text: the echo guard is `T + 2 - 2 - 1`, unforg VIOLATED
    "A1_pml_define_precedence.pml": Row("A1_pml_define_precedence.pml", ("check", "-p", "unforg"),
                                        violated_with_replayed_run("unforg")),
    "A2_rounds_coin_overwritten.alg": Row("A2_rounds_coin_overwritten.alg", ("check",),
                                          a2_termination_not_concluded),
    # A3, A3b: a sum over instances that are no kind would count a process twice: refused
    "A3_sum_not_a_kind.alg": Row("A3_sum_not_a_kind.alg", ("check",), refused_at(27)),
    "A3b_kind_star.alg": Row("A3b_kind_star.alg", ("check",), refused_at(27)),
    # A4, A4b: a crashed process keeps `delivered`: the uniform property is VIOLATED
    "A4_crash_erases_delivery.alg": Row("A4_crash_erases_delivery.alg", ("check", "-p", "uniform_agreement"),
                                        violated_with_replayed_run("uniform_agreement")),
    "A4b_crash_relay_split.alg": Row("A4b_crash_relay_split.alg", ("check", "-p", "uniform_agreement"),
                                     violated_with_replayed_run("uniform_agreement")),
    # B1: K used before its #define is an undeclared name there
    "B1_pml_define_after_use.pml": Row("B1_pml_define_after_use.pml", ("check",), refused_within(60)),
    # B2: `bit pc` assigned 2 and 3: refused with the position of the assignment
    "B2_pml_bit_width_ignored.pml": Row("B2_pml_bit_width_ignored.pml", ("check",), refused_within(60)),
    "D1_pml_define_negative.pml": Row("D1_pml_define_negative.pml", ("check",), a_verdict_for_every_property),
    "D2_pml_define_novalue.pml": Row("D2_pml_define_novalue.pml", ("check",), a_verdict_for_every_property),
    # D3: 2^24 paths: the bound stops it at once, exit 2 with the position (was 60 s, 3.9 GB, exit 1)
    "D3_pml_path_explosion.pml": Row("D3_pml_path_explosion.pml", ("check",), refused_within(30)),
}
HELPERS = {"A2_schedule.py"}  # A2's replay script, not an input


def run(*args: str, timeout: float = 600) -> tuple[int, str, str, float]:
    """Exit status, stdout, stderr and CPU seconds of ``python -m tactl.cli ARGS``."""
    p, cpu = child_cpu(lambda: subprocess.run([sys.executable, "-m", "tactl.cli", *args],
                                              capture_output=True, text=True, timeout=timeout, cwd=FINDINGS))
    return p.returncode, p.stdout, p.stderr, cpu


def test_every_reproducer_has_a_row():
    files = sorted(p.name for p in FINDINGS.iterdir() if p.is_file())
    assert [f for f in files if f not in ROWS and f not in HELPERS] == []


@pytest.mark.parametrize("name", sorted(ROWS))
def test_reproducer_behaves_as_promised(name):
    row = ROWS[name]
    json_args = ("--json",) if row.args[0] == "check" else ()
    code, out, err, cpu = run(*row.args, str(FINDINGS / row.file), *json_args)
    doc = json.loads(out) if json_args and code in (0, 1, 3) else None
    row.promise(code, doc, out + err, cpu)
