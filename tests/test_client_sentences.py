"""Log sentences (client/tui/sentences.py): every engine and host event kind reads as English."""

from __future__ import annotations

from functools import cache
from typing import Any

from support.positions import R, new_game, start_turn

from mundus_net.bots.random_bot import RandomBot
from mundus_net.client.tui.helptext import round_gains, round_summary, split_rounds
from mundus_net.client.tui.sentences import (
    ENGINE_KINDS,
    HOST_KINDS,
    KNOWN_KINDS,
    Narrator,
    event_text,
    sentence,
)
from mundus_net.engine.decisions import MakePerfect
from mundus_net.engine.deck import default_deck
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView, public_log
from mundus_net.protocol.codec import to_wire

NAMES = ["Ana", "Bo", "Cy", "Dee", "Eve", "Fu"]

# Kinds that always deserve a line (the others may say nothing, e.g. an income of 0).
ALWAYS = ENGINE_KINDS - {"decision", "offer", "display", "income", "revert", "store",
                         "discard"}


@cache
def _played_games() -> tuple[Game, ...]:
    games = []
    for seed in range(40):
        players = 2 + seed % 5
        g = Game.new(players, seed, promo=seed % 2 == 0, first_tm=None)
        bots = [RandomBot(seed * 17 + s) for s in range(players)]
        while not g.is_over:
            seat = g.waiting_seats()[0]
            g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
        games.append(g)
    return tuple(games)


def _perfect_game() -> Game:
    g = new_game(4, 3)
    start_turn(g, 1, (1, 2, 3, 4, 5, 6, 7, 8, 9, R))
    g.apply(1, MakePerfect())
    return g


def test_every_engine_event_kind_over_many_games_is_handled() -> None:
    seen = {e.kind for g in (*_played_games(), _perfect_game()) for e in g.log}
    assert seen <= KNOWN_KINDS, f"no sentence for {sorted(seen - KNOWN_KINDS)}"
    assert seen == ENGINE_KINDS  # the docs' list, every kind met at least once


def test_every_event_reads_the_same_from_the_engine_and_off_the_wire() -> None:
    deck = default_deck()
    counted: dict[str, int] = {}
    for g in (*_played_games(), _perfect_game()):
        for seat in (None, *range(g.players)):
            for event in public_log(g, seat):
                text = sentence(event, NAMES, seat, deck, 2)
                if event["kind"] == "decision":
                    assert text is None
                    continue
                assert text == sentence(to_wire(event), NAMES, seat, deck, 2)
                if event["kind"] in ALWAYS:
                    assert text, event
                if text is not None:
                    assert text.strip() and "\n" not in text
                    assert "{" not in text and "None" not in text, text
                    counted[event["kind"]] = counted.get(event["kind"], 0) + 1
    assert ENGINE_KINDS - {"decision"} <= set(counted)


def test_take_with_a_swap() -> None:
    event = {"kind": "take", "seat": 0, "source": 1, "card": 5, "swap": 9,
             "market": [1, 5, 9], "orellana": 0}
    assert sentence(event, NAMES) == \
        "Ana took cotton from Bo and swapped it for vanilla in the market"
    assert sentence(event, NAMES, me=1) == \
        "Ana took cotton from you and swapped it for vanilla in the market"


def test_take_kept_and_orellana_R5_10() -> None:
    event = {"kind": "take", "seat": 2, "source": 0, "card": 10, "swap": 3,
             "market": [3, 3, 3], "orellana": 2}
    assert sentence(event, NAMES) == ("Cy took relic from Ana and swapped it for tobacco in "
                                      "the market, earning 2 doubloons (Orellana)")
    kept = {"kind": "take", "seat": 2, "source": 0, "card": 1, "swap": None}
    assert sentence(kept, NAMES) == "Cy took cocoa from Ana"


def test_series_names_its_cards_and_pay() -> None:
    event = {"kind": "series", "seat": 1, "cards": (1, 2, 3, 4, 5), "spent": (1, 2, 3, 4, 5),
             "gain": 7}
    assert sentence(event, NAMES) == \
        "Bo made a series of 5 (cocoa, corn, tobacco, coffee, cotton) for 7 doubloons"


def test_event_line_names_the_round_and_the_effect() -> None:
    event = {"kind": "event", "event": "ST", "source": "queue"}
    assert sentence(event, NAMES, round=3) == "Round 3: Storm — sets reach queue card 1 only"
    assert event_text(None) == "no event"
    imposed = {"kind": "event", "event": "FI", "source": "coronado", "seat": 2}
    assert "Cy paid 2 doubloons (Coronado) to impose Fire" in str(sentence(imposed, NAMES))


def test_store_is_a_count_for_others_and_cards_for_yourself() -> None:
    assert sentence({"kind": "store", "seat": 2, "count": 2}, NAMES) == "Cy stored 2 cards"
    mine = {"kind": "store", "seat": 2, "count": 2, "cards": (2, 10)}
    assert sentence(mine, NAMES, me=2) == "You stored corn, relic in the warehouses"
    assert sentence({"kind": "store", "seat": 2, "count": 0}, NAMES) is None


def test_deal_shows_your_cards() -> None:
    mine = {"kind": "deal", "counts": {"0": 5, "1": 5}, "cards": [2, 2, 4, 8, 10]}
    assert sentence(mine, NAMES, me=0) == "You were dealt corn, corn, coffee, indigo, relic"
    public = {"kind": "deal", "counts": {0: 5, 1: 5}}
    assert sentence(public, NAMES) == "Each player was dealt 5 cards"


def test_set_names_the_development_and_the_refill() -> None:
    deck = default_deck()
    event = {"kind": "set", "seat": 3, "value": 9, "cards": (9, 9, 10), "spent": (9, 9, 10),
             "target": 4, "development": "D09", "refill": "D42"}
    assert sentence(event, NAMES, deck=deck) == (
        "Dee made a set of 3 vanilla (1 relic) and took Caravel 9 (queue card 4); "
        "Hernán Cortés joins the queue")
    cash = {"kind": "set", "seat": 3, "value": 9, "cards": (9, 9, 9), "spent": (9, 9, 9),
            "target": "cash", "gain": 5}
    assert sentence(cash, NAMES) == "Dee made a set of 3 vanilla and sold it for 5 doubloons " \
        "(Vicente)"


def test_gift_card_only_for_the_two_players_involved_R5_9() -> None:
    public = {"kind": "gift", "seat": 0, "to": 2}
    assert sentence(public, NAMES, me=1) == "Ana gave Cy one card from hand (balance)"
    private = {**public, "card": 4}
    assert sentence(private, NAMES, me=2) == "Ana gave coffee to you (balance)"


def test_decision_events_say_nothing() -> None:
    event: dict[str, Any] = {"kind": "decision", "seat": 0, "type": "Take", "auto": False}
    assert sentence(event, NAMES) is None


def test_unknown_kinds_say_nothing() -> None:
    assert sentence({"kind": "mystery"}, NAMES) is None


def test_every_host_event_kind_reads() -> None:
    events: list[dict[str, Any]] = [
        {"kind": "joined", "seat": 1, "name": "Bo", "bot": True},
        {"kind": "away", "seat": 1},
        {"kind": "back", "seat": 1},
        {"kind": "spectator", "name": "Zed"},
        {"kind": "chat", "seat": 0, "name": "Ana", "text": "hola"},
        {"kind": "committed", "seat": 2},
        {"kind": "commitments", "round": 1, "commitments": {"0": b"x" * 32}},
        {"kind": "reveals", "round": 1, "reveals": {}},
        {"kind": "violation", "seat": 2, "reason": "commit_mismatch"},
        {"kind": "timeout", "seat": 3, "phase": "take"},
        {"kind": "started"},
        {"kind": "fair_deal", "commitment": b"c" * 32, "mixed": True,
         "contributions": {"0": b"x" * 32}},
        {"kind": "seed_reveal", "host_seed": b"s" * 32, "seed": 7},
        {"kind": "stopping", "reason": "SIGTERM"},
        {"kind": "stand_in", "seat": 1, "strategy": "greedy"},
        {"kind": "stand_in_end", "seat": 1},
        {"kind": "contribution_late", "seat": 2, "seconds": 30.0},
        {"kind": "closing", "seconds": 10.0},
    ]
    assert {e["kind"] for e in events} == HOST_KINDS
    texts = {e["kind"]: sentence(e, NAMES) for e in events}
    assert texts["joined"] == "Bo (a bot) took seat 1"  # counted from 0, as everywhere
    assert texts["chat"] == "<Ana> hola"
    assert texts["away"] == "Bo is away"
    assert texts["stopping"] is not None and "stopping the table (SIGTERM)" in texts["stopping"]
    assert texts["reveals"] is None  # the engine's reveal event says it
    assert texts["stand_in"] == "A greedy bot plays for Bo while they are away"
    assert texts["stand_in_end"] == "Bo takes the seat back"
    assert "take a card" in str(texts["timeout"])
    assert all(texts[k] for k in HOST_KINDS - {"reveals", "closing"})  # said by game over


def test_narrator_remembers_the_round_and_the_names_that_join() -> None:
    tell = Narrator(["", ""], me=None)
    assert tell({"kind": "joined", "seat": 1, "name": "Bo", "bot": False}) == "Bo took seat 1"
    tell({"kind": "round", "round": 4, "tm": 1})
    assert tell({"kind": "event", "event": "KA", "source": "queue"}) == \
        "Round 4: King's Aid — any number of identical sets per turn"
    assert tell({"kind": "relics", "seat": 1, "size": 2, "gain": 7}) == \
        "Bo showed a relic set of 2 for 7 doubloons"


def test_game_over_names_the_winners_and_the_reason_R8_4() -> None:
    event = {"kind": "game_over", "winners": [0, 2], "reason": "doubloons",
             "doubloons": [80, 10, 80], "places": [1, 3, 1], "rounds": 12}
    assert sentence(event, NAMES) == ("Game over after 12 rounds (75 doubloons reached): "
                                      "Ana and Cy share the victory with 80 doubloons")


# -- the round summary (client/tui/helptext.py) reads the same events ------------------------------


def test_round_gains_add_up_to_each_round_s_change_in_doubloons() -> None:
    for g in _played_games()[:20]:
        before = [0] * g.players
        for events in split_rounds(to_wire(public_log(g, None))):
            end = next(e for e in events if e["kind"] == "round_end")["doubloons"]
            gains = round_gains(events)
            for seat in range(g.players):
                assert sum(gains.get(seat, {}).values()) == end[seat] - before[seat]
            before = list(end)


def test_round_summary_says_who_gained_what_and_why_R6_7_R6_8_R5_10() -> None:
    deck = default_deck()
    events: list[dict[str, Any]] = [
        {"kind": "round", "round": 3, "tm": 0},
        {"kind": "event", "event": "ST", "source": "queue"},
        {"kind": "trade_master", "seat": 1, "previous": 0},
        {"kind": "take", "seat": 0, "source": 1, "card": 3, "swap": 2, "market": [1, 2, 3],
         "orellana": 2},
        {"kind": "series", "seat": 0, "cards": [1, 2, 3, 4, 5], "spent": [1, 2, 3, 4, 5],
         "gain": 7},
        {"kind": "set", "seat": 1, "value": 9, "cards": [9, 9, 10], "spent": [9, 9, 10],
         "target": 1, "development": "D09", "refill": "D10"},
        {"kind": "income", "seat": 1, "gain": 4, "parts": {"printed": 2, "shipyards": 2}},
        {"kind": "round_end", "round": 3, "doubloons": [20, 4, 0]},
    ]
    lines = round_summary(events, ["Ana", "Bo", "Cy"], deck)
    assert lines[0] == ("Round 3 — Storm — sets reach queue card 1 only; "
                        "Trade Master Bo")
    assert lines[1] == "Ana: +9 (Orellana 2, series 7); now 20"
    assert lines[2] == ("Bo: +4 (income 2, shipyards 2); now 4; "
                        "took Caravel 9 (set of 3 vanilla)")
    assert lines[3] == "Cy: no doubloons; now 0"


def test_round_summary_counts_coronado_and_sergio_payments_R3_3() -> None:
    events: list[dict[str, Any]] = [
        {"kind": "round", "round": 2, "tm": 0},
        {"kind": "event", "event": "PI", "source": "coronado", "seat": 1},
        {"kind": "buy", "seat": 0, "card": 5, "market": [1, 2, 3]},
        {"kind": "pirates", "discards": {"1": [4]}},
    ]
    assert round_gains(events) == {0: {"Sergio": -2}, 1: {"Coronado": -2}}
    lines = round_summary(events, ["Ana", "Bo"])
    assert lines[2] == "Bo: -2 (Coronado -2); lost 1 card to pirates"
