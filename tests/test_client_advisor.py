"""The progression helper (client/tui/advisor.py): the combinations a hand allows, each with the
Decision(s) the engine accepts (R6.2-R6.5, R8.1)."""

from __future__ import annotations

from collections.abc import Iterator

from support.positions import R, give, new_game, put_queue_first, start_turn

from mundus_net.bots.random_bot import RandomBot
from mundus_net.client.tui.advisor import Suggestion, best_reach, suggestions, summary
from mundus_net.engine.decisions import Convert, MakePerfect, MakeRelicSet, MakeSeries, MakeSet
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView, StateView
from mundus_net.protocol.codec import to_wire


def _of(found: list[Suggestion], kind: str) -> list[Suggestion]:
    return [s for s in found if s.kind == kind]


def _accepted(g: Game, seat: int, s: Suggestion) -> bool:
    """Every choice of the suggestion is legal once its first decisions are applied."""
    copy = g.copy()
    for d in s.first:
        if d not in copy.legal(seat):
            return False
        copy.apply(seat, d)
    legal = copy.legal(seat)
    return all(choice in legal for choice in s.choices)


def test_R6_2_finds_the_longest_series_and_its_pay_and_the_engine_accepts_it() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 2, 3, 4, 5, 9, 9))
    series = _of(suggestions(PlayerView(g, 0)), "series")
    assert series[0].choices == (MakeSeries((1, 2, 3, 4, 5, 9)),)
    assert series[0].gain == 10
    assert "Series of 6" in series[0].text and "for 10" in series[0].text
    before = g.doubloons[0]
    g.apply(0, series[0].choices[0])
    assert g.doubloons[0] == before + 10


def test_R6_2_indigenous_people_series_pays_one_per_card() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 2, 3, 4, 5), event="IP")
    series = _of(suggestions(PlayerView(g, 0)), "series")[0]
    assert series.gain == 5 and "1 per card" in series.text


def test_R6_3_rare_set_reaches_every_queue_card_named() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (9, 9, R, 1))
    view = PlayerView(g, 0)
    sets = _of(suggestions(view), "set")
    best = sets[0]
    assert best.reach == 5
    assert best.choices == tuple(MakeSet(9, (9, 9, R), t) for t in range(1, 6))
    for pos, card_id in enumerate(g.queue, start=1):
        assert f"{pos} {g.deck[card_id].name}" in best.labels[pos - 1]
        assert g.deck[card_id].name in best.text
    assert all(_accepted(g, 0, s) for s in sets)
    assert best_reach(view) == 5


def test_R6_3_common_set_of_three_reaches_card_one_and_of_four_cards_one_to_three() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 1, 1, 1))
    sets = _of(suggestions(PlayerView(g, 0)), "set")
    reaches = sorted(s.reach for s in sets)
    assert reaches == [1, 3]
    assert best_reach(PlayerView(g, 0)) == 3


def test_R6_3_storm_limits_every_set_to_queue_card_one() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (9, 9, 9, 9), event="ST")
    view = PlayerView(g, 0)
    sets = _of(suggestions(view), "set")
    assert sets and all(s.reach == 1 for s in sets)
    assert best_reach(view) == 1


def test_R6_2_relic_set_and_perfect_combination_are_offered_and_legal() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 2, 3, 4, 5, 6, 7, 8, 9, R, R))
    found = suggestions(PlayerView(g, 0))
    assert found[0].kind == "perfect" and found[0].choices == (MakePerfect(),)
    relics = _of(found, "relics")[0]
    assert relics.choices == (MakeRelicSet(2),) and relics.gain == 7
    assert all(_accepted(g, 0, s) for s in found)


def test_R6_5_merchant_conversion_that_extends_a_series_is_applied_by_the_engine() -> None:
    g = new_game(4, 1)
    give(g, 0, "D16")  # merchant of uncommon goods
    start_turn(g, 0, (1, 2, 3, 4, 4, 6))
    found = suggestions(PlayerView(g, 0))
    conv = [s for s in _of(found, "convert") if isinstance(s.choices[0], MakeSeries)]
    assert conv, [s.text for s in found]
    s = conv[0]
    assert s.first == (Convert(4, 5),)
    assert s.choices == (MakeSeries((1, 2, 3, 4, 5, 6)),) and s.gain == 10
    assert "coffee → cotton" in s.text and "uncommon merchant" in s.text
    before = g.doubloons[0]
    for d in s.decisions:
        g.apply(0, d)
    assert g.doubloons[0] == before + 10


def test_R6_5_merchant_conversion_that_completes_a_set_is_legal() -> None:
    g = new_game(4, 1)
    give(g, 0, "D19")  # merchant of rare goods
    start_turn(g, 0, (8, 8, 1))
    conv = _of(suggestions(PlayerView(g, 0)), "convert")
    assert any(s.first == (Convert(1, 8),) and "completes a set of 3 indigo" in s.text
               for s in conv)
    assert all(_accepted(g, 0, s) for s in conv)


def test_R6_3_almagro_owner_may_draw_from_the_pile() -> None:
    g = new_game(4, 1)
    give(g, 0, "D36")
    start_turn(g, 0, (1, 1, 1))
    sets = _of(suggestions(PlayerView(g, 0)), "set")
    assert any("Almagro" in label for s in sets for label in s.labels)
    assert all(_accepted(g, 0, s) for s in sets)


def test_R6_2_advisor_follows_the_turn_flags_after_a_series() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 2, 3, 4, 7, 7, 7))
    g.apply(0, MakeSeries((1, 2, 3, 4)))
    found = suggestions(PlayerView(g, 0))
    assert not _of(found, "series")
    assert _of(found, "set")


def test_state_view_from_the_wire_gives_the_same_suggestions() -> None:
    g = new_game(4, 1)
    give(g, 0, "D16", "D13")
    put_queue_first(g, "D10")
    start_turn(g, 0, (1, 2, 2, 3, 4, 6, 7, 9, 9, R))
    view = PlayerView(g, 0)
    wire = StateView(to_wire(view.to_dict()), g.deck)
    assert [s.text for s in suggestions(wire)] == [s.text for s in suggestions(view)]
    assert [s.decisions for s in suggestions(wire)] == [s.decisions for s in suggestions(view)]
    assert summary(wire) == summary(view)


def test_spectator_gets_no_suggestions() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (9, 9, 9))
    assert suggestions(PlayerView(g, None)) == []
    assert best_reach(PlayerView(g, None)) == 0


def _turns(seed: int, players: int) -> Iterator[tuple[Game, int]]:
    g = Game.new(players, seed, promo=True)
    bots = [RandomBot(seed * 13 + s) for s in range(players)]
    while not g.is_over:
        seat = g.waiting_seats()[0]
        if g.phase == "turn":
            yield g, seat
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))


def test_every_suggestion_in_random_games_is_legal_in_the_engine() -> None:
    checked = 0
    for seed in range(6):
        for g, seat in _turns(seed, 2 + seed % 5):
            for s in suggestions(PlayerView(g, seat)):
                assert _accepted(g, seat, s), s.text
                checked += 1
    assert checked > 100
