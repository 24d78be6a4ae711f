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
    ``decide`` answered after the time limit. In-process a bot cannot be pre-empted, so the
    answer is waited for, measured, and thrown away if it came too late.

Every failure is returned as a :class:`Fault`; :func:`record_of` turns the game and its faults
into a :class:`~mundus_net.engine.record.GameRecord` whose charged decisions say
``by="default"`` and whose ``violations`` list the faults. docs/bots.md describes the rules
for bot writers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mundus_net.bots.base import Bot, load_bot
from mundus_net.engine.decisions import DECISION_TYPES, Decision, RuleError
from mundus_net.engine.defaults import default_decision
from mundus_net.engine.game import OVER, SIMULTANEOUS, Game
from mundus_net.engine.record import GameRecord
from mundus_net.engine.view import PlayerView

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

    def to_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "kind": self.kind, "phase": self.phase, "round": self.round,
                "decision": self.number, "reason": f"{self.kind}: {self.detail}"}


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


def play_refereed(game: Game, bots: Sequence[Bot], *, time_limit: float | None = None,
                  strict: bool = False, clock: Callable[[], float] = time.perf_counter
                  ) -> list[Fault]:
    """Run ``game`` to its end with ``bots[seat]`` deciding for each seat; charge the default
    decision for every failed decision (see the module docstring) and return the faults in
    the order they happened. ``time_limit`` is in seconds per decision (None: no limit).

    With ``strict``, a failed decision is not charged but raised: the bot's own exception,
    the engine's RuleError for an illegal decision, TypeError for something that is not a
    decision (``mundus sim``: a bug in a bot stops the run with its traceback)."""
    if len(bots) != game.players:
        raise ValueError(f"{game.players} seats need {game.players} bots, not {len(bots)}")
    views = [PlayerView(game, seat) for seat in range(game.players)]
    deciders = [bot.decide for bot in bots]
    legal_of, apply = game.legal, game.apply
    faults: list[Fault] = []
    number = 0  # decisions applied so far (every one is a real choice: auto ones are not ours)
    limit = float("inf") if time_limit is None else time_limit
    timed = time_limit is not None
    while game.phase != OVER:
        phase = game.phase
        seat = game.waiting_seats()[0] if phase in SIMULTANEOUS else game.active
        legal = legal_of(seat)
        kind = detail = ""
        start = clock() if timed else 0.0
        try:
            decision = deciders[seat](views[seat], legal)
        except Exception as exc:
            if strict:
                raise
            kind, detail = "error", f"{type(exc).__name__}: {exc}"
        else:
            took = clock() - start if timed else 0.0
            if took > limit:
                kind, detail = "timeout", f"answered after {took:.3f} s (limit {limit:g} s)"
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
            faults.append(Fault(seat, kind, phase, game.round, number, detail))
            apply(seat, default_decision(game, seat))
        number += 1
    return faults


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
    charged = {fault.number for fault in faults}
    record.decisions = [type(d)(d.seat, d.decision, "default" if i in charged else "bot")
                        for i, d in enumerate(record.decisions)]
    record.violations = [fault.to_dict() for fault in faults]
    if meta:
        record.meta.update(meta)
    return record
