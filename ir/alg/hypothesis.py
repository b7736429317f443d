"""A synchronous property's hypothesis (``NAME assuming clean round: …``), shared by the
pseudocode IR (``ir/alg/syntax.py``) and the threshold automaton (``ir/ta/model.py``). It lives on its own so
that a reader of pseudocode (the reference interpreter, ``tactl/source``) needs nothing of the
automata to read a property."""

from __future__ import annotations

from dataclasses import dataclass, field

from tactl.ir.errors import Span


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False, kw_only=True)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """What a synchronous property is proved under, written ``NAME assuming …:`` (lock-step
    rounds only; tactl.engines.lockstep): the property is required in every configuration reached
    one or more rounds after a round of this kind.

    * ``clean round``: no process crashes in it (crash faults; t + 1 rounds contain one);
    * ``round with at most K crashes``: at most K processes crash in it (k-set agreement,
      K = k - 1; floor(t/k) + 1 rounds contain one);
    * ``correct coordinator``: the round's coordinator (a phase's king or queen) is correct.
    """

    kind: str  # one of HYPOTHESES
    crashes: int = 0  # FEW_CRASHES: K
    span: Span | None = _span()

    def text(self) -> str:
        """As written after ``assuming``."""
        if self.kind == FEW_CRASHES:
            return f"round with at most {self.crashes} crash{'' if self.crashes == 1 else 'es'}"
        return self.kind

    @property
    def known(self) -> bool:
        """False for a spelling tactl does not know (kept as written; validation reports it)."""
        return self.kind in HYPOTHESES

    @staticmethod
    def read(text: str, span: Span | None = None) -> "Hypothesis":
        """The hypothesis ``text`` spells (as :meth:`text` prints it); an unknown spelling is
        kept as its kind (``known`` is False) for the validator to report with its position."""
        words = text.split()
        if " ".join(words) in (CLEAN_ROUND, CORRECT_COORDINATOR):
            return Hypothesis(" ".join(words), span=span)
        if (len(words) == 6 and words[:4] == ["round", "with", "at", "most"] and words[4].isdigit()
                and words[5] in ("crash", "crashes")):
            return Hypothesis(FEW_CRASHES, int(words[4]), span=span)
        return Hypothesis(" ".join(words), span=span)


CLEAN_ROUND, FEW_CRASHES, CORRECT_COORDINATOR = "clean round", "few crashes", "correct coordinator"
HYPOTHESES = (CLEAN_ROUND, FEW_CRASHES, CORRECT_COORDINATOR)
