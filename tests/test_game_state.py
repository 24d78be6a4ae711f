"""A game builds itself from a complete state (Game.from_state, Game.set_state, Game.state),
and the settings a look-ahead uses (keep_log, on_round_end) are public and not part of the
position."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.positions import BOT_CONFIGS, bot_positions, random_bots

from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.decisions import RuleError
from mundus_net.engine.game import FIELDS, OVER, Game, GameState, Options
from mundus_net.engine.notation import format_position, position_differences
from mundus_net.engine.view import PlayerView
from mundus_net.tools.runner import play_game


@pytest.mark.parametrize(("players", "seed", "promo"), BOT_CONFIGS[:4])
def test_a_game_built_from_its_state_is_the_same_position(players: int, seed: int,
                                                          promo: bool) -> None:
    """At every decision point of a game, from_state(state()) makes the same position
    (developments' owners, caravels, merchants and warehouses rebuilt: R2-R8 state), with
    an empty log and the same legal decisions."""
    for game in bot_positions(players, seed, promo):
        built = Game.from_state(game.state(), game.deck)
        assert position_differences(built, game) == []
        assert format_position(built) == format_position(game)
        assert built.log == []
        for seat in range(players):
            assert built.legal(seat) == game.legal(seat)


def test_a_state_is_a_copy_that_does_not_change_with_the_game() -> None:
    game = Game.new(4, 3)
    state = game.state()
    before = format_position(Game.from_state(state))
    bots = random_bots(game, 3)
    for _ in range(20):
        seat = game.waiting_seats()[0]
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    assert format_position(Game.from_state(state)) == before


def test_set_state_puts_a_game_in_a_position_and_keeps_its_log() -> None:
    """set_state (python-chess's set_fen) arranges a position in place: the fields as given,
    derived caches rebuilt from devs, the log kept."""
    game = Game.new(3, 5)
    log = list(game.log)
    cards = [c for c in game.queue if game.deck[c].kind == "caravel"] or game.queue[:1]
    arranged = replace(game.state(), devs=[cards, [], []],
                       queue=[c for c in game.queue if c not in cards], doubloons=[9, 0, 4])
    game.set_state(arranged)
    assert game.devs == [cards, [], []] and game.doubloons == [9, 0, 4]
    assert sorted(game.caravels[0] + game.merchants[0]) == sorted(
        c for c in cards if game.deck[c].kind in ("caravel", "merchant"))
    assert game.log == log
    assert position_differences(game, Game.from_state(arranged, game.deck)) == []


def test_from_state_refuses_options_no_table_has_and_seats_that_do_not_fit() -> None:
    """R2.1: 2 to 6 players; a per-seat field holds one entry per seat (or none)."""
    with pytest.raises(RuleError) as info:
        Game.from_state(GameState(options=Options(players=7)))
    assert info.value.rule == "R2.1"
    with pytest.raises(ValueError, match="doubloons holds 2 entries for 3 seats"):
        Game.from_state(GameState(options=Options(players=3), doubloons=[1, 2]))
    empty = Game.from_state(GameState(options=Options(players=3)))
    assert empty.hands == [[0] * 11] * 3 and empty.doubloons == [0, 0, 0]


def test_a_game_that_keeps_no_log_plays_the_same_game() -> None:
    """keep_log=False changes nothing but the log: the same seeds end the same way (R8)."""
    logged, quiet = Game.new(4, 8), Game.new(4, 8)
    quiet.keep_log = False
    mark = len(quiet.log)
    for game in (logged, quiet):
        play_game(game, [RandomBot(8 + s) for s in range(4)])
    assert quiet.result == logged.result and format_position(quiet) == format_position(logged)
    assert len(quiet.log) == mark and len(logged.log) > mark


def test_on_round_end_halts_a_game_when_it_says_so_and_its_copies_share_it() -> None:
    """R7, R8: the hook sees each round end that does not end the game; True halts the game
    there (phase over, no result), before the next round begins."""
    game = Game.new(4, 2)
    seen: list[int] = []

    def halt_after_round_2(g: Game) -> bool:
        seen.append(g.round)
        return g.round >= 2

    game.on_round_end = halt_after_round_2
    copy_ = game.copy()
    assert copy_.on_round_end is halt_after_round_2
    play_game(copy_, [RandomBot(s) for s in range(4)])
    assert seen == [1, 2]
    assert copy_.phase == OVER and copy_.result is None and copy_.round == 2
    assert game.round == 1 and game.phase != OVER  # the copy played alone


def test_a_copy_has_every_field_of_the_game_and_shares_no_container_it_may_change() -> None:
    """Game.copy writes every field out by name: one left out would be missing (or shared)
    in the copy. Lists, dicts and sets are the copy's own, down to the per-seat lists."""
    game = Game.new(4, 6)
    bots = random_bots(game, 6)
    for _ in range(60):
        seat = game.waiting_seats()[0]
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    copy_ = game.copy()
    for name in FIELDS:
        mine, its = getattr(game, name), getattr(copy_, name)
        assert its == mine, name
        if isinstance(mine, (list, dict, set)):
            assert its is not mine, name
        if isinstance(mine, list):
            assert not any(a is b for a, b in zip(mine, its, strict=True)
                           if isinstance(a, list)), name


def test_next_round_begins_a_round_from_an_arranged_position() -> None:
    """R3, R4: next_round starts the event and supply steps from the state as it is."""
    game = Game.new(3, 4)
    rounds = len([e for e in game.log if e.kind == "round"])
    game.next_round()
    assert game.round == 2
    assert len([e for e in game.log if e.kind == "round"]) == rounds + 1
    assert [e.kind for e in game.log].count("deal") == 2
