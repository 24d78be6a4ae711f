"""Playing a whole game in-process: ask each waiting seat's bot until the game is over."""

from __future__ import annotations

from collections.abc import Sequence

from mundus_net.bots.base import Bot
from mundus_net.engine.game import OVER, SIMULTANEOUS, Game
from mundus_net.engine.view import PlayerView


def play_game(game: Game, bots: Sequence[Bot]) -> Game:
    """Run ``game`` to its end with ``bots[seat]`` deciding for each seat; return the game.

    Simultaneous decisions (offers, pirate discards) are asked seat by seat; the engine keeps
    each one secret until all are in, so the order of asking changes nothing.
    """
    if len(bots) != game.players:
        raise ValueError(f"{game.players} seats need {game.players} bots, not {len(bots)}")
    views = [PlayerView(game, seat) for seat in range(game.players)]
    deciders = [bot.decide for bot in bots]
    legal, apply = game.legal, game.apply  # bound once: this loop is the benchmark's hot path
    while game.phase != OVER:
        # The seat to ask: the active one, or in a simultaneous step the first still to decide
        # (waiting_seats() builds a tuple: too dear to call for every decision).
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        apply(seat, deciders[seat](views[seat], legal(seat)))
    return game
