"""The typed state of one Promela → receive automaton translation, filled stage by stage.

Each stage of ``passes/pml_to_rta/`` is a set of functions over this one record: the
declarations (``declarations.py``) fill the symbol tables, the receive variables
(``receives.py``) the message types and the fault model's inputs, the exploration
(``explore.py``, walking the step with ``walk.py``) the locations and rules, and the properties
(``properties.py``) read them all. The helpers of the fault model (``faults.py``) and of crashes
(``crash.py``) read and extend it too. A field is meaningful once the stage that sets it has run
(the order is ``translation.run``'s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tactl.ir.errors import Diagnostic, Span
from tactl.ir.expr import Expr
from tactl.ir.promela import syntax as P
from tactl.ir.rta.model import ReceiveRule
from tactl.ir.ta.model import Location
from tactl.passes.pml_to_rta.multi import ReceiveVar


@dataclass(frozen=True)
class CrashCopy:
    """A crash location that keeps what the properties read of a crashed process: its name, the
    crash valuations it stands for and their meaning (``passes/pml_to_rta/crash_copies.py``)."""

    name: str
    valuations: tuple[tuple, ...]
    meaning: str


@dataclass
class TranslationState:
    m: P.PromelaModel
    notes: list[Diagnostic] = field(default_factory=list)

    # --- declarations (declarations.py): the symbol tables
    defines: dict[str, int] = field(default_factory=dict)  # macro -> value: names the locations
    params: list[str] = field(default_factory=list)
    shared: dict[str, Span | None] = field(default_factory=dict)  # send counters
    assumes: list[Expr] = field(default_factory=list)  # the file's assumptions on parameters
    proc: P.Proctype | None = None
    locals: dict[str, int] = field(default_factory=dict)  # local -> declared value
    local_span: dict[str, Span | None] = field(default_factory=dict)
    local_type: dict[str, str] = field(default_factory=dict)  # declared types: widths.py checks the values
    init_if: P.If | None = None  # the initial choice of locations
    init_atomics: list[P.Atomic] = field(default_factory=list)  # run once by every process before 'end:'
    step: tuple[P.Stmt, ...] = ()  # the body of 'end: do :: atomic { ... } od'
    shared_env: dict[str, int] | None = None  # concrete counters (while evaluating the initialisation)
    init_values: dict[str, int] = field(default_factory=dict)  # counters the initialisation fixes

    # --- receive variables (receives.py) and the fault model
    rvars: list[ReceiveVar] = field(default_factory=list)
    rvar_of: dict[str, ReceiveVar] = field(default_factory=dict)  # rcv or next variable -> its receive
    choice_of: dict[int, ReceiveVar] = field(default_factory=dict)  # id of a receive choice
    havoc_of: dict[int, ReceiveVar] = field(default_factory=dict)  # id of a havoc statement (havoc.py)
    havoc_assumes: set[int] = field(default_factory=set)
    bound_of: dict[int, ReceiveVar] = field(default_factory=dict)  # id of a bound 'if'
    bound_ifs: set[int] = field(default_factory=set)
    props_by_name: dict[str, P.AtomicProp] = field(default_factory=dict)
    static: dict[str, int] = field(default_factory=dict)  # static counter -> the largest receive count
    rcv_var: str = ""  # the primary receive variable and its temporary
    next_var: str = ""
    bound: P.PExpr | None = None  # its bound B of next_x <= B
    bound_if: P.Stmt | None = None
    choice_if: P.Stmt | None = None
    choices: list[tuple[P.PExpr | None, int]] = field(default_factory=list)
    counters: list[str] = field(default_factory=list)  # the message types' send counters
    counter: str = ""  # the primary one
    bound_rest: dict[str, int] = field(default_factory=dict)  # B without the send counters
    crash_counter: str | None = None
    crash_of: dict[str, str] = field(default_factory=dict)  # crash-send counter -> its message (crash.py)
    file_crash: str | None = None  # the file's own crash counter (crash.file_crash_faults)
    reading: Any = None  # faults.FaultReading, when faults.fault_model read the model
    direct: bool = False  # no receive variable: guards read the shared counters (direct.py)
    kept_temporaries: set[str] = field(default_factory=set)  # next_* the step need not reset (temporaries.py)

    # --- exploration (explore.py, walk.py)
    z3: Any = None  # the z3 module and ir.linear's translation, loaded when exploring starts
    to_z3: Any = None
    syms: Any = None
    rc: list[Any] = field(default_factory=list)  # z3: the assumes and the receive counts' ranges
    paths: int = 0  # control states so far (walk.exec_seq), over the whole extraction
    obligations: list[tuple[str, object, list[Expr], Span | None]] = field(default_factory=list)
    global_assumes: list[P.AssumeStmt] = field(default_factory=list)  # faults.check_invariants
    stutter_at: set[tuple] = field(default_factory=set)
    stutter_lines: dict[tuple, set[int]] = field(default_factory=dict)  # the stutter paths' lines (waiting.py)
    reading_rules: set[int] = field(default_factory=set)  # ids of rules whose paths read a message (waiting.py)
    reset_at: dict[tuple, Span | None] = field(default_factory=dict)  # faults.at_bound
    start_counts: dict[tuple, dict[str, int]] = field(default_factory=dict)  # init-only counters per start
    init_only: list[str] = field(default_factory=list)
    valuations: list[tuple] = field(default_factory=list)  # the locations, as local valuations
    havoc_at: dict[str, set[tuple]] = field(default_factory=dict)  # counter -> locations whose steps receive it
    havoc_resets: dict[tuple, Span | None] = field(default_factory=dict)  # (src, dst, counter) -> the reset
    dead: tuple | None = None  # the valuation that is the crash location CR
    dead_all: tuple[tuple, ...] = ()  # several valuations that are CR (crash.py)
    # crash locations that keep the state, where properties tell crash valuations apart, and the
    # file's crash steps into them and between them (crash_copies.py)
    crash_copies: list[CrashCopy] = field(default_factory=list)
    crash_steps: list[tuple] = field(default_factory=list)
    crashed_steps: list[tuple] = field(default_factory=list)
    file_crash_paths: list[tuple] = field(default_factory=list)  # crash.crash_location's crash steps
    crash_paths: tuple[tuple, ...] = ()  # their reading for the file's fairness (crash_readings.py)
    crashed_moves: bool = False  # a crashed process may change its crash valuation (crash_copies.split_moves)

    # --- the automaton's parts (explore.name_locations, explore.explore)
    names: dict[tuple, str] = field(default_factory=dict)  # valuation -> location name
    locations: list[Location] = field(default_factory=list)
    initial: list[str] = field(default_factory=list)
    rules: list[ReceiveRule] = field(default_factory=list)
    stays: dict[str, Expr] | None = field(default_factory=dict)  # location -> its stutter paths' condition
    kept_counts: dict[int, tuple[str, ...]] = field(default_factory=dict)  # rule id -> counters no path of it receives (kept_counts.py)
    crashed_stutter: bool = False  # a crashed process may keep taking a step that changes nothing (kept_counts.py)
    crashed_kept: tuple[str, ...] = ()  # the counters that step never receives
    zeroed_counts: dict[int, tuple[str, ...]] = field(default_factory=dict)  # rule id -> counters it resets to 0
    stay_kept: dict[str, tuple[str, ...]] = field(default_factory=dict)  # location -> counters its stays never receive
    stay_zeroed: dict[str, tuple[str, ...]] = field(default_factory=dict)  # location -> counters its stays reset to 0 (crash_readings.py)
    static_steps: object = None  # static_steps.StaticSteps where the file has static counters
    fairness_agrees: bool = False  # the fairness block's delivery is the derived justice's (properties.py)

    # --- properties (propositions.py): a receive variable reads its declared value here
    receive_at_start: bool = False

    def loc_vars(self) -> list[str]:
        """The locals whose values are the locations (no receive variable, no temporary)."""
        return [v for v in self.locals if v not in self.rvar_of and not v.startswith("next_")]
