"""Emitted SMT-LIB files are standalone: z3 and cvc5, each as a process of its own, give the same
answer on every one, and it is ``tactl check``'s verdict (unsat = holds, sat = violated)."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import CORPUS, DATA, isola18_params
from tactl.engines import solvers

TIMEOUT_S = 60.0
EXPECTED = {solvers.UNSAT: "holds", solvers.SAT: "violated"}

_missing = [s for s in solvers.SOLVERS if solvers.available(s) is None]
pytestmark = pytest.mark.skipif(
    bool(_missing),
    reason=f"{' and '.join(_missing)} not available: need a z3 executable (z3-solver installs one) and "
           "a cvc5 executable on PATH or the cvc5 Python package (pip install -e '.[test]')")


def _own_files():
    files = sorted(CORPUS.rglob("*.ta")) + sorted((DATA / "check").glob("*.ta"))
    return [pytest.param(p, id=str(p.relative_to(p.parents[1]))) for p in files]


def _solvers_agree_with_check(cli, path: Path, out: Path) -> None:
    emitted = cli("emit", path, "--to", "smtlib", "-o", out)
    # 0: files written; 2: the automaton cannot be encoded; 3: no safety property to encode
    assert emitted.code in (0, 2, 3), emitted.err
    checked = cli("check", path, "--json")
    assert checked.code in (0, 1, 3), checked.err
    verdicts = {p["name"]: p["verdict"] for p in json.loads(checked.out)["properties"]}

    # One file per property, or one per branch of its negation (NAME.branchK.smt2): the property
    # is violated iff some branch is satisfiable; or, for an automaton the steady-schema queries
    # cannot encode (resets), its invariant's three checks (NAME.invariant.K.smt2), all unsat.
    files = {f.name.removeprefix(f"{path.stem}.").removesuffix(".smt2"): f
             for f in sorted(out.glob("*.smt2"))} if out.is_dir() else {}
    # A liveness property of a reset automaton has its proof's question (NAME.without-resets.reach):
    # written whether or not the proof succeeds, so `sat` there means "no proof", not "violated".
    proof = {name for name in files if ".without-resets." in name}
    owner = {name: name.split(".branch")[0].split(".invariant.")[0].split(".without-resets.")[0] for name in files}
    decided = {name for name, v in verdicts.items() if v in ("holds", "violated")}
    undecided_owners = set(owner.values()) - decided
    assert decided <= set(owner.values()) and all(n in proof for n in files if owner[n] in undecided_owners), \
        f"emitted {sorted(files)}, but check decided {sorted(decided)}"

    jobs = [(name, solver) for name in files for solver in solvers.SOLVERS]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = dict(zip(jobs, pool.map(lambda job: solvers.run(job[1], files[job[0]], TIMEOUT_S), jobs)))
    problems = []
    answers_of: dict[str, list[str]] = {}
    for name, f in files.items():
        z3, cvc5 = runs[name, "z3"], runs[name, "cvc5"]
        answers = f"z3 {z3.answer}, cvc5 {cvc5.answer}"
        if not (z3.decided and cvc5.decided):
            problems.append(f"{f.name}: {answers} ({z3.message or cvc5.message})")
        elif z3.answer != cvc5.answer:
            problems.append(f"{f.name}: solvers disagree: {answers}")
        elif name in proof:
            if verdicts[owner[name]] == "holds" and z3.answer != solvers.UNSAT:
                problems.append(f"{f.name}: {answers}, but the HOLDS of {owner[name]} rests on its unsat")
        else:
            answers_of.setdefault(owner[name], []).append(z3.answer)
    for prop, answers in answers_of.items():
        verdict = "violated" if solvers.SAT in answers else "holds"
        if len(answers) == sum(o == prop for n, o in owner.items() if n not in proof) and verdict != verdicts[prop]:
            problems.append(f"{prop}: solvers say {verdict} ({answers}), but tactl check says {verdicts[prop]}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", _own_files())
def test_own_files(cli, tmp_path, path):
    _solvers_agree_with_check(cli, path, tmp_path / "smt")


@pytest.mark.slow  # cvc5 1.4.2 needs ~8 s on each c1cs query; all of ISOLA'18 ~30 s
@pytest.mark.parametrize("path", isola18_params())
def test_isola18(cli, tmp_path, path):
    _solvers_agree_with_check(cli, path, tmp_path / "smt")


def test_solver_errors_are_reported(tmp_path):
    bad = tmp_path / "bad.smt2"
    bad.write_text("(set-logic QF_LIA)\n(declare-const x Int)\n(assert (> x y))\n(check-sat)\n")
    for solver in solvers.SOLVERS:
        run = solvers.run(solver, bad, TIMEOUT_S)
        assert run.answer == solvers.ERROR and "y" in run.message, run
