"""Reader for receive threshold automata (``.rta``): text → :class:`ReceiveTA`, or an :class:`InputError`.

The format is described in ``ir/rta/rta.lark``; its expressions are those of ``.ta`` files (the same
grammar fragment ``ir/expr.lark`` and the same transformer callbacks, hence the same trees and
the same error messages) plus the atom ``received(M)``, which becomes the name
``received(M)`` of :func:`ir.rta.received`. As for ``.ta``: :func:`parse_rta` checks syntax,
expression sorts and what the IR cannot hold at all (a missing or unknown fault model or timing);
:func:`read_rta` adds the semantic checks of :mod:`ir.rta_validate`. Nothing but ``InputError``
escapes.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from lark import Lark, Token

from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.expr import Always, BoolConst, Eventually, Expr, Implies, Name, Not, conj, disj, is_arith
from tactl.ir.rta.model import (BOUND_TERMS, FAULT_MODEL_NAMES, JUSTICE_SPELLING, FaultModel, Faults, Message, ReceiveRule, ReceiveTA,
                  Timing, fault_arity_text)
from tactl.ir.rta.validate import missing_section_message, validate_rta
from tactl.ir.source import label
from tactl.ir.alg.hypothesis import Hypothesis
from tactl.ir.ta.model import Location, Property
from tactl.ir.unknowns import Unknown
from tactl.ir.rta.result import RtaReadResult
from tactl.ir.ta.build import SortError, as_formula
from tactl.ir.ta.grammar import ExprBuild, grammar_text, run_parser, span_of, token_span
from tactl.ir.ta.reader import check_nesting, only_warnings, read_source


@cache
def _parser() -> Lark:
    # Built like the .ta parser (see ir/ta/grammar.py): transformer inside the LALR parser,
    # contextual lexer, grammar analysis cached on disk.
    return Lark(grammar_text(__package__, "rta.lark"), parser="lalr", lexer="contextual", transformer=_Build(),
                maybe_placeholders=False, cache=True)


TIMING_NAMES = " or ".join(t.value for t in Timing)


class _Problems(Exception):
    """Several positioned errors found while building the automaton (raised from ``start``)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__(diagnostics[0].message)
        self.diagnostics = diagnostics


_RECEIVED_TOKEN = re.compile(r"received\s*\(\s*(\w+)\s*\)")


def _condition(e: Expr) -> Expr:
    """A truth value as the .ta reader reads one, or the bare name of the derived justice
    (``fair``, ``fair_``, …: ``<>[](fair) -> …``). Which spelling names the justice, and that it
    appears in specifications only, is checked by ``ir/rta/validate.py``, which knows the
    automaton's declarations."""
    if isinstance(e, Name) and JUSTICE_SPELLING.fullmatch(e.name):
        return e
    return as_formula(e)


class _Build(ExprBuild):
    """Parse tree → RTA IR, bottom-up; expression callbacks are those of the .ta reader, except
    that the formula operators (and a specification) also take the justice's name as an operand."""

    def not_(self, ch):
        return Not(_condition(ch[-1]), span=span_of(ch))

    def always(self, ch):
        return Always(_condition(ch[-1]), span=span_of(ch))

    def eventually(self, ch):
        return Eventually(_condition(ch[-1]), span=span_of(ch))

    def and_expr(self, ch):
        return conj(*map(_condition, ch), span=span_of(ch))

    def or_expr(self, ch):
        return disj(*map(_condition, ch), span=span_of(ch))

    def implies(self, ch):
        return Implies(_condition(ch[0]), _condition(ch[1]), span=span_of(ch))

    def received(self, ch):
        tok = ch[0]
        message = _RECEIVED_TOKEN.fullmatch(str(tok)).group(1)  # type: ignore[union-attr]
        return Name(f"received({message})", span=token_span(tok))

    def unknown(self, ch):
        return Name(str(ch[0]), span=token_span(ch[0]))

    # ------------------------------------------------------------------ sections
    def bound(self, ch):
        value = int(ch[-1])
        return (-value if len(ch) == 2 else value), token_span(ch[0])

    def unknown_decl(self, ch):
        return ("unknown", str(ch[0]), token_span(ch[0]), [b for b, _ in ch[1:]])

    def unknowns(self, ch):
        decls = [c for c in ch if isinstance(c, tuple)]
        where = [as_formula(e) for e in ch if isinstance(e, Expr)]
        return ("unknowns", [(decls, where)])

    def parameters(self, ch):
        return ("parameters", [(str(t), token_span(t)) for t in ch])

    def assumptions(self, ch):
        return ("assumptions", [as_formula(e) for e in ch if isinstance(e, Expr)])

    def faults(self, ch):
        model, *params = ch
        terms = [p for p in params if isinstance(p, tuple)]
        names = [p for p in params if not isinstance(p, tuple)]
        return ("faults", model, names, span_of(ch), terms)

    def bound_term(self, ch):
        if not is_arith(ch[1]):
            raise SortError(f"'{ch[0]}:' takes a term over parameters (e.g. 'fa + fs'), found a "
                             "condition", ch[1].span)
        return (ch[0], ch[1])

    def timing(self, ch):
        return ("timing", ch[0])

    def messages(self, ch):
        return ("messages", [Message(str(t), None, span=token_span(t)) for t in ch])

    def kind(self, ch):
        kind, *names = ch
        return ("messages", [Message(str(t), str(kind), span=token_span(t)) for t in names])

    def coordinator(self, ch):
        return ("coordinator", [str(t) for t in ch])

    def locations(self, ch):
        return ("locations", [Location(str(t), span=token_span(t)) for t in ch])

    def initial(self, ch):
        return ("initial", [(str(t), token_span(t)) for t in ch])

    def guard(self, ch):
        return ("guard", as_formula(ch[0]))

    def sends(self, ch):
        return ("sends", list(ch))

    def choice(self, ch):
        return ("choice", str(ch[0]))

    def rule(self, ch):
        rid, src, dst, *parts = ch
        guard: Expr = BoolConst(True)
        sends: list[Token] = []
        choice: str | None = None
        for part in parts:
            if part[0] == "guard":
                guard = part[1]
            elif part[0] == "choice":
                choice = part[1]
            else:
                sends = part[1]
        return ReceiveRule(int(rid), str(src), str(dst), guard, tuple(map(str, sends)), choice,
                           span=token_span(rid), source_span=token_span(src),
                           target_span=token_span(dst), send_spans=tuple(map(token_span, sends)))

    def rules(self, ch):
        return ("rules", [c for c in ch if isinstance(c, ReceiveRule)])

    def crash_locations(self, ch):
        return ("crash_locations", [Location(str(t), span=token_span(t)) for t in ch])

    def crash_rules(self, ch):
        return ("crash_rules", [c for c in ch if isinstance(c, ReceiveRule)])

    def spec(self, ch):
        hypothesis = Hypothesis.read(str(ch[2]), token_span(ch[2])) if len(ch) == 4 else None
        return Property(str(ch[0]), _condition(ch[-1]), hypothesis, span=token_span(ch[0]))

    def specifications(self, ch):
        return ("properties", [c for c in ch if isinstance(c, Property)])

    def start(self, ch):
        name_tok = ch[0]
        head = token_span(name_tok)
        parts: dict[str, list] = {k: [] for k in (
            "parameters", "assumptions", "messages", "locations", "initial", "rules", "properties",
            "coordinator", "crash_locations", "crash_rules", "unknowns")}
        problems: list[Diagnostic] = []
        faults: Faults | None = None
        timing: Timing | None = None
        seen_faults = seen_timing = None

        def error(message: str, span: Span | None) -> None:
            problems.append(Diagnostic(Severity.ERROR, message, span))

        for section in ch[1:]:
            tag = section[0]
            if tag == "faults":
                _, model_tok, params, span, terms = section
                if seen_faults is not None:
                    error(f"a second 'faults' section (the first is at {seen_faults.line}:"
                          f"{seen_faults.col}): an automaton has one fault model", span)
                    continue
                seen_faults = span
                try:
                    model = FaultModel(str(model_tok))
                except ValueError:
                    error(f"unknown fault model '{model_tok}': expected one of {FAULT_MODEL_NAMES}",
                          token_span(model_tok))
                    continue
                labels = tuple(str(t) for t, _ in terms)
                if terms and (model is not FaultModel.BOUND or labels != BOUND_TERMS):
                    error(f"'{model_tok}(...)' with terms: only 'bound' takes terms, exactly "
                          f"{'; '.join(t + ': ...' for t in BOUND_TERMS)} in this order",
                          token_span(terms[0][0]))
                    continue
                if model is FaultModel.BOUND and not terms:
                    error(f"fault model 'bound' takes {fault_arity_text(model)}", token_span(model_tok))
                    continue
                faults = Faults(model, tuple(map(str, params)), span=span,
                                parameter_spans=tuple(map(token_span, params)),
                                terms=tuple(e for _, e in terms))
            elif tag == "timing":
                tok = section[1]
                if seen_timing is not None:
                    error(f"a second 'timing' section (the first is at {seen_timing.line}:"
                          f"{seen_timing.col})", token_span(tok))
                    continue
                seen_timing = token_span(tok)
                try:
                    timing = Timing(str(tok))
                except ValueError:
                    error(f"unknown timing '{tok}': expected {TIMING_NAMES}", token_span(tok))
            else:
                parts[tag].extend(section[1])
        if seen_faults is None:
            error(missing_section_message("faults"), head)
        if seen_timing is None:
            error(missing_section_message("timing"), head)
        if problems:
            # Report the other missing sections in the same run instead of one at a time.
            for section in ("locations", "initial"):
                if not parts[section]:
                    error(missing_section_message(section), head)
            raise _Problems(problems)
        assert faults is not None and timing is not None
        unknowns, where = _unknowns(parts["unknowns"], error)
        if problems:
            raise _Problems(problems)
        declared = [("parameters", n, s) for n, s in parts["parameters"]]
        declared += [("initial", n, s) for n, s in parts["initial"]]
        return ReceiveTA(
            name=str(name_tok), parameters=tuple(n for n, _ in parts["parameters"]),
            assumptions=tuple(parts["assumptions"]), faults=faults, timing=timing,
            messages=tuple(parts["messages"]), locations=tuple(parts["locations"]),
            initial=tuple(n for n, _ in parts["initial"]), rules=tuple(parts["rules"]),
            properties=tuple(parts["properties"]), span=head, declared_at=tuple(declared),
            coordinator=tuple(parts["coordinator"]),
            crash_locations=tuple(parts["crash_locations"]), crash_rules=tuple(parts["crash_rules"]),
            unknowns=unknowns, unknown_constraints=where)


def _unknowns(sections: list, error) -> tuple[tuple[Unknown, ...], tuple[Expr, ...]]:
    """The ``unknowns`` section (once): each unknown declared once, with a non-empty range."""
    if len(sections) > 1:
        first = sections[1][0][0][2] if sections[1][0] else None
        error("a second 'unknowns' section: declare every unknown in one", first)
    declared: list[Unknown] = []
    where: list[Expr] = []
    for decls, constraints in sections[:1]:
        where.extend(constraints)
        for _, name, span, bounds in decls:
            first = next((u for u in declared if u.name == name), None)
            if first is not None:
                error(f"the unknown '{name}' is declared twice (first at {first.span.line}:"
                      f"{first.span.col})" if first.span else f"the unknown '{name}' is declared twice",
                      span)
            elif not bounds:
                error(f"the unknown '{name}' has no range: write '{name} in LOW..HIGH' (the "
                      "candidates must be finitely many)", span)
            elif bounds[0] > bounds[1]:
                error(f"the range {bounds[0]}..{bounds[1]} of '{name}' is empty (its low end is "
                      "above its high end)", span)
            else:
                declared.append(Unknown(name, bounds[0], bounds[1], span=span))
    return tuple(declared), tuple(where)


# ------------------------------------------------------------------------------------ entry points


def rta_expressions(rta: ReceiveTA):
    yield from rta.assumptions
    yield from rta.unknown_constraints
    yield from (r.guard for r in (*rta.rules, *rta.crash_rules))
    yield from (p.formula for p in rta.properties)


def parse_rta(text: str, path: str = "<input>") -> ReceiveTA:
    """Syntax, expression sorts, fault model and timing; raises :class:`InputError` with a position."""
    try:
        rta = run_parser(_parser(), text, path)
    except _Problems as e:
        raise InputError(e.diagnostics, path, text) from None
    except InputError as e:
        better = _received_syntax(e.first, text)
        if better is None:
            raise
        raise InputError(better, path, text) from None
    check_nesting(rta_expressions(rta), path, text)
    return rta


_RECEIVED_OPEN = re.compile(r"received\s*\(")


def _received_syntax(d: Diagnostic, text: str) -> Diagnostic | None:
    """A clearer message for a syntax error inside a malformed ``received(…)``, else None."""
    if d.span is None:
        return None
    lines = text.splitlines(keepends=True)
    if d.span.line > len(lines):
        return None
    pos = sum(map(len, lines[: d.span.line - 1])) + d.span.col - 1
    for match in _RECEIVED_OPEN.finditer(text, max(0, pos - 200), pos + 1):
        if match.start() <= pos < match.end() or match.end() == pos + 1:
            line = text.count("\n", 0, match.start()) + 1
            col = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
            return Diagnostic(Severity.ERROR, "a receive variable is written 'received(M)' with a "
                              "declared message type M, e.g. 'received(ECHO)'",
                              Span(line, col, line, col + len("received")))
    return None


def read_rta(text: str, path: str = "<input>") -> RtaReadResult:
    """Parse and validate; raises :class:`InputError` listing every error found."""
    rta = parse_rta(text, path)
    return RtaReadResult(rta, path, text, only_warnings(validate_rta(rta), path, text))


def read_rta_file(path: str | Path) -> RtaReadResult:
    """:func:`read_rta` on a file, turning I/O and encoding problems into :class:`InputError`."""
    return read_rta(read_source(path), label(path))


__all__ = ["RtaReadResult", "parse_rta", "read_rta", "read_rta_file", "missing_section_message"]
