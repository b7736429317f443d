"""Reader for pseudocode (``.alg``): text → :class:`ir.alg.Algorithm`, or an :class:`InputError`.

Syntax is ``ir/alg/alg.lark`` (indentation-sensitive, via lark's ``Indenter``); this module builds
the typed tree and checks what needs no knowledge of the program's meaning: sections present and
not repeated, constructs tactl does not model (``for`` and ``while`` loops) refused with what is
supported instead. Names, domains and thresholds are checked by the parse pass
(``passes/alg_to_rta/extract.py``), which knows the declarations. Nothing but ``InputError`` escapes.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, Indenter

from tactl.ir.alg import syntax as A
from tactl.ir.errors import Diagnostic, InputError, Severity, Span
from tactl.ir.alg.hypothesis import Hypothesis
from tactl.ir.limits import MAX_DIGITS
from tactl.ir.names import MAX_LENGTH
from tactl.ir.unknowns import Unknown


class _AlgIndenter(Indenter):
    """Python's indentation rules: a tab advances to the next multiple of 8 columns, and an
    indentation whose meaning would change if a tab were one column (tabs mixed with spaces
    inconsistently) is refused, as Python's TabError; so is a dedent to a column no enclosing
    block starts at. Both are reported at the line they occur on."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def process(self, stream):
        self.alt_level = [0]  # the indentation with a tab as one column, per open block
        return super().process(stream)

    def handle_NL(self, token: Token):
        if self.paren_level > 0:
            return
        yield token
        indent_str = token.rsplit("\n", 1)[1]
        col = len(indent_str.expandtabs(self.tab_len))
        alt = len(indent_str)
        line = token.end_line or token.line
        span = Span(line, 1, line, len(indent_str) + 1)
        if col > self.indent_level[-1]:
            if alt <= self.alt_level[-1]:
                raise _Refused(_TABS, span)
            self.indent_level.append(col)
            self.alt_level.append(alt)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        while col < self.indent_level[-1]:
            self.indent_level.pop()
            self.alt_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        if col != self.indent_level[-1]:
            raise _Refused(f"inconsistent dedent: this line is indented to column {col + 1}, "
                           "where no enclosing block starts (blocks start at column "
                           f"{', '.join(str(c + 1) for c in self.indent_level)})", span)
        if alt != self.alt_level[-1]:
            raise _Refused(_TABS, span)


_TABS = ("inconsistent use of tabs and spaces in indentation (as Python, tactl refuses an "
         "indentation whose meaning depends on the width of a tab): indent with spaces only")
MAX_NESTING = 200  # levels of expressions and blocks; each term of a sum or product is a level


@cache
def _parser() -> Lark:
    grammar = (Path(__file__).parent / "alg.lark").read_text(encoding="utf-8")
    # Grammar analysis cached on disk as the .ta parser's is (see ir/ta/grammar.py): building this
    # grammar's tables costs more than reading most programs.
    return Lark(grammar, parser="lalr", lexer="contextual", postlex=_AlgIndenter(),
                propagate_positions=True, maybe_placeholders=False, cache=True)


class _Refused(Exception):
    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def _tok_span(tok: Token) -> Span:
    return Span(tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + 1)


def _span(tree: Tree | Token) -> Span | None:
    if isinstance(tree, Token):
        return _tok_span(tree)
    meta = tree.meta
    if getattr(meta, "empty", True):
        return None
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


# Spellings of the same operator.
_CMP = {"=": "==", "≥": ">=", "≤": "<=", "≠": "!="}
_ARITH = {"−": "-", "·": "*", "×": "*"}
_QUANT = {"at least": ">=", "more than": ">", "at most": "<=", "fewer than": "<", "less than": "<",
          "exactly": "=="}

SUPPORTED_STATEMENTS = ("assignment 'x := value', 'send M to all', 'decide v', 'wait until COND', "
                        "'wait for K messages M', 'if/elif/else', 'upon COND:', 'loop forever:', "
                         "'round:', 'round 1:' … 'round K:', 'rounds carrying v:', 'next round', 'skip', "
                         "'for each w in SET:'")


def _value_of(tok: Token) -> str:
    text = str(tok)
    return A.BOTTOM if text in ("⊥", "bot") else text


class _Build:
    """Tree → IR, one method per grammar alias."""

    def __init__(self, text: str) -> None:
        self.text = text

    def build(self, tree: Tree) -> A.Algorithm:
        seen: dict[str, Span | None] = {}
        out: dict = {"algorithm": None, "parameters": (), "resilience": (), "faults": None,
                     "timing": "async", "messages": [], "domains": {}, "variables": [],
                     "properties": [], "program": [], "unknowns": (), "unknown_constraints": ()}
        spans: dict[str, Span] = {}
        for item in tree.children:
            kind = item.data if isinstance(item, Tree) else None
            if kind in ("algorithm", "parameters", "resilience", "faults", "timing", "variables",
                        "properties", "unknowns"):
                if kind in seen:
                    where = seen[kind]
                    at = f" (first at line {where.line})" if where else ""
                    raise _Refused(f"'{kind}' is declared twice{at}", _span(item))
                seen[kind] = _span(item)
                if _span(item):
                    spans[kind] = _span(item)
            if kind == "algorithm":
                out["algorithm"] = str(item.children[0])
            elif kind == "parameters":
                out["parameters"] = tuple(str(t) for t in item.children)
                spans.update({f"parameter {t}": _tok_span(t) for t in item.children})
            elif kind == "resilience":
                out["resilience"] = tuple(self.chain(c) for c in item.children
                                          if isinstance(c, Tree))
            elif kind == "unknowns":
                out["unknowns"], out["unknown_constraints"] = self.unknowns(item)
            elif kind == "faults":
                model, *params = item.children
                out["faults"] = (str(model), tuple(str(p) for p in params))
                spans["fault model"] = _tok_span(model)
            elif kind == "timing":
                out["timing"] = str(item.children[0])
                spans["timing value"] = _tok_span(item.children[0])
            elif kind == "messages":
                out["messages"].extend(self.message(c, out["domains"]) for c in item.children
                                       if isinstance(c, Tree))
            elif kind == "domain":
                name, values = item.children
                out["domains"][str(name)] = self.domain_set(values)
                spans[f"domain {name}"] = _tok_span(name)
            elif kind == "variables":
                out["variables"].extend(self.variable(c, out["domains"]) for c in item.children
                                        if isinstance(c, Tree))
            elif kind == "properties":
                for c in item.children:
                    if not isinstance(c, Tree):
                        continue
                    declared = self.property(c)
                    first = next((p for p in out["properties"] if p.name == declared.name), None)
                    if first is not None:
                        at = f" (first at line {first.span.line})" if first.span else ""
                        raise _Refused(f"property '{declared.name}' is declared twice{at}",
                                       _tok_span(c.children[0]))
                    out["properties"].append(declared)
            else:
                out["program"].append(self.stmt(item))
        if out["algorithm"] is None:
            raise _Refused("missing 'algorithm NAME' line: name the algorithm first, e.g. "
                           "'algorithm STRB'", Span(1, 1))
        if out["faults"] is None:
            raise _Refused("missing 'faults' line: declare the fault model, e.g. "
                           "'faults byzantine(f)' (models: byzantine, crash, omission, symmetric, "
                           "clean_crash, hybrid)", Span(1, 1))
        if not out["program"]:
            raise _Refused("the algorithm has no code: write its statements after the "
                           "declarations (e.g. 'loop forever:' or 'round:')", Span(1, 1))
        return A.Algorithm(
            name=out["algorithm"], parameters=out["parameters"], resilience=out["resilience"],
            fault_model=out["faults"][0], fault_parameters=out["faults"][1],
            timing=out["timing"], messages=tuple(out["messages"]), domains=out["domains"],
            variables=tuple(out["variables"]), program=tuple(out["program"]),
            properties=tuple(out["properties"]), source=self.text, spans=spans,
            unknowns=out["unknowns"], unknown_constraints=out["unknown_constraints"])

    def unknowns(self, item: Tree) -> tuple[tuple[Unknown, ...], tuple[A.Compare, ...]]:
        """``unknowns ?a in 0..1, ?b in -2..2 where ?a + ?b >= 0``: each unknown once, with a
        non-empty range of integer constants (the candidates are finitely many)."""
        declared: list[Unknown] = []
        for decl in (c for c in item.children if isinstance(c, Tree) and c.data == "unknown_decl"):
            tok, *bounds = decl.children
            name = str(tok)
            first = next((u for u in declared if u.name == name), None)
            if first is not None:
                at = f" (first at line {first.span.line})" if first.span else ""
                raise _Refused(f"the unknown '{name}' is declared twice{at}", _tok_span(tok))
            if not bounds:
                raise _Refused(f"the unknown '{name}' has no range: write '{name} in LOW..HIGH' "
                               f"(e.g. '{name} in 0..3'; the candidates must be finitely many)",
                               _tok_span(tok))
            low, high = (self.constant(b) for b in bounds)
            if low > high:
                raise _Refused(f"the range {low}..{high} of '{name}' is empty (its low end is "
                               f"above its high end): write '{name} in {high}..{low}'", _span(decl))
            declared.append(Unknown(name, low, high, span=_tok_span(tok)))
        where = tuple(self.chain(c) for c in item.children
                      if isinstance(c, Tree) and c.data == "chain")
        return tuple(declared), where

    def constant(self, tree) -> int:
        """An integer written with digits and signs (a range bound: ``-2``, ``3``)."""
        t = self.term(tree)
        sign = 1
        while isinstance(t, A.Arith) and t.op == "neg":
            sign, t = -sign, t.args[0]
        if not isinstance(t, A.Num):
            raise _Refused("a range bound is an integer constant (e.g. '-2', '3')", _span(tree))
        return sign * t.value

    # ---- declarations ----
    def domain_set(self, tree: Tree) -> tuple[str, ...]:
        values = []
        for c in tree.children:
            v = _value_of(c.children[0])
            if v in values:
                raise _Refused(f"the value '{v}' is listed twice in this domain", _span(c))
            values.append(v)
        return tuple(values)

    def named_domain(self, tok: Token, domains: dict) -> tuple[str, ...] | None:
        name = str(tok)
        if name == "bool":
            return A.BOOL
        return domains.get(name)

    def message(self, tree: Tree, domains: dict) -> A.MessageShape:
        if tree.data == "msg_coordinator":  # `M from coordinator` (docs/alg.md, "Phases and …")
            inner = self.message(tree.children[0], domains)
            if inner.coordinator:
                raise _Refused("'from coordinator' is written once", _span(tree))
            return replace(inner, coordinator=True, span=_span(tree))
        if tree.data == "msg_plain":
            return A.MessageShape(str(tree.children[0]), (), (), span=_span(tree))
        name, *parts = tree.children
        values: list[tuple[str, ...]] = []
        tags: list[bool] = []
        for p in parts:
            if isinstance(p, Tree) and p.data == "domain_set":
                values.append(self.domain_set(p))
                tags.append(False)
                continue
            tok = p.children[0]
            if p.data == "part_name":
                dom = self.named_domain(tok, domains)
                if dom is not None:
                    values.append(dom)
                    tags.append(False)
                    continue
            values.append((_value_of(tok),))
            tags.append(True)
        return A.MessageShape(str(name), tuple(values), tuple(tags), span=_span(tree))

    def variable(self, tree: Tree, domains: dict) -> A.Variable:
        name, vtype, *init = tree.children
        if isinstance(vtype, Tree) and vtype.data == "type_set":
            return self.set_variable(name, vtype, init, domains)
        if init and init[0].data == "init_set_input":
            raise _Refused(f"'{{input}}' initialises a set-valued variable: declare '{name}' as "
                           "'set of {…}'", _span(init[0]))
        if isinstance(vtype, Tree) and vtype.data == "domain_set":
            dom = self.domain_set(vtype)
        elif isinstance(vtype, Tree) and vtype.data == "type_range":
            lo, hi = (self.term(x) for x in vtype.children[1:])
            if not (isinstance(lo, A.Num) and isinstance(hi, A.Num)) or hi.value - lo.value > 64:
                raise _Refused(f"variable '{name}': a range type needs two numbers at most 64 "
                               "apart (process variables range over small finite domains)",
                               _span(vtype))
            dom = tuple(str(i) for i in range(lo.value, hi.value + 1))
        else:
            tok = vtype.children[0] if isinstance(vtype, Tree) else vtype
            dom = self.named_domain(tok, domains)
            if dom is None:
                if str(tok) in ("int", "nat", "integer", "natural"):
                    raise _Refused(f"variable '{name}' is unbounded ('{tok}'): process variables "
                                   "need a finite domain, e.g. '{0, 1}', 'bool', '{0, 1, ⊥}' or "
                                   "a range '0..3' written as 'int[0..3]'", _span(vtype))
                raise _Refused(f"unknown type '{tok}' of variable '{name}': write a finite domain "
                               "such as '{0, 1}', 'bool', or a name declared by 'domain'",
                               _span(vtype))
        if not dom:
            raise _Refused(f"variable '{name}' has an empty domain", _span(vtype))
        initial: str | None
        if not init:
            initial = dom[0]
        elif init[0].data == "init_input":
            initial = None
        else:
            value = self.term(init[0].children[0])
            initial = self.literal(value)
            if initial not in dom:
                raise _Refused(f"initial value '{initial}' of '{name}' is not in its domain "
                               f"{{{', '.join(dom)}}}", _span(init[0]))
        return A.Variable(str(name), dom, initial, span=_tok_span(name))

    def set_variable(self, name: Token, vtype: Tree, init: list, domains: dict) -> A.Variable:
        """``W: set of {0, 1} = {input}`` (a singleton of an input), ``= {}``/``∅``, ``= {0}``."""
        of = vtype.children[-1]
        if isinstance(of, Tree):
            elements = self.domain_set(of)
        else:
            found = self.named_domain(of, domains)
            if found is None:
                raise _Refused(f"unknown domain '{of}' of the set variable '{name}': write "
                               "'set of {0, 1}' or name a domain declared by 'domain'", _tok_span(of))
            elements = found
        if len(elements) > 6:
            raise _Refused(f"set variable '{name}': at most 6 elements (its {2 ** len(elements)} "
                           "subsets would each be a location)", _span(vtype))
        dom = A.subsets(elements)
        if not init:
            return A.Variable(str(name), dom, A.encode_set((), elements), span=_tok_span(name),
                              elements=elements)
        kind = init[0].data
        if kind == "init_set_input":
            return A.Variable(str(name), dom, None, span=_tok_span(name), elements=elements,
                              inputs=tuple(A.encode_set((e,), elements) for e in elements))
        if kind == "init_input":
            return A.Variable(str(name), dom, None, span=_tok_span(name), elements=elements)
        value = self.term(init[0].children[0])
        if not isinstance(value, A.SetLit):
            raise _Refused(f"the set variable '{name}' starts as a set: '{{}}', '∅', '{{0}}' or "
                           "'{input}' (a singleton of an input)", _span(init[0]))
        members = [self.literal(e) for e in value.elements]
        bad = [m for m in members if m not in elements]
        if bad:
            raise _Refused(f"initial value '{bad[0]}' of '{name}' is not in its element domain "
                           f"{{{', '.join(elements)}}}", _span(init[0]))
        return A.Variable(str(name), dom, A.encode_set(members, elements), span=_tok_span(name),
                          elements=elements)

    def literal(self, value: A.Term) -> str:
        if isinstance(value, A.Num):
            return str(value.value)
        if isinstance(value, A.Const):
            return value.value
        if isinstance(value, A.Ref):
            return value.name
        raise _Refused("expected a constant value here", getattr(value, "span", None))

    # ---- statements ----
    def stmt(self, tree: Tree) -> A.Stmt:
        d = tree.data
        s = _span(tree)
        ch = [c for c in tree.children if not (isinstance(c, Token) and c.type in (
            "SEND", "DECIDE", "WAIT", "NEXT", "SKIP", "IF", "UPON", "LOOP", "ROUND", "WHILE",
            "ROUNDS", "CARRYING"))]
        if d == "assign":
            return A.Assign(str(ch[0]), self.term(ch[1]), span=s, var_span=_tok_span(ch[0]))
        if d == "send":
            return A.Send(self.pattern(ch[0]), span=s)
        if d == "decide":
            return A.Decide(self.term(ch[0]), span=s)
        if d == "wait_until":
            cond, placeholder = self.cond_q(ch[0])
            return A.Wait(cond, placeholder, span=s, placeholder_span=self.placeholder_span(ch[0]),
                          **self.subset(ch[0]))
        if d == "wait_for":
            amount, pattern = ch
            return A.Wait(A.Received(self.pattern(pattern), ">=", self.term(amount), span=s), span=s)
        if d == "next_round":
            return A.NextRound(span=s)
        if d == "skip":
            return A.Skip(span=s)
        if d in ("if_", "upon"):
            first = A.Branch(*self.cond_q(ch[0]), self.block(ch[1]), span=s,
                             placeholder_span=self.placeholder_span(ch[0]), **self.subset(ch[0]))
            branches = [first]
            orelse = None
            for extra in ch[2:]:
                if extra.data == "elif_":
                    branches.append(A.Branch(*self.cond_q(extra.children[0]),
                                             self.block(extra.children[1]), span=_span(extra),
                                             placeholder_span=self.placeholder_span(extra.children[0]),
                                             **self.subset(extra.children[0])))
                else:
                    orelse = self.block(extra.children[0])
            return A.If(tuple(branches), orelse, upon=d == "upon", span=s)
        if d == "loop":
            return A.Loop(self.block(ch[0]), span=s)
        if d == "round":
            return A.Round(self.block(ch[0]), span=s)
        if d == "for_each":
            var, each_set, body = [c for c in tree.children if not (isinstance(c, Token) and
                                                                    c.type in ("FOR", "EACH"))]
            return A.ForEach(str(var), self.term(each_set), self.block(body), span=s)
        if d == "rounds":  # rounds carrying v, w: block
            *names, body = ch
            return A.Round(self.block(body), tuple(str(n) for n in names), span=s,
                           carrying_spans=tuple(_tok_span(n) for n in names))
        if d == "round_n":
            return A.Round(self.block(ch[1]), span=s, number=int(ch[0]))
        if d in ("for_", "while_"):
            word = "for" if d == "for_" else "while"
            raise _Refused(f"'{word}' loops are not supported: tactl checks one round for every "
                           "number of processes, so the round structure must be explicit — write "
                           "one round as 'round:' (the round end carries the variables over), or "
                           "an event loop as 'loop forever:'; a 'send' inside an iteration loop "
                           "would send an unbounded number of messages (the one iteration "
                           "allowed is over a finite set: 'for each w in W:')", s)
        raise _Refused(f"unsupported statement; supported: {SUPPORTED_STATEMENTS}", s)

    def block(self, tree: Tree) -> tuple[A.Stmt, ...]:
        return tuple(self.stmt(c) for c in tree.children if isinstance(c, Tree))

    def cond_q(self, tree: Tree) -> tuple[A.Cond, str | None]:
        cond = self.cond(tree.children[0])
        names = [c for c in tree.children[1:] if isinstance(c, Token) and c.type == "NAME"]
        return cond, (str(names[0]) if names else None)

    def subset(self, tree: Tree) -> dict:
        """``for some nonempty vals ⊆ S``: the keyword arguments of a Wait or Branch."""
        if tree.data != "cond_subset":
            return {}
        return {"subset_of": self.term(tree.children[-1]),
                "nonempty": any(isinstance(c, Token) and c.type == "NONEMPTY"
                                for c in tree.children)}

    def placeholder_span(self, tree: Tree) -> Span | None:
        names = [c for c in tree.children[1:] if isinstance(c, Token) and c.type == "NAME"]
        return _tok_span(names[0]) if names else None

    def pattern(self, tree: Tree) -> A.Pattern:
        if tree.data == "mt_plain":
            return A.Pattern(str(tree.children[0]), None, span=_span(tree))
        name, *parts = tree.children
        out: list[A.Term | str] = []
        for p in parts:
            if isinstance(p, Tree) and p.data == "mt_star":
                out.append(A.WILDCARD)
            elif isinstance(p, Tree) and p.data == "mt_q":
                out.append(A.QUESTION)
            else:
                out.append(self.term(p))
        return A.Pattern(str(name), tuple(out), span=_span(tree))

    # ---- conditions and terms ----
    def cond(self, tree) -> A.Cond:
        if isinstance(tree, Token):
            return self.term(tree)
        d = tree.data
        s = _span(tree)
        if d in ("or_", "and_"):
            args = tuple(self.cond(c) for c in tree.children if isinstance(c, Tree) or
                         c.type not in ("OR", "AND"))
            if len(args) == 1:
                return args[0]
            return A.BoolOp("or" if d == "or_" else "and", args, span=s)
        if d == "not_":
            return A.NotCond(self.cond(tree.children[-1]), span=s)
        if d == "cmp_chain":
            return self.compare(tree)
        if d in ("member", "not_member"):
            elem, of = [c for c in tree.children if not (isinstance(c, Token) and c.type == "NOT_KW")]
            return A.Member(self.term(elem), self.term(of), d == "not_member", span=s)
        if d == "recv":
            _, pattern, quantity = tree.children[:3]
            op = ">="
            amount_tree = quantity.children[-1]
            if len(quantity.children) == 2:
                op = _QUANT[" ".join(str(quantity.children[0]).split())]
            return A.Received(self.pattern(pattern), op, self.term(amount_tree), span=s)
        if d == "recv_coordinator":  # at most one coordinator message: "received" is ">= 1"
            return A.Received(self.pattern(tree.children[1]), ">=", A.Num(1, span=s), span=s,
                              from_coordinator=True)
        return self.term(tree)

    def compare(self, tree: Tree) -> A.Compare:
        terms, ops = [], []
        for c in tree.children:
            if isinstance(c, Token) and c.type == "CMP_OP":
                ops.append(_CMP.get(str(c), str(c)))
            else:
                terms.append(self.term(c))
        return A.Compare(tuple(ops), tuple(terms), span=_span(tree))

    def chain(self, tree: Tree) -> A.Compare:
        return self.compare(tree)

    def term(self, tree) -> A.Term:
        if isinstance(tree, Token):
            if tree.type == "INT":
                return A.Num(int(tree), span=_tok_span(tree))
            if tree.type == "NAME":
                return A.Ref(str(tree), span=_tok_span(tree))
            if tree.type == "BOT":
                return A.Const(A.BOTTOM, span=_tok_span(tree))
            if tree.type in ("TRUE", "FALSE"):
                return A.Const(str(tree), span=_tok_span(tree))
            if tree.type == "COIN":
                return A.Coin(span=_tok_span(tree))
            raise _Refused(f"unexpected '{tree}'", _tok_span(tree))
        d = tree.data
        s = _span(tree)
        kids = tree.children
        if d in ("int_", "v_int"):
            return A.Num(int(kids[0]), span=s)
        if d in ("name", "v_name"):
            return A.Ref(str(kids[0]), span=s)
        if d in ("bot", "v_bot"):
            return A.Const(A.BOTTOM, span=s)
        if d in ("true_", "v_true"):
            return A.Const(A.TRUE, span=s)
        if d in ("false_", "v_false"):
            return A.Const(A.FALSE, span=s)
        if d in ("coin_atom", "v_coin"):
            return A.Coin(span=s)
        if d in ("unknown_", "v_unknown"):
            return A.UnknownRef(str(kids[0]), span=s)
        if d == "v_oracle":
            return A.Oracle(span=s)
        if d == "v_not":
            return A.NotValue(self.term(kids[-1]), span=s)
        if d == "count":
            return A.Count(self.pattern(kids[1]), span=s)
        if d == "count_pred":
            return A.CountPred(self.predicate(kids[-1]), span=s)
        if d in ("sum_", "product_"):
            result = self.term(kids[0])
            for op, arg in zip(kids[1::2], kids[2::2]):
                result = A.Arith(_ARITH.get(str(op), str(op)), (result, self.term(arg)), span=s)
            return result
        if d == "implicit_mul":
            return A.Arith("*", (A.Num(int(kids[0]), span=_tok_span(kids[0])), self.term(kids[1])),
                           span=s)
        if d == "neg":
            arg = self.term(kids[1])
            return arg if _ARITH.get(str(kids[0]), str(kids[0])) == "+" else A.Arith("neg", (arg,), span=s)
        if d in ("ceil", "floor"):
            return A.Rounding(d, self.term(kids[0]), span=s)
        if d == "setlit":
            return A.SetLit(tuple(self.term(k) for k in kids
                                  if not (isinstance(k, Token) and k.type == "EMPTYSET")), span=s)
        if d == "setbuilder":
            return A.SetBuilder(str(kids[0]), self.cond(kids[1]), span=s)
        if d == "minmax":
            return A.MinMax(str(kids[0]), self.term(kids[1]), span=s)
        if d == "card":
            return A.Card(self.term(kids[0]), span=s)
        if d == "set_op":
            result = self.term(kids[0])
            for op, arg in zip(kids[1::2], kids[2::2]):
                name = {"∪": "union", "∩": "intersect", "∖": "minus"}.get(str(op), str(op))
                result = A.SetOp(name, (result, self.term(arg)), span=s)
            return result
        # A parenthesised condition where a term was expected: keep it as a condition; the
        # parse pass says where a condition cannot stand.
        return self.cond(tree)  # type: ignore[return-value]

    # ---- properties ----
    def property(self, tree: Tree) -> A.PropertyDecl:
        name, *rest = tree.children
        hypothesis = Hypothesis.read(str(rest[1]), _tok_span(rest[1])) if len(rest) == 3 else None
        return A.PropertyDecl(str(name), self.formula(rest[-1]), hypothesis, span=_span(tree))

    def formula(self, tree) -> A.FormulaNode:
        s = _span(tree)
        if isinstance(tree, Token):
            raise _Refused(f"unexpected '{tree}' in a property", _tok_span(tree))
        d = tree.data
        kids = [c for c in tree.children if not (isinstance(c, Token) and c.type in (
            "AND", "OR", "NOT", "NOT_KW", "ALWAYS_KW", "EVENTUALLY_KW", "INITIALLY_KW", "SOME",
            "ALL", "NO", "IMPLIES"))]
        simple = {"f_implies": "implies", "f_or": "or", "f_and": "and", "f_not": "not",
                  "f_always": "always", "f_eventually": "eventually", "f_initially": "initially"}
        if d in simple:
            if d in ("f_or", "f_and") and len(kids) == 1:
                return self.formula(kids[0])
            return A.FormulaNode(simple[d], tuple(self.formula(k) for k in kids), span=s)
        if d in ("f_some", "f_all", "f_no"):
            return A.FormulaNode(d[2:], (self.predicate(kids[0]),), span=s)
        if d == "f_cmp":
            return A.FormulaNode("cmp", (self.compare(tree),), span=s)
        if d in ("f_true", "f_false"):
            return A.FormulaNode(d[2:], (), span=s)
        raise _Refused("unsupported property syntax: write formulas with always, eventually, "
                       "initially, ->, and, or, not, and 'some P' / 'all P' / 'no P' for a "
                       "predicate P on a process's variables", s)

    def predicate(self, tree) -> A.Cond:
        d = tree.data
        if d == "p_name":
            return A.Ref(str(tree.children[0]), span=_span(tree))
        if d == "p_cmp":
            terms, ops = [], []
            for c in tree.children:
                if isinstance(c, Token) and c.type == "CMP_OP":
                    ops.append(_CMP.get(str(c), str(c)))
                elif isinstance(c, Token):
                    terms.append(self.term(c))
                else:
                    terms.append(self.term(c))
            return A.Compare(tuple(ops), tuple(terms), span=_span(tree))
        if d == "p_not":
            return A.NotCond(self.predicate(tree.children[-1]), span=_span(tree))
        if d == "p_sent":
            return A.SentPred(self.pattern(tree.children[-1]), span=_span(tree))
        if d in ("p_member", "p_not_member"):
            elem, of = [c for c in tree.children if not (isinstance(c, Token) and c.type == "NOT_KW")]
            return A.Member(self.term(elem), self.term(of), d == "p_not_member", span=_span(tree))
        if d == "p_card":
            name, *rest = tree.children
            terms: list[A.Term] = [A.Card(self.term(name), span=_tok_span(name))]
            ops = []
            for c in rest:
                if isinstance(c, Token) and c.type == "CMP_OP":
                    ops.append(_CMP.get(str(c), str(c)))
                else:
                    terms.append(self.term(c))
            return A.Compare(tuple(ops), tuple(terms), span=_span(tree))
        return self.cond(tree.children[0])


def _check_sizes(tree: Tree) -> None:
    """Refuse, at its position, what later passes cannot take: nesting deeper than
    :data:`MAX_NESTING` (the passes recurse on it), names longer than the automata allow, integer
    literals longer than Python converts. Iterative: the tree may be arbitrarily deep."""
    stack: list[tuple[Tree | Token, int, Span | None]] = [(tree, 0, None)]
    while stack:
        node, depth, where = stack.pop()
        if isinstance(node, Token):
            if node.type == "NAME" and len(node) > MAX_LENGTH:
                raise _Refused(f"the name '{node[:40]}…' is {len(node)} characters long (at most "
                               f"{MAX_LENGTH})", _tok_span(node))
            if node.type == "INT" and len(node) > MAX_DIGITS:
                raise _Refused(f"integer literal of {len(node)} digits: tactl reads integers of "
                               f"at most {MAX_DIGITS} digits", _tok_span(node))
            continue
        where = _span(node) or where
        # a sum or product of k terms is built as k nested operations
        step = (len(node.children) + 1) // 2 if node.data in ("sum_", "product_") else 1
        if depth + step > MAX_NESTING:
            raise _Refused(f"nested more than {MAX_NESTING} levels deep (an expression, a sum or "
                           f"product of more than {MAX_NESTING} terms, or blocks): split it, or "
                           "name parts of it", where)
        stack.extend((c, depth + step, where) for c in reversed(node.children))


def parse_alg(text: str, path: str = "<input>") -> A.Algorithm:
    """The pseudocode IR of ``text``; every syntax error is an :class:`InputError`."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = _parser().parse(text)
        _check_sizes(tree)
    except _Refused as e:
        raise InputError(Diagnostic(Severity.ERROR, e.message, e.span), path, text) from None
    except UnexpectedInput as e:
        raise InputError(_syntax(e, text), path, text) from None
    except DedentError as e:
        raise InputError(Diagnostic(Severity.ERROR, f"inconsistent indentation: {e}"), path,
                         text) from None
    except RecursionError:
        raise InputError(Diagnostic(Severity.ERROR, "expression nested too deeply"), path,
                         text) from None
    try:
        alg = _Build(text).build(tree)
    except _Refused as e:
        raise InputError(Diagnostic(Severity.ERROR, e.message, e.span), path, text) from None
    except RecursionError:
        raise InputError(Diagnostic(Severity.ERROR, "expression nested too deeply"), path,
                         text) from None
    except ValueError as e:  # an integer literal longer than Python converts
        raise InputError(Diagnostic(Severity.ERROR, f"unreadable number: {e}"), path, text) from None
    object.__setattr__(alg, "path", path)
    return alg


KEYWORDS = {"algorithm", "parameters", "resilience", "faults", "timing", "messages", "domain",
            "variables", "properties", "send", "decide", "wait", "next", "skip", "if", "elif",
            "else", "upon", "loop", "round", "rounds", "for", "while", "unknowns"}


def _unsupported_statement(text: str, line: int) -> Diagnostic | None:
    """A line that starts with a word no statement starts with (``return v``, ``print x``)."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    m = re.match(r"([ \t]*)([A-Za-z_][A-Za-z0-9_]*)\b(?![ \t]*(:=|:[ \t]*[{A-Za-z]))", lines[line - 1])
    if m is None or m.group(2) in KEYWORDS:
        return None
    word = m.group(2)
    col = len(m.group(1)) + 1
    return Diagnostic(Severity.ERROR, f"unsupported statement '{word}'; supported: "
                      f"{SUPPORTED_STATEMENTS}{_meant(word)}", Span(line, col, line, col + len(word)))


_WHAT = {"_NL": "end of line", "_INDENT": "indented block", "_DEDENT": "end of block",
         "$END": "end of input", "NAME": "a name", "INT": "a number",
         # terminals with several spellings: what a user writes, not the grammar's name
         "CMP_OP": "a comparison (<, <=, ==, !=, >=, >)", "SUM_OP": "'+' or '-'",
         "MUL_OP": "'*' or '/'", "AND": "'&&'", "OR": "'||'", "NOT": "'!'", "BOT": "'⊥'",
         "ALWAYS_KW": "'always'", "EVENTUALLY_KW": "'eventually'", "IMPLIES": "'->'",
         "ASSUMING": "'assuming'", "UNKNOWN": "an unknown ('?a')", "WHERE": "'where'", "SETOP": "'∪' or '∩'", "MINMAX": "'min' or 'max'"}


def _expected_word(terminal: str) -> str:
    """How a syntax error names a token it expected: ``':'`` for COLON, ``'send'`` for SEND
    (the literal a user writes), never a grammar name like ``cmp_op``."""
    if terminal in _WHAT:
        return _WHAT[terminal]
    found = next((t for t in _parser().terminals if t.name == terminal), None)
    if found is not None and found.pattern.type == "str":
        return f"'{found.pattern.value}'"
    return terminal.strip('"').lower()


@cache
def _words() -> frozenset[str]:
    """Every keyword of the language (the grammar's words and the statements' first words)."""
    literal = {t.pattern.value for t in _parser().terminals if t.pattern.type == "str"}
    return frozenset({w for w in literal if w.isalpha()} | KEYWORDS |
                     {"always", "eventually", "implies", "assuming", "bot"})


def _meant(word: str) -> str:
    """``"; did you mean 'receiving'?"`` for a misspelt keyword, else ``""``."""
    if word in _words():
        return ""
    close = difflib.get_close_matches(word, sorted(_words()), n=2, cutoff=0.75)
    return ("; did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close else ""


def _word_before(text: str, line: int, col: int) -> str:
    """The last word before column ``col`` of ``line`` (1-based), or ``""``."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", lines[line - 1][:max(col - 1, 0)])
    return words[-1] if words else ""


def _syntax(e: UnexpectedInput, text: str) -> Diagnostic:
    line, col = getattr(e, "line", 0) or 0, getattr(e, "column", 0) or 0
    if isinstance(e, UnexpectedCharacters):
        char = text[e.pos_in_stream] if e.pos_in_stream < len(text) else "?"
        return Diagnostic(Severity.ERROR, f"unexpected character '{char}'", Span(line, col))
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        lines = text.rstrip("\n").split("\n")
        return Diagnostic(Severity.ERROR, "unexpected end of input (an unfinished statement or "
                          "block)", Span(len(lines), len(lines[-1]) + 1))
    assert isinstance(e, UnexpectedToken)
    tok = e.token
    unsupported = _unsupported_statement(text, tok.line or line)
    if unsupported is not None:
        return unsupported
    expected = sorted({_expected_word(x) for x in e.expected if not x.startswith("__")},
                      key=lambda w: (w.startswith("'"), w))[:10]  # words first, then literals
    if tok.type == "_INDENT":
        what = "unexpected indentation"
    elif tok.type == "_DEDENT":
        what = "unexpected end of an indented block"
    elif tok.type == "_NL":
        what = "unexpected end of line"
    else:
        what = f"unexpected '{tok}'"
    if tok.line is None or tok.type in ("_INDENT", "_DEDENT"):
        line = tok.line or line
    hint = f" (expected: {', '.join(expected)})" if expected else ""
    meant = (_meant(str(tok)) if tok.type == "NAME" else "") or \
        _meant(_word_before(text, tok.line or line, tok.column or col))
    return Diagnostic(Severity.ERROR, what + hint + meant, Span(tok.line or line or 1,
                                                        tok.column or col or 1))
