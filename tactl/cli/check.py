"""``check`` (decide an automaton's properties with one of the engines, or an .alg program's with
the reference interpreter) and ``run`` (one random run of an .alg program)."""

# No `from __future__ import annotations`: Typer reads a command's parameters with
# typing.get_type_hints, which compiles and evaluates every annotation written as a string, twice
# per command it builds, in every process; written as objects they are made once, at import.

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from tactl import __version__
from tactl.cli.app import (EXIT_UNKNOWN, Command, DefineOption, InputFile, MinimizeOption, ParamOption,
                           ProgressOption, PropertyOption, QuietOption, TimeoutOption, VerboseOption, app, checked_defines,
                           checked_parameters, info, progress_display, receive_mode, set_verbosity,
                           start_clock, suggestion, usage_error, verbosity, warn)
from tactl.cli.ci_outputs import ItfOption, SarifOption, refuse_bad_outputs, write_check_outputs
from tactl.util import deadline
from tactl.util.fsutil import write_output


@app.command(cls=Command, short_help="Decide an automaton's properties for every n, t, f.", help="Decide the properties of an automaton for every parameter valuation that "
                  "satisfies its resilience condition: reachability safety, nested safety and "
                  "liveness under justice (ByMC's ELTL-FT; the class is shown per property). "
                  "Exit status: 0 all hold, 1 a property is violated, 2 bad input, 3 unknown, "
                  "unsupported or vacuous, 130/143 interrupted. How the engines decide: after "
                  "the options.",
             epilog="The parametric engine (default) asks one SMT query per property (steady "
                  "segments with cut points, z3): HOLDS means for all n, t, f; VIOLATED comes with "
                  "parameter values and a run that an independent simulator has replayed on the "
                  "negated specification — for liveness a lasso: a schedule, then a self-loop taken "
                  "forever. Runs are infinite only through enabled self-loops that update nothing; "
                  "a deadlock is never a liveness counterexample, and fairness is only what the "
                  "specification's <>[](...) says. The explicit engine enumerates the counter "
                  "system for small fixed parameters (--param, --bound) and is a bounded sanity "
                  "check, not a proof. Formulas outside the fragment are UNSUPPORTED, with the "
                  "reason. A synchronous automaton (timing sync, from an .rta or .alg) is checked "
                  "in lock-step rounds instead: a diameter, then bounded checks up to it (HOLDS "
                  "for all n, t, f only with a diameter), counterexamples as rounds; hypotheses "
                  "('assuming clean round') are read from the property, never from its name. "
                  "Every HOLDS says whether it is vacuous: the same engine asks whether any run "
                  "meets the property's antecedents (initially …, the p of [](p -> <>q), the "
                  "justice); none does: HOLDS VACUOUSLY. A .pml file's liveness (parametric engine, "
                  "no --param) is decided under the file's own 'ltl fairness' formula, where a "
                  "process that has every message may stop for good; the verdict under tactl's "
                  "derived justice is shown beside it where the two differ.")
def check(
    file: InputFile,
    properties: PropertyOption = None,
    engine: Annotated[str, typer.Option("--engine", metavar="E",
                                        help="parametric (SMT, all parameters), explicit (state "
                                             "enumeration, fixed small parameters), spin or nusmv "
                                             "(the external model checkers on one instance: every "
                                             "--param given), or source (the reference interpreter "
                                             "of an .alg program: every run at the --param values, "
                                             "no translation; for a .pml file, SPIN on the file "
                                             "itself), or chc (safety of any automaton, resets "
                                             "included: Horn clauses solved by z3's Spacer, an "
                                             "invariant re-checked by z3 and cvc5; a bounded "
                                             "search for a violation when Spacer gives no answer). "
                                             "parametric gives the safety properties it cannot "
                                             "decide (resets, decrements) to chc itself.")] = "parametric",
    params: ParamOption = None,
    model: Annotated[str, typer.Option("--model", metavar="M", help="spin: 'counter' (one counter "
                                       "per location, from any TA) or 'process' (one Promela "
                                       "process per modelled process running the receive "
                                       "automaton, from an .rta/.alg: checks the translation end "
                                       "to end).")] = "counter",
    partition: Annotated[bool, typer.Option("--partition/--no-partition", help="spin process model: "
                                            "initial locations by integer partitions (symmetry "
                                            "reduction of the initial configurations only; "
                                            "measured: fewer initial states, about as many "
                                            "reachable ones).")] = False,
    receive_steps: Annotated[str, typer.Option("--receive", metavar="R", help="spin process model: 'auto' "
                                         "(forced receive steps where sound, else lazy), 'forced' "
                                         "(one step receives a message and fires the rule it "
                                         "enables, as the experts' models) or 'lazy' (receives are "
                                         "steps of their own).")] = "auto",
    bmc: Annotated[Optional[int], typer.Option("--bmc", min=1, metavar="K", help="nusmv: SAT-based "
                                               "bounded model checking up to K steps (violated or "
                                               "unknown, never holds).")] = None,
    max_depth: Annotated[Optional[int], typer.Option("--max-depth", min=1, metavar="N", help="spin: pan's search "
                                                     "depth limit (-m).")] = None,
    memory_mb: Annotated[Optional[int], typer.Option("--memory-mb", min=1, metavar="MB", help="spin: pan's memory "
                                                     "limit in MB.")] = None,
    allow_outside_rc: Annotated[bool, typer.Option("--allow-outside-rc", help="spin/nusmv/explicit: "
                                                   "check --param values that violate the "
                                                   "resilience condition (how its tightness "
                                                   "shows).")] = False,
    bound: Annotated[int, typer.Option("--bound", min=0, max=10_000, metavar="B", help="Explicit engine: try every "
                                       "free parameter from 0 to this value.")] = 7,
    max_states: Annotated[int, typer.Option("--max-states", min=1, metavar="N", help="Explicit engine: give up "
                                            "(unknown) after this many configurations (source "
                                            "engine: global states, default 300,000).")] = 2_000_000,
    timeout: TimeoutOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
    progress: ProgressOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
    define: DefineOption = None,
    cex_svg: Annotated[Optional[Path], typer.Option(
        "--cex-svg", metavar="FILE", help="Also write the first counterexample as a space-time "
        "diagram (SVG): lanes of processes, steps downwards, messages as arrows, faulty senders "
        "in their own colour. Nothing is written when nothing is violated.")] = None,
    certify: Annotated[bool, typer.Option("--certify", help="parametric (lock-step rounds for a "
                                          "synchronous algorithm) and chc engines: re-ask "
                                          "every SMT query behind a HOLDS of a second solver, cvc5, "
                                          "on its SMT-LIB text (what emit --to smtlib writes); a "
                                          "HOLDS cvc5 does not confirm becomes UNKNOWN. The "
                                          "parametric engine then checks the automaton without "
                                          "its shortcut reduction. Needs cvc5 (pip install "
                                          "cvc5).")] = False,
    minimize: MinimizeOption = False,
    itf: ItfOption = None,
    sarif: SarifOption = None,
    repair: Annotated[bool, typer.Option("--repair", help="When a property is VIOLATED, search "
                                         "the nearest thresholds under which every property "
                                         "(not only those of -p) holds: each threshold's coefficients become unknowns "
                                         "around their written values, searched by growing "
                                         "distance (the synthesis loop of 'tactl synthesize'; "
                                         "an .alg program candidate by candidate through its "
                                         "translation). The verdicts and exit status stay the "
                                         "check's.")] = False,
    repair_resilience: Annotated[bool, typer.Option("--repair-resilience", help="With --repair: "
                                                    "the resilience condition's written "
                                                    "coefficients (the 3 of n > 3t) and a constant "
                                                    "may change too.")] = False,
    repair_range: Annotated[str, typer.Option("--repair-range", metavar="P,C", help="With --repair: "
                                              "each parameter's coefficient ranges over its "
                                              "written value ± P, each constant ± C.")] = "1,2",
) -> None:
    from tactl.driver.commands import CheckRequest  # lazy: the driver's check
    from tactl.driver.pipeline import SOURCE_ENGINE

    if engine == SOURCE_ENGINE:  # a second reading of the source: no translation, no automaton
        if itf is not None or sarif is not None:
            raise usage_error(file, "--itf and --sarif write the runs of the translated automaton; "
                                    "--engine source translates nothing")
        if certify:
            _certify_problem(file, engine)
        set_verbosity(quiet, verbose, str(file))
        request = CheckRequest(file, engine, tuple(properties or ()), checked_parameters(params, file),
                               max_states=max_states,
                               defines=checked_defines(define, file) if file.suffix.lower() == ".pml" else ())
        deadline.stop_on_signals()
        start_clock(timeout)
        _check_source(request, as_json)
    # lazy: the checker and its engines load only for check
    from tactl.engines.check import ENGINES, SPIN_MODELS
    from tactl.report.check_json import report_json
    from tactl.report.check_text import report_text

    if engine not in ENGINES:
        raise usage_error(file, f"unknown engine '{engine}'; choose {', '.join(ENGINES)}"
                                f" or {SOURCE_ENGINE}" + suggestion(engine, (*ENGINES, SOURCE_ENGINE)))
    if model not in SPIN_MODELS:
        raise usage_error(file, f"unknown model '{model}'; choose {' or '.join(SPIN_MODELS)}")
    if model != "counter" and engine != "spin":
        raise usage_error(file, "--model is an option of --engine spin")
    if bmc is not None and engine != "nusmv":
        raise usage_error(file, "--bmc is an option of --engine nusmv")
    if certify:
        _certify_problem(file, engine)
    request = CheckRequest(file, engine, tuple(properties or ()), model=model, partition=partition,
                           receive=receive_mode(file, receive_steps), parameters=checked_parameters(params, file),
                           defines=checked_defines(define, file), bmc=bmc, max_depth=max_depth,
                           memory_mb=memory_mb, allow_outside_rc=allow_outside_rc, bound=bound,
                           max_states=max_states, certify=certify, minimize=minimize)
    set_verbosity(quiet, verbose, str(file))
    if cex_svg is not None:
        from tactl.report.spacetime import output_problem  # lazy: only with --cex-svg

        problem = output_problem(cex_svg, file)
        if problem:
            raise usage_error(cex_svg, problem)
    refuse_bad_outputs((file,), itf=itf, sarif=sarif)
    lift = _repair_options(file, repair or repair_resilience, repair_resilience, repair_range)
    deadline.stop_on_signals()
    start_clock(timeout)
    outcome = _check_file(request, progress, as_json)
    report = outcome.report
    repaired = _repair(file, report, lift, progress) if lift is not None else None
    rounds = None
    if outcome.rounds is not None:
        from tactl.report.rounds import MultiRound  # lazy: only for `rounds carrying`

        rounds = MultiRound(*outcome.rounds)
    if as_json:
        import json  # lazy: only --json output

        data = report_json(report)
        if rounds is not None:
            from tactl.report.rounds import conclusion_json  # lazy: only for `rounds carrying`

            data["multi_round"] = conclusion_json(rounds, report.results)
        if repaired is not None:
            data["repair"] = repaired.json()
        typer.echo(json.dumps(data, indent=2))
    else:
        typer.echo(report_text(report, full=verbosity["verbose"]))
        if rounds is not None:
            from tactl.report.rounds import conclusion_lines  # lazy: only for `rounds carrying`

            typer.echo("\n".join(conclusion_lines(rounds, report.results)))
        if repaired is not None:
            from tactl.report.repair_text import repair_lines  # lazy: only with --repair

            typer.echo("\n".join(repair_lines(repaired)))
    if cex_svg is not None:
        _write_cex_svg(cex_svg, report, file.suffix.lower().lstrip("."))
    write_check_outputs(file, report, outcome.source, itf, sarif)
    if report.interrupted is not None:  # what was decided is printed; the exit says interrupted
        raise report.interrupted
    if repaired is not None and repaired.interrupted is not None:  # the same for the repair's search
        raise repaired.interrupted
    raise typer.Exit(report.exit_code)


def _repair_options(file: Path, wanted: bool, resilience: bool, ranges: str):
    """``--repair``'s lifting options, checked before anything runs; None without --repair."""
    if not wanted:
        return None
    from tactl.driver.repair import repair_problem  # lazy: only with --repair
    from tactl.passes.ta_to_ta.lift_thresholds import LiftOptions

    why = repair_problem(file)
    if why:
        raise usage_error(file, why)
    try:
        coefficient, constant = (int(x) for x in ranges.split(","))
    except ValueError:
        raise usage_error(file, f"--repair-range {ranges!r}: write two natural numbers, P,C "
                                "(e.g. 1,2)") from None
    if coefficient < 0 or constant < 0:
        raise usage_error(file, f"--repair-range {ranges!r}: the radii are natural numbers")
    return LiftOptions(coefficient, constant, resilience)


def _repair(file: Path, report, lift, progress: bool | None):
    """The nearest repairs when a property is violated (None when none is, or on an interrupt).
    A repair must make every property of the file hold, not only those -p selected: one that
    breaks another property repairs nothing. Progress as synthesize shows it: on a terminal or
    with --progress."""
    from tactl.engines.result import HOLDS_VACUOUSLY, VIOLATED  # lazy: only with --repair

    if report.interrupted is not None or not any(r.verdict == VIOLATED for r in report.results):
        return None
    from tactl.driver.repair import repair_file  # lazy: only with --repair

    show = (not verbosity["quiet"] and sys.stderr.isatty()) if progress is None else progress
    vacuous = tuple(r.name for r in report.results if r.verdict == HOLDS_VACUOUSLY)
    return repair_file(file, report.ta, lift, (), (lambda line: info(f"tactl: {line}")) if show else None, vacuous)


def _certify_problem(file: Path, engine: str) -> None:
    """``--certify`` needs an engine that answers by SMT queries and an installed cvc5."""
    from tactl.engines.certify import problem  # lazy: only with --certify

    why = problem(engine)
    if why:
        raise usage_error(file, why)


def _check_source(request, as_json: bool) -> None:
    """``check --engine source``: the reference interpreter's report on an .alg program, or
    SPIN's on a .pml file itself (the driver runs either), printed."""
    import json  # lazy: only --json output

    # lazy: the interpreter (or SPIN's reading) loads only for its engine
    from tactl.driver.commands import check_program, check_promela_source

    if request.file.suffix.lower() == ".pml":  # SPIN reads the Promela file itself
        from tactl.report.source import source_json, source_text  # lazy: only this engine

        report = check_promela_source(request)
        typer.echo(json.dumps(source_json(report), indent=2) if as_json else source_text(report))
        raise typer.Exit(report.exit_code)
    from tactl.source.report import report_json, report_text  # lazy: only this engine

    report = check_program(request)
    typer.echo(json.dumps(report_json(report), indent=2) if as_json else report_text(report))
    raise typer.Exit(report.exit_code)


@app.command(cls=Command, name="run", short_help="One random run of an .alg program, as pseudocode lines.",
             help="Run an .alg program once at fixed parameters with the reference interpreter "
                  "(the program as written, no translation): concrete processes 0..n-1, a random "
                  "schedule (steps, receipts, faulty messages, crashes, coin outcomes) drawn with "
                  "--seed; each step printed as the pseudocode lines the process executes, then "
                  "the final states. Same seed, same run. Every parameter must be given (--param); "
                  "values violating the resilience condition are refused (exit 2).")
def run_command(
    file: InputFile,
    params: ParamOption = None,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Seed of the random schedule.")] = 0,
    steps: Annotated[int, typer.Option("--steps", min=0, max=1_000_000, metavar="K",
                                       help="At most this many steps.")] = 50,
) -> None:
    # lazy: the interpreter loads only for its command
    from tactl.source.errors import SourceError, as_input_error
    from tactl.source.run import random_run, run_text

    from tactl.driver.commands import read_alg  # lazy: as above

    alg, text = read_alg(file)
    try:
        result = random_run(alg, checked_parameters(params, file), seed, steps)
    except SourceError as e:
        raise as_input_error(e, str(file), text) from None
    typer.echo(run_text(result, str(file)))


def _check_file(request, progress: bool | None, as_json: bool):
    """The driver's check with check's progress display; a timeout while reading is, with
    --json, a JSON report of nothing checked."""
    from tactl.driver.commands import ReadingTimedOut, check_file  # lazy: the driver's check

    shown = progress_display(progress)
    try:  # the live line ends however the command does
        return check_file(request, shown, warn)
    except ReadingTimedOut as e:
        if not as_json:
            raise
        import json  # lazy: only --json output

        typer.echo(json.dumps({"file": str(request.file), "tactl_version": __version__, "properties": [],
                               "initial_configurations": "unknown", "warnings": [e.message],
                               "exit_code": EXIT_UNKNOWN}, indent=2))
        raise typer.Exit(EXIT_UNKNOWN) from None
    finally:
        if shown is not None:
            shown.stop()


def _write_cex_svg(path: Path, report, kind: str) -> None:
    """``--cex-svg``: the first counterexample's space-time diagram, written atomically."""
    from tactl.report.spacetime import report_svg  # lazy: only with --cex-svg

    svg, message = report_svg(report.ta, report.results, report.receive_automaton, kind)
    if svg is not None:
        write_output(path, svg)
        message = f"wrote {path}: {message}"
    info(f"tactl: {message}", err=True)
