"""The declared widths of Promela's integer types, honoured by refusing what does not fit.

SPIN stores a ``bit`` or ``bool`` in one bit, a ``byte`` in 0..255, a ``short`` in 16 and an
``int`` in 32 signed bits, and *truncates* an assignment that does not fit (with a run-time
warning only): ``bit pc; pc = 2`` leaves ``pc == 0``. tactl's symbolic execution computes with
unbounded integers, so a value outside the declared range would be a location SPIN and ByMC never
reach (``bit pc`` assigned 2 and 3 would give locations ``pc = 2``, ``pc = 3`` and verdicts
about them). Truncating as SPIN does would keep a model nobody meant (the file's ``#define AC 3``
stored as 1); refusing with the position and the range says what is wrong, and a file that
means 0..3 declares ``byte``.

A receive count or a send counter grows with the parameters (up to N messages), so only ``int``
can hold it for every N (the parametric claim): a narrower one is refused at its declaration.

``unsigned`` without a width (``unsigned nsntNo = 0;``) is ByMC's spelling of a natural number,
not SPIN's bit field (SPIN requires ``unsigned x : w``; a width is refused by the reader): it is
read as an unbounded non-negative integer. Where tactl keeps values concrete (a location variable)
a negative value is refused at its assignment like any value outside its type; a send counter
starts at 0 and is only incremented, and a receive count is at least 0 in every fault model
(``passes/rta_to_ta/env.py``), so there the non-negativity holds by construction.
"""

from __future__ import annotations

from tactl.ir.errors import Span

RANGES: dict[str, tuple[int, int]] = {
    "bit": (0, 1), "bool": (0, 1), "byte": (0, 255),
    "short": (-2 ** 15, 2 ** 15 - 1), "int": (-2 ** 31, 2 ** 31 - 1),
}
UNBOUNDED = {"unsigned": 0}  # type -> its least value; no largest one (module docstring)
COUNT_TYPES = ("int", "unsigned")  # the types that hold a count for every N


class WidthError(Exception):
    """A value outside its variable's declared type; the translation reports it at ``span``."""

    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message, self.span = message, span


def check_value(type_: str, name: str, value: int, span: Span | None) -> None:
    """Refuse ``name = value`` when ``value`` does not fit the declared ``type_``."""
    if type_ in UNBOUNDED:
        if value < UNBOUNDED[type_]:
            raise WidthError(f"'{name}' is declared {type_} (a natural number, ByMC's reading) but "
                             f"gets the value {value} here; declare it int", span)
        return
    low, high = RANGES.get(type_, RANGES["int"])
    if not low <= value <= high:
        raise WidthError(f"'{name}' is declared {type_} ({low}..{high}) but gets the value {value} "
                         f"here: SPIN would store it truncated, a different model; declare '{name}' "
                         "with a type that holds it (e.g. byte or int)", span)


def check_count(type_: str, name: str, what: str, span: Span | None) -> None:
    """Refuse a ``type_`` narrower than ``int`` for a variable counting messages."""
    if type_ not in COUNT_TYPES:
        low, high = RANGES.get(type_, RANGES["int"])
        raise WidthError(f"'{name}' is {what}, whose value grows with the parameters, but is declared "
                         f"{type_} ({low}..{high}): SPIN would wrap it for large N; declare it int",
                         span)
