"""Vacuity: does a holding implication say anything? (hardware model checking's
"vacuous pass", Beer, Ben-David, Eisner, Rodeh 1997).

A property shaped as an implication — ``init -> [](safe)``, ``[](p -> <>q)``, the justice
antecedent ``<>[](J) -> spec`` the translation puts in front of liveness, or a chain of them —
holds *vacuously* when no run meets its antecedents: no initial configuration satisfies
``init``, ``p`` is unreachable, no run is just. Such a HOLDS proves nothing about the consequent.

**The question.** The consequent occurs positively, so replacing it by ``false`` gives a
*stronger* formula, the **witness formula** ``W``: ``A -> false`` is ``!A``; ``[](p -> <>q)``
becomes ``[](!p)``; ``<>[](J) -> (init -> <>q)`` becomes ``<>[](J) -> !init``. ``W`` holds iff
no run meets all antecedents together (in the nesting the property states them), which is
exactly vacuity; a violation of ``W`` is a run that meets them — a witness that the original
verdict is not vacuous. ``W`` stays in the ELTL-FT fragment (its negation is a sub-formula of
the original negation's antecedent part), so every engine decides it as it decides the property.

Only the chain of implications along ``->`` (right operand) and ``[]``/``<>`` is followed: a
conjunction of implications has no single antecedent, and a property without ``->`` (an
invariant ``[](D0 == 0 || D1 == 0)``) has none, so vacuity does not apply to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.expr import Always, BoolConst, Eventually, Expr, Implies, is_temporal, to_text


@dataclass(frozen=True)
class Antecedent:
    """One antecedent of the chain, and how it is met (``initially``, ``reached``, ``just``)."""

    formula: Expr
    where: str  # "initially" (a state formula at the top), "reached" (under []/<>), "run"


@dataclass(frozen=True)
class VacuityQuestion:
    """The witness formula ``W`` of a property (see the module docstring) and its antecedents."""

    witness: Expr
    antecedents: tuple[Antecedent, ...]

    @property
    def assumes_justice(self) -> bool:
        """Whether an antecedent is a justice ``<>[](J)``."""
        return any(_is_justice(a.formula) for a in self.antecedents)

    def describe(self) -> str:
        """The antecedents in words: ``a run that is just, starts where `v0 == 0` and reaches `p```."""
        parts = []
        for a in self.antecedents:
            if _is_justice(a.formula):
                parts.append("is just" + (f" (eventually forever {_short(a.formula.arg.arg)})"
                                          if len(to_text(a.formula)) <= 60 else " (<>[] of the justice)"))
            elif a.where == "initially":
                parts.append(f"starts where {_short(a.formula)}")
            elif a.where == "reached":
                parts.append(f"reaches {_short(a.formula)}")
            else:
                parts.append(f"satisfies {_short(a.formula)}")
        if not parts:
            return "a run"
        return "a run that " + (parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1])


def vacuity_question(formula: Expr, falsum: Expr = BoolConst(False)) -> VacuityQuestion | None:
    """``W`` and the antecedents of ``formula``, or None when it is not implication-shaped.
    ``falsum`` is what replaces the consequent: ``false``, or ``<>false`` where a checker decides
    by the formula's shape whether it needs fairness (SPIN's process model)."""
    antecedents: list[Antecedent] = []
    witness = _drop_consequent(formula, antecedents, False, falsum)
    if witness is None:
        return None
    return VacuityQuestion(witness, tuple(antecedents))


def _drop_consequent(e: Expr, antecedents: list[Antecedent], under_temporal: bool, falsum: Expr) -> Expr | None:
    if isinstance(e, Implies):
        where = "reached" if under_temporal else ("run" if is_temporal(e.left) else "initially")
        antecedents.append(Antecedent(e.left, where))
        inner = _drop_consequent(e.right, antecedents, under_temporal, falsum)
        return Implies(e.left, inner if inner is not None else falsum)
    if isinstance(e, (Always, Eventually)):
        inner = _drop_consequent(e.arg, antecedents, True, falsum)
        return None if inner is None else type(e)(inner)
    return None


def _is_justice(e: Expr) -> bool:
    return isinstance(e, Eventually) and isinstance(e.arg, Always)


def _short(e: Expr, limit: int = 90) -> str:
    text = to_text(e)
    return f"`{text}`" if len(text) <= limit else f"`{text[:limit - 1]}…`"
