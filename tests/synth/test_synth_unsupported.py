"""What synthesize says when it cannot decide: a synchronous algorithm is refused before any
candidate is tried (its lock-step check needs each candidate's receive automaton, so every
candidate would come back unsupported one point at a time), and candidates no engine decided
make the answer incomplete (exit 3), never "no candidate makes every property hold"."""

from __future__ import annotations

import json

from conftest import CORPUS
from synth_files import DATA
from tactl.ir.ta.reader import read_ta_file
from tactl.synth.cegis import SynthesisOptions, synthesize


def test_a_synchronous_algorithm_is_not_searched(cli, tmp_path):
    text = (CORPUS / "floodmin" / "floodmin.alg").read_text()
    assert "resilience n > t, t >= f, f >= 0\n" in text
    program = tmp_path / "floodmin_k.alg"
    program.write_text(text.replace("resilience n > t, t >= f, f >= 0\n",
                                    "resilience n > ?k * t, t >= f, f >= 0\nunknowns ?k in 0..30\n"))
    result = cli("synthesize", program)
    assert result.code == 3
    assert "nothing was searched: synthesis of a synchronous (timing sync) algorithm is not supported" in result.out
    assert "no candidate of the space makes every property hold" not in result.out
    doc = json.loads(cli("synthesize", program, "--json").out)
    assert doc["complete"] is False and doc["candidates_tried"] == 0 and doc["solutions"] == []
    assert "not supported" in doc["unsupported"]


def test_undecided_candidates_make_the_answer_incomplete():
    ta = read_ta_file(DATA / "strb_resilience.ta").ta
    result = synthesize(ta, SynthesisOptions(path="strb_resilience.ta", recheck=False))
    assert result.complete and result.exit_code == 0
    result.undecided.append(({"k": 9}, "an engine answered unknown"))
    assert result.exit_code == 3
