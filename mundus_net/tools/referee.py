"""Playing a game in-process with bots that may fail: the referee.

:func:`play_refereed` runs a game to its end like :func:`mundus_net.tools.runner.play_game`,
asking the seats in the same order (so well-behaved bots play exactly the same game), but a bot
that fails is *charged the default decision*
(:func:`mundus_net.engine.defaults.default_decision`) instead of stopping the game. A failure is
one of:

``error``
    ``decide`` raised an exception (any ``Exception``; ``KeyboardInterrupt`` still stops).
``illegal``
    ``decide`` returned something the engine refuses (``RuleError``), or no decision at all.
``timeout``
    ``decide`` used more than the time limit, measured in the CPU time of the thread that
    runs it (``time.thread_time``): a loaded machine slows the wall clock, not the bot's own
    work, so the same seed gives the same faults. In-process a bot cannot be pre-empted, so
    the answer is waited for, measured, and thrown away if it came too late.

Every failure is returned as a :class:`Fault` (an ``error`` with its traceback).
:func:`referee` answers once for a whole game with a :class:`Refereed`: the result, the faults,
the decisions each seat was asked and their CPU times, and the record (:func:`record_of` turns
the game and its faults into a :class:`~mundus_net.engine.record.GameRecord` whose charged
decisions say ``by="default"`` and whose ``violations`` list the faults).
docs/bots.md describes the rules for bot writers.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mundus_net.bots.base import Bot, bot_traceback, load_bot
from mundus_net.engine.decisions import DECISION_TYPES, Decision, RuleError
from mundus_net.engine.defaults import default_decision
from mundus_net.engine.game import OVER, SIMULTANEOUS, Game, Result
from mundus_net.engine.record import GameRecord
from mundus_net.engine.view import PlayerView

__all__ = [
    "FAULT_KINDS", "BrokenBot", "Fault", "Refereed", "fault_counts", "fault_rows", "make_bot",
    "play_refereed", "record_of", "referee"
]

FAULT_KINDS = ("error", "illegal", "timeout")
_DECISION_TYPES = frozenset(DECISION_TYPES)


@dataclass(frozen=True, slots=True)
class Fault:
    """One failed decision: the default was played instead."""

    seat: int
    kind: str  # one of FAULT_KINDS
    phase: str  # the game's phase when the seat was asked
    round: int
    number: int  # 0-based index of the decision among the game's non-automatic decisions
    detail: str  # the exception, the refused decision, or the time taken
    traceback: str | None = None  # an ``error``'s traceback, from the bot's decide down
    seat_number: int | None = None  # 0-based index of the decision among its seat's

    @property
    def reason(self) -> str:
        return f"{self.kind}: {self.detail}"

    def to_dict(self) -> dict[str, object]:
        """As a record's violation (docs/record.md): no traceback."""
        return {"seat": self.seat, "kind": self.kind, "phase": self.phase, "round": self.round,
                "decision": self.number, "reason": self.reason}


class BrokenBot:
    """Stands in for a bot whose factory failed: every decision it is asked is an ``error``
    fault (so the game goes on with the default decisions)."""

    def __init__(self, spec: str, error: BaseException) -> None:
        self.problem = f"cannot make bot {spec!r}: {type(error).__name__}: {error}"

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        raise RuntimeError(self.problem)


def make_bot(spec: str, seed: int) -> Bot:
    """``load_bot(spec, seed)``, or a :class:`BrokenBot` if making that bot raises (an unknown
    spec is reported by ``load_bot`` when the tournament is set up, before any game)."""
    try:
        return load_bot(spec, seed)
    except Exception as exc:
        return BrokenBot(spec, exc)


@dataclass(frozen=True, slots=True)
class Refereed:
    """The referee's one answer for a game played to its end: everything a row or a record
    of the game is made from."""

    game: Game  # the finished game (its log makes the record)
    result: Result
    faults: tuple[Fault, ...]  # in the order they happened
    asked: tuple[int, ...]  # per seat, the decisions it was asked
    cpu: tuple[tuple[float, ...], ...]  # per seat, the clock time of each decision returned

    def fault_rows(self) -> tuple[list[dict[str, object]], list[str]]:
        """The faults as JSON rows and their distinct tracebacks (:func:`fault_rows`)."""
        return fault_rows(self.faults)

    def fault_counts(self) -> list[dict[str, int]]:
        """Per seat, how many faults of each kind (:func:`fault_counts`)."""
        return fault_counts(self.faults, self.game.players)

    def cpu_ms(self) -> list[list[float]]:
        """Per seat, each decision's CPU time in ms, rounded to microseconds."""
        return [[round(1000 * t, 3) for t in times] for times in self.cpu]

    def record(self, game_id: str, names: list[str],
               meta: dict[str, object] | None = None) -> GameRecord:
        """The game's record with its faults (:func:`record_of`)."""
        return record_of(self.game, game_id, names, self.faults, meta=meta)


def referee(game: Game, bots: Sequence[Bot], *, time_limit: float | None = None,
            strict: bool = False, clock: Callable[[], float] = time.thread_time) -> Refereed:
    """Play ``game`` to its end as :func:`play_refereed` does, measuring every decision, and
    answer once with a :class:`Refereed`."""
    asked = [0] * game.players
    cpu: list[list[float]] = [[] for _ in range(game.players)]
    faults = play_refereed(game, bots, time_limit=time_limit, strict=strict, clock=clock,
                           asked=asked, cpu=cpu)
    if game.result is None:  # pragma: no cover - play_refereed returns at the end only
        raise RuntimeError("the refereed game did not end")
    return Refereed(game, game.result, tuple(faults), tuple(asked),
                    tuple(tuple(times) for times in cpu))


def play_refereed(game: Game, bots: Sequence[Bot], *, time_limit: float | None = None,
                  strict: bool = False, clock: Callable[[], float] = time.thread_time,
                  asked: list[int] | None = None,
                  cpu: list[list[float]] | None = None) -> list[Fault]:
    """Run ``game`` to its end with ``bots[seat]`` deciding for each seat; charge the default
    decision for every failed decision (see the module docstring) and return the faults in
    the order they happened. ``time_limit`` is in seconds of ``clock`` per decision (None: no
    limit; the clock is the thread's CPU time). ``asked``, if given, receives how many
    decisions each seat was asked; ``cpu``, if given, each seat's list of the ``clock`` time
    of every decision that returned (the time the limit is checked against). Each bot with
    an ``on_game_end(view)`` method is told the end (its view has the result); a failure
    there is a fault of the last decision's number, charged nothing.

    With ``strict``, a failed decision is not charged but raised: the bot's own exception,
    the engine's RuleError for an illegal decision, TypeError for something that is not a
    decision (``mundus sim``: a bug in a bot stops the run with its traceback)."""
    if len(bots) != game.players:
        raise ValueError(f"{game.players} seats need {game.players} bots, not {len(bots)}")
    views = [PlayerView(game, seat) for seat in range(game.players)]
    deciders = [bot.decide for bot in bots]
    limit = float("inf") if time_limit is None else time_limit
    timed = time_limit is not None or cpu is not None
    collector = _CollectorTime(clock) if timed else None
    try:
        return _play(game, bots, views, deciders, limit, collector, strict, clock, asked, cpu)
    finally:
        if collector is not None:
            collector.close()


class _CollectorTime:
    """The ``clock`` time spent in the garbage collector so far. A decision is not charged
    the collector's pauses: when they come depends on what the whole process allocated
    before (other bots, other games, ``--jobs``), not on the bot."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.total = 0.0
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = self.clock()
        else:
            self.total += self.clock() - self._started

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._callback)


def _play(game: Game, bots: Sequence[Bot], views: list[PlayerView],
          deciders: Sequence[Callable[[PlayerView, Sequence[Decision]], Decision]],
          limit: float,
          collector: _CollectorTime | None, strict: bool, clock: Callable[[], float],
          asked: list[int] | None, cpu: list[list[float]] | None) -> list[Fault]:
    legal_of, apply = game.legal, game.apply
    faults: list[Fault] = []
    number = 0  # decisions applied so far (every one is a real choice: auto ones are not ours)
    while game.phase != OVER:
        phase = game.phase
        seat = game.waiting_seats()[0] if phase in SIMULTANEOUS else game.active
        legal = legal_of(seat)
        kind = detail = ""
        trace: str | None = None
        if asked is not None:
            asked[seat] += 1
        start = clock() - collector.total if collector is not None else 0.0
        try:
            decision = deciders[seat](views[seat], legal)
        except (Exception, SystemExit) as exc:  # sys.exit() in a bot is the bot's error
            if strict:
                raise
            kind, detail = "error", f"{type(exc).__name__}: {exc}"
            trace = bot_traceback(exc)
        else:
            took = clock() - collector.total - start if collector is not None else 0.0
            if cpu is not None:
                cpu[seat].append(took)
            if took > limit:
                # Not the time measured: it varies from run to run, and the same seed must
                # give the same rows.
                kind, detail = "timeout", f"used more than {limit:g} s of CPU time"
            elif type(decision) not in _DECISION_TYPES:
                if strict:
                    raise TypeError(f"seat {seat}'s bot answered {decision!r}, not a decision")
                kind, detail = "illegal", f"not a decision: {decision!r}"
            else:
                try:
                    apply(seat, decision)  # a refused decision leaves the game untouched
                except RuleError as err:
                    if strict:
                        raise
                    kind, detail = "illegal", f"{decision!r}: {err}"
                except Exception as exc:  # malformed fields the engine trips over
                    if strict:
                        raise
                    kind, detail = "illegal", f"{decision!r}: {type(exc).__name__}: {exc}"
        if kind:
            faults.append(Fault(seat, kind, phase, game.round, number, detail, trace,
                                asked[seat] - 1 if asked is not None else None))
            apply(seat, default_decision(game, seat))
        number += 1
    for seat, bot in enumerate(bots):
        told = getattr(bot, "on_game_end", None)
        if told is None:
            continue
        try:
            told(views[seat])
        except (Exception, SystemExit) as exc:
            if strict:
                raise
            faults.append(Fault(seat, "error", OVER, game.round, max(0, number - 1),
                                f"on_game_end: {type(exc).__name__}: {exc}",
                                bot_traceback(exc)))
    return faults


def fault_rows(faults: Sequence[Fault]) -> tuple[list[dict[str, object]], list[str]]:
    """The faults as JSON rows, and their distinct tracebacks: each row's ``traceback`` is an
    index into that list (a bot failing the same way in every decision stores its traceback
    once per game), or None."""
    texts: dict[str, int] = {}
    rows: list[dict[str, object]] = []  # decision: in the game; seat_decision: the seat's
    for fault in faults:
        index = None if fault.traceback is None else texts.setdefault(fault.traceback,
                                                                     len(texts))
        rows.append({**fault.to_dict(), "seat_decision": fault.seat_number,
                     "traceback": index})
    return rows, list(texts)


def fault_counts(faults: Sequence[Fault], players: int) -> list[dict[str, int]]:
    """Per seat, how many faults of each kind (only the kinds that happened)."""
    counts: list[dict[str, int]] = [{} for _ in range(players)]
    for fault in faults:
        counts[fault.seat][fault.kind] = counts[fault.seat].get(fault.kind, 0) + 1
    return counts


def record_of(game: Game, game_id: str, names: list[str], faults: Sequence[Fault] = (),
              meta: dict[str, object] | None = None) -> GameRecord:
    """The game's record: decisions by ``bot``, or ``default`` where a fault was charged; the
    faults as ``violations`` (with the decision's number)."""
    record = GameRecord.from_game(game, game_id, names)
    charged = {fault.number for fault in faults if fault.phase != OVER}  # not on_game_end
    record.decisions = [type(d)(d.seat, d.decision, "default" if i in charged else "bot")
                        for i, d in enumerate(record.decisions)]
    record.violations = [fault.to_dict() for fault in faults]
    if meta:
        record.meta.update(meta)
    return record
