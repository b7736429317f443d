"""The driver's check and emit (tactl/driver/commands.py): one reading per command, and the same
options whichever command (check, emit, verify) builds them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from tactl.driver import commands, pipeline
from tactl.ir.errors import InputError

CORPUS = REPO / "corpus"
STRB = CORPUS / "strb" / "strb.alg"


def test_check_reads_the_program_once(monkeypatch):
    """check's multi-round conclusion reads the program the parse pass read, not the file."""
    calls = []
    real = pipeline.parse_loaded
    monkeypatch.setattr(pipeline, "parse_loaded", lambda *a: calls.append(a) or real(*a))
    loaded = commands.load(CORPUS / "benor_rounds" / "benor_rounds.alg")
    assert len(calls) == 1
    assert commands._rounds(CORPUS / "benor_rounds" / "benor_rounds.alg", loaded.written) is not None
    assert len(calls) == 1


def test_cli_and_verify_build_the_same_engine_options():
    loaded = commands.load(STRB).checkable
    request = commands.CheckRequest(STRB, properties=("relay",))
    _, from_cli, _ = pipeline.check_options(loaded, request.options(), ("relay",))
    verify_options = {**pipeline.CHECK_DEFAULTS, "property": "relay", "engine": "parametric",
                      "parameters": {}}
    _, from_verify, _ = pipeline.check_options(loaded, verify_options, ("relay",))
    assert from_cli == from_verify


def test_the_process_model_runs_the_translated_receive_automaton():
    loaded = commands.load(STRB).checkable
    _, options, _ = pipeline.check_options(loaded, {"engine": "spin", "model": "process"}, ())
    assert options.receive_automaton is loaded.receive is not None
    ta_only = commands.load(CORPUS / "strb" / "strb.ta").checkable
    with pytest.raises(InputError, match="the process model runs a receive automaton"):
        pipeline.check_options(ta_only, {"engine": "spin", "model": "process"}, ())


def test_emit_and_verify_run_the_same_emit_pass():
    request = commands.EmitRequest(STRB, "nuxmv", bound=3)
    text = commands.emit_model(request, lambda message: None)
    loaded = commands.load(STRB).checkable
    step = next(p for p in pipeline.PASSES if p.name == "emit-nuxmv")
    assert text == pipeline.Runner().run(step, loaded, {"smv_bound": 3, "source": str(STRB)})


def test_allow_outside_rc_says_which_condition_fails():
    loaded = commands.load(STRB).checkable
    ta, _, note = pipeline.without_rc(loaded.ta, loaded.receive, {"n": 3, "t": 1, "f": 1})
    assert ta.assumptions == () and "n > 3 * t" in note
    assert pipeline.without_rc(loaded.ta, None, {"n": 4, "t": 1, "f": 1})[2] is None
