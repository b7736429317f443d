"""Emitter pass: SMT query IR → SMT-LIB2 text (``templates/smtlib/query.smt2.j2``).

The text is what ``tactl check`` hands to its solver as well, so an emitted file is exactly the
question the checker answered. Only standard QF_LIA syntax is produced, which the z3 and cvc5
command-line solvers both accept.
"""

from __future__ import annotations

import re

from tactl.util.version import __version__
from tactl.ir.expr import (
    And,
    BoolConst,
    Compare,
    Expr,
    Implies,
    IntConst,
    Mul,
    Name,
    Neg,
    Not,
    Or,
    Sum,
    to_text,
)
from tactl.ir.smt import SmtQuery
from tactl.passes.emit.render import render

# Words an SMT-LIB symbol may not be (reserved words and the core/Ints theory symbols).
_RESERVED = frozenset("""
    par NUMERAL DECIMAL STRING _ ! as let exists forall match true false not and or xor ite
    distinct div mod abs to_real to_int is_int assert check-sat declare-const declare-fun
    define-fun exit push pop set-logic set-option set-info get-model get-value
""".split())
_SIMPLE = re.compile(r"^[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*$")
_OPS = {"<": "<", "<=": "<=", "==": "=", ">=": ">=", ">": ">"}
# The namespace of names the user wrote (parameters): no solver defines a symbol starting so.
USER_PREFIX = "p."


def smt_name(name: str) -> str:
    """The SMT constant standing for ``name``.

    The encodings name their own constants ``<prefix>.<identifier>`` (``k3.V0``, ``x1.r4``); a
    name without a dot is one the user wrote (a parameter) and goes into the namespace ``p.``,
    so that no user name can ever be an SMT-LIB keyword or a theory symbol a solver predefines
    (``and``, ``as``, ``_``, z3's ``select``, …) — quoting would not help: ``|and|`` *is* ``and``.
    """
    return name if "." in name else USER_PREFIX + name


def symbol(name: str) -> str:
    """``name``'s SMT constant as SMT-LIB text, quoted with ``|…|`` unless it is a simple symbol.

    Refuses (ValueError) a name that no quoting can make one symbol (``|`` or ``\\`` inside):
    the printer never writes text outside the SMT-LIB grammar.
    """
    smt = smt_name(name)
    if _SIMPLE.match(smt) and smt not in _RESERVED:
        return smt
    if "|" in smt or "\\" in smt:
        raise ValueError(f"no SMT-LIB symbol can spell the name {name!r}")
    return f"|{smt}|"


def comment(text: object) -> str:
    """``text`` made safe for one SMT-LIB comment line: every character that could end the
    line (or is not printable) is replaced by ``?``."""
    return "".join(c if c.isprintable() else "?" for c in str(text))


def term(e: Expr) -> str:
    """SMT-LIB2 text of an expression (``==`` between formulas is Boolean equality, i.e. iff)."""
    if isinstance(e, IntConst):
        return str(e.value)
    if isinstance(e, Name):
        return symbol(e.name)
    if isinstance(e, Neg):
        if isinstance(e.arg, IntConst):
            return f"(- {e.arg.value})"
        return f"(- {term(e.arg)})"
    if isinstance(e, Sum):
        parts = [term(a) if s > 0 else f"(- {term(a)})" for s, a in e.signed()]
        return f"(+ {' '.join(parts)})"
    if isinstance(e, Mul):
        return f"(* {term(e.left)} {term(e.right)})"
    if isinstance(e, BoolConst):
        return "true" if e.value else "false"
    if isinstance(e, Compare):
        if e.op == "!=":
            return f"(not (= {term(e.left)} {term(e.right)}))"
        return f"({_OPS[e.op]} {term(e.left)} {term(e.right)})"
    if isinstance(e, Not):
        return f"(not {term(e.arg)})"
    if isinstance(e, (And, Or)):
        return f"({'and' if isinstance(e, And) else 'or'} {' '.join(term(a) for a in e.args)})"
    if isinstance(e, Implies):
        return f"(=> {term(e.left)} {term(e.right)})"
    raise ValueError(f"no SMT-LIB term for {to_text(e)}")


def emit_smtlib(query: SmtQuery) -> str:
    return render("smtlib/query.smt2.j2", filters={"symbol": symbol, "term": term, "comment": comment},
                  query=query, version=__version__)
