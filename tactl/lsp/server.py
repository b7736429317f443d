"""The language server itself: the Language Server Protocol (pygls) around
:mod:`tactl.lsp.analysis`, :mod:`tactl.lsp.symbols` and :mod:`tactl.lsp.hover`.

Every opened or changed buffer is analysed in one worker thread, so the protocol stays responsive
while z3 certifies a translation, and no two analyses use z3 at once. A buffer's reading is
published as soon as it is done (a syntax error never waits for a translation), its translation's
problems when that is done; an analysis whose buffer changed meanwhile is dropped before it
starts a stage. Requests (hover, definition, symbols) wait for the latest analysis of their buffer.

Positions: the readers count lines and columns from 1 in code points; the protocol counts from 0
in the client's units (UTF-16 unless negotiated otherwise), which pygls's position codec converts.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition

from tactl.ir.errors import Span
from tactl.lsp.analysis import Analysis, Problem, internal_error, read_document, translate_document
from tactl.lsp.hover import hover_at
from tactl.lsp.symbols import Symbol, definition_at, symbols_of
from tactl.util.version import __version__

SYMBOL_KINDS = {
    "parameter": types.SymbolKind.Constant, "define": types.SymbolKind.Constant,
    "message": types.SymbolKind.Event, "domain": types.SymbolKind.Enum,
    "variable": types.SymbolKind.Variable, "local variable": types.SymbolKind.Variable,
    "shared variable": types.SymbolKind.Variable, "unknown": types.SymbolKind.Variable,
    "location": types.SymbolKind.EnumMember, "rule": types.SymbolKind.Function,
    "crash rule": types.SymbolKind.Function, "property": types.SymbolKind.Property,
    "atomic proposition": types.SymbolKind.Boolean, "proctype": types.SymbolKind.Class,
}
SEVERITIES = {True: types.DiagnosticSeverity.Error, False: types.DiagnosticSeverity.Warning}


@dataclass
class Known:
    """The latest analysis of a buffer, for the version it was made of."""

    version: int | None
    analysis: Analysis
    symbols: list[Symbol]


class TactlServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("tactl", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tactl-analysis")
        self.known: dict[str, Known] = {}
        self.latest: dict[str, int | None] = {}
        self.tasks: dict[str, asyncio.Future] = {}

    # ----------------------------------------------------------------------- analysis

    def schedule(self, uri: str) -> None:
        self.latest[uri] = self.workspace.get_text_document(uri).version
        self.tasks[uri] = asyncio.ensure_future(self.refresh(uri))

    def _current(self, uri: str, version: int | None) -> bool:
        return self.latest.get(uri, object()) == version

    def _stage(self, uri: str, version: int | None, work, *args) -> Analysis | None:
        """One stage in the worker thread, unless the buffer changed since it was scheduled. A
        failure of tactl itself is shown on the buffer, as the command's last line of defence
        shows it (``tactl/cli/entry.py``), and the server goes on."""
        if not self._current(uri, version):
            return None
        try:
            return work(*args)
        except Exception as e:  # noqa: BLE001 - an internal error must not end the session
            # the stages' arguments: the analysis so far, or the buffer's path and text
            analysis = args[0] if isinstance(args[0], Analysis) else Analysis(args[0], args[1], None)
            return replace(analysis, problems=analysis.problems + [internal_error(e, analysis.path)])

    async def refresh(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        version, loop = doc.version, asyncio.get_running_loop()
        first = await loop.run_in_executor(self.worker, self._stage, uri, version, read_document,
                                           doc.path, doc.source, doc.language_id)
        if first is None or not self._current(uri, version):
            return
        self.remember(uri, version, first)
        second = await loop.run_in_executor(self.worker, self._stage, uri, version, translate_document, first)
        if second is not None and self._current(uri, version):
            self.remember(uri, version, second, publish=second.problems != first.problems)

    def remember(self, uri: str, version: int | None, analysis: Analysis, publish: bool = True) -> None:
        self.known[uri] = Known(version, analysis, symbols_of(analysis))
        if publish:
            doc = self.workspace.get_text_document(uri)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, version=version, diagnostics=[diagnostic(doc, p) for p in analysis.problems]))

    async def settled(self, uri: str) -> Known | None:
        task = self.tasks.get(uri)
        if task is not None:
            await asyncio.shield(task)
        return self.known.get(uri)


# ------------------------------------------------------------------------------ positions


def to_client(doc: TextDocument, line: int, col: int) -> types.Position:
    """A reader's 1-based (line, column in code points), clamped to the buffer, as the client's."""
    lines = doc.lines
    if not lines:
        return types.Position(line=0, character=0)
    row = min(max(line - 1, 0), len(lines) - 1)
    text = lines[row].rstrip("\r\n")
    return doc.position_to_client_units(ServerTextPosition(row, min(max(col - 1, 0), len(text))))


def to_range(doc: TextDocument, span: Span | None) -> types.Range:
    if span is None:  # a problem of the whole file: its first line
        return types.Range(start=types.Position(line=0, character=0), end=to_client(doc, 1, 10**9))
    return types.Range(start=to_client(doc, span.line, span.col), end=to_client(doc, span.end_line, span.end_col))


def from_client(doc: TextDocument, position: types.Position) -> tuple[int, int]:
    """The client's position as a reader's 1-based (line, column in code points)."""
    at = doc.position_from_client_units(position)
    return at.line + 1, at.character + 1


def diagnostic(doc: TextDocument, problem: Problem) -> types.Diagnostic:
    d = problem.diagnostic
    return types.Diagnostic(range=to_range(doc, d.span), message=d.message, source="tactl",
                            severity=SEVERITIES[problem.is_error])


# ------------------------------------------------------------------------------- features

server = TactlServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: TactlServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: TactlServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: TactlServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.latest.pop(uri, None)
    ls.known.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: TactlServer, params: types.HoverParams) -> types.Hover | None:
    known = await ls.settled(params.text_document.uri)
    if known is None:
        return None
    doc = ls.workspace.get_text_document(params.text_document.uri)
    found = hover_at(known.analysis, known.symbols, *from_client(doc, params.position))
    if found is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=found.markdown),
                       range=to_range(doc, found.span))


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: TactlServer, params: types.DefinitionParams) -> types.Location | None:
    uri = params.text_document.uri
    known = await ls.settled(uri)
    if known is None:
        return None
    doc = ls.workspace.get_text_document(uri)
    found = definition_at(known.analysis, known.symbols, *from_client(doc, params.position))
    return None if found is None else types.Location(uri=uri, range=to_range(doc, found.span))


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: TactlServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    uri = params.text_document.uri
    known = await ls.settled(uri)
    if known is None:
        return []
    doc = ls.workspace.get_text_document(uri)
    return [types.DocumentSymbol(name=s.name, detail=s.kind, kind=SYMBOL_KINDS.get(s.kind, types.SymbolKind.Object),
                                 range=to_range(doc, s.extent), selection_range=to_range(doc, s.span))
            for s in known.symbols]


def serve() -> None:
    """Speak the protocol on standard input and output until the client says exit."""
    server.start_io()
