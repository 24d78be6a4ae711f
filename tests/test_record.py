"""Game records: written as JSON, read back, replayed to the same game (R2.6)."""

from __future__ import annotations

import json

import pytest

from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.game import Game
from mundus_net.engine.notation import positions_equal
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.tools.runner import play_game


def _played(seed: int, players: int = 4) -> Game:
    return play_game(Game.new(players, seed), [RandomBot(seed * 10 + s) for s in range(players)])


def test_R2_6_record_replays_to_the_same_final_position() -> None:
    game = _played(3)
    record = GameRecord.from_json(GameRecord.from_game(game, "g1", ["a", "b", "c", "d"]).to_json())
    replayed = record.replay()
    assert positions_equal(game, replayed)
    assert replayed.result == game.result == record.result


def test_record_replay_can_stop_part_way() -> None:
    record = GameRecord.from_game(_played(4, players=3), "g2")
    partial = record.replay(upto=10)
    assert not partial.is_over


def test_record_that_is_not_json_is_refused_clearly() -> None:
    with pytest.raises(RecordError, match="not a JSON document"):
        GameRecord.from_json("{broken")


def test_record_of_another_format_is_refused() -> None:
    with pytest.raises(RecordError, match="not a game record"):
        GameRecord.from_json(json.dumps({"format": "something-else"}))


def test_record_with_a_bad_decision_names_it() -> None:
    data = json.loads(GameRecord.from_game(_played(5), "g3").to_json())
    data["decisions"][2][1] = "take:banana"
    with pytest.raises(RecordError, match="decision 3"):
        GameRecord.from_json(json.dumps(data))


def test_record_whose_decisions_do_not_replay_names_the_first_that_fails() -> None:
    data = json.loads(GameRecord.from_game(_played(6), "g4").to_json())
    data["decisions"][0][0] = (data["decisions"][0][0] + 1) % 4  # the wrong seat decides
    with pytest.raises(RecordError, match=r"decision 1 .* does not replay"):
        GameRecord.from_json(json.dumps(data)).replay()


def test_record_missing_a_field_is_refused() -> None:
    data = json.loads(GameRecord.from_game(_played(7), "g5").to_json())
    del data["options"]
    with pytest.raises(RecordError, match='its "options" field is missing'):
        GameRecord.from_json(json.dumps(data))
