"""What ``mundus verify``, ``mundus replay`` and ``mundus report`` say of a file that is not a
game record they can use (docs/record.md, docs/replay.md): one line that names the file and
says in plain words what is wrong with it, exit status 2, no traceback and no Python texts;
and what they do with the record of an unfinished game.

Also the console texts of ``mundus host`` and ``mundus bot`` (players by name with their
0-based seat index, the final standings by place) and the pending line of ``mundus rules
show``.

Every file here is a real one: records and a game log made by a host's table (host bots
only, no sockets), a deck file the engine ships, a PNG written byte by byte.
"""

from __future__ import annotations

import argparse
import json
import shutil
import struct
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from support.lines import paragraphs

import mundus_net.engine
from mundus_net.bots import load_bot
from mundus_net.cli import main
from mundus_net.client import bot as bot_cli
from mundus_net.client.core import ClientCore, ClientSettings
from mundus_net.client.tui.replay import load_replay, unfinished_note
from mundus_net.engine.game import Game, Result
from mundus_net.engine.notation import apply_decision
from mundus_net.engine.record import GameRecord, RecordError
from mundus_net.host import cli as host_cli
from mundus_net.host.gamelog import BotSpec, GameLog
from mundus_net.host.keys import HostKeys
from mundus_net.host.table import Table, TableSettings
from mundus_net.tools.report_data import load_results, record_series
from mundus_net.tools.rules_cli import describe
from mundus_net.tools.sim import run_sim

KEYS = HostKeys.generate()
COMMANDS = ("verify", "replay", "report")
BOTS = (BotSpec("greedy", 1), BotSpec("random", 2), BotSpec("greedy", 3))
# What no message for people may hold: Python's own texts.
PYTHON_TEXTS = ("Traceback", "codec can't decode", "Errno", "Error(", "Expecting value",
                "char ")


def bot_table(round_limit: int | None = None) -> Table:
    """A 3-seat table of host bots (it starts at once), named Ann, Bob and Cy."""
    return Table(3, TableSettings(game_id="files-game", round_limit=round_limit, first_tm=0),
                 seed=5, bots=[load_bot(b.strategy, b.seed) for b in BOTS],
                 bot_names=["Ann", "Bob", "Cy"])


def tiny_png() -> bytes:
    """A real 1x1 PNG picture."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every kind of file, by a short name."""
    where = tmp_path_factory.mktemp("files")
    out: dict[str, Path] = {}

    def write(name: str, data: str | bytes) -> None:
        out[name] = where / name
        if isinstance(data, bytes):
            out[name].write_bytes(data)
        else:
            out[name].write_text(data, encoding="utf-8")

    # A host's game log, copied while it is open: the database and its write-ahead file.
    table = bot_table(round_limit=2)
    log = GameLog.create(where / "state", table, bots=list(BOTS))
    table.advance(budget=10)
    table.drain()
    base = where / "state" / f"{table.game_id}.sqlite3"
    wal = Path(f"{base}-wal")
    assert wal.stat().st_size > 0
    shutil.copy(base, where / "game.sqlite3")
    shutil.copy(wal, where / "game.sqlite3-wal")
    out["game log"], out["game log's write-ahead file"] = (where / "game.sqlite3",
                                                           where / "game.sqlite3-wal")
    while table.advance():
        pass
    assert table.over
    log.close()
    finished = host_cli.record_text(table, KEYS)
    write("finished.json", finished)
    unfinished = bot_table()
    unfinished.advance(budget=40)
    assert not unfinished.over
    write("unfinished.json", host_cli.record_text(unfinished, KEYS))
    write("empty.json", "")
    write("blank.json", " \n\n")
    write("cut.json", finished[:len(finished) // 2])
    line = finished.index("\n", len(finished) // 2) + 1  # a line's first token, mid-file
    token = line + len(finished[line:]) - len(finished[line:].lstrip(" "))
    write("damaged.json", finished[:token] + "#" + finished[token + 1:])
    write("picture.png", tiny_png())
    shutil.copy(Path(mundus_net.engine.__file__).parent / "data" / "default.deck",
                where / "default.deck")
    out["deck"] = where / "default.deck"
    write("binary.bin", bytes(range(256)) * 4)
    write("list.json", "[1, 2, 3]")
    write("sim.json", json.dumps(run_sim(3, ["greedy", "random", "random"], 2)))
    write("tournament.json", json.dumps({"summary": {"per_bot": []}, "games": []}))
    write("token.json", json.dumps({"address": "tcp://127.0.0.1:7700", "game": "g",
                                    "seat": 2, "token": "t" * 32, "secret": None}))
    data = json.loads(finished)
    del data["options"]
    write("no-options.json", json.dumps(data))
    data = json.loads(finished)
    data["format"] = "mundus-record/2"
    write("newer.json", json.dumps(data))
    (where / "folder").mkdir()
    out["folder"] = where / "folder"
    out["missing"] = where / "missing.json"
    return out


# (the file, what the line says of it, which commands): every command refuses each of them.
CASES = [
    ("missing", "there is no such file", COMMANDS),
    ("folder", "it is a folder, not a file", COMMANDS),
    ("empty.json", "it is empty", COMMANDS),
    ("blank.json", "it is empty", COMMANDS),
    ("cut.json", "it is cut short: the record stops in the middle", COMMANDS),
    ("damaged.json", "it is damaged: it is not a JSON document (it breaks at line", COMMANDS),
    ("game log", "it is a host's game log", COMMANDS),
    ("game log's write-ahead file", "it is the write-ahead file of a host's game log",
     COMMANDS),
    ("picture.png", "it is a PNG picture, not a game record", COMMANDS),
    ("deck", "it is a deck file (docs/deck-format.md), not a game record", COMMANDS),
    ("binary.bin", "it is a binary file, not a game record", COMMANDS),
    ("list.json", "not a game record", ("verify", "replay")),
    ("list.json", "neither a game record", ("report",)),
    ("sim.json", "it is the summary of a run of games (mundus sim --json)",
     ("verify", "replay")),
    ("tournament.json", "it is the results of a tournament", ("verify", "replay")),
    ("token.json", "it is a bot's seat-token file", COMMANDS),
    ("no-options.json", 'it is a damaged game record: its "options" field is missing',
     ("replay", "report")),
    ("newer.json", "it is a game record of format mundus-record/2, which this version",
     ("replay", "report")),
]


@pytest.mark.parametrize(("name", "words", "commands"), CASES,
                         ids=[f"{c[0]}-{'+'.join(c[2])}" for c in CASES])
def test_a_file_that_is_no_usable_record_gets_one_plain_line_naming_it(
        files: dict[str, Path], capsys: pytest.CaptureFixture[str], name: str, words: str,
        commands: tuple[str, ...], tmp_path: Path) -> None:
    path = files[name]
    for command in commands:
        extra = ["--out", str(tmp_path)] if command == "report" else []
        assert main([command, str(path), *extra]) == 2, command
        captured = capsys.readouterr()
        lines = captured.err.splitlines()
        assert lines == [lines[0]], (command, captured.err)  # one line
        assert lines[0].startswith(f"mundus {command}: {path}: "), (command, lines[0])
        assert words in lines[0], (command, lines[0])
        assert not any(text in lines[0] for text in PYTHON_TEXTS), (command, lines[0])
        assert captured.out == ""
    assert not list(tmp_path.iterdir())  # report drew nothing


def test_the_record_loader_names_the_kind_of_file_from_its_bytes(
        files: dict[str, Path]) -> None:
    with pytest.raises(RecordError, match="a host's game log"):
        GameRecord.from_json(files["game log"].read_bytes())
    with pytest.raises(RecordError, match="a PNG picture"):
        GameRecord.from_json(files["picture.png"].read_bytes())
    record = GameRecord.from_json(files["finished.json"].read_bytes())  # bytes read as text
    assert record.result is not None
    assert record == GameRecord.from_json(files["finished.json"].read_text(encoding="utf-8"))


def test_a_record_with_a_value_of_the_wrong_kind_is_a_damaged_record(
        files: dict[str, Path]) -> None:
    data = json.loads(files["finished.json"].read_text(encoding="utf-8"))
    data["options"]["players"] = "three"
    with pytest.raises(RecordError, match='its "options" field is malformed'):
        GameRecord.from_json(json.dumps(data))
    data = json.loads(files["finished.json"].read_text(encoding="utf-8"))
    data["offers"][0]["nonce"] = 7
    with pytest.raises(RecordError, match="committed offer 1 is malformed"):
        GameRecord.from_json(json.dumps(data))


def test_verify_checks_an_unfinished_record_as_far_as_it_goes_and_says_where_it_stops(
        files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    path = files["unfinished.json"]
    assert main(["verify", str(path)]) == 1
    out = paragraphs(capsys.readouterr().out)
    ok = [line.split(":")[0] for line in out if line.startswith("ok ")]
    assert ok == ["ok   signature", "ok   layout", "ok   record", "ok   seed commitment",
                  "ok   seed derivation", "ok   deal", "ok   offer commitments", "ok   replay",
                  "ok   offers match decisions"]
    record = GameRecord.from_json(path.read_text(encoding="utf-8"))
    stop = f"it stops in round {record.replay().round}, after decision {len(record.decisions)}"
    assert out[-2].startswith("FAIL result: the game did not finish")
    assert out[-1] == (f"the game in {path} did not finish ({stop}): everything recorded up "
                       "to there holds, but there is no result to check")
    assert "None" not in "\n".join(out)


def test_verify_says_the_result_in_words_with_names(
        files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(files["finished.json"])]) == 0
    result_line = next(line for line in paragraphs(capsys.readouterr().out)
                       if line.startswith("ok   result:"))
    assert "after 2 rounds, at the round limit, with" in result_line
    assert any(f"{name} (seat " in result_line for name in ("Ann", "Bob", "Cy"))


def test_replay_and_report_take_an_unfinished_record_and_say_where_it_stops(
        files: dict[str, Path]) -> None:
    path = files["unfinished.json"]
    model = load_replay(path)
    note = unfinished_note(model)
    assert note is not None and note.startswith(f"it stops in round {model.final.round}, "
                                                f"after decision {model.total}")
    assert unfinished_note(load_replay(files["finished.json"])) is None
    loaded = load_results(path)
    assert isinstance(loaded, GameRecord)
    series = record_series(loaded)
    assert series.unfinished is not None and series.reason is None
    assert record_series(cast(GameRecord, load_results(files["finished.json"]))
                         ).unfinished is None


def test_report_draws_an_unfinished_record_with_a_note(
        files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    path = files["unfinished.json"]
    assert main(["report", str(path), "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == [str(tmp_path / "unfinished-doubloons-by-round.png")]
    assert captured.err.startswith(f"mundus report: {path}: the game did not finish (it "
                                   "stops in round ")


# -- the console texts of mundus host, mundus bot and mundus rules show ---------------------


def test_the_host_tells_of_players_by_name_and_seat() -> None:
    names = ["Ann", "Bob", "Cy"]
    describe_event = host_cli.describe_event
    assert describe_event({"kind": "joined", "seat": 1, "name": "Bob", "bot": False},
                          names) == "Bob took seat 1"
    assert describe_event({"kind": "away", "seat": 1}, names) == "Bob (seat 1) is away"
    assert describe_event({"kind": "back", "seat": 0}, names) == "Ann (seat 0) is back"
    assert describe_event({"kind": "timeout", "seat": 2, "phase": "commit"}, names) == \
        "Cy (seat 2) ran out of time (commit)"
    assert describe_event({"kind": "violation", "seat": 2, "reason": "timeout"}, names) == \
        "Cy (seat 2): answer refused (timeout); the default decision was played"


def test_the_host_prints_the_standings_by_place_with_ties() -> None:
    names = ["Ann", "Bob", "Cy", "Dee"]
    shared = Result((1, 2), "doubloons", (40, 80, 80, 40), (3, 1, 1, 3), 9)
    assert host_cli.standings(shared, names) == [
        "  place 1: Bob (seat 1), 80 doubloons (shared victory)",
        "  place 1: Cy (seat 2), 80 doubloons (shared victory)",
        "  place 3: Ann (seat 0), 40 doubloons (tied)",
        "  place 3: Dee (seat 3), 40 doubloons (tied)"]
    plain = Result((3,), "round_limit", (12, 30, 5, 31), (3, 2, 4, 1), 20)
    assert [line.split(":")[1].split(",")[0] for line in host_cli.standings(plain, names)] \
        == [" Dee (seat 3)", " Bob (seat 1)", " Ann (seat 0)", " Cy (seat 2)"]


def fake_bot(seat: int, names: list[str]) -> bot_cli.NetworkBot:
    core = ClientCore(ClientSettings(names[seat]))
    core.seat, core.state = seat, {"table": {"names": names}}
    conn = SimpleNamespace(core=core)
    return bot_cli.NetworkBot(cast(Any, conn), load_bot("random", 0), log=lambda _: None)


def test_the_bot_says_how_the_game_ended_by_name_and_seat(
        capsys: pytest.CaptureFixture[str]) -> None:
    names = ["Ann", "Bob", "Cy"]
    result = Result((2,), "round_limit", (13, 3, 15), (2, 3, 1), 3)
    args = argparse.Namespace(json=False)
    bot_cli.report_result(args, fake_bot(0, names), result)
    bot_cli.report_result(args, fake_bot(2, names), result)
    assert capsys.readouterr().out.splitlines() == [
        "game over after 3 rounds, ended at the round limit; won by Cy (seat 2); "
        "Ann (seat 0) placed 2nd with 13 doubloons",
        "game over after 3 rounds, ended at the round limit; won by Cy (seat 2); "
        "Cy (seat 2) won with 15 doubloons"]
    assert [bot_cli.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]


def test_rules_show_prints_the_pending_decision_without_a_stray_empty_detail() -> None:
    lines = describe(Game.new(3, 4))
    assert "Pending: announce by seat 0" in lines
    assert not any("{" in line for line in lines)
    game = Game.new(3, 4)
    apply_decision(game, "announce:3")
    assert [line for line in describe(game) if line.startswith("Pending")] == [
        "Pending: offer by seats 0, 1, 2 (announced 3; cards each seat may offer: seat 0 3, "
        "seat 1 3, seat 2 3)"]
