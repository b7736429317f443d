"""How long making a counterexample minimal may take, per property.

Once the parametric engine's first ``sat`` answer has decided a violation, everything it does
next only makes the counterexample smaller to read: the small-sum re-queries and the
lexicographic minimisation of the parameters (``tactl.engines.parametric``,
``tactl.engines.minimal_params``) and the breadth-first search for a shortest schedule
(``tactl.engines.shortest``). On large automata that work cost several times the check itself,
so by default it may spend at most as long as the check took to reach its verdict (with a floor,
so that small checks stay minimal); then it stops, keeps the best counterexample found so far
(still replayed by the simulator) and says why it is not shown minimal. ``check --minimize``
asks for the full search (no budget).

Time is CPU time of this process (z3 runs in it), so that the budget does not shrink on a loaded
machine; z3's own timeout is wall-clock, so a query gets the CPU seconds left scaled by the
wall-per-CPU ratio measured up to the verdict. The budget is set per property by
``tactl.engines.check`` (:func:`per_property`); engines called without one search in full, as
before.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

# The least budget (CPU seconds): a check that reaches its verdict quickly still gets its
# counterexample minimised, which on small automata (the corpus's mutants, the documentation's
# examples) takes a fraction of this; each violated property may spend it, so it stays small.
FLOOR_S = 0.25
# The budget as a multiple of the CPU time the check took to reach its verdict.
FACTOR = 1.0
FULL_SEARCH = "--minimize"


@dataclass
class Budget:
    """One property's minimisation budget: opened at the verdict (:meth:`verdict_known`)."""

    factor: float
    floor_s: float
    started_cpu: float = field(default_factory=time.process_time)
    started_wall: float = field(default_factory=time.perf_counter)
    allowance_s: float | None = None  # CPU seconds, set at the verdict (cut by :meth:`expire`)
    granted_s: float = 0.0  # the allowance as set at the verdict (what the note says)
    opened_cpu: float = 0.0
    wall_per_cpu: float = 1.0
    spent: bool = False  # some minimisation step was cut short or skipped

    def verdict_known(self) -> None:
        """The verdict is decided: from now on the work only makes the run smaller. Idempotent
        (a second branch's or a re-query's verdict does not reopen the budget)."""
        if self.allowance_s is not None:
            return
        cpu = time.process_time() - self.started_cpu
        wall = time.perf_counter() - self.started_wall
        self.allowance_s = self.granted_s = max(self.floor_s, self.factor * cpu)
        self.opened_cpu = time.process_time()
        self.wall_per_cpu = max(1.0, wall / cpu) if cpu > 0 else 1.0

    def used_s(self) -> float:
        return 0.0 if self.allowance_s is None else time.process_time() - self.opened_cpu

    def left_s(self) -> float:
        """CPU seconds left (the whole allowance before the verdict is known)."""
        if self.allowance_s is None:
            self.verdict_known()
        assert self.allowance_s is not None
        return max(0.0, self.allowance_s - self.used_s())

    def exhausted(self) -> bool:
        return self.left_s() <= 0.0

    def wall_limit_s(self) -> float:
        """The timeout (wall seconds) to give the next solver query."""
        return self.left_s() * self.wall_per_cpu

    def expire(self) -> None:
        """A query cut short by the budget's timeout: the budget counts as spent (the wall
        timeout converts CPU seconds only approximately)."""
        if self.allowance_s is not None:
            self.allowance_s = min(self.allowance_s, self.used_s())

    def stop(self) -> str | None:
        """Why the minimisation must stop now (the budget is spent), else None. The first such
        answer says how long it ran and what asks for the full search; later ones (the schedule
        after the parameters, say) only that the same budget was spent."""
        if not self.exhausted():
            return None
        first = not self.spent
        self.spent = True
        if not first:
            return "the minimisation budget was spent"
        return (f"the minimisation budget was spent: stopped after {self.used_s():.2f} s CPU of "
                f"{self.granted_s:.2f} s (as long as the check took to reach its verdict, at least "
                f"{self.floor_s:g} s); {FULL_SEARCH} for the full search")


# The budget of the property being checked, per thread of control (a context variable, so that
# checks run side by side in threads never share one); None: the full search.
_current: ContextVar[Budget | None] = ContextVar("minimisation_budget", default=None)


def current() -> Budget | None:
    """The budget of the property being checked; None: the full search."""
    return _current.get()


@contextmanager
def per_property(full: bool) -> Iterator[Budget | None]:
    """A budget for one property's check (``full``: none, the full search), started now, of
    :data:`FACTOR` times the time to the verdict, at least :data:`FLOOR_S` (read here, so that a
    test can set a budget of 0)."""
    token = _current.set(None if full else Budget(FACTOR, FLOOR_S))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def stop() -> str | None:
    """Why the minimisation must stop now under the current budget (None: go on)."""
    budget = _current.get()
    return budget.stop() if budget is not None else None


def verdict_known() -> None:
    budget = _current.get()
    if budget is not None:
        budget.verdict_known()


def wall_limit_s(limit_s: float | None) -> tuple[float | None, bool]:
    """``limit_s`` (a query's own cap, None: none) capped by the current budget, and whether
    the budget is the tighter cap (a query that then gives no answer spent it: :meth:`Budget.expire`)."""
    budget = _current.get()
    if budget is None:
        return limit_s, False
    left = budget.wall_limit_s()
    if limit_s is not None and limit_s <= left:
        return limit_s, False
    return left, True


def expire() -> None:
    budget = _current.get()
    if budget is not None:
        budget.expire()
