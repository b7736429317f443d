"""``tactl lsp``: the language server editors start (``tactl/lsp/``, docs/editor.md)."""

from __future__ import annotations

from tactl.cli.app import Command, app


@app.command(cls=Command, short_help="Run the language server (editors start it).",
             help="Run the language server for .alg, .rta, .ta/.eta and .pml files on standard input "
                  "and output (the Language Server Protocol): the errors and warnings that parse, "
                  "translate and check give before any engine runs, as you type; hover on a "
                  "receive guard (its send guard and z3's certificate) and on a name (its "
                  "declaration); go to definition; document symbols. An editor starts it: "
                  "docs/editor.md shows VS Code (editors/vscode/), Neovim and Emacs.")
def lsp() -> None:
    from tactl.lsp.server import serve  # lazy: pygls and the readers load only for the server

    serve()
