"""``tactl check --certify``: every SMT question behind a HOLDS re-answered by a second solver.

A HOLDS of the parametric engine rests on z3's ``unsat`` to each steady-schema query
(tactl/engines/parametric.py); one of the chc engine rests on three questions about Spacer's
invariant (tactl/engines/chc_certificate.py); one of the lock-step engine (synchronous
algorithms) on guard completeness, the diameter and the bounded checks up to it
(tactl/engines/lockstep_certificate.py). Every engine keeps, with the HOLDS, the SMT-LIB text of
each such question (:class:`~tactl.engines.result.Obligation`, the text ``tactl emit --to
smtlib`` writes). Here cvc5, a solver that shares no code with z3, answers every one of them in a
process of its own (tactl/engines/solvers.py); an answer cvc5 already gave to the very same text
(the chc engine's in-process re-check, or in the same check a question several HOLDS share, such
as the lock-step diameter) is reused rather than asked twice.

The HOLDS stands, with the number of questions cvc5 confirmed, only when cvc5 answers ``unsat``
to all of them. Any other answer, a timeout or an error makes the verdict UNKNOWN with the
reason, and so does a HOLDS that recorded no question: with --certify, no HOLDS is shown that a
second solver has not confirmed.

The steady-schema queries rest on one more z3 answer, which is re-asked too: the encoding leaves
out the rules whose source no initial configuration can reach (``usable_rules_premise`` in
passes/ta_to_smt/steady.py). So are the z3 answers the reduction before encoding rests on
(tactl/engines/reduced.py: equal guards, shortcut implications), as one question
(passes/ta_to_ta/reduction_question.py).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from tactl.engines import solvers
from tactl.engines.lockstep import ENGINE as LOCKSTEP
from tactl.engines.lockstep_certificate import TRUSTED
from tactl.engines.parametric import ENGINE as PARAMETRIC
from tactl.engines.result import HOLDS, UNKNOWN, Certification, Obligation, PropertyResult
from tactl.util import deadline

SOLVER = "cvc5"
# The longest cvc5 may take on one question without --timeout; with it, a question may take the
# time left (a lock-step diameter's ∃∀ query can take cvc5 minutes where z3 takes a second).
LIMIT_S = 120.0
INSTALL = ("--certify re-asks every query behind a HOLDS of cvc5, which is not installed: "
           "pip install cvc5 (its Python package is enough), or put a cvc5 executable on PATH")


# The engines whose HOLDS rests on recorded SMT queries (tactl/engines/parametric.py, chc.py,
# lockstep.py; ``--engine parametric`` checks a synchronous algorithm with the lock-step engine).
ENGINES = (PARAMETRIC, "chc", LOCKSTEP)


def problem(engine: str) -> str | None:
    """Why ``--certify`` cannot run with ``engine`` here (the engine answers without SMT queries,
    or cvc5 is not installed: then how to install it); None when it can."""
    if engine not in ENGINES:
        return (f"--certify re-asks the SMT queries of the {', '.join(ENGINES[:-1])} and {ENGINES[-1]} engines; the "
                f"{engine} engine answers without them")
    return None if solvers.available(SOLVER) else INSTALL


def certify(result: PropertyResult, answered: dict[str, tuple[str, str]] | None = None) -> PropertyResult:
    """``result`` with its :attr:`~PropertyResult.certificate` when it HOLDS (other verdicts are
    returned as they are); a HOLDS cvc5 does not confirm becomes UNKNOWN, saying why.
    ``answered``: cvc5's answers (and what it said besides) to the texts of the other properties
    of the same check, which are not asked again (the lock-step diameter every HOLDS of an
    automaton rests on); added to."""
    answered = {} if answered is None else answered
    if result.verdict != HOLDS:
        return result
    started = time.perf_counter()
    asked = [(o, text) for o in result.obligations for text in (o.text(),) if text]
    total, confirmed, failure = len(asked), 0, ""
    if not total:
        failure = f"the {result.engine} engine recorded no SMT query behind this HOLDS"
    with tempfile.TemporaryDirectory(prefix="tactl-certify-") as folder:
        for number, (obligation, text) in enumerate(asked, 1):
            answer, detail = _answer(obligation, text, Path(folder) / f"query{number}.smt2", answered)
            if answer != solvers.UNSAT:
                failure = (f"cvc5 answered {answer} on {obligation.label} (query {number} of {total}, "
                           f"unsat for z3){': ' + detail if detail else ''}")
                break
            confirmed += 1
    result.certificate = Certification(SOLVER, total, confirmed, time.perf_counter() - started, failure,
                                       TRUSTED if result.engine == LOCKSTEP else "")
    if not result.certificate.ok:
        result.verdict = UNKNOWN
        result.reason = "not certified: " + failure
    return result


def _answer(obligation: Obligation, text: str, path: Path,
            answered: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """cvc5's answer on the obligation's text and what it said besides (an error, a timeout);
    ``answered``: cvc5's answers in this check so far (added to)."""
    given = dict(obligation.answers).get(SOLVER)
    if given is not None:
        return given, ""
    if text in answered:
        return answered[text]
    left = deadline.remaining()
    if left is not None and left <= 0:
        return solvers.TIMEOUT, deadline.timeout_reason()
    path.write_text(text)
    run = solvers.run(SOLVER, path, LIMIT_S if left is None else left)
    answered[text] = (run.answer, run.message)
    return run.answer, run.message
