"""The declarations of a buffer, where its IR says they are: parameters, messages, variables,
locations, rules, properties, macros.

Every reader keeps the span of what it read (``ir/errors.py`` ``Span``, no part of equality), so
the symbol table is a walk over the IR the analysis produced (:mod:`tactl.lsp.analysis`), one
function per dialect; nothing is parsed twice but a Promela file (whose front end keeps no
syntax tree) and nothing is guessed from the text but the extent of a name inside a span that
covers a whole declaration. A use of a name is found by its word (:func:`word_at`): the
languages have one namespace per file, so a word names at most one declaration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from tactl.ir.errors import Span, TactlError, source_line
from tactl.ir.rta.reader import RtaReadResult
from tactl.ir.ta.model import SymbolKind
from tactl.ir.ta.reader import ReadResult
from tactl.lsp.analysis import Analysis

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Symbol:
    """A declaration: its ``name``, what it is (``kind``: parameter, message, variable,
    location, rule, property, define, ...), the span of its name and the span of the whole
    declaration (a rule's lines; else the name's)."""

    name: str
    kind: str
    span: Span
    extent: Span

    @property
    def is_name(self) -> bool:
        """A name other text refers to (a rule is found by its lines, not by a word)."""
        return self.kind != "rule"


def name_span(text: str, name: str, span: Span | None) -> Span | None:
    """The span of ``name`` itself in a declaration whose span starts at ``span`` (its first
    whole-word occurrence from there, on that line), else ``span``."""
    if span is None:
        return None
    line = source_line(text, span.line) or ""
    found = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])").search(line, span.col - 1)
    if found is None:
        return span
    return Span(span.line, found.start() + 1, span.line, found.end() + 1)


def word_at(text: str, line: int, col: int) -> tuple[str, Span] | None:
    """The identifier under the 1-based position (or just before it, as a cursor at a word's
    end is), with its span."""
    source = source_line(text, line)
    if source is None:
        return None
    for m in WORD.finditer(source):
        if m.start() < col <= m.end() + 1:
            start = m.start() - (m.start() > 0 and source[m.start() - 1] == "?")  # an unknown: ?a
            return source[start:m.end()], Span(line, start + 1, line, m.end() + 1)
    return None


def rule_extent(text: str, start: Span, following: Span | None) -> Span:
    """The lines of a rule that starts at ``start``: up to the next rule's line, else up to the
    line closing the section; trailing blank and comment-only lines are not part of it."""
    lines = text.split("\n")
    end = (following.line - 1) if following is not None else len(lines)
    if following is None:
        for number in range(start.line + 1, len(lines) + 1):
            if lines[number - 1].strip().startswith("}"):
                end = number - 1
                break
    while end > start.line and _blank(lines[end - 1]):
        end -= 1
    return Span(start.line, start.col, end, len(lines[end - 1]) + 1)


def _blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(("//", "/*", "*", "#"))


def _named(text: str, items: Iterable[tuple[str, str, Span | None]]) -> Iterator[Symbol]:
    for name, kind, span in items:
        at = name_span(text, name, span)
        if at is not None:
            yield Symbol(name, kind, at, at)


def _rules(text: str, rules, kind: str = "rule") -> Iterator[Symbol]:
    placed = [r for r in rules if r.span is not None]
    for rule, following in zip(placed, [*placed[1:], None]):
        name = f"{rule.id}: {rule.source} -> {rule.target}"
        yield Symbol(name, kind, rule.span, rule_extent(text, rule.span,
                                                        following.span if following else None))


def _alg_symbols(text: str, written: RtaReadResult) -> Iterator[Symbol]:
    program = getattr(written, "program", None)
    if program is None:
        return
    alg = program.alg
    spans = alg.spans
    yield from _named(text, ((p, "parameter", spans.get(f"parameter {p}")) for p in alg.parameters))
    yield from _named(text, ((name, "domain", spans.get(f"domain {name}")) for name in alg.domains))
    yield from _named(text, ((m.name, "message", m.span) for m in alg.messages))
    yield from _named(text, ((v.name, "variable", v.span) for v in alg.variables))
    yield from _named(text, ((p.name, "property", p.span) for p in alg.properties))
    yield from _unknowns(text, alg.unknowns)


def _unknowns(text: str, unknowns) -> Iterator[Symbol]:
    """``?a in 0..1``: an unknown coefficient, its range in its kind (what hovering shows)."""
    yield from _named(text, ((u.name, f"unknown, in {u.low}..{u.high}", u.span) for u in unknowns))


def _rta_symbols(text: str, written: RtaReadResult) -> Iterator[Symbol]:
    rta = written.rta
    yield from _named(text, ((n, "parameter", s) for section, n, s in rta.declared_at
                             if section == "parameters"))
    yield from _named(text, ((m.name, "message", m.span) for m in rta.messages))
    yield from _named(text, ((loc.name, "location", loc.span)
                             for loc in (*rta.locations, *rta.crash_locations)))
    yield from _unknowns(text, rta.unknowns)
    yield from _rules(text, rta.rules)
    yield from _rules(text, rta.crash_rules, "crash rule")
    yield from _named(text, ((p.name, "property", p.span) for p in rta.properties))


KIND_NAMES = {SymbolKind.LOCAL: "local variable", SymbolKind.SHARED: "shared variable",
              SymbolKind.PARAMETER: "parameter", SymbolKind.UNKNOWN: "unknown"}


def _ta_symbols(text: str, written: ReadResult) -> Iterator[Symbol]:
    ta = written.ta
    seen: set[str] = set()
    for name, span in ta.declared_at:
        if name not in seen:
            seen.add(name)
            yield from _named(text, [(name, KIND_NAMES.get(ta.symbols.get(name), "variable"), span)])
    yield from _named(text, ((d.name, "define", d.span) for d in ta.defines))
    yield from _named(text, ((loc.name, "location", loc.span) for loc in ta.locations))
    yield from _rules(text, ta.rules)
    yield from _named(text, ((p.name, "property", p.span) for p in ta.properties))


def _pml_symbols(path: str, text: str) -> Iterator[Symbol]:
    # lazy: the Promela grammar loads only for a .pml buffer
    from tactl.ir.promela.reader import parse_promela
    from tactl.ir.promela.syntax import Decl

    try:
        model = parse_promela(text, path)
    except TactlError:
        return
    yield from _named(text, ((d.name, "define", d.span) for d in model.defines))
    yield from _named(text, ((name, "parameter", span) for name, span in model.symbolic))
    yield from _named(text, ((name, "variable", decl.span) for decl in model.globals
                             for name, _ in decl.vars))
    yield from _named(text, ((name, "local variable", st.span) for proc in model.proctypes
                             for st in proc.body if isinstance(st, Decl) for name, _ in st.vars))
    yield from _named(text, ((p.name, "atomic proposition", p.span) for p in model.props))
    yield from _named(text, ((p.name, "proctype", p.span) for p in model.proctypes))
    yield from _named(text, ((f.name, "property", f.span) for f in model.ltls))


def symbols_of(analysis: Analysis) -> list[Symbol]:
    """Every declaration of the analysed buffer, in the order of the file."""
    written, kind, text = analysis.written, analysis.kind, analysis.text
    if kind == "pml-text":
        found = list(_pml_symbols(analysis.path, text))
    elif written is None:
        return []
    elif kind == "alg-text":
        found = list(_alg_symbols(text, written))
    elif isinstance(written, RtaReadResult):
        found = list(_rta_symbols(text, written))
    else:
        found = list(_ta_symbols(text, written))
    return sorted(found, key=lambda s: (s.extent.line, s.extent.col))


def declaration(symbols: list[Symbol], name: str) -> Symbol | None:
    """The declaration a word names (the first one, as the readers resolve duplicates)."""
    return next((s for s in symbols if s.is_name and s.name == name), None)


def definition_at(analysis: Analysis, symbols: list[Symbol], line: int, col: int) -> Symbol | None:
    """The declaration of the name under the 1-based position, if it is one."""
    word = word_at(analysis.text, line, col)
    return None if word is None else declaration(symbols, word[0])
