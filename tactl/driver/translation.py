"""``tactl translate``: the translate pass with its certificates, and the per-rule table.

Used by the ``translate`` command and by every command that is given an ``.rta`` file (they run
this pass first). A soundness certificate that fails is a tactl bug and stops everything; one z3
could not decide stops everything too, and so does an imprecise guard unless the user accepts it
(``--allow-imprecise``) — an uncertified guard is never used silently.

The justice derived from the fault model (``passes/rta_to_ta/fairness.py``) is certified too
(``certify_justice``). An atom that is not *exact* or not *admissible* is a tactl bug (exit 4,
whether or not a specification uses it). One that is not *justified*, or undecided, makes the
verdicts of the specifications that assume the justice unsound, and only those: they are
*refused* (:func:`refused_properties`: ``check`` reports them unsupported or unknown with the
reason, ``translate`` leaves them out of the TA it writes and exits 3), while every other
property — the safety ones — is translated and checked as usual (one unjustifiable liveness
property must not block the others).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tactl.ir.errors import Diagnostic, InputError, Severity
from tactl.ir.expr import BoolConst, to_text
from tactl.ir.rta.model import FaultModel, ReceiveTA
from tactl.ir.ta.validate import validate
from tactl.passes.rta_to_ta.certify import Certificate, JusticeCertificate, certify, certify_justice
from tactl.passes.rta_to_ta.eliminate import Translation, translate
from tactl.passes.rta_to_ta.env import UnsupportedEnvironment
from tactl.passes.rta_to_ta.fairness import Fairness, empty


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
    justice_certificates: list[JusticeCertificate] | None = None  # None: --no-certify


def run_translate(rta: ReceiveTA, path: str, check: bool = True) -> Certified:
    try:
        translation = translate(rta)
    except UnsupportedEnvironment as e:
        raise InputError(Diagnostic(Severity.ERROR, str(e), rta.faults.span), path) from None
    invalid = generated_ta_problem(translation)
    if invalid:
        raise CertificateError(invalid, 4)
    if not check:
        return Certified(translation, None)
    return Certified(translation, certify(rta, translation), certify_justice(rta, translation))


def generated_ta_problem(translation: Translation) -> str | None:
    """The generated TA goes through the very validation a TA read from a file gets; an error
    there is a tactl bug (the .rta validation should have refused the input), never used."""
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
    justice = justice_problem(result)
    if justice:
        return justice
    imprecise = [c.rule_id for c in result.certificates if c.precise is False]
    if imprecise and not allow_imprecise:
        return CertificateError(
            "the guard of rule(s) " + ", ".join(map(str, imprecise)) + " is sound but not precise: "
            "no linear guard says exactly when some receive counts satisfy it (typically a parity "
            "condition), so the TA would allow more than the RTA — a 'holds' stays valid, a "
            "violation may be spurious. Nothing was written; 'tactl translate --allow-imprecise "
            "-o X.ta' writes it anyway.", 3)
    return None


def justice_problem(result: Certified) -> CertificateError | None:
    """Why the derived justice must not be used (see the module docstring), or None."""
    certs, justice = result.justice_certificates or [], result.translation.justice
    wrong = [c.rule_id for c in certs if c.exact is False or c.admissible is False]
    if wrong:
        return CertificateError("the justice certificate failed for rule(s) " + _ids(wrong)
                                + " (its guaranteed guard is not the receive guard at the "
                                "guaranteed delivery): this is a tactl bug, please report it (the "
                                "output was not written)", 4)
    return None


# What a refused property gets: the verdict, and why (one reason for all properties of a justice).
UNSUPPORTED_VERDICT, UNKNOWN_VERDICT = "unsupported", "unknown"


def refused_properties(result: Certified) -> dict[str, tuple[str, str]]:
    """The specifications that assume a justice which is not justified (``unsupported``) or
    whose certificate z3 did not decide (``unknown``), each with its verdict and reason; the
    others may be checked (see the module docstring)."""
    certs, justice = result.justice_certificates or [], result.translation.justice
    if justice is None or not justice.used:
        return {}
    undecided = [c.rule_id for c in certs if None in (c.exact, c.admissible, c.justified)]
    if undecided:
        why = (f"z3 could not decide the justice certificate of rule(s) {_ids(undecided)}, which "
               "this liveness property assumes (--no-certify skips the checks)")
        return {name: (UNKNOWN_VERDICT, why) for name in justice.properties}
    unjustified = [c.rule_id for c in certs if c.justified is False]
    if not unjustified:
        return {}
    where = sorted({r.source for r in justice.rules if r.rule_id in unjustified})
    why = (f"the justice of rule(s) {_ids(unjustified)} is not justified: a process in "
           f"{', '.join(where)} that has received every guaranteed message may still have no rule "
           "enabled (messages of faulty senders can make the guards leaving it false), so assuming "
           "that it leaves would make this liveness verdict unsound. Make the receive guards "
           "leaving the location cover every delivery the fault model allows (the safety "
           "properties are checked regardless)")
    return {name: (UNSUPPORTED_VERDICT, why) for name in justice.properties}


def without_refused(result: Certified):
    """The translated TA without the refused specifications (what ``translate`` writes: a TA
    another tool would check with an unjustified justice must not be written)."""
    refused = refused_properties(result)
    ta = result.translation.ta
    return replace(ta, properties=tuple(p for p in ta.properties if p.name not in refused)), refused


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids))


def certificate_rows(rta: ReceiveTA, result: Certified) -> list[dict]:
    """The certificate table as data (the driver's reports): one row per receive rule."""
    certs = {c.rule_id: c for c in result.certificates or []}
    rows = []
    for rule, g in zip(rta.rules, result.translation.guards):
        cert = certs.get(rule.id)
        rows.append({"rule": f"{rule.id}: {rule.source} -> {rule.target}",
                     "receive_guard": to_text(rule.guard),
                     "send_guard": " || ".join(to_text(s) for s in g.send_guards)
                                   or "false under the RC: rule removed",
                     "sound": None if cert is None else cert.sound,
                     "precise": None if cert is None else cert.precise})
    return rows


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


def justice_section(rta: ReceiveTA, result: Certified) -> str:
    """The justice derived from the fault model: the guaranteed deliveries, ``fair == J``, one
    row per rule that leaves its location, and which specifications assume it ("" if none)."""
    justice = result.translation.justice
    if justice is None:
        return ""
    env = result.translation.environment
    delivered = ", ".join(f"received({m}) >= {to_text(g)}" for m, g in env.guaranteed)
    lines = [f"justice (derived from the fault model, {rta.faults.model.value} {rta.timing.value}: "
             + ("correct processes keep taking steps and receive the delivery the model guarantees, "
                if rta.faults.model is FaultModel.BOUND else
                "correct processes keep taking steps and receive every message of a correct sender, ")
             + f"{delivered or 'no messages'}):",
             f"  {justice.name} == {to_text(justice.formula)}"]
    certs = None if result.justice_certificates is None else \
        {c.rule_id: c for c in result.justice_certificates}
    rows = [["rule", "guaranteed guard", "justice atom", "certified"]]
    leaving = [r for r in rta.rules if not r.is_self_loop]
    emptied = {r.source for r in justice.rules if r.atom == empty(r.source)}
    for rule, rj in zip(leaving, justice.rules):
        head = f"{rule.id}: {rule.source} -> {rule.target}"
        if rj.fairness is Fairness.OPTIONAL:
            rows.append([head, "-", f"none (optional: {rule.source} has a self-loop)", "-"])
            continue
        cert = None if certs is None else certs.get(rule.id)
        mark = "-" if cert is None else "✓" if cert.ok else \
            " ".join(("?" if getattr(cert, n) is None else "✗") + " " + n for n in cert.failed())
        atom = to_text(rj.atom) if rj.atom != BoolConst(True) else "none (never guaranteed)"
        if rj.source in emptied and rj.atom not in (empty(rj.source), BoolConst(True)):
            atom += f" (implied by {rj.source} == 0)"
        rows.append([head, to_text(rj.premise), atom, mark])
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    table = ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    table.insert(1, "  " + "  ".join("-" * w for w in widths))
    lines += table
    if justice.used:
        lines.append(f"  assumed by: {', '.join(justice.properties)} (in the TA as "
                     f"<>[]({justice.name}) -> (spec), {justice.name} written out)")
        lines.append("  stutter self-loops (when (true), no update) added at: "
                     + (", ".join(justice.stutter) or "none needed"))
    else:
        lines.append("  assumed by: no specification (no liveness property)")
    return "\n".join(lines)
