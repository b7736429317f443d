"""What ``tactl check`` of a small ``.ta`` file leaves unloaded: its start-up is most of its cost
(docs/bench.md, the start-up table), so the modules only other inputs or commands need stay out
of it: lark and its parse tables (a plain .ta file is read by ir/ta/fast_reader.py), the cache's
hashing (only ``verify`` has a cache), the receive automaton's reader and model; the automaton's
JSON form, a synchronous property's hypothesis and the step-by-step run table (a check that holds
shows no run); Python's json (only ``--json``, ``--sarif``, the cache and JSON input use it)."""

from __future__ import annotations

import subprocess
import sys

from conftest import CORPUS

UNLOADED = ("lark", "hashlib", "tactl.driver.cache", "tactl.ir.rta.reader", "tactl.ir.rta.model",
            "tactl.ir.ta.json_form", "tactl.ir.json_shape", "tactl.ir.alg.hypothesis", "tactl.report.run_steps", "json")


def test_checking_a_ta_file_loads_no_grammar_and_no_cache():
    script = ("import sys, io; from tactl.cli.entry import main; sys.stdout = io.StringIO(); "
              f"code = main(['check', {str(CORPUS / 'strb' / 'strb.ta')!r}]); sys.stdout = sys.__stdout__; "
              f"print(code, sorted(m for m in sys.modules if m in {UNLOADED!r} or m.startswith('lark.')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0 []"
