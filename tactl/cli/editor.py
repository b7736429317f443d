"""``tactl lsp``: the language server editors start (``tactl/lsp/``, docs/editor.md), and what it
would answer about one file, from the command line (to see what an editor will show, or why not)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Optional

import typer

from tactl.cli.app import EXIT_USAGE, Command, app, usage_error


@app.command(cls=Command, short_help="Run the language server (editors start it).",
             help="Run the language server for .alg, .rta, .ta/.eta and .pml files on standard input "
                  "and output (the Language Server Protocol): the errors and warnings that parse, "
                  "translate and check give before any engine runs, as you type; hover on a "
                  "receive guard (its send guard and z3's certificate) and on a name (its "
                  "declaration); go to definition; document symbols. An editor starts it: "
                  "docs/editor.md shows VS Code (editors/vscode/), Neovim and Emacs.\n\n"
                  "With --hover or --symbols it answers that one question about a file on disk "
                  "and exits, without the protocol.")
def lsp(
    hover: Annotated[Optional[str], typer.Option(
        "--hover", metavar="FILE:LINE:COL",
        help="Print what hovering at this position shows (line and column from 1, as in error "
             "messages; the Markdown without its code fences) and exit.")] = None,
    symbols: Annotated[Optional[Path], typer.Option(
        "--symbols", metavar="FILE", help="Print the file's document symbols (its outline) and exit.")] = None,
) -> None:
    if hover is None and symbols is None:
        from tactl.lsp.server import serve  # lazy: pygls loads only for the server

        serve()
        return
    # lazy: the readers and the translation load only for these questions
    from tactl.ir.source import read_text
    from tactl.lsp.analysis import analyse
    from tactl.lsp.hover import hover_at
    from tactl.lsp.symbols import symbols_of

    problems = []

    def analysed(path: Path):
        analysis = analyse(str(path), read_text(path))
        problems.extend(analysis.problems)
        for problem in analysis.problems:  # what the editor underlines, as check prints it
            typer.echo(problem.rendered, err=True)
        return analysis

    if symbols is not None:
        for s in symbols_of(analysed(symbols)):
            typer.echo(f"{f'{s.span.line}:{s.span.col}':<8}{s.kind:<19}{s.name}")
    if hover is not None:
        m = re.fullmatch(r"(.+):(\d+):(\d+)", hover)
        if m is None:
            raise usage_error(hover, "--hover expects FILE:LINE:COL, e.g. corpus/strb/strb.alg:17:8")
        analysis = analysed(Path(m.group(1)))
        shown = hover_at(analysis, symbols_of(analysis), int(m.group(2)), int(m.group(3)))
        # the hover's Markdown as a terminal shows it: without the code fences
        typer.echo("\n".join(line for line in shown.markdown.split("\n") if not line.startswith("```"))
                   if shown else "(nothing to show here)")
    # As every command on bad input: the answer above is what an editor shows, the status says
    # the file has errors (printed above, as the editor underlines them).
    if any(p.is_error for p in problems):
        raise typer.Exit(EXIT_USAGE)
