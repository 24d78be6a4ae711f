"""The learned bot (mundus_net/bots/learned.py) and its training (mundus_net/rl/imitate.py,
mundus_net/tools/train.py): legal and deterministic play, its shipped weights read without
numpy, and a training run that the same seed repeats."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import subprocess
import sys
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from test_bots import Checked, blind_comparisons

from mundus_net.bots import load_bot
from mundus_net.bots.greedy import GreedyBot
from mundus_net.bots.learned import (
    FEATURES,
    LEARNED_PHASES,
    WEIGHTS_FILE,
    LearnedBot,
    Model,
    candidate_features,
    candidates,
    default_model,
    load_model,
    model_from_json,
)
from mundus_net.bots.search import SearchBot
from mundus_net.engine.decisions import Decision, MakeSet
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView
from mundus_net.rl.imitate import TEACHING, phase_list, sample_from_row, sample_to_row
from mundus_net.tools.games import Settings, play_chunk, without_cpu
from mundus_net.tools.runner import play_game
from mundus_net.tools.train import play_teacher_games, teach_chunk, teacher_settings, train

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("players", "seed"), [(4, 1), (3, 2), (2, 3), (5, 4)])
def test_learned_bot_always_answers_legally(players: int, seed: int) -> None:
    """A whole game with a learned bot (seeing its view through a proxy that refuses private
    names) among greedy bots: every answer is legal and the game ends."""
    bots = [Checked(LearnedBot(seed) if s == 0 else GreedyBot(seed + s))
            for s in range(players)]
    game = play_game(Game.new(players, seed, promo=seed == 2), bots)
    assert game.is_over
    assert bots[0].decisions > 0


def test_learned_bot_is_deterministic_for_a_seed() -> None:
    def play() -> list[Any]:
        bots: list[Any] = [LearnedBot(5), LearnedBot(6), GreedyBot(1), GreedyBot(2)]
        return play_game(Game.new(4, 12), bots).log

    assert play() == play()


def test_learned_bot_decisions_do_not_depend_on_hidden_information() -> None:
    bots: list[Any] = [LearnedBot(9), *(GreedyBot(30 + s) for s in range(3))]
    assert blind_comparisons(Game.new(4, 21), bots, random.Random(11), lambda: LearnedBot(9),
                             last_round=4) > 10


def test_learned_bot_is_registered_and_takes_a_weights_file(tmp_path: Path) -> None:
    assert isinstance(load_bot("learned", 3), LearnedBot)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(default_model().to_json()), encoding="utf-8")
    bot = load_bot(f"learned:weights={path}", 3)
    assert isinstance(bot, LearnedBot)
    assert bot.model.columns == default_model().columns


def test_the_weights_ship_with_the_package() -> None:
    """The weights are package data (pyproject.toml), read through importlib.resources, a
    few MB at most, and describe a trained model (its meta names the command)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert "data/*.json" in config["tool"]["setuptools"]["package-data"]["mundus_net.bots"]
    shipped = resources.files("mundus_net.bots").joinpath("data", WEIGHTS_FILE)
    assert shipped.is_file()
    assert len(shipped.read_bytes()) < 3_000_000
    model = load_model()
    assert len(model.columns) == FEATURES
    assert str(model.meta["command"]).startswith("mundus train")


def test_a_damaged_weights_file_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="not a mundus-net learned bot"):
        model_from_json({"format": "something else"})
    good = default_model().to_json()
    with pytest.raises(ValueError, match="features"):
        model_from_json({**good, "features": FEATURES + 1})
    with pytest.raises(ValueError, match="shapes"):
        model_from_json({**good, "b1": [0.0]})
    with pytest.raises(ValueError, match="phases"):
        model_from_json({**good, "phases": ["turn", "dance"]})


def test_the_network_chooses_only_in_the_phases_it_learned() -> None:
    """Weights that learned no phase play as greedy with the same seed, decision for
    decision; the shipped ones name the phases they learned."""
    plain = dataclasses.replace(default_model(), phases=())
    learned = LearnedBot(4)
    learned.model = plain
    with_learned = play_game(Game.new(4, 17), [learned, *(GreedyBot(s) for s in (5, 6, 7))])
    with_greedy = play_game(Game.new(4, 17), [GreedyBot(4), *(GreedyBot(s) for s in (5, 6, 7))])
    assert with_learned.log == with_greedy.log
    assert set(default_model().phases) <= set(LEARNED_PHASES)
    assert phase_list("turn, announce") == ("turn", "announce")
    with pytest.raises(ValueError, match="not 'turn,dance'"):
        phase_list("turn,dance")


def test_the_model_scores_as_its_network() -> None:
    """score(x) = w2 . tanh(W1 x + b1), with W1 kept by input feature."""
    model = Model(((1.0, 0.0), (0.5, -1.0)), (0.0, 0.25), (2.0, 1.0), {})
    x = [0.5, 2.0]
    expected = 2.0 * math.tanh(0.5 * 1.0 + 2.0 * 0.5) + 1.0 * math.tanh(0.25 - 2.0)
    assert model.score(x) == pytest.approx(expected)


@pytest.mark.network
def test_the_learned_bot_plays_without_numpy() -> None:
    """A process in which numpy cannot be imported loads the learned bot from the shipped
    weights and plays a game with it."""
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from mundus_net.bots import load_bot\n"
        "from mundus_net.engine.game import Game\n"
        "from mundus_net.tools.runner import play_game\n"
        "bots = [load_bot('learned', 1), load_bot('greedy', 2), load_bot('greedy', 3)]\n"
        "g = play_game(Game.new(3, 5), bots)\n"
        "assert g.is_over\n"
        "assert 'numpy' not in {m for m in sys.modules if sys.modules[m] is not None}\n"
        "print('ok')\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def first_candidates(bot: LearnedBot, wanted: Callable[[PlayerView, list[Decision]], bool]
                     ) -> tuple[PlayerView, list[Decision]]:
    """Play seed 3's game with ``bot`` in every seat up to the first decision ``wanted``
    picks; that decision's view and its candidates (greedy's choice first)."""
    game = Game.new(4, 3)
    while not game.is_over:
        seat = game.waiting_seats()[0]
        legal = game.legal(seat)
        view = PlayerView(game, seat)
        if wanted(view, legal):
            choice = bot.greedy.decide(view, legal)
            return view, candidates(view.phase, legal, choice, bot.greedy.scored)
        game.apply(seat, bot.decide(view, legal))
    pytest.fail("no such decision in the game")


def test_candidate_features_describe_each_candidate_from_the_view() -> None:
    bot = LearnedBot(1)
    view, cands = first_candidates(
        bot, lambda view, legal: len(legal) > 2 and view.phase == "take")
    xs = candidate_features(view, cands, bot.greedy.scored)
    assert len(xs) == len(cands) and all(len(x) == FEATURES for x in xs)
    assert xs[0] != xs[-1]


def test_a_set_is_described_by_the_development_it_reaches() -> None:
    """In a progression turn, each candidate set names the development at its target: its
    kind, its income and greedy's value of it, also against the best in reach."""
    bot = LearnedBot(1)
    view, cands = first_candidates(
        bot, lambda view, legal: (view.phase == "turn"
                                  and sum(isinstance(d, MakeSet) for d in legal) > 1))
    context = bot.greedy.context(view)
    described = candidate_features(view, cands, bot.greedy.scored, context)
    bare = candidate_features(view, cands, bot.greedy.scored)
    sets = [i for i, d in enumerate(cands)
            if isinstance(d, MakeSet) and 1 <= d.target <= len(context.qv)]
    assert len(sets) > 1
    for i in sets:
        assert described[i] != bare[i]
        assert described[i][:-10] == bare[i][:-10]


# -- training ---------------------------------------------------------------------------------


def taught_search(seed: int, iterations: int | None = None) -> SearchBot:
    """The search bot with the teacher's settings (a bot file's factory)."""
    return SearchBot(seed, iterations, **TEACHING)


def test_the_teacher_plays_the_tournaments_search_games() -> None:
    """Game i of a training run searching every phase is game i of ``mundus tournament
    --bots TAUGHT,greedy,greedy,greedy`` with the same seed, TAUGHT the search bot with the
    teacher's settings (imitate.TEACHING, as in mundus train): the teacher
    plays as that search bot; the default run searches only progression turns."""
    settings = teacher_settings(8, iterations=1, phases="all")
    assert teacher_settings(8).bots[0] == "mundus_net.rl.imitate:Teacher:phases=turn"
    taught = teach_chunk(settings, 0, 2)
    plain = play_chunk(Settings((f"{__file__}:taught_search:iterations=1", "greedy", "greedy",
                                 "greedy"), 4, 8,
                                time_limit=None, strict=True), 0, 2)
    for row, other in zip(taught, plain, strict=True):
        assert row["samples"]
        for key in ("seating", "winners", "doubloons", "rounds", "decisions"):
            assert row[key] == other[key]
    sample = sample_from_row(taught[0]["samples"][0])
    assert sample_from_row(sample_to_row(sample)) == sample
    assert 0 <= sample.choice < sample.candidates
    assert len(sample.features) == 4 * FEATURES * sample.candidates


def test_a_tiny_training_run_is_repeated_by_its_seed(tmp_path: Path) -> None:
    """Two games, two epochs: the same seed writes the same file (weights and meta: it
    holds no time), another seed others, and a run that finds one game in its samples file
    plays only the second and ends the same."""
    def weights(seed: int, samples: Path | None = None, games: int = 2,
                read: int = 0) -> dict[str, Any]:
        data = train(games, seed, iterations=1, epochs=2, hidden=4,
                     samples_file=None if samples is None else str(samples))
        meta = data["meta"]
        assert meta["command"] == f"mundus train --games {games} --seed {seed} " \
                                  "--iterations 1 --epochs 2 --hidden 4"
        assert data["phases"] == ["turn"]
        assert meta["decisions"] > 0
        assert meta.pop("games_read_from_samples") == read
        return data

    first = weights(3)
    assert first == weights(3)
    assert first != weights(4)
    assert len(model_from_json({**first, "meta": {}}).b1) == 4
    kept = tmp_path / "samples.json"
    weights(3, kept, games=1)
    assert weights(3, kept, read=1) == first  # its meta: the same but for the games read
    with pytest.raises(ValueError, match="other games"):
        weights(5, kept, read=1)
    with pytest.raises(ValueError, match="temperature is 0 or more"):
        train(1, 3, temperature=-0.5)


@pytest.mark.network
def test_the_training_games_run_on_a_dask_cluster_with_the_same_samples() -> None:
    """``mundus train --scheduler``: the games and their samples from a local Dask cluster
    are those played here."""
    distributed = pytest.importorskip("distributed")
    settings = teacher_settings(8, iterations=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote = play_teacher_games(settings, 2, scheduler=cluster.scheduler_address)
    here = play_teacher_games(settings, 2)
    assert without_cpu(remote) == without_cpu(here)
    assert all(row["samples"] for row in here)
