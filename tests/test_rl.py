"""The environments for learning agents (docs/rl.md): PettingZoo's and Gymnasium's own API
checks, the fixed action space and its mask, an observation that shows nothing hidden,
seeded resets, rewards and illegal actions."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from mundus_net.bots.base import load_bot  # noqa: E402 - after the skips
from mundus_net.engine.decisions import ChooseFirst, EndTurn, Offer, Take  # noqa: E402
from mundus_net.engine.game import OVER, SIMULTANEOUS, Game  # noqa: E402
from mundus_net.engine.view import PlayerView, StateView  # noqa: E402
from mundus_net.rl.actions import ActionSpace  # noqa: E402
from mundus_net.rl.aec import MundusAEC  # noqa: E402
from mundus_net.rl.observation import LiveObserver, Observer  # noqa: E402
from mundus_net.rl.single import MundusEnv  # noqa: E402
from mundus_net.rl.table import Table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _random_game(seed: int, players: int = 4) -> Game:
    """A game played by random and greedy bots to its end."""
    game = Game.new(players, seed, promo=seed % 2 == 0)
    bots = [load_bot("random" if s % 2 else "greedy", seed + s) for s in range(players)]
    while game.phase != OVER:
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    return game


# -- PettingZoo's and Gymnasium's own checks ------------------------------------------------------


def test_the_aec_environment_passes_pettingzoos_api_test() -> None:
    from pettingzoo.test import api_test  # type: ignore[import-untyped]

    with pytest.warns(UserWarning):  # a dict observation (with its mask), as in PettingZoo's
        api_test(MundusAEC(3, round_limit=2), num_cycles=400)  # classic games


def test_the_gymnasium_environment_passes_gymnasiums_env_checker() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import mundus_net.rl  # registers the id

    check_env(MundusEnv(3, round_limit=2, render_mode="ansi"), skip_render_check=False)
    made = gymnasium.make(mundus_net.rl.ENV_ID, players=2, round_limit=1)
    observation, _ = made.reset(seed=1)
    assert made.observation_space.contains(observation)


# -- the action space ---------------------------------------------------------------------------


def test_the_action_space_is_fixed_and_documented() -> None:
    space = ActionSpace()
    assert len(space) == 9496
    assert space.decisions[space.index(EndTurn(), 0, 4) or 0] == EndTurn()
    assert space.index(EndTurn(), 0, 4) == 6492
    assert space.index(Offer(()), 0, 4) == 3386
    doc = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    for line in space.describe():  # the table in docs/rl.md is this one
        assert re.sub(r"\s+", " ", line.strip()) in re.sub(r"\s+", " ", doc)


def test_seats_in_decisions_count_from_the_acting_seat() -> None:
    space = ActionSpace()
    take = space.index(Take(3, 5, None), 1, 4)  # seat 3 is two seats after seat 1
    assert take is not None and space.decisions[take] == Take(2, 5, None)
    assert space.decision(take, 1, 4) == Take(3, 5, None)
    assert space.decision(take, 3, 4) == Take(1, 5, None)
    first = space.index(ChooseFirst(0), 2, 3)
    assert first is not None and space.decision(first, 2, 3) == ChooseFirst(0)


def test_the_mask_marks_exactly_the_legal_decisions() -> None:
    """Over whole games: every masked index is a legal decision, and every legal decision
    has an index (the bounds of actions.py are never reached in these games)."""
    space = ActionSpace()
    for seed in range(6):
        players = 2 + seed % 5
        game = Game.new(players, seed, promo=seed % 2 == 0)
        bots = [load_bot("greedy" if s % 2 else "random", s) for s in range(players)]
        while game.phase != OVER:
            seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
            legal = game.legal(seat)
            indexes = space.legal_indexes(legal, seat, players)
            assert len(indexes) == len(legal)
            assert all(space.decision(i, seat, players) == d for i, d in indexes.items())
            game.apply(seat, bots[seat].decide(PlayerView(game, seat), legal))


def test_the_table_mask_is_the_legal_indexes_as_an_int8_vector() -> None:
    """Table.mask (a bytearray for short legal lists, an index array for long ones) equals
    the mask built from the legal indexes, on whole seeded games of 2-6 players; long lists
    (beyond the byte-by-byte path's bound) occur in them too."""
    from mundus_net.rl import table as table_module
    long_lists = 0
    for seed in range(10):
        players = 2 + seed % 5
        table = table_module.Table(players)
        table.new_game(seed)
        rng = random.Random(seed)
        while (seat := table.to_move()) is not None:
            legal = table.legal_actions(seat)
            expected = np.zeros(len(table.actions), dtype=np.int8)
            expected[list(legal)] = 1
            mask = table.mask(seat)
            assert mask.dtype == np.int8 and mask.flags.writeable
            assert np.array_equal(mask, expected)
            assert not table.mask(None).any()
            long_lists += len(legal) > table_module._SHORT_LEGAL
            choices = list(legal)
            table.play(seat, choices[rng.randrange(len(choices))])
    assert long_lists > 0


# -- observations -------------------------------------------------------------------------------


def test_the_observation_shows_nothing_the_seat_may_not_see() -> None:
    """Change what seat 0 cannot see (the other hands, the piles' order): its observation
    stays the same; change its own hand: it does not."""
    game = Game.new(4, 7)
    bots = [load_bot("greedy", s) for s in range(4)]
    for _ in range(60):  # into the game
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    observer = Observer(game.deck)
    before = observer.observe(PlayerView(game, 0))
    other = game.copy()
    a, b = other.hands[1], other.hands[2]
    x = next(v for v in range(11) if a[v] and not b[v])  # swap a card x of 1 and y of 2
    y = next(v for v in range(11) if b[v] and v != x)
    a[x], a[y], b[x], b[y] = a[x] - 1, a[y] + 1, b[x] + 1, b[y] - 1
    random.Random(1).shuffle(other.draw)
    random.Random(2).shuffle(other.devpile)
    assert np.array_equal(observer.observe(PlayerView(other, 0)), before)
    mine = game.copy()
    v = next(v for v in range(1, 11) if mine.hands[0][v])
    mine.hands[0][v] -= 1
    mine.hands[0][v % 10 + 1] += 1
    assert not np.array_equal(observer.observe(PlayerView(mine, 0)), before)
    # The environments' observer, which reads the game itself, no more.
    assert np.array_equal(LiveObserver(observer, other).observe(0), before)
    assert not np.array_equal(LiveObserver(observer, mine).observe(0), before)


def test_the_observation_is_the_same_from_a_snapshot_of_the_view() -> None:
    """The observer reads the view's count vectors (``hand_counts``, ``known_counts``...):
    the live PlayerView and a StateView over its plain snapshot give the same numbers, at
    every step of a game, so the vector holds only what the snapshot (the seat's view) has."""
    game = Game.new(4, 12)
    bots = [load_bot("greedy", s) for s in range(4)]
    views = [PlayerView(game, s) for s in range(4)]
    observer, reference = Observer(game.deck), Observer(game.deck)
    steps = 0
    while game.phase != OVER:
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        snapshot = StateView(views[seat].to_dict(), game.deck)
        assert np.array_equal(observer.observe(views[seat]), reference.observe(snapshot))
        game.apply(seat, bots[seat].decide(views[seat], game.legal(seat)))
        steps += 1
    assert steps > 200


@pytest.mark.parametrize(("players", "seed", "strategy"),
                         [(2, 1, "random"), (3, 2, "greedy"), (4, 3, "random"),
                          (5, 4, "greedy"), (6, 5, "random")])
def test_the_live_observations_equal_the_views_at_every_step(players: int, seed: int,
                                                             strategy: str) -> None:
    """The environments' observer keeps each seat's vector and rewrites only what changed:
    at every step of whole games, for the acting seat and one other, it gives what the
    seat's view gives (promo cards in odd seeds)."""
    game = Game.new(players, seed, promo=seed % 2 == 1)
    live = LiveObserver(Observer(game.deck), game)
    reference = Observer(game.deck)
    views = [PlayerView(game, s) for s in range(players)]
    bots = [load_bot(strategy, seed * 10 + s) for s in range(players)]
    steps = 0
    while game.phase != OVER:
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        for s in (seat, (seat + steps) % players):
            assert np.array_equal(live.observe(s), reference.observe(views[s])), (steps, s)
        game.apply(seat, bots[seat].decide(views[seat], game.legal(seat)))
        steps += 1
    for s in range(players):
        assert np.array_equal(live.observe(s), reference.observe(views[s]))
    assert steps > 100


def test_every_observation_is_in_its_space_over_whole_games() -> None:
    env = MundusAEC(5)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    space = env.observation_space("seat_0")
    for _agent in env.agent_iter():
        observation, _, done, truncated, _ = env.last()
        assert space.contains(observation)
        env.step(None if done or truncated
                 else int(rng.choice(np.flatnonzero(observation["action_mask"]))))


# -- resets, rewards, illegal actions -----------------------------------------------------------


def _play_aec(seed: int, reward: str = "win") -> tuple[list[bytes], dict[str, float]]:
    env = MundusAEC(3, reward=reward)
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    seen, totals = [], dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward_now, done, truncated, _ = env.last()
        totals[agent] += reward_now
        seen.append(observation["observation"].tobytes())
        env.step(None if done or truncated
                 else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return seen, totals


def test_a_seeded_reset_deals_the_same_game() -> None:
    assert _play_aec(11)[0] == _play_aec(11)[0]
    assert _play_aec(11)[0] != _play_aec(12)[0]
    env = MundusEnv(3, ("greedy", "random"))
    first = [env.reset(seed=4)[0]["observation"].tobytes() for _ in range(2)]
    assert first[0] == first[1]


def test_win_rewards_are_zero_sum_and_doubloon_rewards_add_up() -> None:
    _, totals = _play_aec(5)
    assert sorted(totals.values())[-1] > 0 and abs(sum(totals.values())) < 1e-9
    env = MundusEnv(2, ("random",), seat=0, reward="doubloons")
    observation, _ = env.reset(seed=2)
    total, over = 0.0, False
    info: dict[str, Any] = {}
    rng = np.random.default_rng(2)
    while not over:
        observation, reward, over, _, info = env.step(
            int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        total += float(reward)
    win = (1.0 / len(info["winners"])) if 0 in info["winners"] else -1.0
    assert total == pytest.approx(info["doubloons"][0] / 75 + win)


def test_an_illegal_action_plays_the_default_and_says_why() -> None:
    env = MundusEnv(2, ("random",), seat=0, round_limit=1)
    observation, _ = env.reset(seed=9)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, _, _, info = env.step(illegal)
    assert "is not legal for seat 0 now" in info["illegal_action"]
    assert float(reward) <= -0.1 + 1.0  # the penalty (and at most a win)


def test_render_shows_the_seat_its_hand() -> None:
    env = MundusEnv(3, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text is not None and "round 1" in text and f"seat {env.seat} hand" in text


def test_the_remembered_legal_indexes_equal_the_computed_ones_over_many_games() -> None:
    """legal_indexes keeps each decision object's index by its id: at every step of many
    seeded games, for every seat asked, it gives what index_of computes afresh (and a copy of
    the list, other objects, gives the same)."""
    space = ActionSpace.for_deck(Game.new(2).deck)
    for seed in range(16):
        players = 2 + seed % 5
        game = Game.new(players, seed, promo=seed % 3 == 0)
        bots = [load_bot("random", seed * 10 + s) for s in range(players)]
        while game.phase != OVER:
            seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
            legal = game.legal(seat)
            expected = {i: d for d in legal
                        if (i := space.index_of(d, seat, players)) is not None}
            # in the legal list's order too (the environments list the indexes in it)
            found = space.legal_indexes(legal, seat, players)
            assert list(found.items()) == list(expected.items())
            assert all(found[i] is d for i, d in expected.items())
            assert list(space.legal_indexes(legal, seat, players).items()) == list(
                expected.items())  # the second time, from the remembered pairs
            copies = [type(d)(*d) for d in legal]
            assert list(space.legal_indexes(copies, seat, players).items()) == list(
                expected.items())
            game.apply(seat, bots[seat].decide(PlayerView(game, seat), legal))


def test_the_tables_legal_indexes_and_the_decisions_it_plays_are_the_computed_ones() -> None:
    """The table maps a legal list to a list of indexes (no dictionary per step): at every
    step of seeded games it lists what index_of computes, in the legal list's order, equal
    to the keys of legal_actions, and playing an index applies the decision listed for it."""
    for seed in range(8):
        players = 2 + seed % 5
        table = Table(players, promo=seed % 3 == 0)
        table.new_game(seed)
        rng = random.Random(seed)
        while (seat := table.to_move()) is not None:
            legal = table.game.legal(seat)
            expected = [i for d in legal
                        if (i := table.actions.index_of(d, seat, players)) is not None]
            assert table.legal_indexes(seat) == expected == list(table.legal_actions(seat))
            index = rng.choice(expected)
            chosen = table.legal_actions(seat)[index]
            assert table.play(seat, index) is chosen


def test_rewards_are_the_last_steps_only_around_illegal_actions() -> None:
    """The AEC environment skips writing all-zero rewards again; an illegal action's
    penalty is still that step's reward only, and the next step's rewards are zero again."""
    env = MundusAEC(3)
    env.reset(seed=4)
    rng = random.Random(4)
    steps = 0
    for agent in env.agent_iter():
        obs, _, done, truncated, info = env.last()
        if done or truncated:
            env.step(None)
            continue
        illegal = steps % 5 == 0
        action = (int(np.flatnonzero(obs["action_mask"] == 0)[0]) if illegal
                  else rng.choice(info["legal_actions"]))
        env.step(action)
        steps += 1
        if not env.table.over:
            expected = dict.fromkeys(env.agents, 0.0)
            if illegal:
                expected[agent] = -env.illegal_penalty
            assert env.rewards == expected
    assert steps > 100


def test_the_live_observations_equal_the_views_when_seats_look_at_random_moments() -> None:
    """The live observer writes only what changed since a seat's last look (the takes and
    the discard pile since then, the seats whose counts changed): seats looking after
    irregular gaps, over many seeded games (reshuffles and trade steps included), see what
    their views give."""
    reshuffles = 0
    for seed in range(10):
        players = 2 + seed % 5
        game = Game.new(players, seed, promo=seed % 2 == 1)
        live = LiveObserver(Observer(game.deck), game)
        reference = Observer(game.deck)
        views = [PlayerView(game, s) for s in range(players)]
        bots = [load_bot("random", seed * 7 + s) for s in range(players)]
        gaps = random.Random(seed)
        while game.phase != OVER:
            for s in range(players):
                if gaps.random() < 0.3:
                    assert np.array_equal(live.observe(s), reference.observe(views[s]))
            seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
            game.apply(seat, bots[seat].decide(views[seat], game.legal(seat)))
        reshuffles += game.reshuffles
    assert reshuffles  # the discard pile was replaced at least once
