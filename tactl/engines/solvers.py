"""Run an independent SMT solver process on an SMT-LIB2 file (what ``tactl emit --to smtlib`` writes,
and what ``tactl check --certify`` hands to cvc5).

``z3`` is the executable that the z3-solver wheel installs next to the Python interpreter (or one
on PATH). ``cvc5`` is a ``cvc5`` executable on PATH when there is one; the cvc5 wheel on PyPI ships
only Python bindings, so otherwise a separate ``python -c`` process reads the file with the
bindings' SMT-LIB parser (``cvc5.InputParser``) and runs its commands, printing what the
command-line solver would. Either way the solver is a process of its own with a timeout.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

SOLVERS = ("z3", "cvc5")
SAT, UNSAT, UNKNOWN, TIMEOUT, ERROR = "sat", "unsat", "unknown", "timeout", "error"
DEFAULT_TIMEOUT_S = 120.0

# Runs every command of an SMT-LIB file through cvc5's own parser, printing the solver's answers;
# an error prints "(error ...)" and exits 1, as the command-line solver does.
_CVC5_API_SCRIPT = r"""
import sys
import cvc5
solver = cvc5.Solver(cvc5.TermManager()) if hasattr(cvc5, "TermManager") else cvc5.Solver()
try:
    parser = cvc5.InputParser(solver)
    parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, sys.argv[1])
    symbols = parser.getSymbolManager()
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        sys.stdout.write(command.invoke(solver, symbols))
        sys.stdout.flush()
except Exception as e:
    message = str(e).replace(chr(10), " ").replace('"', "'")
    print(f'(error "{type(e).__name__}: {message}")')
    sys.exit(1)
"""


@dataclass(frozen=True)
class SolverRun:
    solver: str
    answer: str  # sat | unsat | unknown | timeout | error
    seconds: float
    how: str  # the executable, or "cvc5 X.Y.Z Python API"
    message: str = ""  # for an error: what the solver printed

    @property
    def decided(self) -> bool:
        return self.answer in (SAT, UNSAT)


def command(solver: str) -> tuple[list[str], str] | None:
    """The command prefix (the .smt2 path is appended) and a description, or None if unavailable."""
    if solver == "z3":
        for folder in (Path(sysconfig.get_path("scripts")), Path(sys.executable).parent):
            exe = folder / "z3"
            if exe.is_file():
                return [str(exe)], str(exe)
        exe = shutil.which("z3")
        return ([exe], exe) if exe else None
    if solver == "cvc5":
        exe = shutil.which("cvc5")
        if exe:
            return [exe], exe
        spec = importlib.util.find_spec("cvc5")
        if spec is None:
            return None
        try:
            label = f"cvc5 {version('cvc5')} Python API"
        except PackageNotFoundError:
            label = "cvc5 Python API"
        return [sys.executable, "-c", _CVC5_API_SCRIPT], label
    raise ValueError(f"unknown solver '{solver}'; choose {' or '.join(SOLVERS)}")


def available(solver: str) -> str | None:
    """How ``solver`` would be run, or None when it is not installed."""
    found = command(solver)
    return found[1] if found else None


def run(solver: str, path: str | Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> SolverRun:
    """Answer of ``solver`` on the SMT-LIB2 file ``path`` (one ``check-sat`` expected)."""
    found = command(solver)
    if found is None:
        return SolverRun(solver, ERROR, 0.0, "", f"{solver} is not installed")
    prefix, how = found
    start = time.perf_counter()
    try:
        proc = subprocess.run([*prefix, str(path)], capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return SolverRun(solver, TIMEOUT, time.perf_counter() - start, how, f"no answer within {timeout_s:g} s")
    seconds = time.perf_counter() - start
    lines = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("(error")]
    answers = [line for line in lines if line in (SAT, UNSAT, UNKNOWN)]
    if errors or proc.returncode != 0 or len(answers) != 1:
        detail = " ".join(lines[lines.index(errors[0]):]) if errors else \
            (proc.stderr.strip() or proc.stdout.strip() or "no output")
        if not errors and proc.returncode == 0:
            detail = f"expected one check-sat answer, got {len(answers)}: {detail}"
        return SolverRun(solver, ERROR, seconds, how, f"exit {proc.returncode}: {detail}"[:2000])
    return SolverRun(solver, answers[0], seconds, how)
