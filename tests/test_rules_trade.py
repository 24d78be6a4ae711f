"""Rules R5: the trade step."""

from __future__ import annotations

from typing import cast

import pytest
from support.positions import (
    R,
    assert_conserved,
    assert_refused,
    events,
    give,
    new_game,
    set_market,
    start_announce,
    start_takes,
)

from mundus_net.engine.cards import to_counts
from mundus_net.engine.decisions import Announce, ChooseTradeMaster, Gift, Offer, Take
from mundus_net.engine.game import Game
from mundus_net.engine.view import public_log

# -- R5.1 the announcement ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_R5_1_trade_master_announces_2_3_or_4(n: int) -> None:
    """R5.1: the TM announces N in 2..4; the offers then have N cards."""
    g = new_game(3, seed=1)
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [1, 2, 3, 4, 5], 2: [1, 2, 3, 4, 5]}, tm=1)
    assert g.phase == "announce" and g.active == 1
    assert g.legal(1) == [Announce(2), Announce(3), Announce(4)]
    g.apply(1, Announce(n))
    assert g.phase == "offer" and g.announced == n
    assert g.pending is not None and g.pending.detail["sizes"][0] == (n, n)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_R5_1_other_announcements_are_refused(n: int) -> None:
    """R5.1: anything but 2, 3 or 4 is refused; only the TM announces."""
    g = new_game(3, seed=1)
    start_announce(g, {0: [1, 2, 3, 4, 5]}, tm=0)
    assert_refused(g, 0, Announce(n), "R5.1")
    assert_refused(g, 1, Announce(3), "R5.1")


# -- R5.2 offers ----------------------------------------------------------------------------------


def offer_game(**hands: list[int]) -> Game:
    g = new_game(3, seed=2)
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [2, 3, 4, 5, 6], 2: [5, 6, 7, 8, 9]}, tm=0)
    g.apply(0, Announce(3))
    return g


def test_R5_2_offer_exactly_n_cards() -> None:
    """R5.2: exactly N cards from the hand; more, fewer or cards not held are refused."""
    g = offer_game()
    assert_refused(g, 1, Offer((2, 3)), "R5.2")
    assert_refused(g, 1, Offer((2, 3, 4, 5)), "R5.2")
    assert_refused(g, 1, Offer((2, 3, 9)), "R5.2")
    assert_refused(g, 1, Offer((2, 2, 3)), "R5.2")
    g.apply(1, Offer((2, 3, 4)))
    assert_refused(g, 1, Offer((2, 3, 5)), "R5.2")  # an offer is fixed once made


def test_R5_2_short_hand_offers_all_it_has() -> None:
    """R5.2: min(N, hand size): a player with 2 cards offers both when N is 4."""
    g = new_game(3, seed=2)
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [6, 7], 2: [5, 6, 7, 8, 9]}, tm=0)
    g.apply(0, Announce(4))
    # Seat 1's only possible offer is applied by the engine.
    assert 1 not in g.waiting_seats()
    assert_refused(g, 0, Offer((1, 2)), "R5.2")


def test_R5_2_casas_may_offer_zero_to_n() -> None:
    """R5.2: Bartolomé de las Casas's owner may offer any number from 0 to min(N, hand)."""
    g = new_game(3, seed=2)
    give(g, 1, "D38")
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [2, 3, 4, 5, 6], 2: [5, 6, 7, 8, 9]}, tm=0)
    g.apply(0, Announce(3))
    assert g.pending is not None and g.pending.detail["sizes"][1] == (0, 3)
    sizes = {len(cast(Offer, d).cards) for d in g.legal(1)}
    assert sizes == {0, 1, 2, 3}
    assert_refused(g, 1, Offer((2, 3, 4, 5)), "R5.2")
    g.apply(1, Offer(()))
    assert g.offers[1] == ()


def test_R5_2_casas_as_trade_master_is_not_bound_by_his_announcement() -> None:
    """R5.2: Casas's owner, as TM, announces 4 and may still offer fewer."""
    g = new_game(3, seed=2)
    give(g, 0, "D38")
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [2, 3, 4, 5, 6], 2: [5, 6, 7, 8, 9]}, tm=0)
    g.apply(0, Announce(4))
    g.apply(0, Offer((5,)))
    assert_refused(g, 1, Offer((2,)), "R5.2")


# -- R5.3 secrecy ---------------------------------------------------------------------------------


def test_R5_3_offers_are_hidden_until_all_are_fixed_then_revealed_at_once() -> None:
    """R5.3: an offer stays face down (hand unchanged, only its size public) until the last
    one is fixed; then all are revealed together."""
    g = offer_game()
    g.apply(0, Offer((1, 2, 5)))
    g.apply(2, Offer((7, 8, 9)))
    assert g.faceup == [[0] * 11] * 3
    assert sum(g.hands[0]) == 5
    spectator = public_log(g, None)
    assert all("cards" not in e for e in spectator if e["kind"] == "offer")
    assert [e for e in public_log(g, 1) if e["kind"] == "offer"][-1]["count"] == 3
    assert events(g, "reveal") == []
    g.apply(1, Offer((4, 5, 6)))
    reveal = events(g, "reveal")[-1]
    assert reveal["offers"] == {0: (1, 2, 5), 1: (4, 5, 6), 2: (7, 8, 9)}
    assert g.faceup[0] == to_counts([1, 2, 5])
    assert sum(g.hands[0]) == 2


# -- R5.4 the new trade master --------------------------------------------------------------------


def test_R5_4_highest_offer_score_becomes_trade_master() -> None:
    """R5.4: the highest sum of trade values becomes TM."""
    g = offer_game()
    g.apply(0, Offer((3, 4, 5)))
    g.apply(1, Offer((2, 3, 4)))
    g.apply(2, Offer((5, 6, 7)))
    assert events(g, "reveal")[-1]["scores"] == (12, 9, 18)
    assert g.tm == 2
    assert g.phase == "take" and g.active == 2


def test_R5_4_valdivia_adds_3_to_the_offer_score() -> None:
    """R5.4: Pedro de Valdivia's owner scores 3 more: 9+3 = 12 beats 11."""
    g = new_game(3, seed=2)
    give(g, 1, "D40")
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [2, 3, 4, 5, 6], 2: [5, 6, 7, 8, 9]}, tm=0)
    g.apply(0, Announce(2))
    g.apply(0, Offer((1, 2)))
    g.apply(1, Offer((3, 6)))
    g.apply(2, Offer((5, 6)))
    assert events(g, "reveal")[-1]["scores"] == (3, 12, 11)
    assert g.tm == 1


def test_R5_4_trade_master_keeps_the_token_on_a_tie_he_is_in() -> None:
    """R5.4: a tie for highest that includes the current TM: he keeps the token."""
    g = new_game(3, seed=2)
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [2, 3, 4, 5, 6], 2: [1, 2, 3, 7, 8]}, tm=0)
    g.apply(0, Announce(2))
    g.apply(0, Offer((4, 5)))  # 9
    g.apply(2, Offer((1, 8)))  # 9
    g.apply(1, Offer((2, 3)))  # 5
    assert g.tm == 0
    assert events(g, "trade_master")[-1] == {"seat": 0, "previous": 0}
    assert g.phase == "take" and g.active == 0


def test_R5_4_trade_master_chooses_among_a_tie_without_him() -> None:
    """R5.4: the TM is not among the tied highest: he chooses the new TM among them; a
    choice outside the tie is refused."""
    g = new_game(3, seed=2)
    start_announce(g, {0: [1, 2, 3, 4, 5], 1: [2, 3, 4, 5, 6], 2: [1, 2, 3, 7, 8]}, tm=0)
    g.apply(0, Announce(2))
    g.apply(0, Offer((1, 2)))  # 3
    g.apply(1, Offer((3, 6)))  # 9
    g.apply(2, Offer((1, 8)))  # 9
    assert g.phase == "tm_tie" and g.active == 0
    assert g.legal(0) == [ChooseTradeMaster(1), ChooseTradeMaster(2)]
    assert_refused(g, 0, ChooseTradeMaster(0), "R5.4")
    assert_refused(g, 1, ChooseTradeMaster(1), "R5.4")
    g.apply(0, ChooseTradeMaster(2))
    assert g.tm == 2 and g.phase == "take" and g.active == 2


# -- R5.5 / R5.6 takes ----------------------------------------------------------------------------


def test_R5_5_take_into_hand() -> None:
    """R5.5: the taker takes a face-up card of another player into his hand."""
    g = new_game(3, seed=3)
    start_takes(g, {0: [1, 2], 1: [5, 6], 2: [8, 9]}, taker=0)
    g.apply(0, Take(1, 6, None))
    assert g.hands[0][6] == 1
    assert g.faceup[1] == to_counts([5])
    assert g.active == 1  # R5.6: the player whose card was taken takes next
    assert_conserved(g)


def test_R5_5_take_through_the_market() -> None:
    """R5.5: or puts it in the market and takes one of the other market cards; the market
    stays at 3 cards."""
    g = new_game(3, seed=3)
    start_takes(g, {0: [1, 2], 1: [5, 6], 2: [8, 9]}, taker=0)
    set_market(g, [3, 3, R])
    g.apply(0, Take(2, 9, R))
    assert g.market == [3, 3, 9]
    assert g.hands[0][R] == 1 and g.hands[0][9] == 0
    assert events(g, "take")[-1]["swap"] == R
    assert_conserved(g)


def test_R5_5_illegal_takes_are_refused() -> None:
    """R5.5: not one's own card, not a card that is not face up, not a swap for a card that
    is not in the market."""
    g = new_game(3, seed=3)
    start_takes(g, {0: [1, 2], 1: [5, 6], 2: [8, 9]}, taker=0)
    set_market(g, [3, 3, R])
    assert_refused(g, 0, Take(0, 1, None), "R5.5")
    assert_refused(g, 0, Take(1, 9, None), "R5.5")
    assert_refused(g, 0, Take(7, 9, None), "R5.5")
    assert_refused(g, 0, Take(1, 5, 4), "R5.5")
    assert_refused(g, 1, Take(0, 1, None), "R5.6")


def test_R5_6_new_trade_master_takes_first_then_the_one_taken_from() -> None:
    """R5.6: the new TM takes first; after each take the player just taken from is next."""
    g = offer_game()
    g.apply(0, Offer((3, 4, 5)))
    g.apply(1, Offer((2, 3, 4)))
    g.apply(2, Offer((5, 6, 7)))
    assert g.tm == 2 and g.active == 2
    g.apply(2, Take(0, 5, None))
    assert g.active == 0
    g.apply(0, Take(1, 4, None))
    assert g.active == 1
    assert g.takes == [(2, 0), (0, 1)]


# -- R5.7 no ping-pong ----------------------------------------------------------------------------


def test_R5_7_no_ping_pong_take_back() -> None:
    """R5.7: X took from Y, then Y took from X: X may not take from Y next."""
    g = new_game(3, seed=4)
    # X = 0 took from Y = 1, then Y took from X: X takes now.
    start_takes(g, {0: [1], 1: [5], 2: [8]}, taker=0, takes=[(0, 1), (1, 0)])
    assert {cast(Take, d).seat for d in g.legal(0)} == {2}
    err = assert_refused(g, 0, Take(1, 5, None), "R5.7")
    assert "ping-pong" in str(err)
    g.apply(0, Take(2, 8, None))


def test_R5_7_no_ping_pong_only_forbids_the_immediate_return() -> None:
    """R5.7: the restriction binds the next take only, after the exchange X-Y-X."""
    g = new_game(3, seed=4)
    start_takes(g, {0: [1], 1: [5], 2: [8]}, taker=0, takes=[(0, 1), (1, 2), (2, 0)])
    g.apply(0, Take(1, 5, None))
    # Y took from someone other than X: no restriction.


def test_R5_7_lifted_when_only_y_has_cards() -> None:
    """R5.7 ruling: if the only cards X could take belong to Y, X may take from Y."""
    g = new_game(3, seed=4)
    start_takes(g, {0: [1], 1: [5, 6]}, taker=0, takes=[(0, 1), (1, 0)])
    assert {cast(Take, d).seat for d in g.legal(0)} == {1}
    g.apply(0, Take(1, 5, None))


def test_R5_7_ignored_with_two_players() -> None:
    """R5.7: with 2 players there is no restriction."""
    g = new_game(2, seed=4)
    start_takes(g, {0: [1], 1: [5, 6]}, taker=0, takes=[(0, 1), (1, 0)])
    g.apply(0, Take(1, 5, None))


def test_R5_7_ping_pong_in_a_real_trade() -> None:
    """R5.7: played out from the offers: 2 takes from 0, 0 takes back from 2, so 2 may not
    take from 0 again while seat 1 still has cards."""
    g = offer_game()
    g.apply(0, Offer((3, 4, 5)))
    g.apply(1, Offer((2, 3, 4)))
    g.apply(2, Offer((5, 6, 7)))
    g.apply(2, Take(0, 5, None))
    g.apply(0, Take(2, 7, None))
    assert g.active == 2
    assert_refused(g, 2, Take(0, 4, None), "R5.7")
    assert all(cast(Take, d).seat == 1 for d in g.legal(2))


# -- R5.8 / R5.9 the end of the trade -------------------------------------------------------------


def test_R5_8_trade_ends_when_the_next_taker_has_only_his_own_cards_left() -> None:
    """R5.8: the next taker can take nothing: trading ends and face-up cards go home."""
    g = new_game(3, seed=5)
    start_takes(g, {0: [1], 1: [5, 6]}, taker=1, tm=1, hands={0: [9], 1: [2], 2: [3]})
    g.apply(1, Take(0, 1, None))
    assert g.phase == "take" and g.active == 0  # seat 0 can take seat 1's 5 or 6
    g.apply(0, Take(1, 5, None))
    # Seat 1 is next: only its own 6 is face up, so the trade ends (it is the TM: no gift).
    assert g.phase == "first"
    assert events(g, "trade_end")[-1]["returned"] == {1: (6,)}
    assert g.faceup == [[0] * 11] * 3
    assert g.hands[1][6] == 1
    assert_conserved(g)


def test_R5_9_trade_master_gives_a_card_to_the_last_taker() -> None:
    """R5.9: the last next taker is not the TM: he is one card short and the TM gives him a
    card of the TM's choice, secretly."""
    g = new_game(3, seed=5)
    start_takes(g, {1: [5], 2: [7]}, taker=0, tm=0, hands={0: [2, 9], 1: [3], 2: [4]})
    g.apply(0, Take(1, 5, None))
    # Seat 1 next: it can take seat 2's 7.
    g.apply(1, Take(2, 7, None))
    # Seat 2 next: nothing left: the trade ends with seat 2, not the TM.
    assert g.phase == "gift" and g.active == 0
    assert g.pending is not None and g.pending.detail == {"to": 2}
    assert_refused(g, 0, Gift(8), "R5.9")
    assert_refused(g, 2, Gift(4), "R5.9")
    g.apply(0, Gift(9))
    assert g.hands[2][9] == 1 and g.hands[0][9] == 0
    assert g.phase == "first"
    spectator = [e for e in public_log(g, None) if e["kind"] == "gift"][-1]
    assert "card" not in spectator
    receiver = [e for e in public_log(g, 2) if e["kind"] == "gift"][-1]
    assert receiver["card"] == 9
    assert_conserved(g)


def test_R5_9_nothing_when_the_last_taker_is_the_trade_master() -> None:
    """R5.9: if the last next taker is the TM, nothing is given."""
    g = new_game(3, seed=5)
    start_takes(g, {0: [1], 1: [5]}, taker=0, tm=0, hands={0: [2, 9], 1: [3], 2: [4]})
    g.apply(0, Take(1, 5, None))
    # Seat 1 takes seat 0's 1; seat 0 (the TM) is next with nothing to take: no gift.
    g.apply(1, Take(0, 1, None))
    assert g.phase == "first"
    assert events(g, "gift") == []
    assert events(g, "trade_end")[-1]["last"] == 0
    assert [sum(h) for h in g.hands] == [3, 2, 1]


# -- R5.10 Orellana -------------------------------------------------------------------------------


@pytest.mark.parametrize(("market", "card", "swap", "gain"), [
    ([4, 4, 1], 4, 1, 2),  # three identical
    ([R, R, 1], R, 1, 2),  # three relics count
    ([3, 5, 9], 4, 9, 2),  # three consecutive values
    ([3, 5, 9], 7, 9, 0),
    ([8, 9, 1], R, 1, 0),  # 8, 9, relic: relics are not consecutive values
    ([4, 4, 1], 4, 4, 0),
])
def test_R5_10_orellana_gains_2_for_a_full_or_consecutive_market(
        market: list[int], card: int, swap: int, gain: int) -> None:
    """R5.10: after putting a taken card in the market and taking one, Orellana's owner
    gains 2 if the market holds three identical or three consecutive values."""
    g = new_game(3, seed=6)
    give(g, 0, "D41")
    start_takes(g, {1: [card, 2]}, taker=0)
    set_market(g, market)
    g.apply(0, Take(1, card, swap))
    assert g.doubloons[0] == gain
    assert events(g, "take")[-1]["orellana"] == gain


def test_R5_10_orellana_several_times_a_round_and_only_for_its_owner() -> None:
    """R5.10: it can happen several times a round; another player gains nothing."""
    g = new_game(3, seed=6)
    give(g, 0, "D41")
    start_takes(g, {0: [4, 6], 1: [4, 4], 2: [4]}, taker=0)
    set_market(g, [4, 4, 1])
    g.apply(0, Take(1, 4, 1))  # market 4 4 4: +2
    assert g.doubloons[0] == 2
    g.apply(1, Take(0, 4, 4))  # market 4 4 4 again, but seat 1 does not own Orellana
    assert g.doubloons[1] == 0
    g.apply(0, Take(2, 4, 4))  # market 4 4 4 once more: +2 more
    assert g.doubloons == [4, 0, 0]


def test_R5_10_keeping_the_card_gains_nothing() -> None:
    """R5.10: only a take through the market counts."""
    g = new_game(3, seed=6)
    give(g, 0, "D41")
    start_takes(g, {1: [4, 2]}, taker=0)
    set_market(g, [4, 4, 1])
    g.apply(0, Take(1, 4, None))
    assert g.doubloons[0] == 0


# -- R5.11 public takes ---------------------------------------------------------------------------


def test_R5_11_who_took_what_and_the_market_are_public() -> None:
    """R5.11: a spectator sees every take: taker, source, card, swap and market."""
    g = new_game(3, seed=7)
    start_takes(g, {0: [1, 2], 1: [5, 6], 2: [8, 9]}, taker=0)
    set_market(g, [3, 3, R])
    g.apply(0, Take(2, 9, R))
    g.apply(2, Take(1, 5, None))
    takes = [e for e in public_log(g, None) if e["kind"] == "take"]
    assert [(e["seat"], e["source"], e["card"], e["swap"]) for e in takes] == [
        (0, 2, 9, R), (2, 1, 5, None)]
    assert takes[0]["market"] == (3, 3, 9)


def test_R5_11_offered_cards_change_hands_only_when_taken() -> None:
    """R5.11: offered cards stay their owner's until taken: after the takes each seat holds
    exactly what it took."""
    g = new_game(3, seed=7)
    start_takes(g, {0: [1, 2], 1: [5, 6]}, taker=0, tm=0)
    g.apply(0, Take(1, 5, None))
    g.apply(1, Take(0, 1, None))
    g.apply(0, Take(1, 6, None))
    # Seat 1 next: can take seat 0's 2... then seat 0 is next with nothing: ends at the TM.
    g.apply(1, Take(0, 2, None))
    assert g.phase == "first"
    assert g.hands[0] == to_counts([5, 6]) and g.hands[1] == to_counts([1, 2])
