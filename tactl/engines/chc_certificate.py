"""Re-checking an inductive invariant as three plain SMT questions, by z3 and by cvc5.

A HOLDS of the CHC engine (tactl/engines/chc.py) rests on Spacer's claim that its relation
``Inv`` satisfies the Horn clauses. That claim is checked here without Spacer, as three
quantifier-free questions in linear integer arithmetic, each of which must be unsatisfiable:

    initiation   initial(s) ∧ ¬Inv(s)
    consecution  Inv(s) ∧ ⋁_r (enabled_r(s) ∧ ¬Inv(after_r(s)))
    safety       Inv(s) ∧ bad(s)

z3 answers them in-process; cvc5, a solver that shares no code with z3, answers the same
questions read from their SMT-LIB text (what z3 prints, :func:`smtlib_questions`: the files
``tactl emit --to smtlib --invariant`` writes), in-process through its Python bindings (the
``cvc5`` package, a test dependency). Without the package the certificate says that cvc5 was not
run; any answer other than ``unsat`` makes the certificate fail. The texts with cvc5's answers are
the HOLDS's obligations, which ``tactl check --certify`` reports (tactl/engines/certify.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from tactl.engines.chc_invariant import facts_text, invariant_text
from tactl.engines.chc_system import CounterSystem
from tactl.engines.result import Obligation
from tactl.util import deadline

QUESTIONS = ("initiation", "consecution", "safety")
# What each question's unsat answer establishes (the first comment line of its SMT-LIB text).
MEANING = {"initiation": "initial(s) and not Inv(s); unsat: every initial state satisfies Inv",
           "consecution": "Inv(s), a rule enabled in s and not Inv(after(s)); unsat: every step keeps Inv",
           "safety": "Inv(s) and bad(s); unsat: no state satisfying Inv violates the property"}
# A re-check that takes longer than this is given up (the answer is then "unknown").
RECHECK_LIMIT_S = 60.0


@dataclass
class Certificate:
    text: str  # the invariant, one line of SMT-LIB
    answers: dict[str, dict[str, str]] = field(default_factory=dict)  # solver -> question -> answer
    smtlib: dict[str, str] = field(default_factory=dict)  # question -> its SMT-LIB text
    readable: str = ""  # the invariant in tactl's syntax (tactl/engines/chc_invariant.py)
    facts: str = ""  # the proved facts it includes (tactl/engines/chc_facts.py), tactl's syntax

    def details(self) -> dict[str, object]:
        """What a result's ``details`` say of the certificate (the text report prints the
        invariant in tactl's syntax; ``--json`` has its SMT-LIB form too)."""
        return {"invariant": self.readable or self.text, "invariant_smtlib": self.text,
                "recheck": self.summary(), **({"facts": self.facts} if self.facts else {})}

    @property
    def obligations(self) -> list[Obligation]:
        """The three questions as the obligations of a HOLDS, with the answers already given."""
        return [Obligation(q, text, tuple((solver, per[q]) for solver, per in self.answers.items()
                                          if q in per)) for q, text in self.smtlib.items()]

    @property
    def ok(self) -> bool:
        return bool(self.answers.get("z3")) and all(
            a == "unsat" for per in self.answers.values() for a in per.values())

    @property
    def queries(self) -> int:
        return sum(len(per) for per in self.answers.values())

    def summary(self) -> str:
        parts = []
        for solver, per in self.answers.items():
            wrong = [f"{q} {a}" for q, a in per.items() if a != "unsat"]
            parts.append(f"{solver}: " + ("initiation, consecution and safety unsat" if not wrong
                                          else "; ".join(wrong)))
        if "cvc5" not in self.answers:
            parts.append("cvc5: not run (its Python package is not installed)")
        return "; ".join(parts)


def questions(system: CounterSystem, invariant: z3.BoolRef) -> dict[str, z3.BoolRef]:
    """The three formulas that must be unsatisfiable for ``invariant`` to be a certificate."""
    step = z3.Or(*(z3.And(t.enabled, z3.Not(system.rename(invariant, t.after)))
                   for t in system.transitions)) if system.transitions else z3.BoolVal(False, invariant.ctx)
    return {"initiation": z3.And(system.initial, z3.Not(invariant)),
            "consecution": z3.And(invariant, step),
            "safety": z3.And(invariant, system.bad)}


def smtlib_questions(system: CounterSystem, invariant: z3.BoolRef, readable: str = "") -> dict[str, str]:
    """Each question of :func:`questions` as a standalone SMT-LIB file: what it asks and the
    invariant (``readable``, tactl's syntax) as comments, declarations, one assertion and
    ``check-sat``, whose answer must be ``unsat``."""
    texts = {}
    for q, formula in questions(system, invariant).items():
        printer = z3.Solver(ctx=formula.ctx)
        printer.add(formula)
        notes = [f"; {q}: {MEANING[q]}", *([f"; Inv: {readable}"] if readable else [])]
        texts[q] = "\n".join(notes) + "\n(set-logic ALL)\n" + printer.to_smt2()
    return texts


def recheck(system: CounterSystem, invariant: z3.BoolRef) -> Certificate:
    """Ask z3, then cvc5 if installed, every question of :func:`questions`."""
    certificate = Certificate(" ".join(invariant.sexpr().split()), readable=invariant_text(system, invariant),
                              facts=facts_text(system))
    formulas = questions(system, invariant)
    certificate.answers["z3"] = {q: _z3(f) for q, f in formulas.items()}
    certificate.smtlib = smtlib_questions(system, invariant, certificate.readable)
    try:
        import cvc5  # lazy: an optional second solver, loaded only to re-check an invariant
    except ImportError:
        return certificate
    certificate.answers["cvc5"] = {q: _cvc5(cvc5, text) for q, text in certificate.smtlib.items()}
    return certificate


def _z3(formula: z3.BoolRef) -> str:
    solver = z3.Solver(ctx=formula.ctx)
    solver.set("timeout", deadline.solver_timeout_ms(RECHECK_LIMIT_S))
    solver.add(formula)
    return str(solver.check())


def _cvc5(cvc5, text: str) -> str:
    """cvc5's answer on the SMT-LIB ``text`` (declarations and one ``check-sat``)."""
    manager = cvc5.TermManager() if hasattr(cvc5, "TermManager") else None
    solver = cvc5.Solver(manager) if manager is not None else cvc5.Solver()
    solver.setOption("tlimit-per", str(deadline.solver_timeout_ms(RECHECK_LIMIT_S)))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "invariant")
    symbols = parser.getSymbolManager()
    answer = ""
    try:
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            answer = command.invoke(solver, symbols).strip() or answer
    except RuntimeError as e:  # a parse or solver error: not a confirmation
        return "error: " + " ".join(str(e).split())
    return answer or "no answer"
