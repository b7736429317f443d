"""A Parametric Promela file, preprocessed by SPIN's own cpp at one parameter valuation, made into
a model SPIN reads: the smallest rewrite of ByMC's extensions, nothing else.

``tactl check FILE.pml --engine source`` (``tactl/engines/spin_source.py``) runs SPIN on the file
itself, so that macros, type widths and statements mean what SPIN says — a second reading,
independent of tactl's translation to a threshold automaton. The file is first run through the
preprocessor SPIN runs (``gcc -std=gnu99 -E -x c``) with every parameter fixed by ``-DN=4``; what
remains of ByMC's symbolic extension is rewritten here, on that text:

* ``symbolic int N, T;`` is dropped (cpp made it ``symbolic int 4, 1;``);
* a top-level ``assume(e);`` (the resilience condition) is evaluated: the valuation must satisfy
  it, else the run is refused (the file says nothing of other valuations);
* ``active[N - F] proctype P()`` gets its copy count evaluated, ``active [3] proctype P()``
  (SPIN wants a constant); process identifiers follow the declaration order, as SPIN numbers them;
* ``atomic name = e;`` becomes ``#define name (e')``, where in ``e'`` ``all(P:x == c)`` is the
  conjunction over P's processes ``P[0]:x == c && P[1]:x == c ...``, ``some`` the disjunction,
  ``card`` the sum of the 0/1 comparisons, and ``P@end`` (inside them) ``P[i]@end``;
* the ``ltl`` blocks are moved to the end: ``ltl fairness { ... }`` is ByMC's fairness
  *assumption*, not a property, so every other formula that says ``<>`` is checked as
  ``(fairness) -> (formula)``; a formula without ``<>`` (safety) is checked as written.

Faulty processes stay as the file models them: ByMC's files let correct processes receive up to
``nsnt + F`` messages (Byzantine) or count crashes in their own variables, so the copies are
the file's ``N - F`` correct processes. What has no SPIN counterpart at a fixed valuation is
refused with the reason: ``havoc``, ``assume`` inside a process (ByMC's path pruning, not SPIN's
blocking), ``next(x)``, and ``all``/``some``/``card`` outside an ``atomic`` proposition.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field

FAIRNESS = "fairness"


class RewriteError(Exception):
    """The file cannot be made a SPIN model at this valuation; ``line`` is the file's."""

    def __init__(self, message: str, line: int | None = None, bad_input: bool = False) -> None:
        super().__init__(message)
        # bad_input: the file is no Promela model at all (exit 2), not merely one SPIN's rewrite
        # does not cover (then its properties are unsupported, exit 3)
        self.message, self.line, self.bad_input = message, line, bad_input


@dataclass(frozen=True)
class SpinProperty:
    name: str
    formula: str        # as SPIN checks it (the fairness antecedent added for liveness)
    liveness: bool      # has '<>': checked with the fairness assumption, pan -a -f
    line: int | None    # the ltl block's line in the file


@dataclass(frozen=True)
class SpinModel:
    text: str
    properties: tuple[SpinProperty, ...]
    copies: dict[str, int]                      # proctype -> number of processes
    fairness: str | None = None                 # the file's fairness formula, or None
    rewrites: tuple[str, ...] = field(default=())  # what was rewritten, for the report


_LINEMARK = re.compile(r'^#\s*(\d+)\s+"([^"]*)"')


def spin_model(preprocessed: str, source: str) -> SpinModel:
    """The SPIN model of ``preprocessed`` (cpp's output for the file ``source``, line markers
    kept)."""
    return _Rewriter(preprocessed, source).run()


class _Rewriter:
    def __init__(self, text: str, source: str) -> None:
        self.lines = text.split("\n")
        self.source = source
        self.file_line: list[int | None] = []  # per line of ``text``: the file's line
        current: int | None = None
        ours = True
        for line in self.lines:
            m = _LINEMARK.match(line)
            if m:
                ours = m.group(2) == source
                current = int(m.group(1)) if ours else None
                self.file_line.append(None)
                continue
            self.file_line.append(current if ours else None)
            if current is not None:
                current += 1
        self.rewrites: list[str] = []

    def ours(self, line: str) -> bool:
        """A line marker of the file itself (kept: SPIN then reports the file's positions)."""
        m = _LINEMARK.match(line)
        return m is not None and m.group(2) == self.source

    def line_of(self, offset: int) -> int | None:
        return self.file_line[self.text[:offset].count("\n")]

    def run(self) -> SpinModel:
        # the file's own lines only (cpp's markers and built-ins dropped), positions kept by markers
        self.text = "\n".join(line if not line.startswith("#") or self.ours(line) else ""
                              for line in self.lines)
        masked = _mask_strings(self.text)
        for word, why in (("havoc", "ByMC's havoc(x) (any value) has no SPIN counterpart here; the "
                           "file's '#ifdef SPIN' branch, if it has one, is chosen with -D SPIN"),
                          ("next", "ByMC's next(x) is not Promela")):
            m = re.search(rf"\b{word}\s*\(", masked)
            if m:
                raise RewriteError(why, self.line_of(m.start()))
        items = list(_top_level(masked))
        for start, end, kind in items:  # the valuation first: nothing else means anything outside it
            if kind == "assume":
                self.resilience(self.text[start:end], start)
        copies = self.proctypes(items)
        out = list(self.text)
        props: dict[str, int] = {}
        ltls: list[tuple[str, str, int | None]] = []

        def blank(a: int, b: int, replacement: str = "") -> None:
            """Replace out[a:b] (edits go from the end backwards), keeping its line breaks."""
            segment = "".join(out[a:b])
            keep = (replacement + "\n" * segment.count("\n") if replacement
                    else "".join("\n" if c == "\n" else " " for c in segment))
            out[a:b] = list(keep)

        pending: list[tuple[int, int, str]] = []
        for start, end, kind in items:
            body = self.text[start:end]
            if kind == "symbolic":
                pending.append((start, end, ""))
            elif kind == "assume":
                pending.append((start, end, ""))
            elif kind == "atomic":
                m = re.match(r"atomic\s+([A-Za-z_]\w*)\s*=\s*(.*);\s*$", body, re.DOTALL)
                assert m is not None
                expr = self.quantifiers(m.group(2), copies, start)
                props[m.group(1)] = 1
                pending.append((start, end, f"#define {m.group(1)} ({' '.join(expr.split())})"))
            elif kind == "ltl":
                m = re.match(r"ltl\s+([A-Za-z_]\w*)\s*\{(.*)\}\s*;?\s*$", body, re.DOTALL)
                if m is None:
                    raise RewriteError("an 'ltl' block must be 'ltl name { formula }'", self.line_of(start))
                ltls.append((m.group(1), " ".join(m.group(2).split()), self.line_of(start)))
                pending.append((start, end, ""))
        rest = masked
        for start, end, _ in pending:
            rest = rest[:start] + " " * (end - start) + rest[end:]
        for word, why in (("assume", "assume(...) inside a process is ByMC's path pruning; SPIN's "
                           "blocking expression would be another model"),
                          ("all", "all(...) outside an 'atomic' proposition"),
                          ("some", "some(...) outside an 'atomic' proposition"),
                          ("card", "card(...) outside an 'atomic' proposition")):
            m = re.search(rf"\b{word}\s*\(", rest)
            if m:
                raise RewriteError(why + " has no SPIN counterpart here", self.line_of(m.start()))
        for start, end, replacement in sorted(pending, reverse=True):
            if replacement and self.text[:start].rsplit("\n", 1)[-1].strip():
                raise RewriteError("an 'atomic' proposition must start its line", self.line_of(start))
            blank(start, end, replacement)
        text = "".join(out)
        text = self.copy_counts(text, copies)
        fairness = next((f for n, f, _ in ltls if n == FAIRNESS), None)
        properties = []
        for name, formula, line in ltls:
            if name == FAIRNESS:
                continue
            liveness = "<>" in formula
            checked = f"({fairness}) -> ({formula})" if liveness and fairness else formula
            properties.append(SpinProperty(name, checked, liveness, line))
        blocks = "".join((f'# {p.line} "{self.source}"\n' if p.line else "")
                         + f"ltl {p.name} {{ {p.formula} }}\n" for p in properties)
        return SpinModel(text + "\n" + blocks, tuple(properties), copies, fairness, tuple(self.rewrites))

    def resilience(self, body: str, start: int) -> None:
        """A top-level ``assume(e);`` must hold at the valuation."""
        cond = body[body.index("(") + 1: body.rindex(")")]
        if not _evaluate(cond, self.line_of(start)):
            raise RewriteError(f"the valuation violates the resilience condition "
                               f"'assume({' '.join(cond.split())})'", self.line_of(start))

    def proctypes(self, items) -> dict[str, int]:
        """Each proctype's number of processes, in declaration order (SPIN's pids)."""
        copies: dict[str, int] = {}
        for start, end, kind in items:
            if kind != "proctype":
                continue
            head = self.text[start:end]
            m = re.match(r"active\s*(?:\[(.*?)\])?\s*proctype\s+([A-Za-z_]\w*)", head, re.DOTALL)
            if m is None:
                raise RewriteError("only 'active' proctypes are supported (the propositions count "
                                   "processes by their SPIN pids)", self.line_of(start))
            k = 1 if m.group(1) is None else _evaluate(m.group(1), self.line_of(start))
            if isinstance(k, bool) or k < 0:
                raise RewriteError(f"the copy count '{m.group(1)}' is {k} at this valuation",
                                   self.line_of(start))
            copies[m.group(2)] = k
        if not copies:
            raise RewriteError("no 'active' proctype: the file declares no process to run, so it is "
                               "no Promela model", None, bad_input=True)
        return copies

    def copy_counts(self, text: str, copies: dict[str, int]) -> str:
        def one(m: re.Match) -> str:
            k = copies[m.group(2)]
            if m.group(1) is not None:
                self.rewrites.append(f"active[{' '.join(m.group(1).split())}] proctype {m.group(2)}: "
                                     f"{k} processes")
            return f"active [{k}] proctype {m.group(2)}" + "\n" * (m.group(0).count("\n"))
        return re.sub(r"\bactive\s*(?:\[(.*?)\])?\s*proctype\s+([A-Za-z_]\w*)", one, text, flags=re.DOTALL)

    def quantifiers(self, expr: str, copies: dict[str, int], at: int) -> str:
        """``all``/``some``/``card`` of ``expr`` over the processes, innermost first."""
        pids: dict[str, range] = {}
        first = 0
        for name, k in copies.items():
            pids[name] = range(first, first + k)
            first += k
        pattern = re.compile(r"\b(all|some|card)\s*\(")
        while True:
            m = pattern.search(expr)
            if m is None:
                return expr
            close = _matching(expr, m.end() - 1)
            if close is None:
                raise RewriteError(f"'{m.group(1)}(' is not closed", self.line_of(at))
            arg = expr[m.end():close]
            procs = set(re.findall(r"\b([A-Za-z_]\w*)\s*[:@](?!:)", arg))
            if len(procs) != 1 or not procs <= set(pids):
                raise RewriteError(f"'{m.group(1)}({' '.join(arg.split())})' must name one active "
                                   "proctype as P:x or P@label", self.line_of(at))
            proc = procs.pop()
            terms = [re.sub(rf"\b{proc}\s*([:@])(?!:)", rf"{proc}[{i}]\1", arg) for i in pids[proc]]
            joined = {"all": " && ", "some": " || ", "card": " + "}[m.group(1)]
            empty = {"all": "1", "some": "0", "card": "0"}[m.group(1)]
            text = joined.join(f"({t})" for t in terms) or empty
            self.rewrites.append(f"{m.group(1)}({' '.join(arg.split())}) over {proc}'s "
                                 f"{len(terms)} processes")
            expr = expr[:m.start()] + f"({text})" + expr[close + 1:]


def _top_level(masked: str):
    """(start, end, kind) of the top-level items ByMC adds or SPIN needs rewritten: symbolic
    declarations, assume, atomic propositions, ltl blocks, proctype heads."""
    depth, i = 0, 0
    item = re.compile(r"\b(symbolic|assume|atomic|ltl|active)\b")
    while i < len(masked):
        c = masked[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0 and (c.isalpha() or c == "_") and (i == 0 or not (masked[i - 1].isalnum() or masked[i - 1] == "_")):
            m = item.match(masked, i)
            if m is not None:
                kind = m.group(1)
                if kind == "ltl":
                    brace = masked.index("{", i)
                    end = _matching(masked, brace, "{", "}")
                    if end is None:
                        raise RewriteError("an 'ltl' block is not closed")
                    yield i, end + 1, kind
                    i = end + 1
                    continue
                if kind == "active":
                    head = re.match(r"active\s*(?:\[[^\]]*\])?\s*proctype\s+[A-Za-z_]\w*", masked[i:])
                    if head:
                        yield i, i + head.end(), "proctype"
                        i += head.end()
                        continue
                elif kind == "assume":  # ByMC's assume(...) needs no ';'
                    paren = masked.find("(", i)
                    close = _matching(masked, paren) if paren >= 0 else None
                    if close is None:
                        raise RewriteError("'assume(' is not closed")
                    end = close + 1
                    following = re.match(r"\s*;", masked[end:])
                    yield i, end + (following.end() if following else 0), kind
                    i = end
                    continue
                else:
                    semi = masked.find(";", i)
                    if semi < 0:
                        raise RewriteError(f"'{kind}' without its ';'")
                    yield i, semi + 1, kind
                    i = semi + 1
                    continue
            while i < len(masked) and (masked[i].isalnum() or masked[i] == "_"):
                i += 1
            continue
        i += 1


def _matching(text: str, open_at: int, opening: str = "(", closing: str = ")") -> int | None:
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == opening:
            depth += 1
        elif text[k] == closing:
            depth -= 1
            if depth == 0:
                return k
    return None


def _mask_strings(text: str) -> str:
    """``text`` with string literals blanked (printf's formats may hold anything)."""
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', text)


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
        ast.Eq: operator.eq, ast.NotEq: operator.ne}


def _evaluate(text: str, line: int | None) -> int | bool:
    """A constant expression of the preprocessed file (C's integer operators, '/' and '%'
    truncating as C does), or a RewriteError naming what is not constant."""
    source = " ".join(text.split()).replace("&&", " and ").replace("||", " or ")
    source = re.sub(r"!(?!=)", " not ", source)
    try:
        tree = ast.parse(source, mode="eval")
        return _value(tree.body)
    except (SyntaxError, ValueError, ZeroDivisionError) as e:
        names = re.findall(r"[A-Za-z_]\w*", text)
        why = (f"'{names[0]}' is not a parameter given with --param (nor a macro)" if names
               else str(e))
        raise RewriteError(f"'{' '.join(text.split())}' is not a constant at this valuation: {why}",
                           line) from None


def _value(node: ast.AST) -> int | bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        v = _value(node.operand)
        return -v if isinstance(node.op, ast.USub) else (not v if isinstance(node.op, ast.Not) else v)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
        a, b = _value(node.left), _value(node.right)
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C truncates toward zero
        return q if not isinstance(node.op, ast.Mod) else a - b * q
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.left), _value(node.right))
    if isinstance(node, ast.BoolOp):
        values = [_value(v) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1 or type(node.ops[0]) not in _OPS:  # C reads a < b < c otherwise
            raise ValueError("a chained comparison")
        return _OPS[type(node.ops[0])](_value(node.left), _value(node.comparators[0]))
    raise ValueError("not a constant")
