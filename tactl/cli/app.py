"""What every ``tactl`` command shares: the Typer app, its global options, the exit statuses, the
option declarations several commands take (the input file, ``-D``, ``--param``, ``--timeout``,
``-q``/``-v``, progress) and the helpers that check them and speak to the user.

The commands themselves register on :data:`app` from the modules beside this one, in the order
``tactl/cli/__init__.py`` imports them (the order ``tactl --help`` lists them in).
"""

# No `from __future__ import annotations`: Typer reads a command's parameters with
# typing.get_type_hints, which compiles and evaluates every annotation written as a string, twice
# per command it builds, in every process; written as objects they are made once, at import.

import re
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperCommand

from tactl import __version__
from tactl.util import deadline
from tactl.util.fsutil import is_special, is_stdout
from tactl.ir.errors import Diagnostic, InputError, Severity

EXIT_OK, EXIT_VIOLATED, EXIT_USAGE, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report a SIGINT
EXIT_TERMINATED = 143  # SIGTERM


class Command(TyperCommand):
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

def input_file(value: Path) -> Path:
    """An input argument as the file it means: itself when it exists (or ``-``), else an algorithm
    of the shipped corpus by name (``tactl check bracha``), resolved by the driver
    (tactl/driver/inputs.py); neither is a usage error with the closest names."""
    if value is None or str(value) == "-" or value.exists():
        return value
    # lazy: the driver loads only for a name that is not a file
    from tactl.driver.inputs import UnknownInput, resolve_input

    try:
        return resolve_input(value)
    except UnknownInput as e:
        raise usage_error(value, str(e)) from None


CORPUS_HELP = "; or the name of a corpus algorithm (e.g. strb, bracha)"
InputFile = Annotated[Path, typer.Argument(
    metavar="FILE", help="a threshold automaton: .ta (ByMC format) or its .json form, .eta (TACO), "
                         ".tla (TLA+, the fragment of TACO and of counter systems); a receive "
                         "automaton (.rta or its .json form) is translated first, pseudocode "
                         "(.alg) and ByMC's Parametric Promela (.pml) parsed and translated; '-' "
                         "reads standard input (the format is recognised from the text)" + CORPUS_HELP,
    show_default=False, callback=input_file)]


DefineOption = Annotated[Optional[list[str]], typer.Option(
    "--define", "-D", metavar="NAME",
    help="Parametric Promela (.pml): define NAME for the file's #ifdef/#ifndef, as 'bymc -D NAME' "
         "does (e.g. -D CASE2); repeatable.")]


def checked_defines(values: list[str] | None, file: Path | None) -> tuple[str, ...]:
    """The ``-D`` names, checked: identifiers, and only for an input that can be Promela (``file``
    None: verify's many inputs, where the other kinds ignore them)."""
    names = tuple(values or ())
    for name in names:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise usage_error(file or "verify", f"-D {name!r}: a name to define must be an identifier")
    if names and file is not None and not is_stdout(file) and file.suffix.lower() != ".pml":
        raise usage_error(file, "-D defines names for a Parametric Promela file's #ifdef (.pml); "
                                f"this input is a {file.suffix or 'file without extension'}")
    return names


# -q and -v, global (tactl -q check …) or per command (tactl check -q …): what each hides or adds.
#   -q, --quiet    stderr carries only warnings and errors: no progress, no 'wrote FILE' lines, no
#                  notes or tables (parse's location table); standard output (the verdicts, the
#                  automaton) is unchanged, but for verify's violations: one line each, no run.
#   -v, --verbose  progress with the engines' notes (each vacuity question, each explicit
#                  instance, the parametric engine's branches and approximations); a wide
#                  automaton's counterexample as the table of every counter (check), every step of
#                  a violation's run (verify); verify adds --explain (each pass: from the cache or
#                  run, and why).
verbosity = {"quiet": False, "verbose": False}

QuietOption = Annotated[bool, typer.Option(
    "-q", "--quiet", help="Only verdicts, warnings and errors: no progress, notes or 'wrote' lines.")]
VerboseOption = Annotated[bool, typer.Option(
    "-v", "--verbose", help="Progress with the engines' notes (vacuity questions, instances, "
                            "branches); a wide automaton's run as the table of every counter "
                            "(check) or with every step (verify); verify: --explain.")]


def set_verbosity(quiet: bool, verbose: bool, where: str = "tactl") -> None:
    quiet, verbose = quiet or verbosity["quiet"], verbose or verbosity["verbose"]
    if quiet and verbose:
        raise usage_error(where, "give -q (quiet) or -v (verbose), not both")
    verbosity.update(quiet=quiet, verbose=verbose)


def info(message: str, err: bool = True) -> None:
    """Something the user may want to know, but not a result, warning or error: -q hides it."""
    if not verbosity["quiet"]:
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
    verbosity.update(quiet=False, verbose=False)  # one process may run several commands (tests)
    set_verbosity(quiet, verbose)


def suggestion(word: str, known) -> str:
    """``"; did you mean 'explicit'?"`` for a misspelt option value, else ``""``."""
    from tactl.util.suggest import did_you_mean  # lazy: only when refusing a value

    return did_you_mean(word, known)


def usage_error(path: Path | str, message: str) -> InputError:
    return InputError(Diagnostic(Severity.ERROR, message), str(path))


def parse_seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return deadline.parse_seconds(value)
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None


TimeoutOption = Annotated[Optional[float], typer.Option(
    "--timeout", metavar="S", parser=parse_seconds,
    help="Seconds for the whole command (reading, translating, building queries, solving, "
         "replaying); what is not decided by then is unknown, never holds.")]

MinimizeOption = Annotated[bool, typer.Option(
    "--minimize", help="parametric engine: make every counterexample minimal (smallest "
    "parameters, shortest schedule) however long it takes. By default that search may take at "
    "most as long as the check took to reach its verdict (at least 0.25 s CPU) and then keeps the "
    "run found so far, marked 'not shown minimal' with the reason.")]


def start_clock(seconds: float | None) -> None:
    deadline.start(seconds)


TA_OUTPUTS = {".ta": "ta", ".json": "json"}
# An extended automaton (.eta) prints as the same text; written as .ta, its resets would warn.
ETA_OUTPUTS = {".eta": "ta", ".ta": "ta", ".json": "json"}
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
        raise usage_error(target, wrong_kind)
    raise usage_error(target, f"cannot tell the output format from the name '{target.name}': use "
                              + " or ".join(formats) + " (or '-' for standard output)")


MAX_PARAMETER_DIGITS = 1000


def checked_parameters(values: list[str] | None, file: Path) -> dict[str, int]:
    """``--param NAME=V`` values: an identifier and a natural number in ASCII digits."""
    # lazy: only this command needs it; --help starts without it
    from tactl.ir.names import identifier_problem

    out: dict[str, int] = {}
    for item in values or []:
        name, eq, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or identifier_problem(name) or not re.fullmatch(r"[0-9]+", value):
            raise usage_error(file, f"--param expects NAME=VALUE with a natural number written in "
                                    f"digits 0-9, not '{item[:80]}'")
        if len(value) > MAX_PARAMETER_DIGITS:
            raise usage_error(file, f"--param {name}: a value of {len(value)} digits is too large "
                                    f"(at most {MAX_PARAMETER_DIGITS} digits)")
        if name in out and out[name] != int(value):
            raise usage_error(file, f"--param gives {name} two values ({out[name]} and {int(value)})")
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


def receive_mode(file: Path, receive: str) -> str:
    """``--receive``, checked: the spin process model's receive steps (check and emit)."""
    if receive not in ("auto", "forced", "lazy"):
        raise usage_error(file, f"unknown receive mode '{receive}'; choose auto, forced or lazy")
    return receive


def warn(message: str) -> None:
    """What the driver says while it works (a reading's warnings, an option's note): stderr."""
    typer.echo(message, err=True)


def progress_display(progress: bool | None):
    """check's and verify's progress (``tactl.util.progress``): on unless --no-progress or -q
    (--progress wins over -q); a live line on a terminal, plain lines otherwise."""
    # lazy: only check and verify show progress; --help starts without it
    from tactl.util.progress import display

    show = (not verbosity["quiet"]) if progress is None else progress
    return display(show, sys.stderr.isatty(), verbosity["verbose"])
