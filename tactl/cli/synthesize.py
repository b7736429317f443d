"""``synthesize``: the values of an automaton's unknown coefficients under which every property
holds (tactl/synth/cegis.py), printed by tactl/report/synthesize_text.py."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from tactl.cli.app import (Command, InputFile, ProgressOption, PropertyOption, QuietOption, TimeoutOption,
                           VerboseOption, app, set_verbosity, start_clock, verbosity)
from tactl.util import deadline


@app.command(cls=Command, short_help="Find the unknown threshold coefficients that make every property hold.",
             help="Search the values of an automaton's unknowns (`unknowns a1, b1;`, bounded by "
                  "assumptions over the unknowns alone) under which every property holds for all "
                  "parameter values, by a counterexample-guided loop over check's parametric "
                  "engine: each refuted candidate's run excludes the region of every candidate "
                  "under which the same run violates the same property. Each solution is printed "
                  "as its instantiated thresholds and re-checked on the printed automaton. Exit "
                  "status: 0 complete with a solution, 1 complete without one (or a re-check "
                  "that disagreed), 2 bad input, 3 stopped early (--timeout, --max-solutions), "
                  "130/143 interrupted.")
def synthesize(
    file: InputFile,
    properties: PropertyOption = None,
    max_solutions: Annotated[Optional[int], typer.Option(
        "--max-solutions", min=1, metavar="N", help="Stop after N solutions (the search is then "
        "incomplete: exit 3).")] = None,
    timeout: TimeoutOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
    progress: ProgressOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    # lazy: the loop, the checker and z3 load only for this command
    from tactl.driver.synthesize import SynthesisRequest, synthesize_file
    from tactl.report.synthesize_text import synthesis_json, synthesis_text

    set_verbosity(quiet, verbose, str(file))
    show = (not verbosity["quiet"] and sys.stderr.isatty()) if progress is None else progress

    def note(message: str) -> None:
        typer.echo(f"tactl: {message}", err=True)

    deadline.stop_on_signals()
    start_clock(timeout)
    outcome = synthesize_file(SynthesisRequest(file, tuple(properties or ()), max_solutions),
                              note if show else None)
    result = outcome.result
    if as_json:
        typer.echo(json.dumps(synthesis_json(result), indent=2))
    else:
        typer.echo(synthesis_text(result, full=verbosity["verbose"]))
    if result.interrupted is not None:  # what was found is printed; the exit says interrupted
        raise result.interrupted
    raise typer.Exit(result.exit_code)
