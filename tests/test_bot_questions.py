"""The built-in bots decide as a function of their seed and the question (issue 13, item 10):
a fresh bot asked a question again, as a host resumed from its log asks it, answers as the
first one did, whatever each was asked before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mundus_net.bots import base
from mundus_net.bots.base import load_bot, question_seed
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView, StateView

ROOT = Path(__file__).resolve().parent.parent


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


def _question_seeds(seed: int) -> list[int]:
    return [question_seed(7, PlayerView(g, s), g.legal(s)) for g, s in _questions(seed, 120)]


def test_the_question_seed_is_the_same_in_a_process_with_another_hash_seed() -> None:
    """The seed hashes integers only: PYTHONHASHSEED (which moves str hashes) leaves it."""
    code = ("import sys; sys.path.insert(0, 'tests'); from test_bot_questions import "
            "_question_seeds; print(_question_seeds(5))")
    for hash_seed in ("1", "2"):
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True, timeout=120,
                             env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == str(_question_seeds(5))


def test_the_question_seed_with_its_digest_cache_equals_it_computed_afresh() -> None:
    """Each end of the legal list is digested once per decision object: over many seeded
    games the seed equals the one computed with an empty cache, and the one of the same
    question asked over the wire (a StateView, whose decisions are other objects)."""
    for seed in range(12):
        for game, seat in _questions(seed, 250):
            view, legal = PlayerView(game, seat), game.legal(seat)
            cached = base.question_seed(3, view, legal)
            base._DIGESTS.clear()
            base._DIGESTED.clear()
            assert base.question_seed(3, view, legal) == cached
            wire = StateView(view.to_dict(), game.deck, [type(d)(*d) for d in legal])
            assert base.question_seed(3, wire, wire.legal) == cached
