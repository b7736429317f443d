"""Progress of a long command (``check``, ``verify``), shown the same way by both: which item is
being worked on, k of N, and the time elapsed.

Why a module of its own: a run of the corpus takes minutes, and what a user sees of it must be
true. The item shown is the one *started* and not yet finished (never the last finished one);
no ETA is given, since one property's check takes milliseconds and the next minutes (an
estimate from the mean would be a guess). Two displays:

- ``Lines``: one plain line per started and per finished item (and, verbose, per engine note),
  for a log or CI (stderr is not a terminal): ``tactl: [3/12] checking strb: unforg ...`` then
  ``tactl: [3/12] strb: unforg: HOLDS (0.41 s; cache miss; 5.2 s elapsed)``;
- ``Live``: a status line on a terminal, redrawn by rich (the current item, k of N, elapsed
  time, the item's own time), with every finished item printed above it.

Engines take a plain ``Callable[[str], None]`` (their notes, e.g. each depth of the lock-step
diameter search); a ``Progress`` is one, so it travels through the same parameter, and
``started``/``finished`` fall back to a plain note for any other callable.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, TextIO

Note = Callable[[str], None]


@dataclass
class Progress:
    """Plain lines on ``stream`` (the base display: the one for logs). ``verbose`` adds the
    engines' notes (each query, each diameter depth); without it only items start and finish."""

    stream: TextIO | None = None
    verbose: bool = False
    total: int = 0  # N: items announced so far
    done: int = 0
    clock: Callable[[], float] = time.monotonic
    _started: float = field(default=0.0, init=False)
    _current: dict[str, float] = field(default_factory=dict, init=False)  # item -> its start
    _numbers: dict[str, int] = field(default_factory=dict, init=False)  # item -> k
    _verbs: dict[str, str] = field(default_factory=dict, init=False)  # item -> what is done to it
    _stepping: str = field(default="", init=False)  # a step begun inside the current item

    def __post_init__(self) -> None:
        self._started = self.clock()

    # the engines' channel: a note (shown when verbose)
    def __call__(self, message: str) -> None:
        if self.verbose:
            self._line(message)

    def phase(self, total: int) -> None:
        """A new series of ``total`` items (verify: reading the algorithms, then checking their
        properties); k counts from 1 again."""
        self.total, self.done = total, 0
        self._current.clear()
        self._numbers.clear()

    def start(self, item: str, verb: str = "checking") -> None:
        self._current[item] = self.clock()
        self._numbers[item] = len(self._numbers) + 1
        self._verbs[item] = verb
        self._began(f"{self._count(item)} {verb} {item} ...")

    def finish(self, item: str, outcome: str, how: str = "") -> None:
        """``item`` is done with ``outcome`` (e.g. ``HOLDS``); ``how`` adds to its time (``cache
        hit``). An item finished without a start (a cache hit) counts too."""
        begun = self._current.pop(item, None)
        if item not in self._numbers:
            self._numbers[item] = len(self._numbers) + 1
        k = self._count(item)
        self.done += 1
        said = [f"{self.clock() - begun:.2f} s"] if begun is not None else []
        said += [how] if how else []
        said.append(f"{self.elapsed():.1f} s elapsed")
        self._line(f"{k} {item}: {outcome} ({'; '.join(said)})")

    def step(self, text: str) -> None:
        """A step inside the current item, always shown (each depth of the lock-step diameter
        search: minutes on the largest automata); ``text`` ending in ``...`` is a step begun."""
        if text.endswith("..."):
            self._stepping = text
            self._began(text)
        else:
            self._stepping = ""
            self._line(text)

    def elapsed(self) -> float:
        return self.clock() - self._started

    def stop(self) -> None:
        """The end of the run (a live display clears its line)."""

    def _count(self, item: str) -> str:
        k = self._numbers.get(item) or self.done + 1
        return f"[{k}/{max(self.total, k)}]"

    def _began(self, text: str) -> None:
        self._line(text)

    def _line(self, text: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(f"tactl: {text}\n")
        stream.flush()


class Live(Progress):
    """A status line on a terminal: the item being worked on (the oldest one not finished, when
    several run in parallel), k of N, elapsed time; finished items are printed above it."""

    def __init__(self, verbose: bool = False, console=None) -> None:
        super().__init__(None, verbose)
        # lazy: rich takes tens of ms to import; only a progress display on a terminal uses it
        from rich.console import Console

        self.console = console or Console(stderr=True, highlight=False)
        self.status = self.console.status(self._status_text(), spinner="dots")
        self._lock = threading.Lock()
        self._ticker = threading.Thread(target=self._tick, daemon=True)
        self._running = True
        self.status.start()
        self._ticker.start()

    def _status_text(self) -> str:
        elapsed = _clock_text(self.elapsed())
        step = f" · {self._stepping}" if self._stepping else ""
        if not self._current:
            done = f"{self.done}/{self.total} done" if self.total else "working"
            return f"{done}{step} · {elapsed} elapsed"
        item, begun = next(iter(self._current.items()))
        more = f" (+{len(self._current) - 1} running)" if len(self._current) > 1 else ""
        return (f"{self._count(item)} {self._verbs.get(item, '')} {item}{more}{step} · this item {_clock_text(self.clock() - begun)}"
                f" · {elapsed} elapsed")

    def _tick(self) -> None:
        while self._running:
            time.sleep(0.5)
            with self._lock:
                if self._running:
                    self.status.update(self._status_text())

    def _began(self, text: str) -> None:  # the status line shows it
        with self._lock:
            self.status.update(self._status_text())

    def _line(self, text: str) -> None:
        with self._lock:
            self.console.print(text, markup=False)
            self.status.update(self._status_text())

    def stop(self) -> None:
        with self._lock:
            self._running = False
            self.status.stop()


def _clock_text(seconds: float) -> str:
    minutes, s = divmod(int(seconds), 60)
    return f"{minutes}:{s:02d}"


def display(show: bool, terminal: bool, verbose: bool = False) -> Progress | None:
    """The progress display of a command: none (``--no-progress``, ``-q``), a live line on a
    terminal, plain lines otherwise."""
    if not show:
        return None
    return Live(verbose) if terminal else Progress(verbose=verbose)


def step(progress: Note | None, text: str) -> None:
    """A step inside an item (always shown): ``Progress.step``, or the text for another callable."""
    if isinstance(progress, Progress):
        progress.step(text)
    elif progress:
        progress(text)


def phase(progress: Note | None, total: int) -> None:
    if isinstance(progress, Progress):
        progress.phase(total)


def started(progress: Note | None, item: str, fallback: str, verb: str = "checking") -> None:
    """``item`` starts: a ``Progress`` counts it, another callable gets ``fallback``."""
    if isinstance(progress, Progress):
        progress.start(item, verb)
    elif progress:
        progress(fallback)


def finished(progress: Note | None, item: str, outcome: str, how: str = "", fallback: str = "") -> None:
    """``item`` is done: a ``Progress`` counts it, another callable gets ``fallback`` (if any)."""
    if isinstance(progress, Progress):
        progress.finish(item, outcome, how)
    elif progress and fallback:
        progress(fallback)
