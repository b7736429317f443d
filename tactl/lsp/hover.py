"""What a hover shows: a receive guard's send guard and certificate, or a name's declaration.

A receive guard is translated by quantifier elimination into a guard over sent messages, and z3
certifies each produced guard (``passes/rta_to_ta/certify.py``): *sound* — the resilience
condition, the environment and the receive guard imply it; *precise* — it implies that some
receive counts satisfy the receive guard. ``tactl translate`` prints these as one table row per
rule (``tactl/driver/translation.py`` ``certificate_rows``, which the translate pass keeps on the
checkable automaton); the hover shows the rows of the guard under the cursor:

* in an ``.rta``, the rule whose ``when ( … )`` the cursor is in;
* in an ``.alg``, on a line that receives (``upon receiving …``, ``wait until received …``),
  every rule of the receive automaton whose source lines include that line: a pseudocode
  condition is part of the guard of each step that passes through it.

Anywhere else, a word that names a declaration (:mod:`tactl.lsp.symbols`) shows its kind and the
line that declares it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tactl.ir.errors import Span, source_line
from tactl.lsp.analysis import Analysis
from tactl.lsp.symbols import Symbol, declaration, word_at

MAX_ROWS = 12  # rows of one hover; a line in more rules says how many are left out
MARKS = {True: "✓", False: "✗", None: "?"}
RECEIVES = re.compile(r"\breceiv(?:ed|ing)\b")
CERTIFICATE_NOTE = ("sound: the resilience condition, the environment of the fault model and the "
                    "receive guard imply the send guard; precise: the send guard implies that some "
                    "receive counts satisfy the receive guard (both checked by z3, as `tactl "
                    "translate` prints them)")


@dataclass(frozen=True)
class Hover:
    """Markdown, and the span it is about (the guard's lines or the word)."""

    markdown: str
    span: Span


def _rows_by_rule(analysis: Analysis) -> dict[int, dict]:
    rows = (analysis.checkable.certificates or []) if analysis.checkable else []
    return {int(row["rule"].split(":", 1)[0]): row for row in rows}


def _row_text(row: dict) -> str:
    return (f"rule {row['rule']}\n"
            f"  receive guard: {row['receive_guard']}\n"
            f"  send guard:    {row['send_guard']}\n"
            f"  certificate:   sound {MARKS[row['sound']]}  precise {MARKS[row['precise']]}")


def _guard_hover(analysis: Analysis, head: str, rule_ids: list[int], span: Span) -> Hover:
    rows = _rows_by_rule(analysis)
    if not rows:
        why = next((p.diagnostic.message for p in analysis.problems if p.is_error),
                   "the translation has not finished yet")
        return Hover(f"{head}\n\nno send guard to show: {why}", span)
    shown = [rows[i] for i in rule_ids if i in rows]
    body = "\n\n".join(_row_text(r) for r in shown[:MAX_ROWS])
    more = f"\n\n… and {len(shown) - MAX_ROWS} more rules" if len(shown) > MAX_ROWS else ""
    return Hover(f"{head}\n\n```text\n{body}\n```{more}\n\n{CERTIFICATE_NOTE}", span)


def _offset(text: str, line: int, col: int) -> int:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return starts[line - 1] + col - 1


def _rta_guard(analysis: Analysis, symbols: list[Symbol], line: int, col: int) -> Hover | None:
    """The rule whose guard (from ``when`` to ``send``, a choice mark or the end) holds the
    position, in an ``.rta``."""
    text = analysis.text
    at = _offset(text, line, col)
    for s in symbols:
        if s.kind != "rule" or not s.extent.line <= line <= s.extent.end_line:
            continue
        start, end = _offset(text, s.extent.line, s.extent.col), _offset(text, s.extent.end_line, s.extent.end_col)
        rule_text = text[start:end]
        when = re.search(r"\bwhen\b", rule_text)
        if when is None:
            return None
        stop = re.compile(r"\bsend\b|\bcoin\b|\boracle\b|;").search(rule_text, when.end())
        last = start + (stop.start() if stop else len(rule_text))
        if not start + when.start() <= at <= last:
            return None
        rule_id = int(s.name.split(":", 1)[0])
        guard = Span(s.extent.line, s.extent.col, s.extent.end_line, s.extent.end_col)
        return _guard_hover(analysis, f"**receive guard of rule {s.name}**", [rule_id], guard)
    return None


def _alg_guard(analysis: Analysis, line: int) -> Hover | None:
    """The rules a receiving line of pseudocode is part of, in an ``.alg``."""
    written = analysis.written
    text = (source_line(analysis.text, line) or "").split("#", 1)[0]
    if written is None or not RECEIVES.search(text):
        return None
    ids = [r.id for r in written.rta.rules if r.origin is not None and line in r.origin.lines]
    if not ids:
        return None
    span = Span(line, len(text) - len(text.lstrip()) + 1, line, len(text.rstrip()) + 1)
    head = (f"**line {line}** `{text.strip()}` is part of the guard of {len(ids)} "
            f"rule{'s' if len(ids) > 1 else ''} of the receive automaton")
    return _guard_hover(analysis, head, ids, span)


def _declaration_hover(analysis: Analysis, symbols: list[Symbol], line: int, col: int) -> Hover | None:
    word = word_at(analysis.text, line, col)
    if word is None:
        return None
    found = declaration(symbols, word[0])
    if found is None and word[0].startswith("?"):  # `ch?x` in Promela: the word is x
        found = declaration(symbols, word[0][1:])
    if found is None:
        return None
    declared = (source_line(analysis.text, found.span.line) or "").strip()
    return Hover(f"**{found.kind}** `{found.name}`, declared at line {found.span.line}:\n\n"
                 f"```text\n{declared}\n```", word[1])


def hover_at(analysis: Analysis, symbols: list[Symbol], line: int, col: int) -> Hover | None:
    """The hover at the 1-based position, or None."""
    guard = None
    if analysis.kind == "rta-text":
        guard = _rta_guard(analysis, symbols, line, col)
    elif analysis.kind == "alg-text":
        guard = _alg_guard(analysis, line)
    return guard or _declaration_hover(analysis, symbols, line, col)
