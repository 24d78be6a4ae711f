"""Playing a whole game in-process: ask each waiting seat's bot until the game is over."""

from __future__ import annotations

from collections.abc import Sequence

from .bots.base import Bot
from .game import Game
from .view import PlayerView


def play_game(game: Game, bots: Sequence[Bot]) -> Game:
    """Run ``game`` to its end with ``bots[seat]`` deciding for each seat; return the game.

    Simultaneous decisions (offers, pirate discards) are asked seat by seat; the engine keeps
    each one secret until all are in, so the order of asking changes nothing.
    """
    if len(bots) != game.players:
        raise ValueError(f"{game.players} seats need {game.players} bots, not {len(bots)}")
    views = [PlayerView(game, seat) for seat in range(game.players)]
    while not game.is_over:
        for seat in game.waiting_seats():
            game.apply(seat, bots[seat].decide(views[seat], game.legal(seat)))
            break
    return game
