"""Positions no game can reach are refused, naming the field and the rule (docs/notation.md,
"What parsing checks"); every position a game reaches reads back unchanged."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

import pytest
from support.positions import bot_positions, bot_step, field_of, first_position, with_field

from mundus_net.bots.base import Bot
from mundus_net.bots.greedy import GreedyBot
from mundus_net.bots.random_bot import RandomBot
from mundus_net.cli import main
from mundus_net.engine.cards import from_counts
from mundus_net.engine.deck import default_deck_text, parse_deck
from mundus_net.engine.game import PHASE_RULES, Game
from mundus_net.engine.notation import (
    NotationError,
    PositionProblem,
    apply_decision,
    format_position,
    multiset_text,
    position_differences,
)
from mundus_net.engine.notation import parse_position as read_position
from mundus_net.engine.notation import position_problems as problems_of

# These tests hold positions to their seed's deal too (R2.6): `seeded` (docs/notation.md,
# "The seed"); test_an_arranged_position_is_read_unless_held_to_its_seed shows the default.
parse_position = functools.partial(read_position, seeded=True)
position_problems = functools.partial(problems_of, seeded=True)

# `mundus rules new --players 3 --seed 4`: round 1, the Trade Master (seat 0) announces.
P = format_position(Game.new(3, 4))


def _refused(text: str, name: str, field: str, rule: str) -> str:
    """``text`` is refused with the problem ``name`` on ``field``, breaking ``rule``; the
    message names both. Returns the problem's text."""
    with pytest.raises(NotationError) as info:
        parse_position(text)
    problem = next((p for p in info.value.problems if p.name == name), None)
    assert problem is not None, f"{name} not in: {info.value}"
    assert (problem.field, problem.rule) == (field, rule)
    assert f"position field {field!r}: {problem.text} ({rule})" in str(info.value)
    return str(problem)


def _from_draw(text: str, cards: str | int, key: str, seat: int | None = None) -> str:
    """Move ``cards`` (or that many cards from the top) from the draw pile to field ``key`` (a
    per-seat multiset when ``seat`` is given, else a sorted pile such as the market), keeping
    the 120 resources."""
    draw = field_of(text, "draw")
    if isinstance(cards, int):
        cards = draw[len(draw) - cards:]
    for card in cards:
        i = draw.rindex(card)
        draw = draw[:i] + draw[i + 1:]
    value = field_of(text, key)
    if seat is None:
        value = "".join(sorted(value.replace("-", "") + cards)) or "-"
    else:
        parts = value.split("/")
        parts[seat] = multiset_text([*_cards(parts[seat]), *_cards(cards)])
        value = "/".join(parts)
    return with_field(with_field(text, "draw", draw or "-"), key, value)


def _cards(text: str) -> list[int]:
    return [] if text == "-" else [10 if c == "R" else int(c) for c in text]


def _position(found: Callable[[Game], bool]) -> tuple[str, Game]:
    text = first_position(found)
    return text, parse_position(text)


def _two_seat_pirates_position() -> tuple[str, Game]:
    """A pirates step of two seats, one of which has chosen (a 4-player random-bot game)."""
    game = next(g for g in bot_positions(4, 13, True)
                if g.phase == "pirates" and len(g.pirates_chosen) == 1)
    return format_position(game), game


def _take_position() -> str:
    """P after the announcement and the offers: seat 2's offer is best, it takes first."""
    game = parse_position(P)
    for decision in ("announce:3", "0.offer:458", "1.offer:113", "2.offer:189"):
        apply_decision(game, decision)
    return format_position(game)


# -- stored cards (R6.9, R4.1) ----------------------------------------------------------------


def test_R6_9_stored_cards_without_a_warehouse_are_refused() -> None:
    message = _refused(_from_draw(P, "9", "stored", 0), "stored_over_capacity", "stored",
                       "R6.9")
    assert message == ("position field 'stored': seat 0 has 1 card(s) stored and owns no "
                       "warehouse (R6.9)")


def test_R6_9_more_stored_cards_than_the_warehouses_hold_are_refused() -> None:
    text, game = _position(lambda g: g.phase == "coronado" and any(map(any, g.stored)))
    seat = next(s for s in range(game.players) if any(game.stored[s]))
    room = game.capacity[seat] - sum(game.stored[seat])
    message = _refused(_from_draw(text, room + 1, "stored", seat),
                       "stored_over_capacity", "stored", "R6.9")
    assert f"its warehouses hold {game.capacity[seat]}" in message


def test_R4_1_stored_cards_in_the_middle_of_a_round_are_refused() -> None:
    """Stored cards go back to the hand at the supply step: a warehouse holding cards during
    the turns would receive more at the storage step (the engine once stored 4 cards in a
    warehouse for 2 from such a position)."""
    text, game = _position(lambda g: g.phase == "turn" and g.round >= 2 and any(g.capacity))
    seat = next(s for s in range(game.players) if game.capacity[s])
    message = _refused(_from_draw(text, 1, "stored", seat), "stored_outside_storage",
                       "stored", "R4.1")
    assert f"seat {seat} has cards stored in phase turn of round {game.round}" in message


def test_R6_9_cards_stored_under_fire_are_refused() -> None:
    # A game that is over keeps what its last round stored only by the first edition's rules
    # (mn1): by the current ones the last round stores nothing (R6.9). Seed 3 stores some.
    game = Game.new(4, 3, rules=1)
    bots = [RandomBot(30 + s) for s in range(4)]
    while not game.is_over:
        bot_step(game, bots)
    assert any(map(any, game.stored)) and "cosa" not in game.owner
    text = format_position(game)
    seat = next(s for s in range(game.players) if any(game.stored[s]))
    message = _refused(with_field(text, "event", "FI"), "stored_under_fire", "stored", "R6.9")
    assert f"seat {seat} has cards stored in a round of Fire" in message


def test_R6_9_cards_stored_in_a_game_that_is_over_are_refused() -> None:
    """R6.9 ruling: the last round stores nothing (no round follows for the cards)."""
    text, _game = _position(lambda g: g.phase == "over" and g.result is not None
                            and len(g.draw) > 0)
    message = _refused(_from_draw(text, 1, "stored", 0),
                       "stored_after_the_last_round", "stored", "R6.9")
    assert "seat 0 has cards stored in a game that is over" in message


# -- the trade step (R5) ----------------------------------------------------------------------


def test_R5_8_a_card_face_up_outside_the_trade_is_refused() -> None:
    message = _refused(_from_draw(P, "9", "faceup", 1), "faceup_outside_trade", "faceup",
                       "R5.8")
    assert message.startswith("position field 'faceup': seat 1 has cards face up in phase "
                              "announce")


def test_R5_1_the_announcement_is_asked_of_the_trade_master(
        capsys: pytest.CaptureFixture[str]) -> None:
    text = with_field(P, "active", "2")
    message = _refused(text, "wrong_seat_asked", "active", "R5.1")
    assert message == ("position field 'active': phase announce asks seat 0 (the Trade Master "
                       "announces), not seat 2 (R5.1)")
    for argv in (["show", text], ["apply", text, "announce:4"]):
        assert main(["rules", *argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and message in err


def test_R5_1_nothing_announced_is_only_round_1s_first_announcement() -> None:
    _refused(with_field(P, "announced", "3"), "announced", "announced", "R5.1")
    text, _ = _position(lambda g: g.phase == "announce" and g.round >= 2)
    _refused(with_field(text, "announced", "0"), "announced", "announced", "R5.1")


def test_R5_2_an_offer_of_the_wrong_size_is_refused() -> None:
    game = parse_position(P)
    apply_decision(game, "announce:3")
    message = _refused(with_field(format_position(game), "offers", "0:4"), "offer_size",
                       "offers", "R5.2")
    assert "seat 0 offers 1 card(s), not 3" in message


def test_R5_4_the_tie_is_the_seats_with_the_best_offers_and_the_tm_chooses() -> None:
    text, game = _position(lambda g: g.phase == "tm_tie")
    other = next(s for s in range(game.players) if s != game.tm)
    _refused(with_field(text, "active", str(other)), "wrong_seat_asked", "active", "R5.4")
    _refused(with_field(text, "tie", ",".join(map(str, (*game.tie[:-1], game.tm)))),
             "tie_not_the_best_offers", "tie", "R5.4")


def test_R5_6_the_first_take_after_the_reveal_is_the_new_trade_masters() -> None:
    text = _take_position()
    assert (field_of(text, "tm"), field_of(text, "active")) == ("2", "2")
    message = _refused(with_field(text, "active", "0"), "wrong_seat_asked", "active", "R5.6")
    assert "asks seat 2 (the new Trade Master takes first), not seat 0" in message
    game = parse_position(text)
    apply_decision(game, "take:1@1")  # seat 1 lost a card: it takes next
    message = _refused(with_field(format_position(game), "active", "0"), "wrong_seat_asked",
                       "active", "R5.6")
    assert "asks seat 1 (seat 1, whose card was just taken, takes next)" in message


def test_R5_6_takes_that_do_not_follow_each_other_are_refused() -> None:
    text, game = _position(lambda g: g.phase == "take" and len(g.takes) >= 2)
    (x, y), rest = game.takes[0], game.takes[1:]
    wrong = ",".join([f"{y}>{x}", *(f"{a}>{b}" for a, b in rest)])
    _refused(with_field(text, "takes", wrong), "take_out_of_turn", "takes", "R5.6")


def test_R5_9_the_gift_is_asked_of_the_trade_master_for_the_last_taker() -> None:
    text, game = _position(lambda g: g.phase == "gift" and g.players >= 3)
    other = next(s for s in range(game.players) if s not in (game.tm, game.gift_to))
    _refused(with_field(text, "active", str(game.gift_to)), "wrong_seat_asked", "active",
             "R5.9")
    message = _refused(with_field(text, "gift_to", str(other)), "gift_to_wrong_seat",
                       "gift_to", "R5.9")
    assert f"the gift goes to seat {game.gift_to}" in message


# -- the progression step (R6) ----------------------------------------------------------------


def test_R6_1_who_plays_first_is_asked_of_the_trade_master() -> None:
    text, game = _position(lambda g: g.phase == "first")
    other = (game.tm + 1) % game.players
    message = _refused(with_field(text, "active", str(other)), "wrong_seat_asked", "active",
                       "R6.1")
    assert f"asks seat {game.tm} (the Trade Master chooses who plays first)" in message


@pytest.mark.parametrize("phase", ["coronado", "split", "pick", "sergio", "announce", "tm_tie",
                                   "take", "gift", "first", "turn"])
def test_every_one_seat_phase_asks_the_seat_the_rules_ask(phase: str) -> None:
    """Whatever ``active`` says, the seat asked is the one the phase's rule asks: another
    seat is refused, naming the field and that rule (R3.3, R4.4, R4.6, P01, R5.1, R5.4, R5.6,
    R5.9, R6.1)."""
    text, game = _position(lambda g: g.phase == phase)
    other = (game.active + 1) % game.players
    with pytest.raises(NotationError) as info:
        parse_position(with_field(text, "active", str(other)))
    message = str(info.value)
    assert message.startswith("position field 'active': ")
    assert f"({PHASE_RULES[phase]}" in message.split(";")[0]


def test_R6_1_the_others_follow_the_first_player_in_seat_order() -> None:
    text, game = _position(lambda g: g.phase == "announce" and g.round >= 2 and g.players >= 3)
    order = game.turn_order
    swapped = [order[0], order[2], order[1], *order[3:]]
    _refused(with_field(text, "turn_order", ",".join(map(str, swapped))),
             "turn_order_not_seat_order", "turn_order", "R6.1")


def test_R6_1_between_rounds_every_turn_of_the_last_round_is_over() -> None:
    text, _ = _position(lambda g: g.phase == "announce" and g.round >= 2)
    _refused(with_field(text, "turn_index", "0"), "turn_index_between_rounds", "turn_index",
             "R6.1")
    _refused(with_field(text, "turn_order", "-"), "turn_index_between_rounds", "turn_index",
             "R6.1")


def test_R6_2_two_sets_in_a_turn_without_kings_aid_are_refused() -> None:
    text, _ = _position(lambda g: g.phase == "turn" and g.event is None)
    message = _refused(with_field(text, "turn_sets", "2"), "sets_without_kings_aid",
                       "turn_sets", "R6.2")
    assert "one per turn, any number only with King's Aid" in message
    message = _refused(with_field(P, "turn_sets", "2"), "sets_without_kings_aid", "turn_sets",
                       "R6.2")
    assert "2 identical sets in a turn of round 1" in message
    _refused(with_field(P, "turn_sets", "2"), "turn_before_turns", "turn_sets", "R6.1")


def test_R6_2_kings_aid_allows_more_sets() -> None:
    """A game reaches two sets in a King's Aid turn, and a position that says so reads."""
    text, _ = _position(lambda g: g.phase == "turn" and g.event == "KA"
                           and g.affected(g.active) and g.turn_sets >= 2)
    assert parse_position(text).turn_sets >= 2


def test_R6_4_queue_short_while_the_pile_could_refill_the_queue_is_refused() -> None:
    message = _refused(with_field(P, "queue_short", "1"), "queue_short_with_pile",
                       "queue_short", "R6.4")
    assert "the development pile still holds 25 card(s) to refill the queue" in message
    _refused(with_field(P, "queue_short", "1"), "queue_short_at_round_start", "queue_short",
             "R8.3")


def test_R6_4_a_queue_not_refilled_from_the_pile_is_refused() -> None:
    *queue, last = field_of(P, "queue").split(",")
    text = with_field(with_field(P, "queue", ",".join(queue)), "devpile",
                      field_of(P, "devpile") + "," + last)
    _refused(text, "queue_not_refilled", "queue", "R6.4")


def test_R6_5_a_merchant_used_before_its_owners_turn_is_refused() -> None:
    def waiting_merchant(g: Game) -> bool:
        return g.phase == "turn" and any(g.merchants[s]
                                         for s in g.turn_order[g.turn_index + 1:])
    text, game = _position(waiting_merchant)
    seat = next(s for s in game.turn_order[game.turn_index + 1:] if game.merchants[s])
    used = ",".join(sorted({*game.merchants_used, game.merchants[seat][0]}))
    _refused(with_field(text, "merchants_used", used), "merchant_used_before_turn",
             "merchants_used", "R6.5")


def test_R6_5_a_conversion_needs_a_merchant_used_this_round() -> None:
    text, game = _position(lambda g: g.phase == "turn" and bool(g.converted))
    _, value = game.converted[0]
    merchant = next(m for m in game.merchants[game.active] if m in game.merchants_used
                    and game.deck[m].merchant_class == (value + 2) // 3)
    used = ",".join(sorted(game.merchants_used - {merchant})) or "-"
    _refused(with_field(text, "merchants_used", used), "conversion_without_merchant",
             "converted", "R6.5")


def test_R6_10_a_hand_after_the_end_of_the_round_is_refused() -> None:
    text, _ = _position(lambda g: g.phase == "over" and len(g.draw) > 0)
    _refused(_from_draw(text, 1, "hands", 0), "hand_after_discard", "hands", "R6.10")


# -- setup, supply and the market (R2, R4) ------------------------------------------------------


def test_R2_2_R5_5_a_market_of_the_wrong_size_is_refused() -> None:
    message = _refused(_from_draw(P, "4", "market"), "market_size", "market", "R2.2, R5.5")
    assert "the market holds 4 card(s)" in message
    two = with_field(P, "market", "12")
    two = with_field(two, "draw", "3" + field_of(P, "draw"))
    _refused(two, "market_size", "market", "R2.2, R5.5")


def test_R2_4_the_first_trade_master_holds_the_token_until_the_reveal() -> None:
    text = with_field(with_field(P, "tm", "1"), "active", "1")
    _refused(text, "tm_not_first_tm", "tm", "R2.4")


def test_R2_5_doubloons_before_any_income_in_round_1_are_refused() -> None:
    message = _refused(with_field(P, "doubloons", "0/5/0"), "doubloons_before_income",
                       "doubloons", "R2.5")
    assert "seat 1 holds 5 doubloons in round 1 before its first progression turn" in message


def test_R2_5_developments_before_the_first_turn_are_refused() -> None:
    pile = field_of(P, "devpile").split(",")
    text = with_field(with_field(P, "devs", f"-/{pile[-1]}/-"), "devpile", ",".join(pile[:-1]))
    _refused(text, "developments_before_turn", "devs", "R2.5")


def test_R4_2_a_hand_the_deal_cannot_give_is_refused() -> None:
    message = _refused(_from_draw(P, 1, "hands", 0), "hand_size", "hands", "R4.2")
    assert message == ("position field 'hands': seat 0 holds 6 card(s) in phase announce: the "
                       "deal (5 cards), the caravels, the warehouses, the pirates and the trade "
                       "leave it 5 (R4.2)")
    # In the trade, each take moves one card from its source to its taker.
    text, game = _position(lambda g: g.phase == "take" and len(g.takes) >= 2
                           and g.round >= 2)
    message = _refused(_from_draw(text, 1, "hands", game.takes[0][0]), "hand_size", "hands",
                       "R4.2")
    assert message.endswith(" after the takes (R4.2)")
    _refused(with_field(P, "reshuffles", "1"), "reshuffle_in_round_1", "reshuffles", "R4.2")


def test_R4_3_R4_6_the_display_and_the_order_of_the_picks_are_the_rules() -> None:
    text, game = _position(lambda g: g.phase == "pick" and len(g.pick_queue) >= 2)
    first, second, *rest = game.pick_queue
    swapped = ",".join(f"{s}:{'+'.join(f)}" for s, f in [second, first, *rest])
    _refused(with_field(with_field(text, "pick_queue", swapped), "active", str(second[0])),
             "pick_order", "pick_queue", "R4.6")
    display = field_of(text, "display")
    fewer = with_field(with_field(text, "display", display[1:]), "draw",
                       display[0] + field_of(text, "draw"))
    _refused(fewer, "display_size", "display", "R4.3")


def test_R4_4_fleets_are_the_caravels_of_the_round() -> None:
    text, _ = _position(lambda g: g.phase == "announce" and any(g.caravels))
    _refused(with_field(text, "fleets", "-"), "fleets_not_the_caravels", "fleets", "R4.4")


def test_R4_7_the_pirates_strike_the_seats_the_rules_say() -> None:
    text, game = _position(lambda g: g.phase == "pirates"
                           and len(g.pirates_due) < g.players)
    spared = next(s for s in range(game.players) if s not in game.pirates_due)
    due = {**game.pirates_due, spared: 1}
    _refused(with_field(text, "pirates_due", ",".join(f"{s}:{k}" for s, k in sorted(
        due.items()))), "pirates_due", "pirates_due", "R4.7")


# -- the end of a round and of the game (R8) ----------------------------------------------------


def test_R8_1_perfect_shown_in_a_game_not_over_is_refused() -> None:
    message = _refused(with_field(P, "perfect_shown", "0"), "perfect_before_turn",
                       "perfect_shown", "R8.1")
    assert "seat 0 has not played its progression turn of round 1" in message
    text, _ = _position(lambda g: g.phase == "turn" and not g.turn_perfect)
    _refused(with_field(text, "turn_perfect", "1"), "turn_perfect", "turn_perfect", "R8.1")


def test_R8_2_a_round_begun_with_75_doubloons_is_refused() -> None:
    text, game = _position(lambda g: g.phase == "announce" and g.round >= 2)
    money = [*game.doubloons]
    money[1] = 75
    message = _refused(with_field(text, "doubloons", "/".join(map(str, money))),
                       "rich_at_round_start", "doubloons", "R8.2")
    assert "seat 1 holds 75 doubloons before its progression turn" in message


def test_R8_5_a_round_past_the_round_limit_is_refused() -> None:
    text, game = _position(lambda g: g.phase == "announce" and g.round >= 3)
    parse_position(with_field(text, "round_limit", str(game.round)))  # the last round
    message = _refused(with_field(text, "round_limit", str(game.round - 1)),
                       "round_past_limit", "round", "R8.5")
    assert f"round {game.round} is past the round limit, {game.round - 1}:" in message


def test_R8_a_result_other_than_the_rules_give_is_refused() -> None:
    text, game = _position(lambda g: g.phase == "over")
    assert game.result is not None
    loser = next(s for s in range(game.players) if s not in game.result.winners)
    reason, _, *rest = field_of(text, "result").split(":")
    _refused(with_field(text, "result", ":".join([reason, str(loser), *rest])),
             "result_not_the_rules", "result", {"perfect": "R8.1", "doubloons": "R8.2",
                                                "queue": "R8.3", "round_limit": "R8.5"}[reason])


# -- every problem, by name -------------------------------------------------------------------


def test_a_refusal_names_every_problem_of_the_position() -> None:
    text = with_field(with_field(_from_draw(P, "9", "stored", 0), "perfect_shown", "0"),
                      "active", "2")
    with pytest.raises(NotationError) as info:
        parse_position(text)
    names = [p.name for p in info.value.problems]
    assert names == ["wrong_seat_asked", "stored_over_capacity", "stored_outside_storage",
                     "perfect_before_turn", "draw_not_from_seed", "draw_not_the_rounds"]
    assert str(info.value) == "; ".join(map(str, info.value.problems))
    assert all(isinstance(p, PositionProblem) for p in info.value.problems)
    assert position_problems(Game.new(3, 4)) == []


# -- what a game reaches reads back unchanged ---------------------------------------------------

# Every player count with random and greedy bots, promo off and on (20 games), and one game
# of each player count by the first edition's rules (mn1 positions).
ROUND_TRIP_GAMES = [(players, bot, promo, 2) for players in range(2, 7)
                    for bot in (RandomBot, GreedyBot) for promo in (False, True)]
ROUND_TRIP_GAMES += [(players, GreedyBot, players % 2 == 0, 1) for players in range(2, 7)]


def test_every_position_of_many_bot_games_reads_back_unchanged() -> None:
    positions = 0
    started = time.perf_counter()
    for i, (players, bot_class, promo, rules) in enumerate(ROUND_TRIP_GAMES):
        game = Game.new(players, 100 + i, promo=promo, first_tm=None if i % 2 else i % players,
                        round_limit=8 if i % 5 == 0 else None, rules=rules)
        bots: list[Bot] = [bot_class(10 * i + s) for s in range(players)]
        while True:
            text = format_position(game)
            parsed = parse_position(text)
            assert problems_of(parsed) == [], text  # read by the default reader too
            assert format_position(parsed) == text
            assert position_differences(parsed, game) == [], text
            positions += 1
            if game.is_over:
                break
            bot_step(game, bots)
    elapsed = time.perf_counter() - started
    print(f"{positions} positions of {len(ROUND_TRIP_GAMES)} games read back in {elapsed:.2f} s")
    assert positions > 3000


# -- `mundus rules show`: the secret choices ----------------------------------------------------


def test_rules_show_as_a_seat_shows_its_own_store_choice_and_not_the_others(
        capsys: pytest.CaptureFixture[str]) -> None:
    text, game = _position(lambda g: g.phase == "store" and len(g.store_chosen) == 1)
    (chooser, cards), = game.store_chosen.items()
    waiting = game.waiting_seats()[0]
    assert main(["rules", "show", "--as", str(chooser), text]) == 0
    out = capsys.readouterr().out
    assert f"  your secret storage choice: {multiset_text(cards)}" in out
    assert main(["rules", "show", "--as", str(waiting), text]) == 0
    out = capsys.readouterr().out
    assert "secret storage choice" not in out
    assert "has fixed a secret choice (hidden until all are in)" in out


def test_rules_show_prints_every_secret_choice_made(capsys: pytest.CaptureFixture[str]) -> None:
    positions = [_position(lambda g: g.phase == "store" and bool(g.store_chosen)),
                 _two_seat_pirates_position(),
                 _position(lambda g: g.phase == "offer" and bool(g.offers))]
    for (text, game), kind in zip(positions, ("storage choice", "pirate discard", "offer"),
                                  strict=True):
        chosen = {"store": game.store_chosen, "pirates": game.pirates_chosen,
                  "offer": game.offers}[game.phase]
        assert chosen
        assert main(["rules", "show", text]) == 0
        out = capsys.readouterr().out
        for seat, cards in chosen.items():
            section = out.split(f"Seat {seat}")[1].split("\nSeat ")[0]
            assert f"  secret {kind}: {multiset_text(cards)}" in section, out


def test_rules_show_as_a_seat_shows_its_own_offer_and_not_the_others(
        capsys: pytest.CaptureFixture[str]) -> None:
    """R5.3: an offer fixed and not yet revealed is shown to its own seat only."""
    game = parse_position(P)
    apply_decision(game, "announce:3")
    apply_decision(game, "1.offer:113")
    text = format_position(game)
    assert main(["rules", "show", "--as", "1", text]) == 0
    assert "  your secret offer: " + multiset_text((1, 1, 3)) in capsys.readouterr().out
    assert main(["rules", "show", "--as", "0", text]) == 0
    out = capsys.readouterr().out
    assert "secret offer" not in out and multiset_text((1, 1, 3)) not in out.split("Seat 1")[1]
    assert "has fixed a secret choice (hidden until all are in)" in out


def test_rules_show_as_a_seat_shows_its_own_pirate_discard(
        capsys: pytest.CaptureFixture[str]) -> None:
    text, game = _two_seat_pirates_position()
    (seat, cards), = game.pirates_chosen.items()
    assert main(["rules", "show", "--as", str(seat), text]) == 0
    assert f"  your secret pirate discard: {multiset_text(cards)}" in capsys.readouterr().out
    assert from_counts(game.hands[seat])  # the discard is still in the hand until all are in


# -- what the seed gives (R2.6) ----------------------------------------------------------------


def _swapped(text: str, key: str, i: int, j: int, sep: str = "") -> str:
    """Field ``key`` with its items ``i`` and ``j`` swapped (characters, or ``sep``-separated)."""
    items = field_of(text, key).split(sep) if sep else list(field_of(text, key))
    items[i], items[j] = items[j], items[i]
    return with_field(text, key, sep.join(items))


def test_R2_6_a_development_pile_the_seed_does_not_give_is_refused() -> None:
    message = _refused(_swapped(P, "devpile", 0, 1, ","), "devpile_not_from_seed", "devpile",
                       "R2.6")
    assert "seed 4 leaves the development pile" in message


def test_R6_4_a_queue_out_of_draw_order_is_refused() -> None:
    _refused(_swapped(P, "queue", 0, 1, ","), "queue_not_in_draw_order", "queue", "R6.4")


def test_R2_6_a_draw_pile_the_seed_does_not_give_is_refused_until_a_reshuffle() -> None:
    draw = field_of(P, "draw")
    i = next(i for i in range(len(draw) - 1) if draw[i] != draw[i + 1])
    message = _refused(_swapped(P, "draw", i, i + 1), "draw_not_from_seed", "draw", "R2.6")
    assert "before the first reshuffle the draw pile is the bottom of the one seed 4" in message
    # After a reshuffle the pile follows the discard pile's order, which a position does not
    # hold: any order of its cards is read (docs/notation.md).
    text, _ = _position(lambda g: g.reshuffles > 0 and g.phase == "announce"
                        and len(set(g.draw)) > 1)
    draw = field_of(text, "draw")
    i = next(i for i in range(len(draw) - 1) if draw[i] != draw[i + 1])
    parse_position(_swapped(text, "draw", i, i + 1))


def test_R2_2_round_1s_market_is_the_seeds() -> None:
    market, hand = field_of(P, "market"), field_of(P, "hands").split("/")[0]
    card = next(c for c in hand if c not in market)
    hands = field_of(P, "hands").split("/")
    hands[0] = multiset_text(_cards(hand.replace(card, market[0], 1)))
    text = with_field(with_field(P, "market", "".join(sorted(market[1:] + card))), "hands",
                      "/".join(hands))
    _refused(text, "market_not_from_seed", "market", "R2.2")


def test_R2_4_the_first_trade_master_drawn_by_the_seed_holds_the_token_until_the_reveal() -> None:
    game = Game.new(3, 4, first_tm=None)
    other = (game.tm + 1) % 3
    text = with_field(with_field(format_position(game), "tm", str(other)), "active", str(other))
    message = _refused(text, "tm_not_first_tm", "tm", "R2.4")
    assert f"seed 4 draws seat {game.tm} as the first Trade Master" in message


def test_R4_2_round_1s_hands_are_the_seeds_deal_changed_only_by_the_takes() -> None:
    hands = field_of(P, "hands").split("/")
    a = next(c for c in hands[0] if c not in hands[1])
    b = next(c for c in hands[1] if c not in hands[0])
    swapped = [multiset_text(_cards(hands[0].replace(a, b, 1))),
               multiset_text(_cards(hands[1].replace(b, a, 1))), hands[2]]
    _refused(with_field(P, "hands", "/".join(swapped)), "hand_not_dealt_from_seed", "hands",
             "R4.2")
    # At the first take, offers face up and hands still hold exactly the deal.
    text, game = _position(lambda g: g.round == 1 and g.phase == "take" and not g.takes)
    dealt = [from_counts(h) for h in game.hands]
    s, t = next((s, t) for s in range(game.players) for t in range(game.players)
                if s != t and set(dealt[s]) - set(dealt[t]) and set(dealt[t]) - set(dealt[s]))
    x = next(c for c in dealt[s] if c not in dealt[t])
    y = next(c for c in dealt[t] if c not in dealt[s])
    held = [list(h) for h in dealt]
    held[s].remove(x)
    held[s].append(y)
    held[t].remove(y)
    held[t].append(x)
    parts = [multiset_text(h) for h in held]
    message = _refused(with_field(text, "hands", "/".join(parts)), "hand_not_dealt_from_seed",
                       "hands", "R4.2")
    assert "its 0 take(s) and gift bring at most 0 other card(s)" in message


# -- the takes (R5.2, R5.6, R5.7) ---------------------------------------------------------------


def test_R5_6_no_take_before_round_1s_trade() -> None:
    message = _refused(with_field(P, "takes", "0>1"), "takes_before_trade", "takes", "R5.6")
    assert "round 1 is before its first take (phase announce): write -" in message


def test_R5_2_no_more_cards_taken_from_a_seat_than_it_offered() -> None:
    text, game = _position(lambda g: g.players == 2 and g.phase == "first" and g.round >= 2
                           and g.announced == 2)
    tm, other = game.tm, 1 - game.tm
    takes = ",".join([f"{tm}>{other}", f"{other}>{tm}"] * 2 + [f"{tm}>{other}"])
    message = _refused(with_field(text, "takes", takes), "takes_past_offer", "takes", "R5.2")
    assert f"3 card(s) taken from seat {other}, which offered at most 2 (N)" in message


def test_R5_2_the_cards_face_up_and_taken_are_each_seats_offer() -> None:
    text = _take_position()  # N=3: seat 0 offered 458 and holds the rest of its hand
    hands, faceup = field_of(text, "hands").split("/"), field_of(text, "faceup").split("/")
    card = hands[0][0]
    hands[0], faceup[0] = hands[0][1:] or "-", multiset_text(_cards(faceup[0] + card))
    text = with_field(with_field(text, "hands", "/".join(hands)), "faceup", "/".join(faceup))
    message = _refused(text, "faceup_not_an_offer", "faceup", "R5.2")
    assert "seat 0 offered 4 card(s) (face up and taken), not 3" in message


def test_R5_7_a_ping_pong_take_while_another_seat_offers_is_refused() -> None:
    game = parse_position(_take_position())  # seats 0, 1, 2 offered 458, 113, 189
    apply_decision(game, "take:4@0")  # seat 2 (the new TM) takes from seat 0
    apply_decision(game, "take:9@2")  # seat 0 takes back from seat 2
    assert "take:5@0" not in [t for t in map(str, game.legal(2))]
    # Seat 2 taking from seat 0 again, though seat 1 still offers 113: written by hand.
    game.faceup[0][5] -= 1
    game.hands[2][5] += 1
    game.takes.append((2, 0))
    game.active = 0
    message = _refused(format_position(game), "ping_pong", "takes", "R5.7")
    assert "take 3 (2>0) answers seat 0's take from seat 2 while seat 1 still offered" in message


def test_R5_4_the_trade_master_holds_one_of_the_best_offers_during_the_takes() -> None:
    text = _take_position()  # seat 2's 189 (18) beats seat 0's 458 (17)
    text = with_field(with_field(text, "tm", "0"), "active", "0")
    message = _refused(text, "tm_not_best_offer", "tm", "R5.4")
    assert "seat 0's offer scores at most 17 and seat 2's at least 18" in message


# -- the asked seat of the steps every seat answers at once --------------------------------------


def test_R5_1_the_offers_follow_the_trade_masters_announcement() -> None:
    game = parse_position(P)
    apply_decision(game, "announce:3")
    _refused(with_field(format_position(game), "active", "1"), "wrong_seat_asked", "active",
             "R5.1")


def test_R6_9_the_storage_step_follows_the_last_turn_and_the_end_its_last_step() -> None:
    text, game = _position(lambda g: g.phase == "store" and g.options.rules == 2)
    other = (game.turn_order[-1] + 1) % game.players
    _refused(with_field(text, "active", str(other)), "wrong_seat_asked", "active", "R6.9")
    text, game = _position(lambda g: g.phase == "over")
    other = (game.turn_order[-1] + 1) % game.players
    _refused(with_field(text, "active", str(other)), "wrong_seat_asked", "active", "R6.1")


# -- the progression step, from what it leaves ----------------------------------------------------


def test_R3_2_the_event_once_a_turn_may_have_taken_queue_card_1() -> None:
    text, game = _position(lambda g: g.phase == "turn" and g.round >= 2 and g.turn_index == 0
                           and g.turn_sets == 0 and "coronado" not in g.owner)
    icon = game.deck[game.queue[0]].icon
    wrong = next(e for e in ("KA", "IP", "ST", "FI", "PI", "-") if e != (icon or "-"))
    message = _refused(with_field(text, "event", wrong), "event_not_from_queue", "event",
                       "R3.2")
    assert f"one of {game.queue[0]}" in message


def test_R6_2_a_seat_that_has_played_holds_no_more_than_supply_and_trade_gave() -> None:
    text, game = _position(lambda g: g.phase == "turn" and g.turn_index >= 1 and g.round >= 2)
    played = game.turn_order[0]
    message = _refused(_from_draw(text, 12, "hands", played), "hand_grew_in_turn", "hands",
                       "R6.2")
    assert f"seat {played} holds" in message
    # The perfect combination spends 10 cards: shown by a seat whose hand could not hold them.
    text, game = _position(lambda g: g.phase == "turn" and g.turn_index >= 1 and g.round >= 2
                           and not g.perfect_shown and sum(g.hands[g.turn_order[0]]) >= 4)
    _refused(with_field(text, "perfect_shown", str(game.turn_order[0])), "hand_grew_in_turn",
             "hands", "R6.2")


def _first_edition_position(found: Callable[[Game], bool]) -> str:
    game = Game.new(3, 5, rules=1)
    bots: list[Bot] = [RandomBot(50 + s) for s in range(3)]
    while not found(game):
        bot_step(game, bots)
    return format_position(game)


def test_R6_10_by_the_first_edition_a_hand_is_discarded_when_its_turn_ends() -> None:
    text = _first_edition_position(lambda g: g.phase == "turn" and g.turn_index >= 1)
    played = parse_position(text).turn_order[0]
    _refused(_from_draw(text, 1, "hands", played), "hand_after_turn", "hands", "R6.10")


def test_R6_7_a_seat_holds_at_least_the_income_its_developments_paid() -> None:
    def paid(g: Game, s: int) -> int:
        return sum(g.deck[d].income for d in g.devs[s])
    text, game = _position(lambda g: g.round >= 3 and g.phase == "announce" and any(
        paid(g, s) and s not in (g.owner.get("coronado"), g.owner.get("sergio"))
        for s in range(g.players)))
    seat = next(s for s in range(game.players) if paid(game, s)
                and s not in (game.owner.get("coronado"), game.owner.get("sergio")))
    money = field_of(text, "doubloons").split("/")
    money[seat] = str(paid(game, seat) - 1)
    message = _refused(with_field(text, "doubloons", "/".join(money)), "doubloons_below_income",
                       "doubloons", "R6.7")
    assert f"its developments have paid it at least {paid(game, seat)}" in message


def test_R6_2_one_development_per_set() -> None:
    text, game = _position(lambda g: g.round == 1 and g.phase == "turn" and g.turn_index >= 1
                           and len(g.devs[g.turn_order[0]]) == 1 and bool(g.devpile))
    seat = game.turn_order[0]
    devs = field_of(text, "devs").split("/")
    devs[seat] += "," + game.devpile[-1]
    text = with_field(with_field(text, "devs", "/".join(devs)), "devpile",
                      ",".join(game.devpile[:-1]))
    message = _refused(text, "developments_past_sets", "devs", "R6.2")
    assert f"seat {seat} owns 2 developments in round 1" in message
    # Between rounds, the last turn's sets against its seat's developments.
    text, game = _position(lambda g: g.round >= 3 and g.phase == "announce"
                           and "vicente" not in g.owner)
    sets = len(game.devs[game.turn_order[-1]]) + 1
    _refused(with_field(text, "turn_sets", str(sets)), "developments_past_sets", "turn_sets",
             "R6.3")


def test_R8_1_no_round_follows_a_perfect_combination() -> None:
    text, _ = _position(lambda g: g.round >= 2 and g.phase == "announce")
    _refused(with_field(text, "turn_perfect", "1"), "turn_perfect", "turn_perfect", "R8.1")


# -- what the rounds played leave (R4.2, R6.2) ---------------------------------------------


def test_R4_2_the_cards_drawn_are_what_the_rounds_draw() -> None:
    draw = field_of(P, "draw")
    text = with_field(with_field(P, "draw", draw[:-1]), "discard", draw[-1])
    message = _refused(text, "draw_not_the_rounds", "draw", "R4.2")
    assert "16 card(s) drawn from the pile in 1 supply step(s), which draw 15" in message
    text, _ = _position(lambda g: g.round == 2 and g.phase == "announce" and not g.reshuffles)
    message = _refused(with_field(text, "reshuffles", "1"), "reshuffle_before_the_pile_ran_out",
                       "reshuffles", "R4.2")
    assert "it has not run out, so nothing was reshuffled" in message


def test_R6_2_doubloons_after_round_1_are_what_one_turn_pays() -> None:
    text, game = _position(lambda g: g.round == 2 and g.phase == "announce"
                           and any(not d for d in g.devs))
    seat = next(s for s in range(game.players) if not game.devs[s])
    money = field_of(text, "doubloons").split("/")
    money[seat] = "1"
    message = _refused(with_field(text, "doubloons", "/".join(money)),
                       "doubloons_not_a_first_turn", "doubloons", "R6.2")
    assert f"seat {seat} holds 1 doubloon after its turn of round 1" in message


def test_R6_2_doubloons_in_a_turn_of_round_1_are_what_it_has_paid() -> None:
    text, game = _position(lambda g: g.round == 1 and g.phase == "turn" and not g.turn_series
                           and not g.turn_relics)
    money = field_of(text, "doubloons").split("/")
    money[game.active] = "5"
    message = _refused(with_field(text, "doubloons", "/".join(money)), "doubloons_not_this_turn",
                       "doubloons", "R6.2")
    assert "(turn_series=0, turn_relics=0)" in message


# -- counting rulings follow the deck in play --------------------------------------------------


def test_R4_2_a_custom_deck_that_can_run_the_piles_dry_is_counted_as_it_is() -> None:
    """docs/rules.md R4.2: the shipped deck never runs both piles dry at a supply step, so a
    hand of 4 at the announcement is refused; a deck whose warehouses hold 90 more cards can,
    so the same count is read (no refusal that rests on the shipped deck's numbers)."""
    big = default_deck_text() + "".join(f"X{i:02d} warehouse 9 2 - 0 base Big warehouse\n"
                                        for i in range(10))
    decks = {"default": None, "big": parse_deck(big, name="big")}
    for name, deck in decks.items():
        game = Game.new(3, 8, deck=deck)
        bots: list[Bot] = [RandomBot(80 + s) for s in range(3)]
        while not (game.round >= 2 and game.phase == "announce"):
            bot_step(game, bots)
        assert position_problems(game) == []
        hands = field_of(format_position(game), "hands").split("/")
        text = with_field(format_position(game), "hands",
                          "/".join([hands[0][1:] or "-", *hands[1:]]))
        text = with_field(text, "discard", field_of(text, "discard").replace("-", "")
                          + hands[0][0])
        if name == "default":
            _refused(text, "hand_size", "hands", "R4.2")
        else:
            assert parse_position(text, deck).hands[0] != game.hands[0]


def test_R6_6_a_seat_whose_turn_has_not_begun_sails_the_caravels_it_owns() -> None:
    def waiting_with_caravel(g: Game) -> int | None:
        return next((s for s in g.turn_order[g.turn_index + 1:] if g.caravels[s]), None)
    text, game = _position(lambda g: g.phase == "turn" and g.round >= 2
                           and waiting_with_caravel(g) is not None)
    seat = waiting_with_caravel(game)
    fleets = [f"{s}:{'+'.join(f)}" for s, f in game.fleets if s != seat]
    message = _refused(with_field(text, "fleets", ",".join(fleets) or "-"),
                       "fleets_not_the_caravels", "fleets", "R6.6")
    assert f"seat {seat}'s fleets are the caravels it owned at this round's supply" in message


# Engine-written (2 players, seed 1019, first-edition deck, a greedy and a random bot): under
# King's Aid seat 1's second set of the turn took Juan de la Cosa, whom no event affects.
KINGS_AID_THEN_COSA = (
    "mn2 players=2 seed=1019 promo=0 first_tm=1 round_limit=8 deck=first-edition@a61f33f4ee7d"
    " round=5 tm=0 event=KA phase=turn active=1 market=245 display=- "
    "queue=D02,D05,D38,D40,D13 doubloons=13/12 hands=358899/8 stored=-/- "
    "devs=D06/D17,D36,D22,D27,D37 faceup=-/- fleets=0:D06 pick_queue=- pirates_due=- "
    "pirates_chosen=- announced=4 offers=- tie=- takes=0>1,1>0,0>1,1>0,0>1,1>0,0>1,1>0 "
    "gift_to=- turn_order=0,1 turn_index=1 turn_sets=2 turn_series=0 turn_relics=0 "
    "turn_perfect=0 converted=- merchants_used=- store_due=- store_chosen=- perfect_shown=- "
    "queue_short=0 result=- reshuffles=0 "
    "draw=35944R21833658R3R31223558R32177152625731R37713R6119666131475RRR4 "
    "discard=1289236721444333991211125795844R26R2445622R666 "
    "devpile=D19,D16,D23,D26,D14,D03,D30,D01,D39,D42,D28,D04,D41"
)


def test_R3_4_kings_aid_sets_made_before_taking_juan_de_la_cosa_are_read() -> None:
    game = parse_position(KINGS_AID_THEN_COSA)
    assert game.turn_sets == 2 and game.owner["cosa"] == game.active == 1
    assert format_position(game) == KINGS_AID_THEN_COSA


def test_R3_4_two_kings_aid_sets_by_an_owner_of_juan_de_la_cosa_before_are_refused() -> None:
    """Juan de la Cosa's owner is not helped by King's Aid (R3.4): a second set follows only a
    set that took him last, so a seat owning him before its last set made one set at most."""
    devs = field_of(KINGS_AID_THEN_COSA, "devs")
    assert devs == "D06/D17,D36,D22,D27,D37"  # D37 last: read (test above)
    for owned in ("D37,D17,D36,D22,D27", "D17,D36,D37,D22,D27"):
        text = with_field(KINGS_AID_THEN_COSA, "devs", f"D06/{owned}")
        message = _refused(text, "sets_by_juan_de_la_cosa", "turn_sets", "R3.4")
        assert "2 identical sets in seat 1's turn, which owned Juan de la Cosa" in message
        _refused_unseeded(text, "sets_by_juan_de_la_cosa")


def _refused_unseeded(text: str, name: str) -> None:
    """``text`` is refused with the problem ``name`` by the default reader too (no seed)."""
    with pytest.raises(NotationError) as info:
        read_position(text)
    assert name in [p.name for p in info.value.problems], str(info.value)


def _hand_to_discard(text: str, seat: int, count: int) -> str:
    """Move ``count`` cards of ``seat``'s hand to the top of the discard pile."""
    hands = field_of(text, "hands").split("/")
    moved, hands[seat] = hands[seat][:count], hands[seat][count:] or "-"
    discard = field_of(text, "discard").replace("-", "") + moved
    return with_field(with_field(text, "hands", "/".join(hands)), "discard", discard)


def test_R6_2_the_seat_to_play_holds_its_dealt_cards_until_a_combination() -> None:
    """R4.2, R6.2: nothing but a combination takes a card from the hand in a turn, so the seat
    to play holds what the supply and the trade left it, less what its combinations spent
    (at most 5 a set, 9 a series, 5 a relic set, 10 the perfect combination)."""
    text, game = _position(lambda g: g.phase == "turn" and g.round >= 2 and not (
        g.turn_sets or g.turn_series or g.turn_relics or g.turn_perfect))
    seat = game.active
    message = _refused(_hand_to_discard(text, seat, 1), "hand_short_in_turn", "hands", "R6.2")
    assert f"seat {seat} holds" in message and "its turn has made no combination" in message
    _refused_unseeded(_hand_to_discard(text, seat, 1), "hand_short_in_turn")
    # A series may have spent up to 9 cards: the same hand is read once the turn made one.
    short = _hand_to_discard(text, seat, 4)
    _refused(short, "hand_short_in_turn", "hands", "R6.2")
    assert "hand_short_in_turn" not in _problem_names(with_field(short, "turn_series", "1"))
    # The storage step (rules edition 2): the last turn's seat, as its turn left it.
    text, game = _position(lambda g: g.phase == "store" and g.options.rules == 2 and not (
        g.turn_sets or g.turn_series or g.turn_relics or g.turn_perfect)
        and sum(g.hands[g.turn_order[-1]]) > len(g.store_chosen.get(g.turn_order[-1], ())))
    _refused(_hand_to_discard(text, game.turn_order[-1], 1), "hand_short_in_turn", "hands",
             "R6.2")


def _problem_names(text: str) -> list[str]:
    """The names of the problems the seeded reader finds in ``text`` (none: it is read)."""
    try:
        parse_position(text)
    except NotationError as exc:
        return [p.name for p in exc.problems]
    return []


def test_R5_8_a_trade_of_three_or_more_players_ends_with_every_other_offer_taken() -> None:
    """R5.6, R5.8: the new Trade Master takes first and a trade ends only when the next taker
    can take no card of another seat: every other seat's offer of N cards is taken whole (only
    Las Casas's owner may offer fewer, R5.2). A trade with no take needs 2 players and the
    other seat owning Las Casas."""
    text, game = _position(lambda g: g.phase == "turn" and g.round >= 2 and g.players >= 3
                           and "casas" not in g.owner)
    message = _refused(with_field(text, "takes", "-"), "trade_ended_early", "takes", "R5.8")
    assert f"the trade ended with seat {game.tm} to take next" in message
    assert "the new Trade Master takes first, R5.6" in message
    _refused_unseeded(with_field(text, "takes", "-"), "trade_ended_early")
    takes = field_of(text, "takes").split(",")
    _refused(with_field(text, "takes", ",".join(takes[:-1])), "trade_ended_early", "takes",
             "R5.8")
    # Before this round's takes the last round's trade is checked too, whatever N was.
    text, game = _position(lambda g: g.phase == "offer" and g.round >= 2 and g.players >= 3
                           and "casas" not in g.owner)
    message = _refused(with_field(text, "takes", "-"), "trade_ended_early", "takes", "R5.8")
    assert "N (2, 3 or 4, the same for every seat)" in message
    text, game = _position(lambda g: g.phase == "first" and g.players == 2
                           and "casas" not in g.owner)
    _refused(with_field(text, "takes", "-"), "trade_ended_early", "takes", "R5.8")


def test_R5_8_two_players_trade_nothing_when_the_other_seat_offers_nothing() -> None:
    """R5.2, R5.8: with 2 players, Las Casas's owner offering nothing to the Trade Master ends
    the trade before any take; a position that says so is read."""
    text = first_position(lambda g: g.phase == "first" and g.players == 2
                          and g.owner.get("casas") not in (None, g.tm))
    assert "trade_ended_early" not in _problem_names(with_field(text, "takes", "-"))


def test_R3_2_R3_3_the_event_of_a_turn_is_queue_card_1s_unless_a_set_took_it() -> None:
    """R3.2, R3.3, R6.4: until a set of this round may have taken queue card 1, the event is
    its icon (or Coronado's choice); after, the icon of a development taken this round. The
    default reader (no seed) checks it too."""
    text, game = _position(lambda g: g.phase == "turn" and g.round >= 2 and g.turn_index == 0
                           and g.turn_sets == 0 and "coronado" not in g.owner)
    icon = game.deck[game.queue[0]].icon
    wrong = next(e for e in ("KA", "IP", "ST", "FI", "PI", "-") if e != (icon or "-"))
    with pytest.raises(NotationError) as info:
        read_position(with_field(text, "event", wrong))
    problem = next(p for p in info.value.problems if p.name == "event_not_from_queue")
    assert (problem.field, problem.rule) == ("event", "R3.2")
    assert f"one of {game.queue[0]}" in problem.text
    # A later turn: queue card 1 or the developments the seats that played took this round.
    text, game = _position(lambda g: g.phase == "turn" and g.round >= 2 and g.turn_index >= 1
                           and "coronado" not in g.owner and g.event is not None)
    icons = {game.deck[game.queue[0]].icon} | {
        game.deck[d].icon for s in game.turn_order[:game.turn_index + 1] for d in game.devs[s]}
    wrong = next(e for e in ("KA", "IP", "ST", "FI", "PI") if e not in icons)
    _refused_unseeded(with_field(text, "event", wrong), "event_not_from_queue")


def test_an_arranged_position_is_read_unless_held_to_its_seed() -> None:
    """R2.6 (docs/notation.md, "The seed"): a position may arrange its piles and hands by hand,
    as a chess problem does; `seeded` (`mundus rules --seeded`) holds them to the seed's deal."""
    arranged = with_field(P, "hands", "12459/11345/12588")  # one card moved between hands
    assert read_position(arranged).hands[0] != Game.new(3, 4).hands[0]
    with pytest.raises(NotationError) as info:
        read_position(arranged, seeded=True)
    assert [p.name for p in info.value.problems] == ["hand_not_dealt_from_seed"]
    assert "R4.2" in str(info.value)


def test_mundus_rules_reads_an_arranged_position_and_refuses_it_seeded(
        capsys: pytest.CaptureFixture[str]) -> None:
    """R2.6: `mundus rules show` reads a position arranged by hand; `--seeded` names the
    field and the rule that its seed's deal breaks."""
    from mundus_net.cli import main

    arranged = with_field(P, "hands", "12459/11345/12588")
    assert main(["rules", "show", arranged]) == 0
    assert main(["rules", "show", "--seeded", arranged]) == 2
    said = capsys.readouterr().err
    assert "position field 'hands'" in said and "(R4.2)" in said
