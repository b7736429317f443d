"""What a name in an automaton may be: one definition for every input path (text and JSON).

Names travel from the user's file into places with grammars of their own — ``.ta``/``.rta``
text, SMT-LIB queries, Promela, file names under an output directory, DOT labels. The text
readers only ever produce identifiers (``NAME`` in ``expr.lark``), but a JSON document may hold
any string, so every reader of every form checks names here, once, before building the IR. An
identifier is ASCII letters, digits and ``_``, not starting with a digit, and not a word the text
formats read as something else (so that printing a JSON automaton as text re-reads to the same
automaton). Emitters still never rely on this alone: they put names into their own namespaces
(see ``symbol`` in ``passes/emit/smtlib.py``).
"""

from __future__ import annotations

import re

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_LENGTH = 200  # longer names are refused: they only make unreadable output and file names

# Words the .ta/.rta grammars read as literals or keywords wherever a name may stand.
RESERVED_WORDS = frozenset({"true", "false"})


def identifier_problem(name: object) -> str | None:
    """Why ``name`` is not an acceptable identifier, or None if it is."""
    if not isinstance(name, str):
        return f"expected a name (a string), found {_short(name)}"
    if not IDENTIFIER.fullmatch(name):
        return (f"{_short(name)} is not a name: names are ASCII letters, digits and '_', "
                "not starting with a digit")
    if len(name) > MAX_LENGTH:
        return f"the name '{name[:40]}…' is {len(name)} characters long (at most {MAX_LENGTH})"
    if name in RESERVED_WORDS:
        return f"'{name}' is a reserved word and cannot be used as a name"
    return None


def _short(value: object) -> str:
    """A short description; containers are not printed (they may be nested arbitrarily deep)."""
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "…"
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, (list, tuple)) else "an object"
