"""Rules R1 (components) and R2 (setup)."""

from __future__ import annotations

import pytest
from support.positions import (
    R,
    assert_conserved,
    assert_refused,
    begin_round,
    decisions_of,
    give,
    new_game,
    snapshot,
    start_announce,
    start_turn,
)

from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.cards import CLASS_OF, RESOURCE_COUNTS, TOTAL_RESOURCES
from mundus_net.engine.decisions import Announce, ChooseEvent, MakeSet, Offer, RuleError
from mundus_net.engine.deck import EVENTS, default_deck
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView
from mundus_net.tools.runner import play_game

# -- R1 components --------------------------------------------------------------------------------


def test_R1_1_resource_counts() -> None:
    """R1.1: 16/16/16 of 1-3, 12/12/12 of 4-6, 8/8/8 of 7-9 and 12 relics: 120 cards."""
    assert [RESOURCE_COUNTS[v] for v in range(1, 11)] == [16, 16, 16, 12, 12, 12, 8, 8, 8, 12]
    assert TOTAL_RESOURCES == 120


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R1_1_a_new_game_holds_every_resource_once(players: int) -> None:
    """R1.1: after setup and the first deal, the 120 resources are all somewhere, once."""
    g = new_game(players, seed=players)
    assert_conserved(g)


def test_R1_2_classes() -> None:
    """R1.2: common 1-3, uncommon 4-6, rare 7-9, a relic has no class."""
    assert [CLASS_OF[v] for v in range(1, 10)] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert CLASS_OF[R] == 0


def test_R1_2_class_of_a_set_is_the_class_of_its_declared_value() -> None:
    """R1.2/R6.3: a set of 3 relics declared as 7s is a rare set and reaches any queue card;
    declared as 1s it is common and reaches card 1 only."""
    g = new_game(2)
    start_turn(g, 0, [R, R, R])
    assert_refused(g, 0, MakeSet(1, (R, R, R), 2), "R6.3")
    target = g.queue[4]
    g.apply(0, MakeSet(7, (R, R, R), 5))
    assert target in g.devs[0]


def test_R1_3_trade_value_of_a_relic_is_10() -> None:
    """R1.3: an offer of one relic scores 10, more than an offer of a 9."""
    g = new_game(2)
    start_announce(g, {0: [9, 1], 1: [R, 1]}, tm=0)
    g.apply(0, Announce(2))
    # Both must offer their 2 cards (auto-applied as the only choice): the scores decide.
    assert g.tm == 1
    reveal = [e.public for e in g.log if e.kind == "reveal"][-1]
    assert reveal["scores"] == (10, 11)


def test_R1_4_doubloons_never_negative_in_random_games() -> None:
    """R1.4: no payment makes a player's doubloons negative."""
    for seed in range(3):
        g = Game.new(4, seed)
        bots = [RandomBot(seed * 10 + s) for s in range(4)]
        while not g.is_over:
            seat = g.waiting_seats()[0]
            g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
            assert min(g.doubloons) >= 0


def test_R1_4_unaffordable_payment_is_refused() -> None:
    """R1.4: Coronado's owner with fewer than 2 doubloons cannot impose an event."""
    g = new_game(4, seed=1)
    give(g, 1, "D44")
    g.doubloons[1] = 2
    while g.deck[g.queue[0]].icon is not None:
        g.queue.append(g.queue.pop(0))
    begin_round(g, 2)
    assert g.phase == "coronado"
    g.doubloons[1] = 1  # spent meanwhile (arranged)
    assert_refused(g, 1, ChooseEvent("PI"), "R1.4")


def test_R1_5_deck_has_44_development_cards_with_player_count_and_one_icon_at_most() -> None:
    """R1.5: 44 base development cards; each a minimum player count 2-6 and 0 or 1 icon."""
    base = [c for c in default_deck().cards if c.group == "base"]
    assert len(base) == 44
    assert [c.id for c in base] == [f"D{i:02d}" for i in range(1, 45)]
    for card in base:
        assert 2 <= card.players <= 6
        assert card.icon is None or card.icon in EVENTS


def test_R1_6_five_events() -> None:
    """R1.6: King's Aid, Indigenous People, Storm, Fire, Pirates (and no event)."""
    assert set(EVENTS) == {"KA", "IP", "ST", "FI", "PI"}
    icons = {c.icon for c in default_deck().cards}
    assert icons == {None, *EVENTS}


# -- R2 setup -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 1, 7])
def test_R2_1_two_to_six_players(players: int) -> None:
    """R2.1: a table has 2 to 6 players; anything else is refused."""
    with pytest.raises(RuleError) as info:
        Game.new(players)
    assert info.value.rule == "R2.1"


@pytest.mark.parametrize("players", [2, 6])
def test_R2_1_seats_are_numbered_in_join_order(players: int) -> None:
    """R2.1: seats 0..n-1; the progression turns after the first follow seat order."""
    g = new_game(players)
    assert g.players == players
    assert len(g.hands) == len(g.doubloons) == len(g.devs) == players


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R2_2_three_market_cards_rest_is_the_draw_pile(players: int) -> None:
    """R2.2: 3 resources face up in the market, the rest face down (before the first deal)."""
    g = new_game(players, seed=7)
    setup = g.log[0]
    assert setup.kind == "setup"
    assert len(setup.public["market"]) == 3
    assert len(g.market) == 3
    # Round 1 dealt 5 to each player and no caravel display.
    assert len(g.draw) == 120 - 3 - 5 * players
    assert g.display == []


@pytest.mark.parametrize(("players", "size"), [(2, 24), (3, 30), (4, 36), (5, 40), (6, 44)])
def test_R2_3_development_cards_for_the_player_count(players: int, size: int) -> None:
    """R2.3: cards for more players are removed; 5 face up in the queue, the rest the pile."""
    g = new_game(players, seed=3)
    assert len(g.queue) == 5
    assert len(g.queue) + len(g.devpile) == size
    for card_id in [*g.queue, *g.devpile]:
        assert g.deck[card_id].players <= players
        assert g.deck[card_id].group == "base"


def test_R2_3_development_pile_is_shuffled_by_the_seed() -> None:
    """R2.3: the pile is shuffled (different seeds give different queues)."""
    queues = {tuple(new_game(4, seed=s).queue) for s in range(10)}
    assert len(queues) > 1


def test_R2_4_trade_master_starts_at_the_first_seat() -> None:
    """R2.4: by default the first seat holds the TM token."""
    g = new_game(4, seed=5)
    assert g.tm == 0
    assert g.log[0].public["tm"] == 0


def test_R2_4_host_may_choose_or_draw_the_first_trade_master() -> None:
    """R2.4 ruling: a host option may choose the seat, or draw it at random (seeded)."""
    assert Game.new(4, 0, first_tm=2).tm == 2
    drawn = [Game.new(5, s, first_tm=None).tm for s in range(30)]
    assert all(0 <= t < 5 for t in drawn)
    assert len(set(drawn)) > 1
    assert drawn == [Game.new(5, s, first_tm=None).tm for s in range(30)]


def test_R2_4_first_trade_master_must_be_at_the_table() -> None:
    """R2.4: a first TM seat that is not at the table is refused."""
    with pytest.raises(RuleError) as info:
        Game.new(3, 0, first_tm=3)
    assert info.value.rule == "R2.4"


@pytest.mark.parametrize("players", [2, 5])
def test_R2_5_everyone_starts_with_nothing(players: int) -> None:
    """R2.5: 0 doubloons, no developments; round 1 begins (each then dealt 5, R4.2)."""
    g = new_game(players, seed=11)
    assert g.round == 1
    assert g.doubloons == [0] * players
    assert g.devs == [[] for _ in range(players)]
    assert [sum(h) for h in g.hands] == [5] * players
    assert all(not any(s) for s in g.stored)


def test_R2_6_same_seed_same_game() -> None:
    """R2.6: the same seed gives the same setup, card for card; another seed another one."""
    a, b, c = new_game(4, seed=42), new_game(4, seed=42), new_game(4, seed=43)
    assert snapshot(a) == snapshot(b)
    assert (a.draw, a.queue, a.hands) != (c.draw, c.queue, c.hands)


def test_R2_6_same_seed_and_decisions_give_the_same_game() -> None:
    """R2.6: replaying a game's decisions on the same seed reproduces it exactly."""
    g = play_game(Game.new(3, 99), [RandomBot(s) for s in range(3)])
    replay = Game.new(3, 99)
    for seat, decision in decisions_of(g):
        replay.apply(seat, decision)
    assert replay.result == g.result
    assert snapshot(replay) == snapshot(g)
    assert replay.log == g.log


def test_R2_6_offers_in_a_different_order_give_the_same_game() -> None:
    """R2.6/R5.3: simultaneous offers give the same game whatever order they arrive in."""
    games = []
    for order in ([0, 1, 2], [2, 0, 1]):
        g = new_game(3, seed=8)
        start_announce(g, {0: [1, 2, 3], 1: [4, 5, 6], 2: [7, 8, 9]})
        g.apply(0, Announce(2))
        picks = {0: Offer((1, 2)), 1: Offer((4, 6)), 2: Offer((8, 9))}
        for s in order:
            g.apply(s, picks[s])
        games.append(g)
    a, b = games
    sa, sb = snapshot(a), snapshot(b)
    sa.pop("#log")
    sb.pop("#log")
    assert sa == sb
