"""The commands that read an automaton and show it back: ``show`` (a summary or its JSON), ``fmt``
(the canonical text) and ``dot`` (a drawing)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from tactl.cli.app import (ETA_OUTPUTS, RTA_OUTPUTS, TA_OUTPUTS, Command, DefineOption, InputFile, app, checked_defines,
                           info, output_format, usage_error)
from tactl.util.fsutil import is_special, is_stdout, same_file, write_output
from tactl.driver.file_types import file_type

# The readers (lark grammars), IR serialisers and summaries are imported inside the commands that
# use them: `tactl --version`, `--help` and a usage error must start as fast as Python with Typer.
if TYPE_CHECKING:
    from tactl.ir.ta.reader import ReadResult


def _load(path: Path, lower_divisions: bool = True, defines: tuple[str, ...] = ()) -> ReadResult:
    """The automaton of ``path``; ``lower_divisions`` replaces ``e / c`` by derived parameters
    (what the engines need), off for commands that show the user's own text."""
    from tactl.driver.inputs import load_automaton  # lazy: the readers (see the imports above)

    result = load_automaton(path, lower_divisions=lower_divisions, defines=defines)
    if result.warnings:
        typer.echo(result.render_warnings(), err=True)
    return result


@app.command(cls=Command, short_help="Summarise an automaton (locations, rules, properties).", help="Summarise an automaton: parameters, resilience condition, locations (initial "
                  "ones marked), rules with guards and updates, and properties classified as safety "
                  "or liveness.")
def show(
    file: InputFile,
    as_json: Annotated[bool, typer.Option("--json", help="Print the IR as JSON (format tactl.ta) instead.")] = False,
    define: DefineOption = None,
) -> None:
    # lazy: only this command needs it; --help starts without it
    import json  # lazy: only the JSON forms
    from tactl.ir.ta.json_form import ta_to_json
    from tactl.report.summary import summarize

    result = _load(file, lower_divisions=False, defines=checked_defines(define, file))
    if as_json:
        typer.echo(json.dumps(ta_to_json(result.ta), indent=2))
    else:
        typer.echo(summarize(result.ta, result.path), nl=False)


def _printed(loaded, form: str) -> str:
    """The canonical text (``ta``/``rta``) or JSON form of a read automaton."""
    import json  # lazy: only the JSON forms

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


@app.command(cls=Command, short_help="Print an automaton in canonical form.", help="Print an automaton in canonical form: a threshold automaton as ByMC .ta text "
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
        raise usage_error(file, "give either -o OUT or --in-place, not both")
    if in_place and is_stdout(file):
        raise usage_error(file, "--in-place needs a file, not standard input")
    declared = file_type(file)
    if in_place and declared is not None and not declared.printed:
        language, becomes, other, command = _NOT_PRINTED[declared.kind]
        raise usage_error(file, f"--in-place would replace the {language} by the {becomes} it describes; "
                                f"write it elsewhere with -o X.{other} (or 'tactl {command}')")
    from tactl.driver.inputs import read_automaton  # lazy: the readers

    loaded = read_automaton(file, checked_defines(define, file))
    if loaded.warnings:
        typer.echo(loaded.render_warnings(), err=True)
    receive = isinstance(loaded, RtaReadResult)
    text_form = "rta" if receive else "ta"
    extended = file.suffix.lower() == ".eta"
    formats = RTA_OUTPUTS if receive else ETA_OUTPUTS if extended else TA_OUTPUTS
    own_form = "json" if file.suffix.lower() == ".json" else text_form
    target = file if in_place else output
    if target is None:
        typer.echo(_printed(loaded, text_form), nl=False)
        return
    wrong_kind = ("fmt keeps a receive automaton a receive automaton: write .rta or .json; "
                  f"'tactl translate {file} -o {target}' writes its threshold automaton") if receive else \
        "fmt prints a threshold automaton: write " + ("an .eta, " if extended else "") + ".ta or .json"
    form = own_form if in_place else output_format(target, formats, text_form, wrong_kind)
    if not in_place and same_file(target, file):
        raise usage_error(target, "refusing to overwrite the input file; use --in-place to rewrite it")
    if in_place and loaded.comment_count and own_form != "json" and not drop_comments:
        raise usage_error(file, f"has {loaded.comment_count} comment(s), which the canonical form "
                                "does not keep; pass --drop-comments to rewrite it anyway, or "
                                "write elsewhere with -o")
    write_output(target, _printed(loaded, form))
    if not is_special(target):
        info(f"wrote {target}", err=True)


#: Source languages tactl reads but does not print: what ``fmt`` would write instead, and where.
_NOT_PRINTED = {
    "alg-text": ("pseudocode", "receive automaton", "rta", "parse"),
    "pml-text": ("Promela model", "receive automaton", "rta", "parse"),
    "tla-text": ("module", "threshold automaton", "ta", "translate"),
}

_DOT_FORMATS = {".dot": None, ".gv": None, ".svg": "svg", ".png": "png", ".pdf": "pdf"}


@app.command(cls=Command, short_help="Draw an automaton (DOT, SVG, PNG, PDF).", help="Draw an automaton: locations as nodes (initial ones bold, with an entry arrow), "
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
        raise usage_error(output, f"unknown picture format '{suffix or '(none)'}'; "
                                  "use .dot, .gv, .svg, .png or .pdf")
    if same_file(output, file):
        raise usage_error(output, "refusing to overwrite the input file")
    from tactl.passes.emit.dot import emit_dot  # lazy: jinja2 (the templates), only for dot

    text = emit_dot(_load(file, lower_divisions=False, defines=checked_defines(define, file)).ta,
                    hide_self_loops=hide_self_loops)
    fmt_ = _DOT_FORMATS[suffix]
    write_output(output, text if fmt_ is None else _graphviz(text, fmt_, output))
    if not is_special(output):
        info(f"wrote {output}", err=True)


def _graphviz(text: str, fmt_: str, output: Path) -> bytes:
    exe = shutil.which("dot")
    if exe is None:
        raise usage_error(output, f"cannot draw .{fmt_}: Graphviz's 'dot' program is not installed "
                                  "(Debian: apt-get install graphviz); -o X.dot writes the DOT text")
    proc = subprocess.run([exe, f"-T{fmt_}"], input=text.encode(), capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise usage_error(output, "Graphviz failed: " + proc.stderr.decode(errors="replace").strip())
    return proc.stdout
