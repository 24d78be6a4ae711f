"""Rules R6: the progression step."""

from __future__ import annotations

import pytest
from support.positions import (
    R,
    assert_conserved,
    assert_refused,
    calm,
    end_turns,
    events,
    give,
    halt_at_round_end,
    invalidate,
    new_game,
    put_queue_first,
    start_takes,
    start_turn,
    stored_event_cards,
)

from mundus_net.engine.cards import to_counts
from mundus_net.engine.decisions import (
    TARGET_DRAW,
    ChooseFirst,
    Convert,
    EndTurn,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Store,
    Take,
)
from mundus_net.engine.game import Game, Pending
from mundus_net.engine.view import PlayerView, public_log


def income_of_turn(g: Game, seat: int) -> int:
    gain: int = [e for e in events(g, "income") if e["seat"] == seat][-1]["gain"]
    return gain


# -- R6.1 turn order ------------------------------------------------------------------------------


def test_R6_1_trade_master_chooses_who_plays_first_then_seat_order() -> None:
    """R6.1: the TM picks the first player; the others follow in seat order."""
    g = new_game(4, seed=1)
    start_takes(g, {0: [1], 1: [5]}, taker=0, tm=0, hands={0: [2, 9], 1: [3], 2: [4], 3: [6]})
    g.apply(0, Take(1, 5, None))
    g.apply(1, Take(0, 1, None))
    assert g.phase == "first" and g.active == 0
    assert g.legal(0) == [ChooseFirst(s) for s in range(4)]
    assert_refused(g, 0, ChooseFirst(4), "R6.1")
    assert_refused(g, 1, ChooseFirst(1), "R6.1")
    mark = len(g.log)
    g.apply(0, ChooseFirst(2))
    assert events(g, "first", mark) == [{"seat": 0, "first": 2}]
    # Nobody can make a combination: the turns are played by the engine, in this order.
    assert [e["seat"] for e in events(g, "income", mark)] == [2, 3, 0, 1]


# -- R6.2 combinations ----------------------------------------------------------------------------


@pytest.mark.parametrize("cards", [(5, 5, 5), (5, 5, 5, 5), (5, 5, 5, 5, 5), (5, 5, R),
                                   (5, R, R, R), (R, R, R)])
def test_R6_2_identical_set_of_3_to_5_with_relics_as_wildcards(cards: tuple[int, ...]) -> None:
    """R6.2: 3, 4 or 5 cards of one declared value; relics are wildcards in any number, a set
    of relics only included (ruling)."""
    g = new_game(3, seed=2)
    start_turn(g, 0, list(cards))
    first = g.queue[0]
    g.apply(0, MakeSet(5, cards, 1))
    assert g.devs[0] == [first]
    assert sum(g.hands[0]) == 0
    assert events(g, "set")[-1]["spent"] == tuple(sorted(cards))
    assert_conserved(g)


def test_R6_2_identical_set_sizes_and_contents_are_checked() -> None:
    """R6.2: 2 or 6 cards, a card of another value, a value outside 1-9, cards not held:
    refused."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [5, 5, 5, 5, 5, 5, 4, R])
    assert_refused(g, 0, MakeSet(5, (5, 5), 1), "R6.2")
    assert_refused(g, 0, MakeSet(5, (5, 5, 5, 5, 5, 5), 1), "R6.2")
    assert_refused(g, 0, MakeSet(5, (4, 5, 5), 1), "R6.2")
    assert_refused(g, 0, MakeSet(10, (R, R, R), 1), "R6.2")
    assert_refused(g, 0, MakeSet(0, (5, 5, 5), 1), "R6.2")
    assert_refused(g, 0, MakeSet(5, (5, R, R), 1), "R6.2")  # one relic only


def test_R6_2_one_identical_set_per_turn() -> None:
    """R6.2: at most one identical set per turn."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [5, 5, 5, 6, 6, 6, R])
    g.apply(0, MakeSet(5, (5, 5, 5), 3))
    assert not any(isinstance(d, MakeSet) for d in g.legal(0))
    assert_refused(g, 0, MakeSet(6, (6, 6, 6), 1), "R6.2")


def test_R6_2_kings_aid_allows_any_number_of_sets() -> None:
    """R6.2: with King's Aid, any number of identical sets."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [5, 5, 5, 6, 6, 6, 1, 1, 1], event="KA")
    g.apply(0, MakeSet(5, (5, 5, 5), 1))
    g.apply(0, MakeSet(6, (6, 6, 6), 1))
    g.apply(0, MakeSet(1, (1, 1, 1), 1))
    assert len(g.devs[0]) == 3


@pytest.mark.parametrize(("size", "pay"), [(4, 5), (5, 7), (6, 10), (7, 15), (8, 20), (9, 25)])
def test_R6_2_series_pays_by_length(size: int, pay: int) -> None:
    """R6.2: a series of 4..9 distinct values pays 5/7/10/15/20/25."""
    g = new_game(3, seed=2)
    cards = tuple(range(1, size + 1))
    start_turn(g, 0, list(cards))
    g.apply(0, MakeSeries(cards))
    assert g.doubloons[0] == pay


@pytest.mark.parametrize("size", [4, 7, 9])
def test_R6_2_indigenous_people_series_pays_1_per_card(size: int) -> None:
    """R6.2: under Indigenous People a series pays 1 doubloon per card."""
    g = new_game(3, seed=2)
    cards = tuple(range(10 - size, 10))
    start_turn(g, 0, list(cards), event="IP")
    g.apply(0, MakeSeries(cards))
    assert g.doubloons[0] == size


def test_R6_2_series_rules() -> None:
    """R6.2: 4-9 distinct values, no relic, one series per turn."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [1, 2, 3, 4, 5, 6, 7, 8, R, 2])
    assert_refused(g, 0, MakeSeries((1, 2, 3)), "R6.2")
    assert_refused(g, 0, MakeSeries((1, 2, 3, R)), "R6.2")
    assert_refused(g, 0, MakeSeries((1, 2, 2, 3)), "R6.2")
    assert_refused(g, 0, MakeSeries((1, 2, 3, 9)), "R6.2")  # no 9 in hand
    g.apply(0, MakeSeries((1, 2, 3, 4)))
    assert_refused(g, 0, MakeSeries((5, 6, 7, 8)), "R6.2")
    assert not any(isinstance(d, MakeSeries) for d in g.legal(0))


@pytest.mark.parametrize(("size", "pay"), [(1, 3), (2, 7), (3, 12), (4, 18), (5, 25)])
def test_R6_2_relic_set_pays_by_size(size: int, pay: int) -> None:
    """R6.2: 1-5 relics alone pay 3/7/12/18/25; Indigenous People does not change it."""
    for event in (None, "IP"):
        g = new_game(3, seed=2)
        start_turn(g, 0, [R] * size, event=event)
        g.apply(0, MakeRelicSet(size))
        assert g.doubloons[0] == pay


def test_R6_2_one_relic_set_per_turn_of_at_most_5() -> None:
    """R6.2 ruling: at most one relic set per turn; 6 relics or relics not held: refused."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [R] * 7)
    assert_refused(g, 0, MakeRelicSet(6), "R6.2")
    assert_refused(g, 0, MakeRelicSet(0), "R6.2")
    g.apply(0, MakeRelicSet(2))
    assert_refused(g, 0, MakeRelicSet(1), "R6.2")
    g2 = new_game(3, seed=2)
    start_turn(g2, 0, [R, R, 5])
    assert_refused(g2, 0, MakeRelicSet(3), "R6.2")


def test_R6_2_perfect_combination_uses_its_cards() -> None:
    """R6.2/R8.1: 9 distinct values and a relic, shown once; those cards make nothing else."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [1, 2, 3, 4, 5, 6, 7, 8, 9, R, R])
    assert MakePerfect() in g.legal(0)
    g.apply(0, MakePerfect())
    assert g.perfect_shown == [0]
    assert g.hands[0] == to_counts([R])
    assert_refused(g, 0, MakeSeries((1, 2, 3, 4)), "R6.2")
    assert_refused(g, 0, MakePerfect(), "R6.2")


def test_R6_2_perfect_combination_needs_all_ten_cards() -> None:
    """R6.2: without a relic (or a value) there is no perfect combination."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [1, 2, 3, 4, 5, 6, 7, 8, 9])
    assert MakePerfect() not in g.legal(0)
    assert_refused(g, 0, MakePerfect(), "R8.1")


def test_R6_2_a_card_is_used_in_one_combination_at_most() -> None:
    """R6.2: the cards of a set are gone: they cannot also make a series or a relic set."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [1, 2, 3, 4, 4, R, R])
    g.apply(0, MakeSet(4, (4, 4, R), 3))
    assert_refused(g, 0, MakeSeries((1, 2, 3, 4)), "R6.2")
    assert_refused(g, 0, MakeRelicSet(2), "R6.2")
    g.apply(0, MakeRelicSet(1))


def test_R6_2_combinations_in_any_order() -> None:
    """R6.2: a series, a relic set and a set, in any order, in one turn."""
    g = new_game(3, seed=2)
    start_turn(g, 0, [1, 2, 3, 4, R, R, 9, 9, 9])
    g.apply(0, MakeRelicSet(2))
    g.apply(0, MakeSeries((1, 2, 3, 4)))
    g.apply(0, MakeSet(9, (9, 9, 9), 5))
    assert g.doubloons[0] == 12 and len(g.devs[0]) == 1


# -- R6.3 what a set reaches ----------------------------------------------------------------------

REACH = {  # (class value, size) -> furthest queue position
    (1, 3): 1, (1, 4): 3, (1, 5): 5,
    (5, 3): 3, (5, 4): 5, (5, 5): 5,
    (8, 3): 5, (8, 4): 5, (8, 5): 5,
}


@pytest.mark.parametrize(("value", "size"), sorted(REACH))
def test_R6_3_reach_table(value: int, size: int) -> None:
    """R6.3: common 3/4/5 reach card 1 / 1-3 / any; uncommon 3/4+ reach 1-3 / any; rare any."""
    reach = REACH[(value, size)]
    cards = (value,) * size
    for target in range(1, 6):
        g = new_game(3, seed=3)
        start_turn(g, 0, list(cards))
        wanted = g.queue[target - 1]
        if target <= reach:
            g.apply(0, MakeSet(value, cards, target))
            assert g.devs[0] == [wanted]
        else:
            assert_refused(g, 0, MakeSet(value, cards, target), "R6.3")
    g = new_game(3, seed=3)
    start_turn(g, 0, list(cards))
    targets = {d.target for d in g.legal(0) if isinstance(d, MakeSet) and d.cards == cards}
    assert targets == set(range(1, reach + 1))


def test_R6_3_storm_card_1_only_whatever_the_set() -> None:
    """R6.3: under Storm a set reaches card 1 only."""
    g = new_game(3, seed=3)
    start_turn(g, 0, [8, 8, 8, 8, 8], event="ST")
    assert_refused(g, 0, MakeSet(8, (8, 8, 8, 8, 8), 2), "R6.3")
    g.apply(0, MakeSet(8, (8, 8, 8, 8, 8), 1))


def test_R6_3_almagro_may_take_the_top_of_the_pile_even_in_a_storm() -> None:
    """R6.3: Diego de Almagro's owner may take the top development of the pile instead, even
    under Storm (ruling)."""
    g = new_game(3, seed=3)
    give(g, 0, "D36")
    start_turn(g, 0, [1, 1, 1], event="ST")
    top = g.devpile[-1]
    queue = list(g.queue)
    assert MakeSet(1, (1, 1, 1), TARGET_DRAW) in g.legal(0)
    g.apply(0, MakeSet(1, (1, 1, 1), TARGET_DRAW))
    assert g.devs[0][-1] == top
    assert g.queue == queue


def test_R6_3_only_almagro_draws_and_only_while_a_card_is_left() -> None:
    """R6.3: drawing from the pile needs Almagro and a non-empty pile."""
    g = new_game(3, seed=3)
    start_turn(g, 0, [1, 1, 1])
    assert_refused(g, 0, MakeSet(1, (1, 1, 1), TARGET_DRAW), "R6.3")
    give(g, 0, "D36")
    g.devpile.clear()  # (arranged: the cards are forgotten, conservation is not checked)
    invalidate(g)
    assert MakeSet(1, (1, 1, 1), TARGET_DRAW) not in g.legal(0)
    assert_refused(g, 0, MakeSet(1, (1, 1, 1), TARGET_DRAW), "R6.3")


def test_R6_3_target_outside_the_queue_is_refused() -> None:
    """R6.3: queue positions are 1 to the queue's length."""
    g = new_game(3, seed=3)
    start_turn(g, 0, [9, 9, 9])
    assert_refused(g, 0, MakeSet(9, (9, 9, 9), 6), "R6.3")
    assert_refused(g, 0, MakeSet(9, (9, 9, 9), -5), "R6.3")


# -- R6.4 refilling the queue ---------------------------------------------------------------------


def test_R6_4_taken_card_is_replaced_cards_slide_forward() -> None:
    """R6.4: the cards behind slide forward; the top of the pile fills position 5."""
    g = new_game(3, seed=4)
    start_turn(g, 0, [9, 9, 9])
    q, top = list(g.queue), g.devpile[-1]
    g.apply(0, MakeSet(9, (9, 9, 9), 2))
    assert g.queue == [q[0], q[2], q[3], q[4], top]
    assert events(g, "set")[-1]["refill"] == top


def test_R6_4_empty_pile_leaves_the_queue_short_and_ends_the_game() -> None:
    """R6.4/R8.3: the pile is empty: the queue stays short and the game ends this round."""
    g = new_game(3, seed=4)
    while g.devpile:
        give(g, 2, g.devpile[0])
    start_turn(g, 0, [9, 9, 9], last=True)
    q = list(g.queue)
    g.apply(0, MakeSet(9, (9, 9, 9), 1))
    assert events(g, "set")[-1]["refill"] is None
    assert g.queue == q[1:]
    assert g.queue_short
    # The empty hand ends the turn (the engine plays the only choice) and the round.
    assert g.is_over
    assert g.result is not None and g.result.reason == "queue"


# -- R6.5 / R6.6 merchants ------------------------------------------------------------------------


def test_R6_5_merchant_converts_one_card_into_its_class() -> None:
    """R6.5: a rare merchant turns a 1 into a 9 (value picked by the owner); the card counts
    as a 9 for the turn."""
    g = new_game(3, seed=5)
    give(g, 0, "D19")
    start_turn(g, 0, [1, 9, 9])
    assert Convert(1, 9) in g.legal(0)
    assert_refused(g, 0, Convert(1, 4), "R6.5")  # no uncommon merchant
    g.apply(0, Convert(1, 9))
    assert g.hands[0] == to_counts([9, 9, 9])
    g.apply(0, MakeSet(9, (9, 9, 9), 5))
    assert sorted(events(g, "set")[-1]["spent"]) == [1, 9, 9]  # the real cards are discarded
    assert_conserved(g)


def test_R6_5_merchant_once_per_round() -> None:
    """R6.5: each merchant converts once per round."""
    g = new_game(3, seed=5)
    give(g, 0, "D13")
    start_turn(g, 0, [5, 6, 1, 1])
    g.apply(0, Convert(5, 1))
    assert not any(isinstance(d, Convert) for d in g.legal(0))
    assert_refused(g, 0, Convert(6, 1), "R6.5")


def test_R6_5_two_merchants_two_conversions() -> None:
    """R6.5: each merchant has its own conversion."""
    g = new_game(3, seed=5)
    give(g, 0, "D13", "D14")
    start_turn(g, 0, [5, 6, 1])
    g.apply(0, Convert(5, 1))
    g.apply(0, Convert(6, 1))
    g.apply(0, MakeSet(1, (1, 1, 1), 1))
    assert len(g.devs[0]) == 3
    assert_conserved(g)


def test_R6_5_a_relic_may_be_converted() -> None:
    """R6.5 ruling: a relic too may be turned into a value."""
    g = new_game(3, seed=5)
    give(g, 0, "D16")
    start_turn(g, 0, [R, 4, 5, 6, 7])
    g.apply(0, Convert(R, 4))
    g.apply(0, MakeSeries((4, 5, 6, 7)))
    # The converted card is spent first: the relic is discarded, the real 4 stays in hand.
    assert events(g, "series")[-1]["spent"] == (5, 6, 7, R)
    # Nothing else to do: the turn ends by itself; the 4 waits in hand for the discard
    # after every turn (R6.10).
    assert g.active == 1 and g.hands[0] == to_counts([4])
    end_turns(g)
    assert [e["cards"] for e in events(g, "discard") if e["seat"] == 0] == [(4,)]
    assert_conserved(g)


def test_R6_5_converted_card_is_not_converted_again() -> None:
    """R6.5: a converted card cannot be converted by another merchant."""
    g = new_game(3, seed=5)
    give(g, 0, "D13", "D19")
    start_turn(g, 0, [5, 2])
    g.apply(0, Convert(5, 1))
    assert_refused(g, 0, Convert(1, 9), "R6.5")
    assert Convert(1, 9) not in g.legal(0)
    assert Convert(2, 9) in g.legal(0)


def test_R6_5_bad_conversions_are_refused() -> None:
    """R6.5: a value 1-9 of the merchant's class, from a card held, not the same value."""
    g = new_game(3, seed=5)
    give(g, 0, "D13")
    start_turn(g, 0, [5, 1])
    assert_refused(g, 0, Convert(1, 1), "R6.5")
    assert_refused(g, 0, Convert(9, 1), "R6.5")
    assert_refused(g, 0, Convert(5, R), "R6.5")
    assert_refused(g, 0, Convert(5, 0), "R6.5")


def test_R6_5_converted_card_reverts_at_the_end_of_the_turn() -> None:
    """R6.5: the new value holds for the rest of the turn only: the card is stored or
    discarded as what it is."""
    g = halt_at_round_end(new_game(3, seed=5))  # stored stays
    give(g, 0, "D13", "D26")
    start_turn(g, 0, [5, 6])
    g.apply(0, Convert(5, 2))
    # Nothing else to do: the turn ends by itself and the card is a 5 again.
    assert g.phase == "turn" and g.active == 1
    assert g.hands[0] == to_counts([5, 6])
    assert g.converted == []
    end_turns(g)  # the storage step, after every turn (R6.9)
    assert g.phase == "store" and g.waiting_seats() == (0,)
    assert Store((5,)) in g.legal(0) and Store((2,)) not in g.legal(0)
    assert_refused(g, 0, Store((2,)), "R6.9")
    g.apply(0, Store((5,)))
    assert g.stored[0] == to_counts([5])
    assert_conserved(g)


def test_R6_5_merchant_not_used_for_another_seat() -> None:
    """R6.5: a merchant acts in its owner's turn only."""
    g = new_game(3, seed=5)
    give(g, 1, "D13")
    start_turn(g, 0, [5, 1])
    assert not any(isinstance(d, Convert) for d in g.legal(0))
    assert_refused(g, 0, Convert(5, 1), "R6.5")


def test_R6_6_merchant_taken_this_turn_converts_at_once() -> None:
    """R6.6: a development works from the moment it is taken."""
    g = new_game(3, seed=5)
    put_queue_first(g, "D19")
    start_turn(g, 0, [1, 1, 1, 4, 8])
    g.apply(0, MakeSet(1, (1, 1, 1), 1))
    assert g.devs[0] == ["D19"]
    g.apply(0, Convert(4, 9))
    assert events(g, "convert")[-1] == {"seat": 0, "merchant": "D19", "source": 4, "value": 9}


def test_R6_6_caravel_counts_from_the_next_supply() -> None:
    """R6.6: a caravel taken now is not used until the next supply step."""
    g = new_game(3, seed=5)
    put_queue_first(g, "D03")
    start_turn(g, 0, [1, 1, 1], last=True)
    g.apply(0, MakeSet(1, (1, 1, 1), 1))
    assert g.caravels[0] == ["D03"]
    assert len(g.display) == 0
    # The empty hand ends the turn and the round; the next supply turns 1 card for it.
    assert g.round == 2
    assert len(events(g, "display")[-1]["cards"]) == 1


# -- R6.7 / R6.8 income and shipyards -------------------------------------------------------------


def test_R6_7_income_at_the_end_of_the_turn_including_cards_taken_this_turn() -> None:
    """R6.7: printed income of every development owned, those just taken included."""
    g = new_game(3, seed=6)
    give(g, 0, "D42", "D26")  # Cortés 3, warehouse 1
    put_queue_first(g, "D15")  # merchant, income 2
    start_turn(g, 0, [2, 2, 2, R])
    g.apply(0, MakeSet(2, (2, 2, 2), 1))
    assert g.doubloons[0] == 0
    g.apply(0, EndTurn())
    assert g.doubloons[0] == 6
    assert income_of_turn(g, 0) == 6


def test_R6_7_no_income_without_developments() -> None:
    """R6.7: no development, no income."""
    g = new_game(3, seed=6)
    start_turn(g, 0, [2])
    g.apply(0, EndTurn())
    assert g.doubloons[0] == 0


def test_R6_8_shipyards_pay_per_opponent_with_more_caravels() -> None:
    """R6.8: 1 doubloon per shipyard for each opponent with more caravels."""
    g = new_game(4, seed=7)
    give(g, 0, "D30", "D31", "D01")  # 2 shipyards, 1 caravel
    give(g, 1, "D02", "D03")  # 2 caravels: more
    give(g, 2, "D04")  # 1 caravel: not more
    give(g, 3, "D05", "D06", "D07")  # 3 caravels: more
    start_turn(g, 0, [2])
    g.apply(0, EndTurn())
    assert g.doubloons[0] == 4
    assert events(g, "income")[-1]["parts"] == {"shipyards": 4}


# -- R6.9 / R6.10 warehouses and discard ----------------------------------------------------------
#
# Rules edition 2 (the default): every player takes his progression turn and keeps his hand;
# then every seat that may store chooses, at once and in secret (phase store); then every hand
# is discarded at once, face up, and the round ends. Rules edition 1 (Options.rules=1, the
# reading before the correction) stored and discarded at the end of each turn: its tests are
# named first_edition.


def test_R6_9_store_up_to_the_warehouses_capacity() -> None:
    """R6.9: a warehouse for 2 and one for 1 keep up to 3 cards; more is refused."""
    g = halt_at_round_end(new_game(3, seed=8))  # stored stays
    give(g, 0, "D22", "D26")
    start_turn(g, 0, [1, 5, 9, R])
    g.apply(0, EndTurn())
    end_turns(g)
    assert g.phase == "store"
    assert g.pending == Pending("store", (0,), {"capacity": {0: 3}})
    assert_refused(g, 0, Store((1, 5, 9, R)), "R6.9")
    assert_refused(g, 0, Store((2,)), "R6.9")
    g.apply(0, Store((5, 9, R)))
    assert g.stored[0] == to_counts([5, 9, R])
    assert [e["cards"] for e in events(g, "discard") if e["seat"] == 0] == [(1,)]
    assert_conserved(g)


def test_R6_9_stored_cards_are_hidden() -> None:
    """R6.9: opponents see how many cards are stored, not which."""
    g = halt_at_round_end(new_game(3, seed=8))
    give(g, 0, "D22")
    start_turn(g, 0, [7, 9])
    g.apply(0, EndTurn())
    end_turns(g)
    g.apply(0, Store((7, 9)))
    other = PlayerView(g, 1).to_dict()
    assert other["stored_sizes"][0] == 2
    assert "stored" not in other or other["stored"] == ()
    assert PlayerView(g, 0).stored == (7, 9)
    store = [e for e in public_log(g, 1) if e["kind"] == "store"][-1]
    assert "cards" not in store
    assert store["count"] == 2
    assert stored_event_cards(g, 0) == (7, 9)


def test_R6_9_fire_no_storing_but_warehouse_income_paid() -> None:
    """R6.9 ruling: under Fire nothing is stored, but warehouse income is still paid."""
    g = new_game(3, seed=8)
    give(g, 0, "D26")
    start_turn(g, 0, [3, 4], event="FI")
    g.apply(0, EndTurn())
    assert g.phase == "turn" and g.active == 1
    assert g.doubloons[0] == 1
    end_turns(g)  # nobody else may store: no storage step
    assert events(g, "store") == []
    assert g.stored[0] == [0] * 11


def test_R6_9_storage_is_chosen_only_after_the_last_progression_turn() -> None:
    """R6.9: a player keeps his hand at the end of his turn; storage is chosen when every
    player has played (turn_index == players), never in the turns: a Store then is not the
    pending decision (R7)."""
    g = new_game(3, seed=8)
    give(g, 0, "D22")
    give(g, 1, "D26")
    give(g, 2, "D28")
    start_turn(g, 0, [1, 5, 9])  # the others hold a relic
    g.apply(0, EndTurn())
    assert g.phase == "turn" and g.active == 1 and g.turn_index == 1
    assert g.hands[0] == to_counts([1, 5, 9])  # kept for the storage step
    assert events(g, "store") == [] and events(g, "discard") == []
    for seat in range(3):
        assert_refused(g, seat, Store(()), "R7")
    assert_refused(g, 0, Store((5, 9)), "R7")
    g.apply(1, EndTurn())
    assert g.phase == "turn" and g.active == 2
    assert_refused(g, 0, Store((5, 9)), "R7")
    g.apply(2, EndTurn())
    assert g.phase == "store" and g.turn_index == g.players == 3
    # Every seat that may store is asked at once.
    assert g.store_due == {0: 2, 1: 1, 2: 1}
    assert g.pending == Pending("store", (0, 1, 2), {"capacity": {0: 2, 1: 1, 2: 1}})
    assert g.waiting_seats() == (0, 1, 2)
    for viewer in (None, 0, 1, 2):
        view = PlayerView(g, viewer)
        assert view.store_due == (2, 1, 1) and view.store_done == ()
    assert all(g.legal(s) for s in range(3))


def _storage_step(halt: bool = False) -> Game:
    """Three seats with warehouses, every turn played: seat 2 played last; seats 0 and 1 kept
    their hands."""
    g = new_game(3, seed=9)
    if halt:
        halt_at_round_end(g)
    give(g, 0, "D22")  # holds 2
    give(g, 1, "D26")  # holds 1
    give(g, 2, "D28")  # holds 1
    calm(g)
    start_turn(g, 2, [3, 8], last=True, kept={0: [1, 5, 9, R], 1: [2, 6, 6]})
    g.apply(2, EndTurn())
    assert g.phase == "store" and g.waiting_seats() == (0, 1, 2)
    return g


def test_R6_9_a_choice_stays_secret_and_changes_nothing_for_the_others() -> None:
    """R6.9 ruling: all choose at once and in secret. Until the last choice is in, nothing of
    a submitted choice reaches the other seats' views or the public log (only store_done says
    who has chosen), nothing is stored yet, and the other waiting seats' legal choices are the
    same as before: no seat's choice can depend on another's."""
    g = _storage_step()
    observers = (None, 1, 2)
    views = {s: PlayerView(g, s).to_dict() for s in observers}
    legal = {s: list(g.legal(s)) for s in (1, 2)}
    hands, stored, mark = [h[:] for h in g.hands], [h[:] for h in g.stored], len(g.log)
    g.apply(0, Store((9, R)))
    assert g.phase == "store" and g.waiting_seats() == (1, 2)
    assert g.hands == hands and g.stored == stored  # nothing stored or discarded yet
    for s in observers:
        after = PlayerView(g, s).to_dict()
        assert after["store_done"] == (0,) and views[s]["store_done"] == ()
        assert after["pending"] == {**views[s]["pending"], "seats": (1, 2)}
        unchanged = {"store_done", "pending"}
        assert {k: v for k, v in after.items() if k not in unchanged} == \
            {k: v for k, v in views[s].items() if k not in unchanged}
        assert public_log(g, s, mark) == [
            {"kind": "decision", "seat": 0, "type": "Store", "auto": False}]
    assert {s: g.legal(s) for s in (1, 2)} == legal
    # The seat that chose sees its own choice in its log, and cannot choose again.
    assert public_log(g, 0, mark)[0]["decision"] == Store((9, R))
    assert PlayerView(g, 0).hand == (1, 5, 9, R)
    assert_refused(g, 0, Store(()), "R6.9")
    g.apply(2, Store((8,)))
    assert PlayerView(g, 1).store_done == (0, 2)
    assert events(g, "store") == []
    g.apply(1, Store((6,)))
    # All in: stored at once, one store event per seat (count public, cards private).
    assert events(g, "store", mark) == [{"seat": 0, "count": 2}, {"seat": 1, "count": 1},
                                        {"seat": 2, "count": 1}]
    assert [stored_event_cards(g, s) for s in range(3)] == [(9, R), (6,), (8,)]


def test_R6_9_a_choice_over_the_capacity_or_not_in_hand_is_refused() -> None:
    """R6.9: up to the warehouses' total capacity, from the hand; the error names R6.9."""
    g = _storage_step()
    assert_refused(g, 0, Store((1, 5, 9)), "R6.9")
    assert_refused(g, 1, Store((2, 6)), "R6.9")
    assert_refused(g, 1, Store((5,)), "R6.9")  # not in seat 1's hand
    assert_refused(g, 0, Store((2,)), "R6.9")
    assert {len(d.cards) for d in g.legal(0) if isinstance(d, Store)} == {0, 1, 2}
    assert {len(d.cards) for d in g.legal(1) if isinstance(d, Store)} == {0, 1}
    g.apply(0, Store(()))  # keeping nothing is a choice too
    assert g.waiting_seats() == (1, 2)


def test_R6_9_fire_seats_hit_are_not_asked_cosa_is_income_still_paid() -> None:
    """R6.9 ruling and R3.4: under Fire no seat hit by it is asked and all its cards are
    discarded, while its warehouse income is still paid; the owner of Juan de la Cosa (D37) is
    not hit, and is asked."""
    g = halt_at_round_end(new_game(4, seed=10))
    give(g, 0, "D26")  # warehouse for 1, income 1: hit by Fire
    give(g, 1, "D37", "D22")  # Cosa and a warehouse for 2: not hit
    give(g, 3, "D28")  # a warehouse, but an empty hand
    start_turn(g, 0, [5, 6], event="FI", last=True, kept={1: [7, 8, R], 2: [3, 4]})
    g.apply(0, EndTurn())
    assert events(g, "income")[-1] == {"seat": 0, "gain": 1, "parts": {"printed": 1}}
    assert g.doubloons[0] == 1
    assert g.phase == "store"
    assert g.store_due == {1: 2}
    assert g.pending == Pending("store", (1,), {"capacity": {1: 2}})
    for seat in (0, 2, 3):
        assert g.legal(seat) == []
        assert_refused(g, seat, Store(()), "R6.9")
    assert_refused(g, 0, Store((5,)), "R6.9")
    g.apply(1, Store((7, R)))
    assert [e["seat"] for e in events(g, "store")] == [1]
    assert g.stored == [[0] * 11, to_counts([7, R]), [0] * 11, [0] * 11]
    assert [(e["seat"], e["cards"]) for e in events(g, "discard")] == [
        (0, (5, 6)), (1, (8,)), (2, (3, 4)), (3, ())]
    assert_conserved(g)


def test_R6_9_a_seat_without_warehouse_or_without_cards_is_not_asked() -> None:
    """R6.9: only seats with warehouse capacity and cards in hand are asked."""
    g = new_game(3, seed=11)
    give(g, 0, "D22")  # a warehouse and cards: asked
    give(g, 1, "D26")  # a warehouse, no card left
    start_turn(g, 2, [1, 2], last=True, kept={0: [4]})  # seat 2: cards, no warehouse
    g.apply(2, EndTurn())
    assert g.phase == "store"
    assert g.pending == Pending("store", (0,), {"capacity": {0: 2}})
    assert PlayerView(g, 2).store_due == (2, 0, 0)
    assert g.legal(1) == [] and g.legal(2) == []


@pytest.mark.parametrize("fire", [False, True])
def test_R6_9_nobody_may_store_straight_to_the_discard_and_the_next_round(fire: bool) -> None:
    """R6.9/R6.10: when no seat may store (no warehouse, or all hit by Fire), the hands are
    discarded right after the last turn and the next round begins."""
    g = new_game(3, seed=12)
    if fire:
        give(g, 1, "D26")
    calm(g)
    start_turn(g, 0, [5, 6], event="FI" if fire else None, last=True,
               kept={1: [1, 2], 2: [R]})
    mark = len(g.log)
    g.apply(0, EndTurn())
    kinds = [e.kind for e in g.log[mark:]]
    assert kinds[:kinds.index("round")] == [
        "decision", "income", "discard", "discard", "discard", "round_end"]
    assert [(e["seat"], e["cards"]) for e in events(g, "discard", mark)] == [
        (0, (5, 6)), (1, (1, 2)), (2, (R,))]
    assert g.round == 2 and g.phase != "store"
    assert events(g, "store") == []
    assert_conserved(g)


def test_R6_9_first_edition_stores_at_the_end_of_each_turn() -> None:
    """R6.9 as rules edition 1 read it (Options.rules=1, kept so that old records replay):
    the player stores at the end of his own turn, then discards, then the next turn."""
    g = new_game(3, seed=8, rules=1)
    give(g, 0, "D22", "D26")
    start_turn(g, 0, [1, 5, 9, R])
    g.apply(0, EndTurn())
    assert g.phase == "store" and g.turn_index == 0
    assert g.pending == Pending("store", (0,), {"capacity": {0: 3}})
    assert_refused(g, 0, Store((1, 5, 9, R)), "R6.9")
    assert_refused(g, 0, Store((2,)), "R6.9")
    g.apply(0, Store((5, 9, R)))
    assert g.stored[0] == to_counts([5, 9, R])
    assert events(g, "discard")[-1] == {"seat": 0, "cards": (1,)}
    assert g.phase == "turn" and g.active == 1
    assert_conserved(g)


def test_R6_9_the_last_round_asks_no_storage_at_the_round_limit() -> None:
    """R6.9 ruling: when the end of the round ends the game (here the round limit, R8.5), no
    round follows for stored cards to come back in: nobody is asked, every hand is discarded
    (R6.10) and the game is over."""
    g = new_game(3, seed=9, round_limit=1)
    give(g, 0, "D22")
    give(g, 1, "D26")
    calm(g)
    start_turn(g, 2, [3, 8], last=True, kept={0: [1, 5, 9, R], 1: [2, 6, 6]})
    mark = len(g.log)
    g.apply(2, EndTurn())
    assert g.phase == "over" and g.result is not None and g.result.reason == "round_limit"
    assert events(g, "store", mark) == []
    assert events(g, "discard", mark) == [{"seat": 0, "cards": (1, 5, 9, R)},
                                          {"seat": 1, "cards": (2, 6, 6)},
                                          {"seat": 2, "cards": (3, 8)}]
    assert g.stored[0] == g.stored[1] == [0] * 11
    assert_conserved(g)


def test_R6_9_no_storage_once_the_end_of_the_round_is_certain_by_r8_2() -> None:
    """R6.9 ruling: 75 doubloons reached in a progression turn end the game at the end of the
    round (R8.2), whatever is stored: no storage step. Short of it, the step comes."""
    for money, asked in ((75, False), (74, True)):
        g = new_game(3, seed=9)
        give(g, 0, "D22")
        calm(g)
        start_turn(g, 2, [3, 8], last=True, kept={0: [1, 5, 9, R], 1: [2, 6, 6]})
        g.doubloons[1] = money
        g.apply(2, EndTurn())
        assert (g.phase == "store") is asked, money
        assert (g.result is not None and g.result.reason == "doubloons") is not asked


def test_R6_10_every_hand_is_discarded_at_once_face_up_after_the_last_choice() -> None:
    """R6.10: when the last storage choice is in, every other card of every hand is
    discarded: all the discard events come together, in seat order, with no decision between
    them, their cards public (every seat and a spectator read them); the hands are then empty
    and the round ends."""
    g = _storage_step(halt=True)
    g.apply(2, Store(()))
    g.apply(1, Store((6,)))
    discard_before = len(g.discard)
    mark = len(g.log)
    g.apply(0, Store((9, R)))
    assert [(e.kind, e.public.get("seat")) for e in g.log[mark:]] == [
        ("decision", 0), ("store", 0), ("store", 1), ("store", 2),
        ("discard", 0), ("discard", 1), ("discard", 2), ("round_end", None)]
    expected = [{"seat": 0, "cards": (1, 5)}, {"seat": 1, "cards": (2, 6)},
                {"seat": 2, "cards": (3, 8)}]
    assert events(g, "discard", mark) == expected
    for seat in (None, 0, 1, 2):
        assert [{k: e[k] for k in ("seat", "cards")} for e in public_log(g, seat, mark)
                if e["kind"] == "discard"] == expected
        assert sorted(PlayerView(g, seat).discard) == sorted(g.discard)
    assert all(not any(h) for h in g.hands)
    assert len(g.discard) == discard_before + 6
    assert g.stored == [to_counts([9, R]), to_counts([6]), [0] * 11]
    assert_conserved(g)


def test_R6_10_stored_cards_come_back_at_the_next_supply() -> None:
    """R6.10/R4.1: the discard ends the round; the stored cards return to their owners' hands
    at the next supply, before the deal."""
    g = _storage_step()
    g.apply(0, Store((9, R)))
    g.apply(1, Store((6,)))
    mark = len(g.log)
    g.apply(2, Store(()))
    assert g.round == 2
    unstore = [e for e in g.log[mark:] if e.kind == "unstore"]
    assert [(e.public, e.private) for e in unstore] == [
        ({"seat": 0, "count": 2}, {0: {"cards": (9, R)}}),
        ({"seat": 1, "count": 1}, {1: {"cards": (6,)}})]
    kinds = [e.kind for e in g.log[mark:]]
    assert kinds.index("discard") < kinds.index("round") < kinds.index("unstore") \
        < kinds.index("deal")
    deal = next(e for e in g.log[mark:] if e.kind == "deal")
    assert deal.private is not None
    assert g.hands[0] == to_counts([9, R, *deal.private[0]["cards"]])
    assert g.hands[1] == to_counts([6, *deal.private[1]["cards"]])
    assert g.stored == [[0] * 11] * 3
    assert_conserved(g)


def test_R6_10_first_edition_discards_at_the_end_of_each_turn() -> None:
    """R6.10 as rules edition 1 read it: every card left in hand is discarded face up at the
    end of the player's own turn."""
    g = new_game(3, seed=8, rules=1)
    start_turn(g, 0, [3, 4, R])
    before = len(g.discard)
    g.apply(0, EndTurn())
    assert g.hands[0] == [0] * 11
    assert len(g.discard) == before + 3
    assert events(g, "discard")[-1] == {"seat": 0, "cards": (3, 4, R)}
    assert sorted(PlayerView(g, 2).discard) == sorted(g.discard)


def test_R6_10_other_cards_are_discarded_face_up() -> None:
    """R6.10: every card left in hand is discarded face up, once every turn is played."""
    g = new_game(3, seed=8)
    start_turn(g, 0, [3, 4, R])
    before = len(g.discard)
    g.apply(0, EndTurn())
    assert g.hands[0] == to_counts([3, 4, R])  # kept until every player has played
    end_turns(g)
    assert len(g.discard) == before + 5  # seat 0's three cards, the others' relics
    assert events(g, "discard")[0] == {"seat": 0, "cards": (3, 4, R)}
    assert [e["seat"] for e in events(g, "discard")] == [0, 1, 2]
    assert sorted(PlayerView(g, 2).discard) == sorted(g.discard)


def test_R6_turn_refuses_decisions_of_other_seats() -> None:
    """R6.1/R7: only the player whose turn it is decides."""
    g = new_game(3, seed=8)
    start_turn(g, 0, [3, 4, R])
    assert_refused(g, 1, EndTurn(), "R6.1")
    assert_refused(g, 0, Store(()), "R7")
