"""``emit``: an automaton's verification questions written for an external tool (SMT-LIB files,
a Promela model for SPIN, an SMV model for NuSMV/nuXmv)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tactl.cli.app import (EXIT_UNKNOWN, Command, DefineOption, InputFile, ParamOption, PropertyOption, app,
                           checked_defines, checked_parameters, info, receive_mode, suggestion, usage_error,
                           warn)
from tactl.util.fsutil import check_output_directory, inside, is_stdout, make_directory, same_file, write_output


_TARGETS = ("smtlib", "promela", "nuxmv")


@app.command(cls=Command, short_help="Write SMT-LIB, Promela or SMV for external tools.", help="Write an automaton's verification questions for an external tool.\n\n"
                  "--to smtlib writes one standalone SMT-LIB2 file per property (one per branch when "
                  "its negation has a temporal '||': <name>.<property>.branchK.smt2) into the "
                  "directory OUT (OUT/<name>.<property>.smt2, logic QF_LIA): the very query 'tactl "
                  "check' answers, so 'unsat' from z3 or cvc5 means the property holds for every "
                  "parameter valuation satisfying the resilience condition, and 'sat' that it is "
                  "violated. --param adds fixed parameter values to the queries. With --invariant "
                  "(and for an automaton those queries do not encode, e.g. one with resets) it "
                  "writes instead, for each safety property the chc engine proves, the three "
                  "checks of its inductive invariant (<name>.<property>.invariant.initiation|"
                  "consecution|safety.smt2), each expected unsat from z3 and cvc5. For a "
                  "synchronous algorithm (timing sync) it writes the questions each lock-step "
                  "HOLDS rests on (<name>.<property>.lockstepNN.<question>.smt2: guard "
                  "completeness, phases, the diameter, the bounded checks), each expected unsat.\n\n"
                  "--to promela writes one Promela file OUT (.pml) for SPIN at fixed parameters "
                  "(every --param given; values must satisfy the resilience condition unless "
                  "--allow-outside-rc): --model counter (default; one counter per location, from "
                  "any TA, the specifications as ltl blocks) or --model process (one proctype per "
                  "modelled process running the receive automaton of an .rta/.alg; fairness for "
                  "liveness: run pan with -a -f).\n\n"
                  "--to nuxmv writes one SMV file OUT (.smv) for NuSMV/nuXmv: with every --param "
                  "fixed, or parameters as FROZENVARs over 0..--bound with the resilience condition "
                  "as INVAR (one run covers every valuation up to the bound), or --unbounded "
                  "(integer types, for nuXmv's infinite-state engines).")
def emit(
    file: InputFile,
    to: Annotated[str, typer.Option("--to", metavar="TARGET", help="smtlib, promela or nuxmv.")],
    output: Annotated[Path, typer.Option("-o", "--output", metavar="OUT", help="smtlib: a directory "
                                         "to write into (created if missing); promela, nuxmv: the "
                                         "file to write.")],
    properties: PropertyOption = None,
    params: ParamOption = None,
    model: Annotated[str, typer.Option("--model", metavar="M", help="promela: counter or process.")] = "counter",
    partition: Annotated[bool, typer.Option("--partition/--no-partition", help="promela process "
                                            "model: initial locations by integer partitions.")] = False,
    receive_steps: Annotated[str, typer.Option("--receive", metavar="R", help="promela process model: "
                                         "auto (forced receive steps where sound), forced or "
                                         "lazy.")] = "auto",
    bound: Annotated[Optional[int], typer.Option("--bound", min=0, max=1000, metavar="B",
                                                 help="nuxmv: parameters not fixed by --param "
                                                      "range over 0..B.")] = None,
    unbounded: Annotated[bool, typer.Option("--unbounded", help="nuxmv: integer types, no bounds "
                                            "(for nuXmv's infinite-state engines).")] = False,
    allow_outside_rc: Annotated[bool, typer.Option("--allow-outside-rc", help="promela, nuxmv: "
                                                   "accept --param values that violate the "
                                                   "resilience condition.")] = False,
    define: DefineOption = None,
    invariant: Annotated[bool, typer.Option("--invariant", help="smtlib: the chc engine's "
                                            "inductive-invariant checks (Spacer finds the "
                                            "invariants) instead of the steady-schema queries.")] = False,
) -> None:
    if to not in _TARGETS:
        raise usage_error(file, f"unknown target '{to}'; choose one of {', '.join(_TARGETS)}"
                                + suggestion(to, _TARGETS))
    from tactl.driver.commands import EmitRequest  # lazy: the driver's emit

    if invariant and to != "smtlib":
        raise usage_error(file, "--invariant is an option of --to smtlib")
    defines = checked_defines(define, file)
    if to != "smtlib":
        fixed = checked_parameters(params, file)
        return _emit_model(EmitRequest(file, to, tuple(properties or ()), fixed, model, partition,
                                       receive_mode(file, receive_steps), bound, unbounded,
                                       allow_outside_rc, defines), output)
    check_output_directory(output)
    _emit_smtlib(EmitRequest(file, to, tuple(properties or ()), checked_parameters(params, file),
                             defines=defines, invariant=invariant), output)


def _emit_smtlib(request, output: Path) -> None:
    """``emit --to smtlib``: the driver's query files, written into the directory ``output`` and
    named after the input file."""
    from tactl.driver.commands import emit_smtlib  # lazy: the driver's emit

    loaded, emitted = emit_smtlib(request, warn)
    ta, file = loaded.ta, request.file
    stem = ta.name if is_stdout(file) else file.stem
    written = []
    for name, text in emitted["files"].items():  # named after the automaton; here after the file
        make_directory(output)
        target = inside(output, stem + name[len(ta.name):])
        write_output(target, text)
        written.append(target)
    for line in emitted["skipped"]:
        typer.echo(f"skipped {line}", err=True)
    for target in written:
        info(f"wrote {target}", err=True)
    if not written:
        typer.echo("tactl: nothing written: no property could be encoded", err=True)
        raise typer.Exit(EXIT_UNKNOWN)


_MODEL_SUFFIX = {"promela": ".pml", "nuxmv": ".smv"}


def _emit_model(request, output: Path) -> None:
    """``emit --to promela|nuxmv``: the driver's model, written atomically to ``output``."""
    # lazy: only this command needs it; --help starts without it
    from tactl.driver.commands import emit_model
    from tactl.engines.check import SPIN_MODELS

    file, to = request.file, request.to
    if output.suffix.lower() != _MODEL_SUFFIX[to] and not is_stdout(output):
        raise usage_error(output, f"--to {to} writes one file: -o X{_MODEL_SUFFIX[to]} (or '-')")
    if same_file(output, file):
        raise usage_error(output, "refusing to overwrite the input file")
    if request.model not in SPIN_MODELS:
        raise usage_error(file, f"unknown model '{request.model}'; choose {' or '.join(SPIN_MODELS)}")
    text = emit_model(request, warn)
    if is_stdout(output):
        typer.echo(text, nl=False)
        return
    write_output(output, text)
    info(f"wrote {output}", err=True)
