"""A run's configurations kept sparsely: the first in full, then what each position changed.

Why: a replayed run of ``n`` steps over an automaton of ``L`` locations used to hold ``n`` whole
configurations of ``L`` counters — ``n·L`` to build, and quadratic when the run passes through
every location (a chain of ``L`` stages has about ``L`` steps). Recorded here, a position costs
what its step changed (a step moves processes between two locations and updates a few shared
variables); the value of a name at a position is a binary search among that name's changes; and
a configuration is built in full only when something reads it whole (a printed counterexample),
going forward from the last one built. ``tactl.engines.simulate.Configuration.recorded`` wraps a
position as an ordinary configuration.

Counters and shared variables share one namespace here, as in a configuration's environment
(``Configuration.env``): the automaton's reader refuses a name declared twice.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping


class RecordedRun:
    """The configurations at positions ``0 .. len - 1``; :meth:`append` adds the next one."""

    def __init__(self, counters: Mapping[str, int], shared: Mapping[str, int]) -> None:
        self._counters0 = dict(counters)   # the first configuration, in its own order
        self._shared0 = dict(shared)
        self.first: dict[str, int] = {**self._shared0, **self._counters0}
        self.now: dict[str, int] = dict(self.first)     # the values at the last position
        self.shared_names: tuple[str, ...] = tuple(self._shared0)
        self._changed: list[dict[str, int]] = [{}]      # per position: the names it changed
        self._history: dict[str, tuple[list[int], list[int]]] = {}   # name -> positions, values
        self._built: tuple[int, dict[str, int], dict[str, int]] | None = None

    def __len__(self) -> int:
        return len(self._changed)

    def append(self, values: Mapping[str, int]) -> int:
        """A new last position: the last one with ``values`` (some names' new values); its index."""
        position = len(self._changed)
        changed = {name: v for name, v in values.items() if self.now.get(name) != v}
        for name, v in changed.items():
            positions, history = self._history.setdefault(name, ([], []))
            positions.append(position)
            history.append(v)
        self.now.update(changed)
        self._changed.append(changed)
        return position

    def value(self, name: str, position: int) -> int:
        """The value of counter or shared variable ``name`` at ``position`` (KeyError: none such)."""
        found = self._history.get(name)
        if found is None:
            return self.first[name]
        if position >= len(self._changed) - 1:
            return self.now[name]
        index = bisect_right(found[0], position) - 1
        return found[1][index] if index >= 0 else self.first[name]

    def changed_between(self, before: int, after: int) -> bool:
        """Whether some value at ``after`` differs from ``before`` (``before <= after``)."""
        names = {name for changed in self._changed[before + 1:after + 1] for name in changed}
        return any(self.value(name, before) != self.value(name, after) for name in names)

    def changes(self, size: int) -> dict[str, list[int]]:
        """For each name, the ascending positions ``1 .. size - 1`` where its value differs from
        the position before (what ``tactl.engines.simulate.lasso_holds`` takes as ``changes``)."""
        out: dict[str, list[int]] = {}
        for name, (positions, _) in self._history.items():
            cut = positions if not positions or positions[-1] < size else positions[:bisect_right(positions, size - 1)]
            if cut:
                out[name] = cut
        return out

    def view(self, position: int, parameters: Mapping[str, int]) -> PositionView:
        return PositionView(self, position, parameters)

    def full(self, position: int) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
        """The counters and shared values at ``position``, in full (the first configuration's order)."""
        if not 0 <= position < len(self._changed):
            raise IndexError(position)
        if self._built is None or self._built[0] > position:
            self._built = (0, dict(self._counters0), dict(self._shared0))
        at, counters, shared = self._built
        for changed in self._changed[at + 1:position + 1]:
            for name, v in changed.items():
                if name in counters:
                    counters[name] = v
                else:
                    shared[name] = v
        self._built = (position, counters, shared)
        return tuple(counters.items()), tuple(shared.items())


class PositionView(Mapping):
    """The environment at one position (parameters, shared variables, counters; the later win,
    as in ``Configuration.env``), read through the record instead of copied."""

    __slots__ = ("_run", "_position", "_parameters")

    def __init__(self, run: RecordedRun, position: int, parameters: Mapping[str, int]) -> None:
        self._run, self._position, self._parameters = run, position, parameters

    def __getitem__(self, name: str) -> int:
        if name in self._run.first:
            return self._run.value(name, self._position)
        return self._parameters[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._parameters
        yield from (name for name in self._run.first if name not in self._parameters)

    def __len__(self) -> int:
        return len(self._parameters) + sum(1 for name in self._run.first if name not in self._parameters)
