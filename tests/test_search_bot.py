"""Determinization (mundus_net.engine.determinize) and the search bot (mundus_net.bots.search)."""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest
from support.positions import assert_conserved
from test_bots import Checked, blind_comparisons

from mundus_net.bots import load_bot
from mundus_net.bots.greedy import GreedyBot, context_key
from mundus_net.bots.random_bot import RandomBot
from mundus_net.bots.search import (
    BUDGETS,
    BUILD,
    DEFAULT_WEIGHTS,
    EVALUATIONS,
    FITTED,
    MAX_ALL,
    NET_FILE,
    NET_INPUTS,
    PARTS,
    SEARCH_PHASES,
    SEAT_FILE,
    SearchBot,
    _Net,
    _PolicyBot,
    _rounds_left,
    fitted_features,
    look_ahead,
    net_inputs,
    offer_test,
    win_shares,
    worth_parts,
    worths,
)
from mundus_net.engine.cards import RELIC, RESOURCE_COUNTS, VALUES, from_counts, to_counts
from mundus_net.engine.decisions import Decision, Offer, SplitFleet
from mundus_net.engine.determinize import determinize, unseen_resources
from mundus_net.engine.game import (
    OFFER,
    OVER,
    PHASES,
    PIRATES,
    SIMULTANEOUS,
    STORE,
    TAKE,
    Game,
)
from mundus_net.engine.view import PlayerView, View
from mundus_net.tools.runner import play_game


def decision_points(players: int, seed: int, every: int = 5) -> Iterator[tuple[Game, int]]:
    """(live game, seat to decide) every few decisions of a game of greedy and random bots."""
    g = Game.new(players, seed, promo=seed % 2 == 1)
    bots: list[Any] = [GreedyBot(seed * 7 + s) if s % 2 == 0 else RandomBot(seed * 7 + s)
                       for s in range(players)]
    step = 0
    while not g.is_over:
        seat = g.waiting_seats()[0]
        if step % every == 0:
            yield g, seat
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
        step += 1


def _public(data: dict[str, Any], phase: str) -> dict[str, Any]:
    """A view snapshot without what a determinization may not reproduce: the known cards
    (read from the log) and, in a simultaneous step, which seats have fixed their (unseen)
    secret choice: the others', and the seat's own pirate discard or storage, which its view
    does not show (its offer is shown and kept). _check_determinization checks the rest."""
    out = dict(data)
    out.pop("known_hands", None)  # read from the log, which a determinized game lacks
    if phase in SIMULTANEOUS:
        for key in ("offered", "pirates_done", "store_done", "pending"):
            out.pop(key, None)
    return out


def _check_simultaneous(mine: PlayerView, view: PlayerView) -> None:
    """In a simultaneous step the determinized game asks again every seat whose secret
    choice is unseen: its waiting seats include the live ones, with the same constraints,
    and it waits for no seat the live step does not ask."""
    live, made = view.pending, mine.pending
    assert live is not None and made is not None and made.kind == live.kind
    assert set(live.seats) <= set(made.seats)
    if view.phase == OFFER:
        assert (view.seat in made.seats) == (view.seat in live.seats)  # its offer is kept
        return
    due = view.pirates_due if view.phase == PIRATES else view.store_due
    assert set(made.seats) == {s for s, k in enumerate(due) if k}  # everyone asked decides
    key = "counts" if view.phase == PIRATES else "capacity"
    assert made.detail[key] == {s: due[s] for s in made.seats}


def _check_determinization(g: Game, seat: int, deciding: bool, rng: random.Random) -> None:
    view = PlayerView(g, seat)
    d = determinize(view, rng)
    assert_conserved(d)
    mine = PlayerView(d, seat)
    assert _public(mine.to_dict(), g.phase) == _public(view.to_dict(), g.phase)
    if g.phase in SIMULTANEOUS:
        _check_simultaneous(mine, view)
    if deciding:
        assert d.legal(seat) == g.legal(seat)
    for s, cards in enumerate(view.known_hands):  # publicly seen cards are where they were seen
        assert all(d.hands[s][v] >= k for v, k in enumerate(to_counts(cards)))
    # The unseen cards went only to other seats' hands and warehouses and the draw pile.
    pool = unseen_resources(view)
    hidden = [0] * 11
    for s in range(g.players):
        if s == seat:
            continue
        for group in (d.hands, d.stored):
            for v in VALUES:
                hidden[v] += group[s][v]
        if s == d.active:
            for _, dst in d.converted:
                hidden[dst] -= 1  # shown converted: not one of the unseen cards
    for v in d.draw:
        hidden[v] += 1
    assert hidden == pool
    assert all(0 <= pool[v] <= RESOURCE_COUNTS[v] for v in VALUES)
    in_play = sorted(c.id for c in d.deck.for_players(g.players, d.options.promo))
    placed = sorted([*d.queue, *d.devpile, *(c for ids in d.devs for c in ids)])
    assert placed == in_play
    assert d.log == []


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (4, 4), (5, 5),
                                               (6, 6)])
def test_determinize_matches_the_view_and_conserves_every_card(players: int,
                                                               seed: int) -> None:
    """The determinized game shows the seat exactly what the view shows (its own legal
    choices included); the 120 resources and the developments in play are each somewhere
    exactly once; the unseen cards go only to other seats' hands and warehouses and to the
    draw pile. Checked for the deciding seat and for every waiting seat."""
    rng = random.Random(seed)
    checked = 0
    for g, deciding in decision_points(players, seed, every=2):
        for seat in range(players):
            _check_determinization(g, seat, seat == deciding, rng)
            checked += 1
    assert checked > 100


def test_determinize_a_first_edition_storage_step() -> None:
    """A view of a first-edition game (rules=1: each player stores at the end of his own
    turn) in its storage step determinizes to the same step: the storing seat is the active
    one, with the same choices, and the game plays on to its end."""
    rng = random.Random(4)
    found = 0
    for seed in range(1, 30):
        g = Game.new(4, seed, rules=1)
        bots = [GreedyBot(seed + s) for s in range(4)]
        while not g.is_over and found < 3:
            seat = g.waiting_seats()[0]
            if g.phase == STORE and len(g.legal(seat)) > 1:
                view = PlayerView(g, seat)
                assert view.store_due == ()
                d = determinize(view, rng)
                assert d.options.rules == 1 and d.active == seat
                assert d.waiting_seats() == (seat,) and d.legal(seat) == g.legal(seat)
                play_game(d, [GreedyBot(s) for s in range(4)])
                assert d.is_over
                assert_conserved(d)
                found += 1
            g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
        if found >= 3:
            break
    assert found == 3


def test_known_hands_are_a_lower_bound_of_the_hands() -> None:
    """PlayerView.known_hands (public: picks, buys, takes, offers returned) never claims a
    card a seat does not hold (converted cards count as what they were)."""
    shown = 0
    for players, seed in ((3, 2), (4, 3), (4, 4), (5, 5)):
        for g, _ in decision_points(players, seed, every=1):
            known = PlayerView(g, None).known_hands
            for s in range(players):
                natural = g.natural_counts(s) if s == g.active and g.converted else g.hands[s]
                assert all(natural[v] >= k for v, k in enumerate(to_counts(known[s])))
                shown += len(known[s])
    assert shown > 100


def test_determinized_games_play_on_to_their_end() -> None:
    """A determinized game is a legal state: bots play it to its end without an error."""
    rng = random.Random(7)
    played = 0
    for g, seat in decision_points(4, 8, every=23):
        d = determinize(PlayerView(g, seat), rng)
        bots: list[Any] = [RandomBot(s) if s % 2 else GreedyBot(s) for s in range(4)]
        play_game(d, bots)
        assert d.is_over
        assert_conserved(d)
        played += 1
    assert played > 5


def test_determinize_draws_different_hidden_cards() -> None:
    """Other seats' hands are sampled, not copied from the live game."""
    rng = random.Random(3)
    g = Game.new(4, 3)
    view = PlayerView(g, g.waiting_seats()[0])
    seen = {tuple(from_counts(determinize(view, rng).hands[(view.seat or 0) + 1]))
            for _ in range(10)}
    assert len(seen) > 1


@pytest.mark.parametrize(("players", "seed"), [(4, 1), (3, 2), (2, 3)])
def test_search_bot_always_answers_legally(players: int, seed: int) -> None:
    """A whole game with a search bot (seeing its view through a proxy that refuses private
    names) among greedy bots: every answer is legal and the game ends."""
    bots = [Checked(SearchBot(seed, iterations=1) if s == 0 else GreedyBot(seed + s))
            for s in range(players)]
    game = play_game(Game.new(players, seed, promo=seed == 2), bots)
    assert game.is_over
    assert bots[0].decisions > 0


def test_search_bot_is_registered() -> None:
    assert isinstance(load_bot("search", 3), SearchBot)


def test_search_bot_is_deterministic_for_a_seed() -> None:
    """With an iteration budget (no clock), the same seed plays the same game."""
    def play() -> list[Any]:
        bots: list[Any] = [SearchBot(5, iterations=2), *(GreedyBot(s) for s in range(3))]
        return play_game(Game.new(4, 12), bots).log

    assert play() == play()


def test_search_bot_decisions_do_not_depend_on_hidden_information() -> None:
    """The search bot decides the same in a game whose hidden cards differ (another seat's
    hand and stored cards, the draw pile's order), as long as its own legal choices are
    the same: it uses only its view."""
    rng = random.Random(11)
    bots: list[Any] = [SearchBot(9, iterations=2), *(GreedyBot(30 + s) for s in range(3))]
    assert blind_comparisons(Game.new(4, 21), bots, rng, lambda: SearchBot(9, iterations=2),
                             last_round=3) > 10


def test_rollout_games_halt_at_the_end_of_the_round_and_keep_no_log() -> None:
    """The search's rollout game stops when its round ends (phase over, no result), before
    the next supply, and logs nothing."""
    rng = random.Random(2)
    g = Game.new(4, 5)
    base = look_ahead(determinize(PlayerView(g, 0), rng), g.round)
    copy_ = base.copy()
    bots = [GreedyBot(s) for s in range(4)]
    play_game(copy_, bots)
    assert copy_.round == g.round and copy_.result is None and copy_.is_over
    assert not any(map(any, copy_.hands)) and copy_.log == []
    assert_conserved(copy_)
    assert base.phase == g.phase  # the clone is independent


def test_the_rollout_player_decides_as_the_greedy_player() -> None:
    """The rollouts model every seat as the greedy player: _PolicyBot (greedy with more
    contexts kept) makes exactly greedy's decisions, its ties broken by one running
    generator (seeded per rollout) rather than per question."""
    for seed in (1, 2):
        g = Game.new(4, seed)
        greedy = [GreedyBot(seed + s) for s in range(4)]
        for bot in greedy:
            bot.reseed_per_question = False
        policy = [_PolicyBot(seed + s) for s in range(4)]
        views = [PlayerView(g, s) for s in range(4)]
        while not g.is_over:
            seat = g.waiting_seats()[0]
            legal = g.legal(seat)
            d = greedy[seat].decide(views[seat], legal)
            assert policy[seat].decide(views[seat], legal) == d
            g.apply(seat, d)


def test_a_rollout_player_draws_from_its_rollout_seed_as_if_seeded_at_once() -> None:
    """_PolicyBot.reseed seeds the generator at the first draw only (most rollouts draw
    nothing): the draws are those of a generator seeded with the last seed given, whatever
    was drawn before it."""
    bot = _PolicyBot(3)
    for _ in range(3):
        bot.chance(10)
    bot.reseed(42)
    bot.reseed(7)  # a rollout without a draw: the next one's seed counts
    expected = random.Random(7)
    sizes = (2, 5, 9, 3, 4)
    assert [bot.chance(n) for n in sizes] == [expected.randrange(n) for n in sizes]


def test_contexts_sharing_memos_evaluate_hands_as_fresh_contexts_do() -> None:
    """A rollout player's contexts that plan hands the same way share their memos
    (_Context.plan_key); every plan and evaluation still equals a fresh context's."""
    policy = _PolicyBot(0)
    greedy = GreedyBot(0)
    rng = random.Random(5)
    for players, seed in ((4, 3), (3, 8)):
        for g, seat in decision_points(players, seed, every=2):
            view = PlayerView(g, seat)
            ctx = policy.context(view)
            fresh = greedy._new_context(view)
            for _ in range(12):
                hand = tuple(rng.randrange(4) if v else 0 for v in range(11))
                assert ctx.evaluate(hand) == fresh.evaluate(hand)
                assert ctx.plan(hand) == fresh.plan(hand)
                assert ctx.without_storage().plan(hand) == fresh.without_storage().plan(hand)
    contexts = list(policy._contexts.values())
    assert len({id(c._plans) for c in contexts}) < len(contexts)  # some were shared


def test_the_rollout_players_key_read_from_the_game_is_the_views_context_key() -> None:
    """In a rollout, the players read their context keys from the game they watch
    (_PolicyBot.watch): the same key as context_key of their view, at every decision; a
    view of another game is keyed from the view."""
    for players, seed in ((4, 5), (5, 6)):
        for start, _ in decision_points(players, seed, every=9):
            g = look_ahead(start.copy(), start.round + 1)
            views = [PlayerView(g, s) for s in range(players)]
            bots = [_PolicyBot(s) for s in range(players)]
            for s in range(players):
                bots[s].watch(g, views[s])
            while g.phase != OVER:
                seat = g.waiting_seats()[0] if g.phase in SIMULTANEOUS else g.active
                assert bots[seat]._game_key(g, seat) == context_key(views[seat])
                g.apply(seat, bots[seat].decide(views[seat], g.legal(seat)))
            other = PlayerView(start, 0)
            assert bots[0].context(other) is bots[0].context(PlayerView(start, 0))


def test_search_bot_searches_every_decision_point_by_default() -> None:
    """Every phase of the engine with a decision is searched unless told otherwise."""
    assert set(SEARCH_PHASES) == set(PHASES) - {OVER}
    assert SearchBot(1, phases=("offer",)).phases == {"offer"}


def test_search_bot_searches_many_kinds_of_decision_and_sometimes_overrules_greedy() -> None:
    """In a seeded game the search compares candidates at trade, take and progression
    decisions (among others), and does not always play greedy's choice."""
    bot = SearchBot(4, iterations=1)
    shadow = GreedyBot(4)
    differs = 0

    class Watch:
        def decide(self, view: PlayerView, legal: Any) -> Any:
            d = bot.decide(view, legal)
            nonlocal differs
            differs += d != copy.deepcopy(shadow).decide(view, legal)
            return d

    play_game(Game.new(4, 31), [Watch(), *(GreedyBot(40 + s) for s in range(3))])
    assert {"offer", "take", "turn"} <= set(bot.searches)
    assert bot.rollouts > sum(bot.searches.values())  # several candidates per search
    assert differs > 0


def test_candidates_start_with_greedys_choice_and_are_capped() -> None:
    """The candidates are distinct legal decisions, greedy's choice first; phases that list
    every choice list at most MAX_ALL of them."""
    bot = SearchBot(2)
    legal = [SplitFleet(tuple(f"D0{i}" for i in range(k))) for k in range(12)]
    cands = bot.candidates_for("split", legal, legal[5])
    assert cands[0] == legal[5] and len(cands) == MAX_ALL == len(set(cands))
    assert set(cands) <= set(legal)


def _storage_steps(need: int) -> Iterator[Game]:
    """Live games of greedy bots in a storage step where several seats are asked."""
    found = 0
    for seed in range(1, 40):
        g = Game.new(4, seed)
        bots = [GreedyBot(seed + s) for s in range(4)]
        while not g.is_over:
            if g.phase == STORE and len(g.waiting_seats()) >= 2 and not g.store_chosen:
                yield g  # the caller plays the storage step
                found += 1
                if found >= need:
                    return
                continue
            seat = g.waiting_seats()[0]
            g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))


@pytest.mark.parametrize("store_horizon", [1, 2])
def test_search_bot_decides_the_simultaneous_storage_step(store_horizon: int) -> None:
    """Storage is simultaneous (R6.9): every seat asked, the first in line or not, and
    before or after the others have chosen, gets a legal answer from a search whose
    rollouts play the storage step (the round ends there) or, with store_horizon=2, the
    next round as well."""
    ends: list[tuple[int, int]] = []

    class Watched(SearchBot):
        def rollout(self, g: Game, seat: int, seed: int) -> float:
            score = super().rollout(g, seat, seed)
            ends.append((g.round, g.result is not None))
            return score

    searched = 0
    for g in _storage_steps(4):
        rnd = g.round
        for seat in g.waiting_seats():  # each chooses in turn; the step ends after the last
            legal = g.legal(seat)
            bot = Watched(seat, iterations=1, store_horizon=store_horizon)
            ends.clear()
            d = bot.decide(PlayerView(g, seat), legal)
            assert d in legal
            searched += bot.searches.get("store", 0)
            assert all(r == rnd + store_horizon - 1 or over for r, over in ends)
            g.apply(seat, d)
        assert g.round == rnd + 1 or g.is_over  # all stored and discarded: the round ended
    assert searched >= 2


def test_search_bot_with_an_endgame_horizon_plays_legally() -> None:
    """With rollouts over several rounds from the start (endgame=0), the bot still answers
    legally to the end of the game; bad budgets are refused."""
    bots = [Checked(SearchBot(3, iterations=1, endgame=0, endgame_rounds=2)),
            *(Checked(GreedyBot(s)) for s in range(3))]
    assert play_game(Game.new(4, 9), bots).is_over
    for bad in ({"endgame_rounds": 0}, {"iterations": 0}, {"candidates": 0}, {"horizon": 0},
                {"seconds": 0.0}, {"store_horizon": 0}):
        with pytest.raises(ValueError):
            SearchBot(1, **bad)


class _Counted(SearchBot):
    """A search bot that keeps, for each searched decision, its phase, its candidates and
    the rollouts it played."""

    def __init__(self, seed: int, **options: Any) -> None:
        super().__init__(seed, **options)
        self.spent: list[tuple[str, int, int]] = []

    def _search(self, view: View, cands: list[Decision]) -> Decision:
        before = self.rollouts
        choice = super()._search(view, cands)
        self.spent.append((view.phase, len(cands), self.rollouts - before))
        return choice


def test_screening_plays_the_better_half_on_the_same_budget() -> None:
    """screen=0.5: every candidate plays half the determinizations, then the better half of
    them (at least two) share the rollouts left, so a decision plays no more rollouts than
    without screening (at most a few fewer, rounding down); the bot answers legally and the
    same for a seed; a share outside (0, 1] is refused. (Without the offers' own screening,
    offer_first, which plays a decision's offers on another budget.)"""
    def play(screen: float) -> tuple[list[Any], list[tuple[str, int, int]]]:
        bot = _Counted(5, iterations=4, screen=screen, offer_first=None, budget="plain")
        bots: list[Any] = [Checked(bot), *(GreedyBot(s) for s in range(3))]
        return play_game(Game.new(4, 12), bots).log, bot.spent

    log, spent = play(0.5)
    assert log == play(0.5)[0]
    assert any(k > 2 for _, k, _ in spent)
    for phase, k, rollouts in spent:
        budget = round(4 * DEFAULT_WEIGHTS.get(phase, 1.0)) * k
        assert budget - k < rollouts <= budget
    for phase, k, rollouts in play(1.0)[1]:
        assert rollouts == round(4 * DEFAULT_WEIGHTS.get(phase, 1.0)) * k
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="screen"):
            SearchBot(1, screen=bad)


def test_screening_on_a_cpu_budget_plays_legally() -> None:
    """With a CPU-time budget instead of determinizations, screening still answers every
    decision legally (at least one determinization in each stage; no time is asserted)."""
    bot = _Counted(7, seconds=0.002, screen=0.5)
    bots: list[Any] = [Checked(bot), *(GreedyBot(s) for s in range(3))]
    assert play_game(Game.new(4, 13), bots).is_over
    assert all(rollouts >= k for _, k, rollouts in bot.spent)


def _at_a_round_end(seed: int) -> Game:
    """A 4-player greedy game stopped as its third round ends (a rollout's last position)."""
    game = look_ahead(Game.new(4, seed), 3)
    bots = [GreedyBot(s) for s in range(4)]
    while game.phase != OVER:
        seat = game.waiting_seats()[0] if game.phase in SIMULTANEOUS else game.active
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    return game


@pytest.mark.parametrize("evaluation", EVALUATIONS)
def test_win_shares_are_a_share_of_the_win_that_grows_with_doubloons(evaluation: str) -> None:
    """Every evaluation gives every seat a share between 0 and 1, adding up to 1, and a seat
    given doubloons gets a larger share (nothing else changed)."""
    game = _at_a_round_end(4)
    shares = win_shares(game, evaluation)
    assert len(shares) == 4 and all(0 < v < 1 for v in shares)
    assert sum(shares) == pytest.approx(1.0)
    richer = game.copy()
    richer.doubloons[2] += 10
    assert win_shares(richer, evaluation)[2] > shares[2]


def test_worths_add_up_the_worth_parts() -> None:
    """The hand-made worth is the parts' sum, developments at the given scale; the fitted
    features are the parts, then each times rounds left / 10, then each over rounds left."""
    game = _at_a_round_end(6)
    for parts, worth in zip(worth_parts(game), worths(game, 0.5), strict=True):
        assert len(parts) == len(PARTS)
        assert worth == pytest.approx(parts[0] + 0.5 * sum(parts[1:8]) + parts[8])
        features = fitted_features(parts, 4.0)
        assert features == pytest.approx([*parts, *(p * 0.4 for p in parts),
                                          *(p / 4 for p in parts)])
    assert len(FITTED) == 3 * len(PARTS)


def test_the_fitted_shares_are_the_softmax_of_the_weights_times_the_features() -> None:
    """win_shares adds each part's three weights up first, for speed: the same shares as the
    fitted features (what benchmarks/fit_evaluation.py fits) times FITTED."""
    game = _at_a_round_end(8)
    r = _rounds_left(game)
    logits = [sum(w * f for w, f in zip(FITTED, fitted_features(parts, r), strict=True))
              for parts in worth_parts(game)]
    exp = [math.exp(v - max(logits)) for v in logits]
    assert win_shares(game, "fitted") == pytest.approx([v / sum(exp) for v in exp], abs=1e-12)


def _shipped_net() -> dict[str, Any]:
    text = resources.files("mundus_net.bots").joinpath("data", NET_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def test_the_net_shares_are_the_fitted_logit_plus_hidden_units_of_the_net_inputs() -> None:
    """win_shares("net") takes the shared inputs and the TM flags out of the product, for
    speed: the same shares as the shipped weights applied as benchmarks/fit_evaluation.py
    fits them (the fitted features times the linear weights, plus tanh units of the
    standardized net_inputs)."""
    data = _shipped_net()
    assert data["inputs"] == list(NET_INPUTS) and len(data["linear"]) == 3 * len(PARTS)
    for seed in (8, 9):
        game = _at_a_round_end(seed)
        assert win_shares(game, "net") == pytest.approx(_reference_shares(data, game), abs=1e-12)


def _reference_shares(data: dict[str, Any], game: Game, searcher: int | None = None
                      ) -> list[float]:
    """The shares of a net's weights file applied as benchmarks/fit_evaluation.py fits them:
    the fitted features times the linear weights, plus tanh units of the standardized
    net_inputs; with ``searcher``, that seat's flag among both (in the linear part times 1,
    r/10 and 1/r)."""
    r = _rounds_left(game)
    parts = worth_parts(game, r)
    logits = []
    for s, (own, inputs) in enumerate(zip(parts, net_inputs(game, r, parts), strict=True)):
        assert len(inputs) == len(NET_INPUTS)
        features, weights, raw = list(fitted_features(own, r)), data["linear"], list(inputs)
        if searcher is not None:
            flag = float(s == searcher)
            features += [flag, flag * r / 10, flag / max(r, 1.0)]
            weights = data["linear"] + data["searcher"]
            raw.append(flag)
        z = [(v - m) / sd for v, m, sd in zip(raw, data["mean"], data["scale"], strict=True)]
        u = sum(w * f for w, f in zip(weights, features, strict=True))
        for column, bias, out in zip(data["hidden"], data["bias"], data["out"], strict=True):
            u += out * math.tanh(bias + sum(w * v for w, v in zip(column, z, strict=True)))
        logits.append(u)
    exp = [math.exp(v - max(logits)) for v in logits]
    return [v / sum(exp) for v in exp]


def test_the_net_inputs_give_each_seat_its_lead_and_its_place_after_the_tm() -> None:
    """A seat's lead is over the best other seat (the leader's over the second); one flag
    says how many seats after the TM it sits."""
    game = _at_a_round_end(6)
    r = _rounds_left(game)
    parts = worth_parts(game, r)
    rows = net_inputs(game, r, parts)
    lead = NET_INPUTS.index("doubloons_lead")
    for s, row in enumerate(rows):
        others = max(game.doubloons[t] for t in range(4) if t != s)
        assert row[lead] == game.doubloons[s] - others
        assert row[:len(PARTS)] == parts[s]
        flags = row[NET_INPUTS.index("tm"):NET_INPUTS.index("tm") + 4]
        assert flags == [float((s - game.tm) % 4 == k) for k in range(4)]


def test_a_net_weights_file_for_other_inputs_is_refused() -> None:
    data = _shipped_net()
    with pytest.raises(ValueError, match="other inputs"):
        _Net({**data, "inputs": data["inputs"][:-1]})
    with pytest.raises(ValueError, match="not a mundus-net search evaluation"):
        _Net({})


def test_an_unknown_evaluation_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="fitted, hand"):
        SearchBot(1, evaluation="learned")


def _take_points(seed: int) -> Iterator[tuple[Game, int]]:
    """(live game, seat to take) at every take of a 4-player game of greedy bots."""
    g = Game.new(4, seed)
    bots = [GreedyBot(seed * 5 + s) for s in range(4)]
    while not g.is_over:
        seat = g.waiting_seats()[0]
        if g.phase == TAKE:
            yield g, seat
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))


def test_a_hand_test_redeals_refused_hands_and_conserves_every_card() -> None:
    """determinize(accept=...): a hand the test refuses is dealt again from the unseen cards
    (the cards are still each somewhere exactly once); a test that accepts everything deals
    what no test deals, card for card."""
    tested = 0
    for g, seat in _take_points(3):
        view = PlayerView(g, seat)
        plain = determinize(view, random.Random(tested))
        same = determinize(view, random.Random(tested), lambda s, hand: True)
        assert same.hands == plain.hands and same.draw == plain.draw
        wanted = (seat + 1) % 4

        def has_relic(s: int, hand: list[int], wanted: int = wanted) -> bool:
            return s != wanted or hand[RELIC] > 0

        d = determinize(view, random.Random(tested), has_relic, tries=200)
        assert_conserved(d)
        if unseen_resources(view)[RELIC] >= 2 and g.hands[wanted][RELIC]:
            assert d.hands[wanted][RELIC] > 0
        tested += 1
    assert tested > 20


def test_the_offer_test_keeps_the_real_hands_of_greedy_players() -> None:
    """offer_test (R5.2): in the take step, the greedy players' real hands always pass the
    test of their offers, while random deals of the same unseen cards often do not; seats
    already in a take are not tested."""
    model = GreedyBot(0)
    real = refused = tests = 0
    for g, seat in _take_points(4):
        view = PlayerView(g, seat)
        test = offer_test(view, determinize(view, random.Random(1)), model)
        if test is None:
            continue
        tests += 1
        involved = {s for pair in view.takes for s in pair}
        for s in range(4):
            if s != seat:
                assert test(s, list(g.hands[s]))
                real += 1
        for k in range(5):
            d = determinize(view, random.Random(k))
            refused += sum(not test(s, list(d.hands[s])) for s in range(4)
                           if s != seat and s not in involved)
        for s in involved:
            assert test(s, [0] * 11)
    assert tests > 10 and real > 30 and refused > 10


def test_search_bot_with_inference_plays_legally_and_the_same_for_a_seed() -> None:
    """infer=True (hands tested against the offers in the take step) answers legally, the
    same for a seed, and searches some takes; tries below 1 are refused."""
    def play() -> list[Any]:
        bots: list[Any] = [Checked(SearchBot(5, iterations=2, infer=True)),
                           *(GreedyBot(s) for s in range(3))]
        return play_game(Game.new(4, 12), bots).log

    log = play()
    assert log == play()
    assert any(e.kind == "take" and e.public["seat"] == 0 for e in log)
    with pytest.raises(ValueError, match="tries"):
        SearchBot(1, tries=0)


def _offer_points(seed: int) -> Iterator[tuple[Game, int]]:
    """(live game, seat to offer) at every offer with a choice in a game of greedy bots."""
    g = Game.new(4, seed)
    bots = [GreedyBot(seed * 3 + s) for s in range(4)]
    while not g.is_over:
        seat = g.waiting_seats()[0]
        if g.phase == OFFER and len(g.legal(seat)) > 2:
            yield g, seat
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))


def test_every_offer_is_a_candidate_with_offers_all_and_one_per_bid_with_bids() -> None:
    """offers="all" compares every legal offer (R5.2), greedy's first; offers="bids" one
    offer per offer score (R5.4), greedy's choice first, then for each other score the offer
    greedy scores best, at most offer_candidates of them; bad settings are refused."""
    seen = 0
    for g, seat in _offer_points(6):
        view, legal = PlayerView(g, seat), g.legal(seat)
        wide = SearchBot(1, offers="all")
        choice = wide.greedy.decide(view, legal)
        cands = wide.candidates_for(OFFER, legal, choice)
        assert cands[0] == choice and sorted(cands) == sorted(legal)
        bids = SearchBot(1, offers="bids", offer_candidates=3)
        assert bids.greedy.decide(view, legal) == choice
        picked = bids.candidates_for(OFFER, legal, choice)
        sums = [sum(d.cards) for d in picked if isinstance(d, Offer)]
        assert picked[0] == choice and len(set(sums)) == len(picked) <= 3
        scores = dict((d, s) for s, d in bids.greedy.scored)
        for d, total in zip(picked[1:], sums[1:], strict=True):
            assert scores[d] == max(s for o, s in scores.items()
                                    if isinstance(o, Offer) and sum(o.cards) == total)
        seen += 1
    assert seen > 5
    for bad in ({"offers": "some"}, {"takes": "some"}, {"offer_candidates": 0},
                {"offer_iterations": 0}, {"offer_first": 0}, {"offer_keep": 0},
                {"take_iterations": 0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SearchBot(1, **bad)


def test_offer_screening_plays_every_offer_then_only_the_best_few() -> None:
    """offer_first=1, offer_keep=2, offer_iterations=3: every offer candidate plays one
    determinization, then the best two play the two left; takes play take_iterations; the
    bot answers legally and the same for a seed."""
    def play() -> tuple[list[Any], list[tuple[str, int, int]]]:
        bot = _Counted(5, iterations=4, offers="all", offer_first=1, offer_keep=2,
                       offer_iterations=3, take_iterations=1)
        bots: list[Any] = [Checked(bot), *(GreedyBot(s) for s in range(3))]
        return play_game(Game.new(4, 12), bots).log, bot.spent

    log, spent = play()
    assert log == play()[0]
    offers = [(k, rollouts) for phase, k, rollouts in spent if phase == OFFER]
    assert any(k > 2 for k, _ in offers)
    for k, rollouts in offers:
        assert rollouts == (k + 2 * 2 if k > 2 else 3 * k)
    assert all(rollouts == k for phase, k, rollouts in spent if phase == TAKE)


def test_the_budget_sets_the_search_defaults_of_its_build() -> None:
    """budget: "plain" and "compiled" set the defaults of weights, offer_first, offer_keep,
    takes and take_iterations (BUDGETS); "auto", the default, is the budget of the build that
    runs this module (BUILD); an option given overrides its budget's value; another name is
    refused. The plain budget is the search's settings before the compiled build's."""
    assert SearchBot(1).budget == BUILD
    assert SearchBot(1, budget="auto").budget == BUILD
    for name, preset in BUDGETS.items():
        bot = SearchBot(1, budget=name)
        assert bot.budget == name and bot.weights == preset["weights"]
        assert (bot.offer_first, bot.offer_keep, bot.takes, bot.take_iterations) == (
            preset["offer_first"], preset["offer_keep"], preset["takes"],
            preset["take_iterations"])
    plain = SearchBot(1, budget="plain")
    assert plain.weights == DEFAULT_WEIGHTS and plain.takes == "greedy"
    assert (plain.offer_first, plain.offer_keep, plain.take_iterations) == (2, 4, None)
    mine = SearchBot(1, budget="compiled", weights={"turn": 3.0}, offer_first=None,
                     offer_keep=5, takes="greedy", take_iterations=None)
    assert mine.weights == {"turn": 3.0} and mine.takes == "greedy"
    assert (mine.offer_first, mine.offer_keep, mine.take_iterations) == (None, 5, None)
    assert load_bot("search:budget=plain", 3).budget == "plain"  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="budget"):
        SearchBot(1, budget="fast")


def test_both_budgets_play_legal_games_the_same_for_a_seed() -> None:
    """Each budget, whatever the build, plays a whole game legally and the same again for the
    same seed (the compiled budget compares every legal take)."""
    for name in BUDGETS:
        def play(name: str = name) -> list[Any]:
            bot = SearchBot(5, budget=name)
            bots: list[Any] = [Checked(bot), *(GreedyBot(s) for s in range(3))]
            return play_game(Game.new(4, 31), bots).log

        assert play() == play()


def _shipped_seat_net() -> dict[str, Any]:
    text = resources.files("mundus_net.bots").joinpath("data", SEAT_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def test_the_seat_evaluation_is_accepted_and_its_weights_load() -> None:
    """evaluation="seat" is an option of the search bot; its weights file has the net's
    inputs and the searcher flag, and loads with the flag's weights."""
    assert SearchBot(1, evaluation="seat").evaluation == "seat"
    assert load_bot("search:evaluation=seat", 1).evaluation == "seat"  # type: ignore[attr-defined]
    data = _shipped_seat_net()
    assert data["inputs"] == [*NET_INPUTS, "searcher"] and len(data["searcher"]) == 3
    net = _Net(data)
    assert net.seat and len(net.flags) == len(data["hidden"])
    assert not _Net(_shipped_net()).seat


@pytest.mark.parametrize("searcher", [-1, 0, 1, 2, 3])
def test_the_seat_shares_add_up_to_one_whoever_is_the_searcher(searcher: int) -> None:
    game = _at_a_round_end(5)
    shares = win_shares(game, "seat", searcher=searcher)
    assert len(shares) == 4 and all(0 < v < 1 for v in shares)
    assert sum(shares) == pytest.approx(1.0)


def test_the_searcher_flag_changes_the_searchers_share_as_the_weights_say() -> None:
    """win_shares("seat", searcher=s) flags seat s only: the same shares as the weights file
    applied as benchmarks/fit_evaluation.py fits them (the fitted features and the flag times
    1, r/10 and 1/r; tanh units of the standardized net_inputs and the flag); the flag moves
    the searcher's share, and the net evaluation ignores it."""
    data = _shipped_seat_net()
    for seed, searcher in ((8, 1), (9, 3)):
        game = _at_a_round_end(seed)
        flagged = win_shares(game, "seat", searcher=searcher)
        assert flagged == pytest.approx(_reference_shares(data, game, searcher), abs=1e-12)
        assert flagged[searcher] != pytest.approx(win_shares(game, "seat")[searcher], rel=0.1)
        assert win_shares(game, "net", searcher=searcher) == win_shares(game, "net")
