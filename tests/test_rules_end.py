"""Rules R7 (the order of a round) and R8 (the end of the game)."""

from __future__ import annotations

import pytest
from support.positions import (
    R,
    assert_refused,
    begin_round,
    events,
    give,
    new_game,
    put_queue_first,
    start_turn,
)

from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.decisions import (
    Announce,
    ChooseFirst,
    EndTurn,
    MakePerfect,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    RuleError,
)
from mundus_net.engine.game import Event, Game
from mundus_net.tools.runner import play_game

PHASE_STEP = {  # R7: which step of the round each pending decision belongs to
    "coronado": 0, "split": 1, "pick": 1, "sergio": 1, "pirates": 1, "announce": 2,
    "offer": 2, "tm_tie": 2, "take": 2, "gift": 2, "first": 3, "turn": 3, "store": 4,
}
STEP_OF_EVENT = {
    "event": 0, "deal": 1, "display": 1, "unstore": 1, "pick": 1, "split": 1, "buy": 1,
    "pirates": 1, "reshuffle": None, "announce": 2, "offer": 2, "reveal": 2, "trade_master": 2,
    "take": 2, "trade_end": 2, "gift": 2, "first": 3, "convert": 3, "set": 3, "series": 3,
    "relics": 3, "perfect": 3, "income": 3, "revert": 3, "store": 4, "discard": 4,
    "round_end": 5, "game_over": 5,
}
# Rules edition 1 (Options.rules=1): storage and discard belonged to each progression turn.
STEP_OF_EVENT_FIRST_EDITION = {**STEP_OF_EVENT, "store": 3, "discard": 3, "round_end": 4,
                               "game_over": 4}


def _rounds(g: Game) -> list[list[Event]]:
    """The log split at each "round" event (the events before round 1's are dropped)."""
    rounds: list[list[Event]] = []
    for e in g.log:
        if e.kind == "round":
            rounds.append([])
        elif rounds:
            rounds[-1].append(e)
    return rounds


# -- R7 the order of one round --------------------------------------------------------------------


def _rounds_of_a_random_game(players: int, rules: int) -> list[list[Event]]:
    """The log of a whole game of random bots (promo cards on), round by round."""
    g = play_game(Game.new(players, 30 + players, promo=True, rules=rules),
                  [RandomBot(s) for s in range(players)])
    assert g.result is not None
    rounds = _rounds(g)
    assert len(rounds) == g.result.rounds
    return rounds


@pytest.mark.parametrize("players", [2, 4, 6])
def test_R7_order_of_a_round(players: int) -> None:
    """R7: event -> supply (pirates) -> trade -> progression turns (each ending with income
    and shipyards) -> storage and discard for everyone at once -> end-of-round check, in every
    round of a random game. The storage choices come after the last turn's income; then the
    store events and every seat's discard, in seat order, come together, with no decision
    among them, right before the end-of-round check."""
    stored = 0
    for evs in _rounds_of_a_random_game(players, rules=2):
        kinds = [e.kind for e in evs if e.kind != "decision"]
        steps = [step for k in kinds if (step := STEP_OF_EVENT[k]) is not None]
        assert steps == sorted(steps), kinds
        assert kinds[0] == "event"
        assert kinds.count("income") == players  # one progression turn each
        every = [e.kind for e in evs]
        end = every.index("round_end")
        first = min(i for i, k in enumerate(every) if k in ("store", "discard"))
        last_income = max(i for i, k in enumerate(every) if k == "income")
        store_choices = [i for i, e in enumerate(evs)
                         if e.kind == "decision" and e.public["type"] == "Store"]
        assert all(last_income < i < first for i in store_choices)
        block = evs[first:end]
        n_store = sum(e.kind == "store" for e in block)
        assert [e.kind for e in block] == ["store"] * n_store + ["discard"] * players
        assert n_store == len(store_choices)
        assert [e.public["seat"] for e in block if e.kind == "discard"] == list(range(players))
        stored += n_store
    assert stored, "the game has a storage step to check"


@pytest.mark.parametrize("players", [2, 4])
def test_R7_order_of_a_round_first_edition(players: int) -> None:
    """R7 as rules edition 1 read it: each progression turn ends with its income, then its
    player's storage, then his discard."""
    stored = 0
    for evs in _rounds_of_a_random_game(players, rules=1):
        kinds = [e.kind for e in evs if e.kind != "decision"]
        steps = [step for k in kinds if (step := STEP_OF_EVENT_FIRST_EDITION[k]) is not None]
        assert steps == sorted(steps), kinds
        assert kinds[0] == "event"
        assert "round_end" in kinds
        assert kinds.count("discard") == players
        # Within each progression turn: income, then storage, then discard.
        turn_kinds = [k for k in kinds if k in ("income", "store", "discard")]
        for i in range(len(turn_kinds)):
            if turn_kinds[i] == "store":
                assert turn_kinds[i - 1] == "income" and turn_kinds[i + 1] == "discard"
                stored += 1
            elif turn_kinds[i] == "income":
                assert turn_kinds[i + 1] in ("store", "discard")
    assert stored, "the game stores at the end of a turn"


def test_R7_a_decision_of_another_step_is_refused() -> None:
    """R7: a decision that is not the pending one is refused and changes nothing."""
    g = new_game(3, seed=1)
    assert g.phase == "announce"
    assert_refused(g, 0, EndTurn(), "R7")
    assert_refused(g, 0, Offer((1, 2)), "R7")
    assert_refused(g, 0, PickCards((1,)), "R7")


def test_R5_1_a_decision_of_another_seat_names_the_rule_of_whose_it_is() -> None:
    """R5.1: the TM announces; another seat's announcement names that rule, not R7."""
    g = new_game(3, seed=1)
    assert g.phase == "announce" and g.active == 0
    assert_refused(g, 1, Announce(3), "R5.1")


def test_R7_each_player_takes_one_progression_turn_per_round() -> None:
    """R7/R6.1: after the trade, each player has exactly one progression turn."""
    g = new_game(3, seed=2)
    g.apply(0, Announce(2))
    while g.phase in ("offer", "tm_tie", "take", "gift"):
        seat = g.waiting_seats()[0]
        g.apply(seat, g.legal(seat)[0])
    assert g.phase == "first"
    mark = len(g.log)
    g.apply(g.active, ChooseFirst(1))
    while g.round == 1:
        g.apply(g.active, g.legal(g.active)[0])
    assert [e["seat"] for e in events(g, "income", mark)] == [1, 2, 0]


# -- R8 the end of the game -----------------------------------------------------------------------


def end_of_round(g: Game, seat: int, hand: list[int], money: list[int]) -> None:
    """``seat`` plays the last turn of the round with ``hand``; doubloons as given."""
    g.doubloons[:] = money
    start_turn(g, seat, hand, last=True)


def test_R8_1_perfect_combination_wins_even_against_75() -> None:
    """R8.1: a player who showed the perfect combination wins, even if others have 75+."""
    g = new_game(3, seed=3)
    end_of_round(g, 1, [1, 2, 3, 4, 5, 6, 7, 8, 9, R], [80, 10, 90])
    g.apply(1, MakePerfect())
    assert g.is_over and g.result is not None
    assert g.result.reason == "perfect"
    assert g.result.winners == (1,)
    assert g.result.places == (3, 1, 2)


def test_R8_1_several_perfect_combinations_the_richest_wins() -> None:
    """R8.1: several players showed it this round: the richest of them wins."""
    g = new_game(3, seed=3)
    g.doubloons[:] = [5, 10, 50]
    perfect = [1, 2, 3, 4, 5, 6, 7, 8, 9, R]
    start_turn(g, 0, perfect, others=perfect)
    g.apply(0, MakePerfect())
    assert g.active == 1  # seat 0's empty hand ended its turn
    g.apply(1, MakePerfect())
    g.apply(2, EndTurn())  # seat 2 (50 doubloons) does not show it
    assert g.result is not None
    assert g.result.reason == "perfect"
    assert g.result.winners == (1,)
    assert g.result.places == (3, 1, 2)


def test_R8_2_75_doubloons_the_richest_wins() -> None:
    """R8.2: anyone with 75 or more at the end of the round: the richest wins."""
    g = new_game(3, seed=4)
    end_of_round(g, 0, [1], [76, 80, 10])
    g.apply(0, EndTurn())
    assert g.is_over and g.result is not None
    assert g.result.reason == "doubloons"
    assert g.result.winners == (1,)
    assert g.result.doubloons == (76, 80, 10)
    assert g.result.places == (2, 1, 3)


def test_R8_2_reaching_75_during_the_turn_ends_the_game_at_the_round_end() -> None:
    """R8.2: checked at the end of the round, reached by a series this turn."""
    g = new_game(3, seed=4)
    end_of_round(g, 2, [1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 0, 50])
    g.apply(2, MakeSeries((1, 2, 3, 4, 5, 6, 7, 8, 9)))
    assert g.result is not None and g.result.winners == (2,)
    assert g.doubloons[2] == 75


def test_R8_2_not_over_below_75() -> None:
    """R8.2: at 74 the game goes on to the next round."""
    g = new_game(3, seed=4)
    put_queue_first(g, "D01")
    end_of_round(g, 0, [1], [74, 0, 0])
    g.apply(0, EndTurn())
    assert not g.is_over
    assert g.round == 2


def test_R8_3_short_queue_richest_wins() -> None:
    """R8.3: the queue could not be refilled this round: the richest wins."""
    g = new_game(3, seed=5)
    while g.devpile:
        give(g, 2, g.devpile[0])
    end_of_round(g, 0, [9, 9, 9, R], [3, 20, 1])
    g.apply(0, MakeSet(9, (9, 9, 9), 5))
    g.apply(0, EndTurn())
    assert g.result is not None
    assert g.result.reason == "queue"
    assert g.result.winners == (1,)


def test_R8_4_tie_for_richest_is_a_shared_victory() -> None:
    """R8.4 ruling: a tie for richest is shared; places list every player."""
    g = new_game(4, seed=6)
    end_of_round(g, 0, [1], [80, 80, 30, 30])
    g.apply(0, EndTurn())
    assert g.result is not None
    assert g.result.winners == (0, 1)
    assert g.result.places == (1, 1, 3, 3)
    assert g.result.doubloons == (80, 80, 30, 30)
    over = events(g, "game_over")[-1]
    assert over["winners"] == (0, 1) and over["places"] == (1, 1, 3, 3)


def test_R8_5_round_limit_ends_the_game_and_says_so() -> None:
    """R8.5 ruling: a host's round limit ends the game as in R8.3, with its own reason."""
    g = Game.new(3, 7, round_limit=2)
    play_game(g, [RandomBot(s) for s in range(3)])
    assert g.result is not None
    assert g.result.rounds <= 2
    if g.result.reason == "round_limit":
        assert g.result.rounds == 2
        best = max(g.doubloons)
        assert g.result.winners == tuple(s for s in range(3) if g.doubloons[s] == best)


def test_R8_5_round_limit_of_one() -> None:
    """R8.5: a limit of 1 ends the game after round 1."""
    g = Game.new(2, 7, round_limit=1)
    play_game(g, [RandomBot(s) for s in range(2)])
    assert g.result is not None
    assert g.result.rounds == 1
    assert g.result.reason in ("round_limit", "perfect", "doubloons", "queue")


def test_R8_5_no_limit_unless_the_host_sets_one_and_limit_must_be_positive() -> None:
    """R8.5: no limit by default; a limit below 1 is refused."""
    assert Game.new(2).options.round_limit is None
    with pytest.raises(RuleError) as info:
        Game.new(2, 0, round_limit=0)
    assert info.value.rule == "R8.5"


def test_R8_no_decision_after_the_end() -> None:
    """R8: once the game is over, every decision is refused and nothing is pending."""
    g = new_game(3, seed=4)
    end_of_round(g, 0, [1], [76, 80, 10])
    g.apply(0, EndTurn())
    assert g.pending is None and g.waiting_seats() == ()
    assert g.legal(0) == []
    with pytest.raises(RuleError) as info:
        g.apply(0, EndTurn())
    assert g.result is not None  # the rule that ended it
    assert info.value.rule == {"perfect": "R8.1", "doubloons": "R8.2", "queue": "R8.3",
                               "round_limit": "R8.5"}[g.result.reason]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R8_random_games_end_by_themselves(players: int) -> None:
    """R8: random games end by one of R8.1-R8.3 without any round limit."""
    for seed in range(3):
        g = play_game(Game.new(players, seed), [RandomBot(seed + s) for s in range(players)])
        assert g.result is not None and g.result.reason in ("perfect", "doubloons", "queue")
        assert set(g.result.places) >= {1}


def test_R8_begin_round_after_a_round_without_end() -> None:
    """R8: when no end condition holds, the next round begins (round counter +1)."""
    g = new_game(3, seed=9)
    put_queue_first(g, "D01")
    begin_round(g, 4)
    assert g.round == 4


def test_R7_a_malformed_decision_is_refused_and_changes_nothing() -> None:
    """R7: a decision whose fields have the wrong types is refused with a RuleError."""
    import copy

    from mundus_net.engine.decisions import Announce, Offer
    from mundus_net.engine.game import Game

    game = Game.new(3, 5)
    game.apply(game.active, Announce(3))
    before = copy.deepcopy({name: getattr(game, name) for name in ("hands", "offers", "phase")})
    for bad in (Offer(5), Offer(("x", "y", "z")), Offer(None)):  # type: ignore[arg-type]
        with pytest.raises(RuleError) as err:
            game.apply(0, bad)
        assert err.value.rule in ("R7", "R5.2")
    after = {name: getattr(game, name) for name in ("hands", "offers", "phase")}
    assert after == before
