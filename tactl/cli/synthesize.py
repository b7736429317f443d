"""``synthesize``: the values of an automaton's unknown coefficients under which every property
holds (tactl/synth/cegis.py), printed by tactl/report/synthesize_text.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from tactl.cli.app import (Command, InputFile, ProgressOption, PropertyOption, QuietOption, TimeoutOption,
                           VerboseOption, app, info, set_verbosity, start_clock, usage_error, verbosity)
from tactl.util import deadline


@app.command(cls=Command, short_help="Find the unknown threshold coefficients that make every property hold.",
             help="Search the values of an automaton's unknowns (`unknowns a1, b1;`, bounded by "
                  "assumptions over the unknowns alone) under which every property holds for all "
                  "parameter values, by a counterexample-guided loop over check's parametric "
                  "engine: each refuted candidate's run excludes the region of every candidate "
                  "under which the same run violates the same property. Each solution is printed "
                  "as its instantiated thresholds and re-checked on the printed automaton. Exit "
                  "status: 0 complete with a solution, 1 complete without one (or a re-check "
                  "that disagreed), 2 bad input, 3 incomplete (--timeout, --max-solutions, "
                  "undecided candidates, or a synchronous algorithm, which is not searched), "
                  "130/143 interrupted.")
def synthesize(
    file: InputFile,
    properties: PropertyOption = None,
    max_solutions: Annotated[Optional[int], typer.Option(
        "--max-solutions", min=1, metavar="N", help="Stop after N solutions (the search is then "
        "incomplete: exit 3).")] = None,
    weakest: Annotated[bool, typer.Option("--weakest", help="Report only the solutions with the "
                                          "weakest resilience condition (every parameter valuation "
                                          "another's allows, this one allows: z3 on the "
                                          "instantiated conditions) and, among those, the least "
                                          "thresholds (no more for any parameter value); several "
                                          "incomparable ones are all reported, saying why.")] = False,
    html: Annotated[Optional[Path], typer.Option("--html", metavar="FILE", help="Also write the "
                                                 "result as a self-contained HTML page: the space, "
                                                 "the solutions with their neighbours one step "
                                                 "away, the excluded regions with their runs.")] = None,
    timeout: TimeoutOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
    progress: ProgressOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    # lazy: the loop, the checker and z3 load only for this command
    import json  # lazy: only --json output
    from tactl.driver.synthesize import SynthesisRequest, synthesize_file
    from tactl.report.synthesize_text import synthesis_json, synthesis_text

    set_verbosity(quiet, verbose, str(file))
    show = (not verbosity["quiet"] and sys.stderr.isatty()) if progress is None else progress

    def note(message: str) -> None:
        typer.echo(f"tactl: {message}", err=True)

    if html is not None:
        from tactl.util.fsutil import output_file_problem  # lazy: only with --html

        problem = output_file_problem(html, (file,))
        if problem:
            raise usage_error(html, f"--html: {problem}")
    deadline.stop_on_signals()
    start_clock(timeout)
    outcome = synthesize_file(SynthesisRequest(file, tuple(properties or ()), max_solutions, weakest),
                              note if show else None)
    result = outcome.result
    if html is not None:
        from tactl.report.synthesis_html import render_synthesis_html  # lazy: only with --html
        from tactl.util.fsutil import write_output

        write_output(html, render_synthesis_html(result))
        info(f"tactl: wrote {html}", err=True)
    if as_json:
        typer.echo(json.dumps(synthesis_json(result), indent=2))
    else:
        typer.echo(synthesis_text(result, full=verbosity["verbose"]))
    if result.interrupted is not None:  # what was found is printed; the exit says interrupted
        raise result.interrupted
    raise typer.Exit(result.exit_code)
