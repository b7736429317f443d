"""``tactl translate``: the translate pass with its certificates, and the per-rule table.

Used by the ``translate`` command and by every command that is given an ``.rta`` file (they run
this pass first). A soundness certificate that fails is a tactl bug and stops everything; one z3
could not decide stops everything too, and so does an imprecise guard unless the user accepts it
(``--allow-imprecise``) — an uncertified guard is never used silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from tactl.ir.errors import Diagnostic, InputError, Severity
from tactl.ir.expr import to_text
from tactl.ir.rta import ReceiveTA
from tactl.passes.certify import Certificate, certify
from tactl.passes.eliminate import Translation, translate
from tactl.passes.env import UnsupportedEnvironment


class CertificateError(Exception):
    """A produced guard is not certified sound and precise (exit 4: a bug; 3: z3 undecided)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code

    def render(self) -> str:
        return f"tactl: {self.message}"


@dataclass
class Certified:
    translation: Translation
    certificates: list[Certificate] | None  # None: --no-certify


def run_translate(rta: ReceiveTA, path: str, check: bool = True) -> Certified:
    try:
        translation = translate(rta)
    except UnsupportedEnvironment as e:
        raise InputError(Diagnostic(Severity.ERROR, str(e), rta.faults.span), path) from None
    invalid = generated_ta_problem(translation)
    if invalid:
        raise CertificateError(invalid, 4)
    return Certified(translation, certify(rta, translation) if check else None)


def generated_ta_problem(translation: Translation) -> str | None:
    """The generated TA goes through the very validation a TA read from a file gets; an error
    there is a tactl bug (the .rta validation should have refused the input), never used."""
    from tactl.ir.validate import validate

    errors = [d for d in validate(translation.ta) if d.severity is Severity.ERROR]
    if not errors:
        return None
    return ("the translated automaton is invalid (" + "; ".join(d.message for d in errors[:3])
            + "): this is a tactl bug, please report it (the output was not written)")


def certificate_problem(result: Certified, allow_imprecise: bool = False) -> CertificateError | None:
    """Why the translation must not be used: an unsound guard is a tactl bug (exit 4); an
    undecided certificate (exit 3); an imprecise guard (exit 3) unless ``allow_imprecise`` — it
    over-approximates the RTA, so "holds" stays valid but a violation may be spurious."""
    if result.certificates is None:
        return None
    unsound = [c.rule_id for c in result.certificates if c.sound is False]
    if unsound:
        return CertificateError("the soundness certificate failed for rule(s) "
                                + ", ".join(map(str, unsound)) + ": this is a tactl bug, please "
                                "report it (the output was not written)", 4)
    undecided = [c.rule_id for c in result.certificates if c.sound is None or c.precise is None]
    if undecided:
        return CertificateError("z3 could not decide the certificate of rule(s) "
                                + ", ".join(map(str, undecided))
                                + " (the output was not written; --no-certify skips the checks)", 3)
    imprecise = [c.rule_id for c in result.certificates if c.precise is False]
    if imprecise and not allow_imprecise:
        return CertificateError(
            "the guard of rule(s) " + ", ".join(map(str, imprecise)) + " is sound but not precise: "
            "no linear guard says exactly when some receive counts satisfy it (typically a parity "
            "condition), so the TA would allow more than the RTA — a 'holds' stays valid, a "
            "violation may be spurious. Nothing was written; 'tactl translate --allow-imprecise "
            "-o X.ta' writes it anyway.", 3)
    return None


def certificate_table(rta: ReceiveTA, result: Certified) -> str:
    """Rule, receive guard, send guard(s), sound, precise: one row per produced TA guard."""
    marks = {True: "✓", False: "✗", None: "?"}
    certs = {c.rule_id: c for c in result.certificates or []}
    rows = [["rule", "receive guard", "send guard", "sound", "precise"]]
    for rule, g in zip(rta.rules, result.translation.guards):
        cert = certs.get(rule.id)
        sound = marks[cert.sound] if cert else "-"
        precise = marks[cert.precise] if cert else "-"
        sends = [to_text(s) for s in g.send_guards] or ["(false under the RC: rule removed)"]
        head = f"{rule.id}: {rule.source} -> {rule.target}"
        for k, send in enumerate(sends):
            rows.append([head if k == 0 else "", to_text(rule.guard) if k == 0 else "",
                         ("or " if k else "") + send, sound if k == 0 else "", precise if k == 0 else ""])
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
