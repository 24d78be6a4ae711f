"""The built-in bots decide as a function of their seed and the question (issue 13, item 10):
a fresh bot asked a question again, as a host resumed from its log asks it, answers as the
first one did, whatever each was asked before."""

from __future__ import annotations

import pytest

from mundus_net.bots.base import load_bot
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView


def _questions(seed: int, limit: int = 400) -> list[tuple[Game, int]]:
    """(a copy of the game, the seat asked) at each decision of a seeded random game."""
    game = Game.new(4, seed=seed)
    players = [load_bot("random", 100 + s) for s in range(4)]
    out: list[tuple[Game, int]] = []
    while not game.is_over and len(out) < limit:
        pending = game.pending
        assert pending is not None
        seat = pending.seats[0]
        out.append((game.copy(), seat))
        game.apply(seat, players[seat].decide(PlayerView(game, seat), game.legal(seat)))
    return out


@pytest.mark.parametrize("strategy", ["random", "greedy", "cautious"])
def test_a_fresh_bot_answers_a_question_again_the_same_way(strategy: str) -> None:
    spec = "examples.cautious_bot:CautiousBot" if strategy == "cautious" else strategy
    questions = _questions(seed=3)
    played = load_bot(spec, 7)  # has answered every question before, in order
    first = [played.decide(PlayerView(g, s), g.legal(s)) for g, s in questions]
    for index in range(0, len(questions), 37):  # a fresh bot, asked one question only
        game, seat = questions[index]
        fresh = load_bot(spec, 7)
        assert fresh.decide(PlayerView(game, seat), game.legal(seat)) == first[index], index
