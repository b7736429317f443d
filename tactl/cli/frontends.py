"""The front-end commands: ``parse`` (pseudocode or Parametric Promela into a receive automaton)
and ``translate`` (a receive automaton into a threshold automaton, with z3's certificates)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from tactl.cli.app import (CORPUS_HELP, EXIT_UNKNOWN, RTA_OUTPUTS, TA_OUTPUTS, Command, DefineOption, TimeoutOption,
                           app, checked_defines, input_file, info, output_format, start_clock, usage_error, warn)
from tactl.util import deadline
from tactl.util.fsutil import is_special, is_stdout, same_file, write_output


@app.command(cls=Command, short_help="Parse pseudocode (.alg) or Promela (.pml) into an .rta.", help="Parse pseudocode (.alg) or ByMC's Parametric Promela (.pml) into a receive threshold automaton (.rta): control-state "
                  "extraction. A location is a reachable valuation of a process's finite state "
                  "at a point where it waits (wait until, an event loop's head, the end); a rule "
                  "is one step — receive, compute, send. Prints a table of the locations (name, "
                  "meaning in program variables, pseudocode line) and the rules' source lines; "
                  "without -o the .rta goes to stdout and the tables to stderr.\n\n"
                  "The language is documented in docs/alg.md. Every command that reads an .rta "
                  "also reads an .alg (translate, check, emit, show, dot run this pass first).")
def parse(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="pseudocode (.alg; '-' reads "
                                         "standard input) or Parametric Promela (.pml)" + CORPUS_HELP,
                                         show_default=False, callback=input_file)],
    output: Annotated[Optional[Path], typer.Option("-o", "--output", metavar="OUT",
                                                   help="Write the receive automaton here: X.rta "
                                                        "(text, with source-map comments), "
                                                        "X.json, or '-' for stdout.")] = None,
    define: DefineOption = None,
) -> None:
    # lazy: the pseudocode grammar (lark) and the parse pass (sympy) load only for parse
    import json  # lazy: only the JSON forms
    from tactl.driver.commands import parse_program
    from tactl.ir.rta.json_form import rta_to_json
    from tactl.ir.rta.printer import print_rta

    if file.suffix.lower() in (".ta", ".rta", ".json"):
        raise usage_error(file, "parse reads pseudocode (.alg file) or Parametric Promela (.pml); .rta and .ta files are "
                                "already automata")
    form = None
    if output is not None:
        form = output_format(output, RTA_OUTPUTS, "rta", "parse writes a receive threshold "
                                                         "automaton: -o X.rta (or X.json)")
        if same_file(output, file):
            raise usage_error(output, "refusing to overwrite the input file")
    loaded, table = parse_program(file, checked_defines(define, file))
    rta = loaded.rta
    if loaded.warnings:
        typer.echo(loaded.render_warnings(), err=True)
    info(table, err=True)
    rta_text = (json.dumps(rta_to_json(rta), indent=2) + "\n" if form == "json"
                else print_rta(rta, source_map=True))
    if output is None:
        typer.echo(rta_text, nl=False)
    else:
        write_output(output, rta_text)
        if not is_special(output):
            info(f"wrote {output}", err=True)


@app.command(cls=Command, short_help="Translate a receive automaton (.rta) into a .ta.", help="Translate a receive threshold automaton (.rta) into a threshold automaton "
                  "(.ta): receive guards become guards over sent messages by quantifier "
                  "elimination under the environment assumption of the declared fault model and "
                  "timing.\n\nEvery produced guard is certified by z3 (sound: RC and Env and the "
                  "receive guard imply it; precise: it implies that some receive counts satisfy "
                  "the receive guard and Env) and a per-rule table is printed. Without -o the TA "
                  "goes to stdout and the table to stderr. A failed soundness certificate writes "
                  "nothing and exits 4 (a tactl bug); an undecided one, or a guard that is sound but not precise, "
                  "exits 3 (--allow-imprecise writes the latter anyway).\n\nA TLA+ module (.tla) "
                  "is written as the threshold automaton it describes (no receive guards, no "
                  "certificates).")
def translate(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="a receive threshold automaton (.rta, "
                                         "or its JSON form; '-' reads standard input), or a TLA+ "
                                          "module (.tla)" + CORPUS_HELP,
                                         show_default=False, callback=input_file)],
    output: Annotated[Optional[Path], typer.Option("-o", "--output", metavar="OUT",
                                                   help="Write the TA here: X.ta (text), X.json, "
                                                        "or '-' for stdout.")] = None,
    no_certify: Annotated[bool, typer.Option("--no-certify", help="Skip the z3 certificates.")] = False,
    allow_imprecise: Annotated[bool, typer.Option(
        "--allow-imprecise", help="Write the TA even if a guard is sound but not precise (it then "
                                  "over-approximates the RTA).")] = False,
    timeout: TimeoutOption = None,
    define: DefineOption = None,
) -> None:
    # lazy: the translation loads z3 and the passes
    from tactl.driver.translation import certificate_problem, certificate_table, justice_section, without_refused

    if file.suffix.lower() in (".ta",):
        raise usage_error(file, "translate reads a receive threshold automaton (.rta file)")
    form = None
    if output is not None:
        form = output_format(output, TA_OUTPUTS, "ta", "translate writes a threshold automaton: "
                                                       "-o X.ta (or X.json)")
        if same_file(output, file):
            raise usage_error(output, "refusing to overwrite the input file")
    from tactl.driver.commands import translate_file, translated_automaton  # lazy: the readers

    defines = checked_defines(define, file)
    start_clock(timeout)
    direct = translated_automaton(file, warn)
    if direct is not None:  # e.g. TLA+: its reader is the translation; no receive guards to certify
        deadline.cancel()
        _write_ta(direct.ta, form, output)
        return
    loaded, result = translate_file(file, defines, not no_certify, warn)
    deadline.cancel()  # what follows only prints and writes the finished translation
    table = certificate_table(loaded.rta, result)
    justice = justice_section(loaded.rta, result)
    to_stderr = output is None or is_stdout(output)  # the TA itself goes to stdout then
    (info if to_stderr else typer.echo)(table + ("\n\n" + justice if justice else ""), err=to_stderr)
    problem = certificate_problem(result, allow_imprecise)
    if problem:
        raise problem
    if loaded.rta.timing.value == "sync":
        info("tactl: note: a synchronous automaton: its TA is marked 'timing sync;' (lock-step "
                  "rounds), which the interleaving engines refuse; 'tactl check' on the .rta or "
                  ".alg runs the lock-step engine", err=True)
    if result.certificates and not all(c.precise for c in result.certificates):
        typer.echo("tactl: warning: some guards are not precise (✗ above): the TA over-approximates "
                   "the RTA, so a violation found in it may be spurious", err=True)
    ta, refused = without_refused(result)
    for name, (_, why) in refused.items():
        typer.echo(f"tactl: warning: specification {name} is left out of the TA: {why}", err=True)
    _write_ta(ta, form, output)
    if refused:
        raise typer.Exit(EXIT_UNKNOWN)


def _write_ta(ta, form: str | None, output: Path | None) -> None:
    """The threshold automaton as text (``.ta``) or JSON, to ``output`` or standard output."""
    import json  # lazy: only the JSON forms

    # lazy: the printers
    from tactl.ir.ta.json_form import ta_to_json
    from tactl.ir.ta.printer import print_ta

    text = json.dumps(ta_to_json(ta), indent=2) + "\n" if form == "json" else print_ta(ta)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_output(output, text)
        if not is_special(output):
            info(f"wrote {output}", err=True)
