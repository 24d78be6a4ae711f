"""What both environments share: a game, the seats' views, the numbered actions and the
observations, and the rewards (docs/rl.md)."""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from mundus_net.engine.decisions import Decision, RuleError
from mundus_net.engine.deck import Deck, default_deck
from mundus_net.engine.defaults import default_decision
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import OVER, SIMULTANEOUS, WIN_DOUBLOONS, Game
from mundus_net.engine.view import PlayerView
from mundus_net.rl.actions import ActionSpace
from mundus_net.rl.observation import HIGH, LiveObserver, Observer

__all__ = ["REWARDS", "IllegalAction", "Table"]

REWARDS: Final = ("win", "doubloons")
# Legal lists up to this long get their mask set one byte at a time (Table.mask).
_SHORT_LEGAL: Final = 32
# The mask's dtype, made once and passed by position (observation._FLOAT32 says why).
_INT8: Final = np.dtype(np.int8)


class IllegalAction(MundusError, ValueError):
    """An action that is not legal now (its index is 0 in the mask); the game is unchanged."""


class Table:
    """A game seen through the numbered actions and the observation vectors."""

    def __init__(self, players: int, *, promo: bool = False, round_limit: int | None = None,
                 deck: Deck | None = None, reward: str = "win") -> None:
        if not 2 <= players <= 6:
            raise ValueError(f"a game has 2 to 6 players, not {players}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.players = players
        self.promo = promo
        self.round_limit = round_limit
        self.deck = deck if deck is not None else default_deck()
        self.reward = reward
        self.actions = ActionSpace.for_deck(self.deck)
        self.observer = Observer(self.deck)
        self.game = Game.new(players, 0, promo=promo, round_limit=round_limit, deck=self.deck)
        self.live = LiveObserver(self.observer, self.game)
        self.views = self.live.views
        self._money = [0] * players
        self._paid = False  # the end's reward was given
        # (seat, the engine's legal list, its index_list, that without the -1s): the legal
        # list last mapped, kept while the engine's list stays the same object.
        self._legal_cache: tuple[int, list[Decision], list[int], list[int]] | None = None
        self.defaults_played = 0  # legal lists with no numbered decision (actions.py)

    def new_game(self, seed: int) -> None:
        self.game = Game.new(self.players, seed, promo=self.promo, round_limit=self.round_limit,
                             deck=self.deck)
        self.live = LiveObserver(self.observer, self.game)
        self.views = self.live.views
        self._money = [0] * self.players
        self._paid = False

    @property
    def over(self) -> bool:
        return self.game.phase == OVER

    def legal_actions(self, seat: int) -> dict[int, Decision]:
        """index -> decision of every numbered legal decision of ``seat`` now."""
        cached = self._mapped(seat)
        found = dict(zip(cached[2], cached[1], strict=True))
        found.pop(-1, None)
        return found

    def legal_indexes(self, seat: int) -> list[int]:
        """The indexes of ``seat``'s numbered legal decisions now, in the engine's order
        (the keys of :meth:`legal_actions`; the list is the table's: copy it to keep it)."""
        return self._mapped(seat)[3]

    def _mapped(self, seat: int) -> tuple[int, list[Decision], list[int], list[int]]:
        """``seat``'s legal list now and its indexes (kept while the engine's legal list
        stays the same object: the engine makes a new one when the state changes)."""
        legal = self.game.legal(seat)
        cached = self._legal_cache
        if cached is not None and cached[0] == seat and cached[1] is legal:
            return cached
        indexes = self.actions.index_list(legal, seat, self.players)
        numbered = [i for i in indexes if i >= 0] if -1 in indexes else indexes
        cached = self._legal_cache = (seat, legal, indexes, numbered)
        return cached

    def to_move(self) -> int | None:
        """The seat asked now (the first of those a simultaneous step waits for), or None
        once the game is over. A legal list without a numbered decision (beyond the
        action space's bounds) is played with the engine's default here, and counted."""
        game = self.game
        while game.phase != OVER:
            seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
            if self._mapped(seat)[3]:
                return seat
            game.apply(seat, default_decision(game, seat))
            self.defaults_played += 1
        return None

    def mask(self, seat: int | None) -> np.ndarray:
        if seat is None or self.over:
            return np.zeros(len(self.actions), _INT8)
        legal = self._mapped(seat)[3]
        if len(legal) > _SHORT_LEGAL:
            mask = np.zeros(len(self.actions), _INT8)
            mask[np.fromiter(legal, dtype=np.intp, count=len(legal))] = 1
            return mask
        # A short list (most steps) set byte by byte in a bytearray: no index array to make
        # (0.5-0.6 us against 1.1-1.2 us for 3-12 indexes).
        marks = bytearray(len(self.actions))
        for index in legal:
            marks[index] = 1
        return np.frombuffer(marks, _INT8)

    def observe(self, seat: int) -> np.ndarray:
        return self.live.observe(seat)

    def play(self, seat: int, action: int) -> Decision:
        """Play action ``action`` for ``seat`` (IllegalAction if it is not legal now)."""
        index = int(action)
        cached = self._legal_cache  # the legal actions just listed: the decision is there
        if (index >= 0 and cached is not None and cached[0] == seat
                and cached[1] is self.game.legal(seat) and index in cached[2]):
            legal = cached[1][cached[2].index(index)]
            self.game.apply(seat, legal)
            return legal
        if not 0 <= index < len(self.actions):
            raise IllegalAction(f"action {action} is not in 0..{len(self.actions) - 1}")
        decision = self.actions.decision(int(action), seat, self.players)
        try:
            self.game.apply(seat, decision)
        except RuleError as err:
            raise IllegalAction(f"action {action} ({decision!r}) is not legal for seat "
                                f"{seat} now: {err}") from None
        return decision

    def play_or_default(self, seat: int, action: int) -> str | None:
        """Play the action; if it is not legal, the engine's default decision instead (as a
        failing bot is charged, docs/bots.md). None, or why the action was refused."""
        try:
            self.play(seat, action)
        except IllegalAction as exc:
            self.game.apply(seat, default_decision(self.game, seat))
            return str(exc)
        return None

    def rewards(self) -> list[float]:
        """Each seat's reward for what happened since the last call: with ``reward="win"``
        only at the end (the winners share +1, the others share -1: a zero-sum game);
        with ``"doubloons"`` also every doubloon won or lost, divided by 75."""
        out = [0.0] * self.players
        if self.reward == "doubloons":
            money = self.game.doubloons
            for s in range(self.players):
                out[s] = (money[s] - self._money[s]) / WIN_DOUBLOONS
            self._money = list(money)
        result = self.game.result
        if result is not None and not self._paid:
            self._paid = True
            winners = set(result.winners)
            losers = self.players - len(winners)
            for s in range(self.players):
                out[s] += 1 / len(winners) if s in winners else (-1 / losers if losers else 0)
        return out

    def render_text(self, seat: int | None = None) -> str:
        """A few lines on the game, as ``seat`` may see it (None: public parts only)."""
        g = self.game
        view = self.views[seat] if seat is not None else PlayerView(g, None)
        lines = [f"round {g.round}, {g.phase}" + (f", event {g.event}" if g.event else "")
                 + f", trade master seat {g.tm}",
                 "doubloons " + " ".join(f"{s}:{d}" for s, d in enumerate(view.doubloons)),
                 f"market {list(view.market)} queue {list(view.queue)}"]
        if seat is not None:
            lines.append(f"seat {seat} hand {list(view.hand)} stored {list(view.stored)}")
        if g.result is not None:
            lines.append(f"over: winners {list(g.result.winners)} ({g.result.reason})")
        return "\n".join(lines)

    def spaces(self) -> dict[str, Any]:
        """The observation and action spaces (gymnasium's)."""
        from gymnasium import spaces

        return {
            "observation": spaces.Dict({
                "observation": spaces.Box(0.0, HIGH, (self.observer.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (len(self.actions),), np.int8),
            }),
            "action": spaces.Discrete(len(self.actions)),
        }
