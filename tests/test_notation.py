"""The position and decision notations (docs/notation.md) and the ``mundus rules`` command."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from support.positions import (
    BOT_CONFIGS,
    bot_positions,
    bot_step,
    field_of,
    first_position,
    random_bots,
    with_field,
)

from mundus_net.cli import main
from mundus_net.engine.cards import from_counts
from mundus_net.engine.decisions import (
    DECISION_TYPES,
    TARGET_CASH,
    TARGET_DRAW,
    Announce,
    BuyMarket,
    ChooseEvent,
    ChooseFirst,
    ChooseTradeMaster,
    Convert,
    Decision,
    EndTurn,
    Gift,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    PirateDiscard,
    RuleError,
    SplitFleet,
    Store,
    Take,
)
from mundus_net.engine.deck import builtin_decks, default_deck, default_deck_text, parse_deck
from mundus_net.engine.game import FIELDS, OVER, PHASES, Game, Pending
from mundus_net.engine.notation import (
    DERIVED_SLOTS,
    EXCLUDED_SLOTS,
    POSITION_FIELDS,
    NotationError,
    apply_decision,
    format_decision,
    format_position,
    multiset_text,
    parse_decision,
    parse_position,
    position_differences,
    positions_equal,
)


def _escape(message: str) -> str:
    return re.escape(message)


@pytest.fixture(scope="module")
def start() -> str:
    return format_position(Game.new(4, 7))


# Positions written before the rules correction (R6.9, R6.10, section 9), by `mundus rules
# new --players 4 --seed 7` and in a random game of the engine of that time: tag mn1, no
# store fields, the default deck of then (now shipped as first-edition, found by its digest).
FIRST_EDITION_DIGEST = "a61f33f4ee7d"
MN1_START = (
    "mn1 players=4 seed=7 promo=0 first_tm=0 round_limit=- deck=default@a61f33f4ee7d round=1 "
    "tm=0 event=- phase=announce active=0 market=234 display=- queue=D28,D13,D08,D40,D04 "
    "doubloons=0/0/0/0 hands=11569/11356/11244/12459 stored=-/-/-/- devs=-/-/-/- "
    "faceup=-/-/-/- fleets=- pick_queue=- pirates_due=- pirates_chosen=- announced=0 offers=- "
    "tie=- takes=- gift_to=- turn_order=- turn_index=0 turn_sets=0 turn_series=0 "
    "turn_relics=0 turn_perfect=0 converted=- merchants_used=- perfect_shown=- queue_short=0 "
    "result=- reshuffles=0 "
    "draw=5R371456R1144732312966294368R39143R41535R36722343R953876R85722485279R32126378529325"
    "18RR768R86216R discard=- "
    "devpile=D31,D27,D37,D14,D23,D01,D02,D41,D43,D26,D24,D44,D19,D39,D16,D36,D09,D22,D32,D17,"
    "D06,D03,D18,D38,D15,D42,D29,D05,D10,D30,D07"
)

MN1_STORE = (
    "mn1 players=3 seed=4 promo=0 first_tm=0 round_limit=- deck=default@a61f33f4ee7d round=6 "
    "tm=0 event=- phase=store active=0 market=3RR display=- queue=D28,D43,D05,D13,D17 "
    "doubloons=19/5/15 hands=246/16688/257RR stored=-/-/- devs=D14,D07,D22/-/- faceup=-/-/- "
    "fleets=0:D07 pick_queue=- pirates_due=- pirates_chosen=- announced=3 offers=- tie=- "
    "takes=0>2,2>1,1>0,0>2,2>0,0>1,1>2,2>0,0>1 gift_to=- turn_order=0,1,2 turn_index=0 "
    "turn_sets=0 turn_series=1 turn_relics=0 turn_perfect=0 converted=- merchants_used=D14 "
    "perfect_shown=- queue_short=0 result=- reshuffles=0 draw=4236314649767215689R94425 "
    "discard=123451228911148R2335136852223923564567833356R1279877R453449R137RR12351111R32569 "
    "devpile=D31,D19,D24,D26,D41,D04,D37,D40,D23,D39,D38,D36,D30,D03,D08,D02,D16,D01,D27,D15,"
    "D06,D42"
)


# -- positions ------------------------------------------------------------------------------


def test_every_game_slot_is_in_the_notation_or_rebuilt_or_excluded() -> None:
    covered = set(POSITION_FIELDS) | DERIVED_SLOTS | EXCLUDED_SLOTS
    assert set(FIELDS) <= covered


@pytest.mark.parametrize(("players", "seed", "promo"), BOT_CONFIGS)
def test_position_round_trips_at_every_decision_point(players: int, seed: int,
                                                      promo: bool) -> None:
    for game in bot_positions(players, seed, promo):
        text = format_position(game)
        parsed = parse_position(text)
        assert position_differences(parsed, game) == [], text
        assert format_position(parsed) == text
        assert parsed.log == []


def test_round_trips_reach_every_phase() -> None:
    seen = {g.phase for cfg in BOT_CONFIGS for g in bot_positions(*cfg)}
    assert seen == set(PHASES)


@pytest.mark.parametrize(("players", "seed", "promo"), BOT_CONFIGS[:4])
def test_continuing_a_parsed_position_plays_exactly_like_the_original(
        players: int, seed: int, promo: bool) -> None:
    base = Game.new(players, seed, promo=promo)
    bots = random_bots(base, seed)
    step = 0
    while not base.is_over:
        if step % 80 == 0:
            original, parsed = base.copy(), parse_position(format_position(base))
            mark = len(original.log)
            for game in (original, parsed):
                fresh = random_bots(game, step)
                while not game.is_over:
                    bot_step(game, fresh)
            assert positions_equal(parsed, original)
            assert parsed.result == original.result
            assert parsed.log == original.log[mark:]
        bot_step(base, bots)
        step += 1


def test_positions_equal_ignores_the_log_but_not_state() -> None:
    game = Game.new(3, 5)
    other = parse_position(format_position(game))
    assert positions_equal(game, other)
    other.doubloons[1] += 1
    assert position_differences(game, other) == ["doubloons"]


def test_starting_position_lists_every_field_once_in_order(start: str) -> None:
    tokens = start.split()
    assert tokens[0] == "mn2"
    assert [t.partition("=")[0] for t in tokens[1:]] == list(POSITION_FIELDS)
    assert field_of(start, "deck").startswith("default@")
    assert field_of(start, "phase") == "announce"


def test_fields_may_come_in_any_order_and_the_deck_digest_may_be_left_out(start: str) -> None:
    tokens = start.split()
    shuffled = " ".join([tokens[0], *reversed(tokens[1:])])
    assert positions_equal(parse_position(with_field(shuffled, "deck", "default")),
                           parse_position(start))


def test_custom_deck_is_named_in_the_position_and_must_be_passed() -> None:
    text = default_deck_text().replace("Hernán Cortés", "Hernan Cortes")
    deck = parse_deck(text, name="my deck")
    position = format_position(Game.new(3, 1, deck=deck))
    assert field_of(position, "deck") == f"my%20deck@{deck.digest}"
    assert parse_position(position, deck).deck == deck
    with pytest.raises(NotationError, match="uses deck 'my deck'; pass that deck"):
        parse_position(position)
    changed = parse_deck(text.replace("Hernan Cortes", "Cortes"), name="my deck")
    with pytest.raises(NotationError, match="not the deck the position was made with"):
        parse_position(position, changed)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("players", "7", "field 'players': players 7 is above 6"),
    ("seed", "x", "field 'seed': seed 'x' is not a whole number"),
    ("promo", "yes", "field 'promo': 'yes' is not 0 or 1"),
    ("tm", "4", "field 'tm': seat 4 is above 3"),
    ("event", "XX", "field 'event': 'XX' is not - or one of"),
    ("phase", "lunch", "field 'phase': 'lunch' is not one of"),
    ("market", "23X", "field 'market': 'X' is not a resource"),
    ("market", "", "field 'market': empty"),
    ("hands", "11569/11356/11244", "field 'hands': 3 part(s) separated by '/', expected one "
                                   "per seat"),
    ("hands", "11569/11356/11244/12458", "they hold 9 indigo"),
    ("queue", "D28,D13,D08,D40,D99", "field 'queue': 'D99' is not a card of deck 'default'"),
    ("queue", "D28,D13,D08,D40,D07", "field 'devpile': D07 is also in 'queue'"),
    ("queue", "D28,D13,D08,D40", "card(s) D04 missing"),
    ("queue", "D28,D13,D08,D40,D04,D12", "D12 not in play with 4 players"),
    ("offers", "0:115", "field 'offers': offers are only pending in the offer phase"),
    ("offers", "0115", "field 'offers': '0115' is not SEAT:VALUE"),
    ("takes", "0-1", "field 'takes': '0-1' is not A>B"),
    ("result", "win", "field 'result': write REASON:WINNERS:DOUBLOONS:PLACES:ROUNDS or -"),
    ("result", "queue:0:1/2/3/4:1/2/3/4:3", "a result is given exactly when the phase is over"),
    ("phase", "take", "field 'faceup': phase take needs a card of another seat than 0"),
    ("phase", "turn", "field 'turn_index': phase turn needs a turn order"),
    ("phase", "coronado", "field 'active': phase coronado asks the owner of coronado"),
])
def test_malformed_position_names_the_field_and_problem(start: str, key: str, value: str,
                                                        message: str) -> None:
    with pytest.raises(NotationError, match=_escape(message)):
        parse_position(with_field(start, key, value))


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty position"),
    ("fen players=4", "a position starts with 'mn2' (or 'mn1', before the rules correction), "
                      "not 'fen'"),
    ("mn3 players=4", "a position starts with 'mn2'"),
    ("mn2 players", "'players' is not a key=value field"),
    ("mn2 colour=red", "unknown position field 'colour'"),
    ("mn2 players=4 players=4", "position field 'players' is given twice"),
    ("mn2 players=4", "position field(s) missing: seed, promo"),
    ("mn1 players", "'players' is not a key=value field"),
    ("mn1 colour=red", "unknown position field 'colour'"),
    ("mn1 players=4 players=4", "position field 'players' is given twice"),
    ("mn1 players=4", "position field(s) missing: seed, promo"),
    ("mn1 store_due=-", "unknown position field 'store_due' in an mn1 position"),
])
def test_malformed_position_structure_is_reported(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=_escape(message)):
        parse_position(text)


def test_mutated_positions_either_fail_to_parse_or_play_on_without_crashing() -> None:
    pool = [format_position(g) for i, g in enumerate(bot_positions(4, 3, True)) if i % 9 == 0]
    rng = random.Random(11)
    parsed = 0
    for i in range(600):
        tokens = rng.choice(pool).split()
        for _ in range(rng.randrange(1, 3)):  # take one or two fields from another position
            k = rng.randrange(1, len(tokens))
            tokens[k] = rng.choice(pool).split()[k]
        try:
            game = parse_position(" ".join(tokens))
        except NotationError:
            continue
        parsed += 1
        bots = random_bots(game, i)
        for _ in range(40):
            if game.is_over:
                break
            assert game.pending is not None
            bot_step(game, bots)
    assert parsed > 100


# -- decisions ------------------------------------------------------------------------------

EXAMPLES: list[tuple[str, Decision]] = [
    ("event:ST", ChooseEvent("ST")),
    ("event:pass", ChooseEvent(None)),
    ("split:D01+D03", SplitFleet(("D01", "D03"))),
    ("split:none", SplitFleet(())),
    ("pick:35", PickCards((3, 5))),
    ("buy:5", BuyMarket(5)),
    ("buy:R", BuyMarket(10)),
    ("buy:pass", BuyMarket(None)),
    ("pirates:3", PirateDiscard((3,))),
    ("announce:3", Announce(3)),
    ("offer:1135", Offer((1, 1, 3, 5))),
    ("offer:-", Offer(())),
    ("tm:2", ChooseTradeMaster(2)),
    ("take:5@2", Take(2, 5, None)),
    ("take:5@2:9", Take(2, 5, 9)),
    ("take:R@1:R", Take(1, 10, 10)),
    ("gift:4", Gift(4)),
    ("first:2", ChooseFirst(2)),
    ("convert:2:5", Convert(2, 5)),
    ("convert:R:9", Convert(10, 9)),
    ("set:5:55R:q2", MakeSet(5, (5, 5, 10), 2)),
    ("set:1:RRR:draw", MakeSet(1, (10, 10, 10), TARGET_DRAW)),
    ("set:8:888:cash", MakeSet(8, (8, 8, 8), TARGET_CASH)),
    ("series:12345", MakeSeries((1, 2, 3, 4, 5))),
    ("relics:3", MakeRelicSet(3)),
    ("perfect", MakePerfect()),
    ("end", EndTurn()),
    ("store:35", Store((3, 5))),
    ("store:-", Store(())),
]


@pytest.mark.parametrize(("text", "decision"), EXAMPLES)
def test_every_decision_kind_round_trips(text: str, decision: Decision) -> None:
    assert format_decision(decision) == text
    assert parse_decision(text) == (None, decision)
    assert format_decision(decision, 3) == f"3.{text}"
    assert parse_decision(f"3.{text}") == (3, decision)


def test_examples_cover_every_decision_type() -> None:
    assert {type(d) for _, d in EXAMPLES} == set(DECISION_TYPES)


def test_every_legal_decision_of_random_games_round_trips() -> None:
    for cfg in BOT_CONFIGS[:3]:
        for game in bot_positions(*cfg):
            for seat in game.waiting_seats():
                for d in game.legal(seat):
                    assert parse_decision(format_decision(d, seat)) == (seat, d)


def test_decision_cards_are_read_as_a_sorted_multiset() -> None:
    assert parse_decision("offer:r51") == (None, Offer((1, 5, 10)))


def test_decision_accepts_greater_than_for_swap_and_conversion() -> None:
    assert parse_decision("take:5@2>9") == (None, Take(2, 5, 9))
    assert parse_decision("convert:2>5") == (None, Convert(2, 5))


def test_formatted_decisions_need_no_shell_quoting() -> None:
    unsafe = set(" \t\n<>|&;()$`'\"\\*?[]{}#!~^")
    for _, decision in EXAMPLES:
        assert not unsafe & set(format_decision(decision, 2))


@pytest.mark.parametrize(("text", "message"), [
    ("bogus", "unknown kind 'bogus'"),
    ("offer", "offer needs an argument after ':'"),
    ("offer:", "offer needs an argument after ':'"),
    ("offer:12x", "'x' is not a resource (1-9 or R)"),
    ("end:now", "end takes no argument"),
    ("take:5", "write take:CARD@SEAT"),
    ("take:55@1", "'55' is not one resource"),
    ("take:5@x", "seat 'x' is not a whole number"),
    ("convert:25", "write convert:CARD:VALUE"),
    ("set:5:555", "write set:VALUE:CARDS:TARGET"),
    ("set:5:555:q0", "queue position 0 is below 1"),
    ("set:5:555:top", "target 'top' is not q1-q5, draw or cash"),
    ("event:RAIN", "'RAIN' is not pass or one of KA, IP, ST, FI, PI"),
    ("split:D01+", "'' is not a caravel id"),
    ("x.offer:1", "unknown kind 'x.offer'"),
])
def test_malformed_decision_names_the_problem(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=_escape(f"decision {text!r}: {message}")):
        parse_decision(text)


def test_decision_without_seat_goes_to_the_single_waiting_seat() -> None:
    game = Game.new(3, 2)
    assert apply_decision(game, "announce:4") == (0, Announce(4))
    with pytest.raises(NotationError, match="seats 0, 1, 2 are all waiting"):
        apply_decision(game, "offer:-")
    with pytest.raises(RuleError, match=r"R5\.2"):
        apply_decision(game, "1.offer:-")


# -- the mundus rules command ---------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["rules", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_rules_new_prints_the_starting_position(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "new", "--players", "4", "--seed", "7")
    assert status == 0
    assert out.strip() == format_position(Game.new(4, 7))
    status, out, _ = _run(capsys, "new", "--players", "5", "--seed", "7", "--promo",
                          "--first-tm", "random", "--round-limit", "20")
    assert status == 0
    game = parse_position(out)
    assert (game.options.promo, game.options.first_tm, game.options.round_limit) == (
        True, None, 20)


def test_rules_show_prints_the_table_and_legal_decisions(
        capsys: pytest.CaptureFixture[str], start: str) -> None:
    status, out, _ = _run(capsys, "show", start)
    assert status == 0
    assert "Round 1, event none, phase announce, Trade Master seat 0" in out
    assert "Market:  234 (corn, tobacco, coffee)" in out
    assert "1. D28 Warehouse for 1" in out
    assert "hand: 11569 (cocoa x2, cotton, sugar cane, vanilla)" in out
    assert out.rstrip().endswith("Legal (3): announce:2 announce:3 announce:4")


def test_rules_show_of_a_finished_game_gives_the_result(
        capsys: pytest.CaptureFixture[str]) -> None:
    game = list(bot_positions(2, 1, False))[-1]
    assert game.phase == OVER
    status, out, _ = _run(capsys, "show", format_position(game))
    assert status == 0
    assert "Game over after" in out


def test_rules_apply_prints_position_events_pending_and_legal(
        capsys: pytest.CaptureFixture[str], start: str) -> None:
    status, out, _ = _run(capsys, "apply", start, "announce:3", "0.offer:115", "1.offer:113",
                          "2.offer:112", "3.offer:124")
    assert status == 0
    data = json.loads(out)
    expected = parse_position(start)
    for text in ("announce:3", "0.offer:115", "1.offer:113", "2.offer:112", "3.offer:124"):
        apply_decision(expected, text)
    assert data["position"] == format_position(expected)
    first = data["events"][0]
    assert (first["kind"], first["private"]) == ("decision", None)
    assert (first["public"]["seat"], first["public"]["decision"]) == (0, "announce:3")
    secret = data["events"][2]
    assert secret["kind"] == "decision" and "decision" not in secret["public"]
    assert secret["private"] == {"0": {"decision": "offer:115"}}
    reveal = next(e for e in data["events"] if e["kind"] == "reveal")
    assert reveal["public"]["offers"]["3"] == [1, 2, 4]
    assert data["pending"] == {"kind": "take", "seats": [0], "detail": {}}
    assert data["legal"][:2] == ["take:1@1", "take:1@1:2"]
    assert data["result"] is None


def test_rules_apply_prefixes_legal_decisions_when_several_seats_wait(
        capsys: pytest.CaptureFixture[str], start: str) -> None:
    status, out, _ = _run(capsys, "apply", start, "announce:2")
    assert status == 0
    legal = json.loads(out)["legal"]
    assert "0.offer:11" in legal and "3.offer:59" in legal


def test_rules_apply_illegal_decision_exits_1_with_the_rule_id(
        capsys: pytest.CaptureFixture[str], start: str) -> None:
    status, out, err = _run(capsys, "apply", start, "announce:3", "0.offer:999")
    assert status == 1
    assert out == ""
    assert err.startswith("R5.2: ")
    status, _, err = _run(capsys, "apply", start, "announce:5")
    assert (status, err.split(":")[0]) == (1, "R5.1")


def test_rules_apply_malformed_input_exits_2(capsys: pytest.CaptureFixture[str],
                                             start: str) -> None:
    status, _, err = _run(capsys, "apply", start, "announce:3", "offer:115")
    assert status == 2
    assert "are all waiting" in err
    status, _, err = _run(capsys, "apply", start, "nonsense")
    assert (status, "unknown kind 'nonsense'" in err) == (2, True)
    status, _, err = _run(capsys, "show", with_field(start, "tm", "9"))
    assert (status, err.strip()) == (2, "position field 'tm': seat 9 is above 3 (R2.1)")


def test_rules_commands_take_a_custom_deck_file(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    path = tmp_path / "house.deck"
    path.write_text(default_deck_text().replace("Hernán Cortés", "Hernando"), "utf-8")
    status, position, _ = _run(capsys, "new", "--players", "3", "--deck", str(path))
    assert status == 0 and field_of(position, "deck").startswith("house@")
    status, _, err = _run(capsys, "show", position)
    assert status == 2 and "pass that deck" in err
    status, out, _ = _run(capsys, "apply", position, "announce:2", "--deck", str(path))
    assert status == 0 and json.loads(out)["pending"]["kind"] == "offer"
    status, _, err = _run(capsys, "new", "--players", "3", "--deck", str(tmp_path / "no.deck"))
    assert status == 2 and "cannot read the deck file" in err


def test_default_deck_digest_is_written(start: str) -> None:
    assert field_of(start, "deck") == f"default@{default_deck().digest}"


def test_positions_in_the_notation_docs_parse() -> None:
    doc = Path(__file__).resolve().parent.parent / "docs" / "notation.md"
    lines = [line for line in doc.read_text("utf-8").splitlines()
             if line.startswith(("mn1 ", "mn2 ")) and " ... " not in line]
    assert len(lines) >= 2
    games = [parse_position(line) for line in lines]
    assert positions_equal(games[0], Game.new(3, 4))


# -- rules editions: mn1 and mn2 positions, the storage step (R6.9) ---------------------------


def test_R6_9_an_mn1_position_is_read_by_the_first_edition_rules_and_round_trips() -> None:
    """An mn1 position (written before the correction) is read as rules edition 1, with the
    first-edition deck its digest names; it is written back as mn1, without the store fields,
    naming that deck, and that text round-trips unchanged. It is the position a new game of
    the first edition starts from."""
    game = parse_position(MN1_START)
    assert game.options.rules == 1
    assert game.deck.name == "first-edition" and game.deck.digest == FIRST_EDITION_DIGEST
    assert game.deck["D10"].players == 4 and game.deck["D24"].players == 3
    text = format_position(game)
    assert text == with_field(MN1_START, "deck", f"first-edition@{FIRST_EDITION_DIGEST}")
    assert text.split()[0] == "mn1" and "store_due=" not in text and "store_chosen=" not in text
    again = parse_position(text)
    assert again.options.rules == 1 and format_position(again) == text
    assert positions_equal(again, game)
    first = builtin_decks()["first-edition"]
    assert format_position(Game.new(4, 7, rules=1, deck=first)) == text


def test_R6_9_an_mn1_store_position_plays_on_by_the_first_edition() -> None:
    """An mn1 position in the storage of the first edition (seat 0 at the end of its own
    turn, the round's first) stores, discards and passes to the next turn, as it did."""
    game = parse_position(MN1_STORE)
    assert game.options.rules == 1 and game.deck.name == "first-edition"
    assert game.pending == Pending("store", (0,), {"capacity": {0: 2}})
    text = format_position(game)
    assert text == with_field(MN1_STORE, "deck", f"first-edition@{FIRST_EDITION_DIGEST}")
    assert format_position(parse_position(text)) == text
    apply_decision(game, "0.store:24")
    assert [(e.kind, e.public.get("seat")) for e in game.log[1:3]] == [("store", 0),
                                                                      ("discard", 0)]
    assert game.log[2].public["cards"] == (6,)
    assert game.stored[0] == [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]
    # Seat 1 could only end its turn (played by the engine); seat 2 holds two relics.
    assert game.phase == "turn" and game.active == 2 and game.turn_index == 2


def _mn2_store_game() -> Game:
    """The storage step after every turn of round 11 of a seeded 3-player bot game: seats 0,
    1 and 2 asked (warehouses for 1, 2 and 1 cards); seat 0 has chosen 5 in secret. A game
    played by the rules, since a position must be one its seed reaches (R2.6)."""
    game = next(g for g in bot_positions(3, 13, False)
                if g.phase == "store" and sorted(g.store_due) == [0, 1, 2]
                and list(g.store_chosen) == [0])
    assert [from_counts(h) for h in game.hands] == [(2, 4, 4, 5), (2, 3, 7), (1, 2, 8)]
    return game.copy()


def test_R6_9_an_mn2_store_position_round_trips_and_plays_on_alike() -> None:
    """An mn2 position in the storage step writes who is asked for how many cards and the
    secret choices made so far; it round-trips, and continuing it plays exactly like the
    original game."""
    game = _mn2_store_game()
    text = format_position(game)
    assert text.split()[0] == "mn2"
    assert field_of(text, "phase") == "store" and field_of(text, "turn_index") == "3"
    assert field_of(text, "store_due") == "0:1,1:2,2:1"
    assert field_of(text, "store_chosen") == "0:5"
    keys = [t.partition("=")[0] for t in text.split()[1:]]
    assert keys.index("merchants_used") + 1 == keys.index("store_due")
    assert keys.index("store_chosen") + 1 == keys.index("perfect_shown")
    parsed = parse_position(text)
    assert parsed.options.rules == 2
    assert position_differences(parsed, game) == []
    assert format_position(parsed) == text
    assert parsed.pending == game.pending == Pending("store", (1, 2),
                                                     {"capacity": {0: 1, 1: 2, 2: 1}})
    assert parsed.legal(1) == game.legal(1) and parsed.legal(0) == []
    mark = len(game.log)
    for g in (game, parsed):
        apply_decision(g, "1.store:3")
        apply_decision(g, "2.store:-")
    assert positions_equal(parsed, game)
    assert parsed.log == game.log[mark:]
    assert parsed.round == 12 and field_of(format_position(parsed), "store_due") == "-"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("store_chosen", "0:5,1:3", None),  # well formed: seat 1 is asked
    ("store_due", "1:2,2:1",  # seat 0, who has chosen, is no longer asked
     "position field 'store_chosen': a seat that is not asked to store has chosen"),
    ("turn_index", "2", "position field 'turn_index': phase store comes after every turn "
                        "(index 3)"),
    ("store_due", "0:2,1:2,2:1", "position field 'store_due': seat 0's warehouses hold 1 "
                                 "card(s)"),
    ("store_chosen", "0:159", "position field 'store_chosen': seat 0 stores cards that are "
                              "not in its hand"),
    ("store_chosen", "0:5,1:3,2:8", "position field 'store_due': phase store needs a seat "
                                     "still to choose"),
    ("store_due", "0:1,1:1,2:1", "position field 'store_due': seat 1's warehouses hold 2 "
                                 "card(s)"),  # asked for less than its capacity
    ("store_due", "0:1,2:1", "position field 'store_due': seat 1 has warehouses and cards: "
                             "it is asked too"),  # an eligible seat left out
])
def test_R6_9_a_malformed_store_position_names_the_field(key: str, value: str,
                                                          message: str | None) -> None:
    text = with_field(format_position(_mn2_store_game()), key, value)
    if message is None:
        assert parse_position(text).waiting_seats() == (2,)
        return
    with pytest.raises(NotationError, match=_escape(message)):
        parse_position(text)


def test_R6_9_store_fields_outside_the_store_phase_are_refused(start: str) -> None:
    with pytest.raises(NotationError,
                       match=_escape("position field 'store_due': storage is only pending in "
                                     "the store phase")):
        parse_position(with_field(start, "store_due", "0:1"))
    with pytest.raises(NotationError, match=_escape("position field(s) missing: store_due, "
                                                    "store_chosen")):
        parse_position(MN1_START.replace("mn1 ", "mn2 ", 1))


# -- positions that cannot be: the event step (R3) -------------------------------------------

def _icon(game: Game, index: int = 0) -> str | None:
    return game.deck[game.queue[index]].icon if len(game.queue) > index else None


def test_R3_1_a_position_of_round_1_with_an_event_is_refused(start: str) -> None:
    with pytest.raises(NotationError, match=_escape("round 1 has no event") + ".*R3.1"):
        parse_position(with_field(start, "event", "KA"))


def test_R3_2_the_event_before_the_turns_is_the_icon_of_queue_card_1() -> None:
    position = first_position(lambda g: g.round >= 2 and g.phase == "announce"
                               and _icon(g) is not None)
    icon = field_of(position, "event")
    other = next(e for e in ("KA", "IP", "ST", "FI", "PI") if e != icon)
    for wrong in (other, "-"):
        with pytest.raises(NotationError, match=_escape(f"shows {icon}: the event of the "
                                                        f"round is {icon}") + ".*R3.2"):
            parse_position(with_field(position, "event", wrong))


def test_R3_3_an_event_without_an_icon_needs_someone_owning_coronado() -> None:
    position = first_position(lambda g: g.round >= 2 and g.phase == "announce"
                               and _icon(g) is None and "coronado" not in g.owner)
    with pytest.raises(NotationError, match=r"nobody owns Coronado to impose KA.*R3\.3"):
        parse_position(with_field(position, "event", "KA"))


def test_R3_3_coronado_is_asked_only_when_queue_card_1_shows_no_icon() -> None:
    found = first_position(lambda g: g.phase == "coronado"
                            and any(_icon(g, i) for i in range(len(g.queue))))
    parse_position(found)  # as the engine wrote it
    queue = field_of(found, "queue").split(",")
    game = parse_position(found)
    first = next(c for c in queue if game.deck[c].icon)
    reordered = ",".join([first, *(c for c in queue if c != first)])
    with pytest.raises(NotationError, match=r"Coronado may impose one only when it shows "
                                            r"none \(R3.2, R3.3\)"):
        parse_position(with_field(found, "queue", reordered))
    with pytest.raises(NotationError, match=r"not chosen yet \(R3.3\)"):
        parse_position(with_field(found, "event", "KA"))


def test_the_market_and_display_are_read_in_any_order_and_written_sorted(start: str) -> None:
    market = field_of(start, "market")
    game = parse_position(with_field(start, "market", market[::-1]))
    assert field_of(format_position(game), "market") == market == "".join(sorted(market))


def test_rules_show_as_a_seat_prints_only_what_that_seat_may_see(
        capsys: pytest.CaptureFixture[str]) -> None:
    position = first_position(lambda g: g.phase == "offer" and len(g.offers) == 1
                               and len(g.waiting_seats()) >= 1)
    game = parse_position(position)
    offered = next(iter(game.offers))
    other = next(s for s in range(game.players) if s != offered)
    status, out, _ = _run(capsys, "show", "--as", str(offered), position)
    assert status == 0
    assert f"As seat {offered}:" in out
    assert f"  hand: {multiset_text(from_counts(game.hands[offered]))}" in out
    assert f"  your secret offer: {multiset_text(game.offers[offered])}" in out
    hidden = [line for line in out.splitlines() if line.startswith("  hand:")]
    assert sum("hidden" in line for line in hidden) == game.players - 1
    status, out, _ = _run(capsys, "show", "--as", str(other), position)
    assert "has fixed a secret choice (hidden until all are in)" in out
    assert "secret offer" not in out and "order hidden" in out
    assert "Your legal decisions" in out


def test_rules_show_as_a_spectator_shows_no_hand_and_refuses_a_seat_not_at_the_table(
        capsys: pytest.CaptureFixture[str], start: str) -> None:
    status, out, _ = _run(capsys, "show", "--as", "spectator", start)
    assert status == 0 and out.startswith("As a spectator: round 1")
    assert out.count("card(s), hidden") == 4 and "legal" not in out.lower()
    status, _, err = _run(capsys, "show", "--as", "4", start)
    assert status == 2 and "'4' is not a seat (0 to 3) or 'spectator'" in err
