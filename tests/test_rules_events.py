"""Rules R3: the event step."""

from __future__ import annotations

import pytest
from support.positions import (
    R,
    assert_refused,
    begin_round,
    end_turns,
    events,
    give,
    halt_at_round_end,
    new_game,
    put_queue_first,
    set_hand,
    start_turn,
)

from mundus_net.engine.decisions import (
    ChooseEvent,
    EndTurn,
    MakeSeries,
    MakeSet,
    PickCards,
    PirateDiscard,
    Store,
)
from mundus_net.engine.game import Game

ICON_CARD = {"KA": "D02", "FI": "D04", "IP": "D05", "ST": "D14", "PI": "D19"}
PLAIN_CARD = "D01"  # caravel 1, no icon


def no_icon_first(g: Game) -> None:
    put_queue_first(g, next(c for c in g.queue + g.devpile if g.deck[c].icon is None))


def test_R3_1_round_one_has_no_event_whatever_card_1_shows() -> None:
    """R3.1: round 1 has no event even when queue card 1 shows an icon."""
    g = new_game(2, seed=0)
    put_queue_first(g, ICON_CARD["PI"])
    begin_round(g, 1)
    assert g.round == 1
    assert g.event is None
    assert events(g, "event")[-1]["event"] is None


def test_R3_1_seeded_games_never_start_with_an_event() -> None:
    """R3.1: over many seeds, round 1 never has an event although card 1 often has an icon."""
    icons = 0
    for seed in range(40):
        g = new_game(4, seed=seed)
        icons += g.deck[g.log[0].public["queue"][0]].icon is not None
        assert g.event is None
    assert icons > 0


@pytest.mark.parametrize("icon", ["KA", "IP", "ST", "FI", "PI"])
def test_R3_2_from_round_two_the_event_is_the_icon_of_card_1(icon: str) -> None:
    """R3.2: from round 2 the round's event is the icon on queue card 1."""
    g = new_game(4, seed=2)
    put_queue_first(g, ICON_CARD[icon])
    begin_round(g, 2)
    assert g.event == icon
    assert events(g, "event")[-1] == {"event": icon, "source": "queue"}


def test_R3_2_no_icon_no_event() -> None:
    """R3.2: queue card 1 without an icon: no event."""
    g = new_game(4, seed=2)
    put_queue_first(g, PLAIN_CARD)
    begin_round(g, 3)
    assert g.event is None


def coronado_game(doubloons: int = 5, seed: int = 4) -> Game:
    g = new_game(4, seed=seed)
    give(g, 2, "D44")
    g.doubloons[2] = doubloons
    no_icon_first(g)
    return g


def test_R3_3_coronado_imposes_an_event_for_2_doubloons_before_the_supply() -> None:
    """R3.3: card 1 without icon: Coronado's owner pays 2 to impose an event, decided
    before the supply step (nobody has been dealt yet)."""
    g = coronado_game()
    begin_round(g, 2)
    assert g.phase == "coronado" and g.active == 2
    assert all(sum(h) == 0 for h in g.hands)  # before the supply step
    assert g.legal(2) == [ChooseEvent(e) for e in (None, "KA", "IP", "ST", "FI", "PI")]
    g.apply(2, ChooseEvent("ST"))
    assert g.event == "ST"
    assert g.doubloons[2] == 3
    assert events(g, "event")[-1]["source"] == "coronado"
    assert all(sum(h) == 5 for h in g.hands)  # the supply followed


def test_R3_3_coronado_may_pass_for_free() -> None:
    """R3.3: passing costs nothing and leaves the round without an event."""
    g = coronado_game()
    begin_round(g, 2)
    g.apply(2, ChooseEvent(None))
    assert g.event is None
    assert g.doubloons[2] == 5


def test_R3_3_coronado_not_in_round_one() -> None:
    """R3.3 ruling: Coronado acts from round 2 only (R3.1 still holds)."""
    g = coronado_game()
    begin_round(g, 1)
    assert g.phase != "coronado"
    assert g.event is None


def test_R3_3_coronado_not_when_card_1_shows_an_icon() -> None:
    """R3.3: only if card 1 shows no icon."""
    g = coronado_game()
    put_queue_first(g, ICON_CARD["FI"])
    begin_round(g, 2)
    assert g.phase != "coronado"
    assert g.event == "FI"


def test_R3_3_coronado_not_offered_without_2_doubloons() -> None:
    """R3.3/R1.4: an owner with fewer than 2 doubloons is not asked."""
    g = coronado_game(doubloons=1)
    begin_round(g, 2)
    assert g.phase != "coronado"
    assert g.doubloons[2] == 1


def test_R3_3_coronado_unknown_event_is_refused() -> None:
    """R3.3: only one of the 5 events may be imposed."""
    g = coronado_game()
    begin_round(g, 2)
    assert_refused(g, 2, ChooseEvent("XX"), "R3.3")
    assert_refused(g, 1, ChooseEvent("KA"), "R3.3")


# -- R3.4 Juan de la Cosa -------------------------------------------------------------------------


def test_R3_4_cosa_owner_ignores_storm() -> None:
    """R3.4: under Storm others reach card 1 only; Cosa's owner reaches as usual."""
    g = new_game(3, seed=5)
    give(g, 0, "D37")
    start_turn(g, 0, [9, 9, 9], event="ST")
    g.apply(0, MakeSet(9, (9, 9, 9), 5))
    g2 = new_game(3, seed=5)
    start_turn(g2, 0, [9, 9, 9], event="ST")
    assert_refused(g2, 0, MakeSet(9, (9, 9, 9), 5), "R6.3")


def test_R3_4_cosa_owner_gets_no_kings_aid() -> None:
    """R3.4: King's Aid included: Cosa's owner still makes one identical set only."""
    g = new_game(3, seed=5)
    give(g, 0, "D37")
    start_turn(g, 0, [9, 9, 9, 8, 8, 8], event="KA")
    g.apply(0, MakeSet(9, (9, 9, 9), 1))
    assert_refused(g, 0, MakeSet(8, (8, 8, 8), 1), "R6.2")


def test_R3_4_cosa_owner_ignores_indigenous_people() -> None:
    """R3.4: Cosa's owner is paid the full series price under Indigenous People."""
    g = new_game(3, seed=5)
    give(g, 0, "D37")
    start_turn(g, 0, [1, 2, 3, 4], event="IP")
    g.apply(0, MakeSeries((1, 2, 3, 4)))
    assert events(g, "series")[-1]["gain"] == 5


def test_R3_4_cosa_owner_may_store_under_fire() -> None:
    """R3.4: Fire does not stop Cosa's owner from storing (in the storage step after the last
    turn, R6.9), while another warehouse owner is not asked."""
    g = halt_at_round_end(new_game(3, seed=5))  # stored stays
    give(g, 0, "D37", "D26")
    give(g, 1, "D27")
    start_turn(g, 0, [5, 6], event="FI", last=True, kept={1: [7]})
    g.apply(0, EndTurn())
    assert g.phase == "store"
    assert g.waiting_seats() == (0,) and g.store_due == {0: 1}
    g.apply(0, Store((6,)))
    assert g.stored[0][6] == 1
    assert sum(g.stored[1]) == 0


def test_R3_4_cosa_owner_loses_nothing_to_pirates() -> None:
    """R3.4: Pirates take nothing from Cosa's owner's fleet of 2 caravels."""
    g = new_game(4, seed=6)
    give(g, 0, "D37", "D01", "D02")
    give(g, 1, "D03", "D04")
    put_queue_first(g, ICON_CARD["PI"])
    begin_round(g, 2, display=[5, 6, 7, 8])
    while g.phase == "pick":
        seat = g.active
        g.apply(seat, g.legal(seat)[0])
    assert g.phase == "pirates"
    assert g.pirates_due == {1: 1}


def test_R3_4_cosa_owner_ignores_an_event_imposed_by_coronado() -> None:
    """R3.4: any event, an imposed one too."""
    g = coronado_game()
    give(g, 2, "D37")
    begin_round(g, 2)
    g.apply(2, ChooseEvent("ST"))
    assert g.event == "ST"
    assert not g.affected(2)
    assert g.affected(0)


# -- R3.5 when events act -------------------------------------------------------------------------


def test_R3_5_pirates_act_right_after_supply_before_the_trade() -> None:
    """R3.5/R4.7: the pirates' discards come after the caravel picks, before the
    announcement."""
    g = new_game(4, seed=9)
    give(g, 1, "D01", "D02")
    give(g, 2, "D03")
    put_queue_first(g, ICON_CARD["PI"])
    begin_round(g, 2, display=[7, 8, 9])
    assert g.phase == "pick" and g.active == 1  # fleet 1+2 before fleet 3 (lower caravel)
    g.apply(1, PickCards((7, 9)))
    assert g.phase == "pirates"  # seat 2's pick was its only choice
    assert sum(g.hands[1]) == 7
    assert g.pirates_due == {1: 1}
    g.apply(1, PirateDiscard((9,)))
    assert g.phase == "announce"
    assert sum(g.hands[1]) == 6
    kinds = [e.kind for e in g.log]
    assert kinds.index("pick") < kinds.index("pirates")


def test_R3_5_fire_acts_when_cards_are_stored_at_the_end_of_the_progression_step() -> None:
    """R3.5/R6.9: under Fire a warehouse owner is not asked to store: when every turn is
    played, there is no storage step and his hand is discarded with the others."""
    g = new_game(3, seed=5)
    give(g, 0, "D26")
    start_turn(g, 0, [5, 6], event="FI")
    g.apply(0, EndTurn())
    assert g.phase == "turn" and g.active == 1
    assert g.hands[0][5] == g.hands[0][6] == 1  # kept until every turn is played
    mark = len(g.log)
    end_turns(g)
    assert "store" not in [e.kind for e in g.log[mark:]]
    assert sum(g.stored[0]) == 0
    assert events(g, "discard", mark)[0] == {"seat": 0, "cards": (5, 6)}
    assert g.round == 2


def test_R3_5_first_edition_fire_acts_at_the_end_of_the_progression_turn() -> None:
    """R3.5/R6.9 as rules edition 1 read it: not asked to store, the hand is discarded at the
    end of the turn."""
    g = new_game(3, seed=5, rules=1)
    give(g, 0, "D26")
    start_turn(g, 0, [5, 6], event="FI")
    g.apply(0, EndTurn())
    assert g.phase == "turn" and g.active == 1
    assert sum(g.stored[0]) == 0
    assert events(g, "discard")[-1] == {"seat": 0, "cards": (5, 6)}


def test_R3_5_kings_aid_indigenous_storm_act_in_the_progression_step() -> None:
    """R3.5: King's Aid (more sets), Indigenous People (series price) and Storm (set reach)
    act on the progression turn's combinations."""
    for event in ("KA", "IP", "ST"):
        g = new_game(3, seed=5)
        start_turn(g, 0, [1, 2, 3, 4, 7, 7, 7, 8, 8, 8], event=event)
        g.apply(0, MakeSet(7, (7, 7, 7), 1))
        if event == "KA":
            g.apply(0, MakeSet(8, (8, 8, 8), 3))
        elif event == "ST":
            assert_refused(g, 0, MakeSet(8, (8, 8, 8), 3), "R6.2")
        g.apply(0, MakeSeries((1, 2, 3, 4)))
        gain = events(g, "series")[-1]["gain"]
        assert gain == (4 if event == "IP" else 5)


def test_R3_5_storm_limits_sets_to_card_1() -> None:
    """R3.5/R6.3: Storm in the progression step: any set reaches card 1 only."""
    g = new_game(3, seed=5)
    start_turn(g, 0, [9, 9, 9, 9, 9], event="ST")
    targets = {d.target for d in g.legal(0) if isinstance(d, MakeSet)}
    assert targets == {1}
    assert_refused(g, 0, MakeSet(9, (9, 9, 9, 9, 9), 2), "R6.3")


def test_R3_events_keep_cards_conserved() -> None:
    """R3: the hands dealt after an event are ordinary deals of 5."""
    g = new_game(3, seed=1)
    put_queue_first(g, ICON_CARD["KA"])
    set_hand(g, 0, [R])
    begin_round(g, 2)
    assert [sum(h) for h in g.hands] == [5, 5, 5]
