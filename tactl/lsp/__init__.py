"""``tactl lsp``: a language server for ``.alg``, ``.rta``, ``.ta``/``.eta`` and ``.pml`` files.

A thin layer over the readers the commands use (``tactl/driver/pipeline.py``): an edited buffer
is read by the same passes ``tactl parse``, ``translate`` and ``check`` run before an engine
(:mod:`tactl.lsp.analysis`), and what they say becomes diagnostics; the declarations the IRs keep
(with their spans) become hovers, definitions and document symbols (:mod:`tactl.lsp.symbols`);
the translation's certificate rows become the hover of a receive guard (:mod:`tactl.lsp.hover`).
Only :mod:`tactl.lsp.server` knows the protocol (pygls); the others are plain functions of a
document's path and text, tested without a server. :mod:`tactl.lsp.textmate` writes the TextMate
grammars of ``editors/vscode/`` from the lark grammars, so highlighting and parsing share their
keywords.
"""
