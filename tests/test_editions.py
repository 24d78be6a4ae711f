"""Records made before the rules correction (R6.9, R6.10, §9) still replay and verify.

``tests/data/first-edition-record.json`` is a signed record written by ``mundus host`` at the
commit before the correction (3 host bots, 6 rounds): storage at the end of each turn, and
the default deck of that time (caravel 10 from 4 players, warehouse D24 from 3). Nothing in it
names the rules edition; its deck digest names the deck.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mundus_net.bots.base import load_bot
from mundus_net.client.tui.replay import Replay
from mundus_net.engine.deck import builtin_decks, deck_for_record, default_deck
from mundus_net.engine.game import RULES_EDITION, Game
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.tools.runner import play_game
from mundus_net.tools.verify import verify_text

OLD_RECORD = Path(__file__).resolve().parent / "data" / "first-edition-record.json"


def test_section_9_a_record_of_the_first_edition_names_the_old_default_deck() -> None:
    record = GameRecord.from_json(OLD_RECORD.read_text("utf-8"))
    assert record.deck == "default" and record.deck_digest != default_deck().digest
    deck = deck_for_record(record.deck_digest)
    assert deck is not None and deck.name == "first-edition"
    assert deck == builtin_decks()["first-edition"]


def test_R6_9_a_record_without_an_edition_replays_by_the_first_edition() -> None:
    record = GameRecord.from_json(OLD_RECORD.read_text("utf-8"))
    assert record.options.rules == 1
    game = record.replay()  # finds its deck by digest
    assert game.result == record.result
    stores = [d for d in record.decisions if type(d.decision).__name__ == "Store"]
    assert stores, "the fixture stores cards at the end of turns"


def test_a_record_of_the_first_edition_still_verifies_in_every_check() -> None:
    report = verify_text(OLD_RECORD.read_text("utf-8"))
    failed = [c for c in report.checks if not c.ok]
    assert report.ok and not failed, failed


def test_a_record_of_the_first_edition_opens_in_the_replay() -> None:
    record = GameRecord.from_json(OLD_RECORD.read_text("utf-8"))
    replay = Replay(record)
    assert replay.deck.name == "first-edition"
    assert replay.game_at(replay.total).result == record.result


def test_the_wrong_deck_for_an_old_record_is_refused_by_name() -> None:
    record = GameRecord.from_json(OLD_RECORD.read_text("utf-8"))
    with pytest.raises(RecordError, match="played with deck 'default'"):
        record.replay(default_deck())


def test_a_new_record_names_the_current_edition_and_replays() -> None:
    game = play_game(Game.new(3, 5, round_limit=3), [load_bot("greedy", s) for s in range(3)])
    record = GameRecord.from_game(game, "g", ["a", "b", "c"])
    data = json.loads(record.to_json())
    assert data["options"]["rules"] == RULES_EDITION == 2
    again = GameRecord.from_json(record.to_json())
    assert again.options.rules == 2 and again.replay().result == game.result
