"""The space–time diagram of a counterexample (tactl/report/spacetime.py) and ``tactl check
--cex-svg``: drawn from real counterexamples of weakened STRB copies (the parametric engine finds
them, the simulator replays them), checked against the counterexample itself — lanes that add up
to the correct processes, an arrow per message a step sends to another lane, a faulty arrow per
step whose guard needed the faulty senders' ``+ f`` — and parsed as XML."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import CORPUS
from tactl.driver.inputs import load_automaton
from tactl.engines.check import CheckOptions, check_automaton
from tactl.ir.rta.model import FaultModel, Faults, ReceiveTA
from tactl.report.spacetime import FAULTY_COLOUR, build_diagram, diagram_svg, fault_parameters

STRB = CORPUS / "strb" / "strb.alg"
SVG = "{http://www.w3.org/2000/svg}"


def mutant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = STRB.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{name}.alg"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def weak(tmp_path_factory) -> Path:
    """Relay threshold t + 1 → t: one faulty ECHO makes a correct process echo (unforgeability
    violated by a run)."""
    return mutant(tmp_path_factory.mktemp("st"), "strb_relay_t", "from t + 1 distinct", "from t distinct")


@pytest.fixture(scope="module")
def weak_accept(tmp_path_factory) -> Path:
    """Accept threshold n - t → t + 1: relay violated by a lasso."""
    return mutant(tmp_path_factory.mktemp("st"), "strb_accept", "from n - t distinct", "from t + 1 distinct")


def violated(path: Path, name: str, parameters: dict[str, int] | None = None):
    loaded = load_automaton(path)
    report = check_automaton(loaded.ta, loaded.path, CheckOptions(parameters=parameters or {}))
    result = next(r for r in report.results if r.name == name)
    assert result.verdict == "violated" and result.counterexample is not None and result.counterexample.replayed
    prop = next(p for p in loaded.ta.properties if p.name == name)
    return loaded, result.counterexample, prop


def check_against_counterexample(loaded, cex, diagram) -> None:
    """Lanes partition the correct processes; every step's factor is the lanes that move in it;
    every sending event sends to every other correct lane."""
    ta = loaded.ta
    correct = [lane for lane in diagram.lanes if not lane.faulty]
    assert sum(lane.size for lane in correct) == sum(dict(cex.initial.counters).values())
    sizes = {lane.index: lane.size for lane in diagram.lanes}
    steps = list(cex.schedule) + list(cex.cycle or [])
    moved = Counter()
    for event in diagram.events:
        if event.row <= len(steps):
            moved[event.row] += sizes[event.lane]
    assert dict(moved) == {row: step.factor for row, step in enumerate(steps, start=1)}
    senders = [e for e in diagram.events if e.sends]
    assert all(ta.rules[steps[e.row - 1].rule].updates for e in senders)
    correct_arrows = [a for a in diagram.arrows if not a.faulty]
    assert len(correct_arrows) == len(senders) * (len(correct) - 1)
    faulty_arrows = [a for a in diagram.arrows if a.faulty]
    assert len(faulty_arrows) == sum(1 for e in diagram.events if e.faulty_counted)


def parsed(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == SVG + "svg"
    return root


def test_a_run_violating_safety(weak):
    # the minimal counterexample has f = 0 (no faulty lane to draw); with f fixed to 1 the
    # smallest run that uses a faulty process is drawn
    loaded, cex, prop = violated(weak, "unforgeability", {"f": 1})
    faulty = fault_parameters(loaded.ta, loaded.receive, "alg")
    assert faulty == ("f",)
    diagram = build_diagram(loaded.ta, cex, "unforgeability", faulty, prop.formula)
    check_against_counterexample(loaded, cex, diagram)
    assert cex.parameters["f"] > 0
    assert diagram.lanes[-1].faulty and diagram.lanes[-1].size == cex.parameters["f"]
    # nobody starts with v == 1: the first echo is only possible with faulty ECHOs
    first = min(e.row for e in diagram.events)
    assert all(e.faulty_counted > 0 for e in diagram.events if e.row == first)
    # the violation: the first configuration with a process in accept
    assert diagram.violation is not None and diagram.loop is None
    accept = [dict(c.counters)["accept"] for c in cex.replay.configurations]
    assert diagram.violation == next(i for i, n in enumerate(accept) if n > 0)
    root = parsed(diagram_svg(diagram))
    lanes = root.findall(f".//{SVG}g[@class='lanes']/{SVG}g")
    assert len(lanes) == len(diagram.lanes)
    arrows = root.findall(f".//{SVG}line")
    assert sum(1 for a in arrows if (a.get("class") or "").startswith("arrow")) == len(diagram.arrows)
    assert sum(1 for a in arrows if a.get("class") == "arrow faulty") == sum(a.faulty for a in diagram.arrows) > 0
    assert any(a.get("stroke") == FAULTY_COLOUR for a in arrows)
    assert root.find(f".//{SVG}g[@class='violation']") is not None


def test_a_lasso_marks_its_loop(weak_accept):
    loaded, cex, prop = violated(weak_accept, "relay")
    diagram = build_diagram(loaded.ta, cex, "relay", fault_parameters(loaded.ta, loaded.receive, "alg"),
                            prop.formula)
    check_against_counterexample(loaded, cex, diagram)
    assert diagram.violation is None and diagram.loop is not None
    assert diagram_svg(diagram) == diagram_svg(build_diagram(
        loaded.ta, cex, "relay", fault_parameters(loaded.ta, loaded.receive, "alg"), prop.formula))  # deterministic
    root = parsed(diagram_svg(diagram))
    assert root.find(f".//{SVG}g[@class='loop']") is not None


def test_no_faulty_lane_without_faulty_processes(tmp_path):
    # a false property, violated with f = 0: all start with v == 1, so they all accept
    path = mutant(tmp_path, "strb_false", "initially (no v == 1) -> always (no accept)",
                  "initially (all v == 1) -> always (no accept)")
    loaded, cex, prop = violated(path, "unforgeability", {"n": 4, "t": 1, "f": 0})
    diagram = build_diagram(loaded.ta, cex, "unforgeability",
                            fault_parameters(loaded.ta, loaded.receive, "alg"), prop.formula)
    check_against_counterexample(loaded, cex, diagram)
    assert not any(lane.faulty for lane in diagram.lanes) and not any(a.faulty for a in diagram.arrows)
    assert FAULTY_COLOUR not in diagram_svg(diagram)


def test_fault_parameters_follow_the_fault_model():
    loaded = load_automaton(STRB)
    ta, rta = loaded.ta, loaded.receive

    def under(model: FaultModel, *parameters: str) -> ReceiveTA:
        return replace(rta, faults=Faults(model, parameters))

    assert fault_parameters(ta, rta, "alg") == ("f",)  # strb.alg: faults byzantine(f)
    assert fault_parameters(ta, under(FaultModel.CRASH, "f"), "alg") == ()  # crashed processes send nothing extra
    assert fault_parameters(ta, under(FaultModel.SYMMETRIC, "fp", "fs"), "rta") == ("fp", "fs")
    assert fault_parameters(ta, under(FaultModel.HYBRID, "fb", "fc"), "rta") == ("fb",)
    assert fault_parameters(ta, None, "ta") == ("f",)
    # a .pml keeps the parameter named f, whatever its fault model names (spacetime.py says why)
    assert fault_parameters(ta, under(FaultModel.BYZANTINE, "F"), "pml") == ("f",)


# ------------------------------------------------------------------------------ the CLI


def tactl(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tactl.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_cli_writes_the_diagram(weak, tmp_path):
    out = tmp_path / "cex.svg"
    done = tactl("check", str(weak), "--cex-svg", str(out), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"wrote {out}" in done.stderr and "unforgeability" in done.stderr
    root = parsed(out.read_text(encoding="utf-8"))
    assert "unforgeability" in (root.findtext(f"{SVG}title") or "")
    assert [p.name for p in tmp_path.iterdir()] == ["cex.svg"]  # atomic: no temporary left


def test_cli_writes_nothing_when_nothing_is_violated(tmp_path):
    out = tmp_path / "cex.svg"
    done = tactl("check", str(STRB), "--cex-svg", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no property is violated" in done.stderr and "nothing written" in done.stderr
    assert not out.exists()


@pytest.mark.parametrize("where, says", [("missing/cex.svg", "does not exist"), (".", "is a directory")])
def test_cli_refuses_a_bad_path(weak, tmp_path, where, says):
    done = tactl("check", str(weak), "--cex-svg", str(tmp_path / where), cwd=tmp_path)
    assert done.returncode == 2
    assert says in done.stderr and "Traceback" not in done.stderr
    assert "unforgeability" not in done.stdout  # refused before checking anything
