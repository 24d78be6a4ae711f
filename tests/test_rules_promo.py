"""The promo cards P01-P05 (RULES.md section 10)."""

from __future__ import annotations

import pytest
from support.positions import (
    R,
    assert_conserved,
    assert_refused,
    begin_round,
    calm,
    end_turns,
    events,
    give,
    new_game,
    put_queue_first,
    set_market,
    start_turn,
)

from mundus_net.engine.decisions import TARGET_CASH, BuyMarket, EndTurn, MakeSet
from mundus_net.engine.deck import default_deck
from mundus_net.engine.game import Game

PROMO = ("P01", "P02", "P03", "P04", "P05")


def promo_game(players: int = 3, seed: int = 0) -> Game:
    return new_game(players, seed, promo=True)


def income(g: Game, seat: int) -> dict[str, int]:
    parts: dict[str, int] = [e for e in events(g, "income") if e["seat"] == seat][-1]["parts"]
    return parts


def test_promo_cards_are_off_unless_the_host_turns_them_on() -> None:
    """Section 10 (P01-P05): promo cards are in play only with the promo option, for 2+."""
    deck = default_deck()
    assert [c.id for c in deck.cards if c.group == "promo"] == list(PROMO)
    assert all(deck[p].players == 2 and deck[p].icon is None for p in PROMO)
    off = new_game(2, 0)
    assert not set(PROMO) & {*off.queue, *off.devpile}
    on = promo_game(2, 0)
    assert set(PROMO) <= {*on.queue, *on.devpile}
    assert len(on.queue) + len(on.devpile) == 29


# -- P01 Sergio de Lagio --------------------------------------------------------------------------


def sergio_game(doubloons: int = 4) -> Game:
    g = promo_game(3, seed=1)
    give(g, 1, "P01", "D01")
    g.doubloons[1] = doubloons
    calm(g)
    return g


def test_P01_sergio_buys_a_market_card_after_the_caravel_picks() -> None:
    """P01: at the end of the supply step, after the picks, Sergio's owner may pay 2 to take
    a market card into hand; the market is refilled from the draw pile."""
    g = sergio_game()
    set_market(g, [2, 5, R])
    begin_round(g, 2, display=[7])
    assert events(g, "pick")[-1]["seat"] == 1  # the single pick came first
    assert g.phase == "sergio" and g.active == 1
    assert g.legal(1) == [BuyMarket(None), BuyMarket(2), BuyMarket(5), BuyMarket(R)]
    top = g.draw[-1]
    hand = list(g.hands[1])
    g.apply(1, BuyMarket(R))
    assert g.doubloons[1] == 2
    assert g.hands[1][R] == hand[R] + 1
    assert sorted(g.market) == sorted([2, 5, top])
    assert g.phase == "announce"
    assert_conserved(g)


def test_P01_sergio_may_pass() -> None:
    """P01: passing costs nothing."""
    g = sergio_game()
    begin_round(g, 2, display=[7])
    market = list(g.market)
    g.apply(1, BuyMarket(None))
    assert g.doubloons[1] == 4 and g.market == market


def test_P01_sergio_refusals() -> None:
    """P01: only a card in the market; at least 2 doubloons (R1.4)."""
    g = sergio_game()
    set_market(g, [2, 5, R])
    begin_round(g, 2, display=[7])
    assert_refused(g, 1, BuyMarket(9), "P01")
    assert_refused(g, 0, BuyMarket(2), "P01")
    g.doubloons[1] = 1  # (arranged)
    assert_refused(g, 1, BuyMarket(2), "R1.4")


def test_P01_sergio_not_asked_without_2_doubloons() -> None:
    """P01/R1.4: an owner with fewer than 2 doubloons is not asked."""
    g = sergio_game(doubloons=1)
    begin_round(g, 2, display=[7])
    assert g.phase == "announce"


def test_P01_sergio_comes_before_the_pirates() -> None:
    """P01/R4.7: Sergio's purchase ends the supply step; the pirates come right after."""
    g = promo_game(3, seed=1)
    give(g, 1, "P01", "D01", "D02")
    g.doubloons[1] = 4
    put_queue_first(g, "D30")  # Pirates
    begin_round(g, 2, display=[7, 8])
    assert g.phase == "sergio"  # after the (only possible) pick
    g.apply(1, BuyMarket(None))
    assert g.phase == "pirates"


# -- P02 Burón el Catalán -------------------------------------------------------------------------


def test_P02_buron_income_per_character_himself_included() -> None:
    """P02: 1 per character owned (himself included; merchants are not characters)."""
    g = promo_game(3, seed=2)
    give(g, 0, "P02", "D37", "D42", "D13", "P05", "D01")
    start_turn(g, 0, [1])
    g.apply(0, EndTurn())
    parts = income(g, 0)
    assert parts["buron"] == 3  # Burón, Cosa, Cortés (merchant, building, caravel: no)
    assert parts["printed"] == 1 + 3


def test_P02_characters_are_d36_to_d44_and_p01_to_p04() -> None:
    """P02: the characters of the deck."""
    deck = default_deck()
    chars = [c.id for c in deck.cards if c.is_character]
    assert chars == [f"D{i}" for i in range(36, 45)] + ["P01", "P02", "P03", "P04"]


# -- P03 Estefano Guante --------------------------------------------------------------------------


@pytest.mark.parametrize(("tm", "gain"), [(0, 3), (1, 0)])
def test_P03_estefano_3_doubloons_if_the_owner_is_the_trade_master(tm: int, gain: int) -> None:
    """P03: 3 doubloons at the end of the owner's progression turn if he is the TM."""
    g = promo_game(3, seed=3)
    give(g, 0, "P03")
    g.tm = tm
    start_turn(g, 0, [1])
    g.apply(0, EndTurn())
    assert g.doubloons[0] == gain
    assert income(g, 0).get("estefano", 0) == gain


# -- P04 Vicente de la Raya -----------------------------------------------------------------------


@pytest.mark.parametrize(("value", "pay"), [(2, 3), (5, 4), (9, 5), (1, 3)])
def test_P04_vicente_sells_a_set_of_3_for_doubloons(value: int, pay: int) -> None:
    """P04: an identical set of exactly 3 may become 3 / 4 / 5 doubloons by class."""
    g = promo_game(3, seed=4)
    give(g, 0, "P04")
    start_turn(g, 0, [value, value, R, 4, 4, 4, R])
    queue = list(g.queue)
    assert MakeSet(value, (value, value, R), TARGET_CASH) in g.legal(0)
    g.apply(0, MakeSet(value, (value, value, R), TARGET_CASH))
    assert g.doubloons[0] == pay
    assert g.queue == queue and g.devs[0] == ["P04"]
    # It still counts as the turn's identical set.
    assert_refused(g, 0, MakeSet(4, (4, 4, 4), 1), "R6.2")
    assert_conserved(g)


def test_P04_vicente_refusals() -> None:
    """P04: exactly 3 cards, and only for Vicente's owner."""
    g = promo_game(3, seed=4)
    give(g, 0, "P04")
    start_turn(g, 0, [5, 5, 5, 5])
    assert_refused(g, 0, MakeSet(5, (5, 5, 5, 5), TARGET_CASH), "P04")
    assert not any(isinstance(d, MakeSet) and d.target == TARGET_CASH and len(d.cards) != 3
                   for d in g.legal(0))
    g2 = promo_game(3, seed=4)
    start_turn(g2, 0, [5, 5, 5, 5])
    assert_refused(g2, 0, MakeSet(5, (5, 5, 5), TARGET_CASH), "P04")


def test_P04_vicente_with_kings_aid_sells_several_sets() -> None:
    """P04/R6.2: under King's Aid each set may be sold."""
    g = promo_game(3, seed=4)
    give(g, 0, "P04")
    start_turn(g, 0, [1, 1, 1, 8, 8, 8, R], event="KA")
    g.apply(0, MakeSet(1, (1, 1, 1), TARGET_CASH))
    g.apply(0, MakeSet(8, (8, 8, 8), TARGET_CASH))
    assert g.doubloons[0] == 8


# -- P05 Trading Post -----------------------------------------------------------------------------


def test_P05_trading_post_income_per_merchant_and_warehouse() -> None:
    """P05: income 1 per merchant and per warehouse owned."""
    g = promo_game(3, seed=5)
    give(g, 0, "P05", "D13", "D16", "D22", "D26", "D30", "D01")
    start_turn(g, 0, [1])
    g.apply(0, EndTurn())
    assert income(g, 0)["tradingpost"] == 4
    end_turns(g)  # the warehouses hold cards in the storage step, after every turn (R6.9)
    assert g.phase == "store"
    assert g.pending is not None and g.pending.seats == (0,)
    assert g.pending.detail == {"capacity": {0: 3}}
