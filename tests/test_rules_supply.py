"""Rules R4: the supply step."""

from __future__ import annotations

import pytest
from support.positions import (
    R,
    assert_conserved,
    assert_refused,
    begin_round,
    calm,
    clear_table,
    events,
    give,
    new_game,
    put_queue_first,
    set_stored,
)

from mundus_net.engine.cards import to_counts
from mundus_net.engine.decisions import PickCards, PirateDiscard, SplitFleet
from mundus_net.engine.deck import parse_deck
from mundus_net.engine.game import Game, Pending

NO_ICON = "D01"


def picks(g: Game) -> list[tuple[int, tuple[str, ...], tuple[int, ...]]]:
    return [(e["seat"], e["fleet"], e["cards"]) for e in events(g, "pick")]


# -- R4.1 warehouses ------------------------------------------------------------------------------


def test_R4_1_stored_cards_return_to_hand_before_the_deal() -> None:
    """R4.1: cards kept in warehouses return to their owner's hand, then 5 are dealt."""
    g = new_game(3, seed=1)
    give(g, 1, "D22")
    set_stored(g, 1, [R, 9])
    calm(g)
    mark = len(g.log)
    begin_round(g, 2, hands={1: [1, 2, 3, 4, 5]})
    assert g.hands[1] == to_counts([1, 2, 3, 4, 5, 9, R])
    assert g.stored[1] == [0] * 11
    kinds = [e.kind for e in g.log[mark:]]
    assert kinds.index("unstore") < kinds.index("deal")
    assert_conserved(g)


# -- R4.2 the deal --------------------------------------------------------------------------------


def test_R4_2_five_resources_to_each_player() -> None:
    """R4.2: everyone is dealt 5 resources face down."""
    g = new_game(5, seed=2)
    calm(g)
    begin_round(g, 2)
    assert [sum(h) for h in g.hands] == [5] * 5


def test_R4_2_empty_draw_pile_reshuffles_the_discard_pile() -> None:
    """R4.2 ruling: when the draw pile runs out, the discard pile becomes the new draw pile."""
    g = new_game(3, seed=2)
    calm(g)
    clear_table(g)
    g.discard.extend(g.draw[:-7])
    del g.draw[:-7]
    assert len(g.draw) == 7
    begin_round(g, 2)
    assert [sum(h) for h in g.hands] == [5, 5, 5]
    assert len(events(g, "reshuffle")) == 1
    assert g.reshuffles == 1
    assert_conserved(g)


def test_R4_2_both_piles_empty_deal_what_there_is() -> None:
    """R4.2: with the draw and discard piles empty, the deal stops short."""
    g = new_game(3, seed=2)
    calm(g)
    clear_table(g)
    # Park all but 7 cards in seat 2's warehouse, where the deal cannot reach them.
    parked = g.draw[:-7]
    del g.draw[:-7]
    g.stored[2] = to_counts(parked)
    g.discard = []
    begin_round(g, 2, tm=0)
    assert [sum(g.hands[s]) for s in (0, 1)] == [5, 2]
    assert sum(g.hands[2]) == len(parked)  # only its stored cards came back
    assert events(g, "deal")[-1]["counts"] == {0: 5, 1: 2, 2: 0}
    assert_conserved(g)


# -- R4.3 the caravel display ---------------------------------------------------------------------


def test_R4_3_one_display_card_per_caravel_in_play() -> None:
    """R4.3: 3 caravels among all players: 3 cards turned face up, apart from the market."""
    g = new_game(4, seed=3)
    give(g, 0, "D01", "D05")
    give(g, 3, "D06")
    calm(g)
    market = list(g.market)
    begin_round(g, 2)
    assert len(events(g, "display")[-1]["cards"]) == 3
    assert g.market == market


def test_R4_3_no_caravel_no_display() -> None:
    """R4.3: with no caravels in play nothing is turned and nobody picks."""
    g = new_game(4, seed=3)
    calm(g)
    begin_round(g, 2)
    assert events(g, "display")[-1]["cards"] == ()
    assert events(g, "pick") == []
    assert g.phase == "announce"


def test_R4_3_a_caravel_taken_this_round_counts_from_the_next_supply() -> None:
    """R4.3/R6.6: the display is sized by the caravels owned when the supply step starts."""
    g = new_game(4, seed=3)
    calm(g)
    begin_round(g, 2)
    assert g.display == []
    give(g, 0, "D03")
    calm(g)
    begin_round(g, 3)
    assert len(events(g, "display")[-1]["cards"]) == 1


# -- R4.4 Juan Ponce de León ----------------------------------------------------------------------


def ponce_game() -> Game:
    g = new_game(4, seed=4)
    give(g, 1, "D43", "D01", "D05", "D06")
    give(g, 2, "D04")
    calm(g)
    return g


def ponce_round(g: Game) -> None:
    begin_round(g, 2, display=[2, 3, 4, 6])


def test_R4_4_ponce_declares_a_split_each_round() -> None:
    """R4.4: Ponce de León's owner declares two non-empty fleets at the supply step."""
    g = ponce_game()
    ponce_round(g)
    assert g.phase == "split" and g.active == 1
    # His lowest caravel stays in the first fleet; any non-empty subset of the rest splits.
    assert SplitFleet(()) in g.legal(1)
    assert len(g.legal(1)) == 4
    g.apply(1, SplitFleet(("D06",)))
    assert [f for s, f in g.fleets if s == 1] == [("D01", "D05"), ("D06",)]
    # Fleets: seat 2 (value 4) first; seat 1's two fleets of value 6 by lowest caravel.
    assert g.pick_queue == [(2, ("D04",)), (1, ("D01", "D05")), (1, ("D06",))]
    while g.phase == "pick":
        g.apply(g.active, g.legal(g.active)[0])
    assert [(s, f) for s, f, _ in picks(g)] == [
        (2, ("D04",)), (1, ("D01", "D05")), (1, ("D06",))]
    assert sum(g.hands[1]) == 8


def test_R4_4_ponce_may_keep_one_fleet() -> None:
    """R4.4: the split is optional."""
    g = ponce_game()
    ponce_round(g)
    g.apply(1, SplitFleet(()))
    assert [f for s, f in g.fleets if s == 1] == [("D01", "D05", "D06")]


def test_R4_4_ponce_split_must_leave_two_non_empty_fleets() -> None:
    """R4.4: both fleets non-empty, made of the owner's caravels, each named once."""
    g = ponce_game()
    ponce_round(g)
    assert_refused(g, 1, SplitFleet(("D01", "D05", "D06")), "R4.4")
    assert_refused(g, 1, SplitFleet(("D04",)), "R4.4")
    assert_refused(g, 1, SplitFleet(("D05", "D05")), "R4.4")
    assert_refused(g, 2, SplitFleet(("D05",)), "R4.4")


def test_R4_4_ponce_split_naming_the_lowest_caravel_is_the_same_split() -> None:
    """R4.4: naming either fleet declares the same two fleets."""
    g = ponce_game()
    ponce_round(g)
    g.apply(1, SplitFleet(("D01", "D05")))
    assert sorted(f for s, f in g.fleets if s == 1) == [("D01", "D05"), ("D06",)]


def test_R4_4_ponce_with_one_caravel_is_not_asked() -> None:
    """R4.4: one caravel cannot make two non-empty fleets."""
    g = new_game(4, seed=4)
    give(g, 1, "D43", "D01")
    calm(g)
    begin_round(g, 2)
    assert g.phase != "split"


# -- R4.5 / R4.6 fleet value and pick order -------------------------------------------------------


def test_R4_5_fleet_value_is_the_sum_of_its_caravels() -> None:
    """R4.5: fleet value = sum of caravel values (and its lowest caravel for R4.6)."""
    g = new_game(4)
    assert g.fleet_strength(0, ("D03", "D08")) == (11, 3)
    assert g.fleet_strength(0, ("D01", "D02", "D07")) == (10, 1)


def test_R4_5_pizarro_highest_caravel_counts_as_zero() -> None:
    """R4.5: Pizarro's owner's single highest caravel counts as 0, so his fleet of 3+8 (value
    3) picks before a fleet of 5."""
    g = new_game(4, seed=5)
    give(g, 0, "D39", "D03", "D08")
    give(g, 1, "D05")
    assert g.fleet_strength(0, ("D03", "D08")) == (3, 0)
    calm(g)
    begin_round(g, 2, display=[4, 6, 9])
    assert g.active == 0 and g.phase == "pick"
    g.apply(0, PickCards((4, 9)))
    assert picks(g) == [(0, ("D03", "D08"), (4, 9)), (1, ("D05",), (6,))]


@pytest.mark.parametrize("tm", [0, 1, 2])
def test_R4_3_to_R4_6_rulebook_supply_example_at_a_3_player_table(tm: int) -> None:
    """The rulebooks' supply example (R4.3-R4.6): a 3-player table where A's fleet is caravel
    10, B's 3+8 and C's 1+2+7. Six caravels in play: six cards are turned face up (R4.3).
    Fleet values 10, 11 and 10 (R4.5). A and C tie at 10 and C holds the lower caravel, so C
    chooses his three cards first, then A one card, and B takes the two remaining (R4.6),
    whoever is the TM. A 3-player table can hold caravel 10 only since it is a 3-player card
    (section 9)."""
    g = new_game(3, seed=6)
    assert "D10" in {c.id for c in g.deck.for_players(3, promo=False)}
    a, b, c = 0, 1, 2
    fleet_a, fleet_b, fleet_c = ("D10",), ("D03", "D08"), ("D01", "D02", "D07")
    give(g, a, *fleet_a)
    give(g, b, *fleet_b)
    give(g, c, *fleet_c)
    calm(g)
    display = [2, 3, 5, 6, 8, 9]
    begin_round(g, 2, tm=tm, display=display)
    assert g.event is None
    assert events(g, "display")[-1]["cards"] == tuple(display)  # R4.3: one per caravel
    assert [(s, f, g.fleet_strength(s, f)) for s, f in g.fleets] == [
        (a, fleet_a, (10, 10)), (b, fleet_b, (11, 3)), (c, fleet_c, (10, 1))]
    assert g.pick_queue == [(c, fleet_c), (a, fleet_a), (b, fleet_b)]
    assert g.pending == Pending("pick", (c,), {"fleet": fleet_c, "count": 3})
    assert_refused(g, a, PickCards((9,)), "R4.6")
    assert_refused(g, c, PickCards((8, 9)), "R4.6")  # the fleet's three cards at once
    g.apply(c, PickCards((6, 8, 9)))
    assert g.pending == Pending("pick", (a,), {"fleet": fleet_a, "count": 1})
    g.apply(a, PickCards((5,)))
    # B takes the two remaining resources (its only choice, applied by the engine).
    assert picks(g) == [(c, fleet_c, (6, 8, 9)), (a, fleet_a, (5,)), (b, fleet_b, (2, 3))]
    assert g.display == []
    assert [sum(h) for h in g.hands] == [5 + 1, 5 + 2, 5 + 3]
    assert g.phase == "announce"
    assert_conserved(g)


def test_R4_6_rulebook_example_fleets_10_vs_3_8_vs_1_2_7() -> None:
    """R4.6, the rulebook's example at a 4-player table (a fourth seat without caravels
    changes nothing): C (10, holding the lower caravel) picks first on the 10-vs-10 tie, then
    A (10), then B (11)."""
    g = new_game(4, seed=6)
    a, b, c = 0, 1, 2
    give(g, a, "D10")
    give(g, b, "D03", "D08")
    give(g, c, "D01", "D02", "D07")
    calm(g)
    # The TM is A: seat order alone would let A go first.
    begin_round(g, 2, tm=a, display=[3, 4, 5, 6, 7, 8])
    assert g.pick_queue == [(c, ("D01", "D02", "D07")), (a, ("D10",)), (b, ("D03", "D08"))]
    assert g.phase == "pick" and g.active == c
    assert g.pending is not None and g.pending.detail["count"] == 3
    g.apply(c, PickCards((6, 7, 8)))
    assert g.active == a
    g.apply(a, PickCards((5,)))
    # B takes the last two cards (its only choice, applied by the engine).
    assert picks(g) == [(c, ("D01", "D02", "D07"), (6, 7, 8)), (a, ("D10",), (5,)),
                        (b, ("D03", "D08"), (3, 4))]
    assert g.display == []


def test_R4_6_equal_fleet_values_lowest_caravel_first() -> None:
    """R4.6: three fleets of value 5 pick by their lowest caravel (1, then 2, then 5),
    whatever the seat order from the TM; the fleet of 6 picks last."""
    g = new_game(4, seed=7)
    give(g, 0, "D01", "D04")  # 5, lowest 1
    give(g, 2, "D02", "D03")  # 5, lowest 2
    give(g, 3, "D05")  # 5, lowest 5
    give(g, 1, "D06")  # 6
    calm(g)
    begin_round(g, 2, tm=3, display=[2, 3, 4, 5, 6, 7])
    assert [s for s, _ in g.pick_queue] == [0, 2, 3, 1]


def test_R4_6_true_tie_uses_seat_order_from_the_trade_master() -> None:
    """R4.6 ruling: a full tie (same value, same lowest caravel) needs a custom deck with two
    caravels of value 4: seat order starting at the TM breaks it."""
    deck = parse_deck("mundus-deck 1\n"
                      "A1 caravel 4 2 - 0 base Caravel A\n"
                      "A2 caravel 4 2 - 0 base Caravel B\n"
                      "X1 shipyard - 2 - 0 base S1\nX2 shipyard - 2 - 0 base S2\n"
                      "X3 shipyard - 2 - 0 base S3\nX4 shipyard - 2 - 0 base S4\n"
                      "X5 shipyard - 2 - 0 base S5\nX6 shipyard - 2 - 0 base S6\n")
    for tm, first in ((0, 0), (1, 1), (2, 0)):
        g = Game.new(3, 1, deck=deck)
        give(g, 0, "A1")
        give(g, 1, "A2")
        begin_round(g, 2, tm=tm, display=[2, 3])
        assert g.phase == "pick" and g.active == first


def test_R4_6_a_fleet_takes_one_card_per_caravel_at_once() -> None:
    """R4.6: a fleet of 3 takes 3 cards in one pick; fewer or more is refused."""
    g = new_game(4, seed=6)
    give(g, 2, "D01", "D02", "D07")
    give(g, 0, "D10")
    calm(g)
    begin_round(g, 2, display=[3, 4, 5, 6])
    assert g.active == 2
    assert_refused(g, 2, PickCards((3, 4)), "R4.6")
    assert_refused(g, 2, PickCards((3, 4, 5, 6)), "R4.6")
    assert_refused(g, 2, PickCards((3, 4, 9)), "R4.6")
    assert_refused(g, 2, PickCards((3, 3, 4)), "R4.6")
    assert_refused(g, 0, PickCards((3,)), "R4.6")
    g.apply(2, PickCards((3, 4, 6)))
    assert g.hands[2][3] >= 1 and g.hands[2][6] >= 1
    assert g.display == [] and g.hands[0][5] >= 1  # A took the last card


def test_R4_6_short_display_takes_what_is_left() -> None:
    """R4.6/R4.2: when the piles ran out and the display is short, later fleets take what is
    left, and none when nothing is left."""
    g = new_game(4, seed=6)
    give(g, 0, "D01", "D02")
    give(g, 1, "D09")
    calm(g)
    clear_table(g)
    parked = g.draw[:-21]
    del g.draw[:-21]
    g.stored[3] = to_counts(parked)
    begin_round(g, 2, tm=0)
    # 20 dealt, one display card: seat 0's fleet (3) takes it, seat 1 gets none.
    assert picks(g)[0][0] == 0 and len(picks(g)[0][2]) == 1
    assert len(picks(g)) == 1
    assert_conserved(g)


# -- R4.7 pirates ---------------------------------------------------------------------------------


def pirate_game() -> Game:
    g = new_game(4, seed=8)
    give(g, 0, "D01", "D02")  # a fleet of 2: one card lost
    give(g, 1, "D03")  # a fleet of 1: safe
    give(g, 2, "D43", "D04", "D05", "D06", "D07")  # Ponce: two fleets of 2
    put_queue_first(g, "D30")  # PI icon
    return g


def pirate_round(g: Game) -> None:
    begin_round(g, 2, display=[5, 6, 7, 8, 9, R, R])


def play_picks(g: Game) -> None:
    while g.phase in ("split", "pick"):
        seat = g.active
        g.apply(seat, g.legal(seat)[-1])


def test_R4_7_pirates_one_discard_per_fleet_of_two_or_more() -> None:
    """R4.7: one discard for each fleet of two or more caravels; single caravels are safe."""
    g = pirate_game()
    pirate_round(g)
    assert g.event == "PI"
    assert g.phase == "split"
    g.apply(2, SplitFleet(("D06", "D07")))
    play_picks(g)
    assert g.phase == "pirates"
    assert g.pirates_due == {0: 1, 2: 2}
    assert g.pending is not None and set(g.pending.seats) == {0, 2}


def test_R4_7_discards_are_chosen_and_revealed_together() -> None:
    """R4.7: each affected player chooses; nothing is discarded until all have chosen."""
    g = pirate_game()
    pirate_round(g)
    g.apply(2, SplitFleet(()))  # one fleet of 4: one discard
    play_picks(g)
    assert g.pirates_due == {0: 1, 2: 1}
    h0, h2, d = list(g.hands[0]), list(g.hands[2]), len(g.discard)
    card0 = next(v for v in range(1, 11) if h0[v])
    card2 = next(v for v in range(10, 0, -1) if h2[v])
    g.apply(0, PirateDiscard((card0,)))
    assert g.hands[0] == h0 and len(g.discard) == d  # hidden until all have chosen
    assert events(g, "pirates") == []
    assert g.waiting_seats() == (2,)
    assert_refused(g, 0, PirateDiscard((card0,)), "R4.7")
    g.apply(2, PirateDiscard((card2,)))
    assert g.hands[0][card0] == h0[card0] - 1 and g.hands[2][card2] == h2[card2] - 1
    assert events(g, "pirates")[-1]["discards"] == {0: (card0,), 2: (card2,)}
    assert g.phase == "announce"
    assert_conserved(g)


def test_R4_7_wrong_pirate_discards_are_refused() -> None:
    """R4.7: exactly one card per fleet of two or more, from the player's hand."""
    g = pirate_game()
    pirate_round(g)
    g.apply(2, SplitFleet(("D06", "D07")))
    play_picks(g)
    missing = next(v for v in range(1, 11) if not g.hands[0][v])
    held = next(v for v in range(1, 11) if g.hands[0][v])
    assert_refused(g, 0, PirateDiscard(()), "R4.7")
    assert_refused(g, 0, PirateDiscard((held, held)), "R4.7")
    assert_refused(g, 0, PirateDiscard((missing,)), "R4.7")
    assert_refused(g, 2, PirateDiscard((next(v for v in range(1, 11) if g.hands[2][v]),)),
                   "R4.7")
    assert_refused(g, 1, PirateDiscard((held,)), "R4.7")


def test_R4_7_no_pirates_no_discard() -> None:
    """R4.7: without the Pirates event nobody discards after the supply."""
    g = pirate_game()
    calm(g)
    pirate_round(g)
    g.apply(2, SplitFleet(("D06", "D07")))
    play_picks(g)
    assert g.phase == "announce"


def test_R4_supply_conserves_cards() -> None:
    """R4: whatever the picks, every card stays accounted for."""
    g = pirate_game()
    pirate_round(g)
    g.apply(2, SplitFleet(("D07",)))
    play_picks(g)
    assert_conserved(g)
