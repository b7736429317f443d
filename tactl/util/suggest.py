"""Did-you-mean: the names a misspelt word was probably meant to be (``difflib``), for messages
that refuse a name (a property, an algorithm, a variable, a keyword). Why here: every layer
refuses names, and the wording should be the same everywhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_names(word: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to ``word`` (case-insensitive, at least 0.6 alike), best first."""
    known = list(dict.fromkeys(known))
    by_lower = {k.lower(): k for k in known}
    found = difflib.get_close_matches(word.lower(), list(by_lower), n=n, cutoff=0.6)
    return [by_lower[f] for f in found if by_lower[f] != word]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'relay'?"`` (or ``'a' or 'b'``), or ``""`` when nothing is close."""
    close = close_names(word, known)
    if not close:
        return ""
    return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
