"""Progress of a long run of games (``mundus sim``, ``mundus tournament``): one helper for both.

On a terminal it is a tqdm bar (count, rate, time left) redrawn in place; into a log (standard
error not a terminal) it is a plain line every tenth of the run and at least every ``every``
seconds, so a log shows the run moving and never fills with carriage returns. The count is of
games finished in any order, and :meth:`ProgressReport.heartbeat` writes the line every
``every`` seconds even while no game finishes (slow bots).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from tqdm import tqdm

__all__ = ["Progress", "ProgressReport", "duration"]

Progress = Callable[[int, int], None]


class ProgressReport:
    """Call it with ``(done, total)`` after each game; it decides what to show."""

    def __init__(self, stream: TextIO, label: str, *, tty: bool | None = None,
                 every: float = 30.0, clock: Callable[[], float] = time.monotonic,
                 redraw_s: float = 0.1) -> None:
        self.stream = stream
        self.label = label
        self.tty = stream.isatty() if tty is None else tty
        self.every = every
        self.clock = clock
        self.start = clock()
        self.last = -math.inf
        self.last_step = 0
        self.redraw_s = redraw_s  # the bar is redrawn at most this often
        self._bar: tqdm[None] | None = None
        self.done = 0
        self.total = 0
        self._lock = threading.Lock()  # the heartbeat thread writes too

    def __call__(self, done: int, total: int) -> None:
        with self._lock:
            self.done, self.total = done, total
            if self.tty:
                self._draw(done, total)
                return
            now = self.clock()
            step = 10 * done // max(total, 1)
            if done < total and step == self.last_step and now - self.last < self.every:
                return
            self.last, self.last_step = now, step
            self._line(now)

    def tick(self) -> None:
        """Write the line if none was written for ``every`` seconds (and the run is on)."""
        with self._lock:
            now = self.clock()
            if self.tty or not self.total or self.done >= self.total or \
                    now - self.last < self.every:
                return
            self.last = now
            self._line(now)

    @contextlib.contextmanager
    def heartbeat(self, check_s: float = 1.0) -> Iterator[None]:
        """While inside, a thread calls :meth:`tick` every ``check_s`` seconds."""
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(check_s):
                self.tick()

        thread = threading.Thread(target=beat, name="progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5)

    def _line(self, now: float) -> None:
        done, total = self.done, self.total
        rate = done / max(now - self.start, 1e-9)
        eta = (total - done) / rate if rate > 0 else math.inf
        self.stream.write(f"{self.label}: {done}/{total} games ({done / max(total, 1):.0%}), "
                          f"{rate:.1f} games/s, {duration(now - self.start)} elapsed, "
                          f"ETA {duration(eta)}\n")
        self.stream.flush()

    def _draw(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = tqdm(total=total, file=self.stream, desc=self.label, unit="game",
                             dynamic_ncols=True, leave=False, mininterval=self.redraw_s,
                             miniters=1)
        self._bar.update(done - self._bar.n)
        if done >= total:
            self._bar.close()
            self._bar = None


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``2h07m``; ``?`` when not known."""
    if not math.isfinite(seconds):
        return "?"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"
