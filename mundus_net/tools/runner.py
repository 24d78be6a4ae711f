"""Playing a whole game in-process with one bot per seat: the referee's loop, strict."""

from __future__ import annotations

from collections.abc import Sequence

from mundus_net.bots.base import Bot
from mundus_net.engine.game import Game
from mundus_net.tools.referee import play_refereed

__all__ = ["play_game"]


def play_game(game: Game, bots: Sequence[Bot]) -> Game:
    """Run ``game`` to its end with ``bots[seat]`` deciding for each seat; return the game.

    One loop serves every in-process game (:func:`~mundus_net.tools.referee.play_refereed`);
    here a bot that fails raises instead of being charged the default decision.
    Simultaneous decisions (offers, pirate discards) are asked seat by seat; the engine keeps
    each one secret until all are in, so the order of asking changes nothing.
    """
    play_refereed(game, bots, strict=True)
    return game
