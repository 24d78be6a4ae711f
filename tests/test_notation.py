"""The position and decision notations (docs/notation.md) and the ``mundus rules`` command."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from mundus_net.bots.random_bot import RandomBot
from mundus_net.cli import main
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
from mundus_net.engine.deck import default_deck, default_deck_text, parse_deck
from mundus_net.engine.game import OVER, PHASES, Game
from mundus_net.engine.notation import (
    DERIVED_SLOTS,
    EXCLUDED_SLOTS,
    POSITION_FIELDS,
    NotationError,
    apply_decision,
    format_decision,
    format_position,
    parse_decision,
    parse_position,
    position_differences,
    positions_equal,
)
from mundus_net.engine.view import PlayerView

# (players, seed, promo): together these reach every phase (pirates, split, coronado, sergio...).
CONFIGS = [(2, 1, False), (3, 2, True), (4, 3, False), (4, 4, True), (5, 5, True),
           (6, 6, True), (6, 7, False), (4, 13, True)]


def _step(game: Game, bots: list[RandomBot]) -> None:
    """One decision by the first waiting seat's bot (like runner.play_game)."""
    seat = game.waiting_seats()[0]
    game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))


def _bots(game: Game, seed: int) -> list[RandomBot]:
    return [RandomBot(seed * 10 + s) for s in range(game.players)]


def _positions(players: int, seed: int, promo: bool) -> Iterator[Game]:
    """The game at every decision point of one seeded random game, its end included."""
    game = Game.new(players, seed, promo=promo, first_tm=None if seed % 2 else 0)
    bots = _bots(game, seed)
    while not game.is_over:
        yield game
        _step(game, bots)
    yield game


def _escape(message: str) -> str:
    return re.escape(message)


def _field(text: str, key: str) -> str:
    return next(t.partition("=")[2] for t in text.split() if t.startswith(key + "="))


def _with(text: str, key: str, value: str) -> str:
    return " ".join(f"{key}={value}" if t.startswith(key + "=") else t for t in text.split())


@pytest.fixture(scope="module")
def start() -> str:
    return format_position(Game.new(4, 7))


# -- positions ------------------------------------------------------------------------------


def test_every_game_slot_is_in_the_notation_or_rebuilt_or_excluded() -> None:
    covered = set(POSITION_FIELDS) | DERIVED_SLOTS | EXCLUDED_SLOTS
    assert set(Game.__slots__) <= covered


@pytest.mark.parametrize(("players", "seed", "promo"), CONFIGS)
def test_position_round_trips_at_every_decision_point(players: int, seed: int,
                                                      promo: bool) -> None:
    for game in _positions(players, seed, promo):
        text = format_position(game)
        parsed = parse_position(text)
        assert position_differences(parsed, game) == [], text
        assert format_position(parsed) == text
        assert parsed.log == []


def test_round_trips_reach_every_phase() -> None:
    seen = {g.phase for cfg in CONFIGS for g in _positions(*cfg)}
    assert seen == set(PHASES)


@pytest.mark.parametrize(("players", "seed", "promo"), CONFIGS[:4])
def test_continuing_a_parsed_position_plays_exactly_like_the_original(
        players: int, seed: int, promo: bool) -> None:
    base = Game.new(players, seed, promo=promo)
    bots = _bots(base, seed)
    step = 0
    while not base.is_over:
        if step % 80 == 0:
            original, parsed = base.copy(), parse_position(format_position(base))
            mark = len(original.log)
            for game in (original, parsed):
                fresh = _bots(game, step)
                while not game.is_over:
                    _step(game, fresh)
            assert positions_equal(parsed, original)
            assert parsed.result == original.result
            assert parsed.log == original.log[mark:]
        _step(base, bots)
        step += 1


def test_positions_equal_ignores_the_log_but_not_state() -> None:
    game = Game.new(3, 5)
    other = parse_position(format_position(game))
    assert positions_equal(game, other)
    other.doubloons[1] += 1
    assert position_differences(game, other) == ["doubloons"]


def test_starting_position_lists_every_field_once_in_order(start: str) -> None:
    tokens = start.split()
    assert tokens[0] == "mn1"
    assert [t.partition("=")[0] for t in tokens[1:]] == list(POSITION_FIELDS)
    assert _field(start, "deck").startswith("default@")
    assert _field(start, "phase") == "announce"


def test_fields_may_come_in_any_order_and_the_deck_digest_may_be_left_out(start: str) -> None:
    tokens = start.split()
    shuffled = " ".join([tokens[0], *reversed(tokens[1:])])
    assert positions_equal(parse_position(_with(shuffled, "deck", "default")),
                           parse_position(start))


def test_custom_deck_is_named_in_the_position_and_must_be_passed() -> None:
    text = default_deck_text().replace("Hernán Cortés", "Hernan Cortes")
    deck = parse_deck(text, name="my deck")
    position = format_position(Game.new(3, 1, deck=deck))
    assert _field(position, "deck") == f"my%20deck@{deck.digest}"
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
        parse_position(_with(start, key, value))


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty position"),
    ("fen players=4", "a position starts with 'mn1', not 'fen'"),
    ("mn1 players", "'players' is not a key=value field"),
    ("mn1 colour=red", "unknown position field 'colour'"),
    ("mn1 players=4 players=4", "position field 'players' is given twice"),
    ("mn1 players=4", "position field(s) missing: seed, promo"),
])
def test_malformed_position_structure_is_reported(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=_escape(message)):
        parse_position(text)


def test_mutated_positions_either_fail_to_parse_or_play_on_without_crashing() -> None:
    pool = [format_position(g) for i, g in enumerate(_positions(4, 3, True)) if i % 9 == 0]
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
        bots = _bots(game, i)
        for _ in range(40):
            if game.is_over:
                break
            assert game.pending is not None
            _step(game, bots)
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
    for cfg in CONFIGS[:3]:
        for game in _positions(*cfg):
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
    game = list(_positions(2, 1, False))[-1]
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
    status, _, err = _run(capsys, "show", _with(start, "tm", "9"))
    assert (status, err.strip()) == (2, "position field 'tm': seat 9 is above 3")


def test_rules_commands_take_a_custom_deck_file(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    path = tmp_path / "house.deck"
    path.write_text(default_deck_text().replace("Hernán Cortés", "Hernando"), "utf-8")
    status, position, _ = _run(capsys, "new", "--players", "3", "--deck", str(path))
    assert status == 0 and _field(position, "deck").startswith("house@")
    status, _, err = _run(capsys, "show", position)
    assert status == 2 and "pass that deck" in err
    status, out, _ = _run(capsys, "apply", position, "announce:2", "--deck", str(path))
    assert status == 0 and json.loads(out)["pending"]["kind"] == "offer"
    status, _, err = _run(capsys, "new", "--players", "3", "--deck", str(tmp_path / "no.deck"))
    assert status == 2 and "cannot read the deck file" in err


def test_default_deck_digest_is_written(start: str) -> None:
    assert _field(start, "deck") == f"default@{default_deck().digest}"


def test_positions_in_the_notation_docs_parse() -> None:
    doc = Path(__file__).resolve().parent.parent / "docs" / "notation.md"
    lines = [line for line in doc.read_text("utf-8").splitlines()
             if line.startswith("mn1 ") and " ... " not in line]
    assert len(lines) >= 2
    games = [parse_position(line) for line in lines]
    assert positions_equal(games[0], Game.new(3, 4))
