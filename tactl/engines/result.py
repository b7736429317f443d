"""What an engine says about one property."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tactl.engines.simulate import Configuration, Replay, Step

HOLDS, VIOLATED, UNKNOWN, UNSUPPORTED = "holds", "violated", "unknown", "unsupported"
HOLDS_VACUOUSLY = "holds vacuously"
# What a HOLDS says about its antecedents (ir/eltl/vacuity.py): every holding property carries one.
NOT_VACUOUS, NO_ANTECEDENT, VACUITY_UNKNOWN = "not vacuous", "no antecedent", "vacuity unknown"
# The reason of an UNKNOWN liveness verdict on an automaton without a stuttering self-loop.
NO_LOOP = ("vacuous: the automaton has no self-loop that updates nothing, so it has no infinite run "
           "(tactl adds no stuttering) and every liveness property would hold vacuously: nothing "
           "was checked")

# The key of PropertyResult.details that says why an engine other than the one asked for decided
# the property (tactl/engines/check.py sets it; the text, JSON and HTML reports show it).
ENGINE_CHOICE = "engine_choice"
# The explicit engine's name and defaults, here rather than in tactl/engines/explicit.py, so that
# the option defaults of a check do not load that engine when another one decides.
EXPLICIT_ENGINE = "explicit"
EXPLICIT_DEFAULT_BOUND = 7
EXPLICIT_DEFAULT_MAX_STATES = 2_000_000


@dataclass
class Counterexample:
    """A violating run: parameters, initial configuration, schedule (and loop) and its replay."""
    parameters: dict[str, int]
    initial: Configuration
    schedule: list[Step]
    replay: Replay
    # Liveness: the self-loop rule (index) taken forever in the last configuration; the run is
    # the lasso "schedule, then loop^ω". None for a finite run (safety).
    loop: int | None = None
    # Liveness as SPIN and NuSMV report it: the steps of a loop that starts and ends in the last
    # configuration of ``schedule``; the run is "schedule, then cycle^ω" (``loop`` is then None).
    cycle: list[Step] | None = None
    # What is known of its size (``tactl.engines.minimal_params``, ``tactl.engines.shortest``):
    # the parameters are the lexicographically smallest (declared order) that have a violating
    # run, each smaller valuation refuted by z3; the schedule has the fewest single-process steps
    # for them (a breadth-first search). ``minimality``: what was not shown, and why ("" if all).
    parameters_minimal: bool = False
    schedule_shortest: bool = False
    minimality: str = ""
    # The configuration where the property is violated (0 = initial, i = after step i): the end
    # of a finite run, the configuration that repeats forever (or where the cycle starts) of a
    # lasso; None: not known. Every output marks it.
    violating_step: int | None = None
    # Why the run is possible, in words (``tactl.engines.explain``): the messages from faulty
    # processes each step's receivers counted, and for a lasso why waiting forever is allowed.
    explanation: list[str] = field(default_factory=list)

    @property
    def replayed(self) -> bool:
        return self.replay.ok

    def states(self) -> tuple[list[Configuration], int | None]:
        """The run's configurations, each once, and the index of the one where the repeated part
        of a lasso starts (None for a finite run), as a trace format wants them: after a
        self-loop the last configuration repeats; a cycle ends in the configuration where it
        started, which is not listed a second time."""
        configs = list(self.replay.configurations)
        if self.cycle:
            if len(configs) == len(self.schedule) + len(self.cycle) + 1 and configs[-1] == configs[len(self.schedule)]:
                return configs[:-1], len(self.schedule)
            return configs, None  # a replay that stopped early: no loop to point at
        return configs, (len(configs) - 1 if self.loop is not None and self.replayed else None)


@dataclass(frozen=True)
class Obligation:
    """One SMT question a HOLDS rests on, as SMT-LIB text whose answer must be ``unsat``: what
    ``tactl check --certify`` hands to a second solver (tactl/engines/certify.py). ``answers``:
    the solvers that have already answered this very text (the chc engine's re-check).
    ``build``: the text made only when asked for (a question only --certify needs; "" when
    there turns out to be nothing to ask)."""

    label: str
    smtlib: str = ""
    answers: tuple[tuple[str, str], ...] = ()
    build: Callable[[], str] | None = field(default=None, compare=False)

    def text(self) -> str:
        return self.smtlib if self.build is None else self.build()


@dataclass(frozen=True)
class Certification:
    """A second solver's answers on the obligations of a HOLDS (``--certify``): ``confirmed`` of
    ``queries`` answered ``unsat``; ``failure`` says why the others did not (empty: all did);
    ``trusted``: what the HOLDS takes from tactl besides the answers, when an engine says so."""

    solver: str
    queries: int
    confirmed: int
    time_s: float = 0.0
    failure: str = ""
    trusted: str = ""

    @property
    def ok(self) -> bool:
        return self.queries > 0 and self.confirmed == self.queries and not self.failure

    def json(self) -> dict[str, object]:
        return {"solver": self.solver, "queries": self.queries, "confirmed": self.confirmed,
                "time_s": round(self.time_s, 4), **({"failure": self.failure} if self.failure else {}),
                **({"trusted": self.trusted} if self.trusted else {})}


@dataclass
class PropertyResult:
    """One property's verdict, how it was reached and what shows it."""
    name: str
    kind: str  # "safety" | "liveness"
    verdict: str
    engine: str
    time_s: float = 0.0
    queries: int = 0
    reason: str | None = None
    scope: str | None = None  # what "holds" covers: all parameters, or the instances checked
    counterexample: Counterexample | None = None
    details: dict[str, object] = field(default_factory=dict)
    # ELTL class of the specification: propositional | reachability | nested safety | liveness
    formula_class: str | None = None
    # For a HOLDS: NOT_VACUOUS (a run meets the antecedents: ``vacuity_witness`` says which),
    # NO_ANTECEDENT (not an implication) or VACUITY_UNKNOWN (``vacuity_witness`` says why);
    # a vacuous pass is the verdict HOLDS_VACUOUSLY, with the reason. None: not asked.
    vacuity: str | None = None
    vacuity_witness: str | None = None
    # The SMT questions a HOLDS rests on (parametric and chc engines); never stored or printed,
    # only re-asked with --certify, whose outcome is ``certificate``.
    obligations: list[Obligation] = field(default_factory=list, repr=False)
    certificate: Certification | None = None
