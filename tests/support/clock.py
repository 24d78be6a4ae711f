"""The one fake clock of the tests: the code under test reads it, the test moves it."""

from __future__ import annotations


class FakeClock:
    """A clock that moves only when the test says so: ``clock()`` is :attr:`now`. Give it to a
    Table (``clock=``), a progress report or a core's ``now`` arguments; set :attr:`now` or
    call :meth:`advance` to let time pass."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        """Move on ``seconds`` and say the new time."""
        self.now += seconds
        return self.now
