"""The ``tactl`` command line: a thin layer that turns options into a request, calls the driver
(``tactl/driver/``: ``commands.py`` for check and emit, ``verify.py``, ``inputs.py``,
``translation.py``) and prints or writes what it returns.

It is long only because of what the user reads: every option's declaration and help text, and
each command's messages; the work behind a command is one driver call.

Exit status: 0 success (every checked property holds), 1 a property is
violated, 2 bad input or usage, 3 nothing violated but something unknown or unsupported. An
unexpected internal failure exits 4 with a one-line message (the traceback with ``--debug``).
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from typer.core import TyperCommand

from tactl import __version__
from tactl.util import deadline
from tactl.util.fsutil import check_output_directory, inside, is_special, is_stdout, make_directory, same_file, write_output
from tactl.ir.errors import Diagnostic, InputError, Severity, TactlError

# The readers (lark grammars), IR serialisers, summaries, translation and the driver are imported
# inside the commands that use them: `tactl --version`, `--help` and a usage error must start as
# fast as Python with Typer does.
if TYPE_CHECKING:
    from tactl.ir.ta.reader import ReadResult

EXIT_OK, EXIT_VIOLATED, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report a SIGINT
EXIT_TERMINATED = 143  # SIGTERM

class _Command(TyperCommand):
    """Usage lines as Click writes them (``tactl check [OPTIONS] FILE``): Typer 0.28 puts a
    required argument in braces (``{FILE}``), which reads like a set of choices."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p
                for p in super().collect_usage_pieces(ctx)]


app = typer.Typer(
    name="tactl",
    help="Threshold automata for fault-tolerant distributed algorithms: parse pseudocode (.alg) "
         "into receive automata, read, print and draw automata, translate receive automata (.rta) "
         "into them, decide their safety and liveness "
         "properties (ByMC's ELTL-FT) for every n, t, f, and emit the SMT-LIB queries.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # Click's plain help: rich's panels are slow to import and render, and cut option names at
    # 80 columns
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

InputFile = Annotated[Path, typer.Argument(
    metavar="FILE", help="a threshold automaton: .ta (ByMC format) or its .json form; a receive "
                         "automaton (.rta or its .json form) is translated first, pseudocode "
                         "(.alg) and ByMC's Parametric Promela (.pml) parsed and translated; '-' "
                         "reads standard input (the format is recognised from the text)",
    show_default=False)]


DefineOption = Annotated[Optional[list[str]], typer.Option(
    "--define", "-D", metavar="NAME",
    help="Parametric Promela (.pml): define NAME for the file's #ifdef/#ifndef, as 'bymc -D NAME' "
         "does (e.g. -D CASE2); repeatable.")]


def _defines(values: list[str] | None, file: Path | None) -> tuple[str, ...]:
    """The ``-D`` names, checked: identifiers, and only for an input that can be Promela (``file``
    None: verify's many inputs, where the other kinds ignore them)."""
    names = tuple(values or ())
    for name in names:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise _usage_error(file or "verify", f"-D {name!r}: a name to define must be an identifier")
    if names and file is not None and not is_stdout(file) and file.suffix.lower() != ".pml":
        raise _usage_error(file, "-D defines names for a Parametric Promela file's #ifdef (.pml); "
                                 f"this input is a {file.suffix or 'file without extension'}")
    return names


# -q and -v, global (tactl -q check …) or per command (tactl check -q …): what each hides or adds.
#   -q, --quiet    stderr carries only warnings and errors: no progress, no 'wrote FILE' lines, no
#                  notes or tables (parse's location table); standard output (the verdicts, the
#                  automaton) is unchanged.
#   -v, --verbose  progress with the engines' notes (each vacuity question, each explicit
#                  instance, the parametric engine's branches and approximations); verify adds
#                  --explain (each pass: from the cache or run, and why).
_verbosity = {"quiet": False, "verbose": False}

QuietOption = Annotated[bool, typer.Option(
    "-q", "--quiet", help="Only verdicts, warnings and errors: no progress, notes or 'wrote' lines.")]
VerboseOption = Annotated[bool, typer.Option(
    "-v", "--verbose", help="Progress with the engines' notes (vacuity questions, instances, "
                            "branches); verify: --explain.")]


def _set_verbosity(quiet: bool, verbose: bool, where: str = "tactl") -> None:
    quiet, verbose = quiet or _verbosity["quiet"], verbose or _verbosity["verbose"]
    if quiet and verbose:
        raise _usage_error(where, "give -q (quiet) or -v (verbose), not both")
    _verbosity.update(quiet=quiet, verbose=verbose)


def _info(message: str, err: bool = True) -> None:
    """Something the user may want to know, but not a result, warning or error: -q hides it."""
    if not _verbosity["quiet"]:
        typer.echo(message, err=err)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tactl {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show Python tracebacks of internal errors.")] = False,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
) -> None:
    """Global options (see each command's --help)."""
    _verbosity.update(quiet=False, verbose=False)  # one process may run several commands (tests)
    _set_verbosity(quiet, verbose)


def _load(path: Path, lower_divisions: bool = True, defines: tuple[str, ...] = ()) -> ReadResult:
    """The automaton of ``path``; ``lower_divisions`` replaces ``e / c`` by derived parameters
    (what the engines need), off for commands that show the user's own text."""
    from tactl.driver.inputs import load_automaton  # lazy: the readers (see the imports above)

    result = load_automaton(path, lower_divisions=lower_divisions, defines=defines)
    if result.warnings:
        typer.echo(result.render_warnings(), err=True)
    return result


def _meant(word: str, known) -> str:
    """``"; did you mean 'explicit'?"`` for a misspelt option value, else ``""``."""
    from tactl.util.suggest import did_you_mean  # lazy: only when refusing a value

    return did_you_mean(word, known)


def _usage_error(path: Path | str, message: str) -> InputError:
    return InputError(Diagnostic(Severity.ERROR, message), str(path))


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return deadline.parse_seconds(value)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None


TimeoutOption = Annotated[Optional[float], typer.Option(
    "--timeout", metavar="S", parser=_seconds,
    help="Seconds for the whole command (reading, translating, building queries, solving, "
         "replaying); what is not decided by then is unknown, never holds.")]


def _start_clock(seconds: float | None) -> None:
    deadline.start(seconds)


@app.command(cls=_Command, short_help="Summarise an automaton (locations, rules, properties).", help="Summarise an automaton: parameters, resilience condition, locations (initial "
                  "ones marked), rules with guards and updates, and properties classified as safety "
                  "or liveness.")
def show(
    file: InputFile,
    as_json: Annotated[bool, typer.Option("--json", help="Print the IR as JSON (format tactl.ta) instead.")] = False,
    define: DefineOption = None,
) -> None:
    # lazy: only this command needs it; --help starts without it
    from tactl.ir.ta.json_form import ta_to_json
    from tactl.report.summary import summarize

    result = _load(file, lower_divisions=False, defines=_defines(define, file))
    if as_json:
        typer.echo(json.dumps(ta_to_json(result.ta), indent=2))
    else:
        typer.echo(summarize(result.ta, result.path), nl=False)


TA_OUTPUTS = {".ta": "ta", ".json": "json"}
RTA_OUTPUTS = {".rta": "rta", ".json": "json"}


def output_format(target: Path, formats: dict[str, str], default: str, wrong_kind: str = "") -> str:
    """The format of an output, decided by its extension: ``formats`` maps the extensions this
    output may have to formats; ``-``, a device or a FIFO without one of them gets ``default``.
    Anything else is refused (never silently written in a format its name does not say)."""
    suffix = target.suffix.lower()
    if suffix in formats:
        return formats[suffix]
    if is_special(target):
        return default
    if wrong_kind and suffix in (".ta", ".rta"):
        raise _usage_error(target, wrong_kind)
    raise _usage_error(target, f"cannot tell the output format from the name '{target.name}': use "
                               + " or ".join(formats) + " (or '-' for standard output)")


def _printed(loaded, form: str) -> str:
    """The canonical text (``ta``/``rta``) or JSON form of a read automaton."""
    # lazy: only this command needs it; --help starts without it
    from tactl.ir.rta.reader import RtaReadResult
    from tactl.ir.ta.json_form import ta_to_json
    from tactl.ir.ta.printer import print_ta

    if isinstance(loaded, RtaReadResult):
        # lazy: only this command needs it; --help starts without it
        from tactl.ir.rta.json_form import rta_to_json
        from tactl.ir.rta.printer import print_rta

        return json.dumps(rta_to_json(loaded.rta), indent=2) + "\n" if form == "json" \
            else print_rta(loaded.rta, source_map=True)
    return json.dumps(ta_to_json(loaded.ta), indent=2) + "\n" if form == "json" else print_ta(loaded.ta)


@app.command(cls=_Command, short_help="Print an automaton in canonical form.", help="Print an automaton in canonical form: a threshold automaton as ByMC .ta text "
                  "(re-reading it gives the same automaton), a receive automaton (.rta) as .rta "
                  "text.\n\nThe output format follows the output's extension: -o X.ta or X.rta "
                  "(text of the input's kind) or -o X.json (its JSON form); '-' is standard output. "
                  "--in-place keeps the file's own format. The canonical form keeps macros and the "
                  "order of everything, but not comments or layout, so FILE itself is only "
                  "rewritten with --in-place, and only without comments unless you also pass "
                  "--drop-comments.")
def fmt(
    file: InputFile,
    output: Annotated[Optional[Path], typer.Option("-o", "--output", metavar="OUT",
                                                   help="Write here (atomically) instead of to "
                                                        "stdout: X.ta/X.rta, X.json, or '-'.")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", help="Rewrite FILE itself (a symbolic link's "
                                                              "target; the link stays).")] = False,
    drop_comments: Annotated[bool, typer.Option(
        "--drop-comments", help="Allow --in-place to rewrite a file that has comments "
                                "(the canonical form has none).")] = False,
    define: DefineOption = None,
) -> None:
    # lazy: only this command needs it; --help starts without it
    from tactl.ir.rta.reader import RtaReadResult

    if in_place and output is not None:
        raise _usage_error(file, "give either -o OUT or --in-place, not both")
    if in_place and is_stdout(file):
        raise _usage_error(file, "--in-place needs a file, not standard input")
    if in_place and file.suffix.lower() == ".alg":
        raise _usage_error(file, "--in-place would replace the pseudocode by its receive automaton; "
                                 "write it elsewhere with -o X.rta (or 'tactl parse')")
    from tactl.driver.inputs import read_automaton  # lazy: the readers

    loaded = read_automaton(file, _defines(define, file))
    if loaded.warnings:
        typer.echo(loaded.render_warnings(), err=True)
    receive = isinstance(loaded, RtaReadResult)
    text_form = "rta" if receive else "ta"
    formats = RTA_OUTPUTS if receive else TA_OUTPUTS
    own_form = "json" if file.suffix.lower() == ".json" else text_form
    target = file if in_place else output
    if target is None:
        typer.echo(_printed(loaded, text_form), nl=False)
        return
    wrong_kind = ("fmt keeps a receive automaton a receive automaton: write .rta or .json; "
                  f"'tactl translate {file} -o {target}' writes its threshold automaton") if receive else \
        "fmt prints a threshold automaton: write .ta or .json"
    form = own_form if in_place else output_format(target, formats, text_form, wrong_kind)
    if not in_place and same_file(target, file):
        raise _usage_error(target, "refusing to overwrite the input file; use --in-place to rewrite it")
    if in_place and loaded.comment_count and own_form != "json" and not drop_comments:
        raise _usage_error(file, f"has {loaded.comment_count} comment(s), which the canonical form "
                                 "does not keep; pass --drop-comments to rewrite it anyway, or "
                                 "write elsewhere with -o")
    write_output(target, _printed(loaded, form))
    if not is_special(target):
        _info(f"wrote {target}", err=True)


_DOT_FORMATS = {".dot": None, ".gv": None, ".svg": "svg", ".png": "png", ".pdf": "pdf"}


@app.command(cls=_Command, short_help="Draw an automaton (DOT, SVG, PNG, PDF).", help="Draw an automaton: locations as nodes (initial ones bold, with an entry arrow), "
                  "rules as edges labelled 'id: guard / updates'.")
def dot(
    file: InputFile,
    output: Annotated[Path, typer.Option("-o", "--output", metavar="OUT",
                                         help="X.dot or X.gv (DOT text); X.svg, X.png or X.pdf "
                                              "(drawn by Graphviz's dot program).")],
    hide_self_loops: Annotated[bool, typer.Option(
        "--hide-self-loops", help="Leave out self-loops that change no variable.")] = False,
    define: DefineOption = None,
) -> None:
    suffix = output.suffix.lower()
    if suffix not in _DOT_FORMATS and is_special(output):
        suffix = ".dot"  # standard output or a device: DOT text
    if suffix not in _DOT_FORMATS:
        raise _usage_error(output, f"unknown picture format '{suffix or '(none)'}'; "
                                   "use .dot, .gv, .svg, .png or .pdf")
    if same_file(output, file):
        raise _usage_error(output, "refusing to overwrite the input file")
    from tactl.passes.emit.dot import emit_dot  # lazy: jinja2 (the templates), only for dot

    text = emit_dot(_load(file, lower_divisions=False, defines=_defines(define, file)).ta,
                    hide_self_loops=hide_self_loops)
    fmt_ = _DOT_FORMATS[suffix]
    write_output(output, text if fmt_ is None else _graphviz(text, fmt_, output))
    if not is_special(output):
        _info(f"wrote {output}", err=True)


def _graphviz(text: str, fmt_: str, output: Path) -> bytes:
    exe = shutil.which("dot")
    if exe is None:
        raise _usage_error(output, f"cannot draw .{fmt_}: Graphviz's 'dot' program is not installed "
                                   "(Debian: apt-get install graphviz); -o X.dot writes the DOT text")
    proc = subprocess.run([exe, f"-T{fmt_}"], input=text.encode(), capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise _usage_error(output, "Graphviz failed: " + proc.stderr.decode(errors="replace").strip())
    return proc.stdout


@app.command(cls=_Command, short_help="Parse pseudocode (.alg) or Promela (.pml) into an .rta.", help="Parse pseudocode (.alg) or ByMC's Parametric Promela (.pml) into a receive threshold automaton (.rta): control-state "
                  "extraction. A location is a reachable valuation of a process's finite state "
                  "at a point where it waits (wait until, an event loop's head, the end); a rule "
                  "is one step — receive, compute, send. Prints a table of the locations (name, "
                  "meaning in program variables, pseudocode line) and the rules' source lines; "
                  "without -o the .rta goes to stdout and the tables to stderr.\n\n"
                  "The language is documented in docs/alg.md. Every command that reads an .rta "
                  "also reads an .alg (translate, check, emit, show, dot run this pass first).")
def parse(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="pseudocode (.alg; '-' reads "
                                         "standard input) or Parametric Promela (.pml)",
                                         show_default=False)],
    output: Annotated[Optional[Path], typer.Option("-o", "--output", metavar="OUT",
                                                   help="Write the receive automaton here: X.rta "
                                                        "(text, with source-map comments), "
                                                        "X.json, or '-' for stdout.")] = None,
    define: DefineOption = None,
) -> None:
    # lazy: the pseudocode grammar (lark) and the parse pass (sympy) load only for parse
    from tactl.driver.commands import parse_program
    from tactl.ir.rta.json_form import rta_to_json
    from tactl.ir.rta.printer import print_rta

    if file.suffix.lower() in (".ta", ".rta", ".json"):
        raise _usage_error(file, "parse reads pseudocode (.alg file) or Parametric Promela (.pml); .rta and .ta files are "
                                 "already automata")
    form = None
    if output is not None:
        form = output_format(output, RTA_OUTPUTS, "rta", "parse writes a receive threshold "
                                                         "automaton: -o X.rta (or X.json)")
        if same_file(output, file):
            raise _usage_error(output, "refusing to overwrite the input file")
    loaded, table = parse_program(file, _defines(define, file))
    rta = loaded.rta
    if loaded.warnings:
        typer.echo(loaded.render_warnings(), err=True)
    _info(table, err=True)
    rta_text = (json.dumps(rta_to_json(rta), indent=2) + "\n" if form == "json"
                else print_rta(rta, source_map=True))
    if output is None:
        typer.echo(rta_text, nl=False)
    else:
        write_output(output, rta_text)
        if not is_special(output):
            _info(f"wrote {output}", err=True)


@app.command(cls=_Command, short_help="Translate a receive automaton (.rta) into a .ta.", help="Translate a receive threshold automaton (.rta) into a threshold automaton "
                  "(.ta): receive guards become guards over sent messages by quantifier "
                  "elimination under the environment assumption of the declared fault model and "
                  "timing.\n\nEvery produced guard is certified by z3 (sound: RC and Env and the "
                  "receive guard imply it; precise: it implies that some receive counts satisfy "
                  "the receive guard and Env) and a per-rule table is printed. Without -o the TA "
                  "goes to stdout and the table to stderr. A failed soundness certificate writes "
                  "nothing and exits 4 (a tactl bug); an undecided one, or a guard that is sound but not precise, "
                  "exits 3 (--allow-imprecise writes the latter anyway).")
def translate(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="a receive threshold automaton (.rta, "
                                         "or its JSON form; '-' reads standard input)",
                                         show_default=False)],
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
        raise _usage_error(file, "translate reads a receive threshold automaton (.rta file)")
    form = None
    if output is not None:
        form = output_format(output, TA_OUTPUTS, "ta", "translate writes a threshold automaton: "
                                                       "-o X.ta (or X.json)")
        if same_file(output, file):
            raise _usage_error(output, "refusing to overwrite the input file")
    from tactl.driver.commands import translate_file  # lazy: the readers
    from tactl.ir.ta.json_form import ta_to_json
    from tactl.ir.ta.printer import print_ta

    defines = _defines(define, file)
    _start_clock(timeout)
    loaded, result = translate_file(file, defines, not no_certify, _warn)
    deadline.cancel()  # what follows only prints and writes the finished translation
    table = certificate_table(loaded.rta, result)
    justice = justice_section(loaded.rta, result)
    to_stderr = output is None or is_stdout(output)  # the TA itself goes to stdout then
    (_info if to_stderr else typer.echo)(table + ("\n\n" + justice if justice else ""), err=to_stderr)
    problem = certificate_problem(result, allow_imprecise)
    if problem:
        raise problem
    if loaded.rta.timing.value == "sync":
        _info("tactl: note: a synchronous automaton: its TA is marked 'timing sync;' (lock-step "
                   "rounds), which the interleaving engines refuse; 'tactl check' on the .rta or "
                   ".alg runs the lock-step engine", err=True)
    if result.certificates and not all(c.precise for c in result.certificates):
        typer.echo("tactl: warning: some guards are not precise (✗ above): the TA over-approximates "
                   "the RTA, so a violation found in it may be spurious", err=True)
    ta, refused = without_refused(result)
    for name, (_, why) in refused.items():
        typer.echo(f"tactl: warning: specification {name} is left out of the TA: {why}", err=True)
    text = json.dumps(ta_to_json(ta), indent=2) + "\n" if form == "json" else print_ta(ta)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_output(output, text)
        if not is_special(output):
            _info(f"wrote {output}", err=True)
    if refused:
        raise typer.Exit(EXIT_UNKNOWN)


MAX_PARAMETER_DIGITS = 1000


def _parameters(values: list[str] | None, file: Path) -> dict[str, int]:
    """``--param NAME=V`` values: an identifier and a natural number in ASCII digits."""
    # lazy: only this command needs it; --help starts without it
    from tactl.ir.names import identifier_problem

    out: dict[str, int] = {}
    for item in values or []:
        name, eq, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or identifier_problem(name) or not re.fullmatch(r"[0-9]+", value):
            raise _usage_error(file, f"--param expects NAME=VALUE with a natural number written in "
                                     f"digits 0-9, not '{item[:80]}'")
        if len(value) > MAX_PARAMETER_DIGITS:
            raise _usage_error(file, f"--param {name}: a value of {len(value)} digits is too large "
                                     f"(at most {MAX_PARAMETER_DIGITS} digits)")
        if name in out and out[name] != int(value):
            raise _usage_error(file, f"--param gives {name} two values ({out[name]} and {int(value)})")
        out[name] = int(value)
    return out


ProgressOption = Annotated[Optional[bool], typer.Option(
    "--progress/--no-progress", show_default=False,
    help="Show what is being worked on, on stderr (default: on; a live line on a terminal, one "
         "line per started and finished item otherwise; -q turns it off).")]
PropertyOption = Annotated[Optional[list[str]], typer.Option(
    "-p", "--property", metavar="P", help="Only this property (repeat for several); default: all.")]
ParamOption = Annotated[Optional[list[str]], typer.Option(
    "--param", metavar="NAME=V", help="Fix a parameter value (repeatable), e.g. --param N=4.")]


@app.command(cls=_Command, short_help="Decide an automaton's properties for every n, t, f.", help="Decide the properties of an automaton for every parameter valuation that "
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
                  "justice); none does: HOLDS VACUOUSLY.")
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
                                             "itself).")] = "parametric",
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
) -> None:
    from tactl.driver.commands import CheckRequest  # lazy: the driver's check
    from tactl.driver.pipeline import SOURCE_ENGINE

    if engine == SOURCE_ENGINE:  # a second reading of the source: no translation, no automaton
        _set_verbosity(quiet, verbose, str(file))
        request = CheckRequest(file, engine, tuple(properties or ()), _parameters(params, file),
                               max_states=max_states,
                               defines=_defines(define, file) if file.suffix.lower() == ".pml" else ())
        deadline.stop_on_signals()
        _start_clock(timeout)
        _check_source(request, as_json)
    # lazy: the checker and its engines load only for check
    from tactl.engines.check import ENGINES, SPIN_MODELS
    from tactl.report.check_json import report_json
    from tactl.report.check_text import report_text

    if engine not in ENGINES:
        raise _usage_error(file, f"unknown engine '{engine}'; choose {', '.join(ENGINES)}"
                                 f" or {SOURCE_ENGINE}" + _meant(engine, (*ENGINES, SOURCE_ENGINE)))
    if model not in SPIN_MODELS:
        raise _usage_error(file, f"unknown model '{model}'; choose {' or '.join(SPIN_MODELS)}")
    if model != "counter" and engine != "spin":
        raise _usage_error(file, "--model is an option of --engine spin")
    if bmc is not None and engine != "nusmv":
        raise _usage_error(file, "--bmc is an option of --engine nusmv")
    request = CheckRequest(file, engine, tuple(properties or ()), model=model, partition=partition,
                           receive=_receive_mode(file, receive_steps), parameters=_parameters(params, file),
                           defines=_defines(define, file), bmc=bmc, max_depth=max_depth,
                           memory_mb=memory_mb, allow_outside_rc=allow_outside_rc, bound=bound,
                           max_states=max_states)
    _set_verbosity(quiet, verbose, str(file))
    if cex_svg is not None:
        from tactl.report.spacetime import output_problem  # lazy: only with --cex-svg

        problem = output_problem(cex_svg, file)
        if problem:
            raise _usage_error(cex_svg, problem)
    deadline.stop_on_signals()
    _start_clock(timeout)
    outcome = _check_file(request, progress, as_json)
    report = outcome.report
    rounds = None
    if outcome.rounds is not None:
        from tactl.report.rounds import MultiRound  # lazy: only for `rounds carrying`

        rounds = MultiRound(*outcome.rounds)
    if as_json:
        data = report_json(report)
        if rounds is not None:
            from tactl.report.rounds import conclusion_json  # lazy: only for `rounds carrying`

            data["multi_round"] = conclusion_json(rounds, report.results)
        typer.echo(json.dumps(data, indent=2))
    else:
        typer.echo(report_text(report))
        if rounds is not None:
            from tactl.report.rounds import conclusion_lines  # lazy: only for `rounds carrying`

            typer.echo("\n".join(conclusion_lines(rounds, report.results)))
    if cex_svg is not None:
        _write_cex_svg(cex_svg, report, file.suffix.lower().lstrip("."))
    if report.interrupted is not None:  # what was decided is printed; the exit says interrupted
        raise report.interrupted
    raise typer.Exit(report.exit_code)


def _check_source(request, as_json: bool) -> None:
    """``check --engine source``: the reference interpreter's report on an .alg program, or
    SPIN's on a .pml file itself (the driver runs either), printed."""
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


@app.command(cls=_Command, name="run", short_help="One random run of an .alg program, as pseudocode lines.",
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
        result = random_run(alg, _parameters(params, file), seed, steps)
    except SourceError as e:
        raise as_input_error(e, str(file), text) from None
    typer.echo(run_text(result, str(file)))


def _check_file(request, progress: bool | None, as_json: bool):
    """The driver's check with check's progress display; a timeout while reading is, with
    --json, a JSON report of nothing checked."""
    from tactl.driver.commands import ReadingTimedOut, check_file  # lazy: the driver's check

    shown = _progress_display(progress)
    try:  # the live line ends however the command does
        return check_file(request, shown, _warn)
    except ReadingTimedOut as e:
        if not as_json:
            raise
        typer.echo(json.dumps({"file": str(request.file), "tactl_version": __version__, "properties": [],
                               "initial_configurations": "unknown", "warnings": [e.message],
                               "exit_code": EXIT_UNKNOWN}, indent=2))
        raise typer.Exit(EXIT_UNKNOWN) from None
    finally:
        if shown is not None:
            shown.stop()


def _warn(message: str) -> None:
    """What the driver says while it works (a reading's warnings, an option's note): stderr."""
    typer.echo(message, err=True)


def _write_cex_svg(path: Path, report, kind: str) -> None:
    """``--cex-svg``: the first counterexample's space-time diagram, written atomically."""
    from tactl.report.spacetime import report_svg  # lazy: only with --cex-svg

    svg, message = report_svg(report.ta, report.results, report.receive_automaton, kind)
    if svg is not None:
        write_output(path, svg)
        message = f"wrote {path}: {message}"
    _info(f"tactl: {message}", err=True)


_TARGETS = ("smtlib", "promela", "nuxmv")


@app.command(cls=_Command, short_help="Write SMT-LIB, Promela or SMV for external tools.", help="Write an automaton's verification questions for an external tool.\n\n"
                  "--to smtlib writes one standalone SMT-LIB2 file per property (one per branch when "
                  "its negation has a temporal '||': <name>.<property>.branchK.smt2) into the "
                  "directory OUT (OUT/<name>.<property>.smt2, logic QF_LIA): the very query 'tactl "
                  "check' answers, so 'unsat' from z3 or cvc5 means the property holds for every "
                  "parameter valuation satisfying the resilience condition, and 'sat' that it is "
                  "violated. --param adds fixed parameter values to the queries.\n\n"
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
) -> None:
    if to not in _TARGETS:
        raise _usage_error(file, f"unknown target '{to}'; choose one of {', '.join(_TARGETS)}"
                                 + _meant(to, _TARGETS))
    from tactl.driver.commands import EmitRequest  # lazy: the driver's emit

    defines = _defines(define, file)
    if to != "smtlib":
        fixed = _parameters(params, file)
        return _emit_model(EmitRequest(file, to, tuple(properties or ()), fixed, model, partition,
                                       _receive_mode(file, receive_steps), bound, unbounded,
                                       allow_outside_rc, defines), output)
    check_output_directory(output)
    _emit_smtlib(EmitRequest(file, to, tuple(properties or ()), _parameters(params, file),
                             defines=defines), output)


def _emit_smtlib(request, output: Path) -> None:
    """``emit --to smtlib``: the driver's query files, written into the directory ``output`` and
    named after the input file."""
    from tactl.driver.commands import emit_smtlib  # lazy: the driver's emit

    loaded, emitted = emit_smtlib(request, _warn)
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
        _info(f"wrote {target}", err=True)
    if not written:
        typer.echo("tactl: nothing written: no property could be encoded", err=True)
        raise typer.Exit(EXIT_UNKNOWN)


_MODEL_SUFFIX = {"promela": ".pml", "nuxmv": ".smv"}


def _receive_mode(file: Path, receive: str) -> str:
    if receive not in ("auto", "forced", "lazy"):
        raise _usage_error(file, f"unknown receive mode '{receive}'; choose auto, forced or lazy")
    return receive


def _emit_model(request, output: Path) -> None:
    """``emit --to promela|nuxmv``: the driver's model, written atomically to ``output``."""
    # lazy: only this command needs it; --help starts without it
    from tactl.driver.commands import emit_model
    from tactl.engines.check import SPIN_MODELS

    file, to = request.file, request.to
    if output.suffix.lower() != _MODEL_SUFFIX[to] and not is_stdout(output):
        raise _usage_error(output, f"--to {to} writes one file: -o X{_MODEL_SUFFIX[to]} (or '-')")
    if same_file(output, file):
        raise _usage_error(output, "refusing to overwrite the input file")
    if request.model not in SPIN_MODELS:
        raise _usage_error(file, f"unknown model '{request.model}'; choose {' or '.join(SPIN_MODELS)}")
    text = emit_model(request, _warn)
    if is_stdout(output):
        typer.echo(text, nl=False)
        return
    write_output(output, text)
    _info(f"wrote {output}", err=True)


def _corpus_names(incomplete: str) -> list[str]:
    """Shell completion of verify's ALGORITHM: the corpus names (files and directories are
    completed by the shell itself: the completion scripts fall back to them)."""
    from tactl.driver.verify import available_names, corpus_directory  # lazy: only when completing

    return [name for name in available_names(corpus_directory()) if name.startswith(incomplete)]


@app.command(cls=_Command, short_help="Verify algorithms end to end, with reports and cache.", help="Verify algorithms end to end: every pass from pseudocode (or .rta, or .ta) to a "
                  "verdict per property, each pass output cached under .tactl-cache/ "
                  "(content-addressed: a comment edit re-uses the check results), independent "
                  "property checks in parallel (-j N, or a Dask cluster), and three reports: this "
                  "table, REPORT_DIR/report.json and REPORT_DIR/report.html.\n\n"
                  "ALGORITHM is a name from the corpus (strb means corpus/strb/: its .alg, else "
                  ".rta, else .ta), a directory (every algorithm in it, or in its subdirectories: "
                  "tactl verify corpus/), or a file. Exit status as for check: 0 all hold, 1 a "
                  "property is violated, 2 bad input (or a report that cannot be written, after "
                  "the verdicts), 3 something unknown, unsupported or holding vacuously, 130/143 "
                  "interrupted by "
                  "Ctrl-C/SIGTERM (what was decided is printed, the rest as INTERRUPTED).")
def verify(
    algorithms: Annotated[list[str], typer.Argument(metavar="ALGORITHM...", show_default=False,
                                                   autocompletion=_corpus_names,
                                                   help="corpus names, directories or files")],
    properties: PropertyOption = None,
    engine: Annotated[str, typer.Option("--engine", metavar="E", help="parametric (all parameters) "
                                        "or explicit (--param, small instances); spin/nusmv run "
                                        "the counter model at the --param values; source runs "
                                        "the .alg program itself (the reference interpreter) "
                                        "at the --param values.")] = "parametric",
    params: ParamOption = None,
    emit: Annotated[Optional[str], typer.Option("--emit", metavar="T,...", help="Also write target "
                                                "models beside the report: promela, smtlib, nuxmv "
                                                "(comma-separated).")] = None,
    timeout: Annotated[Optional[float], typer.Option("--timeout", metavar="S", parser=_seconds,
                                                     help="Seconds per property check; what is "
                                                          "not decided by then is unknown (and "
                                                          "not cached).")] = None,
    jobs: Annotated[int, typer.Option("-j", "--jobs", min=1, max=256, metavar="N", help="Property checks run in "
                                      "parallel in this many processes.")] = 1,
    executor: Annotated[Optional[str], typer.Option("--executor", metavar="dask://HOST:PORT",
                                                    help="Run the property checks on a Dask "
                                                         "distributed scheduler instead.")] = None,
    report_dir: Annotated[Path, typer.Option("--report-dir", metavar="DIR", help="Where report.json, "
                                             "report.html and --emit outputs go.")] = Path("tactl-report"),
    cache_dir: Annotated[Optional[Path], typer.Option("--cache-dir", metavar="DIR", help="The cache "
                                                      "(default: $TACTL_CACHE_DIR, else "
                                                      ".tactl-cache).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Run every pass; read and write no "
                                           "cache.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Say which passes ran, which came from "
                                          "the cache, and why.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report instead of the "
                                          "table.")] = False,
    progress: ProgressOption = None,
    quiet: QuietOption = False,
    verbose: VerboseOption = False,
    define: DefineOption = None,
) -> None:
    # lazy: verify's driver, engines and reports load only for verify
    from tactl.engines.check import ENGINES
    from tactl.driver.executors import ExecutorError
    from tactl.driver.verify import (EMIT_TARGETS, FAILED, SOURCE_ENGINE, VerifyError, VerifyOptions, resolve,
                                     verify as run_verify)
    from tactl.report.verify import explain_lines, run_json, run_table

    if engine not in (*ENGINES, SOURCE_ENGINE):
        raise _usage_error("verify", f"unknown engine '{engine}'; choose {', '.join(ENGINES)}"
                                     f" or {SOURCE_ENGINE}" + _meant(engine, (*ENGINES, SOURCE_ENGINE)))
    if engine == SOURCE_ENGINE and emit:
        raise _usage_error("verify", "--emit writes the translated automaton's models; "
                                     "--engine source translates nothing")
    targets = tuple(t.strip() for t in (emit or "").split(",") if t.strip())
    for t in targets:
        if t not in EMIT_TARGETS:
            raise _usage_error("verify", f"--emit: unknown target '{t}'; choose from "
                                         f"{', '.join(EMIT_TARGETS)}")
    if executor:
        # lazy: only this command needs it; --help starts without it
        from tactl.driver.executors import dask_address

        try:
            dask_address(executor)  # a malformed address is refused before any work
        except ExecutorError as e:
            raise _usage_error("verify", str(e)) from None
    try:
        files = resolve(algorithms)
    except VerifyError as e:
        raise _usage_error("verify", str(e)) from None
    options = VerifyOptions(tuple(properties or ()), engine, _parameters(params, Path("verify")),
                            targets, timeout, jobs, executor, cache_dir, not no_cache, report_dir,
                            _defines(define, None))
    _set_verbosity(quiet, verbose, "verify")
    explain = explain or _verbosity["verbose"]
    shown = _progress_display(progress)
    deadline.stop_on_signals()
    try:
        result = run_verify(files, options, shown, "tactl verify " + " ".join(algorithms))
    except ExecutorError as e:
        raise _usage_error("verify", str(e)) from None
    finally:
        if shown is not None:
            shown.stop()
    if not result.interrupted:
        _unknown_properties(result, options)
    for a in result.algorithms:
        if a.error:
            typer.echo(a.error, err=True)
        for w in a.warnings:  # diagnostics already name their file and position
            typer.echo(w if w.startswith(a.path) else f"tactl: warning: {a.name}: {w}", err=True)
    for w in result.warnings:
        typer.echo(f"tactl: warning: {w}", err=True)
    if explain:
        for line in explain_lines(result):
            typer.echo(line, err=True)
    if as_json:
        document = run_json(result)  # the printed form leaves the picture out
        typer.echo(json.dumps(document, indent=2))
    else:
        typer.echo(run_table(result))
    # The verdicts are out before the reports are written: a report directory that cannot be
    # written must not hide a violation. Its failure still decides the exit status (2).
    if result.interrupted:
        typer.echo(f"tactl: interrupted: the verdicts above were decided before the "
                   f"{signal.Signals(result.interrupted).name}; the cache holds only whole entries",
                   err=True)
    failed = [(a.name, v.result) for a in result.algorithms for v, cache in a.verdicts
              if cache == FAILED]  # a worker raised or died: the run exits 4
    if failed:
        typer.echo(f"tactl: internal error: {len(failed)} check{'s' if len(failed) != 1 else ''} "
                   f"not decided ({failed[0][0]}: {failed[0][1].name}: "
                   f"{failed[0][1].reason.removeprefix('internal error: ')}); the other verdicts "
                   "above stand", err=True)
    try:
        _write_reports(result, report_dir, with_svg=not result.interrupted)
    except InputError as e:
        typer.echo(e.render(), err=True)
        typer.echo("tactl: the reports were not written; the verdicts above stand", err=True)
        raise typer.Exit(EXIT_INTERNAL if failed else EXIT_USAGE) from None
    if not as_json:
        _info(f"reports: {report_dir / 'report.html'}, {report_dir / 'report.json'}", err=False)
    raise typer.Exit(result.exit_code)


def _write_reports(result, report_dir: Path, with_svg: bool = True) -> None:
    # lazy: jinja2 and the HTML report load only when verify writes its report
    from tactl.report.html import render_html
    from tactl.report.verify import run_json

    for a in result.algorithms:  # --emit outputs that could not be written
        for problem in a.unwritten:
            raise problem
    document = run_json(result, with_svg=with_svg)
    make_directory(report_dir)
    write_output(report_dir / "report.json", json.dumps(document, indent=2) + "\n")
    write_output(report_dir / "report.html", render_html(document))


def _unknown_properties(result, options) -> None:
    """A --property that no verified algorithm has is a usage error, not a silent empty run."""
    from tactl.driver.verify import unknown_properties  # lazy: verify's driver

    problem = unknown_properties(result, options.properties)
    if problem:
        raise _usage_error("verify", problem)


def _progress_display(progress: bool | None):
    """check's and verify's progress (``tactl.util.progress``): on unless --no-progress or -q
    (--progress wins over -q); a live line on a terminal, plain lines otherwise."""
    # lazy: only check and verify show progress; --help starts without it
    from tactl.util.progress import display

    show = (not _verbosity["quiet"]) if progress is None else progress
    return display(show, sys.stderr.isatty(), _verbosity["verbose"])


cache_app = typer.Typer(help="The pass cache of tactl verify: statistics, or clear it.",
                        no_args_is_help=True)
app.add_typer(cache_app, name="cache")

CacheDirOption = Annotated[Optional[Path], typer.Option("--cache-dir", metavar="DIR", help="The "
                                                       "cache (default: $TACTL_CACHE_DIR, else "
                                                       ".tactl-cache).")]


@cache_app.command("stats", cls=_Command, help="Entries and bytes in the cache.")
def cache_stats(cache_dir: CacheDirOption = None) -> None:
    # lazy: only this command needs it; --help starts without it
    from tactl.driver.cache import Cache, NotACache, default_directory

    cache = Cache(cache_dir or default_directory())
    try:
        stats = cache.stats()
    except NotACache as e:
        raise _usage_error(cache.root, str(e)) from None
    for k, v in stats.items():
        typer.echo(f"{k}: {v}")


@cache_app.command("clear", cls=_Command, help="Delete the cache's entries: only files the cache wrote (entries, "
                                 "lineage notes, temporary files); anything else under the "
                                 "directory is kept, and symbolic links are never followed.")
def cache_clear(cache_dir: CacheDirOption = None) -> None:
    # lazy: only this command needs it; --help starts without it
    from tactl.driver.cache import Cache, NotACache, default_directory

    cache = Cache(cache_dir or default_directory())
    try:
        deleted, kept = cache.clear()
    except NotACache as e:
        raise _usage_error(cache.root, f"{e}: nothing deleted") from None
    typer.echo(f"deleted {deleted} entr{'y' if deleted == 1 else 'ies'} from {cache.root}"
               + (f"; kept {kept} file{'s' if kept != 1 else ''} the cache did not write" if kept else ""))


class _NeverRaised(Exception):
    """Stands for an exception class whose module was never loaded (so nothing raised it)."""


def _certificate_error() -> type[Exception]:
    """The translation's CertificateError if its module is loaded, else a class nothing raises.
    Never an import: main() evaluates this in an ``except`` clause for every exception, and an
    import there, while a MemoryError still holds the memory, raised a second MemoryError that
    escaped main with a traceback and exit status 1."""
    module = sys.modules.get("tactl.driver.translation")
    return getattr(module, "CertificateError", _NeverRaised)


def main(argv: list[str] | None = None) -> int:
    """Console entry point: runs the app and maps every outcome to an exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in args
    try:
        app(args=args, prog_name="tactl")  # standalone: usage errors print and exit 2 by themselves
    except SystemExit as e:
        if e.code in (EXIT_INTERRUPTED, EXIT_TERMINATED):  # Typer turns Ctrl-C into a silent exit 130
            typer.echo("tactl: interrupted", err=True)
            return deadline.interrupted_status()  # 143 if it was SIGTERM
        return e.code if isinstance(e.code, int) else (EXIT_OK if e.code is None else EXIT_USAGE)
    except (MemoryError, RecursionError) as e:  # first: the clauses below may allocate or import
        return _exhausted(e, debug)
    except TactlError as e:
        typer.echo(e.render(), err=True)
        return EXIT_USAGE
    except _certificate_error() as e:  # evaluated only when an exception gets here
        typer.echo(e.render(), err=True)
        return e.exit_code
    except deadline.DeadlineExceeded:
        typer.echo(f"tactl: timeout: the --timeout of {deadline.seconds():g} s passed before the "
                   "command finished; nothing was decided and nothing was written", err=True)
        return EXIT_UNKNOWN
    except KeyboardInterrupt:
        typer.echo("tactl: interrupted", err=True)
        return deadline.interrupted_status()
    except Exception as e:  # noqa: BLE001 - the last line of defence: no traceback for users
        if deadline.interruption(e) is not None or (
                type(e).__name__ == "ArgumentError" and "KeyboardInterrupt" in str(e)):
            # the consequence of a stop signal (a cancelled z3 call, an interrupt ctypes wrapped)
            typer.echo("tactl: interrupted", err=True)
            return deadline.interrupted_status()
        if debug:
            traceback.print_exc()
        else:
            typer.echo(f"tactl: internal error: {type(e).__name__}: {e} (run with --debug for details)",
                       err=True)
        return EXIT_INTERNAL
    finally:
        deadline.cancel()
    return EXIT_OK


def _exhausted(error: MemoryError | RecursionError, debug: bool) -> int:
    """Out of memory or stack: free what the failed computation holds (its frames live on in the
    traceback) before saying so in one line, written without Typer (which allocates)."""
    if debug:
        traceback.print_exception(error)
    error.__traceback__ = None
    error.__context__ = error.__cause__ = None
    what = "out of memory" if isinstance(error, MemoryError) else str(error) or "recursion too deep"
    _last_words(f"tactl: internal error: {type(error).__name__}: {what}"
                + ("" if debug else " (run with --debug for details)"))
    return EXIT_INTERNAL


def _last_words(line: str) -> None:
    """One line on stderr even when Python's streams cannot be used (out of memory, closed)."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the stream failed: the file descriptor remains
        try:
            os.write(2, line.encode("utf-8", "replace") + b"\n")
        except OSError:
            pass


def run() -> None:
    """The ``tactl`` console script. main() maps every outcome to a status; should its own
    handling fail (memory still exhausted while reporting a MemoryError, an interrupt while
    reporting), the status is still 4 (or the interrupt's), never Python's 1 with a traceback."""
    try:
        code = main()
    except KeyboardInterrupt:
        _last_words("tactl: interrupted")
        os._exit(deadline.interrupted_status())
    except BaseException as e:  # noqa: BLE001 - the handler of the last line of defence failed
        _last_words(f"tactl: internal error: {type(e).__name__} while reporting an error")
        os._exit(EXIT_INTERNAL)
    _exit(code)


def _exit(code: int) -> None:
    """End the process with ``code``. When the command left no other thread (but daemons) and
    started no worker processes, the interpreter's teardown is skipped (streams flushed and ``atexit``
    handlers run first, as a normal exit does): freeing z3's terms one by one at shutdown is a
    noticeable part of a small ``tactl check``, and nothing needs it."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if others or "multiprocessing" in sys.modules:
        sys.exit(code)  # the normal exit joins these threads and worker processes
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (tactl check | head): nothing left to say
            pass
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":
    run()
